// A changed file's statements and executed lines, from its section of the Vitest data alone:
// istanbul's statements as [start, end] spans in original lines, and per test the start lines
// it ran, as lcov counts lines. No tokenizer: a changed line in no span is no code (a comment,
// a blank line, a type, an `import type`), and a line inside a span takes the verdict of the
// span's start line, as a Python continuation line takes its statement's.

import type { StatementMap } from "../../core/model.js";
import { PHASES, type VitestSection } from "./data-format.js";
import { contextName, OUTSIDE_TESTS, type VitestTests } from "./data-tests.js";

/**
 * The statement a line belongs to, from the spans: a line that starts a statement is its own;
 * any other line inside spans belongs to the innermost (the latest start) that holds it (a
 * callback's body inside a call: the `}` closing it is the call's); a line in no span is none.
 */
export function spanStatements(spans: readonly (readonly [number, number])[]): StatementMap {
  // Sorted by start, and of two that start together the longer first: the innermost span
  // holding a line is then the first one that reaches it, read back from its line.
  const byStart = [...spans].sort((a, b) => a[0] - b[0] || b[1] - a[1]);
  return {
    statementOf(line) {
      for (let i = lastStartingBy(byStart, line); i >= 0; i--) {
        const [start, end] = byStart[i] as readonly [number, number];
        if (end >= line) return start;
      }
      return null;
    },
  };
}

/** Index of the last span starting at or before `line` (spans sorted by start), or -1. */
function lastStartingBy(spans: readonly (readonly [number, number])[], line: number): number {
  let low = 0;
  let high = spans.length - 1;
  let found = -1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    if ((spans[mid] as readonly [number, number])[0] <= line) {
      found = mid;
      low = mid + 1;
    } else {
      high = mid - 1;
    }
  }
  return found;
}

/**
 * The statement-start lines of the changed lines that are code: the lines whose tests the
 * audit needs (the data records only start lines).
 */
export function changedStatementStarts(
  addedLines: readonly number[],
  statements: StatementMap,
): Set<number> {
  const out = new Set<number>();
  for (const line of addedLines) {
    const start = statements.statementOf(line);
    if (start !== null) out.add(start);
  }
  return out;
}

/**
 * Executed line -> the context names that ran it (`<id>|<phase>`, "" outside tests), as a
 * coverage.py source gives them. With `wanted`, only those lines get names; every other
 * executed line maps to an empty list (executed, its tests not asked for). Two tests under
 * one id give one name.
 */
export function executedByLine(
  section: VitestSection,
  tests: VitestTests,
  wanted?: ReadonlySet<number>,
): Map<number, string[]> {
  const names = new Map<number, Set<string>>();
  const add = (line: number, name: string) => {
    let set = names.get(line);
    if (set === undefined) {
      set = new Set();
      names.set(line, set);
    }
    if (wanted === undefined || wanted.has(line)) set.add(name);
  };
  for (const lines of section.outside.values()) for (const line of lines) add(line, OUTSIDE_TESTS);
  for (const [index, phases] of section.tests) {
    const id = tests.tests[index]?.id;
    if (id === undefined) continue;
    PHASES.forEach((phase, p) => {
      const name = contextName(id, phase);
      for (const line of phases[p] ?? []) add(line, name);
    });
  }
  return new Map([...names].map(([line, set]) => [line, [...set]]));
}

/**
 * Why a section cannot have been recorded from a file of `lineCount` lines: a statement it
 * records ends past the file's end. Null when none does.
 */
export function spansPastEnd(
  section: Pick<VitestSection, "statements">,
  lineCount: number,
): string | null {
  let last: readonly [number, number] | null = null;
  for (const span of section.statements) if (last === null || span[1] > last[1]) last = span;
  if (last === null || last[1] <= lineCount) return null;
  return `a statement is recorded at lines ${last[0]}-${last[1]}, but the file has ${lineCount} lines`;
}
