// GitHub Actions annotations: workflow commands (`::error file=…,line=…,title=…::message`) that
// a workflow step prints to put the report's problems on the pull request's changed lines.
//
// GitHub's limits (actions/toolkit docs/problem-matchers.md): a step shows at most 10 error
// and 10 warning annotations (and 50 per job); the rest are dropped silently. So runs of lines
// become one ranged annotation, and when a level has more than 10 the 10th says how many were
// left out (the 9 shown are the most important: shadowed lines, then errors, then the rest);
// every problem is still listed as plain log lines after the annotations.
//
// Strings from the repository are escaped as in the text report (visible() in words.ts): a
// control character (ESC, TAB, a newline) is written as a visible escape (`\u001b`, `\t`, `\n`)
// and `##[` gets a backslash, in the annotations' properties and messages and in the plain log
// lines alike, so a test name can never start a workflow command of its own or paint the log.
// On top of that, annotations follow actions/toolkit's command.ts: "%", CR and LF escaped in
// the message; also ":" and "," in property values.

import { compensationSentences } from "./check-report.js";
import {
  type AnyReport,
  auditOf,
  byImportance,
  codeInfo,
  type Issue,
  isCheckReport,
  type Level,
  reportIssueRanges,
  verdictSentence,
} from "./issues.js";
import { visible } from "./words.js";

/** Annotations of one level that GitHub shows per step. */
export const ANNOTATIONS_PER_LEVEL = 10;
/** The Checks API caps an annotation title at 255 characters. */
export const TITLE_MAX = 255;
/** Messages are cut well below the Checks API's 64 KB: an annotation is read at a glance. */
export const MESSAGE_MAX = 4000;

const COMMAND: Record<Level, string> = { error: "error", warning: "warning", note: "notice" };

function cut(text: string, max: number): string {
  const chars = [...text];
  return chars.length <= max ? text : `${chars.slice(0, max - 1).join("")}…`;
}

/** Workflow-command data (the message). */
export function escapeData(text: string): string {
  return text.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A");
}

/** Workflow-command property values (file, title). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, "%3A").replace(/,/g, "%2C");
}

/** One workflow command, its properties and message escaped. */
export function command(
  level: Level,
  props: Array<[string, string | number]>,
  message: string,
): string {
  const list = props.map(([k, v]) => `${k}=${escapeProperty(visible(String(v)))}`).join(",");
  return `::${COMMAND[level]}${list === "" ? "" : ` ${list}`}::${escapeData(cut(visible(message), MESSAGE_MAX))}`;
}

function annotation(issue: Issue): string {
  const props: Array<[string, string | number]> = [];
  if (issue.path !== null) props.push(["file", issue.path]);
  if (issue.line !== null) {
    props.push(["line", issue.line]);
    if (issue.endLine !== null && issue.endLine !== issue.line)
      props.push(["endLine", issue.endLine]);
  }
  props.push(["title", cut(`freezegate: ${codeInfo(issue.code).title}`, TITLE_MAX)]);
  return command(issue.level, props, issue.message);
}

/** A plain log line: one line whatever the repository put in it. */
function logLine(text: string): string {
  return visible(text);
}

function where(issue: Issue): string {
  if (issue.path === null) return "";
  if (issue.line === null) return `${issue.path}: `;
  const span = issue.line === issue.endLine ? `${issue.line}` : `${issue.line}-${issue.endLine}`;
  return `${issue.path}:${span}: `;
}

const LEVEL_WORD: Record<Level, string> = { error: "errors", warning: "warnings", note: "notices" };

export function renderGithub(report: AnyReport): string {
  const issues = reportIssueRanges(report);
  const out: string[] = [];
  // An empty patch passes, but a run that audited nothing must not look green on the pull
  // request: the first warning says so, within the warnings' budget.
  const empty = auditOf(report).summary.emptyPatch;
  const first = {
    error: [] as string[],
    warning:
      empty === null
        ? []
        : [command("warning", [["title", "freezegate: nothing audited"]], empty.message)],
    note: [] as string[],
  };
  for (const level of ["error", "warning", "note"] as const) {
    out.push(...first[level]);
    const budget = ANNOTATIONS_PER_LEVEL - first[level].length;
    // The budget goes to what matters most: a shadowed line must not lose its annotation to
    // a dozen unmeasured files whose paths sort first.
    const mine = byImportance(issues.filter((i) => i.level === level));
    if (mine.length <= budget) {
      out.push(...mine.map(annotation));
      continue;
    }
    const shown = mine.slice(0, budget - 1);
    out.push(...shown.map(annotation));
    const rest = mine.length - shown.length;
    out.push(
      command(
        level,
        [["title", `freezegate: ${rest} more ${LEVEL_WORD[level]}`]],
        `${rest} more ${LEVEL_WORD[level]} not annotated (GitHub shows ${ANNOTATIONS_PER_LEVEL} per step); all ${mine.length} are listed in this step's log`,
      ),
    );
  }
  const verdict = verdictSentence(report);
  const kind = isCheckReport(report) ? "check" : "audit";
  out.push(logLine(`freezegate ${kind}: ${verdict.passed ? "PASS" : "FAIL"}: ${verdict.text}`));
  if (isCheckReport(report)) {
    for (const sentence of compensationSentences(report)) out.push(logLine(`  ${sentence}`));
  }
  for (const level of ["error", "warning", "note"] as const) {
    for (const issue of issues.filter((i) => i.level === level)) {
      out.push(logLine(`  ${level.padEnd(7)} ${issue.code}: ${where(issue)}${issue.message}`));
    }
  }
  return `${out.join("\n")}\n`;
}
