// `freezegate calibrate`: does the gate fire on this repository, with this data and these
// settings? Canary changes of statements only frozen tests execute must fail the gate, changes
// of statements live tests execute must not. Exit 0 when both hold, 1 when a canary is judged
// otherwise or no shadow canary can be made (the run proves nothing), 2 on unusable input.
// With --mutants, the canaries' statements are also mutated and run by the tests that execute
// each: a report, which never changes the exit code.

import { join, resolve } from "node:path";
import { loadConfig } from "../../adapters/config-files.js";
import { findRepoRoot } from "../../adapters/git.js";
import { entryExists } from "../../adapters/repo-files.js";
import { runCalibration } from "../../app/calibrate.js";
import { refusal } from "../../core/refusals/index.js";
import { buildCalibrateReport } from "../../reporters/calibrate-report.js";
import {
  auditSettings,
  commandDirectory,
  DATA_OPTIONS,
  DIRECTORY_OPTION,
  GATE_OPTIONS,
  isFreezeLedger,
  resolveDataOptions,
  resolveFailOn,
  resolveFrozenFile,
} from "../audit-options.js";
import { type CommandSpec, countOpt, stringOpt } from "../command.js";
import { LEDGER_OPTION } from "../ledger-options.js";
import {
  MUTANT_OPTIONS,
  type MutantHooks,
  repositoryDirectory,
  resolveMutantOptions,
  withMutantProgress,
} from "../mutant-options.js";
import {
  emitReports,
  OUTPUT_OPTIONS,
  outputDetails,
  parseOutputRequest,
  planOutputs,
  preflightOutputs,
  refuseUnsafeOutputs,
} from "../output-options.js";
import { toolVersion } from "../version.js";
import { settingsForFlags } from "./audit.js";

export const DEFAULT_MAX_CANARIES = 30;

export const calibrateCommand: CommandSpec = {
  name: "calibrate",
  summary:
    "Prove the gate fires: audit canary changes of statements only frozen tests execute (must fail) and of statements live tests execute (must pass), with the gate's own data and settings.",
  usage:
    "freezegate calibrate [--max N] [--seed N] [--mutants --run CMD [--jobs N] [--timeout SECONDS]] [options]",
  options: [
    ...DATA_OPTIONS,
    {
      ...LEDGER_OPTION,
      description:
        "calibrate check's gate with this freeze ledger (as check --ledger; a --frozen or configured list that is a freeze ledger does the same)",
    },
    ...GATE_OPTIONS,
    {
      name: "max",
      type: "string",
      value: "N",
      description: `at most N canaries: half shadow, a quarter controls, the rest uncovered (default ${DEFAULT_MAX_CANARIES}); with --mutants, at most N mutants of them too`,
    },
    {
      name: "seed",
      type: "string",
      value: "N",
      description:
        "the sample's seed: the same seed and data give the same canaries (and mutants) (default 1)",
    },
    // --max is calibrate's own: it bounds the canaries, and their mutants.
    ...MUTANT_OPTIONS.filter((o) => o.name !== "max").map((o) =>
      o.name === "mutants"
        ? {
            ...o,
            description:
              "also mutate the shadow and control canaries' statements and run the tests that execute each: which mutants the live tests kill where the gate sees a defence, which only frozen tests kill (Python only so far)",
          }
        : o,
    ),
    // The stats history draws the audit's trend: nothing in a calibration.
    ...OUTPUT_OPTIONS.filter((o) => o.name !== "history"),
    DIRECTORY_OPTION,
  ],
  details: `From the coverage data and the frozen list, calibrate picks statements only frozen tests
execute (shadow canaries), statements a live test executes (controls) and statements no test
executes (uncovered), changes each one's meaning (a comparison flipped, a constant raised, ...)
and hands the changes to the audit as one diff, with the settings the gate reads: the config
file, --fail-on, the frozen list, the test root, the globs. No file is written: the diff's new
side is each file as it is on disk. Details: docs/calibrate.md.

Which gate: check's when the frozen list is a freeze ledger (--ledger, the config's ledger key,
freeze-ledger.json, or --frozen naming a ledger): the ledger's freezes, and the tests an xfail
muted as the pytest plugin's applied record lists them, count as frozen, as check counts them.
Otherwise audit's: the frozen list as it is.

When the pytest plugin's applied record of this commit's run is found (where check looks for
it), calibrate compares it with the frozen list the gate reads: a run that applied another
ledger, another version of it, or froze a test the list does not freeze fails the calibration.

With --mutants (pytest data), the shadow and control canaries' statements are mutated (an
operator, a comparison, a constant, a condition or a returned value changed, one at a time),
at most --max mutants drawn with --seed, and each runs against the tests that execute its
statement, with the command --run names, in a temporary copy of the work tree: the frozen
tests for a shadow statement (what they kill, the freezes withdraw), the live tests for a
control (what survives is executed, not defended). The mutants never change the exit code.

Exit codes:
  0  the gate fired on every shadow canary and on no control
  1  a shadow canary passed the gate, a control failed it, no shadow canary could be made
     (nothing frozen, or frozen tests execute nothing only they execute: the run proves
     nothing), or the tests applied another frozen list than the gate reads
  2  usage, configuration, git or data error (the message says what to fix)
130  interrupted (the mutant run's copies and processes are removed)

${outputDetails()}`,
  async run(args, io) {
    // Bad output flags cost no calibration: checked first.
    const request = parseOutputRequest(args.values, commandDirectory(args.values, io.cwd));
    preflightOutputs(request);
    const max = countOpt(args.values, "max", DEFAULT_MAX_CANARIES, 1);
    const seed = countOpt(args.values, "seed", 1, 0, 7);
    const mutantOptions = resolveMutantOptions(args.values, io.env, ["max"]);
    const cwd = commandDirectory(args.values, io.cwd);
    const root = await findRepoRoot(cwd);
    const loaded = loadConfig(root, cwd);
    const config = loaded.values;
    const plan = planOutputs(request, config.format, io.stdout);
    const ledgerFlag = stringOpt(args.values, "ledger");
    if (ledgerFlag !== undefined && stringOpt(args.values, "frozen") !== undefined) {
      throw refusal("ledger-and-frozen", { command: "calibrate" });
    }
    const ledger = ledgerFlag === undefined ? undefined : resolve(cwd, ledgerFlag);
    const data = resolveDataOptions(args.values, config, cwd, root);
    const frozen = resolveFrozenFile(
      { ...data, frozen: ledger ?? data.frozen },
      config,
      root,
      entryExists,
    );
    const gate = isFreezeLedger(frozen) ? "check" : "audit";
    const calibrate = (hooks: MutantHooks | null) =>
      runCalibration({
        audit: {
          ...auditSettings(data, resolveFailOn(args.values, config), cwd),
          root,
          frozen,
          settingsFor: settingsForFlags(
            args.values,
            cwd,
            root,
            ledger === undefined ? undefined : () => ({ file: ledger }),
          ),
        },
        gate,
        frozenKey:
          gate === "check"
            ? 'the "ledger" key of [tool.freezegate] (or --ledger)'
            : '--frozen (or the "frozen" key of [tool.freezegate])',
        max,
        seed,
        mutants:
          mutantOptions === null
            ? null
            : {
                cwd: repositoryDirectory(root, cwd),
                command: mutantOptions.command,
                python: mutantOptions.python,
                env: io.env,
                jobs: mutantOptions.jobs,
                timeoutSeconds: mutantOptions.timeoutSeconds,
                ...hooks,
              },
      });
    // Only a mutant run is stopped by an interrupt and cleans up after itself; without one,
    // SIGINT ends calibrate as it ends any command.
    const calibration =
      mutantOptions === null ? await calibrate(null) : await withMutantProgress(io, calibrate);
    if (calibration === "interrupted") return 130;
    const sources = calibration.run?.sources ?? new Map<string, string>();
    await refuseUnsafeOutputs(
      plan,
      [
        { path: frozen, what: "frozen-test file" },
        ...(calibration.record === null
          ? []
          : [{ path: resolve(root, calibration.record.file), what: "applied record" }]),
        ...calibration.dataFiles.map((path) => ({ path, what: "coverage data" })),
        ...(loaded.path === null ? [] : [{ path: loaded.path, what: "config file" }]),
        ...[...sources.keys()].map((path) => ({ path: join(root, path), what: "source file" })),
      ],
      root,
      io.cwd,
    );
    const report = buildCalibrateReport(calibration, toolVersion());
    emitReports(report, plan, io, { sources, history: null });
    return report.exitCode;
  },
};
