// `freezegate init pytest`: wire the pytest plugin (integrations/pytest, module
// freezegate_pytest) into a project by adding `-p freezegate_pytest` to addopts in the
// configuration file pytest already uses, or by creating pytest.ini; then say exactly what
// changed and how to install the plugin.
//
// The file is found the way pytest 7 finds it (_pytest/config/findpaths.py): in the directory
// and then its parents, the first of pytest.ini, .pytest.ini, pyproject.toml with
// [tool.pytest.ini_options], tox.ini with [pytest], setup.cfg with [tool:pytest]. The search
// stops at the repository root: a file above the repository is not ours to edit (a pytest.ini
// created in the directory then takes precedence over it, as pytest searches upwards).
//
// Edits are textual and minimal (comments and layout stay), and every edit is checked by
// parsing the result again: the pytest section must differ only by the two new arguments.
// An edit that cannot be made that way is refused and nothing is written. The write is
// atomic; running the command again changes nothing.

import { existsSync, realpathSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { parse as parseToml } from "smol-toml";
import { findRepoRoot } from "../../adapters/git.js";
import { readTextIfExists } from "../../adapters/repo-files.js";
import { writeFileAtomic } from "../../adapters/write-file.js";
import { ConfigError, GitError, UsageError } from "../../core/errors.js";
import { type IniSection, IniSyntaxError, iniSections, textLines } from "../../core/ini.js";
import { ShlexError, shlexSplit } from "../../core/shlex.js";
import {
  boolOpt,
  type CommandIo,
  type CommandSpec,
  type ParsedArgs,
  stringOpt,
} from "../command.js";
import { DIRECTORY_OPTION } from "../ledger-options.js";

export const PLUGIN_MODULE = "freezegate_pytest";
const PLUGIN_ARGS = ["-p", PLUGIN_MODULE] as const;
const PLUGIN_TEXT = PLUGIN_ARGS.join(" ");

export type PytestConfigKind =
  | "pytest.ini"
  | ".pytest.ini"
  | "pyproject.toml"
  | "tox.ini"
  | "setup.cfg";

/** pytest's search order within one directory. */
export const CONFIG_NAMES: readonly PytestConfigKind[] = [
  "pytest.ini",
  ".pytest.ini",
  "pyproject.toml",
  "tox.ini",
  "setup.cfg",
];

export type WiringResult =
  | { kind: "already"; section: string }
  | { kind: "edited"; text: string; section: string; lines: number[] };

// ---------------------------------------------------------------------------------------------
// Arguments as pytest reads them (addopts is shlex.split in POSIX mode when it is a string).

/** Python's shlex.split, as pytest splits addopts; its refusals said for the file `label`. */
function shlexArgs(text: string, label: string): string[] {
  try {
    return shlexSplit(text);
  } catch (error) {
    if (!(error instanceof ShlexError)) throw error;
    throw error.reason === "no closing quotation"
      ? new ConfigError(`${label}: addopts has no closing quotation`, { fix: "close the quote" })
      : new ConfigError(`${label}: addopts ends with an escape character`, {
          fix: "remove the trailing backslash",
        });
  }
}

/** Whether the arguments load the plugin (`-p freezegate_pytest` or `-pfreezegate_pytest`). */
export function loadsPlugin(args: readonly string[]): "loads" | "blocks" | "absent" {
  let found: "loads" | "blocks" | "absent" = "absent";
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const value = arg === "-p" ? args[i + 1] : arg.startsWith("-p") ? arg.slice(2) : undefined;
    if (value === PLUGIN_MODULE) found = "loads";
    if (value === `no:${PLUGIN_MODULE}`) return "blocks";
    if (arg === "-p") i += 1;
  }
  return found;
}

function refuseBlocked(args: readonly string[], where: string): void {
  if (loadsPlugin(args) === "blocks") {
    throw new ConfigError(
      `${where} switches the plugin off (its addopts has -p no:${PLUGIN_MODULE})`,
      {
        fix: `remove -p no:${PLUGIN_MODULE} from addopts first`,
      },
    );
  }
}

// ---------------------------------------------------------------------------------------------
// INI files, read the way pytest's iniconfig reads them (src/core/ini.ts).

function stripEol(line: string): string {
  return line.replace(/\r?\n$|\r$/, "");
}

/** The file's sections; iniconfig's refusals said for the file `label`. */
function parseIniFile(text: string, label: string): IniSection[] {
  try {
    return iniSections(text);
  } catch (error) {
    if (!(error instanceof IniSyntaxError)) throw error;
    throw new ConfigError(
      `${label}:${error.line}: ${error.describe((s) => JSON.stringify(s))} (pytest cannot read this file either)`,
      { fix: "fix the file's syntax" },
    );
  }
}

/** The section pytest reads in a file of this kind. */
function iniSectionName(kind: PytestConfigKind): string {
  return kind === "setup.cfg" ? "tool:pytest" : "pytest";
}

/** Add the plugin to addopts in an INI-style file (pytest.ini, .pytest.ini, tox.ini, setup.cfg). */
export function wireIni(text: string, kind: PytestConfigKind, label: string): WiringResult {
  const sectionName = iniSectionName(kind);
  const before = parseIniFile(text, label);
  const section = before.find((s) => s.name === sectionName);
  const where = `[${sectionName}]`;
  const lines = textLines(text);
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  let changed: number[];
  if (!section) {
    // Only pytest.ini is used by pytest without its section; give it one.
    const prefix = text === "" || text.endsWith("\n") ? "" : eol;
    const sep = text.trim() === "" ? "" : eol;
    lines.push(`${prefix}${sep}[${sectionName}]${eol}`, `addopts = ${PLUGIN_TEXT}${eol}`);
    const newText = lines.join("");
    changed = [textLines(newText).length - 1];
    return verifyIni(text, newText, kind, label, where, changed);
  }
  const addopts = section.entries.find((e) => e.name === "addopts");
  if (addopts) {
    const args = shlexArgs(addopts.value, label);
    refuseBlocked(args, `${where} in ${label}`);
    if (loadsPlugin(args) === "loads") return { kind: "already", section: where };
    if (addopts.lastLine > addopts.line) {
      const previous = stripEol(lines[addopts.lastLine] as string);
      const indent = /^\s*/.exec(previous)?.[0] ?? "    ";
      lines.splice(addopts.lastLine + 1, 0, `${indent}${PLUGIN_TEXT}${eol}`);
      changed = [addopts.lastLine + 1];
    } else {
      const line = lines[addopts.line] as string;
      const ending = line.endsWith("\r\n") ? "\r\n" : line.endsWith("\n") ? "\n" : "";
      lines[addopts.line] = `${stripEol(line).trimEnd()} ${PLUGIN_TEXT}${ending}`;
      changed = [addopts.line];
    }
  } else {
    lines.splice(section.line + 1, 0, `addopts = ${PLUGIN_TEXT}${eol}`);
    changed = [section.line + 1];
  }
  return verifyIni(text, lines.join(""), kind, label, where, changed);
}

function verifyIni(
  oldText: string,
  newText: string,
  kind: PytestConfigKind,
  label: string,
  where: string,
  changed: number[],
): WiringResult {
  const name = iniSectionName(kind);
  const flatten = (sections: IniSection[]) =>
    sections.map((s) => ({
      name: s.name,
      entries: s.entries.map((e) => ({
        name: e.name,
        value: s.name === name && e.name === "addopts" ? shlexArgs(e.value, label) : e.value,
      })),
    }));
  const expected = flatten(parseIniFile(oldText, label));
  let section = expected.find((s) => s.name === name);
  if (!section) {
    section = { name, entries: [] };
    expected.push(section);
  }
  const entry = section.entries.find((e) => e.name === "addopts");
  if (entry) entry.value = [...(entry.value as string[]), ...PLUGIN_ARGS];
  else section.entries.unshift({ name: "addopts", value: [...PLUGIN_ARGS] });
  const actual = flatten(parseIniFile(newText, label));
  const sort = (x: ReturnType<typeof flatten>) =>
    x.map((s) => ({ ...s, entries: [...s.entries].sort((a, b) => (a.name < b.name ? -1 : 1)) }));
  if (JSON.stringify(sort(actual)) !== JSON.stringify(sort(expected))) {
    throw cannotEdit(
      label,
      "the edited file did not read back as the same configuration plus the plugin",
    );
  }
  return { kind: "edited", text: newText, section: where, lines: changed };
}

function cannotEdit(label: string, why: string): ConfigError {
  return new ConfigError(`cannot edit ${label} safely: ${why}; nothing was written`, {
    fix: `add ${PLUGIN_TEXT} to addopts by hand`,
  });
}

// ---------------------------------------------------------------------------------------------
// pyproject.toml: [tool.pytest.ini_options].

type Toml = Record<string, unknown>;

function parseTomlFile(text: string, label: string): Toml {
  try {
    return parseToml(text) as Toml;
  } catch (error) {
    const first = String((error as Error).message).split("\n")[0];
    throw new ConfigError(`${label} is not valid TOML: ${first}`, {
      fix: "fix the TOML syntax (pytest cannot read it either)",
      cause: error,
    });
  }
}

function iniOptions(doc: Toml): Toml | undefined {
  const tool = doc.tool as Toml | undefined;
  const pytest = tool && typeof tool === "object" ? (tool.pytest as Toml | undefined) : undefined;
  const options = pytest && typeof pytest === "object" ? pytest.ini_options : undefined;
  return options && typeof options === "object" && !Array.isArray(options)
    ? (options as Toml)
    : undefined;
}

/** Whether a pyproject.toml configures pytest (pytest 7 ignores it otherwise). */
export function pyprojectConfiguresPytest(text: string, label: string): boolean {
  const doc = parseTomlFile(text, label);
  const tool = doc.tool as Toml | undefined;
  const pytest = tool && typeof tool === "object" ? (tool.pytest as Toml | undefined) : undefined;
  // pytest 9's native [tool.pytest] table (keys beside ini_options): a new pytest.ini would
  // replace it, and its TOML dialect is not ours to edit.
  if (
    pytest &&
    typeof pytest === "object" &&
    Object.keys(pytest).some((k) => k !== "ini_options")
  ) {
    throw nativeToml(`${label} [tool.pytest]`);
  }
  return iniOptions(doc) !== undefined;
}

/** pytest 9's TOML configuration: init says what to add instead of editing it. */
function nativeToml(where: string): ConfigError {
  return new ConfigError(
    `${where} is pytest 9's TOML configuration, which freezegate init does not edit (a pytest.ini beside it would replace it)`,
    {
      fix: 'add "-p", "freezegate_pytest" to its addopts list yourself, then run pytest with the plugin installed',
    },
  );
}

/** The arguments pytest takes from a TOML addopts value (a string is shlex-split). */
function tomlArgs(value: unknown, label: string): string[] {
  if (typeof value === "string") return shlexArgs(value, label);
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  throw new ConfigError(
    `${label}: [tool.pytest.ini_options] addopts is neither a string nor a list of strings`,
    {
      fix: 'write addopts = "..." or addopts = ["...", ...]',
    },
  );
}

/** Index just after a TOML string starting at `start` (any of the four kinds). */
function skipString(text: string, start: number, label: string): number {
  const quote = text[start] as string;
  const triple = text.startsWith(quote.repeat(3), start);
  const delimiter = triple ? quote.repeat(3) : quote;
  let i = start + delimiter.length;
  while (i < text.length) {
    if (quote === '"' && text[i] === "\\") {
      i += 2;
      continue;
    }
    if (text.startsWith(delimiter, i)) {
      // A multi-line string may end with up to two extra quotes before its delimiter.
      let end = i + delimiter.length;
      if (triple) while (text[end] === quote && end < i + delimiter.length + 2) end += 1;
      return end;
    }
    if (!triple && text[i] === "\n") break;
    i += 1;
  }
  throw cannotEdit(label, "an unterminated string");
}

interface ArrayShape {
  end: number;
  /** Index just after the last value or comma inside the array (start + 1 when empty). */
  lastEnd: number;
  lastWasComma: boolean;
  empty: boolean;
}

/** Index just after the TOML value at `start`; for arrays also where the last item ends. */
function skipValue(text: string, start: number, label: string): ArrayShape {
  const ch = text[start];
  if (ch === '"' || ch === "'") {
    const end = skipString(text, start, label);
    return { end, lastEnd: end, lastWasComma: false, empty: false };
  }
  if (ch === "[" || ch === "{") {
    const close = ch === "[" ? "]" : "}";
    let i = start + 1;
    let lastEnd = start + 1;
    let lastWasComma = false;
    let empty = true;
    while (i < text.length) {
      const c = text[i] as string;
      if (c === close) return { end: i + 1, lastEnd, lastWasComma, empty };
      if (c === "#") {
        while (i < text.length && text[i] !== "\n") i += 1;
      } else if (/\s/.test(c)) {
        i += 1;
      } else if (c === ",") {
        i += 1;
        lastEnd = i;
        lastWasComma = true;
      } else if (ch === "{" && c !== '"' && c !== "'" && c !== "[" && c !== "{") {
        i += 1; // keys, "=" and bare values of an inline table
        lastEnd = i;
      } else {
        const inner = skipValue(text, i, label);
        i = inner.end;
        lastEnd = i;
        lastWasComma = false;
        empty = false;
      }
    }
    throw cannotEdit(label, "an unterminated array or inline table");
  }
  // A bare value (number, boolean, date): up to a comma, bracket, comment or line end.
  let i = start;
  while (i < text.length && !/[,\]}#\n]/.test(text[i] as string)) i += 1;
  while (i > start && /\s/.test(text[i - 1] as string)) i -= 1;
  return { end: i, lastEnd: i, lastWasComma: false, empty: false };
}

interface TomlKeyValue {
  key: string;
  valueStart: number;
  shape: ArrayShape;
  lineStart: number;
}

/** The [tool.pytest.ini_options] table's header line end and its key/value pairs. */
function findIniOptionsTable(
  text: string,
  label: string,
): { headerEnd: number; pairs: TomlKeyValue[] } | null {
  const header =
    /^[ \t]*\[[ \t]*tool[ \t]*\.[ \t]*pytest[ \t]*\.[ \t]*ini_options[ \t]*\][ \t]*(#[^\n]*)?\r?$/m;
  // Scan the whole file so that a "[" inside a multi-line value is never taken for a header.
  let i = 0;
  let inTable = false;
  let headerEnd = -1;
  const pairs: TomlKeyValue[] = [];
  while (i < text.length) {
    const lineStart = i;
    while (i < text.length && (text[i] === " " || text[i] === "\t")) i += 1;
    const c = text[i];
    if (c === undefined) break;
    if (c === "\n" || c === "\r" || c === "#") {
      while (i < text.length && text[i] !== "\n") i += 1;
      i += 1;
      continue;
    }
    if (c === "[") {
      const lineEnd = text.indexOf("\n", i);
      const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd);
      if (inTable) break;
      if (header.test(line)) {
        inTable = true;
        headerEnd = lineEnd < 0 ? text.length : lineEnd + 1;
      }
      i = lineEnd < 0 ? text.length : lineEnd + 1;
      continue;
    }
    // key = value
    const eq = findKeyEnd(text, i, label);
    const key = text
      .slice(i, eq)
      .trim()
      .split(".")
      .map((part) => part.trim().replace(/^(["'])(.*)\1$/, "$2"))
      .join(".");
    let v = eq + 1;
    while (text[v] === " " || text[v] === "\t") v += 1;
    const shape = skipValue(text, v, label);
    if (inTable) pairs.push({ key, valueStart: v, shape, lineStart });
    i = shape.end;
    while (i < text.length && text[i] !== "\n") i += 1;
    i += 1;
  }
  return inTable ? { headerEnd, pairs } : null;
}

/** Index of the "=" that ends the key starting at `start` (quoted keys may contain "="). */
function findKeyEnd(text: string, start: number, label: string): number {
  let i = start;
  while (i < text.length && text[i] !== "=" && text[i] !== "\n") {
    if (text[i] === '"' || text[i] === "'") i = skipString(text, i, label);
    else i += 1;
  }
  if (text[i] !== "=") throw cannotEdit(label, "a line that is not a key/value pair");
  return i;
}

function lineIndexAt(text: string, offset: number): number {
  let n = 0;
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === "\n") n += 1;
  return n;
}

/** Add the plugin to [tool.pytest.ini_options] addopts in a pyproject.toml. */
export function wirePyproject(text: string, label: string): WiringResult {
  const where = "[tool.pytest.ini_options]";
  const doc = parseTomlFile(text, label);
  const options = iniOptions(doc);
  if (!options) throw cannotEdit(label, "it has no [tool.pytest.ini_options] table");
  const current = options.addopts;
  const args = current === undefined ? [] : tomlArgs(current, label);
  refuseBlocked(args, `${where} in ${label}`);
  if (loadsPlugin(args) === "loads") return { kind: "already", section: where };
  const table = findIniOptionsTable(text, label);
  if (!table) {
    throw cannotEdit(
      label,
      "its pytest settings are not written as a [tool.pytest.ini_options] table header",
    );
  }
  const eol = text.includes("\r\n") ? "\r\n" : "\n";
  const pair = table.pairs.find((p) => p.key === "addopts");
  let insertAt: number;
  let insert: string;
  if (!pair) {
    insertAt = table.headerEnd;
    insert = `addopts = "${PLUGIN_TEXT}"${eol}`;
    if (insertAt === text.length && !text.endsWith("\n")) insert = eol + insert;
  } else if (typeof current === "string") {
    const quote = text[pair.valueStart] as string;
    const triple = text.startsWith(quote.repeat(3), pair.valueStart);
    insertAt = pair.shape.end - (triple ? 3 : 1);
    insert = current.trim() === "" ? PLUGIN_TEXT : ` ${PLUGIN_TEXT}`;
  } else {
    const items = `"${PLUGIN_ARGS[0]}", "${PLUGIN_ARGS[1]}"`;
    const { lastEnd, lastWasComma, empty } = pair.shape;
    if (empty) {
      insertAt = pair.valueStart + 1;
      insert = items;
    } else if (!lastWasComma) {
      insertAt = lastEnd;
      insert = `, ${items}`;
    } else {
      const multiLine = text.slice(pair.valueStart, pair.shape.end).includes("\n");
      insertAt = lastEnd;
      if (multiLine) {
        const lineStart = text.lastIndexOf("\n", lastEnd - 1) + 1;
        const indent = /^[ \t]*/.exec(text.slice(lineStart))?.[0] ?? "  ";
        insert = `${eol}${indent}${items},`;
      } else {
        insert = ` ${items},`;
      }
    }
  }
  const newText = text.slice(0, insertAt) + insert + text.slice(insertAt);
  // Read it back: the document must be the old one with only addopts extended.
  const after = parseTomlFile(newText, label);
  const afterOptions = iniOptions(after);
  const newArgs = afterOptions?.addopts === undefined ? [] : tomlArgs(afterOptions.addopts, label);
  if (JSON.stringify(newArgs) !== JSON.stringify([...args, ...PLUGIN_ARGS])) {
    throw cannotEdit(label, "addopts did not read back as before plus the plugin");
  }
  if (afterOptions) delete afterOptions.addopts;
  delete options.addopts;
  if (canonical(after) !== canonical(doc)) {
    throw cannotEdit(label, "the edit changed more than addopts");
  }
  const first = lineIndexAt(newText, insertAt + (insert.startsWith(eol) ? eol.length : 0));
  const last = lineIndexAt(newText, insertAt + insert.length - 1);
  const lines: number[] = [];
  for (let n = first; n <= last; n++) lines.push(n);
  return { kind: "edited", text: newText, section: where, lines };
}

/** Key-order-independent text of a parsed TOML document (dates and big integers included). */
function canonical(value: unknown): string {
  if (typeof value === "bigint") return `${value}n`;
  if (value instanceof Date) return `date:${value.toISOString?.() ?? String(value)}`;
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(record[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? String(value);
}

// ---------------------------------------------------------------------------------------------
// Finding the file pytest uses.

export interface FoundConfig {
  path: string;
  kind: PytestConfigKind;
  text: string;
}

/** Whether pytest would take its configuration from this file (findpaths.py rules). */
function configuresPytest(kind: PytestConfigKind, text: string, label: string): boolean {
  switch (kind) {
    case "pytest.ini":
      return true;
    case ".pytest.ini":
    case "tox.ini":
      return parseIniFile(text, label).some((s) => s.name === "pytest");
    case "pyproject.toml":
      return pyprojectConfiguresPytest(text, label);
    case "setup.cfg": {
      const sections = parseIniFile(text, label);
      if (sections.some((s) => s.name === "tool:pytest")) return true;
      if (sections.some((s) => s.name === "pytest")) {
        throw new ConfigError(
          `${label} has a [pytest] section, which pytest refuses in setup.cfg`,
          {
            fix: "rename the section to [tool:pytest]",
          },
        );
      }
      return false;
    }
  }
}

/** The configuration file pytest would use when started in `dir`, searching up to `stop`. */
export function findPytestConfig(
  dir: string,
  stop: string,
  label: (p: string) => string,
): FoundConfig | null {
  let current = dir;
  for (;;) {
    // pytest 9 looks for these first, and takes their TOML dialect: not ours to edit.
    for (const name of ["pytest.toml", ".pytest.toml"]) {
      if (existsSync(join(current, name))) throw nativeToml(label(join(current, name)));
    }
    for (const kind of CONFIG_NAMES) {
      const path = join(current, kind);
      const text = readTextIfExists(path, "pytest configuration");
      if (text === null) continue;
      if (configuresPytest(kind, text, label(path))) return { path, kind, text };
    }
    if (current === stop) return null;
    const parent = dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

/** integrations/pytest next to this freezegate (a checkout, or the installed npm package). */
export function pluginDirectory(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 8; depth++) {
    const candidate = join(dir, "integrations", "pytest");
    if (
      existsSync(join(candidate, "pyproject.toml")) &&
      existsSync(join(candidate, PLUGIN_MODULE))
    ) {
      return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}

function realpathOr(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return path;
  }
}

// ---------------------------------------------------------------------------------------------
// The command.

export const initCommand: CommandSpec = {
  name: "init",
  summary:
    "Wire the pytest plugin into a project: add -p freezegate_pytest to addopts in the pytest configuration (or create pytest.ini).",
  usage: "freezegate init pytest [--dry-run] [-C DIR]",
  positionals: true,
  options: [
    { name: "dry-run", type: "boolean", description: "say what would change, write nothing" },
    DIRECTORY_OPTION,
  ],
  details: `The configuration file is the one pytest uses when started in the directory: the first
of pytest.ini, .pytest.ini, pyproject.toml with [tool.pytest.ini_options], tox.ini with
[pytest], setup.cfg with [tool:pytest], in the directory and then its parents up to the
repository root. Without one, pytest.ini is created in the directory. Comments and layout
are kept; running it again changes nothing.

Exit codes:
  0  wired (or already wired; or --dry-run)
  2  usage error, or a configuration file that cannot be read or edited safely`,
  async run(args: ParsedArgs, io: CommandIo): Promise<number> {
    const [target, ...extra] = args.positionals;
    if (target !== "pytest" || extra.length > 0) {
      throw new UsageError(
        target === undefined
          ? "init needs the test runner to wire: pytest"
          : `init knows one test runner, pytest, not "${[target, ...extra].join(" ")}"`,
        { fix: "run freezegate init pytest" },
      );
    }
    const dryRun = boolOpt(args.values, "dry-run");
    const given = resolve(io.cwd, stringOpt(args.values, "directory") ?? ".");
    let stop: string | null = null;
    try {
      stop = await findRepoRoot(given);
    } catch (error) {
      // Outside a git work tree only the directory itself is searched.
      if (!(error instanceof GitError)) throw error;
    }
    // git reports the root with symlinks resolved; so must the directories we walk up.
    const dir = realpathSync(given);
    stop ??= dir;
    const here = realpathOr(io.cwd);
    const show = (path: string) => relative(here, path) || ".";
    const found = findPytestConfig(dir, stop, show);
    const out: string[] = [];
    if (!found) {
      const path = join(dir, "pytest.ini");
      const text = `[pytest]\naddopts = ${PLUGIN_TEXT}\n`;
      if (!dryRun) writeFileAtomic(path, text);
      out.push(
        `${dryRun ? "would create" : "created"} ${show(path)} (pytest found no configuration here):`,
      );
      for (const line of text.trimEnd().split("\n")) out.push(`  ${line}`);
    } else {
      const label = show(found.path);
      const result =
        found.kind === "pyproject.toml"
          ? wirePyproject(found.text, label)
          : wireIni(found.text, found.kind, label);
      if (result.kind === "already") {
        out.push(
          `${label} already loads the plugin (${result.section} addopts has ${PLUGIN_TEXT}); nothing changed`,
        );
      } else {
        if (!dryRun) writeFileAtomic(found.path, result.text);
        out.push(
          `${dryRun ? "would add" : "added"} "${PLUGIN_TEXT}" to ${result.section} addopts in ${label}:`,
        );
        const lines = result.text.split("\n");
        for (const n of result.lines)
          out.push(`  ${label}:${n + 1}: ${(lines[n] ?? "").replace(/\r$/, "")}`);
      }
    }
    const plugin = pluginDirectory();
    out.push(
      "",
      "Then install the plugin where pytest runs (it depends on pytest only):",
      plugin
        ? `  pip install ${plugin}`
        : "  pip install <the freezegate package>/integrations/pytest (not found next to this freezegate)",
      `Until it is installed pytest stops with 'Error importing plugin "${PLUGIN_MODULE}"', so a`,
      "missing plugin can never mean an ignored ledger.",
      "The plugin applies freeze-ledger.json from pytest's rootdir (--freezegate-ledger to change it)",
      "and writes .freezegate/applied.json and .freezegate/samples.json (add those two files to",
      ".gitignore, not the directory if the ledger lives there: a committed record or samples",
      "file is not a record of the run).",
    );
    if (dryRun) out.push("(dry run: nothing was written)");
    io.stdout.write(`${out.join("\n")}\n`);
    return 0;
  },
};
