// freezegate as a library: the pure audits and gates (values in, findings out), the
// application services that read a repository, and the report builders. The CLI is built on
// exactly these.

export { readLedgerFile } from "./adapters/ledger-file.js";
export { type AuditRequest, type AuditRun, runAudit } from "./app/run-audit.js";
export { type CheckRequest, type CheckRun, runCheck } from "./app/run-check.js";
export { daysBetween, isDay, todayUtc, utcDayOfInstant } from "./core/dates.js";
export {
  ConfigError,
  FreezegateError,
  GitError,
  InputError,
  InternalError,
  UsageError,
} from "./core/errors.js";
export { FINDING_CODES, type Finding, type FindingCode, type GateResult } from "./core/findings.js";
export {
  frozenListOf,
  globToRegExp,
  lookupOf,
  parseFrozenList,
  resolveFrozen,
} from "./core/frozen.js";
export { parseLedger, serializeLedger } from "./core/ledger.js";
export type { Freeze, Ledger, LedgerPolicy, Property } from "./core/ledger-model.js";
export { checkShape } from "./core/ledger-shape.js";
export type {
  ChangedFile,
  ContextIndex,
  CoverageSource,
  ParsedContext,
  Patch,
  StatementMap,
} from "./core/model.js";
export {
  type AppliedRecord,
  checkQueue,
  parseAppliedRecord,
  type QueueCheckInput,
  type QueueResult,
} from "./core/queue.js";
export { parseSamples } from "./core/samples.js";
export {
  auditShadow,
  type FileResult,
  type LineResult,
  type ShadowAudit,
  VERDICTS,
  type Verdict,
} from "./core/shadow-audit.js";
export { parseUnifiedDiff } from "./core/unified-diff.js";
export { checkWitnesses, witnessLoss } from "./core/witness.js";
export { findPythonStatements } from "./languages/python/statements.js";
export { type AuditReport, buildAuditReport } from "./reporters/audit-report.js";
export { buildCheckReport, type CheckReport } from "./reporters/check-report.js";
export {
  FORMATS,
  type FormatName,
  formatNames,
  type RenderContext,
  renderReport,
} from "./reporters/registry.js";
export { parsePytestCovContext } from "./runners/pytest/context-names.js";
export { indexContexts } from "./runners/pytest/contexts.js";
