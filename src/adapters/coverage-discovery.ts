// Finds the coverage data of a run and opens it: the repository root's `.coverage` plus its
// parallel `.coverage.*` files, only parallel files (not combined yet), or `coverage.json`;
// or whatever an explicit path points at, told apart by content rather than by name.

import { readdirSync, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";
import { InputError } from "../core/errors.js";
import type { CoverageFormat, CoverageSource } from "../core/model.js";
import { openCoverageJson } from "./coverage-json.js";
import { openCoverageSqlite } from "./coverage-sqlite.js";
import { readFileHead } from "./repo-files.js";

export interface DiscoveredCoverage {
  format: CoverageFormat;
  /** Absolute paths; for SQLite the main file (when there is one) first, then parallel files. */
  files: string[];
}

type Sniffed = "sqlite" | "json" | "coverage4" | "empty" | "other";

const DEFAULT_DATA_FILE = ".coverage";
const DEFAULT_JSON_REPORT = "coverage.json";
const NOT_FOUND_FIX =
  "run `pytest --cov --cov-context=test` from the repository root (it writes .coverage), or pass the data file's path";

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

/**
 * Where the coverage data is. `explicit` (resolved against `root` when relative) may be a
 * directory to search, a SQLite data file (its parallel files are added) or a JSON report.
 */
export function discoverCoverage(root: string, explicit?: string): DiscoveredCoverage {
  if (explicit === undefined) return searchDirectory(resolve(root));
  const target = resolve(root, explicit);
  let isDirectory: boolean;
  try {
    isDirectory = statSync(target).isDirectory();
  } catch {
    // `--coverage .coverage` written out before `coverage combine` ran: its parallel files
    // are the data, exactly as the search without --coverage would find them.
    const parallel = isDirectoryPath(dirname(target)) ? parallelFiles(target) : [];
    if (parallel.length > 0) return { format: "coverage.py-sqlite", files: parallel };
    throw new InputError(`coverage data ${target} does not exist`, {
      fix: "pass the .coverage data file or coverage.json report of your test run",
    });
  }
  if (isDirectory) {
    const found = findInDirectory(target);
    if (found !== null) return found;
    if (basename(target) === DEFAULT_DATA_FILE) {
      // A directory where the data file should be, holding no data: a mistake to name,
      // unless parallel files sit next to it (then the search without --coverage uses them).
      const parallel = parallelFiles(target);
      if (parallel.length > 0) return { format: "coverage.py-sqlite", files: parallel };
      throw dataFileIsDirectory(target);
    }
    throw notFound(target);
  }
  switch (sniff(target)) {
    case "sqlite":
      return { format: "coverage.py-sqlite", files: [target, ...parallelFiles(target)] };
    case "json":
      return { format: "coverage.py-json", files: [target] };
    case "coverage4":
      // Let the SQLite reader give its "too old" message.
      return { format: "coverage.py-sqlite", files: [target] };
    case "empty":
      throw new InputError(`coverage data file ${target} is empty`, {
        fix: "re-run the tests with coverage (pytest --cov --cov-context=test)",
      });
    case "other":
      throw new InputError(
        `${target} is neither a coverage.py data file (SQLite) nor a coverage.py JSON report`,
        { fix: "pass the .coverage data file or coverage.json report of your test run" },
      );
  }
}

/** Discovers the data (see {@link discoverCoverage}) and opens it. */
export function openCoverage(root: string, explicit?: string): CoverageSource {
  const found = discoverCoverage(root, explicit);
  if (found.format === "coverage.py-json") return openCoverageJson(found.files[0] as string);
  return openCoverageSqlite(found.files);
}

function searchDirectory(directory: string): DiscoveredCoverage {
  const found = findInDirectory(directory);
  if (found !== null) return found;
  const main = join(directory, DEFAULT_DATA_FILE);
  if (isDirectoryPath(main)) throw dataFileIsDirectory(main);
  throw notFound(directory);
}

/** The data in a directory (see the module comment), or null when there is none. */
function findInDirectory(directory: string): DiscoveredCoverage | null {
  const main = join(directory, DEFAULT_DATA_FILE);
  const parallel = parallelFiles(main);
  if (isFile(main)) return { format: "coverage.py-sqlite", files: [main, ...parallel] };
  if (parallel.length > 0) return { format: "coverage.py-sqlite", files: parallel };
  const report = join(directory, DEFAULT_JSON_REPORT);
  if (isFile(report)) return { format: "coverage.py-json", files: [report] };
  return null;
}

function notFound(directory: string): InputError {
  return new InputError(
    `no coverage data found in ${directory} (looked for ${DEFAULT_DATA_FILE}, ${DEFAULT_DATA_FILE}.* and ${DEFAULT_JSON_REPORT})`,
    { fix: NOT_FOUND_FIX },
  );
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
    throw new InputError(`cannot list ${directory}: ${messageOf(error)}`, {
      fix: "check the directory's permissions",
      cause: error,
    });
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
    const what = kind === "empty" ? "it is empty" : "it is not a SQLite database";
    throw new InputError(
      `${path} is named like a parallel coverage data file of ${dataFile} but ${what}`,
      {
        fix: "re-run the tests with coverage, or move the file away if it is not coverage data",
      },
    );
  }
  return found;
}

const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");
const COVERAGE4_SIGNATURE = Buffer.from("!coverage.py:", "latin1");

/** What a file is, by its first bytes. A pipe or a device is refused, never waited on. */
function sniff(path: string): Sniffed {
  const bytes = readFileHead(path, "coverage data", 64, {
    fix: "pass the .coverage data file or coverage.json report of your test run",
  });
  if (bytes.length === 0) return "empty";
  if (bytes.subarray(0, SQLITE_MAGIC.length).equals(SQLITE_MAGIC)) return "sqlite";
  if (bytes.subarray(0, COVERAGE4_SIGNATURE.length).equals(COVERAGE4_SIGNATURE)) {
    return "coverage4";
  }
  const text = bytes.toString("utf8").replace(/^\uFEFF/, "");
  if (/^\s*\{/.test(text)) return "json";
  return "other";
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

function dataFileIsDirectory(path: string): InputError {
  return new InputError(`${path} is a directory, not a coverage.py data file`, {
    fix: "remove or rename that directory, then re-run the tests with coverage (pytest --cov --cov-context=test), which writes the data file there",
  });
}

function isDirectoryPath(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
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
