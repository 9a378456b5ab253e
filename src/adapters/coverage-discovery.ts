// Finds the coverage data of a run and opens it: `.coverage` plus its parallel `.coverage.*`
// files, only parallel files (not combined yet), or `coverage.json`, in the directory the user
// runs in, the test root or the repository root (data in two of them that is not the same
// run is refused, never one picked); or whatever an explicit path points at, told apart by
// content rather than by name.

import { closeSync, openSync, readdirSync, readSync, realpathSync, statSync } from "node:fs";
import { basename, dirname, isAbsolute, join, relative, resolve, sep } from "node:path";
import { InputError } from "../core/errors.js";
import type { CoverageFormat, CoverageSource, DataPlaces } from "../core/model.js";
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
 * Without it, the places of {@link DataPlaces} and the root are searched.
 */
export function discoverCoverage(
  root: string,
  explicit?: string,
  places: DataPlaces = {},
): DiscoveredCoverage {
  if (explicit === undefined) return searchPlaces(resolve(root), places);
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
 * A path as the user standing in `cwd` (default: the root) would type it: relative to that
 * directory when the file is in the repository ("../.coverage" from tests/), else absolute.
 */
export function pathFromUser(root: string, path: string, places: DataPlaces = {}): string {
  const inRepo = relative(root, path);
  if (inRepo.startsWith("..") || isAbsolute(inRepo)) return path;
  return relative(userDirectory(root, places) ?? root, path) || ".";
}

/**
 * The user's directory as a repository path ("" for the root, or when it is outside the
 * repository), with "/": for reports that show repository paths relative to it.
 */
export function userDirectoryInRepo(root: string, cwd: string): string {
  const directory = underRoot(resolve(root), resolve(cwd));
  return directory === null ? "" : relative(resolve(root), directory).split(sep).join("/");
}

/** Is there anything named like coverage data where the search without a path looks? */
export function hasDataToFind(root: string, places: DataPlaces = {}): boolean {
  return searchDirectories(resolve(root), places).some(({ directory }) => {
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
  });
}

interface Place {
  directory: string;
  /** How messages name it: "the working directory", "the test root", "the repository root". */
  role: string;
}

/**
 * The user's directory spelled under `root` (a symbolic link in either path does not make it
 * look outside), or null when it is outside the repository.
 */
function userDirectory(root: string, places: DataPlaces): string | null {
  if (places.cwd === undefined) return root;
  return underRoot(root, resolve(places.cwd));
}

function underRoot(root: string, path: string): string | null {
  const inside = (rel: string) => !rel.startsWith("..") && !isAbsolute(rel);
  const direct = relative(root, path);
  if (inside(direct)) return join(root, direct);
  try {
    const real = relative(realpathSync(root), realpathSync(path));
    return inside(real) ? join(root, real) : null;
  } catch {
    return null;
  }
}

/**
 * The directories the search without a path reads, nearest the user first: the working
 * directory and the test root when they are inside the repository, then the root; each once.
 */
function searchDirectories(root: string, places: DataPlaces): Place[] {
  const out: Place[] = [];
  const add = (directory: string | null, role: string) => {
    // A --test-root that does not exist is refused where the test root is read, with its fix.
    if (directory === null || directory === root || !isDirectoryPath(directory)) return;
    if (out.some((p) => p.directory === directory)) return;
    out.push({ directory, role });
  };
  add(userDirectory(root, places), "the working directory");
  if (places.testRoot) add(underRoot(root, resolve(root, places.testRoot)), "the test root");
  out.push({ directory: root, role: "the repository root" });
  return out;
}

function searchPlaces(root: string, places: DataPlaces): DiscoveredCoverage {
  const searched = searchDirectories(root, places);
  const found = searched.flatMap((place) => {
    const data = findInDirectory(place.directory);
    return data === null ? [] : [{ place, data }];
  });
  const [first] = found;
  if (first === undefined) {
    const main = join(root, DEFAULT_DATA_FILE);
    if (isDirectoryPath(main)) throw dataFileIsDirectory(main);
    throw notFound(searched);
  }
  const others = found.slice(1).filter((f) => !sameData(first.data, f.data));
  if (others.length === 0) return first.data;
  // Two runs' data and nothing to say which one the user means: the older one would be
  // audited as if it were the patch's, a wrong answer no message would show.
  const named = [first, ...others].map(({ place, data }) => ({
    flag: pathFromUser(root, flagPath(place.directory, data), places),
    where: `in ${place.role} (${describeData(root, place.directory, data, places)})`,
  }));
  const wheres = named.map((n) => n.where);
  throw new InputError(
    `coverage data is ${wheres.slice(0, -1).join(", ")} and ${wheres.at(-1)}, and ${named.length === 2 ? "the two differ" : "they differ"}, so which run to audit cannot be told`,
    {
      fix: `name the data of the run to audit: ${named.map((n) => `--coverage ${n.flag}`).join(" or ")} (and delete the stale data)`,
    },
  );
}

/** What `--coverage` takes to read `data` found in `directory`. */
function flagPath(directory: string, data: DiscoveredCoverage): string {
  return data.format === "coverage.py-json"
    ? (data.files[0] as string)
    : join(directory, DEFAULT_DATA_FILE);
}

function describeData(
  root: string,
  directory: string,
  data: DiscoveredCoverage,
  places: DataPlaces,
): string {
  const main = join(directory, DEFAULT_DATA_FILE);
  const shown = pathFromUser(root, flagPath(directory, data), places);
  if (data.format === "coverage.py-json") return shown;
  const parallel = data.files.filter((f) => f !== main).length;
  if (parallel === data.files.length) return `${parallel} parallel files ${shown}.*`;
  return parallel === 0 ? shown : `${shown} and ${parallel} parallel files`;
}

/**
 * Beyond doubt the same run: the same files (a link, the same directory by two names) or
 * byte for byte the same content (a copy), file by file. Anything else (the same tests run
 * again, a combined copy) may differ in what it recorded, so it is not the same.
 */
function sameData(a: DiscoveredCoverage, b: DiscoveredCoverage): boolean {
  if (a.format !== b.format || a.files.length !== b.files.length) return false;
  return a.files.every((file, i) => sameContent(file, b.files[i] as string));
}

function sameContent(a: string, b: string): boolean {
  const sa = statSync(a);
  const sb = statSync(b);
  if (sa.dev === sb.dev && sa.ino === sb.ino) return true;
  if (sa.size !== sb.size) return false;
  const fa = openSync(a, "r");
  try {
    const fb = openSync(b, "r");
    try {
      const bufA = Buffer.alloc(1 << 20);
      const bufB = Buffer.alloc(1 << 20);
      for (let at = 0; at < sa.size; ) {
        const n = readSync(fa, bufA, 0, bufA.length, at);
        const m = readSync(fb, bufB, 0, n, at);
        if (n === 0 || m !== n || !bufA.subarray(0, n).equals(bufB.subarray(0, n))) return false;
        at += n;
      }
      return true;
    } finally {
      closeSync(fb);
    }
  } finally {
    closeSync(fa);
  }
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

function notFound(where: string | readonly Place[]): InputError {
  const places =
    typeof where === "string"
      ? where
      : where.length === 1
        ? (where[0] as Place).directory
        : where.map((p) => `${p.directory} (${p.role})`).join(" or ");
  return new InputError(
    `no coverage data found in ${places} (looked for ${DEFAULT_DATA_FILE}, ${DEFAULT_DATA_FILE}.* and ${DEFAULT_JSON_REPORT})`,
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
