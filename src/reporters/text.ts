// Human-readable audit report: per file, the lines that need attention (each shadowed line
// with the frozen tests behind it), then a summary with the shadow ratio and the gate verdict.
// Defended and not-code lines are counted, not listed: they need no action.

import type { LineResult, Verdict } from "../core/shadow-audit.js";
import type { AuditReport } from "./audit-report.js";

const SKIP_WORDS: Record<string, string> = {
  "test-file": "test file",
  "not-source": "not source",
  deleted: "deleted",
  binary: "binary",
  submodule: "submodule",
  "no-lines": "no added lines",
};

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

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? "" : "s"}`;
}

function describePatch(report: AuditReport): string {
  const p = report.patch;
  switch (p.source) {
    case "range":
      return `${p.base}...${p.head} (merge base ${p.mergeBase.slice(0, 12)})`;
    case "diff":
      return `diff ${p.file}`;
    case "staged":
      return "staged changes";
    case "worktree":
      return "work tree against HEAD";
  }
}

function listTests(tests: readonly string[], max = 5): string {
  if (tests.length <= max) return tests.join(", ");
  return `${tests.slice(0, max).join(", ")}, and ${tests.length - max} more`;
}

function fileSection(file: AuditReport["files"][number]): string[] {
  const out: string[] = [];
  const by = (v: Verdict) => file.lines.filter((l) => l.verdict === v);
  const counts = (
    ["defended", "shadowed", "fixture-only", "uncovered", "unmeasured", "not-code"] as const
  )
    .map((v) => [v, by(v).length] as const)
    .filter(([, n]) => n > 0)
    .map(([v, n]) => `${n} ${v}`);
  out.push(`${file.path}${file.oldPath ? ` (from ${file.oldPath})` : ""}: ${counts.join(", ")}`);
  // Shadowed lines that share a statement and the same frozen tests are shown together.
  const shadowed = by("shadowed");
  const groups = new Map<string, LineResult[]>();
  for (const line of shadowed) {
    const key = `${line.statement}\u0000${line.frozenTests.join("\u0000")}`;
    const group = groups.get(key);
    if (group) group.push(line);
    else groups.set(key, [line]);
  }
  for (const group of groups.values()) {
    const first = group[0] as LineResult;
    out.push(
      `  SHADOWED ${foldRanges(group.map((l) => l.line))}: only frozen tests cover it: ${listTests(first.frozenTests)}`,
    );
  }
  const fixture = by("fixture-only");
  for (const line of fixture) {
    out.push(
      `  FIXTURE-ONLY ${line.line}: run only in setup/teardown of ${listTests(line.fixtureTests)}${line.frozenTests.length ? `; frozen: ${listTests(line.frozenTests)}` : ""}`,
    );
  }
  const uncovered = by("uncovered");
  const atImport = uncovered.filter((l) => l.outsideTests).map((l) => l.line);
  const never = uncovered.filter((l) => !l.outsideTests).map((l) => l.line);
  if (never.length) out.push(`  UNCOVERED ${foldRanges(never)}: no test executed it`);
  if (atImport.length) {
    out.push(
      `  UNCOVERED ${foldRanges(atImport)}: ran only outside tests (import time), no test executed it`,
    );
  }
  const unmeasured = by("unmeasured").map((l) => l.line);
  if (unmeasured.length)
    out.push(`  UNMEASURED ${foldRanges(unmeasured)}: file is not in the coverage data`);
  return out;
}

export function renderText(report: AuditReport): string {
  const out: string[] = [];
  const s = report.summary;
  out.push(
    `freezegate audit of ${describePatch(report)}: ${plural(s.files, "file")}, ${plural(s.lines, "changed line")}`,
  );
  const c = report.coverage;
  out.push(
    `coverage: ${c.dataFiles.join(", ")} (coverage.py ${c.coverageVersion ?? "?"}, ${c.branch ? "branch" : "line"} data, ${plural(c.tests, "test")}); frozen: ${report.frozen.file} (${plural(report.frozen.tests.length, "test")})`,
  );
  if (report.frozen.unresolved.length) {
    out.push(
      `warning: frozen ids matching no test (allowed): ${listTests(report.frozen.unresolved)}`,
    );
  }
  for (const file of report.files) {
    out.push("");
    out.push(...fileSection(file));
  }
  if (report.skipped.length) {
    out.push("");
    out.push(
      `not audited: ${report.skipped.map((f) => `${f.path} (${SKIP_WORDS[f.reason] ?? f.reason})`).join(", ")}`,
    );
  }
  out.push("");
  const k = s.counts;
  const executed = k.defended + k["fixture-only"] + k.shadowed;
  const ratio =
    s.shadowRatio === null
      ? "no changed line was executed by a test"
      : `${(s.shadowRatio * 100).toFixed(1)}% (${k.shadowed} of ${executed} executed lines)`;
  out.push(
    `summary: ${k.defended} defended, ${k.shadowed} shadowed, ${k["fixture-only"]} fixture-only, ${k.uncovered} uncovered, ${k.unmeasured} unmeasured, ${k["not-code"]} not code; shadow ratio ${ratio}`,
  );
  if (report.gate.passed) {
    out.push(`PASS: no changed line fails the gate (fail on: ${report.gate.failOn.join(", ")})`);
  } else {
    for (const reason of report.gate.reasons) out.push(`FAIL: ${reason}`);
  }
  return `${out.join("\n")}\n`;
}

export function renderJson(report: AuditReport): string {
  return `${JSON.stringify(report, null, 2)}\n`;
}
