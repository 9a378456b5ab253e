import { describe, expect, it } from "vitest";
import { lookupOf, parseFrozenList, resolveFrozen } from "../../src/core/frozen.js";

describe("parseFrozenList", () => {
  it("reads seed 000 quarantine.json and seed 003 properties.json", () => {
    expect(parseFrozenList({ frozen: ["a::b", "a::b", "c::*"] }, "q.json")).toEqual({
      format: "quarantine",
      entries: [
        { pattern: "a::b", isGlob: false },
        { pattern: "c::*", isGlob: true },
      ],
    });
    const props = { properties: [{ id: "p", check: "x", witnessed_by: [] }], frozen: [] };
    expect(parseFrozenList(props, "properties.json").entries).toEqual([]);
  });

  it("reads the freeze ledger's freezes[].test_id (seed 004)", () => {
    const ledger = {
      schema: 1,
      freezes: [{ test_id: "tests/test_billing.py::test_proration_rounding", owner: "finley" }],
    };
    expect(parseFrozenList(ledger, "l.json")).toEqual({
      format: "ledger",
      entries: [{ pattern: "tests/test_billing.py::test_proration_rounding", isGlob: false }],
    });
  });

  it.each([
    [[], /top level is not a JSON object/],
    [{ frozen: "a" }, /"frozen" is not an array/],
    [{ frozen: [1] }, /"frozen"\[0\] is not a non-empty string/],
    [{ frozen: [""] }, /"frozen"\[0\]/],
    [{ freezes: [{ owner: "x" }] }, /"freezes"\[0\]\.test_id is missing/],
    [{ frozen: [], freezes: [] }, /both "frozen" and "freezes"/],
    [{ tests: [] }, /neither "frozen"/],
  ])("refuses malformed input %j", (value, message) => {
    expect(() => parseFrozenList(value, "q.json")).toThrow(message);
  });
});

describe("resolveFrozen", () => {
  const ids = [
    "tests/test_a.py::test_x",
    "tests/test_a.py::test_x[1]",
    "tests/test_b.py::test_x",
    "tests/sub/test_a.py::test_x",
  ];

  it("matches exactly, with no suffix matching", () => {
    const r = resolveFrozen(parseFrozenList({ frozen: ["test_a.py::test_x"] }, "q"), lookupOf(ids));
    expect([...r.frozenTests]).toEqual([]);
    expect(r.unresolved).toEqual(["test_a.py::test_x"]);
  });

  it("keeps brackets literal and expands * only", () => {
    const r = resolveFrozen(
      parseFrozenList({ frozen: ["tests/test_a.py::test_x[1]", "tests/test_b.py::*"] }, "q"),
      lookupOf(ids),
    );
    expect([...r.frozenTests].sort()).toEqual([
      "tests/test_a.py::test_x[1]",
      "tests/test_b.py::test_x",
    ]);
    expect(r.unresolved).toEqual([]);
  });

  it("reports a glob that matches nothing as unresolved", () => {
    const r = resolveFrozen(parseFrozenList({ frozen: ["tests/nope/*"] }, "q"), lookupOf(ids));
    expect(r.unresolved).toEqual(["tests/nope/*"]);
  });
});
