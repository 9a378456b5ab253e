// `freezegate audit`: the shadow audit of a patch. Exit 0 when the gate passes, 1 when a
// changed line fails it, 2 when the inputs cannot be trusted.

import { join } from "node:path";
import { loadConfig } from "../../adapters/config-files.js";
import { userDirectoryInRepo } from "../../adapters/coverage-discovery.js";
import { type EarlyRange, startRange } from "../../adapters/git.js";
import { entryExists } from "../../adapters/repo-files.js";
import type { PatchRequest } from "../../app/audit/read-patch.js";
import type { SettingsFor } from "../../app/audit/stricter-settings.js";
import { type FrozenChoice, frozenListMovedWords } from "../../app/patch-settings.js";
import { type AuditHooks, type AuditRun, runAudit } from "../../app/run-audit.js";
import { mark } from "../../app/timing.js";
import type { ConfigValues } from "../../core/config.js";
import { buildAuditReport } from "../../reporters/audit-report.js";
import {
  auditSettings,
  commandDirectory,
  DATA_OPTIONS,
  DIRECTORY_OPTION,
  frozenChoice,
  GATE_OPTIONS,
  PATCH_OPTIONS,
  readDiffInput,
  resolveDataOptions,
  resolveFailOn,
  resolveFrozenFile,
  resolvePatchRequest,
} from "../audit-options.js";
import { type CommandIo, type CommandSpec, type ParsedArgs, stringOpt } from "../command.js";
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
import { fromRepoRoot } from "../speed.js";
import { toolVersion } from "../version.js";

export interface PreparedAudit {
  run: AuditRun;
  root: string;
  config: ConfigValues;
  /** The files the run read, which no report may overwrite. */
  inputs: Array<{ path: string; what: string }>;
}

/** Shared by audit and doctor: resolve options and run the audit pipeline. */
export async function prepareAudit(
  args: ParsedArgs,
  io: CommandIo,
  hooks: Pick<AuditHooks, "onDataFiles" | "onLongLoopsDone"> = {},
): Promise<PreparedAudit> {
  const cwd = commandDirectory(args.values, io.cwd);
  mark("cli start");
  // With --base on the command line (never read from config), git can start on the range
  // before the root is known: its rev-parse names the root too.
  const early =
    stringOpt(args.values, "base") === undefined ? null : rangeFromFlags(args.values, cwd);
  return fromRepoRoot(cwd, early, hooks, (root, rootHooks) =>
    auditFrom(root, cwd, early, args, io, rootHooks),
  );
}

/** prepareAudit's work once the repository's root is known. */
async function auditFrom(
  root: string,
  cwd: string,
  early: EarlyRange | null,
  args: ParsedArgs,
  io: CommandIo,
  hooks: AuditHooks,
): Promise<PreparedAudit> {
  const loaded = loadConfig(root, cwd);
  const config = loaded.values;
  const choice = resolvePatchRequest(args.values, config);
  let patch: PatchRequest;
  if (choice.kind === "range" && early) {
    patch = { ...choice, early };
  } else if (choice.kind === "diff-file") {
    patch = await readDiffInput(choice.path, cwd, io.stdin);
  } else {
    patch = choice;
  }
  const data = resolveDataOptions(args.values, config, cwd, root);
  const frozen = resolveFrozenFile(data, config, root, entryExists);
  const run = await runAudit({
    ...auditSettings(data, resolveFailOn(args.values, config), cwd),
    root,
    patch,
    frozen,
    settingsFor: settingsForFlags(args.values, cwd, root),
    hooks,
  });
  const inputs = [
    { path: run.frozen.file, what: "frozen-test file" },
    ...run.coverage.dataFiles.map((path) => ({ path, what: "coverage data" })),
    ...(patch.kind === "diff" && patch.label !== "-"
      ? [{ path: patch.label, what: "diff file" }]
      : []),
    ...(loaded.path === null ? [] : [{ path: loaded.path, what: "config file" }]),
    ...[...run.sources.keys()].map((path) => ({ path: join(root, path), what: "source file" })),
  ];
  return { run, root, config, inputs };
}

/**
 * The audit's settings as a config with these values gives them, these flags applied. The
 * frozen list is the audit's (`frozen`, `ledger`, or the default files) unless `frozen` says
 * where the command reads it.
 */
export function settingsForFlags(
  flags: ParsedArgs["values"],
  cwd: string,
  root: string,
  frozen?: (values: ConfigValues) => FrozenChoice,
): SettingsFor {
  return (values) => {
    const data = resolveDataOptions(flags, values, cwd, root);
    const base = stringOpt(flags, "base") ?? values.base;
    return {
      testGlobs: data.testGlobs,
      sourceGlobs: data.sourceGlobs,
      pathMap: data.pathMap,
      failOn: resolveFailOn(flags, values),
      frozen: frozen?.(values) ?? frozenChoice(data, values, root),
      coverage: data.coverage,
      allowUnresolved: data.allowUnresolved,
      base: typeof base === "string" ? base : undefined,
    };
  };
}

/** Lines for stderr when the patch changed the settings it is judged by, else null. */
export function settingsChangeNote(run: AuditRun): string | null {
  const change = run.settingsChange;
  if (change === null) return null;
  const at = change.base === "HEAD" ? "HEAD" : change.base.slice(0, 12);
  const keys =
    change.changed.length === 0
      ? ""
      : `freezegate: note: the patch changes ${change.changed.join(", ")} in the repository's config; it is judged by the stricter of its settings and those at ${at}\n`;
  const frozen =
    change.frozen === undefined
      ? ""
      : `freezegate: note: ${frozenListMovedWords(change.frozen, at)}\n`;
  return keys + frozen;
}

/** startRange for a --base given as a flag (a flag clash is the usage error it always is). */
function rangeFromFlags(flags: ParsedArgs["values"], cwd: string) {
  const choice = resolvePatchRequest(flags, {});
  return choice.kind === "range" ? startRange(cwd, choice.base, choice.head) : null;
}

export const auditCommand: CommandSpec = {
  name: "audit",
  summary:
    "Give every changed line of a patch a verdict (defended, shadowed, fixture-only, uncovered, unmeasured, not-code) from per-test coverage and the frozen tests.",
  usage: "freezegate audit (--base REF | --staged | --worktree | --diff FILE|-) [options]",
  options: [
    ...PATCH_OPTIONS,
    ...DATA_OPTIONS,
    ...GATE_OPTIONS,
    ...OUTPUT_OPTIONS,
    DIRECTORY_OPTION,
  ],
  details: `Exit codes:
  0  the gate passes
  1  the gate fails: a changed line has a verdict in the fail-on list (shadowed always)
  2  usage, configuration, git or data error (the message says what to fix)

Defaults may also come from [tool.freezegate] in pyproject.toml or the "freezegate" key of
package.json (flags win), for these keys only: base, coverage, frozen, ledger, path-map,
test-files, source-files, test-root, fail-on, allow-unresolved, format. Without --frozen or
a frozen key, the frozen list is the ledger key's file, else quarantine.json or
freeze-ledger.json in the repository root, whichever exists (both there: exit 2).

${outputDetails()}`,
  async run(args: ParsedArgs, io: CommandIo): Promise<number> {
    // Bad output flags and a bad history cost no audit: checked first.
    const request = parseOutputRequest(args.values, commandDirectory(args.values, io.cwd));
    preflightOutputs(request);
    const history = readHistoryOption(request);
    const onDataFiles = dataReadProgress(io);
    const { run, root, config, inputs } = await prepareAudit(args, io, {
      ...(onDataFiles ? { onDataFiles } : {}),
      ...(io.afterLongLoops ? { onLongLoopsDone: io.afterLongLoops } : {}),
    });
    const plan = planOutputs(request, config.format, io.stdout);
    await refuseUnsafeOutputs(
      plan,
      [
        ...inputs,
        ...(request.history === undefined ? [] : [{ path: request.history, what: "history" }]),
      ],
      root,
      io.cwd,
    );
    mark("audit");
    const report = buildAuditReport(run, toolVersion());
    emitReports(report, plan, io, {
      sources: run.sources,
      history,
      directory: userDirectoryInRepo(run.root, commandDirectory(args.values, io.cwd)),
    });
    const note = settingsChangeNote(run);
    if (note !== null) io.stderr.write(note);
    mark("render + write");
    return report.gate.exitCode;
  },
};
