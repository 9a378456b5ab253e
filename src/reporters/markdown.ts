// The Markdown report, for pull-request comments and $GITHUB_STEP_SUMMARY (GitHub-flavoured
// Markdown): a one-line verdict, a table of counts, the shadowed lines with the frozen tests
// behind them, the gate findings; long lists folded in <details>.
//
// Paths, test ids and messages come from the repository, so none of it may turn into markup:
// ids and paths go into code spans (no HTML, emphasis or @mention is recognised there), free
// text is backslash-escaped, and a zero-width space after "@" keeps a test name from pinging
// someone. The only HTML is the <details> and <br> this module writes itself.

import { describeSource } from "../core/ledger.js";
import type { Verdict } from "../core/shadow-audit.js";
import type { AuditReport } from "./audit-report.js";
import { type CheckGateReport, type CheckReport, compensationSentences } from "./check-report.js";
import {
  type AnyReport,
  describePatch,
  type Issue,
  isCheckReport,
  lineRanges,
  lineRuns,
  reportIssueRanges,
  sameVerdictAndTests,
  verdictSentence,
} from "./issues.js";
import { collapseControls, plural, recorderWords } from "./words.js";

/** Rows of a long table shown before the rest is folded into <details>. */
export const ROWS_SHOWN = 10;
/** Rows inside one <details> at most: a PR comment holds 65,536 characters. */
export const ROWS_FOLDED = 200;

/** One line: control characters (newlines included) become spaces. */
function oneLine(text: string): string {
  return collapseControls(text).trim();
}

/** Free text from the repository as inert Markdown (safe in a table cell too). */
export function mdText(text: string): string {
  return oneLine(text)
    .replace(/[\\`*_[\]<>|&~]/g, (c) => `\\${c}`)
    .replace(/@/g, "@\u200b");
}

/**
 * A path or id as a code span that no content can break out of. In a table cell a "|" must be
 * written "\|" even inside a code span (GFM); anywhere else that would show the backslash.
 */
export function mdCode(text: string, inTable = true): string {
  const line = oneLine(text);
  const t = inTable ? line.replace(/\|/g, "\\|") : line;
  const runs = t.match(/`+/g) ?? [];
  const fence = "`".repeat(Math.max(0, ...runs.map((r) => r.length)) + 1);
  const pad = t.startsWith("`") || t.endsWith("`") || t === "" ? " " : "";
  return `${fence}${pad}${t}${pad}${fence}`;
}

function codes(items: readonly string[], max = 5): string {
  const shown = items.slice(0, max).map((t) => mdCode(t));
  const more = items.length - shown.length;
  return [...shown, ...(more > 0 ? [`and ${more} more`] : [])].join("<br>");
}

function table(header: readonly string[], align: readonly string[], rows: string[][]): string[] {
  return [
    `| ${header.join(" | ")} |`,
    `| ${align.join(" | ")} |`,
    ...rows.map((r) => `| ${r.join(" | ")} |`),
  ];
}

/** A table whose rows past ROWS_SHOWN fold into <details> (and past ROWS_FOLDED are counted). */
function foldedTable(
  header: readonly string[],
  align: readonly string[],
  rows: string[][],
  what: string,
): string[] {
  const out = table(header, align, rows.slice(0, ROWS_SHOWN));
  const rest = rows.slice(ROWS_SHOWN);
  if (rest.length === 0) return out;
  const folded = rest.slice(0, ROWS_FOLDED);
  out.push("", `<details><summary>${rest.length} more ${what}</summary>`, "");
  out.push(...table(header, align, folded));
  if (rest.length > folded.length) {
    out.push("", `… and ${rest.length - folded.length} more: see the text or JSON report.`);
  }
  out.push("", "</details>");
  return out;
}

function lineSpan(issue: Pick<Issue, "line" | "endLine">): string {
  if (issue.line === null) return "";
  return issue.line === issue.endLine ? `${issue.line}` : `${issue.line}-${issue.endLine}`;
}

const COUNT_ROWS: ReadonlyArray<[Verdict, string]> = [
  ["defended", "defended"],
  ["shadowed", "shadowed"],
  ["fixture-only", "fixture-only"],
  ["uncovered", "uncovered"],
  ["unmeasured", "unmeasured"],
  ["not-code", "not code"],
];

const WHY: Record<Exclude<Verdict, "defended" | "not-code" | "shadowed">, string> = {
  "fixture-only": "executed only in the setup/teardown of",
  uncovered: "executed by no test",
  unmeasured: "the file is not in the coverage data",
};

const SKIP_WORDS: Record<AuditReport["skipped"][number]["reason"], string> = {
  "test-file": "a test file",
  "not-source": "not a source file",
  deleted: "deleted",
  binary: "binary",
  submodule: "a submodule",
  "no-lines": "no added lines",
};

function auditContext(audit: AuditReport): string {
  const p = audit.patch;
  const base =
    p.source === "range"
      ? `${mdCode(describePatch(audit), false)} (merge base ${mdCode(p.mergeBase.slice(0, 12), false)})`
      : p.source === "diff"
        ? `the diff ${mdCode(p.file, false)}`
        : describePatch(audit);
  const c = audit.coverage;
  return [
    `Patch ${base}: ${plural(audit.summary.files, "file")}, ${plural(audit.summary.lines, "changed line")}`,
    `${mdText(recorderWords(c))}, ${c.branch ? "branch" : "line"} data, ${plural(c.tests, "test")}`,
    `frozen: ${mdCode(audit.frozen.file, false)} (${plural(audit.frozen.tests.length, "test")})`,
  ].join(" · ");
}

function auditBody(audit: AuditReport, shadowIssues: readonly Issue[]): string[] {
  const out: string[] = [auditContext(audit), ""];
  const failOn = new Set<string>(audit.gate.failOn);
  const k = audit.summary.counts;
  out.push(
    ...table(
      ["Verdict", "Changed lines"],
      [":--", "--:"],
      [
        ...COUNT_ROWS.map(([v, label]) => [
          failOn.has(v) && k[v] > 0 ? `**${label}** (fails the gate)` : label,
          `${k[v]}`,
        ]),
        ["**total**", `**${audit.summary.lines}**`],
      ],
    ),
  );
  const executed = k.defended + k["fixture-only"] + k.shadowed;
  out.push(
    "",
    audit.summary.shadowRatio === null
      ? "Shadow ratio: n/a (no changed line was executed by a test)"
      : `Shadow ratio: **${(audit.summary.shadowRatio * 100).toFixed(1)}%** (${k.shadowed} of ${executed} executed changed lines are executed only by frozen tests)`,
  );
  if (audit.frozen.unresolved.length > 0) {
    out.push(
      "",
      `⚠️ Frozen ids matching no test (allowed): ${audit.frozen.unresolved.map((t) => mdCode(t, false)).join(", ")}`,
    );
  }

  const shadowed = shadowIssues.filter((i) => i.code === "shadowed-line");
  if (shadowed.length > 0) {
    out.push("", `#### Shadowed lines (${k.shadowed})`, "");
    out.push(
      ...foldedTable(
        ["File", "Lines", "Frozen tests that execute them"],
        [":--", ":--", ":--"],
        shadowed.map((i) => [mdCode(i.path ?? ""), lineSpan(i), codes(i.tests)]),
        "shadowed ranges",
      ),
    );
  }

  const others: string[][] = [];
  for (const verdict of ["fixture-only", "uncovered", "unmeasured"] as const) {
    const runs = lineRuns(audit.files, (l) =>
      l.verdict === verdict ? sameVerdictAndTests(l) : null,
    );
    for (const run of runs) {
      const why =
        verdict === "fixture-only"
          ? `${WHY[verdict]} ${codes(run.first.fixtureTests, 3).replace(/<br>/g, ", ")}`
          : verdict === "uncovered" && run.first.outsideTests
            ? `${WHY[verdict]}, only by code outside tests (import time)`
            : WHY[verdict];
      others.push([
        mdCode(run.path),
        lineSpan(run),
        failOn.has(verdict) ? `**${verdict}**` : verdict,
        why,
      ]);
    }
  }
  if (others.length > 0) {
    const n = k["fixture-only"] + k.uncovered + k.unmeasured;
    const table2 = foldedTable(
      ["File", "Lines", "Verdict", "Why"],
      [":--", ":--", ":--", ":--"],
      others,
      "ranges",
    );
    out.push("", `<details><summary>${plural(n, "other changed line")} to look at</summary>`, "");
    out.push(...table2, "", "</details>");
  }
  if (audit.skipped.length > 0) {
    out.push(
      "",
      `<details><summary>${plural(audit.skipped.length, "changed file")} not audited</summary>`,
      "",
      ...foldedTable(
        ["File", "Why"],
        [":--", ":--"],
        audit.skipped.map((s) => [mdCode(s.path), SKIP_WORDS[s.reason]]),
        "files",
      ),
      "",
      "</details>",
    );
  }
  return out;
}

function gateResult(g: CheckGateReport): string {
  if (!g.ran) return `⏭️ skipped: ${mdText(g.skippedBecause ?? "not needed")}`;
  if (g.passed) return "✅ passed";
  return g.blocking ? "❌ failed" : "⚠️ failed, not blocking";
}

function gateTable(report: CheckReport): string[] {
  return table(
    ["Gate", "Blocking", "Result", "Errors", "Warnings", "Records"],
    [":--", ":-:", ":--", "--:", "--:", "--:"],
    report.gates.map((g) => {
      const n = (s: string) => `${g.findings.filter((f) => f.severity === s).length}`;
      return [
        g.gate,
        g.blocking ? "yes" : "no",
        gateResult(g),
        n("error"),
        n("warning"),
        n("info"),
      ];
    }),
  );
}

const LEVEL_MARK = { error: "❌", warning: "⚠️", note: "ℹ️" } as const;

function findingsSection(report: CheckReport, issues: readonly Issue[]): string[] {
  const out: string[] = [];
  for (const g of report.gates) {
    if (g.gate === "shadow") continue;
    const mine = issues.filter((i) => i.gate === g.gate);
    if (mine.length === 0) continue;
    const errors = g.findings.filter((f) => f.severity === "error").length;
    const tally = [
      errors > 0 ? plural(errors, "error") : "",
      mine.length > errors ? plural(mine.length - errors, "other finding") : "",
    ].filter((s) => s !== "");
    out.push(
      "",
      `#### ${g.gate} gate (${g.blocking ? "blocking" : "not blocking"}): ${tally.join(", ")}`,
      "",
    );
    out.push(
      ...foldedTable(
        ["", "Code", "About", "Finding"],
        [":-:", ":--", ":--", ":--"],
        mine.map((i) => [
          LEVEL_MARK[i.level],
          `${i.code}`,
          i.testId !== undefined
            ? mdCode(i.testId)
            : i.propertyId !== undefined
              ? mdCode(i.propertyId)
              : i.path !== null
                ? `${mdCode(i.path)}${i.line === null ? "" : `:${lineSpan(i)}`}`
                : "",
          mdText(i.message),
        ]),
        "findings",
      ),
    );
  }
  return out;
}

export function renderMarkdown(report: AnyReport): string {
  const verdict = verdictSentence(report);
  const mark = verdict.passed ? "✅" : "❌";
  const word = verdict.passed ? "PASS" : "FAIL";
  const out: string[] = [];
  const issues = reportIssueRanges(report);
  if (isCheckReport(report)) {
    out.push(`### ${mark} freezegate check: ${word} — ${mdText(verdict.text)}`, "");
    out.push(...gateTable(report), "");
    const l = report.ledger;
    out.push(
      `Ledger ${mdCode(l.file, false)} (${mdText(describeSource(l.format))}; ${plural(l.freezes, "freeze")}, ${plural(l.properties, "property", "properties")}), judged on ${mdText(report.today)}; known tests: ${mdText(report.knownTests)}`,
    );
    const compensation = compensationSentences(report);
    if (compensation.length > 0) {
      out.push("", ...compensation.map((sentence) => `- ${mdText(sentence)}`));
    }
    out.push("", "#### Shadow audit", "");
    const empty = report.audit.summary.emptyPatch;
    if (empty !== null) out.push(`⚠️ ${mdText(empty.message)}`, "");
    out.push(...auditBody(report.audit, issues));
    out.push(...findingsSection(report, issues));
  } else {
    out.push(`### ${mark} freezegate audit: ${word} — ${mdText(verdict.text)}`, "");
    out.push(...auditBody(report, lineRanges(report)));
  }
  out.push("", `<sub>freezegate ${mdText(report.tool.version)}</sub>`);
  return `${out.join("\n")}\n`;
}
