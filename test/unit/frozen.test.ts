import { describe, expect, it } from "vitest";
import {
  lookupOf,
  parseFrozenList,
  resolveFrozen,
  testRootMismatch,
  unresolvedFix,
} from "../../src/core/frozen.js";
import { frozenBy } from "../../src/core/witness.js";
import { frozenWithoutRun } from "../../src/runners/pytest/frozen-tests.js";
import { pytestRunner } from "../../src/runners/pytest/runner.js";
import { vitestRunner } from "../../src/runners/vitest/runner.js";
import { refusedWith } from "../helpers/refusals.js";

const PYTEST = pytestRunner.advice;
const VITEST = vitestRunner.advice;

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

  it("reads the freeze ledger's freezes[].test_id", () => {
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
    expect(() => parseFrozenList(value, "q.json")).toThrow(
      refusedWith("frozen-list-malformed", message),
    );
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

describe("an entry holding * that is itself a test id", () => {
  // pytest --collect-only -q prints these for @pytest.mark.parametrize("pat", ["*.py", ...]).
  const ids = [
    "tests/test_glob.py::test_match[*.py]",
    "tests/test_glob.py::test_match[a.py]",
    "tests/test_glob.py::test_match[x.py]",
  ];

  it("freezes that test exactly, not its siblings", () => {
    const r = resolveFrozen(
      parseFrozenList({ frozen: ["tests/test_glob.py::test_match[*.py]"] }, "q"),
      lookupOf(ids),
    );
    expect([...r.frozenTests]).toEqual(["tests/test_glob.py::test_match[*.py]"]);
    expect(r.unresolved).toEqual([]);
  });

  it("stays a glob when no test has that id", () => {
    const r = resolveFrozen(
      parseFrozenList({ frozen: ["tests/test_glob.py::test_match[*]"] }, "q"),
      lookupOf(ids),
    );
    expect([...r.frozenTests].sort()).toEqual(ids);
  });

  it("asks the data about every entry at once, globs included", () => {
    const asked: string[][] = [];
    const tests = {
      ...lookupOf(ids),
      preloadTests: (some: readonly string[]) => void asked.push([...some]),
    };
    resolveFrozen(
      parseFrozenList({ frozen: ["tests/test_glob.py::test_match[*.py]", "tests/x.py::t"] }, "q"),
      tests,
    );
    expect(asked).toEqual([["tests/test_glob.py::test_match[*.py]", "tests/x.py::t"]]);
  });

  it("is read the same way by the witness gate's matcher (frozenBy)", () => {
    expect([...frozenBy(["tests/test_glob.py::test_match[*.py]"], ids)]).toEqual([
      ["tests/test_glob.py::test_match[*.py]", "tests/test_glob.py::test_match[*.py]"],
    ]);
  });
});

describe("frozenWithoutRun", () => {
  it("is no error when every frozen test ran its body", () => {
    expect(frozenWithoutRun("q.json", [], "coverage.py-sqlite")).toBeNull();
    expect(frozenWithoutRun("q.json", [], "coverage.py-json")).toBeNull();
  });

  it("names the tests (sorted, a sample of three) with the fix", () => {
    const error = frozenWithoutRun(
      "q.json",
      ["t::d", "t::c", "t::b", "t::a"],
      "coverage.py-sqlite",
    );
    expect(error?.code).toBe("frozen-tests-not-run");
    expect(error?.message).toBe(
      '4 frozen test(s) in q.json ran no test body (the coverage data has their setup or teardown but no "|run" context: skipped, their setup failed, or their body ran no measured line), so the lines they would cover are unknown: "t::a", "t::b", "t::c", ... (4 in all)',
    );
    expect(error?.fix).toBe(
      "let frozen tests run with their failures ignored (the freezegate pytest plugin's --freezegate-mode run, or xfail instead of skip), re-run the tests, then audit; a test that cannot run on this platform (skipif) covers nothing here: leave it out of the frozen list (name the other cases instead of a glob)",
    );
  });

  it("from a JSON report, says that the report cannot tell and the .coverage file can", () => {
    const error = frozenWithoutRun("q.json", ["t::b", "t::a"], "coverage.py-json");
    expect(error?.code).toBe("frozen-tests-not-run");
    expect(error?.message).toBe(
      '2 frozen test(s) in q.json have setup or teardown contexts but no "|run" context in the coverage json report, which lists only the contexts that ran a measured line: it cannot show whether a test whose body ran no measured line ran, so the lines they would cover are unknown: "t::a", "t::b"',
    );
    expect(error?.fix).toBe(
      "audit the .coverage data file of the same run (--coverage .coverage), which can show it (coverage.py 6.5 keeps such a test's empty \"|run\" context); a frozen test that was skipped must run with its failures ignored (the freezegate pytest plugin's --freezegate-mode run, or xfail instead of skip)",
    );
  });
});

describe("unresolvedFix", () => {
  const tests = ["t.py::test_clamp[0]", "t.py::test_clamp[1]", "t.py::ClampTest::test_low"];
  it("names the glob for a parametrized test's or a class's own id, else the general advice", () => {
    expect(unresolvedFix(["t.py::test_clamp"], tests, PYTEST)).toBe(
      '"t.py::test_clamp" is a parametrized test: freeze all its cases with "t.py::test_clamp[*]", or list them as `pytest --collect-only -q` prints them',
    );
    expect(unresolvedFix(["t.py::ClampTest"], tests, PYTEST)).toBe(
      '"t.py::ClampTest" is a class or module, not a test: freeze all its tests with "t.py::ClampTest::*", or list them as `pytest --collect-only -q` prints them',
    );
    expect(unresolvedFix(["t.py::test_typo", "t.py::ClampTest::*x"], tests, PYTEST)).toMatch(
      /^use exact pytest node ids/,
    );
  });
});

describe("unresolvedFix in Vitest's words", () => {
  const tests = [
    "tests/cart.spec.ts::cart > adds tax",
    "tests/cart.spec.ts::cart > totals > sums",
    "tests/cart.spec.ts::top level",
  ];
  it("names a suite's glob, a test file's glob, a typo and the general advice as Vitest ids", () => {
    expect(unresolvedFix(["tests/cart.spec.ts::cart > totals"], tests, VITEST)).toBe(
      '"tests/cart.spec.ts::cart > totals" is a suite, not a test: freeze all its tests with "tests/cart.spec.ts::cart > totals > *", or list them by their ids, the file, "::" and the names as Vitest prints them',
    );
    expect(unresolvedFix(["tests/cart.spec.ts"], tests, VITEST)).toMatch(
      /^"tests\/cart\.spec\.ts" is a test file, not a test: freeze all its tests with "tests\/cart\.spec\.ts::\*"/,
    );
    expect(unresolvedFix(["tests/cart.spec.ts::cart > adds tac"], tests, VITEST)).toMatch(
      /^did you mean "tests\/cart\.spec\.ts::cart > adds tax" .*\? Frozen ids are exact Vitest test ids \(FILE::SUITE > TEST/,
    );
    const general = unresolvedFix(["tests/other.spec.ts::x"], tests, VITEST);
    expect(general).toMatch(/^use exact Vitest test ids/);
    expect(general).toContain("(skipped, or left out by .only or a filter) must run");
    expect(general).not.toMatch(/pytest|node id/);
  });

  it("says a frozen id written from another directory is relative to the Vitest root", () => {
    const found = testRootMismatch(
      ["web/tests/cart.spec.ts::cart > adds tax"],
      new Set(tests),
      "web/",
      (p) => p === "web/tests/cart.spec.ts",
      VITEST,
    );
    expect(found?.message).toBe(
      'the data names this test without "web/" ("tests/cart.spec.ts::cart > adds tax" for "web/tests/cart.spec.ts::cart > adds tax"): test ids are relative to the Vitest root, the test root web/',
    );
    expect(found?.fix).toContain(
      "or run Vitest with its root at the repository root and leave out --test-root",
    );
  });
});

describe("unresolvedFix: a typo", () => {
  it("did you mean the one data id a character away; checked in one pass over 20,000 tests", () => {
    const tests = Array.from(
      { length: 20_000 },
      (_, i) => `tests/unit/test_mod${i % 200}.py::test_case_${i}`,
    );
    expect(unresolvedFix(["tests/unit/test_mod7.py::test_case_1007x"], tests, PYTEST)).toBe(
      'did you mean "tests/unit/test_mod7.py::test_case_1007" (the data\'s test one character from "tests/unit/test_mod7.py::test_case_1007x")? Frozen ids are exact pytest node ids (as in `pytest --collect-only -q`)',
    );
    // test_case_201 and test_case_2001 are both a character from test_case_2011: none.
    expect(unresolvedFix(["tests/unit/test_mod1.py::test_case_2011"], tests, PYTEST)).toMatch(
      /^use exact pytest node ids/,
    );
  });
});

describe("testRootMismatch", () => {
  const files =
    (...paths: string[]) =>
    (p: string) =>
      paths.includes(p);
  it("frozen ids with a directory the data's lack: pytest's rootdir is that directory", () => {
    const tests = new Set(["test_a.py::test_x", "test_a.py::test_y"]);
    const found = testRootMismatch(
      ["tests/test_a.py::test_x", "tests/test_a.py::test_y"],
      tests,
      "",
      files("tests/test_a.py"),
      PYTEST,
    );
    expect(found?.message).toBe(
      'the data names these tests without "tests/" ("test_a.py::test_x" for "tests/test_a.py::test_x"): pytest ran with its rootdir in tests/, and node ids are relative to it',
    );
    expect(found?.fix).toContain("pass --test-root tests (pytest's rootdir)");
  });

  it("data ids with a directory the frozen ids lack, under a --test-root that is too deep", () => {
    const tests = new Set(["tests/test_a.py::test_x"]);
    const found = testRootMismatch(
      ["test_a.py::test_x"],
      tests,
      "tests/",
      files("tests/test_a.py"),
      PYTEST,
    );
    expect(found?.message).toContain("pytest ran with its rootdir at the repository root");
    expect(found?.fix).toContain("leave out --test-root");
  });

  it("none when both readings name files that exist: the frozen id names another test", () => {
    const tests = new Set(["test_a.py::test_x"]);
    const both = files("test_a.py", "tests/test_a.py");
    expect(testRootMismatch(["tests/test_a.py::test_x"], tests, "", both, PYTEST)).toBeNull();
    expect(testRootMismatch(["tests/test_a.py::test_z"], tests, "", both, PYTEST)).toBeNull();
    expect(testRootMismatch(["tests/*"], tests, "", both, PYTEST)).toBeNull();
  });
});
