// statementsWithData answers from the tokenizer's logical lines where the data shows a line
// executed, and from the full bytecode model elsewhere. Given data consistent with the source
// (executed lines are statement lines), it must equal the full model on every line.

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { splitLines } from "../../src/core/stale.js";
import { linesOfChangedStatements, statementsWithData } from "../../src/core/statement-map.js";
import { analyzePython, findPythonStatements } from "../../src/languages/python/statements.js";
import { STATEMENT_CASES } from "../fixtures/statements/cases.js";

const DEAD_CODE = join(__dirname, "../fixtures/statements/dead-code.py");

/** Pseudo-random but fixed subsets of the statement lines, as a test run might execute. */
function subsets(lines: number[]): number[][] {
  return [[], lines, lines.filter((l) => l % 2 === 0), lines.filter((l) => l % 3 !== 1)];
}

function expectSameAsFull(source: string, label: string): number {
  const full = findPythonStatements(source);
  const count = splitLines(source).length;
  const statementLines: number[] = [];
  for (let l = 1; l <= count; l++) if (full.statementOf(l) !== null) statementLines.push(l);
  for (const executed of subsets(statementLines)) {
    const composite = statementsWithData(analyzePython(source), new Set(executed));
    for (let l = 1; l <= count + 1; l++) {
      expect(composite.statementOf(l), `${label} line ${l}`).toBe(full.statementOf(l));
    }
  }
  const unmeasured = statementsWithData(analyzePython(source), null);
  for (let l = 1; l <= count; l++) expect(unmeasured.statementOf(l)).toBe(full.statementOf(l));
  return count;
}

describe("statementsWithData", () => {
  it("equals the full model on every statement case", () => {
    let lines = 0;
    for (const c of STATEMENT_CASES) lines += expectSameAsFull(c.source, c.name);
    expect(lines).toBeGreaterThan(200);
  });

  it("equals the full model on the dead-code corpus", () => {
    expect(expectSameAsFull(readFileSync(DEAD_CODE, "utf8"), "dead-code.py")).toBeGreaterThan(400);
  });

  it("equals the full model on a slice of the installed standard library", () => {
    const sample = join(__dirname, "../fixtures/statements/stdlib-sample.txt");
    const files = readFileSync(sample, "utf8")
      .split("\n")
      .filter((l) => l !== "" && !l.startsWith("#"))
      .slice(0, 25)
      .map((rel) => join("/usr/lib/python3.11", rel))
      .filter((p) => existsSync(p));
    if (files.length === 0) {
      console.warn(
        "!!! no Debian standard library here: the stdlib slice of statement-map is skipped",
      );
      return;
    }
    for (const file of files) expectSameAsFull(readFileSync(file, "utf8"), file);
  });

  it("does not run the full model when every changed logical line was executed", () => {
    const python = analyzePython("x = 1\nif x:\n    y = (1,\n         2)\n");
    let calls = 0;
    const counted = {
      logical: python.logical,
      statements: () => {
        calls++;
        return python.statements();
      },
      statementNear: (line: number) => {
        calls++;
        return python.statementNear(line);
      },
    };
    const map = statementsWithData(counted, new Set([1, 2, 3]));
    expect([1, 2, 3, 4].map((l) => map.statementOf(l))).toEqual([1, 2, 3, 3]);
    expect(calls).toBe(0);
    expect(map.statementOf(5)).toBeNull();
  });
});

describe("linesOfChangedStatements", () => {
  it("spans the whole logical line of each changed line", () => {
    const python = analyzePython("a = f(\n    1,\n    2,\n)\n\nb = 3\n");
    expect([...linesOfChangedStatements([3], python.logical, 6)].sort()).toEqual([1, 2, 3, 4]);
    expect([...linesOfChangedStatements([5], python.logical, 6)]).toEqual([]);
    expect([...linesOfChangedStatements([6, 2], python.logical, 6)].sort()).toEqual([
      1, 2, 3, 4, 6,
    ]);
  });

  it("equals its definition (every line whose logical line holds a changed line) on real files", () => {
    const dir = join(__dirname, "../../integrations/pytest/freezegate_pytest");
    let multiLine = 0;
    for (const name of ["plugin.py", "ledger.py", "inputs.py", "output.py"]) {
      const text = readFileSync(join(dir, name), "utf8");
      const python = analyzePython(text);
      const count = splitLines(text).length;
      for (let changed = 1; changed <= count + 1; changed++) {
        const first = python.logical.statementOf(changed);
        const want: number[] = [];
        for (let l = 1; l <= count; l++) {
          if (first !== null && python.logical.statementOf(l) === first) want.push(l);
        }
        if (want.length > 1) multiLine++;
        expect(
          [...linesOfChangedStatements([changed], python.logical, count)],
          `${name}:${changed}`,
        ).toEqual(want);
      }
    }
    expect(multiLine).toBeGreaterThan(20); // the files do have statements over several lines
  });
});
