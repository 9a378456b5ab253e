// SARIF 2.1.0 (OASIS), for GitHub code scanning and other SARIF viewers: one rule per finding
// code, one result per problem (per changed line for the audit's verdicts), sorted; regions
// only where there is a line (startLine >= 1), file-level findings without one.
//
// partialFingerprints let a viewer follow a result from run to run. freezegate's own key
// ("freezegateFingerprint/v1") hashes the rule, the path, the changed line's text (trimmed)
// with its occurrence among equal lines of the file, and the test or property the finding is
// about; without the file's text (a library caller that passes no sources) the line number
// stands in for the text. Line text rather than number keeps a result's identity when lines
// above it move.

import { createHash } from "node:crypto";
import { FINDING_CODES, type FindingCode } from "../core/findings.js";
import {
  type AnyReport,
  auditOf,
  codeInfo,
  type Issue,
  isCheckReport,
  LINE_CODES,
  reportIssues,
  verdictSentence,
} from "./issues.js";

export const SARIF_SCHEMA_URI =
  "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json";
const INFORMATION_URI = "https://www.npmjs.com/package/freezegate";
const FINGERPRINT_KEY = "freezegateFingerprint/v1";

/** A repository path (or an absolute one, outside it) as a SARIF uri-reference. */
export function pathToUri(path: string): string {
  const encoded = path
    .split("/")
    .map((segment) => encodeURIComponent(segment))
    .join("/");
  return path.startsWith("/") ? `file://${encoded}` : encoded;
}

function ruleCodes(report: AnyReport): FindingCode[] {
  // Every code the report kind can carry, so that a rule's index never depends on the run.
  const codes = isCheckReport(report) ? FINDING_CODES : Object.values(LINE_CODES);
  return [...new Set(codes)].sort();
}

const PROBLEM_SEVERITY = { error: "error", warning: "warning", note: "recommendation" } as const;

/** The level a rule's results have when the policy blocks on them. */
function defaultLevel(code: FindingCode): "error" | "warning" | "note" {
  return code === "ledger-changed" ? "note" : "error";
}

/** Per file: each line's trimmed text and how many equal lines come before it. */
interface FileLines {
  text: string[];
  occurrence: number[];
}

function fileLines(source: string): FileLines {
  const text = source.split(/\r?\n/).map((l) => l.trim());
  const seen = new Map<string, number>();
  const occurrence = text.map((t) => {
    const n = seen.get(t) ?? 0;
    seen.set(t, n + 1);
    return n;
  });
  return { text, occurrence };
}

function lineKey(
  issue: Issue,
  sources: ReadonlyMap<string, string>,
  cache: Map<string, FileLines>,
): string {
  if (issue.path === null || issue.line === null) return "";
  const source = sources.get(issue.path);
  if (source === undefined) return `line ${issue.line}`;
  let lines = cache.get(issue.path);
  if (lines === undefined) {
    lines = fileLines(source);
    cache.set(issue.path, lines);
  }
  const own = lines.text[issue.line - 1];
  if (own === undefined) return `line ${issue.line}`;
  return `${own}\u0000${lines.occurrence[issue.line - 1]}`;
}

function fingerprints(issues: readonly Issue[], sources: ReadonlyMap<string, string>): string[] {
  const lines = new Map<string, FileLines>();
  const seen = new Map<string, number>();
  return issues.map((issue) => {
    const key = [
      issue.code,
      issue.path ?? "",
      lineKey(issue, sources, lines),
      issue.testId ?? "",
      issue.propertyId ?? "",
    ].join("\u0001");
    // Two findings at one place about one thing (rare) still get distinct identities.
    const n = seen.get(key) ?? 0;
    seen.set(key, n + 1);
    const hash = createHash("sha256").update(`${key}\u0001${n}`).digest("hex");
    return `${hash.slice(0, 32)}:${n + 1}`;
  });
}

export function renderSarif(
  report: AnyReport,
  ctx: { sources: ReadonlyMap<string, string> } = { sources: new Map() },
): string {
  const codes = ruleCodes(report);
  const index = new Map(codes.map((c, i) => [c, i]));
  const rules = codes.map((code) => {
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
  const issues = reportIssues(report);
  const prints = fingerprints(issues, ctx.sources);
  const results = issues.map((issue, i) => ({
    ruleId: issue.code,
    ruleIndex: index.get(issue.code) ?? -1,
    level: issue.level,
    message: { text: issue.message },
    ...(issue.path === null
      ? {}
      : {
          locations: [
            {
              physicalLocation: {
                artifactLocation: { uri: pathToUri(issue.path) },
                ...(issue.line === null
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
        }),
    partialFingerprints: { [FINGERPRINT_KEY]: prints[i] as string },
    properties: {
      gate: issue.gate,
      ...(issue.testId === undefined ? {} : { testId: issue.testId }),
      ...(issue.propertyId === undefined ? {} : { propertyId: issue.propertyId }),
      ...(issue.tests.length > 0 ? { tests: issue.tests } : {}),
    },
  }));
  const audit = auditOf(report);
  const verdict = verdictSentence(report);
  const exitCode = isCheckReport(report) ? report.exitCode : report.gate.exitCode;
  const sarif = {
    $schema: SARIF_SCHEMA_URI,
    version: "2.1.0",
    runs: [
      {
        tool: {
          driver: {
            name: "freezegate",
            version: report.tool.version,
            informationUri: INFORMATION_URI,
            rules,
          },
        },
        invocations: [
          {
            executionSuccessful: true,
            exitCode,
            exitCodeDescription: `${verdict.passed ? "pass" : "fail"}: ${verdict.text}`,
          },
        ],
        columnKind: "unicodeCodePoints",
        results,
        properties: {
          report: report.schema,
          passed: verdict.passed,
          shadowRatio: audit.summary.shadowRatio,
          counts: audit.summary.counts,
        },
      },
    ],
  };
  return `${JSON.stringify(sarif, null, 2)}\n`;
}
