// `freezegate calibrate`: does the gate fire on this repository, with this data and these
// settings? Canary changes of statements only frozen tests execute must fail the gate, changes
// of statements live tests execute must not. Exit 0 when both hold, 1 when a canary is judged
// otherwise or no shadow canary can be made (the run proves nothing), 2 on unusable input.

import { loadConfig } from "../../adapters/config-files.js";
import { findRepoRoot } from "../../adapters/git.js";
import { entryExists } from "../../adapters/repo-files.js";
import { runCalibration } from "../../app/calibrate.js";
import { refusal } from "../../core/refusals/index.js";
import {
  buildCalibrateReport,
  CALIBRATE_FORMATS,
  type CalibrateFormat,
} from "../../reporters/calibrate-report.js";
import {
  auditSettings,
  commandDirectory,
  DATA_OPTIONS,
  DIRECTORY_OPTION,
  GATE_OPTIONS,
  resolveDataOptions,
  resolveFailOn,
  resolveFrozenFile,
} from "../audit-options.js";
import { type CommandSpec, stringOpt } from "../command.js";
import { toolVersion } from "../version.js";
import { settingsForFlags } from "./audit.js";

export const DEFAULT_MAX_CANARIES = 30;

function wholeNumber(flag: string, raw: string, min: number): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min) {
    throw refusal("bad-count", {
      flag,
      value: raw,
      min,
      example: flag === "max" ? DEFAULT_MAX_CANARIES : 7,
    });
  }
  return n;
}

function resolveCalibrateFormat(raw: string | undefined): CalibrateFormat {
  const format = raw ?? "text";
  if (!Object.hasOwn(CALIBRATE_FORMATS, format)) {
    throw refusal("unknown-format", {
      format,
      known: `one of: ${Object.keys(CALIBRATE_FORMATS).join(", ")}`,
    });
  }
  return format as CalibrateFormat;
}

export const calibrateCommand: CommandSpec = {
  name: "calibrate",
  summary:
    "Prove the gate fires: audit canary changes of statements only frozen tests execute (must fail) and of statements live tests execute (must pass), with the gate's own data and settings.",
  usage: "freezegate calibrate [--max N] [--seed N] [options]",
  options: [
    ...DATA_OPTIONS,
    ...GATE_OPTIONS,
    {
      name: "max",
      type: "string",
      value: "N",
      description: `at most N canaries: half shadow, a quarter controls, the rest uncovered (default ${DEFAULT_MAX_CANARIES})`,
    },
    {
      name: "seed",
      type: "string",
      value: "N",
      description: "the sample's seed: the same seed and data give the same canaries (default 1)",
    },
    {
      name: "format",
      type: "string",
      value: "FORMAT",
      description: `${Object.keys(CALIBRATE_FORMATS).join(", ")} (default: text)`,
    },
    DIRECTORY_OPTION,
  ],
  details: `From the coverage data and the frozen list, calibrate picks statements only frozen tests
execute (shadow canaries), statements a live test executes (controls) and statements no test
executes (uncovered), changes each one's meaning (a comparison flipped, a constant raised, ...)
and hands the changes to the audit as one diff, with the settings audit reads: the config
file, --fail-on, the frozen list or ledger, the test root, the globs. No file is written: the
diff's new side is each file as it is on disk. Details: docs/calibrate.md.

Exit codes:
  0  the gate fired on every shadow canary and on no control
  1  a shadow canary passed the gate, a control failed it, or no shadow canary could be made
     (nothing frozen, or frozen tests execute nothing only they execute): the run proves nothing
  2  usage, configuration, git or data error (the message says what to fix)`,
  async run(args, io) {
    const format = resolveCalibrateFormat(stringOpt(args.values, "format"));
    const max = wholeNumber(
      "max",
      stringOpt(args.values, "max") ?? String(DEFAULT_MAX_CANARIES),
      1,
    );
    const seed = wholeNumber("seed", stringOpt(args.values, "seed") ?? "1", 0);
    const cwd = commandDirectory(args.values, io.cwd);
    const root = await findRepoRoot(cwd);
    const config = loadConfig(root, cwd).values;
    const data = resolveDataOptions(args.values, config, cwd, root);
    const frozen = resolveFrozenFile(data, config, root, entryExists);
    const calibration = await runCalibration({
      audit: {
        ...auditSettings(data, resolveFailOn(args.values, config), cwd),
        root,
        frozen,
        settingsFor: settingsForFlags(args.values, cwd, root),
      },
      max,
      seed,
    });
    const report = buildCalibrateReport(calibration, toolVersion());
    io.stdout.write(CALIBRATE_FORMATS[format](report));
    return report.exitCode;
  },
};
