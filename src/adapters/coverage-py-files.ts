// coverage.py's data on disk, as the data search (coverage-discovery.ts) reads it: `.coverage`
// with its parallel `.coverage.*` files, only parallel files (not combined yet), or
// `coverage.json`, in a directory; a file named with --coverage told apart by content rather
// than by name. Then opened by the SQLite or the JSON reader.

import { readdirSync, statSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { FreezegateError } from "../core/errors.js";
import type { CoverageSource, DataPlaces } from "../core/model.js";
import { refusal } from "../core/refusals/index.js";
import { type DataLayout, type DiscoveredCoverage, discoverData } from "./coverage-discovery.js";
import { openCoverageJson } from "./coverage-json.js";
import { openCoverageSqlite } from "./coverage-sqlite.js";
import { isDirectory, readFileHead } from "./repo-files.js";

type Sniffed = "sqlite" | "json" | "coverage4" | "empty" | "other";

const DEFAULT_DATA_FILE = ".coverage";
const DEFAULT_JSON_REPORT = "coverage.json";
const GIVE = "pass the .coverage data file or coverage.json report of your test run";

/**
 * Siblings `<data file>.<suffix>` that are not parallel data files: reports and notes people
 * write next to the data (`.coverage.json`, `.coverage.xml`), backups, and SQLite's own
 * side files. Any other sibling is a parallel data file and must be one: a corrupt or empty
 * parallel file is an error, never silently left out (that would drop tests' coverage).
 * coverage.py's own suffixes (`host.1234.567890`, `host.pid1234.XabcdefXx`) never end in
 * one of these extensions.
 */
const NOT_DATA_SUFFIX =
  /(?:^|\.)(?:json|xml|lcov|info|html?|txt|md|rst|log|csv|ini|cfg|toml|ya?ml|rc|sh|py|bak|orig|old|tmp|swp)$|-(?:journal|wal|shm)$/i;

export const COVERAGE_PY_DATA: DataLayout = {
  what: "coverage data",
  lookedFor: `${DEFAULT_DATA_FILE}, ${DEFAULT_DATA_FILE}.* and ${DEFAULT_JSON_REPORT}`,
  record:
    "run `pytest --cov --cov-context=test` from the repository root (it writes .coverage), or pass the data file's path",
  give: GIVE,
  recordInCi: "pytest --cov --cov-context=test",

  namedIn(directory) {
    let names: string[];
    try {
      names = readdirSync(directory);
    } catch {
      return false;
    }
    return names.some(
      (n) =>
        n === DEFAULT_DATA_FILE ||
        n === DEFAULT_JSON_REPORT ||
        n.startsWith(`${DEFAULT_DATA_FILE}.`),
    );
  },

  findIn(directory) {
    const main = join(directory, DEFAULT_DATA_FILE);
    const parallel = parallelFiles(main);
    if (isFile(main)) return { format: "coverage.py-sqlite", files: [main, ...parallel] };
    if (parallel.length > 0) return { format: "coverage.py-sqlite", files: parallel };
    const report = join(directory, DEFAULT_JSON_REPORT);
    if (isFile(report)) return { format: "coverage.py-json", files: [report] };
    return null;
  },

  inNamedDirectory(directory) {
    if (basename(directory) !== DEFAULT_DATA_FILE) return null;
    // A directory where the data file should be, holding no data: a mistake to name, unless
    // parallel files sit next to it (then the search without --coverage uses them).
    const parallel = parallelFiles(directory);
    if (parallel.length > 0) return { format: "coverage.py-sqlite", files: parallel };
    throw dataFileIsDirectory(directory);
  },

  missing(path) {
    // `--coverage .coverage` written out before `coverage combine` ran: its parallel files
    // are the data, exactly as the search without --coverage would find them.
    const parallel = isDirectory(dirname(path)) ? parallelFiles(path) : [];
    return parallel.length > 0 ? { format: "coverage.py-sqlite", files: parallel } : null;
  },

  atFile(path) {
    switch (sniff(path)) {
      case "sqlite":
        return { format: "coverage.py-sqlite", files: [path, ...parallelFiles(path)] };
      case "json":
        return { format: "coverage.py-json", files: [path] };
      case "coverage4":
        // Let the SQLite reader give its "too old" message.
        return { format: "coverage.py-sqlite", files: [path] };
      case "empty":
        throw refusal("coverage-data-empty", { path });
      case "other":
        throw refusal("coverage-data-unrecognized", { path });
    }
  },

  claims(found) {
    return found.format !== "coverage.py-json" || !namesOtherFormat(found.files[0] as string);
  },

  flagPath(directory, found) {
    return found.format === "coverage.py-json"
      ? (found.files[0] as string)
      : join(directory, DEFAULT_DATA_FILE);
  },

  describe(found, shown, directory) {
    if (found.format === "coverage.py-json") return shown;
    const main = join(directory, DEFAULT_DATA_FILE);
    const parallel = found.files.filter((f) => f !== main).length;
    if (parallel === found.files.length) return `${parallel} parallel files ${shown}.*`;
    return parallel === 0 ? shown : `${shown} and ${parallel} parallel files`;
  },

  blocked(directory) {
    const main = join(directory, DEFAULT_DATA_FILE);
    return isDirectory(main) ? dataFileIsDirectory(main) : null;
  },

  namedLike(path) {
    const name = basename(path);
    return name === DEFAULT_DATA_FILE || name.startsWith(`${DEFAULT_DATA_FILE}.`);
  },

  holdsData: looksLikeDataFile,
};

/** Discovers coverage.py's data (see {@link discoverData}). */
export function discoverCoverage(
  root: string,
  explicit?: string,
  places: DataPlaces = {},
): DiscoveredCoverage {
  return discoverData(COVERAGE_PY_DATA, root, explicit, places);
}

/** Discovers coverage.py's data and opens it. */
export function openCoverage(
  root: string,
  explicit?: string,
  places: DataPlaces = {},
): CoverageSource {
  const found = discoverCoverage(root, explicit, places);
  if (found.format === "coverage.py-json") return openCoverageJson(found.files[0] as string);
  return openCoverageSqlite(found.files);
}

/**
 * The parallel data files of `dataFile`: regular files named `<name>.<suffix>` in the same
 * directory (the same glob `coverage combine` uses), minus the non-data names above.
 */
function parallelFiles(dataFile: string): string[] {
  const directory = dirname(dataFile);
  const prefix = `${basename(dataFile)}.`;
  let entries: string[];
  try {
    entries = readdirSync(directory);
  } catch (error) {
    throw refusal(
      "file-unreadable",
      { label: "the directory", path: directory, why: messageOf(error) },
      { cause: error },
    );
  }
  const found: string[] = [];
  for (const entry of entries.sort()) {
    if (!entry.startsWith(prefix)) continue;
    const suffix = entry.slice(prefix.length);
    if (suffix === "" || NOT_DATA_SUFFIX.test(suffix)) continue;
    const path = join(directory, entry);
    if (!isFile(path)) continue;
    const kind = sniff(path);
    if (kind === "sqlite" || kind === "coverage4") {
      found.push(path);
      continue;
    }
    throw refusal("coverage-parallel-file-not-data", { path, dataFile, empty: kind === "empty" });
  }
  return found;
}

const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");
const COVERAGE4_SIGNATURE = Buffer.from("!coverage.py:", "latin1");

/** What a file is, by its first bytes. A pipe or a device is refused, never waited on. */
function sniff(path: string): Sniffed {
  const bytes = readFileHead(path, "coverage data", 64, { fix: GIVE });
  if (bytes.length === 0) return "empty";
  if (bytes.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) return "sqlite";
  if (bytes.subarray(0, COVERAGE4_SIGNATURE.length).equals(COVERAGE4_SIGNATURE)) {
    return "coverage4";
  }
  const text = bytes.toString("utf8").replace(/^\uFEFF/, "");
  if (/^\s*\{/.test(text)) return "json";
  return "other";
}

/**
 * Does a JSON file name its format in its first key? coverage.py's report starts with "meta";
 * another tool's data that names its format first (freezegate's Vitest data) is not pytest's.
 */
function namesOtherFormat(path: string): boolean {
  const head = readFileHead(path, "coverage data", 64).toString("utf8");
  return /^\uFEFF?\s*\{\s*"format"\s*:/.test(head);
}

/** Is the file coverage.py data by its first bytes (SQLite, or coverage 4's format)? */
export function looksLikeDataFile(path: string): boolean {
  try {
    const kind = sniff(path);
    return kind === "sqlite" || kind === "coverage4";
  } catch {
    return false;
  }
}

function dataFileIsDirectory(path: string): FreezegateError {
  return refusal("file-is-directory", {
    label: "the coverage.py data file",
    path,
    fix: "remove or rename that directory, then re-run the tests with coverage (pytest --cov --cov-context=test), which writes the data file there",
  });
}

function isFile(path: string): boolean {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
