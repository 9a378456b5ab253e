import { describe, expect, it } from "vitest";
import {
  buildModuleIndex,
  dottedCandidates,
  indexContexts,
  parsePytestCovContext,
} from "../../src/core/contexts.js";

describe("parsePytestCovContext", () => {
  it("splits node id and phase on the last bar", () => {
    expect(parsePytestCovContext("tests/test_a.py::test_x|run")).toEqual({
      raw: "tests/test_a.py::test_x|run",
      testId: "tests/test_a.py::test_x",
      phase: "run",
    });
    expect(parsePytestCovContext("tests/test_c.py::test_weird[p|q]|setup")?.testId).toBe(
      "tests/test_c.py::test_weird[p|q]",
    );
    expect(parsePytestCovContext("tests/test_c.py::T::test[a::b|c]|teardown")).toMatchObject({
      testId: "tests/test_c.py::T::test[a::b|c]",
      phase: "teardown",
    });
  });

  it("strips a static context prefix but keeps bars inside parameters", () => {
    expect(parsePytestCovContext("shardA|tests/x.py::t[a|b]|run")?.testId).toBe(
      "tests/x.py::t[a|b]",
    );
  });

  it("rejects names that are not pytest-cov contexts", () => {
    expect(parsePytestCovContext("")).toBeNull();
    expect(parsePytestCovContext("tests.test_a.test_x")).toBeNull();
    expect(parsePytestCovContext("tests/test_a.py::test_x|call")).toBeNull();
    expect(parsePytestCovContext("shardA|run")).toBeNull();
  });
});

describe("dotted test_function names", () => {
  const modules = buildModuleIndex([
    "tests/test_b.py",
    "tests/unit/test_c.py",
    "other/test_c.py",
    "src/app/core.py",
  ]);

  it("maps to a node id when exactly one file fits", () => {
    expect(dottedCandidates("tests.test_b.TestCalc.test_mul", modules)).toEqual([
      "tests/test_b.py::TestCalc::test_mul",
    ]);
    // rootdir-less import: module named by its basename
    expect(dottedCandidates("test_b.test_add", modules)).toEqual(["tests/test_b.py::test_add"]);
  });

  it("lists every fitting file so ambiguity can be refused", () => {
    expect(dottedCandidates("test_c.test_x", modules).sort()).toEqual([
      "other/test_c.py::test_x",
      "tests/unit/test_c.py::test_x",
    ]);
  });

  it("indexContexts refuses ambiguous and unmapped names instead of guessing", () => {
    expect(() => indexContexts(["", "test_c.test_x"], modules)).toThrow(/more than one test file/);
    expect(() => indexContexts(["nowhere.test_x"], modules)).toThrow(/match no test file/);
    const ok = indexContexts(["", "tests.test_b.test_add"], modules);
    expect(ok.style).toBe("test-function");
    expect([...ok.testIds]).toEqual(["tests/test_b.py::test_add"]);
    expect(ok.get("tests.test_b.test_add")).toEqual({
      raw: "tests.test_b.test_add",
      testId: "tests/test_b.py::test_add",
      phase: null,
    });
    expect(ok.hasTest("tests/test_b.py::test_add")).toBe(true);
    expect(ok.hasTest("tests/test_b.py::test_sub")).toBe(false);
  });

  it("refuses data mixing both styles", () => {
    expect(() =>
      indexContexts(["tests/test_b.py::test_add|run", "tests.test_b.test_add"], modules),
    ).toThrow(/mixes pytest-cov contexts/);
  });

  it("treats the empty context and unknown labels as no test", () => {
    const idx = indexContexts(["", "py311", "tests/test_b.py::t|run"], modules);
    expect(idx.nonTestContexts).toEqual(["", "py311"]);
    expect([...idx.testIds]).toEqual(["tests/test_b.py::t"]);
    expect(idx.style).toBe("pytest-cov");
  });
});

describe("indexContexts is lazy but exact", () => {
  const modules = buildModuleIndex([]);

  it("answers hasTest from exact names, and with static prefixes through a full parse", () => {
    const plain = indexContexts(["", "tests/a.py::t[x|y]|setup", "tests/a.py::u|run"], modules);
    expect(plain.hasTest("tests/a.py::t[x|y]")).toBe(true);
    expect(plain.hasTest("tests/a.py::t")).toBe(false);
    expect([...plain.testIds].sort()).toEqual(["tests/a.py::t[x|y]", "tests/a.py::u"]);
    expect(plain.nonTestContexts).toEqual([""]);

    const prefixed = indexContexts(["", "shardA|tests/a.py::t|run"], modules);
    expect(prefixed.hasTest("tests/a.py::t")).toBe(true);
    expect(prefixed.hasTest("shardA|tests/a.py::t")).toBe(false);
    expect([...prefixed.testIds]).toEqual(["tests/a.py::t"]);
  });

  it("reports style none when no name is a test", () => {
    const none = indexContexts(["", "py311"], modules);
    expect(none.style).toBe("none");
    expect(none.testIds.size).toBe(0);
    expect(none.get("py311")).toEqual({ raw: "py311", testId: null, phase: null });
  });
});
