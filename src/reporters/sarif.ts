// SARIF 2.1.0 (OASIS), for GitHub code scanning and other SARIF viewers: one rule per finding
// code, one result per problem (per run of consecutive changed lines with the same verdict and
// tests, as a region with an endLine), sorted; regions only where there is a line
// (startLine >= 1), file-level findings without one. Every result has a location (code
// scanning rejects one without): a finding with no file of its own points at the ledger.
//
// GitHub code scanning rejects a run with more than 25,000 results and keeps 5,000: past
// MAX_RESULTS the most important results are kept (shadowed lines, then errors; see
// byImportance) and one last note says how many more there are and where all of them are.
//
// partialFingerprints let a viewer follow a result from run to run. freezegate's own key
// ("freezegateFingerprint/v1") hashes the rule, the path, the text (trimmed) of the range's
// first and last changed lines with their occurrences among equal lines of the file, and the
// test or property the finding is about; without the file's text (a library caller that
// passes no sources) the line numbers stand in for the text. Line text rather than number
// keeps a result's identity when lines above it move.

import { FINDING_CODES, type FindingCode } from "../core/findings.js";
import {
  CALIBRATE_CODE_ORDER,
  CALIBRATE_CODES,
  type CalibrateCode,
  type CalibrateReport,
  calibrateVerdict,
  failureOf,
  MUTANT_CODE_ORDER,
  MUTANT_CODES,
  survivorSentence,
  withdrawnKillSentence,
} from "./calibrate-report.js";
import {
  type AnyReport,
  auditOf,
  byImportance,
  codeInfo,
  type Issue,
  type IssueCode,
  isCheckReport,
  LINE_CODES,
  REPORT_CODES,
  reportIssueRanges,
  verdictSentence,
} from "./issues.js";
import { jsonText, sourceLines } from "./words.js";

/**
 * SHA-256 as hex. node:crypto is loaded when a SARIF report is made, not by every audit that
 * loads this module (docs/performance.md).
 */
function sha256Hex(text: string): string {
  return process.getBuiltinModule("node:crypto").createHash("sha256").update(text).digest("hex");
}

export const SARIF_SCHEMA_URI =
  "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
const INFORMATION_URI = "https://www.npmjs.com/package/freezegate";
const FINGERPRINT_KEY = "freezegateFingerprint/v1";
/** Results per run, the note about the rest included: GitHub code scanning keeps 5,000. */
export const MAX_RESULTS = 5000;
/** The rule of that note, after the finding codes' rules (their indexes stay put). */
export const TRUNCATED_RULE = "more-results";

/** A repository path (or an absolute one, outside it) as a SARIF uri-reference. */
export function pathToUri(path: string): string {
  const encoded = path
    .split("/")
    .map((segment) => encodeURIComponent(segment))
    .join("/");
  return path.startsWith("/") ? `file://${encoded}` : encoded;
}

function ruleCodes(report: AnyReport): IssueCode[] {
  // Every code the report kind can carry, so that a rule's index never depends on the run;
  // the report's own codes after the finding codes, whose indexes stay put.
  const codes: FindingCode[] = isCheckReport(report)
    ? [...FINDING_CODES]
    : Object.values(LINE_CODES);
  return [...[...new Set(codes)].sort(), ...REPORT_CODES];
}

const PROBLEM_SEVERITY = { error: "error", warning: "warning", note: "recommendation" } as const;

/** The level a rule's results have when the policy blocks on them. */
function defaultLevel(code: IssueCode): "error" | "warning" | "note" {
  if (code === "unresolved-frozen-id") return "warning";
  return code === "ledger-changed" ? "note" : "error";
}

/** Per file: each line's trimmed text and how many equal lines come before it. */
interface FileLines {
  text: string[];
  occurrence: number[];
}

function fileLines(source: string): FileLines {
  const text = sourceLines(source).map((l) => l.trim());
  const seen = new Map<string, number>();
  const occurrence = text.map((t) => {
    const n = seen.get(t) ?? 0;
    seen.set(t, n + 1);
    return n;
  });
  return { text, occurrence };
}

function lineKey(
  path: string,
  line: number,
  sources: ReadonlyMap<string, string>,
  cache: Map<string, FileLines>,
): string {
  const source = sources.get(path);
  if (source === undefined) return `line ${line}`;
  let lines = cache.get(path);
  if (lines === undefined) {
    lines = fileLines(source);
    cache.set(path, lines);
  }
  const own = lines.text[line - 1];
  if (own === undefined) return `line ${line}`;
  return `${own}\u0000${lines.occurrence[line - 1]}`;
}

/** A one-line issue keys as before ranges were folded; a range adds its last line. */
function rangeKey(
  issue: Issue,
  sources: ReadonlyMap<string, string>,
  cache: Map<string, FileLines>,
): string {
  if (issue.path === null || issue.line === null) return "";
  const first = lineKey(issue.path, issue.line, sources, cache);
  if (issue.endLine === null || issue.endLine === issue.line) return first;
  return `${first}\u0002${lineKey(issue.path, issue.endLine, sources, cache)}`;
}

function fingerprints(issues: readonly Issue[], sources: ReadonlyMap<string, string>): string[] {
  const lines = new Map<string, FileLines>();
  const seen = new Map<string, number>();
  return issues.map((issue) => {
    const key = [
      issue.code,
      issue.path ?? "",
      rangeKey(issue, sources, lines),
      issue.testId ?? "",
      issue.propertyId ?? "",
    ].join("\u0001");
    // Two findings at one place about one thing (rare) still get distinct identities.
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    const hash = sha256Hex(`${key}\u0001${n}`);
    return `${hash.slice(0, 32)}:${n + 1}`;
  });
}

/**
 * The file a result without one of its own points at: GitHub code scanning rejects a result
 * that has no location. A check's ledger (its policy configures every gate), an audit's
 * frozen list.
 */
function reportFile(report: AnyReport): string {
  return isCheckReport(report) ? report.ledger.file : report.frozen.file;
}

function locationOf(issue: Pick<Issue, "path" | "line" | "endLine">, fallback: string): object {
  return {
    locations: [
      {
        physicalLocation: {
          artifactLocation: { uri: pathToUri(issue.path ?? fallback) },
          ...(issue.path === null || issue.line === null
            ? {}
            : {
                region: {
                  startLine: Math.max(1, issue.line),
                  ...(issue.endLine !== null && issue.endLine > issue.line
                    ? { endLine: issue.endLine }
                    : {}),
                },
              }),
        },
      },
    ],
  };
}

function truncatedRule() {
  return {
    id: TRUNCATED_RULE,
    name: TRUNCATED_RULE,
    shortDescription: { text: "more results than listed" },
    fullDescription: {
      text: `The report had more results than a SARIF viewer keeps (GitHub code scanning: ${MAX_RESULTS} per run); the most important are listed (shadowed lines, then errors). The JSON report lists every changed line.`,
    },
    defaultConfiguration: { level: "note" as const },
    properties: { "problem.severity": PROBLEM_SEVERITY.note },
  };
}

export function renderSarif(
  report: AnyReport,
  ctx: { sources: ReadonlyMap<string, string> } = { sources: new Map() },
): string {
  const codes = ruleCodes(report);
  const index = new Map(codes.map((c, i) => [c, i]));
  const rules: object[] = codes.map((code) => {
    const info = codeInfo(code);
    const level = defaultLevel(code);
    return {
      id: code,
      name: code,
      shortDescription: { text: info.title },
      fullDescription: { text: info.help },
      defaultConfiguration: { level },
      properties: { "problem.severity": PROBLEM_SEVERITY[level] },
    };
  });
  const all = reportIssueRanges(report);
  const fallback = reportFile(report);
  const prints = fingerprints(all, ctx.sources);
  const withPrints = all.map((issue, i) => ({ ...issue, print: prints[i] as string }));
  // Past the cap, the most important results are kept, listed in the report's order.
  const chosen =
    all.length <= MAX_RESULTS ? null : new Set(byImportance(withPrints).slice(0, MAX_RESULTS - 1));
  const kept = chosen === null ? withPrints : withPrints.filter((issue) => chosen.has(issue));
  const omitted = chosen === null ? [] : withPrints.filter((issue) => !chosen.has(issue));
  const results: object[] = kept.map((issue) => ({
    ruleId: issue.code,
    ruleIndex: index.get(issue.code) ?? -1,
    level: issue.level,
    message: { text: issue.message },
    ...locationOf(issue, fallback),
    partialFingerprints: { [FINGERPRINT_KEY]: issue.print },
    properties: {
      gate: issue.gate,
      ...(issue.testId === undefined ? {} : { testId: issue.testId }),
      ...(issue.propertyId === undefined ? {} : { propertyId: issue.propertyId }),
      ...(issue.tests.length > 0 ? { tests: issue.tests } : {}),
    },
  }));
  if (omitted.length > 0) {
    // Code scanning refuses a result without a location: the note sits at the first result
    // left out that has a file, else at the report's own file.
    const at = omitted.find((issue) => issue.path !== null);
    rules.push(truncatedRule());
    results.push({
      ruleId: TRUNCATED_RULE,
      ruleIndex: rules.length - 1,
      level: "note",
      message: {
        text: `${omitted.length} more result${omitted.length === 1 ? " is" : "s are"} not listed here${at === undefined ? "" : ", the first at this place"} (GitHub code scanning keeps ${MAX_RESULTS} per run): the JSON report (--format json) has every changed line's verdict`,
      },
      ...(at === undefined
        ? locationOf({ ...(omitted[0] as Issue), path: null }, fallback)
        : locationOf(at, fallback)),
      partialFingerprints: {
        [FINGERPRINT_KEY]: `${sha256Hex(TRUNCATED_RULE).slice(0, 32)}:1`,
      },
      properties: { gate: "report", omitted: omitted.length },
    });
  }
  const audit = auditOf(report);
  const verdict = verdictSentence(report);
  const exitCode = isCheckReport(report) ? report.exitCode : report.gate.exitCode;
  return sarifLog({
    version: report.tool.version,
    rules,
    invocation: {
      executionSuccessful: true,
      exitCode,
      exitCodeDescription: `${verdict.passed ? "pass" : "fail"}: ${verdict.text}`,
      // Nothing audited is no result at a place in the code: a notification of the run.
      ...(audit.summary.emptyPatch === null
        ? {}
        : {
            toolExecutionNotifications: [
              {
                descriptor: { id: "empty-patch" },
                level: "warning",
                message: { text: audit.summary.emptyPatch.message },
              },
            ],
          }),
    },
    results,
    properties: {
      report: report.schema,
      passed: verdict.passed,
      shadowRatio: audit.summary.shadowRatio,
      counts: audit.summary.counts,
      ...(isCheckReport(report)
        ? {
            compensation: report.ledger.entries.flatMap((e) =>
              e.compensation === null
                ? []
                : [{ testId: e.testId, property: e.compensatingProperty, ...e.compensation }],
            ),
          }
        : {}),
    },
  });
}

/** One run of freezegate as a SARIF log. */
function sarifLog(run: {
  version: string;
  rules: object[];
  invocation: object;
  results: object[];
  properties: object;
}): string {
  return jsonText({
    $schema: SARIF_SCHEMA_URI,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "freezegate",
            version: run.version,
            informationUri: INFORMATION_URI,
            rules: run.rules,
          },
        },
        invocations: [run.invocation],
        columnKind: "unicodeCodePoints",
        results: run.results,
        properties: run.properties,
      },
    ],
  });
}

/**
 * calibrate's SARIF: one rule per reason a calibration fails (a canary the gate misjudged, by
 * why; the gate cannot fire, by why; the tests applied another frozen list); one error result
 * per misjudged canary at its line, one for a gate that cannot fire, at the frozen list, and
 * one at the applied record that disagrees with the frozen list. With --mutants, two rules
 * more (after those, so their indexes stay put): a warning per mutant of a control statement
 * that survived its live tests, a note per mutant of a shadow statement only frozen tests kill.
 */
export function renderCalibrateSarif(report: CalibrateReport): string {
  const mutantCodes = report.mutants === undefined ? [] : MUTANT_CODE_ORDER;
  const index = new Map<string, number>(
    [...CALIBRATE_CODE_ORDER, ...mutantCodes].map((c, i) => [c, i]),
  );
  const MUTANT_LEVEL = {
    "mutant-survived-live-tests": "warning",
    "kill-withdrawn-by-freeze": "note",
  } as const;
  const rules = [
    ...CALIBRATE_CODE_ORDER.map((code) => ({
      code,
      level: "error" as const,
      ...CALIBRATE_CODES[code],
    })),
    ...mutantCodes.map((code) => ({ code, level: MUTANT_LEVEL[code], ...MUTANT_CODES[code] })),
  ].map(({ code, level, title, help }) => ({
    id: code,
    name: code,
    shortDescription: { text: title },
    fullDescription: { text: help },
    defaultConfiguration: { level },
    properties: { "problem.severity": PROBLEM_SEVERITY[level] },
  }));
  type Place = Pick<Issue, "path" | "line" | "endLine">;
  const result = (
    code: CalibrateCode | (typeof mutantCodes)[number],
    message: string,
    place: Place,
    key: string,
  ) => ({
    ruleId: code,
    ruleIndex: index.get(code) ?? -1,
    level: code in MUTANT_LEVEL ? MUTANT_LEVEL[code as keyof typeof MUTANT_LEVEL] : "error",
    message: { text: message },
    ...locationOf(place, report.settings.frozen.file),
    partialFingerprints: {
      [FINGERPRINT_KEY]: `${sha256Hex(`${code}\u0001${key}`).slice(0, 32)}:1`,
    },
  });
  const at = (path: string | null, line: number | null): Place => ({ path, line, endLine: line });
  const results: object[] = [];
  const record = report.appliedRecord;
  if (record?.message) {
    results.push({
      ...result("frozen-list-not-applied", record.message, at(record.file, null), record.file),
      properties: { gate: "calibrate" },
    });
  }
  if (report.cannotFire !== null) {
    results.push({
      ...result(
        report.cannotFire.reason,
        report.cannotFire.message,
        at(null, null),
        report.settings.frozen.file,
      ),
      properties: { gate: "calibrate" },
    });
  }
  for (const c of report.canaries) {
    if (c.ok || c.code === null) continue;
    results.push({
      ...result(c.code, failureOf(c), at(c.path, c.line), `${c.path}\u0001${c.text.trim()}`),
      properties: {
        gate: "calibrate",
        kind: c.kind,
        mutation: c.mutation,
        verdict: c.verdict,
        ...(c.tests.length > 0 ? { tests: c.tests } : {}),
      },
    });
  }
  for (const x of report.mutants?.mutants ?? []) {
    const code =
      x.canary === "control" && x.class === "survived"
        ? "mutant-survived-live-tests"
        : x.canary === "shadow" && x.class === "frozen"
          ? "kill-withdrawn-by-freeze"
          : null;
    if (code === null) continue;
    // The statement's text, as a canary's key has it: the result keeps its identity when
    // lines above it move.
    const text = report.canaries.find((c) => c.path === x.path && c.line === x.line)?.text;
    results.push({
      ...result(
        code,
        code === "mutant-survived-live-tests" ? survivorSentence(x) : withdrawnKillSentence(x),
        at(x.path, x.line),
        `${x.path}\u0001${text?.trim() ?? x.line}\u0001${x.kind}\u0001${x.description}`,
      ),
      properties: {
        gate: "calibrate",
        kind: x.canary,
        mutation: x.kind,
        class: x.class,
        ...(x.killedBy.length > 0 ? { tests: x.killedBy } : {}),
      },
    });
  }
  const verdict = calibrateVerdict(report);
  return sarifLog({
    version: report.tool.version,
    rules,
    invocation: {
      executionSuccessful: true,
      exitCode: report.exitCode,
      exitCodeDescription: `${verdict.passed ? "pass" : "fail"}: ${verdict.text}`,
    },
    results,
    properties: {
      report: report.schema,
      passed: report.passed,
      summary: report.summary,
      ...(report.mutants === undefined
        ? {}
        : { mutants: { summary: report.mutants.summary, counts: report.mutants.counts } }),
    },
  });
}
