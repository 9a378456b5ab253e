// Where the reports of `audit`, `check` and `calibrate` go: `--format FORMAT` (one report on stdout),
// `--output FORMAT=FILE` (repeatable: several formats in one run; `--output FILE` alone is the
// --format report to FILE), colour for a terminal, `--quiet`, the `--history` the HTML report
// draws its trend from, and a progress line on a terminal while large coverage data is read.
//
// A report file is never half-written, and one run's reports are written as a set: every
// report is rendered first, then the adapter writes them all or none (writeFilesAtomically in
// src/adapters/write-file.ts); when that fails, the command exits 2 and nothing is printed on
// stdout. Only regular files are replaced: a symlink is followed (its target is replaced), and
// a FIFO or a device (`--output json=/dev/stdout`) is written to, never renamed over. `-` as
// the file is stdout. A report never replaces one of the run's own inputs, anything
// in the repository's .git directory, or a file git tracks that is not a freezegate report
// (refuseUnsafeOutputs).
//
// The HTML report asked for on stdout when stdout is a terminal goes to a file instead
// (HTML_ON_TERMINAL in the command's directory, as `coverage html` writes its own), and stdout
// says where; a pipe or a redirection still gets the page.

import { dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import {
  canonicalPath,
  entryAt,
  fileIdentity,
  isOwnStdout,
  isPlainFile,
  linkEnd,
} from "../adapters/file-identity.js";
import { gitDirectories, isTracked } from "../adapters/git.js";
import { readFileHead, readTextIfExists } from "../adapters/repo-files.js";
import { removeFile, writeFilesAtomically } from "../adapters/write-file.js";
import { refusal } from "../core/refusals/index.js";
import { parseHistory, type Stats } from "../core/stats.js";
import {
  FORMATS,
  type FormatName,
  formatNames,
  isFormat,
  type RenderContext,
  type Report,
  renderReport,
} from "../reporters/registry.js";
import {
  boolOpt,
  type CommandIo,
  listOpt,
  type OptionSpec,
  type OptionValues,
  stringOpt,
} from "./command.js";

function formatList(): string {
  return formatNames().join(", ");
}

export const OUTPUT_OPTIONS: OptionSpec[] = [
  {
    name: "format",
    type: "string",
    value: "FORMAT",
    description: `the report on stdout: ${formatList()} (default: text)`,
  },
  {
    name: "output",
    short: "o",
    type: "string",
    multiple: true,
    value: "[FORMAT=]FILE",
    description:
      "write a report to FILE: FORMAT=FILE in any format (repeat for several); FILE alone is the --format report, and stdout stays empty",
  },
  {
    name: "quiet",
    short: "q",
    type: "boolean",
    description: "text on stdout: only the verdict line",
  },
  {
    name: "history",
    type: "string",
    value: "FILE",
    description:
      "the stats history (JSON lines, from freezegate stats --history) for the HTML report's trend",
  },
];

/** Help paragraph shared by the commands (the registry's formats, html included once there). */
export function outputDetails(): string {
  const names = formatNames();
  const width = Math.max(...names.map((n) => n.length)) + 2;
  return [
    "Reports: --format picks the one on stdout; each --output FORMAT=FILE writes one more, e.g.",
    "  --output markdown=freezegate.md --output sarif=freezegate.sarif",
    '(append freezegate.md to "$GITHUB_STEP_SUMMARY": an --output file is replaced whole).',
    "Files are written together or not at all (temporary files, then renames); never over a",
    "file the run read, a file git tracks (unless a freezegate report) or anything in .git.",
    "--format html on a terminal writes freezegate-report.html instead. Colour when",
    "stdout is a terminal; NO_COLOR or TERM=dumb turns it off, FORCE_COLOR on (FORCE_COLOR=0 off).",
    "Formats:",
    ...names.map((n) => `  ${n.padEnd(width)}${FORMATS[n].description}`),
  ].join("\n");
}

export interface OutputTarget {
  /** undefined: a plain --output FILE, which takes the --format format. */
  format: FormatName | undefined;
  /** Absolute. */
  path: string;
}

export interface OutputRequest {
  /** --format, when given. */
  format: FormatName | undefined;
  outputs: OutputTarget[];
  quiet: boolean;
  /** --history, absolute, when given. */
  history: string | undefined;
  /** The directory relative --output paths are in (the command's, -C's). */
  cwd: string;
}

/** A name that reads as a format in FORMAT=FILE (a path never looks like this). */
const FORMAT_PREFIX = /^([A-Za-z][A-Za-z0-9_-]*)=(.*)$/s;

/** `--output -` / `--output FORMAT=-`: that report goes to stdout, as `--diff -` reads stdin. */
export const STDOUT = "-";

export function parseOutputTarget(value: string, cwd: string): OutputTarget {
  const m = FORMAT_PREFIX.exec(value);
  if (m) {
    const [, name, file] = m as unknown as [string, string, string];
    if (!isFormat(name)) {
      throw refusal("output-unknown-format", { value, format: name, known: formatList() });
    }
    if (file === "") {
      throw refusal("output-no-file", { value, format: name });
    }
    return { format: name, path: file === STDOUT ? STDOUT : resolve(cwd, file) };
  }
  if (value === "") {
    throw refusal("output-empty", undefined);
  }
  if (value.startsWith("=")) {
    throw refusal("output-no-format", { value, known: formatList() });
  }
  return { format: undefined, path: value === STDOUT ? STDOUT : resolve(cwd, value) };
}

/** The output flags, checked before anything runs (a usage error costs no audit). */
export function parseOutputRequest(values: OptionValues, cwd: string): OutputRequest {
  const formatFlag = stringOpt(values, "format");
  if (formatFlag !== undefined && !isFormat(formatFlag))
    throw refusal("unknown-format", { format: formatFlag, known: `one of: ${formatList()}` });
  const raw = listOpt(values, "output") ?? [];
  const single = stringOpt(values, "output");
  const given = [...raw, ...(single === undefined ? [] : [single])];
  const outputs = given.map((v) => parseOutputTarget(v, cwd));
  const plain = outputs.filter((o) => o.format === undefined);
  if (plain.length > 1) {
    throw refusal("output-plain-twice", undefined);
  }
  const toStdout = outputs.filter((o) => o.path === STDOUT);
  if (toStdout.length > 1) {
    throw refusal("output-stdout-twice", undefined);
  }
  const stdoutFormat = toStdout[0]?.format;
  if (
    stdoutFormat !== undefined &&
    plain.length === 0 &&
    formatFlag !== undefined &&
    formatFlag !== stdoutFormat
  ) {
    throw refusal("output-stdout-taken", { format: formatFlag, output: stdoutFormat });
  }
  const seen = new Set<string>();
  const files = new Map<string, number>();
  outputs.forEach((o, i) => {
    if (seen.has(o.path)) {
      throw refusal("output-file-twice", { path: o.path });
    }
    seen.add(o.path);
    if (o.path === STDOUT) return;
    // Two names for one file (a symbolic or a hard link): the second report would silently
    // replace the first.
    const key = fileIdentity(o.path);
    const first = files.get(key);
    if (first !== undefined) {
      throw refusal("output-same-file", {
        first: given[first] as string,
        second: given[i] as string,
      });
    }
    files.set(key, i);
  });
  const history = stringOpt(values, "history");
  const request: OutputRequest = {
    format: formatFlag,
    outputs,
    quiet: boolOpt(values, "quiet"),
    history: history === undefined ? undefined : resolve(cwd, history),
    cwd,
  };
  requested.set(values, request);
  return request;
}

/** The output request read from a command's flags, for removeStaleReports. */
const requested = new WeakMap<OptionValues, OutputRequest>();

/**
 * How each format's file begins (its first KiB): only a file freezegate wrote is ever
 * removed, never an input a typo named as the output (`-o json=quarantine.json`).
 */
const REPORT_STARTS: readonly RegExp[] = [
  /^freezegate (audit of|calibrate: )/, // text (a check's text starts with its audit's)
  /^\{\n {2}"schema": "freezegate\/(audit|check|calibrate)"/, // json
  /^\{\n {2}"\$schema": "[^"]*sarif[^"]*",[\s\S]*"name": "freezegate"/, // sarif
  /^<\?xml [^\n]*\?>\n<testsuites name="freezegate"/, // junit
  /^### \S+ freezegate (audit|check|calibrate): (PASS|FAIL)/u, // markdown
  /^(::(error|warning|notice) [^\n]*title=freezegate%3A|freezegate (audit|check|calibrate): (PASS|FAIL))/, // github
  /^<!DOCTYPE html>[\s\S]*<meta name="generator" content="freezegate /, // html
];

function isFreezegateReport(path: string): boolean {
  try {
    const text = readFileHead(path, "report", 1024).toString("utf8");
    return REPORT_STARTS.some((start) => start.test(text));
  } catch {
    return false;
  }
}

/**
 * After a run that could not finish (exit 2): the reports its --output flags name that an
 * earlier run left are removed, so that no later step (a GitLab job with `when: always`, a
 * second step in the same job, a workspace that is not cleaned) reads the last PASS as this
 * run's result. Only regular files that freezegate wrote (see REPORT_STARTS); links, devices
 * and anything else are left alone. Returns the paths removed.
 */
export function removeStaleReports(values: OptionValues): string[] {
  const request = requested.get(values);
  if (request === undefined) return [];
  const removed: string[] = [];
  for (const { path } of request.outputs) {
    if (path === STDOUT) continue;
    try {
      if (!isPlainFile(path) || !isFreezegateReport(path)) continue;
      removeFile(path);
      removed.push(path);
    } catch {
      // Not there, or not removable: nothing more to do on the way out.
    }
  }
  return removed;
}

export interface OutputPlan {
  /** The format printed on stdout, or null when a plain --output FILE took it. */
  stdout: FormatName | null;
  files: Array<{ format: FormatName; path: string }>;
  quiet: boolean;
  /** The file the HTML report went to because stdout is a terminal (absolute), or null. */
  htmlInstead: string | null;
}

/** Where the HTML report goes, in the command's directory, when stdout is a terminal. */
export const HTML_ON_TERMINAL = "freezegate-report.html";

/**
 * The request with the config file's `format` as the default --format. `stdout`: the stream
 * the report would be printed on (a terminal turns an HTML report into a file).
 */
export function planOutputs(
  request: OutputRequest,
  configFormat: unknown,
  stdout: { isTTY?: boolean } = {},
): OutputPlan {
  let fallback: FormatName = "text";
  if (configFormat !== undefined) {
    if (typeof configFormat !== "string" || !isFormat(configFormat)) {
      throw refusal("config-format-unknown", {
        format: String(configFormat),
        known: formatList(),
      });
    }
    fallback = configFormat;
  }
  const main = request.format ?? fallback;
  const toStdout = request.outputs.find((o) => o.path === STDOUT);
  const toFile = request.outputs.filter((o) => o.path !== STDOUT);
  const plainFile = toFile.some((o) => o.format === undefined);
  // `--output FORMAT=-` takes stdout; a plain `--output FILE` takes the --format report.
  const onStdout = toStdout ? (toStdout.format ?? main) : plainFile ? null : main;
  const files = toFile.map((o) => ({ format: o.format ?? main, path: o.path }));
  // A page of markup on a terminal helps nobody: it goes to a file, unless `--output html=-`
  // (or `-`) asked for it on stdout by name.
  if (onStdout === "html" && toStdout === undefined && stdout.isTTY === true) {
    const path = join(request.cwd, HTML_ON_TERMINAL);
    if (files.some((f) => canonicalPath(f.path) === canonicalPath(path))) {
      throw refusal("output-html-fallback-named", { path: HTML_ON_TERMINAL });
    }
    files.push({ format: "html", path });
    return { stdout: null, files, quiet: request.quiet, htmlInstead: path };
  }
  return { stdout: onStdout, files, quiet: request.quiet, htmlInstead: null };
}

/**
 * Fail before a long audit when a report could not be written anyway: each target's
 * directory must exist, and the target must not be a directory. (The write itself still
 * checks everything: this only saves the wait.)
 */
export function preflightOutputs(request: OutputRequest): void {
  for (const { path } of request.outputs) {
    if (path === STDOUT) continue;
    const dir = dirname(path);
    if (entryAt(dir)?.kind !== "directory") {
      throw refusal("output-directory-missing", { path, dir });
    }
    if (entryAt(path)?.kind === "directory") {
      throw refusal("output-is-directory", { path });
    }
  }
}

/** A path for a message: relative to `cwd` when inside it, else absolute. */
function shown(path: string, cwd: string): string {
  const rel = relative(cwd, path);
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

function isInside(path: string, dir: string): boolean {
  return path === dir || path.startsWith(dir.endsWith(sep) ? dir : `${dir}${sep}`);
}

/**
 * Refused before anything is written (exit 2), each a file a report would destroy: one of the
 * run's own inputs (`--output quarantine.json`, `--output .coverage`, a source file the audit
 * read), anything in the repository's .git directory (`--output .git/HEAD`), and a file git
 * tracks (`--output calc/ops.py`) unless it is a freezegate report (a report kept in the
 * repository is replaced as any report is). The path checked is the one the writer replaces:
 * a symbolic link's target.
 */
export async function refuseUnsafeOutputs(
  plan: OutputPlan,
  inputs: ReadonlyArray<{ path: string; what: string }>,
  root: string,
  cwd: string,
): Promise<void> {
  if (plan.files.length === 0) return;
  const byPath = new Map(inputs.map((i) => [canonicalPath(i.path), i.what]));
  const byInode = new Map<string, string>();
  for (const i of inputs) {
    const entry = entryAt(i.path);
    if (entry?.kind === "file") byInode.set(entry.inode, i.what);
  }
  const gitDirs = (await gitDirectories(root)).map(canonicalPath);
  const repoRoot = canonicalPath(root);
  for (const file of plan.files) {
    const target = canonicalPath(linkEnd(file.path));
    const entry = entryAt(target);
    const named = file.path === plan.htmlInstead ? "the HTML report's file" : `--output`;
    const what =
      byPath.get(target) ?? (entry?.kind === "file" ? byInode.get(entry.inode) : undefined);
    if (what !== undefined) {
      throw refusal("output-is-input", { named, path: shown(file.path, cwd), what });
    }
    const inGit =
      gitDirs.some((dir) => isInside(target, dir)) ||
      [file.path, target].some((p) => p.split(sep).includes(".git"));
    if (inGit) {
      throw refusal("output-in-git-directory", { named, path: shown(file.path, cwd) });
    }
    // A FIFO or a device is written through, not replaced; a report is replaced as ever.
    if (entry !== null && (entry.kind !== "file" || isFreezegateReport(target))) continue;
    if (file.path === plan.htmlInstead && entry !== null) {
      throw refusal("html-fallback-not-a-report", { path: shown(file.path, cwd) });
    }
    if (isInside(target, repoRoot) && (await isTracked(root, target))) {
      throw refusal("output-tracked-file", {
        named,
        path: shown(file.path, cwd),
        report: entry === null,
      });
    }
  }
}

/**
 * --history: the stats history, parsed strictly. A file that is missing or not JSON lines is
 * an error (a mistyped path must not quietly draw an empty trend).
 */
export function readHistoryOption(request: OutputRequest): Stats[] | null {
  if (request.history === undefined) return null;
  const text = readTextIfExists(request.history, "history file");
  if (text === null) {
    throw refusal("history-not-found", { path: request.history });
  }
  return parseHistory(text, request.history);
}

/**
 * Colour on stdout: FORCE_COLOR wins (Node's rule: "", "1", "2", "3" and "true" turn it on,
 * any other value off), then NO_COLOR (any non-empty value: off, per no-color.org), then
 * TERM=dumb (off), then whether the stream is a terminal.
 */
export function colorEnabled(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): boolean {
  const force = env.FORCE_COLOR;
  if (force !== undefined) return ["", "1", "2", "3", "true"].includes(force);
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== "") return false;
  if (env.TERM === "dumb") return false;
  return stream.isTTY === true;
}

/** Data below this size is read too fast to be worth a progress line. */
export const PROGRESS_MIN_BYTES = 8 * 1024 * 1024;

export function formatBytes(bytes: number): string {
  return bytes >= 1e9 ? `${(bytes / 1e9).toFixed(1)} GB` : `${(bytes / 1e6).toFixed(1)} MB`;
}

/**
 * The audit's `onDataFiles` hook for a command: on a terminal, one stderr line before large
 * coverage data is read; nothing at all when stderr is not a terminal (CI logs, pipes).
 */
export function dataReadProgress(
  io: Pick<CommandIo, "stderr">,
  minBytes = PROGRESS_MIN_BYTES,
): ((files: readonly string[]) => void) | undefined {
  if (io.stderr.isTTY !== true) return undefined;
  return (files) => {
    let bytes = 0;
    for (const file of files) {
      const entry = entryAt(file);
      if (entry?.kind === "file") bytes += entry.size;
    }
    if (bytes < minBytes) return;
    const count = files.length === 1 ? "" : ` in ${files.length} files`;
    io.stderr.write(`freezegate: reading coverage data (${formatBytes(bytes)}${count})…\n`);
  };
}

/**
 * Render the report in every planned format and put it out: the files first (all or none),
 * then stdout, so a failed write leaves stdout empty and the exit code 2.
 */
export function emitReports(
  report: Report,
  plan: OutputPlan,
  io: Pick<CommandIo, "stdout" | "env" | "cwd">,
  extras: Pick<RenderContext, "sources" | "history" | "directory">,
): void {
  const base: RenderContext = { color: false, quiet: false, ...extras };
  const files = plan.files.map((f) => ({
    path: f.path,
    content: renderReport(f.format, report, base),
  }));
  const stdout =
    plan.stdout === null
      ? null
      : renderReport(plan.stdout, report, {
          ...base,
          quiet: plan.quiet,
          color: colorEnabled(io.stdout, io.env),
        });
  // A file that is this process's stdout (/dev/stdout, /proc/self/fd/1, or the file stdout is
  // redirected to) is written through the stream: a socket cannot be opened by name at all,
  // and a rename would swap the file out from under the redirection.
  const viaStdout = io.stdout === process.stdout ? files.filter((f) => isOwnStdout(f.path)) : [];
  writeFilesAtomically(files.filter((f) => !viaStdout.includes(f)));
  for (const f of viaStdout) io.stdout.write(f.content);
  if (stdout !== null) io.stdout.write(stdout);
  if (plan.htmlInstead !== null) {
    io.stdout.write(
      `freezegate: wrote the HTML report to ${shown(plan.htmlInstead, io.cwd)} (stdout is a terminal; pipe it, or pass --output html=FILE, to put the page elsewhere)\n`,
    );
  }
}
