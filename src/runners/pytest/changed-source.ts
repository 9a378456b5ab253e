// A changed file's statements as coverage.py counts them: from the data (a JSON report's
// statement lists, the executed lines of either kind of data) and the Python statement finder
// (src/languages/python/statements.ts): its logical lines first, its bytecode model only for a
// changed statement no test ran.

import { join } from "node:path";
import { fileExists, readTextOrNull } from "../../adapters/repo-files.js";
import type { ContextIndex, StatementMap } from "../../core/model.js";
import { staleEvidence } from "../../core/stale.js";
import {
  linesOfChangedStatements,
  statementRan,
  statementsWithData,
} from "../../core/statement-map.js";
import {
  REPORT_LINE_BREAKS,
  refuseLoneCarriageReturn,
} from "../../languages/python/line-breaks.js";
import {
  analyzePython,
  excludedStatements,
  isPythonSource,
  type PythonLines,
} from "../../languages/python/statements.js";
import type { ChangedSource, ChangedSourceInput, ChangedSourceReader } from "../runner.js";
import { COVERAGE_CONFIG_FILES, coverageExclusion } from "./coverage-settings.js";
import { pytestCovConfig } from "./pytest-config.js";

/**
 * The reader of one audit's changed files. The lines coverage.py's report excludes are read
 * once, here: the `exclude_lines` of its configuration where the tests ran (the test root,
 * else the root), or the default `# pragma: no cover`.
 */
export function pytestSourceReader(root: string, prefix: string): ChangedSourceReader {
  const excludePattern = exclusionOf(root, prefix);
  return { read: (input) => changedPythonSource(input, excludePattern) };
}

/**
 * coverage.py's exclusion for the tests run in the test root (`prefix`, "" or "dir/"), or null
 * when none can be told (nothing is then excluded).
 */
function exclusionOf(root: string, prefix: string): RegExp | null {
  const configDir =
    [...new Set([prefix, ""])].find((dir) =>
      COVERAGE_CONFIG_FILES.some((name) => fileExists(join(root, dir, name))),
    ) ?? "";
  // pytest-cov's --cov-config in pytest's addopts names coverage.py's file (read like a
  // .coveragerc, or a pyproject.toml when it is TOML); one that cannot be read, or that
  // pytest 7 and 9 would name differently, excludes nothing.
  const covConfig = pytestCovConfig((name) => readTextOrNull(join(root, prefix, name)));
  if (covConfig === undefined) {
    return coverageExclusion((name) => readTextOrNull(join(root, configDir, name)));
  }
  const covConfigText = covConfig === null ? null : readTextOrNull(join(root, prefix, covConfig));
  if (covConfig === null || covConfigText === null) return null;
  const readAs = covConfig.endsWith(".toml") ? "pyproject.toml" : ".coveragerc";
  return coverageExclusion((name) => (name === readAs ? covConfigText : null));
}

function changedPythonSource(
  { change, text, lines, dataPaths, data }: ChangedSourceInput,
  excludePattern: RegExp | null,
): ChangedSource {
  // Line numbers matter where the data names lines; an unmeasured file's do not.
  if (dataPaths.length > 0) refuseLoneCarriageReturn(change.path, text);
  // A report's line lists are trusted only where coverage.py numbered lines as git does.
  const listsShifted = REPORT_LINE_BREAKS.test(text);
  const measured = listsShifted ? null : unionOfSets(dataPaths.map((p) => data.statements(p)));
  const excluded = listsShifted ? null : unionOfSets(dataPaths.map((p) => data.excluded(p)));
  const python = isPythonSource(change.path, text)
    ? analyzePython(text, { path: change.path })
    : null;
  const reported = measured === null ? null : withExcludedCode(measured, excluded, python);
  // Other files measured (a template a coverage plugin traced) keep one statement per line.
  const logical = python ? python.logical : identityStatements;
  return {
    wantedLines:
      dataPaths.length === 0
        ? new Set()
        : linesOfChangedStatements(change.addedLines, logical, lines.length),
    runsOnImport: python !== null,
    needsStatementModel: (executed) =>
      python !== null && hasUnexecutedStatement(change.addedLines, python.logical, executed),
    statements: (executed, contexts) =>
      reported
        ? reportStatements(reported, excluded, executed, logical, contexts)
        : python
          ? statementsWithData(
              python,
              executed,
              excludePattern === null
                ? undefined
                : excludedUntested(
                    excludedStatements(text, excludePattern),
                    executed,
                    python.logical,
                    contexts,
                  ),
            )
          : identityStatements,
    staleEvidence: (executed) =>
      staleEvidence(
        lines,
        measured ? [...executed.keys(), ...measured] : executed.keys(),
        python ? (line) => python.logical.statementOf(line) !== null : undefined,
      ),
  };
}

/** One file's line sets from each data path that records it: their union, or null. */
function unionOfSets(each: (ReadonlySet<number> | null)[]): ReadonlySet<number> | null {
  const known = each.filter((s) => s !== null);
  if (known.length <= 1) return known[0] ?? null;
  return new Set(known.flatMap((s) => [...s]));
}

/**
 * coverage.py's statements: those a report lists as executed or missing (evidence of the
 * file's lines) plus the excluded lines the full statement model calls statements. The
 * exclusion pattern matches any physical line: a comment, a line in a docstring, an `else:`
 * that has no bytecode.
 */
function withExcludedCode(
  measured: ReadonlySet<number>,
  excluded: ReadonlySet<number> | null,
  python: PythonLines | null,
): ReadonlySet<number> {
  const excludedCode =
    excluded === null
      ? []
      : [...excluded].filter(
          (line) =>
            !measured.has(line) &&
            (python === null || python.statements().statementOf(line) === line),
        );
  return excludedCode.length === 0 ? measured : new Set([...measured, ...excludedCode]);
}

/**
 * A JSON report's statements are coverage.py's own (6.x lists docstrings, for one), plus the
 * lines the finder calls statements that the tracer recorded: coverage.py 6.5 takes
 * `",".join(x)` first in a block for a docstring although it runs. Its excluded statements
 * that no test ran are none, as from SQLite data.
 */
function reportStatements(
  reported: ReadonlySet<number>,
  excluded: ReadonlySet<number> | null,
  executed: ReadonlyMap<number, readonly string[]> | null,
  logical: StatementMap,
  contexts: Pick<ContextIndex, "get">,
): StatementMap {
  return jsonStatementMap(
    withRecordedStatements(reported, executed, logical),
    logical,
    excluded === null
      ? new Set()
      : excludedUntested(firstLinesOf(excluded, logical), executed, logical, contexts),
  );
}

/**
 * Statement map from coverage.py's own statement list (JSON report) plus the finder's logical
 * lines. A line the finder reads as blank, comment or docstring is no statement whatever the
 * report says: coverage.py 6.x lists the docstring lines CPython traces among the executed
 * lines. `notCode`: first lines (finder's) of statements that are none here either: the
 * report's excluded statements no test ran (excludedUntested), as with the SQLite data.
 */
function jsonStatementMap(
  reported: ReadonlySet<number>,
  logical: StatementMap,
  notCode: ReadonlySet<number>,
): StatementMap {
  return {
    statementOf(line) {
      const first = logical.statementOf(line);
      if (first === null || notCode.has(first)) return null;
      if (reported.has(line)) return line;
      return reported.has(first) ? first : null;
    },
  };
}

/** The first lines of the logical lines that hold some of `lines`. */
function firstLinesOf(lines: Iterable<number>, logical: StatementMap): Set<number> {
  const firsts = new Set<number>();
  for (const line of lines) {
    const first = logical.statementOf(line);
    if (first !== null) firsts.add(first);
  }
  return firsts;
}

/** `reported` plus the recorded lines that start a logical line. */
function withRecordedStatements(
  reported: ReadonlySet<number>,
  recorded: ReadonlyMap<number, readonly string[]> | null,
  logical: StatementMap,
): ReadonlySet<number> {
  const extra = [...(recorded?.keys() ?? [])].filter(
    (line) => !reported.has(line) && logical.statementOf(line) === line,
  );
  return extra.length === 0 ? reported : new Set([...reported, ...extra]);
}

const identityStatements: StatementMap = { statementOf: (line) => line };

/** Whether a changed statement has no executed line (its verdict needs the statement model). */
function hasUnexecutedStatement(
  addedLines: readonly number[],
  logical: StatementMap,
  executed: ReadonlyMap<number, unknown> | undefined,
): boolean {
  for (const line of addedLines) {
    const first = logical.statementOf(line);
    if (first !== null && !(executed && statementRan(logical, first, executed))) return true;
  }
  return false;
}

/**
 * The excluded statements no test ran (in its body or a fixture, frozen or not): those are no
 * statements, as in coverage.py's report, also when code ran them at import time
 * (`if TYPE_CHECKING:`). One a test ran keeps its verdict: the pragma hides no shadow.
 */
function excludedUntested(
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

/**
 * For staleness outside the audit (doctor, impact): which lines of a Python file belong to a
 * statement (tokenizer level), or undefined for other files and for source the tokenizer
 * refuses (the text check alone).
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
