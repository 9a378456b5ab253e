// Options shared by the commands that read or change the freeze ledger (ledger check/migrate,
// freeze, unfreeze, extend, and the other gates' commands): their declarations, and how
// flags, the config file and defaults combine into one context. Flag paths are relative to
// the current directory; config paths to the repository root (as for audit).
//
// Hidden test hooks (environment variables, not in --help, for freezegate's own tests):
//   FREEZEGATE_NOW=<ISO instant>              the clock `today` is taken from (UTC day of it)
//   FREEZEGATE_TEST_HOLD_BEFORE_RENAME=1      a ledger write stops after writing its temporary
//                                             file, prints "freezegate: holding <temp>" on
//                                             stderr and waits forever (to be killed)

import { realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, resolve } from "node:path";
import { loadConfig } from "../adapters/config-files.js";
import { findRepoRoot } from "../adapters/git.js";
import type { UpdateOptions } from "../adapters/ledger-file.js";
import type { KnownTestsRequest } from "../app/known-tests.js";
import type { ConfigValues } from "../core/config.js";
import { isDay, todayUtc, utcDayOfInstant } from "../core/dates.js";
import { describeSource } from "../core/ledger.js";
import { DEFAULT_LEDGER_PATH, type Ledger } from "../core/ledger-model.js";
import { refusal } from "../core/refusals/index.js";
import { commandDirectory, DIRECTORY_OPTION, isFreezeLedger } from "./audit-options.js";
import {
  type CommandIo,
  type OptionSpec,
  type OptionValues,
  type ParsedArgs,
  stringOpt,
} from "./command.js";

export { DIRECTORY_OPTION };

export const LEDGER_OPTION: OptionSpec = {
  name: "ledger",
  type: "string",
  value: "PATH",
  description: `the freeze ledger (default: the "ledger" config key, else ${DEFAULT_LEDGER_PATH} at the repository root)`,
};

export const TODAY_OPTION: OptionSpec = {
  name: "today",
  type: "string",
  value: "YYYY-MM-DD",
  description:
    "the day to judge expiry against (default: today's date in UTC, or the UTC date of the instant in the FREEZEGATE_NOW environment variable when set)",
};

export const SWEEP_OPTION: OptionSpec = {
  name: "sweep",
  type: "string",
  value: "FILE",
  description:
    "the randomized sweep's record (pytest --freezegate-sweep; default: .freezegate/sweep.json in pytest's rootdir, when there is one): a property that failed there at a seed cannot be frozen or deposited",
};

export const COLLECTED_OPTION: OptionSpec = {
  name: "collected",
  type: "string",
  value: "FILE",
  description:
    "the suite's test ids: `pytest --collect-only -q` output or one node id per line (default: the coverage data's contexts)",
};

export const COVERAGE_OPTION: OptionSpec = {
  name: "coverage",
  type: "string",
  value: "PATH",
  description:
    "coverage data whose per-test contexts list the suite's tests, when --collected is not given (default: found in the current directory, the test root or the repository root)",
};

export const TEST_ROOT_OPTION: OptionSpec = {
  name: "test-root",
  type: "string",
  value: "DIR",
  description:
    "pytest's rootdir (the rootdir: line pytest prints), relative to the repository root (default: the root)",
};

/** The options for knowing which tests exist (unknown-test, freeze's existence check). */
export const KNOWN_TESTS_OPTIONS: OptionSpec[] = [
  COLLECTED_OPTION,
  COVERAGE_OPTION,
  TEST_ROOT_OPTION,
];

export interface LedgerContext {
  /** The directory the command runs in (-C applied), absolute. */
  cwd: string;
  /** Repository root, absolute. */
  root: string;
  config: ConfigValues;
  /** The config file the values came from (absolute), or null for none. */
  configPath: string | null;
  /** The ledger file, absolute. */
  ledgerPath: string;
  /** The ledger path as shown to users (relative to the root when inside it). */
  ledgerLabel: string;
}

/**
 * check and stats judge the ledger's freezes. A config `frozen` key naming another file is
 * what audit judges: a test frozen only there would count as live in one and frozen in the
 * other, without a word.
 */
export function refuseOtherFrozenKey(ctx: LedgerContext, command: string): void {
  const frozen = ctx.config.frozen;
  if (typeof frozen !== "string") return;
  // The same file however it is spelled (a symlinked checkout, -C through a link).
  const real = (path: string): string => {
    try {
      return realpathSync(path);
    } catch {
      // Not there (yet): its directory's real path, so that a missing ledger is reported
      // as missing, not as another file.
      const parent = dirname(path);
      return parent === path ? path : join(real(parent), basename(path));
    }
  };
  const file = resolve(ctx.root, frozen);
  if (real(file) === real(ctx.ledgerPath)) return;
  if (statSync(file, { throwIfNoEntry: false })?.isDirectory()) {
    throw refusal("frozen-key-is-directory", { frozen, command });
  }
  throw refusal("frozen-key-beside-ledger", {
    frozen,
    command,
    ledger: ctx.ledgerLabel,
    isLedger: isFreezeLedger(file),
  });
}

/** The ledger: --ledger, else the config's "ledger" key, else the default path (absolute). */
export function ledgerPathFor(
  flags: OptionValues,
  config: ConfigValues,
  cwd: string,
  root: string,
): string {
  const flag = stringOpt(flags, "ledger");
  const configured = config.ledger;
  if (flag !== undefined) return resolve(cwd, flag);
  if (typeof configured !== "string") return join(root, DEFAULT_LEDGER_PATH);
  return isAbsolute(configured) ? configured : join(root, configured);
}

/** -C, the repository root, the config file and the ledger path. */
export async function resolveLedgerContext(
  args: ParsedArgs,
  io: CommandIo,
): Promise<LedgerContext> {
  const cwd = commandDirectory(args.values, io.cwd);
  const root = await findRepoRoot(cwd);
  const loaded = loadConfig(root, cwd);
  const config = loaded.values;
  const ledgerPath = ledgerPathFor(args.values, config, cwd, root);
  return {
    cwd,
    root,
    config,
    configPath: loaded.path,
    ledgerPath,
    ledgerLabel: displayPath(root, ledgerPath),
  };
}

/** `path` relative to `root` when it is inside it, else absolute. */
export function displayPath(root: string, path: string): string {
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return path.startsWith(prefix) ? path.slice(prefix.length) : path;
}

/**
 * The day to judge against: --today (a real YYYY-MM-DD day, else a usage error), else the
 * UTC date of now (FREEZEGATE_NOW replaces the clock in tests).
 */
export function resolveToday(values: OptionValues, env: NodeJS.ProcessEnv): string {
  const flag = stringOpt(values, "today");
  if (flag !== undefined) {
    if (!isDay(flag)) {
      throw refusal("bad-today", { value: flag });
    }
    return flag;
  }
  const fake = env.FREEZEGATE_NOW;
  if (fake !== undefined && fake !== "") {
    const day = utcDayOfInstant(fake);
    if (day === null) {
      throw refusal("bad-freezegate-now", { value: fake });
    }
    return day;
  }
  return todayUtc();
}

/** Where the known tests come from: flag > config file > discovery in the root. */
export function resolveKnownTestsRequest(
  values: OptionValues,
  context: Pick<LedgerContext, "cwd" | "root" | "config">,
): KnownTestsRequest {
  const { cwd, root, config } = context;
  const collected = stringOpt(values, "collected");
  const coverageFlag = stringOpt(values, "coverage");
  const coverageConfig = config.coverage;
  const coverage =
    coverageFlag !== undefined
      ? resolve(cwd, coverageFlag)
      : typeof coverageConfig === "string"
        ? isAbsolute(coverageConfig)
          ? coverageConfig
          : join(root, coverageConfig)
        : undefined;
  const testRoot =
    stringOpt(values, "test-root") ?? (config["test-root"] as string | undefined) ?? "";
  return {
    root,
    cwd,
    ...(collected === undefined ? {} : { collected: resolve(cwd, collected) }),
    ...(coverage === undefined ? {} : { coverage }),
    testRoot,
  };
}

/** Write options for ledger changes, with the hidden kill-test hook when its variable is set. */
export function ledgerWriteOptions(io: CommandIo): Pick<UpdateOptions, "beforeRename"> {
  if (io.env.FREEZEGATE_TEST_HOLD_BEFORE_RENAME !== "1") return {};
  return {
    beforeRename: (temp) =>
      new Promise<void>(() => {
        io.stderr.write(`freezegate: holding ${temp}\n`);
        // Keeps the process alive until it is killed; never resolves.
        setInterval(() => {}, 60_000);
      }),
  };
}

/**
 * Commands that change the ledger write freezegate's own format only; a file of an older
 * format (read as it is) is not rewritten in place behind the backs of the tools that write
 * it: it is migrated first.
 */
export function assertWritableFormat(ledger: Ledger, label: string): void {
  if (ledger.source === "freezegate") return;
  throw refusal("ledger-not-rewritable", {
    label,
    source: describeSource(ledger.source),
    defaultPath: DEFAULT_LEDGER_PATH,
  });
}
