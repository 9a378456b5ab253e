// The per-test data of every measured source file, read once for what a freeze withdraws:
// `impact` (before freezing) and the compensation measure of `check` and `stats` (after) read
// it here, so both count the same lines of the same files. Test files are left out (a frozen
// test's own body would count as withdrawn) unless a source filter names the files.

import { join } from "node:path";
import { readTextFile } from "../adapters/repo-files.js";
import { compileGlobs } from "../core/globs.js";
import type { ImpactFileInput } from "../core/impact.js";
import { sample } from "../core/listing.js";
import type { CoverageSource } from "../core/model.js";
import { type PathRule, unmappedPathsFix } from "../core/path-map.js";
import { refusal } from "../core/refusals/index.js";
import type { DataTests, Runner } from "../runners/runner.js";
import { openData } from "./audit/data.js";
import { ambiguousRun, mapCoverageToRepo, recordedRootIn } from "./audit/data-paths.js";

export interface WithdrawnDataRequest {
  root: string;
  cwd?: string | undefined;
  /** The data path (absolute), or undefined to search for it. */
  coverage?: string | undefined;
  pathMap: PathRule[];
  testRoot: string;
  /** Test files, left out unless `sourceFilter` is given; undefined: the runner's defaults. */
  testGlobs?: string[] | undefined;
  /** Only measured files matching these globs (test files included). */
  sourceFilter?: string[] | undefined;
}

export interface WithdrawnData {
  runner: Runner;
  tests: DataTests;
  /** The chosen files with their lines and the contexts that executed each. */
  files: ImpactFileInput[];
  /** Said to the user (e.g. that no measured file matches the filter). */
  notes: string[];
  /**
   * Refuse (exit 2) when the data does not describe these files as they are on disk: line
   * numbers are only worth reporting if it does.
   */
  refuseStale(paths: readonly string[]): void;
}

/** Open the data, read what `use` needs from it, and close it. */
export function withWithdrawnData<T>(
  request: WithdrawnDataRequest,
  use: (data: WithdrawnData) => T,
): T {
  const { runner, data: coverage } = openData(request);
  try {
    return use(readWithdrawnData(runner, coverage, request));
  } finally {
    coverage.close();
  }
}

function readWithdrawnData(
  runner: Runner,
  coverage: CoverageSource,
  request: WithdrawnDataRequest,
): WithdrawnData {
  const { root } = request;
  const tests = runner.tests.read(root, request.testRoot, coverage, { names: true });
  if (tests.index.testIds.size === 0) {
    throw refusal("data-names-no-tests", { only: null, fix: runner.advice.recordTests });
  }
  const filter = request.sourceFilter;
  const isSource = filter === undefined ? () => true : compileGlobs(filter);
  const isTest = compileGlobs(
    runner.files.testGlobsOnDisk(
      root,
      request.testRoot,
      request.testGlobs ?? runner.files.defaultTestGlobs,
    ),
  );
  const notes: string[] = [];
  const { measured, mapping, existing } = mapCoverageToRepo(root, coverage, request.pathMap);
  // The runner's own choice of test files, where its data records it, counts besides the globs.
  const ofRun = runner.tests.testFilesOfRun(tests);
  const chosen = existing.filter(
    (p) => isSource(p) && (filter !== undefined || !(isTest(p) || (ofRun?.has(p) ?? false))),
  );
  if (existing.length === 0) {
    throw refusal("coverage-paths-unmapped", {
      root,
      sample: sample(measured),
      fix: unmappedPathsFix(measured, recordedRootIn(root, measured)),
    });
  }
  const ambiguous = ambiguousRun(
    root,
    measured,
    request.pathMap,
    request.testRoot,
    coverage.meta.dataFiles,
  );
  if (ambiguous !== null) throw ambiguous;
  if (chosen.length === 0) notes.push("no measured file matches the source filter");
  const dataPath = (path: string) => mapping.toData.get(path) as string;
  const executed = coverage.executedLines(chosen.map(dataPath));
  const files = chosen.map((path) => ({
    path,
    executed: executed.get(dataPath(path)) ?? new Map<number, string[]>(),
  }));
  // impact --property asks about the withdrawn files, then the property's: each is read once.
  const fresh = new Set<string>();
  return {
    runner,
    tests,
    files,
    notes,
    refuseStale(paths) {
      for (const path of paths) {
        if (fresh.has(path)) continue;
        const lines = executed.get(dataPath(path))?.keys() ?? [];
        const text = readTextFile(join(root, path), path);
        const evidence = runner.sources.staleEvidence(path, text, lines);
        if (evidence) {
          throw refusal("coverage-data-stale", { path, evidence });
        }
        fresh.add(path);
      }
    },
  };
}
