// The result object of `freezegate check`: the audit report (the audit's own contract) plus
// every gate, with one verdict. Versioned like the audit contract (docs/json-contract.md).

import type { CheckRun } from "../app/run-check.js";
import {
  type Compensation,
  type CompensationState,
  compensationWords,
} from "../core/compensation.js";
import { daysBetween, isDay } from "../core/dates.js";
import type { Finding, FindingCode } from "../core/findings.js";
import { gateFailed } from "../core/findings.js";
import { describeSource } from "../core/ledger.js";
import type { Freeze, LedgerSource } from "../core/ledger-model.js";
import { type AuditReport, buildAuditReport } from "./audit-report.js";
import { type IssueCode, unresolvedMessage, verdictLevel } from "./issues.js";
import { renderText as renderAuditText, type TextOptions } from "./text.js";
import { jsonText, visible } from "./words.js";

export const CHECK_SCHEMA_VERSION = 1;

/** A gate finding as the report lists it: a core finding, or a report code (see REPORT_CODES). */
export interface CheckFinding extends Omit<Finding, "code"> {
  code: IssueCode;
}

export interface CheckGateReport {
  gate: string;
  blocking: boolean;
  ran: boolean;
  skippedBecause?: string;
  /** false only when the gate ran and has an error finding (blocking or not). */
  passed: boolean;
  notes: string[];
  findings: CheckFinding[];
}

/**
 * The shadow gate's warnings, after its errors (the failing lines): the fixture-only lines
 * outside fail-on and the frozen ids that matched no test. By the rule every other format
 * uses (verdictLevel, the unresolved ids), so the JSON, and the Markdown gate table built
 * from it, list the warnings the annotations, SARIF and JUnit show.
 */
function shadowWarnings(audit: AuditReport): CheckFinding[] {
  const failOn = new Set<string>(audit.gate.failOn);
  const out: CheckFinding[] = [];
  for (const file of audit.files) {
    for (const line of file.lines) {
      if (verdictLevel(line.verdict, failOn, "error") !== "warning") continue;
      out.push({
        gate: "shadow",
        code: "fixture-only-line",
        severity: "warning",
        path: file.path,
        line: line.line,
        message: `${file.path}:${line.line} is fixture-only: only the setup/teardown of ${line.fixtureTests.join(", ")} runs it`,
        ...(line.frozenTests.length > 0 ? { details: { frozenTests: line.frozenTests } } : {}),
      });
    }
  }
  for (const id of audit.frozen.unresolved) {
    out.push({
      gate: "shadow",
      code: "unresolved-frozen-id",
      severity: "warning",
      path: audit.frozen.file,
      testId: id,
      message: unresolvedMessage(id),
    });
  }
  return out;
}

/**
 * One freeze as the reports show it (added in schemaVersion 1 without a bump: additive). Ages
 * are judged on the report's `today`; a date the ledger got wrong gives null here and a
 * `bad-date` finding in the shape gate.
 */
export interface CheckLedgerEntry {
  testId: string;
  owner: string;
  reason: string;
  opened: string;
  expires: string;
  /** Days from `opened` to today; null when `opened` is not a real day. */
  ageDays: number | null;
  /** Days from today to `expires` (0: its last day; negative: expired); null when not a day. */
  daysToExpiry: number | null;
  invariant: string;
  compensatingProperty: string;
  reusedProperty: boolean;
  approvedBy: string | null;
  /**
   * The deposit gate's verdict on this freeze: `failed` with the codes of its error findings,
   * `ok` when it has none, `not-judged` when the deposit gate did not run.
   */
  deposit: { state: "ok" | "failed" | "not-judged"; codes: FindingCode[] };
  /**
   * What the freeze withdraws and what its compensating property executes of it (added within
   * version 1; always written). null: not measured.
   */
  compensation: CheckCompensation | null;
}

/** A freeze's compensation figure, as the reports show it. */
export interface CheckCompensation {
  state: CompensationState;
  /** Withdrawn lines (null: unknown). */
  withdrawn: number | null;
  /** Of those, the lines the property executes (null: unknown). */
  compensated: number | null;
  /** compensated / withdrawn; null when unknown or nothing is withdrawn. */
  ratio: number | null;
  /** The policy's min_compensation, or null when not set (the figure is not judged). */
  minCompensation: number | null;
  /** The sentence every format shows. */
  summary: string;
}

export interface CheckReport {
  schema: "freezegate/check";
  schemaVersion: typeof CHECK_SCHEMA_VERSION;
  tool: { name: "freezegate"; version: string };
  passed: boolean;
  exitCode: 0 | 1;
  /** Blocking gates that failed, in gate order. */
  failedGates: string[];
  base: string;
  today: string;
  ledger: {
    file: string;
    /**
     * Which of the accepted layouts the ledger is in: the same id `ledger check` writes
     * (`freezegate`, `seed-004-ledger`, `seed-003-properties`, `seed-000-quarantine`).
     */
    format: LedgerSource;
    freezes: number;
    properties: number;
    /** Every freeze in ledger order. */
    entries: CheckLedgerEntry[];
  };
  knownTests: string;
  gates: CheckGateReport[];
  audit: AuditReport;
}

function compensationOf(
  c: Compensation | undefined,
  min: number | undefined,
): CheckCompensation | null {
  if (c === undefined) return null;
  return {
    state: c.state,
    withdrawn: c.withdrawn,
    compensated: c.compensated,
    ratio: c.ratio,
    minCompensation: min ?? null,
    summary: compensationWords(c),
  };
}

function ledgerEntry(
  freeze: Freeze,
  today: string,
  deposit: CheckRun["gates"][number] | undefined,
  compensation: CheckCompensation | null,
): CheckLedgerEntry {
  const codes: FindingCode[] = [];
  if (deposit?.ran) {
    for (const f of deposit.findings) {
      if (f.severity === "error" && f.testId === freeze.test_id && !codes.includes(f.code)) {
        codes.push(f.code);
      }
    }
  }
  return {
    testId: freeze.test_id,
    owner: freeze.owner,
    reason: freeze.reason,
    opened: freeze.opened,
    expires: freeze.expires,
    ageDays: isDay(freeze.opened) && isDay(today) ? daysBetween(freeze.opened, today) : null,
    daysToExpiry: isDay(freeze.expires) && isDay(today) ? daysBetween(today, freeze.expires) : null,
    invariant: freeze.invariant,
    compensatingProperty: freeze.compensating_property,
    reusedProperty: freeze.reused_property,
    approvedBy: freeze.approved_by ?? null,
    deposit: {
      state: !deposit?.ran ? "not-judged" : codes.length > 0 ? "failed" : "ok",
      codes,
    },
    compensation,
  };
}

export function buildCheckReport(
  run: CheckRun,
  ctx: { base: string; today: string; ledgerLabel: string },
  version: string,
): CheckReport {
  const failedGates = run.gates.filter(gateFailed).map((g) => g.gate);
  const depositGate = run.gates.find((g) => g.gate === "deposit");
  const audit = buildAuditReport(run.audit, version);
  return {
    schema: "freezegate/check",
    schemaVersion: CHECK_SCHEMA_VERSION,
    tool: { name: "freezegate", version },
    passed: run.passed,
    exitCode: run.passed ? 0 : 1,
    failedGates,
    base: ctx.base,
    today: ctx.today,
    ledger: {
      file: ctx.ledgerLabel,
      format: run.ledger.source,
      freezes: run.ledger.freezes.length,
      properties: run.ledger.properties.length,
      entries: run.ledger.freezes.map((f, i) =>
        ledgerEntry(
          f,
          ctx.today,
          depositGate,
          compensationOf(run.compensation[i], run.ledger.policy.min_compensation),
        ),
      ),
    },
    knownTests: run.knownTests.description,
    gates: run.gates.map((g) => ({
      gate: g.gate,
      blocking: g.blocking,
      ran: g.ran,
      ...(g.skippedBecause === undefined ? {} : { skippedBecause: g.skippedBecause }),
      passed: !(g.ran && g.findings.some((f) => f.severity === "error")),
      notes: g.notes,
      findings: g.gate === "shadow" ? [...g.findings, ...shadowWarnings(audit)] : g.findings,
    })),
    audit,
  };
}

/**
 * One sentence per measured freeze: what it withdraws and what its property executes of it
 * (the formats without the deposit gate's notes show these).
 */
export function compensationSentences(report: CheckReport): string[] {
  return report.ledger.entries.flatMap((e) =>
    e.compensation === null ? [] : [`compensation of ${e.testId}: ${e.compensation.summary}`],
  );
}

function gateVerdict(g: CheckGateReport): string {
  if (!g.ran) return `skipped (${visible(g.skippedBecause ?? "not needed")})`;
  const errors = g.findings.filter((f) => f.severity === "error").length;
  if (errors === 0) return "passed";
  return g.blocking
    ? `FAILED (${errors} error${errors === 1 ? "" : "s"})`
    : `failed, not blocking (${errors} error${errors === 1 ? "" : "s"})`;
}

export function renderCheckText(
  report: CheckReport,
  options: Pick<TextOptions, "sources"> = {},
): string {
  const out: string[] = [renderAuditText(report.audit, options).trimEnd(), ""];
  out.push(
    `ledger: ${visible(report.ledger.file)} (${describeSource(report.ledger.format)}; ${report.ledger.freezes} freeze(s), ${report.ledger.properties} propert${report.ledger.properties === 1 ? "y" : "ies"}); judged on ${report.today}; known tests: ${visible(report.knownTests)}`,
  );
  for (const g of report.gates) {
    out.push("");
    out.push(`${g.gate} gate: ${gateVerdict(g)}`);
    // The shadow gate's lines are in the audit report above; list the other gates' findings.
    if (g.gate !== "shadow") {
      for (const f of g.findings)
        out.push(`  ${f.severity.padEnd(7)} ${f.code}: ${visible(f.message)}`);
    }
    // The shadow gate's reasons are the audit's, printed above; its other notes are not.
    for (const note of g.notes) {
      if (g.gate !== "shadow" || !report.audit.gate.reasons.includes(note))
        out.push(`  note: ${visible(note)}`);
    }
  }
  out.push("");
  out.push(
    report.passed
      ? "check: PASS (no blocking gate failed)"
      : `check: FAIL (blocking gate${report.failedGates.length === 1 ? "" : "s"} failed: ${report.failedGates.join(", ")})`,
  );
  return `${out.join("\n")}\n`;
}

export function renderCheckJson(report: CheckReport): string {
  return jsonText(report);
}
