// Small phrases every human-readable format shares, so they read the same everywhere.

import type { EmptyPatchReason } from "../app/empty-patch.js";
import type { SkipReason } from "../core/shadow-audit.js";
import type { AuditReport } from "./audit-report.js";

/** Why a changed file was not audited, in a few words (text and HTML reports). */
export const SKIP_WORDS: Record<SkipReason, string> = {
  "test-file": "test file",
  "not-source": "not source",
  deleted: "deleted",
  binary: "binary",
  submodule: "submodule",
  "no-lines": "no added lines",
};

/**
 * The tool that recorded the data, with its version: "coverage.py 7.4.1" for coverage.py's
 * data, "Vitest 4.1.0" for freezegate's Vitest data (its coverageVersion is Vitest's).
 */
export function recorderWords(coverage: AuditReport["coverage"]): string {
  const tool = coverage.format === "freezegate-vitest-coverage" ? "Vitest" : "coverage.py";
  return `${tool} ${coverage.coverageVersion ?? "?"}`;
}

/** "1 file", "2 files", "3 properties" (with `many`). */
export function plural(n: number, word: string, many = `${word}s`): string {
  return `${n} ${n === 1 ? word : many}`;
}

/** Which patch was audited: "base...HEAD (merge base 1f0c3a9b2d4e)", "staged changes", ... */
export function describePatch(report: AuditReport, { mergeBase = true } = {}): string {
  const p = report.patch;
  switch (p.source) {
    case "range":
      return mergeBase
        ? `${p.base}...${p.head} (merge base ${p.mergeBase.slice(0, 12)})`
        : `${p.base}...${p.head}`;
    case "diff":
      return `diff ${p.file}`;
    case "staged":
      return "staged changes";
    case "worktree":
      return "work tree against HEAD";
  }
}

/**
 * The sentence every format shows when the patch changes no file: nothing was audited, and
 * why, so that an empty range (a base that is the commit under test) never reads as a pass of
 * the patch.
 */
export function emptyPatchSentence(reason: EmptyPatchReason, patch: AuditReport["patch"]): string {
  if (patch.source !== "range") {
    const what =
      patch.source === "staged"
        ? "nothing is staged"
        : patch.source === "worktree"
          ? "the work tree has no changes against HEAD"
          : `${patch.file === "-" ? "the diff on stdin" : `the diff ${patch.file}`} changes no file`;
    return `nothing was audited: ${what}`;
  }
  const range = `${patch.base}...${patch.head}`;
  const at = patch.mergeBase.slice(0, 12);
  switch (reason) {
    case "base-is-head":
      return `nothing was audited: the base ${patch.base} is ${patch.head}'s own commit (${at}), so ${range} holds no change; check that the base names the branch the patch is for (an unset or wrong CI variable?)`;
    case "merge-base-is-head":
      return `nothing was audited: ${patch.head} (${at}) is already in the history of the base ${patch.base}, so ${range} holds no change; check that the base names the branch the patch is for, not a later commit`;
    case "no-changes":
      return `nothing was audited: ${range} changes no file (the commits since the merge base ${at} add up to no change)`;
  }
}

/** A file's text as its lines (without line ends; no empty last line for a final newline). */
export function sourceLines(text: string): string[] {
  const lines = text.split("\n").map((l) => (l.endsWith("\r") ? l.slice(0, -1) : l));
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * Control characters (C0 with tab, newline and CR; DEL; C1, NEL among them) and the Unicode
 * line and paragraph separators: file names, test ids and ledger strings come from the
 * patch, and one of these in them would start a new output line, e.g. a `::error ...` that
 * GitHub Actions runs as a workflow command, or paint the terminal.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
// biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
const CONTROL_RUNS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]+/g;

const ESCAPES: Record<string, string> = { "\n": "\\n", "\r": "\\r", "\t": "\\t" };

/**
 * Workflow commands that need no newline: GitHub's runner falls back to its legacy parser
 * (`##[name ...]data`) anywhere in a log line, and Azure Pipelines runs `##vso[...]` anywhere
 * in one; both also run a line that starts with `::name` (after blanks). A string from the
 * repository gets a backslash that breaks the marker and reads as an escape: `##\[`,
 * `##vso\[`, and `\::` for a leading `::`.
 */
const COMMAND_MARKS = /##(vso)?\[/gi;
const LEADING_COMMAND = /^(\s*)::/u;

function inert(text: string): string {
  return text
    .replace(COMMAND_MARKS, (mark) => `${mark.slice(0, -1)}\\[`)
    .replace(LEADING_COMMAND, "$1\\::");
}

/**
 * A string from the repository made safe inside one line of plain text: every control
 * character is written as a visible escape (`\n`, `\r`, `\t`, else `\u001b`), so the line
 * stays one line and says what was there, and workflow-command markers are broken (see
 * COMMAND_MARKS). Other text is unchanged.
 */
export function visible(text: string): string {
  return inert(
    text.replace(
      CONTROLS,
      (c) => ESCAPES[c] ?? `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`,
    ),
  );
}

/**
 * One line for formats that have no escape of their own (Markdown, log lines): runs become a
 * space, and workflow-command markers are broken as in visible().
 */
export function collapseControls(text: string): string {
  return inert(text.replace(CONTROL_RUNS, " "));
}

/**
 * A JSON document (2-space indent) whose text holds no workflow-command marker: printed on
 * stdout it is a CI log too. `#` inside a marker is written `\u0023`, which parses to the
 * same string, so the document's value is exactly `JSON.stringify`'s.
 */
export function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2).replace(/(?<=#)#(?=(vso)?\[)/gi, "\\u0023")}\n`;
}
