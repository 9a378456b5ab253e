// Statements of a changed file, decided as cheaply as the coverage data allows. A logical line
// the data shows executed has bytecode, so it is a statement and its first line is the
// statement's; only changed lines that no test executed need the full bytecode model (dead
// code, `else:`, `global`...), and that model is computed only for files that have such lines.

import type { PythonLines } from "../languages/python/statements.js";
import type { StatementMap } from "./model.js";

/**
 * `executed`: the lines the data records for this file, or null when it is not in the data.
 * `excluded`: first lines of statements coverage.py's report leaves out (`# pragma: no cover`,
 * excludedStatements) that no test ran: no statements here either, as in the report. The
 * caller keeps out of it those a test ran, which keep their verdicts.
 * A logical line counts as executed when the data records any of its lines; that is looked up
 * for the lines asked about, not worked out for every executed line in advance.
 */
export function statementsWithData(
  lines: PythonLines,
  executed: { has(line: number): boolean } | null,
  excluded: ReadonlySet<number> = new Set(),
): StatementMap {
  const logical = lines.logical;
  return {
    statementOf(line) {
      const first = logical.statementOf(line);
      if (first === null) return null;
      if (excluded.has(first)) return null;
      if (executed !== null && statementRan(logical, first, executed)) return first;
      return lines.statementNear(line);
    },
  };
}

/** Whether the data has a line of the logical line that starts at `first` as executed. */
export function statementRan(
  logical: StatementMap,
  first: number,
  executed: { has(line: number): boolean },
): boolean {
  for (let l = first; logical.statementOf(l) === first; l++) {
    if (executed.has(l)) return true;
  }
  return false;
}

/**
 * Every line of the logical lines that hold a changed line (what the data may record for
 * them). A logical line's physical lines run on from its first line (as in both maps built
 * here), so each is walked from there instead of scanning the whole file for its members.
 */
export function linesOfChangedStatements(
  addedLines: readonly number[],
  logical: StatementMap,
  lineCount: number,
): Set<number> {
  const out = new Set<number>();
  for (const line of addedLines) {
    const first = logical.statementOf(line);
    if (first === null || out.has(first)) continue;
    for (let l = first; l <= lineCount && logical.statementOf(l) === first; l++) out.add(l);
  }
  return out;
}
