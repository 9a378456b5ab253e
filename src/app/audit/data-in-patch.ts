// Data committed with the patch is no record of this run, whichever runner recorded it: a
// patch could commit data recorded with a test it then deleted, and --coverage, a config's
// `coverage` key or the search of a fresh clone in CI would read it (or, for coverage.py,
// `pytest --cov-append` would merge it into the run's own data). One guard for every runner;
// the runner's layout says which names its data has and how to tell its content.

import { join, posix, relative, sep } from "node:path";
import type { DataLayout } from "../../adapters/coverage-discovery.js";
import { outsideTestDirs } from "../../core/globs.js";
import type { Patch } from "../../core/model.js";
import { refusal } from "../../core/refusals/index.js";

// Directories that hold test fixtures: data in one of them below a test directory is data to
// test a tool with, not a record of a run.
const FIXTURE_DIRS = new Set(["fixtures", "fixture", "testdata", "test_data", "data"]);

/**
 * Refuses a committed or staged patch that adds or changes a data file the audit reads
 * (`dataFiles`, absolute), or a file named like the runner's data that holds such data (or is
 * binary in the diff), but a fixture in a fixtures or test-data directory below a test
 * directory, away from the data read. A work-tree patch is left alone: the run's own data is
 * an untracked file there.
 */
export function refuseDataInPatch(
  root: string,
  patch: Patch,
  dataFiles: readonly string[],
  layout: DataLayout,
): void {
  const source = patch.source;
  if (source.kind !== "range" && source.kind !== "staged") return;
  const read = new Set(dataFiles.map((file) => relative(root, file).split(sep).join("/")));
  // Where the runner may read or merge from is not known here (a CI's combine directory, the
  // data file behind a JSON report, a run from tests/ or tests/unit/): a committed data file
  // anywhere counts, except a fixture kept in a fixtures or test-data directory below a test
  // directory (tests/fixtures/.coverage, of a tool that reads coverage data), away from the
  // data read.
  const dataDirs = new Set([".", ...[...read].map((p) => posix.dirname(p))]);
  const mayBeData = (path: string) => {
    const dir = posix.dirname(path);
    // The fixture directory must sit below the test directory: `services/data/tests/` is a
    // service's test directory, where a run keeps its data.
    const parts = dir.split("/");
    const test = parts.findIndex((d) => d === "tests" || d === "test" || d === "testing");
    const fixture = test >= 0 && parts.slice(test + 1).some((d) => FIXTURE_DIRS.has(d));
    return outsideTestDirs(path) || !fixture || dataDirs.has(dir);
  };
  const data = patch.files.find(
    (f) =>
      f.status !== "deleted" &&
      (read.has(f.path) ||
        (layout.namedLike(f.path) &&
          mayBeData(f.path) &&
          // Binary in the diff, or data on disk: pytest --cov-append may have merged the file
          // into the run's .coverage and deleted it before the audit runs.
          (f.binary || layout.holdsData(join(root, f.path))))),
  );
  if (data === undefined) return;
  throw refusal("coverage-data-in-patch", {
    what: layout.what,
    path: data.path,
    by:
      source.kind === "range"
        ? `${source.base}...${source.head} adds or changes it`
        : "the staged patch adds or changes it",
    recordInCi: layout.recordInCi,
    // A data file kept as a test fixture is let through in one place: say which.
    fixtureHint: !read.has(data.path),
  });
}
