// `freezegate lock`: the generator lock. Without --check it fingerprints
// the files the ledger's policy.generator_lock names and writes the lock file; with --check it
// verifies the lock matches them and, with a base, that the lock moved in the same patch as
// any of them.

import { resolve } from "node:path";
import { readLedgerFile } from "../../adapters/ledger-file.js";
import { writeFileAtomic } from "../../adapters/write-file.js";
import { repoPath } from "../../app/gates/ledger-location.js";
import { computeLock, readLockFile, runLockGate } from "../../app/gates/lock-gate.js";
import { FreezegateError } from "../../core/errors.js";
import { serializeLock } from "../../core/generator-lock.js";
import { DEFAULT_LOCK_PATH } from "../../core/ledger-model.js";
import { refusal } from "../../core/refusals/index.js";
import { boolOpt, type CommandSpec, stringOpt } from "../command.js";
import {
  BASE_OPTION,
  FORMAT_OPTION,
  gateExitCode,
  renderGate,
  resolveBase,
  resolveFormat,
} from "../gate-output.js";
import { DIRECTORY_OPTION, LEDGER_OPTION, resolveLedgerContext } from "../ledger-options.js";

export const lockCommand: CommandSpec = {
  name: "lock",
  summary:
    "Fingerprint the property generators (strategies, fixtures, conftest) into the lock file, or --check it.",
  usage: "freezegate lock [--check [--base REF]] [--lock-file PATH] [options]",
  options: [
    { name: "check", type: "boolean", description: "verify the lock file instead of writing it" },
    { ...BASE_OPTION, description: `${BASE_OPTION.description}; with --check only` },
    {
      name: "lock-file",
      type: "string",
      value: "PATH",
      description: `the lock file (default: ${DEFAULT_LOCK_PATH} at the repository root)`,
    },
    LEDGER_OPTION,
    FORMAT_OPTION,
    DIRECTORY_OPTION,
  ],
  details: `The files are the ledger's policy.generator_lock entries (paths or globs, relative to
the repository root). An entry that names no file is an error, never an empty fingerprint.
--check with a base (--base, or the "base" config key) also fails when a locked file changed in
BASE...HEAD but the lock did not; the files must then match HEAD (commit first).

Exit codes:
  0  lock written, or the lock holds
  1  lock-moved: the generator files and the lock disagree
  2  usage, configuration, git or input error`,
  async run(args, io) {
    const format = resolveFormat(args.values);
    const ctx = await resolveLedgerContext(args, io);
    const flag = stringOpt(args.values, "lock-file");
    const lockPath =
      flag === undefined ? resolve(ctx.root, DEFAULT_LOCK_PATH) : resolve(ctx.cwd, flag);
    if (boolOpt(args.values, "check")) {
      const base = resolveBase(args.values, ctx.config);
      const { result, notes } = await runLockGate(ctx, {
        lockPath,
        ...(base === undefined ? {} : { base }),
      });
      io.stdout.write(renderGate(result, format, notes));
      return gateExitCode(result);
    }
    if (stringOpt(args.values, "base") !== undefined) {
      throw refusal("base-without-lock-check", undefined);
    }
    const ledger = readLedgerFile(ctx.ledgerPath);
    const lock = await computeLock(ctx.root, ledger.policy.generator_lock);
    const label = repoPath(ctx.root, lockPath) ?? lockPath;
    let previous: string | null = null;
    try {
      previous = readLockFile(lockPath, label)?.fingerprint ?? null;
    } catch (error) {
      if (!(error instanceof FreezegateError)) throw error;
      previous = null; // a broken lock is replaced by a good one
    }
    const unchanged = previous === lock.fingerprint;
    if (!unchanged) writeFileAtomic(lockPath, serializeLock(lock));
    const files = Object.keys(lock.files);
    if (format === "json") {
      io.stdout.write(
        `${JSON.stringify({ schema: "freezegate/lock", schemaVersion: 1, lockFile: label, written: !unchanged, lock }, null, 2)}\n`,
      );
    } else {
      io.stdout.write(
        `${unchanged ? "unchanged" : "wrote"} ${label}: ${files.length} file${files.length === 1 ? "" : "s"} (${files.join(", ")}), fingerprint ${lock.fingerprint}\n`,
      );
    }
    return 0;
  },
};
