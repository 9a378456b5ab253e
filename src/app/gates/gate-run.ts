// What every ledger gate runner takes and gives: where the repository and the ledger are, and
// the gate's result with the notes the report shows about how it ran. The single-gate commands
// and `freezegate check` call the same runners, so a gate reads the same inputs whichever
// command runs it.

import { type Finding, type GateResult, sortFindings } from "../../core/findings.js";
import type { Gate, Ledger } from "../../core/ledger-model.js";

export interface GateContext {
  /** Repository root (absolute). */
  root: string;
  /** The directory the command runs in (absolute): coverage data is also looked for there. */
  cwd?: string;
  /** The ledger file (absolute). */
  ledgerPath: string;
  /** The ledger path as shown to users. */
  ledgerLabel: string;
}

export interface GateRun {
  result: GateResult;
  /** What the report should say about how the gate ran (inputs used, why it was skipped). */
  notes: string[];
}

export function gateResult(
  gate: Gate,
  ledger: Ledger | null,
  findings: Finding[],
  skipped?: string,
) {
  return {
    gate,
    blocking: ledger === null ? true : ledger.policy.blocking.includes(gate),
    ran: skipped === undefined,
    ...(skipped === undefined ? {} : { skippedBecause: skipped }),
    findings: sortFindings(findings),
  } satisfies GateResult;
}
