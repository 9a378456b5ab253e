// `freezegate doctor`: check the inputs of an audit before anyone trusts its result.
// Exit 0 when nothing failed (warnings allowed), 2 when a check failed.

import { loadConfig } from "../../adapters/config-files.js";
import { findRepoRoot } from "../../adapters/git.js";
import { entryExists } from "../../adapters/repo-files.js";
import type { PatchRequest } from "../../app/audit/read-patch.js";
import { doctorStatus, runDoctor } from "../../app/run-doctor.js";
import { FreezegateError } from "../../core/errors.js";
import { refusal } from "../../core/refusals/index.js";
import { visible } from "../../reporters/words.js";
import {
  commandDirectory,
  DATA_OPTIONS,
  DIRECTORY_OPTION,
  PATCH_OPTIONS,
  readDiffInput,
  resolveDataOptions,
  resolveFrozenFile,
  resolvePatchRequest,
} from "../audit-options.js";
import { type CommandIo, type CommandSpec, type ParsedArgs, stringOpt } from "../command.js";
import { settingsForFlags } from "./audit.js";

const MARK = { ok: "ok  ", warn: "WARN", fail: "FAIL", skip: "skip" } as const;

export const doctorCommand: CommandSpec = {
  name: "doctor",
  summary:
    "Check the audit's inputs: contexts present and naming existing test files, data paths mapping onto the repository, frozen ids resolving, data matching the patch's files.",
  usage: "freezegate doctor [--base REF | --staged | --worktree | --diff FILE|-] [options]",
  options: [
    ...PATCH_OPTIONS,
    ...DATA_OPTIONS,
    { name: "format", type: "string", value: "FORMAT", description: "text (default) or json" },
    DIRECTORY_OPTION,
  ],
  details: `Each problem is one line with a fix; a check that fails on a refusal the audit would
stop at shows its code, error[CODE] (docs/refusals.md). Exit codes: 0 no check failed
(warnings allowed), 2 a check failed or the command could not run.`,
  async run(args: ParsedArgs, io: CommandIo): Promise<number> {
    const format = stringOpt(args.values, "format") ?? "text";
    if (format !== "text" && format !== "json") {
      throw refusal("unknown-format", { format, known: "text or json" });
    }
    const cwd = commandDirectory(args.values, io.cwd);
    const root = await findRepoRoot(cwd);
    const config = loadConfig(root, cwd).values;
    let patch: PatchRequest | null = null;
    try {
      const choice = resolvePatchRequest(args.values, config);
      patch =
        choice.kind === "diff-file" ? await readDiffInput(choice.path, cwd, io.stdin) : choice;
    } catch (error) {
      // Doctor without a patch source is fine: the freshness check is skipped.
      if (!(error instanceof FreezegateError) || error.code !== "nothing-to-audit") throw error;
    }
    const data = resolveDataOptions(args.values, config, cwd, root);
    let frozen: string | FreezegateError;
    try {
      frozen = resolveFrozenFile(data, config, root, entryExists);
    } catch (error) {
      // The audit refuses to run without a list: the doctor reports it as the failed check.
      if (!(error instanceof FreezegateError)) throw error;
      frozen = error;
    }
    const checks = await runDoctor({
      root,
      cwd,
      patch,
      ...(data.coverage === undefined ? {} : { coverage: data.coverage }),
      frozen,
      pathMap: data.pathMap,
      testGlobs: data.testGlobs,
      sourceGlobs: data.sourceGlobs,
      testRoot: data.testRoot,
      allowUnresolved: data.allowUnresolved,
      settingsFor: settingsForFlags(args.values, cwd, root),
    });
    const status = doctorStatus(checks);
    if (format === "json") {
      io.stdout.write(
        `${JSON.stringify({ schema: "freezegate/doctor", schemaVersion: 1, status, checks }, null, 2)}\n`,
      );
    } else {
      for (const c of checks) {
        io.stdout.write(
          `${MARK[c.status]}  ${c.id}: ${c.code === undefined ? "" : `error[${c.code}]: `}${visible(c.message)}${c.fix && c.status !== "ok" ? ` (fix: ${visible(c.fix)})` : ""}\n`,
        );
      }
      io.stdout.write(
        status === "fail"
          ? "doctor: problems found; an audit on these inputs would not be trustworthy\n"
          : status === "warn"
            ? "doctor: usable, with warnings\n"
            : "doctor: all checks passed\n",
      );
    }
    return status === "fail" ? 2 : 0;
  },
};
