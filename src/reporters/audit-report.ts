// The audit's result object: the versioned JSON contract (docs/json-contract.md,
// schema/audit-report.schema.json). Every format renders this object and nothing else, so no
// two formats can disagree. Changing a field's meaning or removing one bumps schemaVersion;
// adding a field does not.

import { relative } from "node:path";
import type { EmptyPatchReason } from "../app/empty-patch.js";
import type { AuditRun } from "../app/run-audit.js";
import type {
  FailableVerdict,
  LineResult,
  SkipReason,
  VerdictCounts,
} from "../core/shadow-audit.js";
import { emptyPatchSentence } from "./words.js";

export const AUDIT_SCHEMA_VERSION = 1;

export interface AuditReport {
  schema: "freezegate/audit";
  schemaVersion: typeof AUDIT_SCHEMA_VERSION;
  tool: { name: "freezegate"; version: string };
  gate: { passed: boolean; exitCode: 0 | 1; failOn: FailableVerdict[]; reasons: string[] };
  patch:
    | { source: "range"; base: string; head: string; mergeBase: string }
    | { source: "staged" }
    | { source: "worktree" }
    | { source: "diff"; file: string };
  coverage: {
    format: string;
    dataFiles: string[];
    coverageVersion: string | null;
    branch: boolean;
    recordedAt: string | null;
    contextStyle: string;
    tests: number;
  };
  frozen: {
    file: string;
    format: string;
    entries: number;
    tests: string[];
    unresolved: string[];
  };
  summary: {
    files: number;
    lines: number;
    counts: VerdictCounts;
    shadowRatio: number | null;
    /** null when the patch changes a file; else why nothing was audited, in a sentence. */
    emptyPatch: { reason: EmptyPatchReason; message: string } | null;
  };
  files: Array<{
    path: string;
    oldPath: string | null;
    status: string;
    measured: boolean;
    lines: LineResult[];
  }>;
  skipped: Array<{ path: string; reason: SkipReason }>;
}

function rel(root: string, path: string): string {
  const r = relative(root, path);
  return r === "" || r.startsWith("..") ? path : r.split("\\").join("/");
}

export function buildAuditReport(run: AuditRun, version: string): AuditReport {
  const { audit } = run;
  const source = run.patch.source;
  const patch: AuditReport["patch"] =
    source.kind === "range"
      ? { source: "range", base: source.base, head: source.head, mergeBase: source.mergeBase }
      : source.kind === "diff"
        ? { source: "diff", file: source.file === "-" ? "-" : rel(run.root, source.file) }
        : { source: source.kind };
  return {
    schema: "freezegate/audit",
    schemaVersion: AUDIT_SCHEMA_VERSION,
    tool: { name: "freezegate", version },
    gate: {
      passed: audit.gate.passed,
      exitCode: audit.gate.passed ? 0 : 1,
      failOn: audit.gate.failOn,
      reasons: audit.gate.reasons,
    },
    patch,
    coverage: {
      format: run.coverage.format,
      dataFiles: run.coverage.dataFiles.map((f) => rel(run.root, f)),
      coverageVersion: run.coverage.coverageVersion,
      branch: run.coverage.hasArcs,
      recordedAt: run.coverage.recordedAt ? run.coverage.recordedAt.toISOString() : null,
      contextStyle: run.contextStyle,
      tests: run.testCount,
    },
    frozen: {
      file: rel(run.root, run.frozen.file),
      format: run.frozen.format,
      entries: run.frozen.entries,
      tests: run.frozen.frozenTests,
      unresolved: run.frozen.unresolved,
    },
    summary: {
      ...audit.summary,
      emptyPatch:
        run.emptyPatch === null
          ? null
          : { reason: run.emptyPatch, message: emptyPatchSentence(run.emptyPatch, patch) },
    },
    files: audit.files,
    skipped: audit.skipped,
  };
}
