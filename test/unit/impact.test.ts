// What freezing tests would withdraw, as a pure function over per-test line data: lines only
// the targets defend, with frozen tests and fixture-only cover handled as the audit does.

import { describe, expect, it } from "vitest";
import { matchesTest, resolveTestIds, withdrawnLines } from "../../src/core/impact.js";
import { indexContexts } from "../../src/runners/pytest/contexts.js";

const A = "tests/test_a.py::test_a";
const B = "tests/test_a.py::test_b";
const F = "tests/test_a.py::test_frozen";

function input(lines: Record<number, string[]>, targets = [A], frozen: string[] = []) {
  const executed = new Map(Object.entries(lines).map(([k, v]) => [Number(k), v]));
  const names = [...new Set(Object.values(lines).flat())];
  return {
    targets: new Set(targets),
    frozen: new Set(frozen),
    contexts: indexContexts(names, () => new Map()),
    files: [{ path: "src/app.py", executed }],
  };
}

describe("withdrawnLines", () => {
  it("lists lines only the targets execute, and not lines another live test executes", () => {
    const out = withdrawnLines(
      input({
        1: [`${A}|run`],
        2: [`${A}|run`, `${B}|run`],
        3: [`${B}|run`],
        4: [`${A}|setup`],
        5: [""],
      }),
    );
    expect(out).toEqual([{ path: "src/app.py", lines: [1, 4], fixtureOnly: [] }]);
  });

  it("a frozen test is no live cover: its lines go with the target", () => {
    const out = withdrawnLines(input({ 7: [`${A}|run`, `${F}|run`] }, [A], [F]));
    expect(out[0]?.lines).toEqual([7]);
  });

  it("a live test that reaches the line only in setup/teardown does not defend it", () => {
    const out = withdrawnLines(input({ 9: [`${A}|run`, `${B}|teardown`] }));
    expect(out).toEqual([{ path: "src/app.py", lines: [9], fixtureOnly: [9] }]);
  });

  it("files with nothing withdrawn are left out; code outside tests is no cover", () => {
    expect(withdrawnLines(input({ 1: [`${B}|run`], 2: [""] }))).toEqual([]);
  });
});

describe("resolveTestIds", () => {
  it("matches exact ids and a parametrized test's cases; reports the rest", () => {
    const known = [A, `${B}[1]`, `${B}[2]`, `${B}x[1]`];
    expect(resolveTestIds([A, B, "tests/test_a.py::nope"], known)).toEqual({
      ids: new Set([A, `${B}[1]`, `${B}[2]`]),
      unknown: ["tests/test_a.py::nope"],
    });
    expect(matchesTest(B, `${B}x[1]`)).toBe(false);
  });
});
