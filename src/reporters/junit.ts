// JUnit XML, for CI systems that show test results (GitLab's test report, Jenkins, Azure):
// the audit is one testcase; a check is one testcase per gate (the shadow gate is the audit).
// A blocking gate with errors is a <failure> listing its findings; a non-blocking one passes
// with its findings in <system-out>; a gate that did not run is <skipped>. No timestamps or
// durations: the same report gives the same bytes.
//
// XML 1.0 cannot carry most control characters even as references, so they are replaced
// (U+FFFD) before escaping; a test name cannot break the document.

import type { CheckGateReport } from "./check-report.js";
import {
  type AnyReport,
  type Issue,
  isCheckReport,
  reportIssueRanges,
  verdictSentence,
} from "./issues.js";

/** Text as XML character data or attribute value. */
export function escapeXml(text: string): string {
  return (
    text
      // biome-ignore lint/suspicious/noControlCharactersInRegex: XML 1.0 forbids these
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, "\ufffd")
      .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, "\ufffd")
      .replace(/&/g, "&amp;")
      .replace(/</g, "&lt;")
      .replace(/>/g, "&gt;")
      .replace(/"/g, "&quot;")
      .replace(/'/g, "&apos;")
  );
}

function attrs(values: Record<string, string | number>): string {
  return Object.entries(values)
    .map(([k, v]) => ` ${k}="${escapeXml(String(v))}"`)
    .join("");
}

function where(issue: Issue): string {
  if (issue.path === null) return "";
  if (issue.line === null) return `${issue.path}: `;
  const span = issue.line === issue.endLine ? `${issue.line}` : `${issue.line}-${issue.endLine}`;
  return `${issue.path}:${span}: `;
}

function issueLines(issues: readonly Issue[]): string {
  return issues
    .map((i) => `${i.level} ${i.code}: ${where(i)}${i.message.replace(/[\r\n]+/g, " ")}`)
    .join("\n");
}

interface Case {
  name: string;
  /** failure: the build fails on it; skipped: it did not run. */
  state: "passed" | "failure" | "skipped";
  summary: string;
  issues: Issue[];
  notes: string[];
}

function caseXml(c: Case): string[] {
  const open = `    <testcase${attrs({ classname: "freezegate", name: c.name })}`;
  const body: string[] = [];
  if (c.state === "failure") {
    const first = c.issues.find((i) => i.level === "error");
    body.push(
      `      <failure${attrs({ message: c.summary, type: first?.code ?? "failed" })}>${escapeXml(issueLines(c.issues))}</failure>`,
    );
  } else if (c.state === "skipped") {
    body.push(`      <skipped${attrs({ message: c.summary })}/>`);
  }
  const out = [
    ...(c.state !== "failure" && c.issues.length > 0 ? [issueLines(c.issues)] : []),
    ...c.notes.map((n) => `note: ${n}`),
  ];
  if (out.length > 0) body.push(`      <system-out>${escapeXml(out.join("\n"))}</system-out>`);
  return body.length === 0 ? [`${open}/>`] : [`${open}>`, ...body, "    </testcase>"];
}

function gateCase(g: CheckGateReport, issues: readonly Issue[], empty: string | null): Case {
  const mine = issues.filter((i) => i.gate === g.gate);
  const errors = g.findings.filter((f) => f.severity === "error").length;
  const name = `${g.gate} gate`;
  // A patch that changes no file leaves the shadow gate nothing to judge: skipped, with why.
  if (g.gate === "shadow" && empty !== null && errors === 0) {
    return { name, state: "skipped", summary: empty, issues: mine, notes: g.notes };
  }
  if (!g.ran) {
    return {
      name,
      state: "skipped",
      summary: g.skippedBecause ?? "not needed",
      issues: [],
      notes: g.notes,
    };
  }
  if (errors > 0 && g.blocking) {
    return {
      name,
      state: "failure",
      summary: `${errors} error${errors === 1 ? "" : "s"}`,
      issues: mine,
      notes: g.notes,
    };
  }
  return {
    name,
    state: "passed",
    summary: errors > 0 ? "failed, not blocking" : "passed",
    issues: mine,
    notes: errors > 0 ? [`failed, not blocking (${errors} errors)`, ...g.notes] : g.notes,
  };
}

export function renderJunit(report: AnyReport): string {
  const issues = reportIssueRanges(report);
  let cases: Case[];
  let suite: string;
  if (isCheckReport(report)) {
    suite = "freezegate check";
    const empty = report.audit.summary.emptyPatch?.message ?? null;
    cases = report.gates.map((g) => gateCase(g, issues, empty));
  } else {
    suite = "freezegate audit";
    cases = [
      {
        name: "shadow audit",
        state:
          report.summary.emptyPatch !== null
            ? "skipped"
            : report.gate.passed
              ? "passed"
              : "failure",
        summary: verdictSentence(report).text,
        issues,
        notes: [],
      },
    ];
  }
  const count = (s: Case["state"]) => cases.filter((c) => c.state === s).length;
  const totals = {
    tests: cases.length,
    failures: count("failure"),
    errors: 0,
    skipped: count("skipped"),
  };
  return `${[
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites${attrs({ name: "freezegate", ...totals })}>`,
    `  <testsuite${attrs({ name: suite, ...totals })}>`,
    ...cases.flatMap(caseXml),
    "  </testsuite>",
    "</testsuites>",
  ].join("\n")}\n`;
}
