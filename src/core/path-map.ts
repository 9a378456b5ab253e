// Paths in coverage data -> paths in the repository. coverage.py stores absolute paths unless
// `relative_files = true`; data recorded in a CI container carries that container's paths.
// Getting this wrong is the classic silent zero (nothing in the data "matches" the patch), so
// the mapping is explicit: user rules first (--path-map FROM=TO, first match wins), then
// absolute paths under the repository root, then relative paths taken from the root.

import type { FreezegateError } from "./errors.js";
import { refusal } from "./refusals/index.js";

export interface PathRule {
  from: string;
  to: string;
}

export function parsePathRule(spec: string): PathRule {
  const eq = spec.indexOf("=");
  if (eq < 0) {
    throw refusal("path-map-no-equals", { spec, inConfig: false });
  }
  return { from: spec.slice(0, eq), to: spec.slice(eq + 1) };
}

/**
 * Is this an absolute path written on Windows, whose backslashes separate directories: a
 * drive letter (`C:\src\a.py`) or a UNC share (`\\host\share`)? On POSIX a backslash is an
 * ordinary character of a file name (`app/back\slash.py`), so other paths keep theirs.
 */
export function isWindowsPath(path: string): boolean {
  return /^[A-Za-z]:[\\/]/.test(path) || path.startsWith("\\\\");
}

/**
 * The fix when no data path maps onto the repository, by what the paths look like: relative
 * (recorded in a subdirectory), an installed copy's (site-packages, which relative_files
 * cannot make relative), or another machine's root; `recorded` names that root when a data
 * path, its prefix cut off, is a file of the repository (see recordedRoot).
 */
export function unmappedPathsFix(
  measured: readonly string[],
  recorded: RecordedRoot | null = null,
): string {
  if (measured.every((p) => !p.startsWith("/") && !isWindowsPath(p))) {
    return "the data's paths are relative to the directory coverage ran in: give it with --path-map =DIR/ (e.g. --path-map =backend/)";
  }
  for (const p of measured) {
    const site = /^(.*?[\\/](?:site|dist)-packages[\\/])/.exec(p)?.[1];
    if (site !== undefined) {
      return `the tests ran an installed copy of the code: run them against the checkout (pip install -e .), or map the copy with --path-map ${site}=DIR/ (the directory that holds the package, e.g. src/)`;
    }
  }
  if (recorded !== null) {
    return `the data records ${recorded.repoPath} as "${recorded.prefix}${recorded.repoPath}": map that root onto the repository with --path-map "${recorded.prefix}=.", or record with relative_files = true`;
  }
  return "map the recorded prefix with --path-map FROM=TO (e.g. --path-map /app/=.), or record with relative_files = true";
}

/** An absolute data path split into the root it was recorded under and a repository file. */
export interface RecordedRoot {
  /** Ends with "/". */
  prefix: string;
  repoPath: string;
}

/**
 * The root the POSIX absolute data paths were recorded under: of the prefixes that leave a
 * tail `isFile` accepts (a repository path), the one that fits the most of at most `limit`
 * paths (on a tie, the first found, each path's longest tail first). null when none fits.
 */
export function recordedRoot(
  measured: readonly string[],
  isFile: (repoPath: string) => boolean,
  limit = 50,
): RecordedRoot | null {
  const fits = new Map<string, { repoPath: string; paths: number }>();
  for (const path of measured.filter((p) => p.startsWith("/")).slice(0, limit)) {
    const parts = path.split("/");
    // parts[0] is "" (before the leading "/"); the last tail is the file's name alone.
    for (let k = 1; k < parts.length; k++) {
      const tail = parts.slice(k);
      if (tail.some((part) => part === "" || part === "." || part === "..")) continue;
      const repoPath = tail.join("/");
      if (!isFile(repoPath)) continue;
      const prefix = `${parts.slice(0, k).join("/")}/`;
      const fit = fits.get(prefix);
      if (fit === undefined) fits.set(prefix, { repoPath, paths: 1 });
      else fit.paths++;
    }
  }
  let best: RecordedRoot | null = null;
  let most = 0;
  for (const [prefix, { repoPath, paths }] of fits) {
    if (paths > most) {
      best = { prefix, repoPath };
      most = paths;
    }
  }
  return best;
}

/**
 * A relative path with backslashes and no "/" could be either a Windows path
 * (`src\a.py`, recorded with relative_files on Windows) or a POSIX name holding a backslash.
 */
function eitherSpelling(path: string): boolean {
  return path.includes("\\") && !path.includes("/") && !isWindowsPath(path);
}

/** The directory part of a repository path, with its "/" ("pkg/sub/" for pkg/sub/x.py; "" at the root). */
export function dirOf(path: string): string {
  return path.slice(0, path.lastIndexOf("/") + 1);
}

/**
 * A path with "/" separators: a Windows path's backslashes turned into "/" (and its drive
 * letter upper-cased: `c:\` and `C:\` are one drive), any other as is.
 */
export function slashSeparated(path: string): string {
  if (!isWindowsPath(path)) return path;
  const slashed = path.replace(/\\/g, "/");
  return /^[a-z]:/.test(slashed) ? slashed.charAt(0).toUpperCase() + slashed.slice(1) : slashed;
}

/**
 * Normalise a path: Windows separators to "/", collapse "." and "..", no trailing "/".
 * Backslashes in a POSIX path stay (they are part of a name).
 */
export function normalizePath(path: string): string {
  const abs = path.startsWith("/");
  const out: string[] = [];
  for (const seg of slashSeparated(path).split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!abs) out.push("..");
      continue;
    }
    out.push(seg);
  }
  return (abs ? "/" : "") + out.join("/");
}

/** The rule that maps a data path ("/" separated): the first whose FROM matches it. */
function matchingRule(path: string, rules: readonly PathRule[]): PathRule | null {
  for (const rule of rules) {
    const from = slashSeparated(rule.from);
    const next = path.charAt(from.length);
    // Match whole segments only: "/app" must not rewrite "/application/x.py".
    const boundary = from.endsWith("/") || next === "" || next === "/";
    // An empty FROM prefixes relative paths only (data recorded in a subdirectory).
    if (from === "" ? !path.startsWith("/") : path.startsWith(from) && boundary) return rule;
  }
  return null;
}

/**
 * Map one data path to a repository-relative path, or null when it lies outside the
 * repository. `roots` are the repository root's absolute spellings (e.g. as given and as
 * realpath), normalised.
 */
export function mapDataPath(
  dataPath: string,
  roots: readonly string[],
  rules: readonly PathRule[],
): string | null {
  let path = slashSeparated(dataPath);
  const rule = matchingRule(path, rules);
  if (rule !== null) {
    const rest = path.slice(slashSeparated(rule.from).length);
    const to = slashSeparated(rule.to);
    const glue = to !== "" && !to.endsWith("/") && rest !== "" && !rest.startsWith("/") ? "/" : "";
    path = `${to}${glue}${rest}`;
  }
  // A Windows absolute path no rule mapped: outside, unless a root is spelled on that drive.
  if (/^[A-Za-z]:\//.test(path)) {
    const win = normalizePath(path);
    for (const root of roots.map(slashSeparated)) {
      if (win.startsWith(`${root}/`)) return win.slice(root.length + 1);
    }
    return null;
  }
  path = normalizePath(path);
  if (path.startsWith("/")) {
    for (const root of roots) {
      if (path === root) return null;
      if (path.startsWith(`${root}/`)) return path.slice(root.length + 1);
    }
    return null;
  }
  if (path === "" || path.startsWith("../") || path === "..") return null;
  return path;
}

export interface PathMapping {
  /** repository path -> data path (the first, when several map to the same file). */
  toData: Map<string, string>;
  /**
   * Repository paths that more than one data path maps to (e.g. one file recorded under two
   * roots), with all of them: reading one would lose the other's tests.
   */
  shared: Map<string, string[]>;
  /** Data paths that map outside the repository. */
  outside: string[];
}

export function mapDataPaths(
  dataPaths: readonly string[],
  roots: readonly string[],
  rules: readonly PathRule[],
): PathMapping {
  const toData = new Map<string, string>();
  const shared = new Map<string, string[]>();
  const outside: string[] = [];
  const add = (repoPath: string, dataPath: string) => {
    const first = toData.get(repoPath);
    if (first === undefined) toData.set(repoPath, dataPath);
    else if (first !== dataPath)
      shared.set(repoPath, [...(shared.get(repoPath) ?? [first]), dataPath]);
  };
  for (const dataPath of dataPaths) {
    const repoPath = mapDataPath(dataPath, roots, rules);
    if (repoPath === null) {
      outside.push(dataPath);
      continue;
    }
    add(repoPath, dataPath);
    // Only the spelling that names a file in the repository will ever be looked up.
    if (eitherSpelling(repoPath)) add(normalizePath(repoPath.replace(/\\/g, "/")), dataPath);
  }
  return { toData, shared, outside };
}

/** Relative data paths that name files both at the root and under another directory. */
export interface AmbiguousRun {
  /** A data path, as recorded, that names a file in both places. */
  recorded: string;
  /** That file read from the root (a repository path). */
  atRoot: string;
  /** The directory ("dir/") where coverage may have run instead. */
  dir: string;
  /** That file read under `dir` (a repository path). */
  inDir: string;
}

/**
 * coverage.py's relative paths (`relative_files = true`) are relative to the directory it ran
 * in, which the data does not record. They are read from the repository root; when one of
 * `dirs` ("dir/": pytest's rootdir, the data file's directory) could have been that directory
 * too, both readings may land on files (a monorepo's services with the same package), and the
 * wrong one judges one service's changes with another's tests. Ambiguous unless the data
 * itself tells: a path that is a file only at the root (data recorded at the root also names
 * the subdirectory's files by their path from the root). Paths a rule matches are decided.
 */
export function findAmbiguousRun(
  dataPaths: readonly string[],
  rules: readonly PathRule[],
  dirs: readonly string[],
  isRepoFile: (repoPath: string) => boolean,
): AmbiguousRun | null {
  if (dirs.length === 0) return null;
  const relative: { recorded: string; spellings: string[] }[] = [];
  for (const data of dataPaths) {
    const slashed = slashSeparated(data);
    if (slashed.startsWith("/") || isWindowsPath(slashed)) continue;
    if (matchingRule(slashed, rules) !== null) continue;
    const path = normalizePath(slashed);
    if (path === "" || path === ".." || path.startsWith("../")) continue;
    const spellings = eitherSpelling(path)
      ? [path, normalizePath(path.replace(/\\/g, "/"))]
      : [path];
    relative.push({ recorded: data, spellings });
  }
  if (relative.length === 0) return null;
  const atRoot = relative.map((r) => r.spellings.find(isRepoFile));
  for (const dir of dirs) {
    let found: AmbiguousRun | null = null;
    let onlyAtRoot = false;
    let onlyInDir = false;
    for (const [i, r] of relative.entries()) {
      const root = atRoot[i];
      const inDir = r.spellings.find((p) => isRepoFile(`${dir}${p}`));
      if (root !== undefined && inDir !== undefined) {
        found ??= { recorded: r.recorded, atRoot: root, dir, inDir: `${dir}${inDir}` };
      } else if (root !== undefined) onlyAtRoot = true;
      else if (inDir !== undefined) onlyInDir = true;
    }
    if (found !== null && (onlyInDir || !onlyAtRoot)) return found;
  }
  return null;
}

/** A changed file's data recorded under another path that no rule maps onto it. */
export interface LostRecording {
  /** The changed file (repository path). */
  path: string;
  /** The data path that also records it. */
  recorded: string;
  /** The --path-map rule that would map it: FROM and TO. */
  rule: PathRule;
}

const INSTALLED = /\/(?:site|dist)-packages\//;

/**
 * Data paths that record one of `changed` somewhere no rule maps onto it, so the tests
 * recorded there would be lost without a word: a shard recorded under another root (outside
 * the repository, or at a relative path that is no file here) whose path ends with the
 * whole changed path; a relative path that is no file here and ends an unmapped changed
 * path (data recorded relative to a subdirectory); or an installed copy (site-packages, also a .tox or .venv inside the
 * repository) of exactly that module (`pkg/mod.py` for `src/pkg/mod.py`). `isRepoFile` says
 * whether a repository path is a file in the work tree.
 */
export function findLostRecording(
  changed: readonly string[],
  dataPaths: readonly string[],
  mapping: PathMapping,
  roots: readonly string[],
  rules: readonly PathRule[],
  isRepoFile: (repoPath: string) => boolean,
): LostRecording | null {
  const byName = new Map<string, string[]>();
  for (const c of changed) {
    const name = c.slice(c.lastIndexOf("/") + 1);
    byName.set(name, [...(byName.get(name) ?? []), c]);
  }
  const own = new Set(changed.flatMap((c) => mapping.shared.get(c) ?? [mapping.toData.get(c)]));
  for (const data of dataPaths) {
    if (own.has(data)) continue;
    const slashed = slashSeparated(data);
    const candidates = byName.get(slashed.slice(slashed.lastIndexOf("/") + 1));
    if (candidates === undefined) continue;
    const repoPath = mapDataPath(data, roots, rules);
    const installed = INSTALLED.exec(slashed);
    for (const c of candidates) {
      let suffix: string | null = null;
      if (installed !== null) {
        const module = slashed.slice(installed.index + installed[0].length);
        if (c === module || c.endsWith(`/${module}`)) suffix = module;
      } else if (
        slashed.endsWith(`/${c}`) &&
        (repoPath === null || (repoPath !== c && !isRepoFile(repoPath)))
      ) {
        suffix = c;
      } else if (
        c.endsWith(`/${slashed}`) &&
        !mapping.toData.has(c) &&
        (repoPath === null || !isRepoFile(repoPath))
      ) {
        // Relative data recorded in a subdirectory (a monorepo's backend/ with
        // relative_files): its paths are the ends of the changed paths.
        suffix = slashed;
      }
      if (suffix === null) continue;
      const to = c.slice(0, c.length - suffix.length);
      return {
        path: c,
        recorded: data,
        rule: { from: data.slice(0, data.length - suffix.length), to: to === "" ? "." : to },
      };
    }
  }
  return null;
}

/** A changed file's own data, which a rule sends to another path. */
export interface MappedAway {
  /** The changed file (repository path). */
  path: string;
  /** The data path: without the rule, the changed file's recording. */
  recorded: string;
  /** The rule that matches it. */
  rule: PathRule;
  /** Where the rule sends it: a repository path, or null (outside the repository). */
  to: string | null;
}

/**
 * A data path that names one of `changed` without any rule (its exact repository path, or
 * that path under the root) while a rule sends it elsewhere: the changed file would lose its
 * recording and pass as unmeasured. A rule naming the whole path is refused whatever its
 * target; a directory rule only when its target is no file here. A directory rule that lands
 * on files of the repository is data recorded in another directory (a monorepo's backend/,
 * `=backend/`) that happens to spell a root file's path.
 */
export function findMappedAway(
  changed: readonly string[],
  dataPaths: readonly string[],
  roots: readonly string[],
  rules: readonly PathRule[],
  isRepoFile: (repoPath: string) => boolean,
): MappedAway | null {
  if (rules.length === 0) return null;
  const wanted = new Set(changed);
  for (const data of dataPaths) {
    const unmapped = mapDataPath(data, roots, []);
    if (unmapped === null || !wanted.has(unmapped)) continue;
    const slashed = slashSeparated(data);
    const rule = matchingRule(slashed, rules);
    if (rule === null) continue;
    const to = mapDataPath(data, roots, rules);
    if (to === unmapped) continue;
    const wholePath = slashed.length === slashSeparated(rule.from).length;
    if (wholePath || to === null || !isRepoFile(to)) {
      return { path: unmapped, recorded: data, rule, to };
    }
  }
  return null;
}

/** The refusal for a changed file's own data sent elsewhere by a rule, or null. */
export function refuseMappedAway(
  changed: readonly string[],
  dataPaths: readonly string[],
  roots: readonly string[],
  rules: readonly PathRule[],
  isRepoFile: (repoPath: string) => boolean,
): FreezegateError | null {
  const away = findMappedAway(changed, dataPaths, roots, rules, isRepoFile);
  if (away === null) return null;
  const target =
    away.to === null
      ? "outside the repository"
      : `to "${away.to}"${isRepoFile(away.to) ? "" : " (no file here)"}`;
  return refusal("path-map-sends-away", {
    rule: `${away.rule.from}=${away.rule.to}`,
    recorded: away.recorded,
    path: away.path,
    target,
  });
}

/**
 * A path-map the patch changed may not give a changed file other recorded data than the
 * base's rules give it: a new rule could map a live test's copy of the file onto it. Where the
 * base's rules map nothing onto the file (the data moved, which is why the rules changed),
 * the patch's rules decide.
 */
export function refuseRemappedChanges(
  changed: readonly string[],
  head: PathMapping,
  base: PathMapping,
  rules: readonly PathRule[],
): void {
  const shown = rules.map((r) => `${r.from}=${r.to}`).join(", ") || "no rules";
  for (const path of changed) {
    const then = base.toData.get(path);
    const now = head.toData.get(path);
    if (then === undefined || then === now) continue;
    throw refusal("patch-changes-path-map", { rules: shown, path, now: now ?? "nothing", then });
  }
}
