// Options shared by the commands that audit a patch (audit, doctor, and later check): their
// flag declarations, and how flags, config-file defaults and built-in defaults combine.
// Order: flag > config file > built-in default. Paths given as flags are relative to the
// current directory (the -C directory); paths in a config file are relative to the
// repository root.

import { statSync } from "node:fs";
import { dirname, isAbsolute, join, resolve } from "node:path";
import { refuseForeignPluginLedger } from "../adapters/pytest-ledger.js";
import {
  readFileBytes,
  readJsonFile,
  readStreamBytes,
  readTextFile,
} from "../adapters/repo-files.js";
import type { PatchRequest } from "../app/audit/read-patch.js";
import type { FrozenChoice } from "../app/patch-settings.js";
import type { AuditRequest } from "../app/run-audit.js";
import type { ConfigValues } from "../core/config.js";
import { FreezegateError } from "../core/errors.js";
import { parseFrozenList } from "../core/frozen.js";
import { DEFAULT_SOURCE_GLOBS, DEFAULT_TEST_GLOBS } from "../core/globs.js";
import { wideEncodingOf } from "../core/json-text.js";
import { DEFAULT_LEDGER_PATH } from "../core/ledger-model.js";
import { type PathRule, parsePathRule } from "../core/path-map.js";
import { refusal } from "../core/refusals/index.js";
import { FAILABLE_VERDICTS, type FailableVerdict } from "../core/shadow-audit.js";
import { boolOpt, listOpt, type OptionSpec, type OptionValues, stringOpt } from "./command.js";

export const DIRECTORY_OPTION: OptionSpec = {
  name: "directory",
  short: "C",
  type: "string",
  value: "DIR",
  description: "run as if started in DIR (any directory inside the repository)",
};

/**
 * The directory a command runs in: -C DIR against the current directory. Every relative path
 * on the command line (--frozen, --diff, --output, --history, ...) resolves against it, as
 * if the command had been started there.
 */
export function commandDirectory(values: OptionValues, cwd: string): string {
  const flag = stringOpt(values, "directory");
  const dir = resolve(cwd, flag ?? ".");
  if (flag !== undefined && statSync(dir, { throwIfNoEntry: false })?.isDirectory() === false) {
    throw refusal("directory-is-file", { flag, dir, parent: dirname(dir) });
  }
  return dir;
}

export const PATCH_OPTIONS: OptionSpec[] = [
  {
    name: "base",
    type: "string",
    value: "REF",
    description: "audit REF...HEAD: the changes since the merge base with REF (e.g. origin/main)",
  },
  {
    name: "head",
    type: "string",
    value: "REF",
    description: "the patch tip for --base (default HEAD)",
  },
  { name: "staged", type: "boolean", description: "audit the staged changes (index against HEAD)" },
  {
    name: "worktree",
    type: "boolean",
    description: "audit the work tree against HEAD (untracked files count as added)",
  },
  {
    name: "diff",
    type: "string",
    value: "FILE|-",
    description: "audit a unified diff from FILE, or from stdin with -",
  },
];

export const DATA_OPTIONS: OptionSpec[] = [
  {
    name: "coverage",
    type: "string",
    value: "PATH",
    description:
      "per-test coverage data: .coverage (SQLite, with parallel .coverage.* files) or coverage.json for pytest, .freezegate/vitest-coverage.jsonl (or its directory) for Vitest (default: found in the current directory, the test root or the repository root; two runs' data there: exit 2)",
  },
  {
    name: "frozen",
    type: "string",
    value: "FILE",
    description:
      'frozen tests: {"frozen": [...]}, properties.json, or a freeze ledger (default: quarantine.json or freeze-ledger.json at the repository root, whichever exists; both: exit 2)',
  },
  {
    name: "path-map",
    type: "string",
    multiple: true,
    value: "FROM=TO",
    description: "rewrite data paths starting with FROM to TO (e.g. /app/=.)",
  },
  {
    name: "test-root",
    type: "string",
    value: "DIR",
    description:
      "the test root, relative to the repository root (default: the root): pytest's rootdir (the rootdir: line pytest prints), or the Vitest root (the directory Vitest runs in)",
  },
  {
    name: "test-files",
    type: "string",
    multiple: true,
    value: "GLOB",
    description: `changed files that are tests and not audited (default: the test runner's: for pytest ${DEFAULT_TEST_GLOBS.join(" ")} and the python_files of its configuration; for Vitest the files its include matched)`,
  },
  {
    name: "source-files",
    type: "string",
    multiple: true,
    value: "GLOB",
    description: `changed files that are audited (default: the test runner's: ${DEFAULT_SOURCE_GLOBS.join(" ")} for pytest, JavaScript and TypeScript files for Vitest; files in the data always are)`,
  },
  {
    name: "allow-unresolved",
    type: "boolean",
    description: "allow frozen ids that match no test in the data (listed as a warning)",
  },
];

export const GATE_OPTIONS: OptionSpec[] = [
  {
    name: "fail-on",
    type: "string",
    multiple: true,
    value: "VERDICTS",
    description: `verdicts that fail the gate besides shadowed, comma-separated: ${FAILABLE_VERDICTS.filter((v) => v !== "shadowed").join(", ")}`,
  },
];

function pathFrom(
  flags: OptionValues,
  config: ConfigValues,
  name: string,
  cwd: string,
  root: string,
): string | undefined {
  const flag = stringOpt(flags, name);
  if (flag !== undefined) return flag === "-" ? flag : resolve(cwd, flag);
  const value = config[name];
  if (typeof value === "string") return isAbsolute(value) ? value : join(root, value);
  return undefined;
}

function listFrom(flags: OptionValues, config: ConfigValues, name: string): string[] | undefined {
  const flag = listOpt(flags, name);
  if (flag !== undefined) return flag;
  const value = config[name];
  return Array.isArray(value) ? value : undefined;
}

/** Which changes to audit, before a --diff file is read. */
export type PatchChoice =
  | Exclude<PatchRequest, { kind: "diff" }>
  | { kind: "diff-file"; path: string };

export function resolvePatchRequest(flags: OptionValues, config: ConfigValues): PatchChoice {
  const base = stringOpt(flags, "base");
  const chosen = [
    base !== undefined && "--base",
    boolOpt(flags, "staged") && "--staged",
    boolOpt(flags, "worktree") && "--worktree",
    stringOpt(flags, "diff") !== undefined && "--diff",
  ].filter(Boolean);
  if (chosen.length > 1) {
    throw refusal("patch-sources-combined", { flags: chosen as string[] });
  }
  const head = stringOpt(flags, "head");
  if (base !== undefined) checkRevision("--base", base);
  if (head !== undefined) checkRevision("--head", head);
  if (head !== undefined && chosen[0] !== "--base" && !(chosen.length === 0 && config.base)) {
    throw refusal("head-without-base", undefined);
  }
  if (base !== undefined) return { kind: "range", base, ...(head ? { head } : {}) };
  if (boolOpt(flags, "staged")) return { kind: "staged" };
  if (boolOpt(flags, "worktree")) return { kind: "worktree" };
  const diff = stringOpt(flags, "diff");
  if (diff !== undefined) return { kind: "diff-file", path: diff };
  if (typeof config.base === "string") {
    checkRevision('the config file\'s "base"', config.base);
    return { kind: "range", base: config.base, ...(head ? { head } : {}) };
  }
  throw refusal("nothing-to-audit", undefined);
}

/**
 * The text of `--diff FILE|-` (stdin for "-"), for audit and doctor alike. An empty or blank
 * diff is refused wherever it comes from: it is what a failed `git diff > patch.diff` step
 * leaves behind, and audited as given it would be a patch with nothing to fail.
 */
export async function readDiffInput(
  path: string,
  cwd: string,
  stdin: NodeJS.ReadableStream,
): Promise<Extract<PatchRequest, { kind: "diff" }>> {
  if (path === "-") {
    const bytes = await readStreamBytes(stdin, "the diff on stdin", DIFF_TOO_LARGE_FIX);
    const text = diffText(bytes, "the diff on stdin");
    if (text.trim() === "") {
      throw refusal("diff-empty", { file: null });
    }
    return { kind: "diff", label: "-", text };
  }
  const file = resolve(cwd, path);
  const text = diffText(
    readFileBytes(file, "diff file", {
      fix: "give the path of a diff file, or pipe the diff in: git diff origin/main...HEAD | freezegate audit --diff -",
      tooLargeFix: DIFF_TOO_LARGE_FIX,
    }),
    `the diff file ${file}`,
  );
  if (text.trim() === "") {
    throw refusal("diff-empty", { file });
  }
  return { kind: "diff", label: file, text };
}

const DIFF_TOO_LARGE_FIX =
  "give the diff of the patch under review (git diff origin/main...HEAD), or audit the range itself with --base";

/**
 * A diff's text. One written as UTF-16 (Windows PowerShell's `git diff > patch.diff`) is
 * refused with its encoding named: read as UTF-8 it would be no diff at all.
 */
function diffText(bytes: Buffer, what: string): string {
  const text = bytes.toString("utf8");
  const wide = wideEncodingOf(text);
  if (wide !== null) {
    throw refusal("diff-wide-encoding", { source: what, encoding: wide });
  }
  return text;
}

/**
 * The frozen-test list when --frozen is not given: the config's `frozen`, else the config's
 * `ledger` (the freeze ledger is a frozen list: its freezes[].test_id), else quarantine.json
 * or freeze-ledger.json in the repository root. None of them is an error, never "nothing
 * frozen": without a list every covered line would look defended; both is an error too.
 */
export function resolveFrozenFile(
  data: DataOptions,
  config: ConfigValues,
  root: string,
  exists: (path: string) => boolean,
): string {
  const file = chooseFrozenFile(data, config, root, exists);
  if (isFreezeLedger(file)) {
    // The audit judges this ledger's freezes; the tests must have applied the same ones.
    refuseForeignPluginLedger({
      root,
      testRoot: data.testRoot,
      ledgerPath: file,
      judge: "the audit",
      ledgerKey: '--frozen (or the "ledger" key of [tool.freezegate])',
    });
  }
  return file;
}

/** Does `file` read as a freeze ledger? Unreadable is no: the audit says why when it reads it. */
export function isFreezeLedger(file: string): boolean {
  try {
    // Only a ledger has "freezes": a quarantine list of thousands of ids is not parsed twice.
    if (!readTextFile(file, "frozen-test file").includes('"freezes"')) return false;
    return parseFrozenList(readJsonFile(file, "frozen-test file"), file).format === "ledger";
  } catch (error) {
    if (error instanceof FreezegateError) return false;
    throw error;
  }
}

/** Where the frozen list is, as flags and config name it (see resolveFrozenFile). */
export function frozenChoice(data: DataOptions, config: ConfigValues, root: string): FrozenChoice {
  if (data.frozen !== undefined) return { file: data.frozen };
  const ledger = config.ledger;
  if (typeof ledger === "string") return { file: isAbsolute(ledger) ? ledger : join(root, ledger) };
  return { oneOf: ["quarantine.json", DEFAULT_LEDGER_PATH].map((name) => join(root, name)) };
}

function chooseFrozenFile(
  data: DataOptions,
  config: ConfigValues,
  root: string,
  exists: (path: string) => boolean,
): string {
  const choice = frozenChoice(data, config, root);
  if ("file" in choice) return choice.file;
  const found = choice.oneOf.filter(exists);
  if (found.length > 1) {
    // `ledger migrate` leaves the quarantine list in place: reading either one alone would
    // quietly drop the other's freezes.
    throw refusal("frozen-list-ambiguous", { ledger: DEFAULT_LEDGER_PATH });
  }
  if (found[0] !== undefined) return found[0];
  throw refusal("no-frozen-list", { ledger: DEFAULT_LEDGER_PATH });
}

export function resolveFailOn(flags: OptionValues, config: ConfigValues): FailableVerdict[] {
  const flag = listOpt(flags, "fail-on");
  // Errors name where the list came from: a config value is not a flag the user typed.
  const where = flag === undefined ? 'the config file\'s "fail-on"' : "--fail-on";
  const raw = flag ?? listFrom({}, config, "fail-on") ?? [];
  const out = new Set<FailableVerdict>(["shadowed"]);
  for (const value of raw) {
    for (const item of value.split(",")) {
      const v = item.trim();
      // "uncovered," is a list with a hole: most likely an empty variable after the comma.
      if (v === "" || !(FAILABLE_VERDICTS as readonly string[]).includes(v)) {
        const verdict = v === "" ? null : v;
        throw refusal("bad-fail-on", { where, value, verdict, verdicts: FAILABLE_VERDICTS });
      }
      out.add(v as FailableVerdict);
    }
  }
  return FAILABLE_VERDICTS.filter((v) => out.has(v));
}

function pathRulesFrom(flags: OptionValues, config: ConfigValues): PathRule[] {
  const flag = listOpt(flags, "path-map");
  if (flag !== undefined) return flag.map(parsePathRule);
  const value = config["path-map"];
  if (!Array.isArray(value)) return [];
  return value.map((rule) => {
    if (rule.includes("=")) return parsePathRule(rule);
    // parsePathRule's message names the flag; this value came from the config file.
    throw refusal("path-map-no-equals", { spec: rule, inConfig: true });
  });
}

/**
 * --base and --head take one revision. git would read "a..b" as a range and "-p" as an
 * option, and its own message then suggests fetching them; a control character is a pasted
 * line break. Refused here with the reason.
 */
function checkRevision(flag: string, value: string): void {
  if (value.includes("..")) {
    throw refusal("ref-is-range", { flag, ref: value, withHead: flag === "--base" });
  }
  if (value.startsWith("-")) throw refusal("ref-starts-with-dash", { flag, ref: value });
  // biome-ignore lint/suspicious/noControlCharactersInRegex: finding them is the point
  if (/[\u0000-\u001f\u007f]/.test(value)) {
    throw refusal("ref-has-control-character", { flag, ref: value });
  }
}

export interface DataOptions {
  coverage: string | undefined;
  frozen: string | undefined;
  pathMap: PathRule[];
  /** undefined: the test runner's defaults (RunnerFiles), chosen once the data is found. */
  testGlobs: string[] | undefined;
  sourceGlobs: string[] | undefined;
  allowUnresolved: boolean;
  testRoot: string;
}

export function resolveDataOptions(
  flags: OptionValues,
  config: ConfigValues,
  cwd: string,
  root: string,
): DataOptions {
  const testRoot =
    stringOpt(flags, "test-root") ?? (config["test-root"] as string | undefined) ?? "";
  return {
    coverage: pathFrom(flags, config, "coverage", cwd, root),
    frozen: pathFrom(flags, config, "frozen", cwd, root),
    pathMap: pathRulesFrom(flags, config),
    testGlobs: listFrom(flags, config, "test-files"),
    sourceGlobs: listFrom(flags, config, "source-files"),
    allowUnresolved: boolOpt(flags, "allow-unresolved") || config["allow-unresolved"] === true,
    testRoot,
  };
}

/** What the commands that audit a patch (audit, check, stats) ask of every audit. */
export type AuditSettings = Omit<
  AuditRequest,
  "root" | "patch" | "frozen" | "settingsFor" | "hooks"
>;

/**
 * The audit's request as the flags and the config give it, shared by every command that
 * audits a patch: where the data is, the globs, the test root, and the gate's fail-on. The
 * command adds the patch, the frozen list, and whether the patch's own config counts.
 */
export function auditSettings(
  data: DataOptions,
  failOn: FailableVerdict[],
  cwd: string,
): AuditSettings & { cwd: string } {
  return {
    cwd,
    ...(data.coverage === undefined ? {} : { coverage: data.coverage }),
    pathMap: data.pathMap,
    testGlobs: data.testGlobs,
    sourceGlobs: data.sourceGlobs,
    failOn,
    allowUnresolved: data.allowUnresolved,
    testRoot: data.testRoot,
  };
}
