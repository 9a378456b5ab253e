// Finds a run's data, by one set of rules for every test runner; a runner brings only what its
// data looks like on disk (a DataLayout: coverage.py's in coverage-py-files.ts, freezegate's
// Vitest data in vitest-data.ts). Without a path, the search reads the directory the user runs
// in, the test root and the repository root, nearest the user first, each once, and a working
// directory outside the repository not at all; data in two of them that is not the same run
// is refused, never one picked. A path given is a directory to search (the layout says what a
// directory named like its data holds) or a data file, told apart by content.

import { closeSync, openSync, readSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, join, relative, resolve, sep } from "node:path";
import { FreezegateError } from "../core/errors.js";
import type { CoverageFormat, DataPlaces } from "../core/model.js";
import { refusal } from "../core/refusals/index.js";
import { isDirectory } from "./repo-files.js";

/** A run's data as found: its files, absolute (the main one first), and what they are. */
export interface DiscoveredCoverage {
  format: CoverageFormat;
  files: string[];
}

/**
 * What one runner's data looks like on disk: the names it is found by in a directory, what a
 * file or directory given by name holds, and its words in messages. Where to look, in which
 * order, and what to refuse are the search's.
 */
export interface DataLayout {
  /** The data in messages: "coverage data", "Vitest coverage data". */
  readonly what: string;
  /** What a search looks for, in messages: ".coverage, .coverage.* and coverage.json". */
  readonly lookedFor: string;
  /** How to record the data: the fix when none is found. */
  readonly record: string;
  /** What --coverage takes: the fix for a path that does not exist. */
  readonly give: string;
  /** The command that records the data in CI, in the fix for data committed with a patch. */
  readonly recordInCi: string;
  /** A cheap guess, by names only: does the directory hold anything named like the data? */
  namedIn(directory: string): boolean;
  /** One run's data in a directory the search reads, or null; refuses two runs' data there. */
  findIn(directory: string): DiscoveredCoverage | null;
  /**
   * A directory named with --coverage in which findIn found nothing: the data its name says it
   * holds, or null (nothing found there); a refusal where the name shows the mistake.
   */
  inNamedDirectory(directory: string): DiscoveredCoverage | null;
  /** A path given that does not exist: the data it stands for, or null. */
  missing(path: string): DiscoveredCoverage | null;
  /** A file named with --coverage, by its content. */
  atFile(path: string): DiscoveredCoverage;
  /** Is the data this runner's by content (a file named with --coverage may be another's)? */
  claims(found: DiscoveredCoverage): boolean;
  /** The path `--coverage` takes to read `found`, found in `directory`. */
  flagPath(directory: string, found: DiscoveredCoverage): string;
  /** `found` in a message, given `shown`, its flagPath as the user would type it. */
  describe(found: DiscoveredCoverage, shown: string, directory: string): string;
  /** Why a directory holds no data although something stands where it would be, or null. */
  blocked(directory: string): FreezegateError | null;
  /** Is a repository path named like the data (a committed copy may be read or merged)? */
  namedLike(path: string): boolean;
  /** Does the file (absolute) hold such data, by its first bytes? */
  holdsData(path: string): boolean;
}

/**
 * Where the data is. `explicit` (resolved against `root` when relative) may be a directory to
 * search or a data file. Without it, the places of {@link DataPlaces} and the root are searched.
 */
export function discoverData(
  layout: DataLayout,
  root: string,
  explicit?: string,
  places: DataPlaces = {},
): DiscoveredCoverage {
  if (explicit === undefined) return searchPlaces(layout, resolve(root), places);
  const target = resolve(root, explicit);
  let directory: boolean;
  try {
    directory = statSync(target).isDirectory();
  } catch {
    const found = layout.missing(target);
    if (found !== null) return found;
    throw refusal("data-path-missing", { what: layout.what, path: target, give: layout.give });
  }
  if (!directory) return layout.atFile(target);
  const found = layout.findIn(target) ?? layout.inNamedDirectory(target);
  if (found !== null) return found;
  throw notFound(layout, target);
}

/**
 * Whether the runner's data is there: without a path, anything named like it where the search
 * looks (names only); with one, data the runner claims by content.
 */
export function dataIsThere(
  layout: DataLayout,
  root: string,
  explicit?: string,
  places: DataPlaces = {},
): boolean {
  if (explicit === undefined) {
    return searchDirectories(resolve(root), places).some((p) => layout.namedIn(p.directory));
  }
  try {
    return layout.claims(discoverData(layout, root, explicit, places));
  } catch (error) {
    if (error instanceof FreezegateError) return false;
    throw error;
  }
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
    if (directory === null || directory === root || !isDirectory(directory)) return;
    if (out.some((p) => p.directory === directory)) return;
    out.push({ directory, role });
  };
  add(userDirectory(root, places), "the working directory");
  if (places.testRoot) add(underRoot(root, resolve(root, places.testRoot)), "the test root");
  out.push({ directory: root, role: "the repository root" });
  return out;
}

function searchPlaces(layout: DataLayout, root: string, places: DataPlaces): DiscoveredCoverage {
  const searched = searchDirectories(root, places);
  const found = searched.flatMap((place) => {
    const data = layout.findIn(place.directory);
    return data === null ? [] : [{ place, data }];
  });
  const [first] = found;
  if (first === undefined) {
    for (const place of searched) {
      const blocked = layout.blocked(place.directory);
      if (blocked !== null) throw blocked;
    }
    throw notFound(layout, searched);
  }
  const others = found.slice(1).filter((f) => !sameData(first.data, f.data));
  if (others.length === 0) return first.data;
  // Two runs' data and nothing to say which one the user means: the older one would be
  // audited as if it were the patch's, a wrong answer no message would show.
  const named = [first, ...others].map(({ place, data }) => {
    const flag = pathFromUser(root, layout.flagPath(place.directory, data), places);
    return { flag, where: `in ${place.role} (${layout.describe(data, flag, place.directory)})` };
  });
  throw refusal("data-of-two-runs", {
    what: layout.what,
    wheres: named.map((n) => n.where),
    flags: named.map((n) => n.flag),
  });
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

function notFound(layout: DataLayout, where: string | readonly Place[]): FreezegateError {
  const places =
    typeof where === "string"
      ? where
      : where.length === 1
        ? (where[0] as Place).directory
        : where.map((p) => `${p.directory} (${p.role})`).join(" or ");
  return refusal("data-not-found", {
    what: layout.what,
    where: places,
    lookedFor: layout.lookedFor,
    record: layout.record,
  });
}
