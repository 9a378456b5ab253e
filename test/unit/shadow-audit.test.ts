import { describe, expect, it } from "vitest";
import type { ChangedFile, StatementMap } from "../../src/core/model.js";
import { auditShadow, type FailableVerdict } from "../../src/core/shadow-audit.js";
import { indexContexts } from "../../src/runners/pytest/contexts.js";
import { buildModuleIndex } from "../../src/runners/pytest/test-root-files.js";

// Statements of a small file: 1, 2, 3-5 (one statement over three lines), 7, 8, 9, 10;
// line 6 is blank.
const statements: StatementMap = {
  statementOf(line) {
    if (line >= 3 && line <= 5) return 3;
    if (line === 6 || line > 10) return null;
    return line;
  },
};

const LIVE = "tests/test_a.py::test_live";
const FROZEN = "tests/test_a.py::test_frozen";
const OTHER = "tests/test_b.py::test_other[a|b]";

const contexts = indexContexts(
  ["", `${LIVE}|run`, `${LIVE}|setup`, `${FROZEN}|run`, `${FROZEN}|teardown`, `${OTHER}|setup`],
  buildModuleIndex([]),
);

function change(path: string, addedLines: number[]): ChangedFile {
  return { path, oldPath: null, status: "modified", binary: false, submodule: false, addedLines };
}

function run(executed: Map<number, string[]> | null, lines: number[], failOn?: FailableVerdict[]) {
  return auditShadow({
    files: [{ change: change("src/a.py", lines), statements, executed }],
    skipped: [],
    contexts,
    frozen: new Set([FROZEN]),
    failOn: failOn ?? ["shadowed"],
  });
}

describe("auditShadow verdicts", () => {
  const executed = new Map<number, string[]>([
    [1, [`${LIVE}|run`, `${FROZEN}|run`]], // defended: a live test body
    [2, [`${FROZEN}|run`]], // shadowed
    [4, [`${FROZEN}|run`, `${FROZEN}|teardown`]], // continuation line recorded: statement 3 shadowed
    [7, [`${OTHER}|setup`]], // only a live test's setup: fixture-only
    [8, [""]], // only import time: no test
    [9, [`${FROZEN}|teardown`]], // only a frozen test's teardown: still only frozen
    [10, [`${LIVE}|setup`, `${FROZEN}|run`]], // live fixture + frozen body: not shadowed
  ]);

  it("gives every changed line one verdict with its tests", () => {
    const result = run(executed, [1, 2, 3, 5, 6, 7, 8, 9, 10, 11]);
    const lines = result.files[0]?.lines ?? [];
    expect(lines.map((l) => [l.line, l.verdict])).toEqual([
      [1, "defended"],
      [2, "shadowed"],
      [3, "shadowed"],
      [5, "shadowed"],
      [6, "not-code"],
      [7, "fixture-only"],
      [8, "uncovered"],
      [9, "shadowed"],
      [10, "fixture-only"],
      [11, "not-code"],
    ]);
    expect(lines[0]).toMatchObject({ tests: [LIVE], frozenTests: [FROZEN], outsideTests: false });
    expect(lines[3]).toMatchObject({ statement: 3, tests: [], frozenTests: [FROZEN] });
    expect(lines[5]).toMatchObject({ fixtureTests: [OTHER], frozenTests: [] });
    expect(lines[6]).toMatchObject({ outsideTests: true, tests: [] });
    expect(lines[8]).toMatchObject({ fixtureTests: [LIVE], frozenTests: [FROZEN] });
    // One key order for every verdict, so the JSON of a not-code line reads like the others.
    const keys = ["line", "statement", "verdict", "tests", "frozenTests", "fixtureTests"];
    for (const l of lines)
      expect(Object.keys(l), String(l.line)).toEqual([...keys, "outsideTests"]);
  });

  it("summarises counts and the shadow ratio over executed lines", () => {
    const result = run(executed, [1, 2, 3, 5, 6, 7, 8, 9, 10, 11]);
    expect(result.summary.counts).toEqual({
      defended: 1,
      shadowed: 4,
      "fixture-only": 2,
      uncovered: 1,
      unmeasured: 0,
      "not-code": 2,
    });
    expect(result.summary.shadowRatio).toBeCloseTo(4 / 7);
    expect(result.gate).toEqual({
      passed: false,
      failOn: ["shadowed"],
      reasons: ["4 changed lines are covered only by frozen tests (shadowed)"],
    });
  });

  it("passes the gate when nothing in fail-on occurs, and fails on added verdicts", () => {
    expect(run(executed, [1, 8]).gate.passed).toBe(true);
    const strict = run(executed, [1, 8], ["shadowed", "uncovered"]);
    expect(strict.gate.passed).toBe(false);
    expect(strict.gate.reasons).toEqual(["1 changed line is executed by no test (uncovered)"]);
  });

  it("marks statements of a file missing from the data as unmeasured", () => {
    const result = run(null, [1, 6]);
    expect(result.files[0]?.lines.map((l) => l.verdict)).toEqual(["unmeasured", "not-code"]);
    expect(result.summary.shadowRatio).toBeNull();
  });

  it("treats a live test seen in its body and its setup as defended, not fixture-only", () => {
    const result = run(new Map([[1, [`${LIVE}|setup`, `${LIVE}|run`]]]), [1]);
    expect(result.files[0]?.lines[0]).toMatchObject({
      verdict: "defended",
      tests: [LIVE],
      fixtureTests: [],
    });
  });
});
