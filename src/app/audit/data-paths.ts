// The data's recorded paths onto the repository: how they map (--path-map), and the refusals
// when a mapping could read one file's tests as another's (a relative path two directories
// could hold, a changed file recorded under a path no rule maps).

import { dirname, isAbsolute, join, relative } from "node:path";
import { directorySpellings, fileExists, isRepoFile } from "../../adapters/repo-files.js";
import type { FreezegateError } from "../../core/errors.js";
import { sample, sampleOf } from "../../core/listing.js";
import type { CoverageSource } from "../../core/model.js";
import {
  findAmbiguousRun,
  findLostRecording,
  mapDataPaths,
  normalizePath,
  type PathMapping,
  type PathRule,
  type RecordedRoot,
  recordedRoot,
  refuseMappedAway,
  unmappedPathsFix,
} from "../../core/path-map.js";
import { refusal } from "../../core/refusals/index.js";
import type { ExecutedOf } from "../../runners/runner.js";

/** The root the data's absolute paths were recorded under, when a tail of one is a file here. */
export function recordedRootIn(root: string, measured: readonly string[]): RecordedRoot | null {
  return recordedRoot(measured, (repoPath) => isRepoFile(root, repoPath));
}

export interface DataPaths {
  measured: string[];
  mapping: PathMapping;
  /** Repository paths of data files that exist in the work tree (all, or the first one). */
  existing: string[];
}

/**
 * Map the data's paths onto the repository. `firstExisting` stops the existence checks at the
 * first file found (the audit only needs to know that the mapping lands somewhere real).
 */
export function mapCoverageToRepo(
  root: string,
  coverage: CoverageSource,
  rules: readonly PathRule[],
  { firstExisting = false } = {},
): DataPaths {
  const measured = coverage.measuredPaths();
  const mapping = mapDataPaths(measured, directorySpellings(root), rules);
  const existing: string[] = [];
  for (const p of mapping.toData.keys()) {
    if (!fileExists(join(root, p))) continue;
    existing.push(p);
    if (firstExisting) break;
  }
  return { measured, mapping, existing };
}

/**
 * The data's paths onto the repository, as the audit needs them: some must be measured and
 * land on a file here, and none may be a relative path two directories could hold.
 */
export function dataPathsOnRepo(
  root: string,
  data: CoverageSource,
  pathMap: readonly PathRule[],
  testRoot: string,
): DataPaths {
  const paths = mapCoverageToRepo(root, data, pathMap, { firstExisting: true });
  const { measured } = paths;
  if (measured.length === 0) {
    throw refusal("coverage-data-measured-nothing", { files: sampleOf(data.meta.dataFiles) });
  }
  if (paths.existing.length === 0) {
    throw refusal("coverage-paths-unmapped", {
      root,
      sample: sample(measured),
      fix: unmappedPathsFix(measured, recordedRootIn(root, measured)),
    });
  }
  const ambiguous = ambiguousRun(root, measured, pathMap, testRoot, data.meta.dataFiles);
  if (ambiguous !== null) throw ambiguous;
  return paths;
}

/**
 * Relative data paths that name files both at the repository root and under the directory
 * the tests may have run in (the test root, the data file's directory), with no rule to say
 * which: the error to stop with, or null. Reading them from the root would judge one
 * service's changes with another's tests (findAmbiguousRun).
 */
export function ambiguousRun(
  root: string,
  measured: readonly string[],
  rules: readonly PathRule[],
  testRoot: string,
  dataFiles: readonly string[],
): FreezegateError | null {
  const dirs = new Map<string, string>();
  const test = normalizePath(testRoot);
  if (test !== "" && !test.startsWith("/") && !test.startsWith("..")) {
    dirs.set(`${test}/`, "the --test-root");
  }
  const spellings = directorySpellings(root);
  for (const file of dataFiles) {
    for (const dir of directorySpellings(dirname(file))) {
      for (const r of spellings) {
        const rel = relative(r, dir);
        if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) continue;
        const prefix = `${normalizePath(rel)}/`;
        if (!dirs.has(prefix)) dirs.set(prefix, "the data file's directory");
      }
    }
  }
  const found = findAmbiguousRun(measured, rules, [...dirs.keys()], (p) =>
    fileExists(join(root, p)),
  );
  if (found === null) return null;
  const dir = found.dir.slice(0, -1);
  return refusal("coverage-path-ambiguous", {
    recorded: found.recorded,
    atRoot: found.atRoot,
    inDir: found.inDir,
    dir,
    why: dirs.get(found.dir) as string,
    prefix: found.dir,
  });
}

/**
 * Data from several machines, or from an installed copy of the package: a changed file may
 * be recorded under a path no rule maps onto it, and that recording's tests would be lost.
 * The error to stop with, or null.
 */
export function lostRecording(
  root: string,
  changed: readonly string[],
  measured: readonly string[],
  mapping: PathMapping,
  rules: readonly PathRule[],
  /** Parallel data files are read beside a combined data file (`coverage combine --keep`). */
  keptBeside = false,
): FreezegateError | null {
  const roots = directorySpellings(root);
  const isRepoFile = (p: string) => fileExists(join(root, p));
  // A rule that sends a changed file's own recording elsewhere loses it just as surely.
  const away = refuseMappedAway(changed, measured, roots, rules, isRepoFile);
  if (away !== null) return away;
  const lost = findLostRecording(changed, measured, mapping, roots, rules, isRepoFile);
  if (lost === null) return null;
  return refusal("coverage-recording-unmapped", {
    path: lost.path,
    recorded: lost.recorded,
    rule: `${lost.rule.from}=${lost.rule.to}`,
    keptBeside,
  });
}

/** ExecutedOf over a coverage source, each path read once. */
export function executedOfSource(coverage: CoverageSource): ExecutedOf {
  const seen = new Map<string, ReadonlySet<number>>();
  return (dataPath) => {
    let lines = seen.get(dataPath);
    if (lines === undefined) {
      lines = new Set(coverage.executedLines([dataPath]).get(dataPath)?.keys() ?? []);
      seen.set(dataPath, lines);
    }
    return lines;
  };
}
