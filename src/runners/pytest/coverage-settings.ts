// Which text of a configuration file decides what coverage.py measures: the part a patch may
// not change while its own changed files are missing from the data (see
// refuseUnmeasuredAfterCoverageConfig in patch-guards.ts). Pure: text in, text out.

import { basename, posix } from "node:path";
import { parse as parseToml } from "smol-toml";
import { parseIni } from "../../core/ini.js";
import { normalizePath } from "../../core/path-map.js";
import { DEFAULT_EXCLUDE } from "../../languages/python/statements.js";

/** The files coverage.py and pytest read their settings from, under their standard names. */
const STANDARD_CONFIGS = new Set([
  ".coveragerc",
  "setup.cfg",
  "tox.ini",
  "pyproject.toml",
  "pytest.ini",
]);

/**
 * Files that may configure the run that made the data: coverage.py's own rc files (named
 * like .coveragerc, or holding "cov" in the name) anywhere, since --cov-config or
 * COVERAGE_RCFILE may name any of them; an ini or TOML file of another name anywhere, for the
 * same reason; and a standard multi-purpose file (setup.cfg, tox.ini, pyproject.toml,
 * pytest.ini) in the root, the test root, or a directory that holds measured files (one in an
 * example project's directory configures another run).
 */
export function mayConfigureCoverage(
  path: string,
  testRoot: string,
  measuredDirs: ReadonlySet<string>,
): boolean {
  const name = basename(path);
  if (STANDARD_CONFIGS.has(name) && name !== ".coveragerc") {
    const dir = posix.dirname(path);
    return dir === "." || dir === (normalizePath(testRoot) || ".") || measuredDirs.has(dir);
  }
  return /cov/i.test(name) || /(rc|\.cfg|\.ini|\.toml|\.conf)$/.test(name);
}

/**
 * What decides which files coverage.py measures and where their data goes: in a run section
 * ([run], [coverage:run], [tool.coverage.run]) these keys, the [paths] section, and pytest-cov's
 * --cov options in pytest's addopts. Report settings (exclude_lines, fail_under, ...) change
 * what a report says, never which files the data holds.
 */
const RUN_SECTION = /^((coverage:)?run|DEFAULT)$/;
const PATHS_SECTION = /^(coverage:)?paths$/;
const SELECTING_KEYS = new Set([
  "source",
  "source_pkgs",
  "include",
  "omit",
  "data_file",
  "plugins",
  "relative_files",
]);
/**
 * pytest-cov's options that choose what is measured or where the data goes: `--cov`,
 * `--cov=SOURCE`, `--cov-config=FILE` and `--no-cov`. Report options (`--cov-report`,
 * `--cov-fail-under`, `--cov-branch`, `--cov-context`, `--cov-append`) take no file out.
 */
const COV_OPTION = /--(?:no-cov|cov-config|cov)(?![\w-])/;

/**
 * What of a file's text selects the files coverage.py measures (see SELECTING_KEYS), or null
 * for nothing: of a TOML file as JSON (so that formatting does not count), of an ini-style
 * file as its lines. Text that does not parse is taken whole.
 */
export function coverageSettingsIn(name: string, text: string | null): string | null {
  if (text === null) return null;
  if (name.endsWith(".toml")) {
    try {
      const doc = parseToml(text) as { tool?: Record<string, unknown> };
      const coverage = (doc.tool?.coverage ?? {}) as {
        run?: Record<string, unknown>;
        paths?: unknown;
      };
      const run = Object.entries(coverage.run ?? {}).filter(([key]) => SELECTING_KEYS.has(key));
      // pytest-cov's options wherever the file holds them: [tool.pytest.ini_options] or pytest
      // 9's [tool.pytest] addopts, pytest.toml's [pytest], tox's commands (tox.toml, or the
      // ini text of legacy_tox_ini), as strings or lists of words.
      const found = new Set<string>();
      covOptionsIn(doc, "", found);
      const options = [...found];
      const kept = {
        run: run.length === 0 ? null : Object.fromEntries(run),
        paths: coverage.paths ?? null,
        addopts: options.length === 0 ? null : options.sort().join(" "),
      };
      return Object.values(kept).every((v) => v === null) ? null : JSON.stringify(kept);
    } catch {
      return text;
    }
  }
  const kept: string[] = [];
  let section = "";
  let keeping = false;
  // The value of a key that is not kept whole, with its continuation lines: pytest-cov's
  // options are read from it (`--cov` may stand on one line and its value on the next).
  let valueSection: string | null = null;
  let value = "";
  const flush = () => {
    const options = valueSection === null ? [] : covOptions(value);
    if (options.length > 0) kept.push(`[${valueSection}] ${options.join(" ")}`);
    valueSection = null;
  };
  for (const line of text.split(/\r?\n/)) {
    const header = /^\s*\[([^\]]*)\]/.exec(line);
    const bare = line.trim();
    if (header) {
      flush();
      section = (header[1] as string).trim();
      keeping = false;
      continue;
    }
    if (bare === "" || /^[#;]/.test(bare)) continue;
    const continued = /^\s/.test(line);
    if (!continued) {
      flush();
      // configparser folds option names to lower case.
      const key = (/^([^=:]+)[=:]/.exec(line)?.[1] ?? "").trim().toLowerCase();
      keeping =
        PATHS_SECTION.test(section) || (RUN_SECTION.test(section) && SELECTING_KEYS.has(key));
      if (!keeping) {
        valueSection = section;
        value = bare;
      }
    } else if (valueSection !== null) {
      value += ` ${bare}`;
    }
    if (keeping) kept.push(`[${section}] ${bare}`);
  }
  flush();
  // [DEFAULT]'s keys reach coverage.py only in a file it reads as its own: one with a run
  // section (an application's ini file with a [DEFAULT] source = ... is no coverage config).
  const ownFile = /^\s*\[(coverage:)?run\]/m.test(text);
  const selected = kept.filter((k) => ownFile || !k.startsWith("[DEFAULT] "));
  return selected.length === 0 ? null : selected.join("\n");
}

/**
 * pytest-cov's options in the strings of a parsed TOML document, as a set: pytest's addopts
 * ([tool.pytest.ini_options], pytest 9's [tool.pytest], pytest.toml's [pytest]), tox's
 * commands (tox.toml, [tool.tox], the ini text of legacy_tox_ini), a task runner's or hatch's
 * scripts (any of them may run the tests that make the data). A list of strings is read as one
 * command line. Left out: coverage.py's own table (read by key) and [project] (metadata, a
 * description). Where an option stands, and how often, is left out too: a task that repeats
 * the run's own `--cov=app`, or addopts moved between tables, changes nothing.
 */
function covOptionsIn(value: unknown, path: string, out: Set<string>): void {
  if (path === "tool.coverage" || path === "project") return;
  if (typeof value === "string") {
    for (const o of covOptions(value)) out.add(o);
  } else if (Array.isArray(value)) {
    if (value.every((v) => typeof v === "string")) {
      for (const o of covOptions(value.join(" "))) out.add(o);
    } else for (const v of value) covOptionsIn(v, `${path}[]`, out);
  } else if (value !== null && typeof value === "object" && !(value instanceof Date)) {
    for (const [k, v] of Object.entries(value)) {
      covOptionsIn(v, path === "" ? k : `${path}.${k}`, out);
    }
  }
}

/** pytest-cov's options in an addopts line, with their values (the rest of the line aside). */
function covOptions(line: string): string[] {
  const words = line.split(/\s+/);
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i] as string;
    const at = word.search(COV_OPTION);
    if (at < 0) continue;
    const option = word.slice(at);
    const next = words[i + 1];
    if (!option.includes("=") && next !== undefined && !next.startsWith("-")) {
      out.push(`${option} ${next}`);
      i++;
    } else out.push(option);
  }
  return out;
}

/** The files coverage.py reads its own settings from, in the directory it runs in, in order. */
export const COVERAGE_CONFIG_FILES = [".coveragerc", "setup.cfg", "tox.ini", "pyproject.toml"];

/**
 * The exclusion coverage.py's report applies with the first of COVERAGE_CONFIG_FILES that
 * holds coverage settings (`name -> text`, null for a missing file): its `exclude_lines`
 * (which replaces the default list) or the default `# pragma: no cover`. Null when the lines
 * cannot be read as JavaScript regular expressions: nothing is then excluded, so no line
 * coverage.py reports as missing reads as not-code (reviews 37, 38).
 */
export function coverageExclusion(read: (name: string) => string | null): RegExp | null {
  let patterns: string[] | null = null;
  for (const name of COVERAGE_CONFIG_FILES) {
    const text = read(name);
    if (text === null) continue;
    if (name === "pyproject.toml") {
      let doc: unknown;
      try {
        doc = parseToml(text);
      } catch {
        return null;
      }
      const coverage = (doc as { tool?: { coverage?: Record<string, unknown> } }).tool?.coverage;
      if (coverage === undefined) continue;
      const lines = (coverage.report as { exclude_lines?: unknown } | undefined)?.exclude_lines;
      if (lines !== undefined) {
        if (!Array.isArray(lines) || lines.some((l) => typeof l !== "string")) return null;
        patterns = lines as string[];
      }
      break;
    }
    let sections: Map<string, Map<string, string>>;
    try {
      sections = parseIni(text);
    } catch {
      return null;
    }
    if (name !== ".coveragerc" && ![...sections.keys()].some((s) => s.startsWith("coverage:"))) {
      continue;
    }
    const report =
      (name === ".coveragerc" ? sections.get("report") : undefined) ??
      sections.get("coverage:report");
    const value = report?.get("exclude_lines");
    if (value !== undefined) patterns = value.split("\n").filter((l) => l.trim() !== "");
    break;
  }
  const list = patterns ?? [DEFAULT_EXCLUDE.source];
  if (list.length === 0) return /(?!)/;
  try {
    return new RegExp(list.map((p) => `(?:${p})`).join("|"));
  } catch {
    return null;
  }
}
