// Wiring the freezegate pytest plugin into a project's pytest configuration: add
// `-p freezegate_pytest` to addopts in the file pytest already reads, by a textual and minimal
// edit (comments and layout stay). Every edit is checked by parsing the result again: the
// pytest section must differ only by the two new arguments; an edit that cannot be made that
// way is refused. Pure: text in, text out (the `init` command reads and writes the files).

import { parse as parseToml } from "smol-toml";
import type { FreezegateError } from "../../core/errors.js";
import { type IniSection, IniSyntaxError, iniSections, textLines } from "../../core/ini.js";
import { refusal } from "../../core/refusals/index.js";
import { ShlexError, shlexSplit } from "../../core/shlex.js";
import { canonicalToml, lineIndexAt, TomlScanError, tableEntries } from "../../core/toml-text.js";
import {
  pyprojectPytestTables,
  pytestConfigNames,
  pytestIniSection,
  SETUP_CFG_PYTEST_SECTION,
} from "./pytest-config.js";

export const PLUGIN_MODULE = "freezegate_pytest";
const PLUGIN_ARGS = ["-p", PLUGIN_MODULE] as const;
export const PLUGIN_TEXT = PLUGIN_ARGS.join(" ");

export type WiringResult =
  | { kind: "already"; section: string }
  | {
      kind: "edited";
      text: string;
      section: string;
      /** The lines the edit wrote (1-based numbers), to show. */
      lines: Array<{ number: number; text: string }>;
    };

// ---------------------------------------------------------------------------------------------
// Arguments as pytest reads them (addopts is shlex.split in POSIX mode when it is a string).

/** Python's shlex.split, as pytest splits addopts; its refusals said for the file `label`. */
function shlexArgs(text: string, label: string): string[] {
  try {
    return shlexSplit(text);
  } catch (error) {
    if (!(error instanceof ShlexError)) throw error;
    throw refusal("pytest-addopts-unreadable", {
      label,
      problem: error.reason === "no closing quotation" ? "unclosed-quote" : "trailing-escape",
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
    throw refusal("plugin-switched-off", { where, plugin: PLUGIN_MODULE });
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
    throw refusal("pytest-config-unreadable", {
      file: `${label}:${error.line}`,
      why: error.describe((s) => JSON.stringify(s)),
    });
  }
}

/** Add the plugin to addopts in an INI-style file (pytest.ini, .pytest.ini, tox.ini, setup.cfg). */
export function wireIni(text: string, name: string, label: string): WiringResult {
  const sectionName = pytestIniSection(name);
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
    return verifyIni(text, newText, sectionName, label, where, changed);
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
  return verifyIni(text, lines.join(""), sectionName, label, where, changed);
}

function verifyIni(
  oldText: string,
  newText: string,
  sectionName: string,
  label: string,
  where: string,
  changed: number[],
): WiringResult {
  const flatten = (sections: IniSection[]) =>
    sections.map((s) => ({
      name: s.name,
      entries: s.entries.map((e) => ({
        name: e.name,
        value: s.name === sectionName && e.name === "addopts" ? shlexArgs(e.value, label) : e.value,
      })),
    }));
  const expected = flatten(parseIniFile(oldText, label));
  let section = expected.find((s) => s.name === sectionName);
  if (!section) {
    section = { name: sectionName, entries: [] };
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
  const lines = textLines(newText).map(stripEol);
  return {
    kind: "edited",
    text: newText,
    section: where,
    lines: changed.map((n) => ({ number: n + 1, text: lines[n] ?? "" })),
  };
}

function cannotEdit(label: string, why: string): FreezegateError {
  return refusal("init-cannot-edit", {
    label,
    why,
    byHand: `add ${PLUGIN_TEXT} to addopts by hand`,
  });
}

/** A scan of the TOML text, its refusal said as an edit that cannot be made. */
function scanned<T>(label: string, scan: () => T): T {
  try {
    return scan();
  } catch (error) {
    if (error instanceof TomlScanError) throw cannotEdit(label, error.message);
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// pyproject.toml: [tool.pytest.ini_options].

type Toml = Record<string, unknown>;

function parseTomlFile(text: string, label: string): Toml {
  try {
    return parseToml(text) as Toml;
  } catch (error) {
    const first = String((error as Error).message).split("\n")[0];
    throw refusal(
      "pytest-config-unreadable",
      { file: label, why: `not valid TOML: ${first}` },
      { cause: error },
    );
  }
}

/** pytest 9's TOML configuration: init says what to add instead of editing it. */
function nativeToml(where: string): FreezegateError {
  return refusal("init-pytest-toml", { where });
}

/** The arguments pytest takes from a TOML addopts value (a string is shlex-split). */
function tomlArgs(value: unknown, label: string): string[] {
  if (typeof value === "string") return shlexArgs(value, label);
  if (Array.isArray(value) && value.every((v) => typeof v === "string")) return value as string[];
  throw refusal("pytest-addopts-unreadable", { label, problem: "not-string-or-list" });
}

/** Add the plugin to [tool.pytest.ini_options] addopts in a pyproject.toml. */
export function wirePyproject(text: string, label: string): WiringResult {
  const where = "[tool.pytest.ini_options]";
  const doc = parseTomlFile(text, label);
  const options = pyprojectPytestTables(doc).iniOptions;
  if (!options) throw cannotEdit(label, "it has no [tool.pytest.ini_options] table");
  const current = options.addopts;
  const args = current === undefined ? [] : tomlArgs(current, label);
  refuseBlocked(args, `${where} in ${label}`);
  if (loadsPlugin(args) === "loads") return { kind: "already", section: where };
  const table = scanned(label, () => tableEntries(text, ["tool", "pytest", "ini_options"]));
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
  const afterOptions = pyprojectPytestTables(after).iniOptions;
  const newArgs = afterOptions?.addopts === undefined ? [] : tomlArgs(afterOptions.addopts, label);
  if (JSON.stringify(newArgs) !== JSON.stringify([...args, ...PLUGIN_ARGS])) {
    throw cannotEdit(label, "addopts did not read back as before plus the plugin");
  }
  if (afterOptions) delete afterOptions.addopts;
  delete options.addopts;
  if (canonicalToml(after) !== canonicalToml(doc)) {
    throw cannotEdit(label, "the edit changed more than addopts");
  }
  const first = lineIndexAt(newText, insertAt + (insert.startsWith(eol) ? eol.length : 0));
  const last = lineIndexAt(newText, insertAt + insert.length - 1);
  const textOf = newText.split("\n");
  const lines: Array<{ number: number; text: string }> = [];
  for (let n = first; n <= last; n++) {
    lines.push({ number: n + 1, text: (textOf[n] ?? "").replace(/\r$/, "") });
  }
  return { kind: "edited", text: newText, section: where, lines };
}

// ---------------------------------------------------------------------------------------------
// Which file pytest takes its settings from.

/** pytest 9's own TOML files, which pytest 7 does not read. */
export const PYTEST_9_ONLY_CONFIGS = pytestConfigNames(9).filter(
  (name) => !pytestConfigNames(7).includes(name),
);

/** Refuse a pytest 9 TOML file `label` (see nativeToml). */
export function refusePytest9Config(label: string): never {
  throw nativeToml(label);
}

/**
 * The config file's text when init may read it as pytest 7 does: refused (with what to fix)
 * where pytest cannot read it, or where it is pytest 9's native TOML configuration.
 */
export function checkedConfigText(name: string, text: string, label: string): string {
  if (name === "pyproject.toml") {
    // pytest 9's native [tool.pytest] table: a new pytest.ini would replace it, and its TOML
    // dialect is not ours to edit.
    if (pyprojectPytestTables(parseTomlFile(text, label)).native !== null) {
      throw nativeToml(`${label} [tool.pytest]`);
    }
    return text;
  }
  const sections = parseIniFile(text, label);
  if (
    name === "setup.cfg" &&
    !sections.some((s) => s.name === "tool:pytest") &&
    sections.some((s) => s.name === "pytest")
  ) {
    throw refusal("setup-cfg-pytest-section", { label, section: SETUP_CFG_PYTEST_SECTION });
  }
  return text;
}
