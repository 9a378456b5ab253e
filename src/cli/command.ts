// Command definitions and argument parsing. Each command declares its options once; parsing
// (node:util parseArgs, strict) and `--help` text both come from that declaration, so the
// help can never drift from what the parser accepts.

import { parseArgs } from "node:util";
import { UsageError } from "../core/errors.js";
import { refusal } from "../core/refusals/index.js";
import { shellWord } from "../core/shlex.js";

export interface OptionSpec {
  name: string;
  type: "string" | "boolean";
  short?: string;
  multiple?: boolean;
  /** Placeholder in help, e.g. "REF". */
  value?: string;
  description: string;
}

export interface CommandIo {
  stdout: NodeJS.WritableStream & { isTTY?: boolean };
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  stdin: NodeJS.ReadableStream;
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** For the audit to call once its long loops are done (see runProcess). */
  afterLongLoops?: () => void;
}

export type OptionValues = Record<string, string | boolean | string[] | undefined>;

export interface ParsedArgs {
  values: OptionValues;
  positionals: string[];
}

export interface CommandSpec {
  name: string;
  summary: string;
  usage: string;
  /** Extra help paragraphs after the options. */
  details?: string;
  options: OptionSpec[];
  /** Accepts positionals? (how many is the command's business) */
  positionals?: boolean;
  /** Returns the exit code. */
  run(args: ParsedArgs, io: CommandIo): Promise<number>;
}

/** A command with subcommands: `freezegate ledger check`. */
export interface CommandGroup {
  name: string;
  summary: string;
  subcommands: CommandSpec[];
}

export type CliEntry = CommandSpec | CommandGroup;

export function isGroup(entry: CliEntry): entry is CommandGroup {
  return "subcommands" in entry;
}

export function renderGroupHelp(group: CommandGroup): string {
  const width = Math.max(...group.subcommands.map((c) => c.name.length)) + 2;
  const lines = [
    `Usage: freezegate ${group.name} <subcommand> [options]`,
    "",
    group.summary,
    "",
    "Subcommands:",
    ...group.subcommands.map((c) => `  ${c.name.padEnd(width)}${firstSentence(c.summary)}`),
    "",
    `Run freezegate ${group.name} <subcommand> --help for its options.`,
  ];
  return `${lines.join("\n")}\n`;
}

export function firstSentence(text: string): string {
  return (text.split(". ")[0] ?? text).replace(/\.$/, "");
}

export const HELP_OPTION: OptionSpec = {
  name: "help",
  type: "boolean",
  short: "h",
  description: "show this help and exit",
};

/**
 * `path` is the command as typed after `freezegate` ("ledger check"): a subcommand's own
 * name ("check") would point the fix at another command's help.
 */
export function parseCommandArgs(
  spec: CommandSpec,
  argv: string[],
  path: string = spec.name,
): ParsedArgs {
  const options: Record<
    string,
    { type: "string" | "boolean"; short?: string; multiple?: boolean }
  > = {};
  for (const opt of [...spec.options, HELP_OPTION]) {
    options[opt.name] = {
      type: opt.type,
      ...(opt.short ? { short: opt.short } : {}),
      ...(opt.multiple ? { multiple: true } : {}),
    };
  }
  try {
    const { values, positionals, tokens } = parseArgs({
      args: withNegativeValues(spec, argv),
      options,
      strict: true,
      allowPositionals: spec.positionals ?? false,
      tokens: true,
    });
    refuseEmptyValues(spec, values as OptionValues);
    refuseConflictingRepeats(spec, tokens);
    return { values: values as OptionValues, positionals };
  } catch (error) {
    if (error instanceof UsageError) throw error;
    const full = String((error as Error).message);
    const message = full.split("\n")[0]?.replace(/\. To specify a positional.*$/, "");
    // "--base -x": Node's own hint (write --base=-x) is on a later line; keep it as the fix.
    const dashed = /use '(--[\w-]+=-XYZ)'/.exec(full);
    throw refusal("bad-arguments", {
      command: path,
      problem: message ?? full,
      dashed: dashed?.[1] ?? null,
    });
  }
}

/**
 * `--days -3`: a negative number after an option that takes a value is that value, never an
 * option (no option is a digit), so it is passed on for the option's own check to refuse
 * with the real reason; parseArgs alone would call the value "ambiguous".
 */
function withNegativeValues(spec: CommandSpec, argv: string[]): string[] {
  const takesValue = new Set<string>();
  for (const opt of spec.options) {
    if (opt.type !== "string") continue;
    takesValue.add(`--${opt.name}`);
    if (opt.short) takesValue.add(`-${opt.short}`);
  }
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    if (arg === "--") return [...out, ...argv.slice(i)];
    const next = argv[i + 1];
    if (takesValue.has(arg) && next !== undefined && /^-\d/.test(next)) {
      out.push(arg.startsWith("--") ? `${arg}=${next}` : `${arg}${next}`);
      i++;
    } else {
      out.push(arg);
    }
  }
  return out;
}

/**
 * An empty value is never what the user meant: it is an unset shell or CI variable
 * (`--base "$BASE_REF"`), and taking it as given would audit an empty range or drop a
 * config default. No option of any command has a meaning for "".
 */
function refuseEmptyValues(spec: CommandSpec, values: OptionValues): void {
  for (const opt of spec.options) {
    if (opt.type !== "string") continue;
    const v = values[opt.name];
    const empty = Array.isArray(v)
      ? v.some((item) => item.trim() === "")
      : typeof v === "string" && v.trim() === "";
    if (!empty) continue;
    const what = opt.value ?? "a value";
    throw refusal("empty-flag-value", { flag: opt.name, needs: what });
  }
}

/**
 * A single-value flag given twice with different values, in any command: parseArgs keeps
 * the last, so a wrapper's `--base origin/main` plus a user's `--base HEAD` (the GitHub
 * Action appends its `args` input) would quietly audit another range, and `--owner a
 * --owner b` record another owner. The same value twice is harmless.
 */
function refuseConflictingRepeats(
  spec: CommandSpec,
  tokens: ReadonlyArray<{ kind: string; name?: string; value?: string | undefined }>,
): void {
  const single = new Set(
    spec.options.filter((o) => o.type === "string" && !o.multiple).map((o) => o.name),
  );
  const first = new Map<string, string>();
  for (const token of tokens) {
    if (token.kind !== "option" || token.name === undefined || !single.has(token.name)) continue;
    const value = token.value ?? "";
    const earlier = first.get(token.name);
    if (earlier === undefined) first.set(token.name, value);
    else if (earlier !== value) {
      throw refusal("flag-given-twice", { flag: token.name, first: earlier, second: value });
    }
  }
}

/**
 * `freezegate PATH` with the arguments as parsed (in the options' declared order) plus
 * `extra`, for a fix that gives the exact command to run next.
 */
export function commandLine(
  path: string,
  spec: CommandSpec,
  args: ParsedArgs,
  extra: readonly string[] = [],
): string {
  const words = ["freezegate", ...path.split(" ")];
  for (const opt of spec.options) {
    const v = args.values[opt.name];
    if (v === undefined || v === false) continue;
    if (v === true) words.push(`--${opt.name}`);
    else
      for (const item of Array.isArray(v) ? v : [v]) words.push(`--${opt.name}`, shellWord(item));
  }
  for (const p of args.positionals) words.push(shellWord(p));
  return [...words, ...extra].join(" ");
}

export function renderHelp(spec: CommandSpec): string {
  const rows = [...spec.options, HELP_OPTION].map((opt) => {
    const flag = `${opt.short ? `-${opt.short}, ` : "    "}--${opt.name}${opt.value ? ` ${opt.value}` : ""}`;
    return [flag, opt.description + (opt.multiple ? " (repeatable)" : "")] as const;
  });
  const width = Math.min(34, Math.max(...rows.map(([f]) => f.length)) + 2);
  const lines = [`Usage: ${spec.usage}`, "", spec.summary, "", "Options:"];
  for (const [flag, desc] of rows) {
    lines.push(
      flag.length + 2 > width
        ? `  ${flag}\n  ${" ".repeat(width)}${desc}`
        : `  ${flag.padEnd(width)}${desc}`,
    );
  }
  if (spec.details) lines.push("", spec.details.trimEnd());
  return `${lines.join("\n")}\n`;
}

export function stringOpt(values: OptionValues, name: string): string | undefined {
  const v = values[name];
  return typeof v === "string" ? v : undefined;
}

export function listOpt(values: OptionValues, name: string): string[] | undefined {
  const v = values[name];
  return Array.isArray(v) ? v : undefined;
}

export function boolOpt(values: OptionValues, name: string): boolean {
  return values[name] === true;
}

/**
 * A whole-number flag of at least `min` (`fallback` when it is not given), or the bad-count
 * refusal, whose fix shows `example` (default: the larger of `min`, `fallback` and 2).
 */
export function countOpt(
  values: OptionValues,
  flag: string,
  fallback: number,
  min: number,
  example = Math.max(min, fallback, 2),
): number {
  const raw = stringOpt(values, flag);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min) {
    throw refusal("bad-count", { flag, value: raw, min, example });
  }
  return n;
}
