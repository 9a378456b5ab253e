// Human-readable audit report: per file, the lines that need attention (each shadowed line
// with the frozen tests behind it), then a summary with the shadow ratio and the gate verdict.
// Defended and not-code lines are counted, not listed: they need no action. Colour (for a
// terminal) only wraps words in escape codes: with colour off the text is byte for byte the
// plain report, which golden files and scripts rely on.

import { isAbsolute, posix } from "node:path";
import type { Verdict } from "../core/shadow-audit.js";
import type { AuditReport } from "./audit-report.js";
import type { CheckReport } from "./check-report.js";
import { type LineRun, lineRuns, sameVerdictAndTests } from "./issues.js";
import {
  describePatch,
  jsonText,
  plural,
  recorderWords,
  SKIP_WORDS,
  sourceLines,
  visible,
} from "./words.js";

/** How words are painted: identity functions when colour is off. */
export interface Paint {
  bad(text: string): string;
  warn(text: string): string;
  good(text: string): string;
  strong(text: string): string;
  faint(text: string): string;
}

const sgr = (open: string, close: string) => (text: string) =>
  text === "" ? text : `\u001b[${open}m${text}\u001b[${close}m`;

const PLAIN: Paint = {
  bad: (t) => t,
  warn: (t) => t,
  good: (t) => t,
  strong: (t) => t,
  faint: (t) => t,
};

const ANSI: Paint = {
  bad: (t) => sgr("1", "22")(sgr("31", "39")(t)),
  warn: sgr("33", "39"),
  good: sgr("32", "39"),
  strong: sgr("1", "22"),
  faint: sgr("2", "22"),
};

export function paint(color: boolean): Paint {
  return color ? ANSI : PLAIN;
}

export interface TextOptions {
  /** ANSI colour for a terminal; off by default. */
  color?: boolean;
  /**
   * Where the user stands, as a repository path ("" for the root): the header names the
   * input files relative to it ("../.coverage" from tests/), as the user would type them.
   */
  directory?: string;
  /** Source text of each audited file (repository path -> text), for the shadowed lines. */
  sources?: ReadonlyMap<string, string>;
}

/** A report's repository path as seen from `directory`; absolute paths as they are. */
function fromUser(path: string, directory: string | undefined): string {
  if (!directory || isAbsolute(path)) return path;
  return posix.relative(directory, path) || ".";
}

/** "3", "3-5", "3-5, 9": consecutive line numbers folded into ranges. */
export function foldRanges(lines: readonly number[]): string {
  const parts: string[] = [];
  let start: number | null = null;
  let prev = 0;
  for (const n of lines) {
    if (start !== null && n === prev + 1) {
      prev = n;
      continue;
    }
    if (start !== null) parts.push(start === prev ? `${start}` : `${start}-${prev}`);
    start = n;
    prev = n;
  }
  if (start !== null) parts.push(start === prev ? `${start}` : `${start}-${prev}`);
  return parts.join(", ");
}

// Every string from the repository (paths, test ids, ledger text, reasons built from them)
// goes through visible(): one with a newline must not start a line of its own.
function listTests(tests: readonly string[], max = 5): string {
  const shown = tests.slice(0, max).map(visible).join(", ");
  return tests.length <= max ? shown : `${shown}, and ${tests.length - max} more`;
}

/** Source lines shown under a shadowed run; a longer run shows one less and counts the rest. */
export const SOURCE_LINES_SHOWN = 6;
/** Characters of a source line shown; the rest of a longer line is cut off ("…"). */
export const SOURCE_LINE_MAX = 160;

/**
 * The source of lines `from`-`to` under a run, as diff-cover shows its missing lines: each line
 * with its number, escaped as every repository string is (visible()), at most
 * SOURCE_LINES_SHOWN lines of at most SOURCE_LINE_MAX characters. Nothing without the text.
 */
function sourceExcerpt(
  lines: readonly string[] | null,
  from: number,
  to: number,
  p: Paint,
): string[] {
  if (lines === null) return [];
  const last = Math.min(to, lines.length);
  if (from > last) return [];
  const total = last - from + 1;
  const shown = total <= SOURCE_LINES_SHOWN ? total : SOURCE_LINES_SHOWN - 1;
  const width = String(from + shown - 1).length;
  const out: string[] = [];
  for (let n = from; n < from + shown; n++) {
    const chars = [...(lines[n - 1] ?? "")];
    const text =
      chars.length <= SOURCE_LINE_MAX
        ? chars.join("")
        : `${chars.slice(0, SOURCE_LINE_MAX).join("")}…`;
    out.push(`    ${p.faint(`${String(n).padStart(width)} |`)} ${visible(text)}`.trimEnd());
  }
  if (shown < total) {
    out.push(
      `    ${" ".repeat(width)}   … ${plural(total - shown, "more line")} (${from + shown}-${last})`,
    );
  }
  return out;
}

function fileSection(
  file: AuditReport["files"][number],
  source: string | undefined,
  p: Paint,
): string[] {
  const out: string[] = [];
  const by = (v: Verdict) => file.lines.filter((l) => l.verdict === v);
  const counts = (
    ["defended", "shadowed", "fixture-only", "uncovered", "unmeasured", "not-code"] as const
  )
    .map((v) => [v, by(v).length] as const)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => `${n} ${v}`);
  out.push(
    `${p.strong(visible(file.path))}${file.oldPath ? ` (from ${visible(file.oldPath)})` : ""}: ${counts.join(", ")}`,
  );
  // Runs of consecutive lines with one verdict and the same tests are one entry, as in every
  // other format; a shadowed run shows its source.
  const runsOf = (verdict: Verdict) =>
    lineRuns([file], (l) => (l.verdict === verdict ? sameVerdictAndTests(l) : null));
  const span = (run: LineRun) =>
    run.line === run.endLine ? `${run.line}` : `${run.line}-${run.endLine}`;
  const shadowed = runsOf("shadowed");
  // Split into lines only for a file with a run to show: most files of a patch have none.
  const lines = source === undefined || shadowed.length === 0 ? null : sourceLines(source);
  for (const run of shadowed) {
    out.push(
      `  ${p.bad("SHADOWED")} ${span(run)}: only frozen tests cover it: ${listTests(run.first.frozenTests)}`,
      ...sourceExcerpt(lines, run.line, run.endLine, p),
    );
  }
  for (const run of runsOf("fixture-only")) {
    const { fixtureTests, frozenTests } = run.first;
    out.push(
      `  ${p.warn("FIXTURE-ONLY")} ${span(run)}: run only in setup/teardown of ${listTests(fixtureTests)}${frozenTests.length ? `; frozen: ${listTests(frozenTests)}` : ""}`,
    );
  }
  const uncovered = by("uncovered");
  const atImport = uncovered.filter((l) => l.outsideTests).map((l) => l.line);
  const never = uncovered.filter((l) => !l.outsideTests).map((l) => l.line);
  // Two kinds of uncovered line, each one entry: the entry whose first line comes first is
  // listed first, so that lines read in file order within the verdict.
  const kinds = [
    { lines: never, why: "no test executed it" },
    { lines: atImport, why: "ran only outside tests (import time), no test executed it" },
  ]
    .filter((k) => k.lines.length > 0)
    .sort((a, b) => (a.lines[0] as number) - (b.lines[0] as number));
  for (const k of kinds) out.push(`  ${p.warn("UNCOVERED")} ${foldRanges(k.lines)}: ${k.why}`);
  const unmeasured = by("unmeasured").map((l) => l.line);
  if (unmeasured.length)
    out.push(
      `  ${p.warn("UNMEASURED")} ${foldRanges(unmeasured)}: file is not in the coverage data`,
    );
  return out;
}

export function renderText(report: AuditReport, options: TextOptions = {}): string {
  const p = paint(options.color === true);
  const out: string[] = [];
  const s = report.summary;
  out.push(
    `freezegate audit of ${visible(describePatch(report))}: ${plural(s.files, "file")}, ${plural(s.lines, "changed line")}`,
  );
  const c = report.coverage;
  out.push(
    `coverage: ${visible(c.dataFiles.map((f) => fromUser(f, options.directory)).join(", "))} (${visible(recorderWords(c))}, ${c.branch ? "branch" : "line"} data, ${plural(c.tests, "test")}); frozen: ${visible(fromUser(report.frozen.file, options.directory))} (${plural(report.frozen.tests.length, "test")})`,
  );
  if (report.frozen.unresolved.length) {
    out.push(
      `${p.warn("warning:")} frozen ids matching no test (allowed): ${listTests(report.frozen.unresolved)}`,
    );
  }
  for (const file of report.files) {
    out.push("");
    out.push(...fileSection(file, options.sources?.get(file.path), p));
  }
  if (report.skipped.length) {
    out.push("");
    out.push(
      `not audited: ${report.skipped.map((f) => `${visible(f.path)} (${SKIP_WORDS[f.reason] ?? f.reason})`).join(", ")}`,
    );
  }
  out.push("");
  const k = s.counts;
  const executed = k.defended + k["fixture-only"] + k.shadowed;
  const ratio =
    s.shadowRatio === null
      ? "n/a (no changed line was executed by a test)"
      : `${(s.shadowRatio * 100).toFixed(1)}% (${k.shadowed} of ${executed} executed lines)`;
  out.push(
    `summary: ${k.defended} defended, ${k.shadowed} shadowed, ${k["fixture-only"]} fixture-only, ${k.uncovered} uncovered, ${k.unmeasured} unmeasured, ${k["not-code"]} not code; shadow ratio ${ratio}`,
  );
  if (report.gate.passed) {
    out.push(passLine(report, p));
  } else {
    for (const reason of report.gate.reasons) out.push(`${p.bad("FAIL")}: ${visible(reason)}`);
  }
  return `${out.join("\n")}\n`;
}

/** The verdict of a passing audit; of an empty patch, that nothing was audited and why. */
function passLine(report: AuditReport, p: Paint): string {
  const empty = report.summary.emptyPatch;
  return empty === null
    ? `${p.good("PASS")}: no changed line fails the gate (fail on: ${report.gate.failOn.join(", ")})`
    : `${p.good("PASS")}: ${p.warn(visible(empty.message))}`;
}

/** --quiet: the audit's verdict on one line (several failing verdicts joined by "; "). */
export function renderAuditVerdict(report: AuditReport, options: TextOptions = {}): string {
  const p = paint(options.color === true);
  return report.gate.passed
    ? `${passLine(report, p)}\n`
    : `${p.bad("FAIL")}: ${visible(report.gate.reasons.join("; "))}\n`;
}

/** --quiet for check: the last line of the check's text report. */
export function renderCheckVerdict(report: CheckReport, options: TextOptions = {}): string {
  const p = paint(options.color === true);
  const n = report.failedGates.length;
  return report.passed
    ? `check: ${p.good("PASS")} (no blocking gate failed)\n`
    : `check: ${p.bad("FAIL")} (blocking gate${n === 1 ? "" : "s"} failed: ${report.failedGates.join(", ")})\n`;
}

const GATE_LINE = /^(shadow|shape|witness|deposit|lock|ledger-changes)( gate: )(.*)$/;
const FINDING_LINE = /^ {2}(error|warning|info)( +)(.*)$/;

function paintCheckLine(line: string, p: Paint): string {
  const gate = GATE_LINE.exec(line);
  if (gate) {
    const [, name, sep, verdict] = gate as unknown as [string, string, string, string];
    const painted = verdict.startsWith("FAILED")
      ? p.bad(verdict)
      : verdict.startsWith("failed")
        ? p.warn(verdict)
        : verdict.startsWith("passed")
          ? p.good(verdict)
          : p.faint(verdict);
    return `${p.strong(name)}${sep}${painted}`;
  }
  const finding = FINDING_LINE.exec(line);
  if (finding) {
    const [, severity, pad, rest] = finding as unknown as [string, string, string, string];
    const word =
      severity === "error" ? p.bad(severity) : severity === "warning" ? p.warn(severity) : severity;
    return `  ${word}${pad}${rest}`;
  }
  if (line === "check: PASS (no blocking gate failed)")
    return `check: ${p.good("PASS")}${line.slice(11)}`;
  if (line.startsWith("check: FAIL (")) return `check: ${p.bad("FAIL")}${line.slice(11)}`;
  return line;
}

/**
 * The check's text report (rendered by check-report.ts, which owns its wording) in colour: the
 * audit part is rendered again in colour, the gate lines after it are painted by the shapes of
 * the lines check-report.ts writes. Painting only adds escape codes around words already there:
 * stripped of them, the text is the plain report.
 */
export function paintCheckText(
  plain: string,
  report: CheckReport,
  options: Pick<TextOptions, "sources"> = {},
): string {
  const p = paint(true);
  const auditPlain = renderText(report.audit, options).trimEnd();
  if (!plain.startsWith(auditPlain)) return plain;
  const auditColored = renderText(report.audit, { ...options, color: true }).trimEnd();
  const tail = plain
    .slice(auditPlain.length)
    .split("\n")
    .map((line) => paintCheckLine(line, p));
  return `${auditColored}${tail.join("\n")}`;
}

export function renderJson(report: AuditReport): string {
  return jsonText(report);
}
