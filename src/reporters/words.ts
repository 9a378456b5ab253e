// Small phrases every human-readable format shares, so they read the same everywhere.

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
