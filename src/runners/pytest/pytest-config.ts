// pytest's configuration, read once and by pytest's own rules (_pytest/config/findpaths.py,
// iniconfig, shlex, its argument parser): which file pytest takes its settings from and its
// rootdir (locatePytestConfig, pytestRootdir), and what the file says: the plugin's ledger and
// record paths, `python_files`, pytest-cov's `--cov-config`. Pure: the caller reads the files.
// The readers follow pytest 7 (Debian's) and pytest 9 (which adds pytest.toml and the native
// [tool.pytest] table), so a setup that either one would read differently is judged both ways.
// The plugin and the CLI each find a ledger of their own; when they are two files, a freeze
// only pytest applies mutes a test the gate counts as live (src/adapters/pytest-ledger.ts).

import { parse as parseToml } from "smol-toml";
import { IniSyntaxError, parseIni } from "../../core/ini.js";
import { ShlexError, shlexSplit } from "../../core/shlex.js";

export type PytestDialect = 7 | 9;

/** Config file names in the order pytest tries them in each directory. */
export function pytestConfigNames(dialect: PytestDialect): string[] {
  const ini = ["pytest.ini", ".pytest.ini", "pyproject.toml", "tox.ini", "setup.cfg"];
  return dialect === 9 ? ["pytest.toml", ".pytest.toml", ...ini] : ini;
}

/** A config file pytest would read, and the section it reads. */
export interface PytestConfig {
  /** e.g. "pytest.ini" or "pyproject.toml [tool.pytest.ini_options]" (without a directory). */
  section: string;
  values: Record<string, unknown>;
}

/** A file pytest cannot read (it stops), or that the readers here cannot. */
export class PytestConfigUnreadable extends Error {}

/**
 * An ini file's sections as pytest reads them (iniconfig's rules, src/core/ini.ts). Throws
 * PytestConfigUnreadable where iniconfig raises.
 */
function iniOf(text: string): Map<string, Map<string, string>> {
  try {
    return parseIni(text);
  } catch (error) {
    if (error instanceof IniSyntaxError) throw new PytestConfigUnreadable(error.message);
    throw error;
  }
}

/** Python's shlex.split, as pytest splits a setting; PytestConfigUnreadable where it raises. */
function shlexWords(text: string): string[] {
  try {
    return shlexSplit(text);
  } catch (error) {
    if (error instanceof ShlexError) throw new PytestConfigUnreadable(error.reason);
    throw error;
  }
}

function isTable(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * The settings pytest reads from the file `name`, or null when pytest would look on (the file
 * holds no pytest section). Throws PytestConfigUnreadable for a file that cannot be parsed.
 */
export function pytestConfigOf(
  name: string,
  text: string,
  dialect: PytestDialect,
): PytestConfig | null {
  const fromIni = (section: string, always: boolean): PytestConfig | null => {
    const values = iniOf(text).get(section);
    if (values !== undefined) {
      return { section: `${name} [${section}]`, values: Object.fromEntries(values) };
    }
    return always ? { section: name, values: {} } : null;
  };
  if (name.endsWith(".ini")) {
    // pytest.ini is pytest's even without a [pytest] section; .pytest.ini only from pytest 8.
    return fromIni(
      pytestIniSection(name),
      name === "pytest.ini" || (dialect === 9 && name === ".pytest.ini"),
    );
  }
  if (name.endsWith(".cfg")) {
    const config = fromIni(pytestIniSection(name), false);
    // pytest stops on a setup.cfg whose pytest settings are under [pytest].
    if (config === null && iniOf(text).has("pytest")) {
      throw new PytestConfigUnreadable(SETUP_CFG_PYTEST_SECTION);
    }
    return config;
  }
  // tomllib, unlike the TOML reader here, refuses a byte-order mark: pytest stops there.
  if (text.startsWith("\uFEFF")) {
    throw new PytestConfigUnreadable("a byte-order mark before the first statement");
  }
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    throw new PytestConfigUnreadable(String((error as Error).message).split("\n")[0] as string);
  }
  if (name === "pytest.toml" || name === ".pytest.toml") {
    const table = doc.pytest;
    return { section: `${name} [pytest]`, values: isTable(table) ? table : {} };
  }
  const { iniOptions, native } = pyprojectPytestTables(doc);
  if (dialect === 9 && native !== null) {
    return { section: `${name} [tool.pytest]`, values: native };
  }
  if (iniOptions === null) return null;
  return { section: `${name} [tool.pytest.ini_options]`, values: iniOptions };
}

/** The section pytest reads in an ini-style file (pytest.ini, .pytest.ini, tox.ini, setup.cfg). */
export function pytestIniSection(name: string): "pytest" | "tool:pytest" {
  return name.endsWith(".cfg") ? "tool:pytest" : "pytest";
}

/** Why pytest refuses a setup.cfg. */
export const SETUP_CFG_PYTEST_SECTION = "a [pytest] section, which pytest refuses in setup.cfg";

/**
 * A pyproject.toml's pytest tables: [tool.pytest.ini_options] (pytest 7's, and pytest 9's
 * ini mode) and pytest 9's native [tool.pytest] keys beside it; null for one it lacks.
 */
export function pyprojectPytestTables(doc: Record<string, unknown>): {
  iniOptions: Record<string, unknown> | null;
  native: Record<string, unknown> | null;
} {
  const tool = isTable(doc.tool) ? doc.tool : {};
  const pytest = isTable(tool.pytest) ? tool.pytest : {};
  const { ini_options: ini, ...native } = pytest;
  return {
    iniOptions: isTable(ini) ? ini : null,
    native: Object.keys(native).length > 0 ? native : null,
  };
}

/** The config file pytest takes its settings from, and where it lies. */
export interface LocatedPytestConfig extends PytestConfig {
  dir: string;
  name: string;
  text: string;
}

/** A config file pytest cannot read, and which file it is. */
export class PytestConfigFileUnreadable extends PytestConfigUnreadable {
  constructor(
    message: string,
    readonly file: { dir: string; name: string; text: string },
  ) {
    super(message);
  }
}

/**
 * The config file pytest takes its settings from when it starts in `dirs[0]` without path
 * arguments (findpaths.py's locate_config): in each of `dirs` in turn (the start, then its
 * parents), the first of pytestConfigNames(dialect) that holds pytest settings. Null when none
 * does. `read(dir, name)`: the text of a regular file, null when there is none. Throws
 * PytestConfigFileUnreadable for the first file pytest would stop on.
 */
export function locatePytestConfig(
  dirs: readonly string[],
  dialect: PytestDialect,
  read: (dir: string, name: string) => string | null,
): LocatedPytestConfig | null {
  for (const dir of dirs) {
    for (const name of pytestConfigNames(dialect)) {
      const text = read(dir, name);
      if (text === null) continue;
      let config: PytestConfig | null;
      try {
        config = pytestConfigOf(name, text, dialect);
      } catch (error) {
        if (!(error instanceof PytestConfigUnreadable)) throw error;
        throw new PytestConfigFileUnreadable(error.message, { dir, name, text });
      }
      if (config !== null) return { ...config, dir, name, text };
    }
  }
  return null;
}

/**
 * pytest's rootdir when it starts in `dirs[0]` without path arguments (determine_setup): the
 * directory of the config file it located; without one, pytest 9 takes the first
 * pyproject.toml's directory, both then the first directory that holds a setup.py, else the
 * start. `isFile(dir, name)`: whether that regular file exists.
 */
export function pytestRootdir(
  dirs: readonly string[],
  dialect: PytestDialect,
  located: LocatedPytestConfig | null,
  isFile: (dir: string, name: string) => boolean,
): string {
  if (located !== null) return located.dir;
  const pyproject = dialect === 9 ? dirs.find((dir) => isFile(dir, "pyproject.toml")) : undefined;
  return pyproject ?? dirs.find((dir) => isFile(dir, "setup.py")) ?? (dirs[0] as string);
}

/** Where a plugin ledger setting came from, and what its relative path is relative to. */
export interface LedgerSetting {
  value: string;
  /** "invocation": the directory pytest runs in (a flag); "ini": the config file's directory. */
  base: "invocation" | "ini";
  /** e.g. "addopts --freezegate-ledger" or "freezegate_ledger". */
  given: string;
}

/** A path the plugin takes from a flag or an ini key (the ledger, the applied record). */
export interface PluginPathOption {
  flag: string;
  ini: string;
}

export const LEDGER_OPTION: PluginPathOption = {
  flag: "--freezegate-ledger",
  ini: "freezegate_ledger",
};
export const RECORD_OPTION: PluginPathOption = {
  flag: "--freezegate-record",
  ini: "freezegate_record",
};
export const SAMPLES_OPTION: PluginPathOption = {
  flag: "--freezegate-samples",
  ini: "freezegate_samples",
};

/**
 * A config's `addopts` as pytest's arguments: a string split as shlex does, a TOML list as it
 * is. Throws PytestConfigUnreadable for anything else.
 */
function addoptsArgs(values: Record<string, unknown>): string[] {
  const addopts = values.addopts;
  if (addopts === undefined) return [];
  if (typeof addopts === "string") return shlexWords(addopts);
  if (Array.isArray(addopts) && addopts.every((a) => typeof a === "string")) return addopts;
  throw new PytestConfigUnreadable("addopts is not text");
}

/**
 * What a config's addopts give, as pytest's argument parser reads them: the values of the
 * options `flags` (`--flag VALUE` or `--flag=VALUE`), in order, and the `-o NAME=VALUE`
 * (`--override-ini`) overrides by name, the last one winning. Throws PytestConfigUnreadable
 * where pytest stops: an option without its value, an override without "=".
 */
function addoptsOptions(
  values: Record<string, unknown>,
  flags: readonly string[],
): { given: Map<string, string[]>; overrides: Map<string, string> } {
  const args = addoptsArgs(values);
  const given = new Map<string, string[]>(flags.map((flag) => [flag, []]));
  const overrides = new Map<string, string>();
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const next = () => {
      const value = args[i + 1];
      if (value === undefined || value.startsWith("-")) {
        throw new PytestConfigUnreadable(`addopts ${arg} has no value`);
      }
      i++;
      return value;
    };
    const flag = flags.find((f) => arg === f || arg.startsWith(`${f}=`));
    let override: string | null = null;
    if (flag !== undefined) {
      given.get(flag)?.push(arg === flag ? next() : arg.slice(flag.length + 1));
    } else if (arg === "-o" || arg === "--override-ini") override = next();
    else if (arg.startsWith("--override-ini=")) override = arg.slice("--override-ini=".length);
    else if (arg.startsWith("-o")) override = arg.slice(2);
    if (override === null) continue;
    const eq = override.indexOf("=");
    if (eq < 0) throw new PytestConfigUnreadable(`addopts -o ${override} is not NAME=VALUE`);
    overrides.set(override.slice(0, eq), override.slice(eq + 1));
  }
  return { given, overrides };
}

/**
 * The ledger the plugin reads by the config's settings, as the plugin ranks them: the
 * --freezegate-ledger flag (here: in addopts), else the ini value (an `-o freezegate_ledger=`
 * in addopts overrides the file's); null when neither names one (the plugin then reads
 * freeze-ledger.json in the rootdir). Throws PytestConfigUnreadable for a value it cannot read.
 */
export function ledgerSetting(
  values: Record<string, unknown>,
  option: PluginPathOption = LEDGER_OPTION,
): LedgerSetting | null {
  const { given, overrides } = addoptsOptions(values, [option.flag]);
  const flag = given.get(option.flag)?.at(-1) ?? null;
  const override = overrides.get(option.ini) ?? null;
  // The plugin: a flag counts when not empty; an ini value when not blank once stripped.
  if (flag !== null && flag !== "") {
    return { value: flag, base: "invocation", given: `addopts ${option.flag}` };
  }
  if (override !== null) {
    return override.trim() === ""
      ? null
      : { value: override.trim(), base: "ini", given: `addopts -o ${option.ini}` };
  }
  const ini = values[option.ini];
  if (ini === undefined) return null;
  if (typeof ini !== "string") throw new PytestConfigUnreadable(`${option.ini} is not text`);
  return ini.trim() === "" ? null : { value: ini.trim(), base: "ini", given: option.ini };
}

/** pytest's own `python_files`, used when its configuration sets none. */
export const PYTEST_DEFAULT_PYTHON_FILES = ["test_*.py", "*_test.py"] as const;

/**
 * The `python_files` globs a pytest config's values set, as pytest reads the "args" setting:
 * an `-o python_files=` in addopts (the last one wins), else the ini value (a string split as
 * shlex does, a TOML list as it is); null when neither sets it. Throws PytestConfigUnreadable
 * for a value it cannot read.
 */
export function pythonFilesSetting(values: Record<string, unknown>): string[] | null {
  const KEY = "python_files";
  const override = addoptsOptions(values, []).overrides.get(KEY) ?? null;
  if (override !== null) return shlexWords(override);
  const ini = values[KEY];
  if (ini === undefined) return null;
  if (typeof ini === "string") return shlexWords(ini);
  if (Array.isArray(ini) && ini.every((glob) => typeof glob === "string")) return ini;
  throw new PytestConfigUnreadable(`${KEY} is neither text nor a list of text`);
}

/**
 * The `python_files` globs pytest collects test modules by in the directory whose config files
 * `read` gives (null for a missing file), as pytest 7 and pytest 9 read them there (a
 * configuration that sets none counts as pytest's default):
 * - "both": the globs both read, so that either one collects a module one of them matches
 *   (to widen the test files, which takes lines out of the audit);
 * - "either": the globs either one reads (to tell whether a module may be a test); null for
 *   an empty `python_files`, with which pytest collects only the modules its command line
 *   names, whichever they are.
 * Null when a config file cannot be read here.
 */
export function pytestPythonFiles(
  read: (name: string) => string | null,
  dialects: "both" | "either",
): string[] | null {
  const perDialect: string[][] = [];
  for (const dialect of [7, 9] as const) {
    try {
      const located = locatePytestConfig([""], dialect, (_dir, name) => read(name));
      const globs = located === null ? null : pythonFilesSetting(located.values);
      perDialect.push(globs ?? [...PYTEST_DEFAULT_PYTHON_FILES]);
    } catch (error) {
      if (error instanceof PytestConfigUnreadable) return null;
      throw error;
    }
  }
  const [seven, nine] = perDialect as [string[], string[]];
  if (dialects === "both") return [...new Set(seven.filter((glob) => nine.includes(glob)))];
  if (seven.length === 0 || nine.length === 0) return null;
  return [...new Set([...seven, ...nine])];
}

/**
 * The coverage.py configuration file a config's addopts give pytest-cov (`--cov-config FILE`
 * or `--cov-config=FILE`; the last one wins, as argparse takes it), or null when they give
 * none. Throws PytestConfigUnreadable for addopts it cannot read.
 */
export function covConfigSetting(values: Record<string, unknown>): string | null {
  const FLAG = "--cov-config";
  return addoptsOptions(values, [FLAG]).given.get(FLAG)?.at(-1) ?? null;
}

/**
 * The `--cov-config` file pytest-cov reads by the pytest configuration in the directory whose
 * config files `read` gives (null for a missing file): the one the addopts of the file pytest
 * 7 and pytest 9 take their settings from give. Undefined when they give none; null when that
 * cannot be told (a config file not read here, or the two pytest versions reading different
 * ones).
 */
export function pytestCovConfig(read: (name: string) => string | null): string | null | undefined {
  const perDialect = new Set<string | null>();
  for (const dialect of [7, 9] as const) {
    try {
      const located = locatePytestConfig([""], dialect, (_dir, name) => read(name));
      perDialect.add(located === null ? null : covConfigSetting(located.values));
    } catch (error) {
      if (error instanceof PytestConfigUnreadable) return null;
      throw error;
    }
  }
  if (perDialect.size > 1) return null;
  return [...perDialect][0] ?? undefined;
}
