// `freezegate check`: the one command for CI. The shadow audit and every ledger gate in one
// pass; one result, rendered in any of the report formats (text, the JSON contract, Markdown,
// annotations, SARIF, JUnit, ...); one exit code: 0 pass, 1 a blocking gate failed, 2 an
// input error.

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { sweepRecordPath } from "../../app/gates/sweep.js";
import { appliedRecordCandidates, runCheck } from "../../app/run-check.js";
import { DEFAULT_LOCK_PATH } from "../../core/ledger-model.js";
import { refusal } from "../../core/refusals/index.js";
import { buildCheckReport } from "../../reporters/check-report.js";
import {
  auditSettings,
  commandDirectory,
  DATA_OPTIONS,
  GATE_OPTIONS,
  resolveDataOptions,
  resolveFailOn,
} from "../audit-options.js";
import { boolOpt, type CommandSpec, commandLine, stringOpt } from "../command.js";
import { BASE_OPTION, resolveBase } from "../gate-output.js";
import {
  COLLECTED_OPTION,
  DIRECTORY_OPTION,
  LEDGER_OPTION,
  ledgerPathFor,
  refuseOtherFrozenKey,
  resolveLedgerContext,
  resolveToday,
  SWEEP_OPTION,
  TODAY_OPTION,
} from "../ledger-options.js";
import {
  dataReadProgress,
  emitReports,
  OUTPUT_OPTIONS,
  outputDetails,
  parseOutputRequest,
  planOutputs,
  preflightOutputs,
  readHistoryOption,
  refuseUnsafeOutputs,
} from "../output-options.js";
import { toolVersion } from "../version.js";
import { settingsForFlags } from "./audit.js";

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
    SWEEP_OPTION,
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
    {
      name: "uncommitted",
      type: "boolean",
      description:
        "a try-out before committing: judge a ledger with uncommitted changes as the work tree has it, as if you committed them now (without it they are refused)",
    },
    ...OUTPUT_OPTIONS,
    DIRECTORY_OPTION,
  ],
  details: `The frozen tests are the ledger's freezes. The ledger's policy.blocking names the gates
whose failures fail the check (default: all of shadow, shape, witness, deposit, lock,
ledger-changes); the others are reported and do not fail it.

The ledger-changes gate reads who changed each freeze from the commits, so a ledger with
uncommitted changes is refused (exit 2). To try the check before committing, add
--uncommitted: the work tree's ledger is judged, its uncommitted changes charged to you (git's
user.name and user.email); the check of the commits, in CI, is the one that counts.

Exit codes:
  0  no blocking gate failed
  1  a blocking gate failed
  2  usage, configuration, git or input error (no gate result is trusted then)

${outputDetails()}`,
  async run(args, io) {
    // Bad output flags and a bad history cost no check: checked first.
    const request = parseOutputRequest(args.values, commandDirectory(args.values, io.cwd));
    preflightOutputs(request);
    const history = readHistoryOption(request);
    const ctx = await resolveLedgerContext(args, io);
    refuseOtherFrozenKey(ctx, "check");
    const plan = planOutputs(request, ctx.config.format, io.stdout);
    const onDataFiles = dataReadProgress(io);
    const base = resolveBase(args.values, ctx.config);
    if (base === undefined) {
      throw refusal("check-needs-base", undefined);
    }
    const today = resolveToday(args.values, io.env);
    const data = resolveDataOptions(args.values, ctx.config, ctx.cwd, ctx.root);
    const collected = stringOpt(args.values, "collected");
    const samples = stringOpt(args.values, "samples");
    const lockFlag = stringOpt(args.values, "lock-file");
    const lockPath =
      lockFlag === undefined ? resolve(ctx.root, DEFAULT_LOCK_PATH) : resolve(ctx.cwd, lockFlag);
    const samplesPath = samples === undefined ? undefined : resolve(ctx.cwd, samples);
    const sweepFlag = stringOpt(args.values, "sweep");
    const sweepPath = sweepFlag === undefined ? undefined : resolve(ctx.cwd, sweepFlag);
    const collectedPath = collected === undefined ? undefined : resolve(ctx.cwd, collected);
    const run = await runCheck({
      gate: ctx,
      base,
      today,
      audit: {
        ...auditSettings(data, resolveFailOn(args.values, ctx.config), ctx.cwd),
        // The frozen tests are the ledger's, wherever the merge base's config kept it.
        settingsFor: settingsForFlags(args.values, ctx.cwd, ctx.root, (values) => ({
          file: ledgerPathFor(args.values, values, ctx.cwd, ctx.root),
        })),
        ...(onDataFiles ? { hooks: { onDataFiles } } : {}),
      },
      ...(collectedPath === undefined ? {} : { collected: collectedPath }),
      ...(samplesPath === undefined ? {} : { samplesPath }),
      ...(sweepPath === undefined ? {} : { sweepPath }),
      lockPath,
      alwaysWitness: boolOpt(args.values, "always"),
      uncommitted: boolOpt(args.values, "uncommitted"),
      uncommittedCommand: commandLine("check", checkCommand, args, ["--uncommitted"]),
    });
    const report = buildCheckReport(
      run,
      { base, today, ledgerLabel: ctx.ledgerLabel },
      toolVersion(),
    );
    await refuseUnsafeOutputs(
      plan,
      [
        { path: ctx.ledgerPath, what: "freeze ledger" },
        ...run.audit.coverage.dataFiles.map((path) => ({ path, what: "coverage data" })),
        ...(ctx.configPath === null ? [] : [{ path: ctx.configPath, what: "config file" }]),
        ...(request.history === undefined ? [] : [{ path: request.history, what: "history" }]),
        ...(samplesPath === undefined ? [] : [{ path: samplesPath, what: "samples artifact" }]),
        ...(collectedPath === undefined
          ? []
          : [{ path: collectedPath, what: "collected-ids file" }]),
        { path: lockPath, what: "lock file" },
        { path: sweepRecordPath(ctx.root, data.testRoot, sweepPath), what: "sweep record" },
        ...appliedRecordCandidates(ctx.root, data.testRoot, samplesPath)
          .filter((path) => existsSync(path))
          .map((path) => ({ path, what: "applied record" })),
        ...[...run.audit.sources.keys()].map((path) => ({
          path: join(ctx.root, path),
          what: "source file",
        })),
      ],
      ctx.root,
      io.cwd,
    );
    emitReports(report, plan, io, { sources: run.audit.sources, history });
    return report.exitCode;
  },
};
