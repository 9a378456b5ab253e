// The shadow audit: for every changed line, which tests executed it and whether any
// of them can still fail the build. A pure function from values to a result object; every
// report format renders that object.
//
// Verdicts, for a changed line that belongs to statement s:
//   not-code      s does not exist (blank, comment, docstring, `else:`-like header)
//   unmeasured    the file is not in the coverage data at all
//   defended      a live (not frozen) test executed s in its body
//   fixture-only  no live test body executed s, but a live test's setup/teardown did
//   shadowed      only frozen tests executed s (K(l) non-empty and K(l) within F)
//   uncovered     no test executed s (code run only outside tests, e.g. at import, counts as
//                 no test: `outsideTests` says so)

import type { ChangedFile, ContextIndex, StatementMap } from "./model.js";

export const VERDICTS = [
  "defended",
  "shadowed",
  "fixture-only",
  "uncovered",
  "unmeasured",
  "not-code",
] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Verdicts that can make the gate fail (`not-code` and `defended` never do). */
export const FAILABLE_VERDICTS = ["shadowed", "fixture-only", "uncovered", "unmeasured"] as const;
export type FailableVerdict = (typeof FAILABLE_VERDICTS)[number];

export interface LineResult {
  line: number;
  verdict: Verdict;
  /** First line of the statement this line belongs to (null for not-code). */
  statement: number | null;
  /** Live tests that executed the statement in their body. */
  tests: string[];
  /** Frozen tests that executed it (any phase). */
  frozenTests: string[];
  /** Live tests that executed it only during setup/teardown. */
  fixtureTests: string[];
  /** Code outside any test (the empty context, import time) executed it. */
  outsideTests: boolean;
}

export interface FileResult {
  path: string;
  oldPath: string | null;
  status: ChangedFile["status"];
  measured: boolean;
  lines: LineResult[];
}

export type SkipReason =
  | "test-file"
  | "not-source"
  | "deleted"
  | "binary"
  | "submodule"
  | "no-lines";

export interface SkippedFile {
  path: string;
  reason: SkipReason;
}

export type VerdictCounts = Record<Verdict, number>;

export interface AuditSummary {
  files: number;
  lines: number;
  counts: VerdictCounts;
  /** shadowed / lines any test executed (defended + fixture-only + shadowed); null if none. */
  shadowRatio: number | null;
}

export interface GateResult {
  passed: boolean;
  failOn: FailableVerdict[];
  /** One sentence per failing verdict, e.g. "2 changed lines are shadowed". */
  reasons: string[];
}

export interface ShadowAudit {
  files: FileResult[];
  skipped: SkippedFile[];
  summary: AuditSummary;
  gate: GateResult;
}

export interface AuditFileInput {
  change: ChangedFile;
  statements: StatementMap;
  /** Executed lines from the data (line -> context names), or null when unmeasured. */
  executed: ReadonlyMap<number, readonly string[]> | null;
}

export interface AuditInput {
  files: readonly AuditFileInput[];
  skipped: readonly SkippedFile[];
  contexts: ContextIndex;
  frozen: ReadonlySet<string>;
  failOn: readonly FailableVerdict[];
}

interface StatementCover {
  run: Set<string>;
  fixture: Set<string>;
  frozen: Set<string>;
  outside: boolean;
}

/**
 * Group the data's executed lines by statement and split the contexts by kind, for the
 * statements in `wanted` only (the changed ones: a popular line can carry thousands of tests).
 */
function coverByStatement(
  executed: ReadonlyMap<number, readonly string[]>,
  statements: StatementMap,
  wanted: ReadonlySet<number>,
  contexts: ContextIndex,
  frozen: ReadonlySet<string>,
): Map<number, StatementCover> {
  const out = new Map<number, StatementCover>();
  for (const [line, names] of executed) {
    // A line without names adds no test: its statement's verdict is what it would be
    // without it (most executed lines are such, when only changed lines' tests were read).
    if (names.length === 0) continue;
    // coverage.py may record any line of a multi-line statement; reports use the first.
    const stmt = statements.statementOf(line);
    if (stmt === null || !wanted.has(stmt)) continue;
    let cover = out.get(stmt);
    if (!cover) {
      cover = { run: new Set(), fixture: new Set(), frozen: new Set(), outside: false };
      out.set(stmt, cover);
    }
    for (const name of names) {
      const ctx = contexts.get(name);
      const testId = ctx.testId;
      if (testId === null) {
        cover.outside = true;
      } else if (frozen.has(testId)) {
        cover.frozen.add(testId);
      } else if (ctx.phase === "setup" || ctx.phase === "teardown") {
        cover.fixture.add(testId);
      } else {
        cover.run.add(testId);
      }
    }
  }
  // A live test seen in its body is not "fixture-only" for that statement.
  for (const cover of out.values()) for (const id of cover.run) cover.fixture.delete(id);
  return out;
}

function sorted(set: Set<string>): string[] {
  return [...set].sort();
}

function judgeFile(input: AuditFileInput, contexts: ContextIndex, frozen: ReadonlySet<string>) {
  const { change, statements, executed } = input;
  const statementOfLine = change.addedLines.map((line) => statements.statementOf(line));
  const wanted = new Set(statementOfLine.filter((s): s is number => s !== null));
  const covers = executed ? coverByStatement(executed, statements, wanted, contexts, frozen) : null;
  const lines: LineResult[] = change.addedLines.map((line, i) => {
    const statement = statementOfLine[i] ?? null;
    // Every line object has its keys in one order, whatever its verdict (stable JSON).
    const untested = (verdict: Verdict): LineResult => ({
      line,
      statement,
      verdict,
      tests: [],
      frozenTests: [],
      fixtureTests: [],
      outsideTests: false,
    });
    if (statement === null) return untested("not-code");
    if (covers === null) return untested("unmeasured");
    const cover = covers.get(statement);
    if (!cover) return untested("uncovered");
    const verdict: Verdict =
      cover.run.size > 0
        ? "defended"
        : cover.fixture.size > 0
          ? "fixture-only"
          : cover.frozen.size > 0
            ? "shadowed"
            : "uncovered";
    return {
      line,
      statement,
      verdict,
      tests: sorted(cover.run),
      frozenTests: sorted(cover.frozen),
      fixtureTests: sorted(cover.fixture),
      outsideTests: cover.outside,
    };
  });
  return {
    path: change.path,
    oldPath: change.oldPath,
    status: change.status,
    measured: executed !== null,
    lines,
  } satisfies FileResult;
}

export function emptyCounts(): VerdictCounts {
  return {
    defended: 0,
    shadowed: 0,
    "fixture-only": 0,
    uncovered: 0,
    unmeasured: 0,
    "not-code": 0,
  };
}

export function summarize(files: readonly FileResult[]): AuditSummary {
  const counts = emptyCounts();
  let lines = 0;
  for (const file of files) {
    for (const line of file.lines) {
      counts[line.verdict]++;
      lines++;
    }
  }
  const executed = counts.defended + counts["fixture-only"] + counts.shadowed;
  return {
    files: files.length,
    lines,
    counts,
    shadowRatio: executed === 0 ? null : counts.shadowed / executed,
  };
}

const VERDICT_PHRASE: Record<FailableVerdict, string> = {
  shadowed: "covered only by frozen tests (shadowed)",
  "fixture-only": "executed only in live tests' setup/teardown (fixture-only)",
  uncovered: "executed by no test (uncovered)",
  unmeasured: "in files missing from the coverage data (unmeasured)",
};

export function judgeGate(summary: AuditSummary, failOn: readonly FailableVerdict[]): GateResult {
  const order = FAILABLE_VERDICTS.filter((v) => failOn.includes(v));
  const reasons = order
    .filter((v) => summary.counts[v] > 0)
    .map((v) => {
      const n = summary.counts[v];
      return `${n} changed line${n === 1 ? " is" : "s are"} ${VERDICT_PHRASE[v]}`;
    });
  return { passed: reasons.length === 0, failOn: order, reasons };
}

export function auditShadow(input: AuditInput): ShadowAudit {
  const files = input.files
    .map((f) => judgeFile(f, input.contexts, input.frozen))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  const summary = summarize(files);
  const skipped = [...input.skipped].sort((a, b) =>
    a.path < b.path ? -1 : a.path > b.path ? 1 : 0,
  );
  return { files, skipped, summary, gate: judgeGate(summary, input.failOn) };
}
