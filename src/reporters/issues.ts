// The problems a report points at, derived once from the result object, so that every format
// that lists them (GitHub annotations, SARIF, JUnit, Markdown) shows the same ones, at the
// same places, at the same level. An audit report's problems are its changed lines whose
// verdict needs attention; a check report's are those lines plus every other gate's findings.

import type { FindingCode } from "../core/findings.js";
import type { FailableVerdict, LineResult } from "../core/shadow-audit.js";
import type { AuditReport } from "./audit-report.js";
import type { CheckReport } from "./check-report.js";
import { describePatch as describeAuditPatch } from "./words.js";

export type AnyReport = AuditReport | CheckReport;

/** error: fails the build; warning: shown, fails nothing; note: a record. */
export type Level = "error" | "warning" | "note";

/**
 * Codes of what a report warns about that is no gate finding of the core: a frozen id that
 * matched no test (allowed by --allow-unresolved). After the finding codes wherever they are
 * listed (SARIF rules), so the finding codes' places never move.
 */
export const REPORT_CODES = ["unresolved-frozen-id"] as const;
export type ReportCode = (typeof REPORT_CODES)[number];
export type IssueCode = FindingCode | ReportCode;

export interface Issue {
  code: IssueCode;
  /** The gate that found it ("shadow" for changed lines). */
  gate: string;
  level: Level;
  /** Repository path (a gate finding without one points at the ledger); null: no file. */
  path: string | null;
  /** First and last line of the range (equal for one line); null for a file-level finding. */
  line: number | null;
  endLine: number | null;
  /** One sentence on one line, complete on its own. */
  message: string;
  /** The tests the issue names (a shadowed line's frozen tests, a freeze's test). */
  tests: string[];
  testId?: string;
  propertyId?: string;
}

export interface CodeInfo {
  title: string;
  help: string;
}

/**
 * A title and a short explanation per finding code (SARIF rules, Markdown, JUnit). Partial so
 * that a new code does not break the build here; a unit test asks for every code.
 */
export const CODE_INFO: Partial<Record<IssueCode, CodeInfo>> = {
  "missing-field": {
    title: "freeze misses a field",
    help: "Every freeze must say who owns it, why, until when, which invariant it withdraws and which property compensates. Fill in the missing field in the ledger.",
  },
  "bad-date": {
    title: "freeze has a bad date",
    help: "A freeze's opened and expires dates must be real days written YYYY-MM-DD, with opened before expires.",
  },
  expired: {
    title: "freeze expired",
    help: "The freeze's expiry day has passed: re-enable or delete the frozen test, or extend the freeze with a reviewed reason.",
  },
  "window-exceeded": {
    title: "freeze window too long",
    help: "The freeze lasts longer than the policy's max_window_days allows. Shorten it.",
  },
  "duplicate-freeze": {
    title: "test frozen twice",
    help: "A test may be frozen by one ledger entry only. Merge the entries.",
  },
  "unknown-test": {
    title: "freeze names an unknown test",
    help: "The frozen test id matches no collected test: fix the id (pytest node ids, as in `pytest --collect-only -q`) or remove the freeze.",
  },
  "orphaned-property": {
    title: "property lost its last witness",
    help: "Every example test that witnesses this property is frozen: nothing that can fail the build still checks the invariant. Unfreeze a witness.",
  },
  "frozen-property-check": {
    title: "property check is frozen",
    help: "The property test that compensates for freezes is itself frozen.",
  },
  "deposit-not-collected": {
    title: "deposit is not a collected test",
    help: "A freeze must deposit a compensating property that is a collected test.",
  },
  "deposit-not-in-diff": {
    title: "deposit not in the patch",
    help: "A new freeze must add or change its compensating property in the same patch, unless reused_property is true.",
  },
  "deposit-too-few-inputs": {
    title: "deposit ran on too few inputs",
    help: "The compensating property must have run on at least the policy's min_distinct distinct inputs (the samples artifact says how many).",
  },
  "deposit-compensation-low": {
    title: "deposit covers too little of what the freeze withdrew",
    help: "The compensating property executes less than the policy's min_compensation share of the lines the freeze withdraws (the lines only the frozen test executes). Make the property exercise them, or lower min_compensation in a reviewed patch.",
  },
  "deposit-compensation-unknown": {
    title: "compensation cannot be measured",
    help: "min_compensation is set, but the coverage data does not show the frozen test, or the compensating property running its body, so what the freeze withdraws or what the property guards is unknown. Run both with per-test coverage.",
  },
  "frozen-sweep-failure": {
    title: "frozen property fails in the sweep",
    help: "The randomized sweep found this property failing, and it failed again when re-run at its seed: freezing it turns a known defect into an unowned one. Fix it, then run the recorded command: a sweep that passes it at that seed clears it.",
  },
  "deposit-sweep-failure": {
    title: "deposit fails in the sweep",
    help: "The randomized sweep found the compensating property failing, and it failed again when re-run at its seed: a broken property compensates nothing. Fix it, then run the recorded command: a sweep that passes it at that seed clears it.",
  },
  "lock-moved": {
    title: "generator lock moved",
    help: "A file fingerprinted by the generator lock changed without the lock being updated in the same patch.",
  },
  "ledger-changed": {
    title: "ledger changed",
    help: "A record of a change to the freeze ledger in this patch, for the reviewer.",
  },
  "self-approved": {
    title: "freeze approved by its author",
    help: "policy.require_approval is on: a freeze needs approved_by from someone other than its owner and its author.",
  },
  "shadowed-line": {
    title: "shadowed line",
    help: "Only frozen tests execute this changed line: nothing that can fail the build checks it. Unfreeze the test, or add a live test that executes the line.",
  },
  "fixture-only-line": {
    title: "fixture-only line",
    help: "Only the setup or teardown of live tests executes this changed line, never a test body. Add a test that exercises it.",
  },
  "uncovered-line": {
    title: "uncovered line",
    help: "No test executes this changed line. Add a test that does.",
  },
  "unmeasured-line": {
    title: "unmeasured line",
    help: "The file is not in the coverage data, so nothing says which test executes this changed line. Measure it ([run] source).",
  },
  "unresolved-frozen-id": {
    title: "frozen id matches no test",
    help: "A frozen id matches no test in the coverage data (allowed by --allow-unresolved): a test that no longer exists, or a mistyped id that freezes nothing the audit can see. Fix the id, or remove the freeze when the test is gone.",
  },
  "inherited-skip": {
    title: "skip inherited through the merge queue",
    help: "A test skipped in the parent's applied record would be skipped in this commit without a freeze of its own.",
  },
  "stale-record": {
    title: "stale applied record",
    help: "The applied record was made at another commit or with another ledger than the one being gated.",
  },
};

export function codeInfo(code: IssueCode): CodeInfo {
  return CODE_INFO[code] ?? { title: code, help: `freezegate finding ${code}.` };
}

/** The codes a report can carry: the line codes for an audit, every code for a check. */
export const LINE_CODES: Record<FailableVerdict, FindingCode> = {
  shadowed: "shadowed-line",
  "fixture-only": "fixture-only-line",
  uncovered: "uncovered-line",
  unmeasured: "unmeasured-line",
};

export function isCheckReport(report: AnyReport): report is CheckReport {
  return report.schema === "freezegate/check";
}

export function auditOf(report: AnyReport): AuditReport {
  return isCheckReport(report) ? report.audit : report;
}

/** "a, b, c, and 2 more": a list that stays readable on one line. */
export function listSome(items: readonly string[], max = 5): string {
  if (items.length <= max) return items.join(", ");
  return `${items.slice(0, max).join(", ")}, and ${items.length - max} more`;
}

function span(line: number, endLine: number): string {
  return line === endLine ? `changed line ${line} is` : `changed lines ${line}-${endLine} are`;
}

/** The sentence for a changed line (or a run of lines) with a verdict that needs attention. */
export function lineMessage(
  verdict: FailableVerdict,
  line: number,
  endLine: number,
  result: Pick<LineResult, "frozenTests" | "fixtureTests" | "outsideTests">,
): string {
  const it = line === endLine ? "it" : "them";
  switch (verdict) {
    case "shadowed":
      return `${span(line, endLine)} shadowed: only frozen tests execute ${it} (${listSome(result.frozenTests)})`;
    case "fixture-only":
      return `${span(line, endLine)} fixture-only: only the setup/teardown of ${listSome(result.fixtureTests)} executes ${it}${result.frozenTests.length > 0 ? `; frozen: ${listSome(result.frozenTests)}` : ""}`;
    case "uncovered":
      return `${span(line, endLine)} uncovered: no test executes ${it}${result.outsideTests ? ", only code outside tests (import time) does" : ""}`;
    case "unmeasured":
      return `${span(line, endLine)} unmeasured: the file is not in the coverage data`;
  }
}

/** A run: consecutive changed lines of one file that share a verdict and tests. */
export interface LineRun {
  path: string;
  /** The run's first line (every line of the run has its verdict and tests). */
  first: LineResult;
  line: number;
  endLine: number;
}

/** What makes two consecutive changed lines one run: the same verdict and the same tests. */
export function sameVerdictAndTests(result: LineResult): string {
  return JSON.stringify([
    result.verdict,
    result.frozenTests,
    result.fixtureTests,
    result.outsideTests,
  ]);
}

/**
 * The changed lines folded into runs: consecutive lines of one file to which `keyOf` gives the
 * same key (null: the line is in no run). The one way every format folds lines into ranges.
 */
export function lineRuns(
  files: AuditReport["files"],
  keyOf: (result: LineResult) => string | null,
): LineRun[] {
  const out: Array<LineRun & { key: string }> = [];
  for (const file of files) {
    for (const result of file.lines) {
      const key = keyOf(result);
      if (key === null) continue;
      const prev = out[out.length - 1];
      if (
        prev !== undefined &&
        prev.path === file.path &&
        prev.key === key &&
        result.line === prev.endLine + 1
      ) {
        prev.endLine = result.line;
        continue;
      }
      out.push({ path: file.path, first: result, line: result.line, endLine: result.line, key });
    }
  }
  return out.map(({ key: _, ...run }) => run);
}

/**
 * Whether a changed line with this verdict is a problem, and at which level: the verdicts in
 * fail-on at `failingLevel`; a fixture-only line outside fail-on still deserves a look (a
 * judgement call) as a warning; the other verdicts outside fail-on are the user's choice not
 * to hear about them (null). The one rule for every format, the check's JSON findings too.
 */
export function verdictLevel(
  verdict: LineResult["verdict"],
  failOn: ReadonlySet<string>,
  failingLevel: Level,
): Level | null {
  if (verdict === "defended" || verdict === "not-code") return null;
  if (failOn.has(verdict)) return failingLevel;
  return verdict === "fixture-only" ? "warning" : null;
}

/** The sentence for a frozen id that matched no test (allowed by --allow-unresolved). */
export function unresolvedMessage(id: string): string {
  return `the frozen id ${id} matches no test in the coverage data (allowed by --allow-unresolved): it freezes nothing the audit can see`;
}

/**
 * One warning per frozen id that matched no test, at the file that froze it: shown because
 * --allow-unresolved lets the run go on, not because anything checked the id.
 */
export function unresolvedIssues(audit: AuditReport): Issue[] {
  return audit.frozen.unresolved.map((id) => ({
    code: "unresolved-frozen-id",
    gate: "shadow",
    level: "warning",
    path: audit.frozen.file,
    line: null,
    endLine: null,
    message: unresolvedMessage(id),
    tests: [id],
    testId: id,
  }));
}

/**
 * The changed lines that need attention as issues, one per run of lines with the same verdict
 * and tests (`fold`), or one per line.
 */
function lineIssuesOf(audit: AuditReport, failingLevel: Level, fold: boolean): Issue[] {
  const failOn = new Set<string>(audit.gate.failOn);
  const levelOf = (result: LineResult) => verdictLevel(result.verdict, failOn, failingLevel);
  const runs = lineRuns(audit.files, (result) =>
    levelOf(result) === null ? null : fold ? sameVerdictAndTests(result) : `${result.line}`,
  );
  return runs.map(({ path, first, line, endLine }) => {
    const verdict = first.verdict as FailableVerdict;
    return {
      code: LINE_CODES[verdict],
      gate: "shadow",
      level: levelOf(first) as Level,
      path,
      line,
      endLine,
      message: lineMessage(verdict, line, endLine, first),
      tests: verdict === "fixture-only" ? first.fixtureTests : first.frozenTests,
    };
  });
}

/**
 * One issue per changed line that needs attention: the lines whose verdict fails the gate
 * (at `failingLevel`), and fixture-only lines that do not (as warnings).
 */
export function lineIssues(audit: AuditReport, failingLevel: Level = "error"): Issue[] {
  return lineIssuesOf(audit, failingLevel, false);
}

/** Consecutive lines of one file with the same verdict and tests, as one range. */
export function lineRanges(audit: AuditReport, failingLevel: Level = "error"): Issue[] {
  return lineIssuesOf(audit, failingLevel, true);
}

/** A gate finding's level: errors of a non-blocking gate fail nothing, so they are warnings. */
function findingLevel(severity: "error" | "warning" | "info", blocking: boolean): Level {
  if (severity === "error") return blocking ? "error" : "warning";
  return severity === "warning" ? "warning" : "note";
}

function compare(a: string | number | null | undefined, b: string | number | null | undefined) {
  const x = a ?? "";
  const y = b ?? "";
  if (typeof x === "number" && typeof y === "number") return x - y;
  const sx = String(x);
  const sy = String(y);
  return sx < sy ? -1 : sx > sy ? 1 : 0;
}

const GATE_ORDER = ["shadow", "shape", "witness", "deposit", "lock", "ledger-changes"];

function gateRank(gate: string): number {
  const i = GATE_ORDER.indexOf(gate);
  return i === -1 ? GATE_ORDER.length : i;
}

const isReportCode = (code: IssueCode) => (REPORT_CODES as readonly string[]).includes(code);

/**
 * Stable order: by gate (the audit's lines first, then the gates in check order; within a
 * gate its findings before what the report adds, REPORT_CODES), then path (issues without a
 * file last), line, code, test, property, message.
 */
export function sortIssues(issues: readonly Issue[]): Issue[] {
  return [...issues].sort(
    (a, b) =>
      gateRank(a.gate) - gateRank(b.gate) ||
      compare(a.gate, b.gate) ||
      Number(isReportCode(a.code)) - Number(isReportCode(b.code)) ||
      (a.path === null ? 1 : 0) - (b.path === null ? 1 : 0) ||
      compare(a.path, b.path) ||
      (a.line ?? 0) - (b.line ?? 0) ||
      compare(a.code, b.code) ||
      compare(a.testId, b.testId) ||
      compare(a.propertyId, b.propertyId) ||
      compare(a.message, b.message),
  );
}

/**
 * How much an issue needs a reader's eye when a viewer shows only some (GitHub's annotations
 * per step, code scanning's results per run): a shadowed line first (the verdict that always
 * fails, and the reason freezegate exists), then every other error (failing verdicts, blocking
 * gates' errors), then the rest.
 */
function importance(issue: Issue): number {
  if (issue.code === "shadowed-line") return 0;
  return issue.level === "error" ? 1 : 2;
}

/** The issues, most important first; within a rank in their given (stable) order. */
export function byImportance<T extends Issue>(issues: readonly T[]): T[] {
  return issues
    .map((issue, i) => ({ issue, i, rank: importance(issue) }))
    .sort((a, b) => a.rank - b.rank || a.i - b.i)
    .map((x) => x.issue);
}

function gateIssues(report: CheckReport): Issue[] {
  const out: Issue[] = [];
  for (const gate of report.gates) {
    // The shadow gate's findings are the audit's lines and frozen ids, taken from the audit.
    if (gate.gate === "shadow" || !gate.ran) continue;
    for (const f of gate.findings) {
      // Every finding points at a file (code scanning refuses a result without a location):
      // its own, else the ledger, whose policy configures every gate.
      const path = f.path ?? report.ledger.file;
      out.push({
        code: f.code,
        gate: gate.gate,
        level: findingLevel(f.severity, gate.blocking),
        path,
        line: path !== null && f.line !== undefined ? Math.max(1, f.line) : null,
        endLine: path !== null && f.line !== undefined ? Math.max(1, f.line) : null,
        message: f.message.replace(/\s*[\r\n]+\s*/g, " "),
        tests: f.testId === undefined ? [] : [f.testId],
        ...(f.testId === undefined ? {} : { testId: f.testId }),
        ...(f.propertyId === undefined ? {} : { propertyId: f.propertyId }),
      });
    }
  }
  return out;
}

function shadowLevel(report: AnyReport): Level {
  if (!isCheckReport(report)) return "error";
  const shadow = report.gates.find((g) => g.gate === "shadow");
  return shadow === undefined || shadow.blocking ? "error" : "warning";
}

/** Every issue of a report, one per changed line, in the stable order. */
export function reportIssues(report: AnyReport): Issue[] {
  const audit = auditOf(report);
  const lines = [...lineIssues(audit, shadowLevel(report)), ...unresolvedIssues(audit)];
  return sortIssues(isCheckReport(report) ? [...lines, ...gateIssues(report)] : lines);
}

/** Every issue of a report with runs of lines folded into ranges, in the stable order. */
export function reportIssueRanges(report: AnyReport): Issue[] {
  const audit = auditOf(report);
  const lines = [...lineRanges(audit, shadowLevel(report)), ...unresolvedIssues(audit)];
  return sortIssues(isCheckReport(report) ? [...lines, ...gateIssues(report)] : lines);
}

/** The one-line verdict every format leads with. */
export function verdictSentence(report: AnyReport): { passed: boolean; text: string } {
  if (isCheckReport(report)) {
    const n = report.failedGates.length;
    return report.passed
      ? { passed: true, text: "no blocking gate failed" }
      : {
          passed: false,
          text: `blocking gate${n === 1 ? "" : "s"} failed: ${report.failedGates.join(", ")}`,
        };
  }
  if (!report.gate.passed) return { passed: false, text: report.gate.reasons.join("; ") };
  const empty = report.summary.emptyPatch;
  return {
    passed: true,
    text:
      empty === null
        ? `no changed line fails the gate (fail on: ${report.gate.failOn.join(", ")})`
        : empty.message,
  };
}

/** "base...HEAD", "staged changes", ...: which patch was audited (no merge base). */
export function describePatch(audit: AuditReport): string {
  return describeAuditPatch(audit, { mergeBase: false });
}
