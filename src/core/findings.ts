// Gate findings: what every gate returns. A finding is data with a stable `code`, never an
// exception; reporters render findings, the policy decides which gates block.

import type { Gate } from "./ledger-model.js";

export const FINDING_CODES = [
  // shape (ledger check)
  "missing-field",
  "bad-date",
  "expired",
  "window-exceeded",
  "duplicate-freeze",
  "unknown-test",
  // witness
  "orphaned-property",
  "frozen-property-check",
  // deposits
  "deposit-not-collected",
  "deposit-not-in-diff",
  "deposit-too-few-inputs",
  "deposit-compensation-low",
  "deposit-compensation-unknown",
  // deposits, from the randomized sweep's record
  "frozen-sweep-failure",
  "deposit-sweep-failure",
  // generator lock
  "lock-moved",
  // ledger changes
  "ledger-changed",
  "self-approved",
  // shadow audit, as a gate: one finding per changed line whose verdict fails it
  "shadowed-line",
  "fixture-only-line",
  "uncovered-line",
  "unmeasured-line",
  // merge queue (queue check; reported under the gate name "queue", not a ledger-policy gate)
  "inherited-skip",
  "stale-record",
] as const;
export type FindingCode = (typeof FINDING_CODES)[number];

export type Severity = "error" | "warning" | "info";

export interface Finding {
  gate: Gate;
  code: FindingCode;
  /** error: fails the gate; warning: shown, never fails; info: a record (e.g. ledger-changed). */
  severity: Severity;
  /** One sentence, complete on its own. */
  message: string;
  /** The freeze's test id, when the finding is about one. */
  testId?: string;
  /** The property's id, when the finding is about one. */
  propertyId?: string;
  /** A repository path and line the finding points at (for annotations, SARIF). */
  path?: string;
  line?: number;
  /** Machine-readable particulars (e.g. the freezes that took a property's last witness). */
  details?: Record<string, unknown>;
}

export interface GateResult {
  gate: Gate;
  /** Whether the policy makes this gate's errors fail the build. */
  blocking: boolean;
  /** false when the gate did not run (e.g. the witness gate when the ledger did not change). */
  ran: boolean;
  /** Why it did not run, when it did not. */
  skippedBecause?: string;
  findings: Finding[];
}

export function gateFailed(result: GateResult): boolean {
  return result.ran && result.blocking && result.findings.some((f) => f.severity === "error");
}

/** Stable order for reports: by gate order of appearance, then code, test id, property id. */
export function sortFindings(findings: readonly Finding[]): Finding[] {
  const key = (f: Finding) =>
    `${f.code}\u0000${f.testId ?? ""}\u0000${f.propertyId ?? ""}\u0000${f.path ?? ""}\u0000${String(f.line ?? 0).padStart(9, "0")}`;
  return [...findings].sort((a, b) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0));
}
