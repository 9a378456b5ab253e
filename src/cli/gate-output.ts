// Output of the single-gate commands (witness check, deposit check, lock --check): one
// GateResult rendered as text or as JSON, and the exit code it earns. Shared so that every
// gate command reads the same and `--format json` has one shape:
//   {"schema": "freezegate/gate", "schemaVersion": 1, "gate", "ran", "blocking",
//    "skippedBecause"?, "passed", "exitCode", "notes", "findings"}

import type { GateResult } from "../core/findings.js";
import { refusal } from "../core/refusals/index.js";
import { visible } from "../reporters/words.js";
import { type OptionSpec, type OptionValues, stringOpt } from "./command.js";

export const FORMAT_OPTION: OptionSpec = {
  name: "format",
  type: "string",
  value: "FORMAT",
  description: "text (default) or json",
};

export const BASE_OPTION: OptionSpec = {
  name: "base",
  type: "string",
  value: "REF",
  description:
    'the patch is REF...HEAD: the changes since the merge base with REF (default: the "base" config key)',
};

export type OutputFormat = "text" | "json";

export function resolveFormat(values: OptionValues): OutputFormat {
  const format = stringOpt(values, "format") ?? "text";
  if (format !== "text" && format !== "json") {
    throw refusal("unknown-format", { format, known: "text or json" });
  }
  return format;
}

/** --base, else the config file's `base`, else undefined. */
export function resolveBase(
  values: OptionValues,
  config: Record<string, unknown>,
): string | undefined {
  const flag = stringOpt(values, "base");
  if (flag !== undefined) return flag;
  return typeof config.base === "string" ? config.base : undefined;
}

/** 1 when the gate ran and has an error finding, else 0 (the command was asked for this gate). */
export function gateExitCode(result: GateResult): number {
  return result.ran && result.findings.some((f) => f.severity === "error") ? 1 : 0;
}

export function renderGate(result: GateResult, format: OutputFormat, notes: string[] = []): string {
  const exitCode = gateExitCode(result);
  if (format === "json") {
    const body = {
      schema: "freezegate/gate",
      schemaVersion: 1,
      gate: result.gate,
      ran: result.ran,
      blocking: result.blocking,
      ...(result.skippedBecause === undefined ? {} : { skippedBecause: result.skippedBecause }),
      passed: exitCode === 0,
      exitCode,
      notes,
      findings: result.findings,
    };
    return `${JSON.stringify(body, null, 2)}\n`;
  }
  const lines: string[] = [];
  for (const f of result.findings) {
    // Messages quote the patch and the ledger: escaped, no line can start a workflow command.
    lines.push(`${f.severity.padEnd(7)} ${f.code}: ${visible(f.message)}`);
  }
  if (lines.length > 0) lines.push("");
  for (const note of notes) lines.push(`note: ${visible(note)}`);
  const errors = result.findings.filter((f) => f.severity === "error").length;
  const verdict = !result.ran
    ? `skipped (${visible(String(result.skippedBecause))})`
    : errors > 0
      ? `FAILED (${errors} error${errors === 1 ? "" : "s"}${result.blocking ? "" : "; the policy does not make this gate blocking"})`
      : result.findings.length > 0
        ? `passed (${result.findings.length} record${result.findings.length === 1 ? "" : "s"}, no errors)`
        : "passed";
  lines.push(`${result.gate} gate: ${verdict}`);
  return `${lines.join("\n")}\n`;
}
