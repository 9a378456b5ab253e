import { describe, expect, it } from "vitest";
import {
  editDistance,
  nearestNames,
  oneEditApart,
  oneEditMatches,
} from "../../src/core/near-names.js";

describe("oneEditApart", () => {
  it("one insertion, deletion or substitution; not equal, not two", () => {
    expect(oneEditApart("t.py::test_ad", "t.py::test_add")).toBe(true);
    expect(oneEditApart("t.py::test_add", "t.py::test_ad")).toBe(true);
    expect(oneEditApart("t.py::test_adx", "t.py::test_add")).toBe(true);
    expect(oneEditApart("t.py::tset_add", "t.py::test_add")).toBe(false);
    expect(oneEditApart("t.py::test_add", "t.py::test_add")).toBe(false);
    expect(oneEditApart("a", "")).toBe(true);
    expect(oneEditApart("ab", "")).toBe(false);
    expect(oneEditApart("aXb", "aYYb")).toBe(false);
  });
});

describe("oneEditMatches", () => {
  it("the one candidate one edit away; none when two are", () => {
    const tests = ["t.py::test_add", "t.py::test_sub", "t.py::test_a", "t.py::test_b"];
    expect(oneEditMatches(["t.py::test_sux", "t.py::test_xyz"], tests)).toEqual(
      new Map([["t.py::test_sux", "t.py::test_sub"]]),
    );
    // test_a and test_add are both one edit from test_ad: a guess, not a suggestion.
    expect(oneEditMatches(["t.py::test_ad"], tests).size).toBe(0);
  });
});

describe("nearestNames", () => {
  it("orders by whole name and last part: origin/master, then master, for origin/main", () => {
    expect(editDistance("main", "master")).toBe(4);
    const refs = ["v1.0", "master", "origin/master", "origin/feature-x", "release"];
    expect(nearestNames("origin/main", refs, 3)).toEqual(["origin/master", "master", "v1.0"]);
    expect(nearestNames("origin/main", ["origin/main"], 3)).toEqual([]);
  });
});
