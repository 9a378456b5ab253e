// A changed file's statements as coverage.py counts them: from its data (a JSON report's
// statement lists, the SQLite data's executed lines) and the Python statement finder.

import type { ContextIndex, StatementMap } from "../../core/model.js";
import { analyzePython, isPythonSource } from "../../languages/python/statements.js";

/** One file's statements from each data path that records it: their union, or null. */
export function reportedStatements(
  each: (ReadonlySet<number> | null)[],
): ReadonlySet<number> | null {
  const known = each.filter((s) => s !== null);
  if (known.length <= 1) return known[0] ?? null;
  return new Set(known.flatMap((s) => [...s]));
}

/**
 * Statement map from coverage.py's own statement list (JSON report) plus our finder. A line
 * the finder reads as blank, comment or docstring is no statement whatever the report says:
 * coverage.py 6.x lists the docstring lines CPython traces among the executed lines.
 * `notCode`: first lines (finder's) of statements that are none here either: the report's
 * excluded statements no test ran (excludedUntested), as with the SQLite data.
 */
export function jsonStatementMap(
  reported: ReadonlySet<number>,
  finder: StatementMap,
  notCode: ReadonlySet<number>,
): StatementMap {
  return {
    statementOf(line) {
      const first = finder.statementOf(line);
      if (first === null || notCode.has(first)) return null;
      if (reported.has(line)) return line;
      return reported.has(first) ? first : null;
    },
  };
}

/** The finder's first lines of the statements that hold some of `lines`. */
export function firstLinesOf(lines: Iterable<number>, finder: StatementMap): Set<number> {
  const firsts = new Set<number>();
  for (const line of lines) {
    const first = finder.statementOf(line);
    if (first !== null) firsts.add(first);
  }
  return firsts;
}

/** `reported` plus the recorded lines that `finder` says start a statement. */
export function withRecordedStatements(
  reported: ReadonlySet<number>,
  recorded: ReadonlyMap<number, string[]> | null,
  finder: StatementMap,
): ReadonlySet<number> {
  const extra = [...(recorded?.keys() ?? [])].filter(
    (line) => !reported.has(line) && finder.statementOf(line) === line,
  );
  return extra.length === 0 ? reported : new Set([...reported, ...extra]);
}

export const identityStatements: StatementMap = { statementOf: (line) => line };

/**
 * For staleEvidence: which lines of a Python file belong to a statement (tokenizer level), or
 * undefined for other files and for source the tokenizer refuses (the text check alone).
 */
export function statementLinesOf(
  path: string,
  text: string,
): ((line: number) => boolean) | undefined {
  if (!isPythonSource(path, text)) return undefined;
  try {
    const { logical } = analyzePython(text, { path });
    return (line) => logical.statementOf(line) !== null;
  } catch {
    return undefined;
  }
}

/**
 * The excluded statements no test ran (in its body or a fixture, frozen or not): those are no
 * statements, as in coverage.py's report, also when code ran them at import time
 * (`if TYPE_CHECKING:`). One a test ran keeps its verdict: the pragma hides no shadow.
 */
export function excludedUntested(
  excluded: Set<number>,
  lines: ReadonlyMap<number, readonly string[]> | null,
  logical: StatementMap,
  contexts: Pick<ContextIndex, "get">,
): Set<number> {
  if (excluded.size === 0) return excluded;
  for (const [line, names] of lines ?? []) {
    if (!names.some((name) => contexts.get(name).testId !== null)) continue;
    const first = logical.statementOf(line);
    if (first !== null) excluded.delete(first);
  }
  return excluded;
}
