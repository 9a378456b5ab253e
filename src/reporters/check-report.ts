// The result object of `freezegate check`: the audit report (the audit's own contract) plus
// every gate, with one verdict. Versioned like the audit contract (docs/json-contract.md).

import type { CheckRun } from "../app/run-check.js";
import type { Finding } from "../core/findings.js";
import { gateFailed } from "../core/findings.js";
import { describeSource } from "../core/ledger.js";
import { type AuditReport, buildAuditReport } from "./audit-report.js";
import { renderText as renderAuditText } from "./text.js";

export const CHECK_SCHEMA_VERSION = 1;

export interface CheckGateReport {
  gate: string;
  blocking: boolean;
  ran: boolean;
  skippedBecause?: string;
  /** false only when the gate ran and has an error finding (blocking or not). */
  passed: boolean;
  notes: string[];
  findings: Finding[];
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
  ledger: { file: string; format: string; freezes: number; properties: number };
  knownTests: string;
  gates: CheckGateReport[];
  audit: AuditReport;
}

export function buildCheckReport(
  run: CheckRun,
  ctx: { base: string; today: string; ledgerLabel: string },
  version: string,
): CheckReport {
  const failedGates = run.gates.filter(gateFailed).map((g) => g.gate);
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
      format: describeSource(run.ledger.source),
      freezes: run.ledger.freezes.length,
      properties: run.ledger.properties.length,
    },
    knownTests: run.knownTests.description,
    gates: run.gates.map((g) => ({
      gate: g.gate,
      blocking: g.blocking,
      ran: g.ran,
      ...(g.skippedBecause === undefined ? {} : { skippedBecause: g.skippedBecause }),
      passed: !(g.ran && g.findings.some((f) => f.severity === "error")),
      notes: g.notes,
      findings: g.findings,
    })),
    audit: buildAuditReport(run.audit, version),
  };
}

function gateVerdict(g: CheckGateReport): string {
  if (!g.ran) return `skipped (${g.skippedBecause ?? "not needed"})`;
  const errors = g.findings.filter((f) => f.severity === "error").length;
  if (errors === 0) return "passed";
  return g.blocking
    ? `FAILED (${errors} error${errors === 1 ? "" : "s"})`
    : `failed, not blocking (${errors} error${errors === 1 ? "" : "s"})`;
}

export function renderCheckText(report: CheckReport): string {
  const out: string[] = [renderAuditText(report.audit).trimEnd(), ""];
  out.push(
    `ledger: ${report.ledger.file} (${report.ledger.format}; ${report.ledger.freezes} freeze(s), ${report.ledger.properties} propert${report.ledger.properties === 1 ? "y" : "ies"}); judged on ${report.today}; known tests: ${report.knownTests}`,
  );
  for (const g of report.gates) {
    out.push("");
    out.push(`${g.gate} gate: ${gateVerdict(g)}`);
    // The shadow gate's lines are in the audit report above; list the other gates' findings.
    if (g.gate !== "shadow") {
      for (const f of g.findings) out.push(`  ${f.severity.padEnd(7)} ${f.code}: ${f.message}`);
    }
    for (const note of g.notes) if (g.gate !== "shadow") out.push(`  note: ${note}`);
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
  return `${JSON.stringify(report, null, 2)}\n`;
}
