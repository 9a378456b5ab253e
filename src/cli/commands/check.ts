// `freezegate check`: the one command for CI. The shadow audit and every ledger gate in one
// pass; one report (text or the JSON contract); one exit code: 0 pass, 1 a blocking gate
// failed, 2 an input error.

import { resolve } from "node:path";
import { writeFileAtomic } from "../../adapters/write-file.js";
import { runCheck } from "../../app/run-check.js";
import { UsageError } from "../../core/errors.js";
import { DEFAULT_LOCK_PATH } from "../../core/ledger-model.js";
import {
  buildCheckReport,
  renderCheckJson,
  renderCheckText,
} from "../../reporters/check-report.js";
import { DATA_OPTIONS, GATE_OPTIONS, resolveDataOptions, resolveFailOn } from "../audit-options.js";
import { boolOpt, type CommandSpec, stringOpt } from "../command.js";
import { BASE_OPTION, FORMAT_OPTION, resolveBase, resolveFormat } from "../gate-output.js";
import {
  COLLECTED_OPTION,
  DIRECTORY_OPTION,
  LEDGER_OPTION,
  resolveLedgerContext,
  resolveToday,
  TODAY_OPTION,
} from "../ledger-options.js";
import { toolVersion } from "../version.js";

export const checkCommand: CommandSpec = {
  name: "check",
  summary:
    "Run the shadow audit and every gate the ledger's policy names (shape, witness, deposit, lock, ledger changes) in one pass, with one report and one exit code.",
  usage: "freezegate check --base REF [options]",
  options: [
    BASE_OPTION,
    LEDGER_OPTION,
    TODAY_OPTION,
    ...DATA_OPTIONS.filter((o) => o.name !== "frozen"),
    COLLECTED_OPTION,
    ...GATE_OPTIONS,
    {
      name: "samples",
      type: "string",
      value: "FILE",
      description:
        "the samples artifact: distinct inputs per compensating property (docs/samples-artifact.md)",
    },
    {
      name: "lock-file",
      type: "string",
      value: "PATH",
      description: `the generator lock file (default: ${DEFAULT_LOCK_PATH} at the repository root)`,
    },
    {
      name: "always",
      type: "boolean",
      description: "judge the witness gate even when the ledger did not change",
    },
    FORMAT_OPTION,
    {
      name: "output",
      short: "o",
      type: "string",
      value: "FILE",
      description: "write the report to FILE instead of stdout",
    },
    DIRECTORY_OPTION,
  ],
  details: `The frozen tests are the ledger's freezes. The ledger's policy.blocking names the gates
whose failures fail the check (default: all of shadow, shape, witness, deposit, lock,
ledger-changes); the others are reported and do not fail it.

Exit codes:
  0  no blocking gate failed
  1  a blocking gate failed
  2  usage, configuration, git or input error (no gate result is trusted then)`,
  async run(args, io) {
    const format = resolveFormat(args.values);
    const ctx = await resolveLedgerContext(args, io);
    const base = resolveBase(args.values, ctx.config);
    if (base === undefined) {
      throw new UsageError("check needs the patch: which changes are gated?", {
        fix: 'pass --base REF (e.g. --base origin/main), or set "base" in the config file',
      });
    }
    const today = resolveToday(args.values, io.env);
    const data = resolveDataOptions(args.values, ctx.config, ctx.cwd, ctx.root);
    const collected = stringOpt(args.values, "collected");
    const samples = stringOpt(args.values, "samples");
    const lockFlag = stringOpt(args.values, "lock-file");
    const run = await runCheck({
      gate: ctx,
      base,
      today,
      audit: {
        ...(data.coverage === undefined ? {} : { coverage: data.coverage }),
        pathMap: data.pathMap,
        testGlobs: data.testGlobs,
        sourceGlobs: data.sourceGlobs,
        failOn: resolveFailOn(args.values, ctx.config),
        allowUnresolved: data.allowUnresolved,
        testRoot: data.testRoot,
      },
      ...(collected === undefined ? {} : { collected: resolve(ctx.cwd, collected) }),
      ...(samples === undefined ? {} : { samplesPath: resolve(ctx.cwd, samples) }),
      lockPath:
        lockFlag === undefined ? resolve(ctx.root, DEFAULT_LOCK_PATH) : resolve(ctx.cwd, lockFlag),
      alwaysWitness: boolOpt(args.values, "always"),
    });
    const report = buildCheckReport(
      run,
      { base, today, ledgerLabel: ctx.ledgerLabel },
      toolVersion(),
    );
    const rendered = format === "json" ? renderCheckJson(report) : renderCheckText(report);
    const output = stringOpt(args.values, "output");
    if (output !== undefined) writeFileAtomic(resolve(io.cwd, output), rendered);
    else io.stdout.write(rendered);
    return report.exitCode;
  },
};
