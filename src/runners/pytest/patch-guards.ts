// Guards on what a patch may change beside its code: coverage data committed with it, and
// coverage.py's configuration changed while the patch's own files are missing from the data.
// Both could make a gate pass on evidence the patch itself arranged.

import { basename, join, posix, relative, sep } from "node:path";
import { looksLikeDataFile } from "../../adapters/coverage-discovery.js";
import { readBlobs } from "../../adapters/git-history.js";
import { readTextOrNull } from "../../adapters/repo-files.js";
import { outsideTestDirs } from "../../core/globs.js";
import { sample } from "../../core/listing.js";
import type { ChangedFile, Patch } from "../../core/model.js";
import { baseRevisionOf } from "../../core/patch-base.js";
import { refusal } from "../../core/refusals/index.js";
import { coverageSettingsIn, mayConfigureCoverage } from "./coverage-settings.js";

/**
 * A patch that changes coverage.py's configuration (an `omit`, a narrower `source` or
 * `--cov=`, another `--cov-config`) can take its own changed files out of the data, and an
 * unmeasured line fails no gate by default. So when a changed source file is unmeasured and
 * the patch also changes what a file says about coverage (compared with the patch's base; a
 * user's diff has none, so any such file it touches counts), the audit refuses.
 */
export async function refuseUnmeasuredAfterCoverageConfig(
  root: string,
  patch: Patch,
  unmeasured: readonly ChangedFile[],
  testRoot: string,
  measured: Iterable<string>,
): Promise<void> {
  // Every directory above a measured file (repository paths).
  const measuredDirs = new Set<string>();
  for (const p of measured) {
    for (let d = posix.dirname(p); d !== "." && !measuredDirs.has(d); d = posix.dirname(d)) {
      measuredDirs.add(d);
    }
  }
  const may = (p: string) => mayConfigureCoverage(p, testRoot, measuredDirs);
  const configs = patch.files.filter(
    (f) => !f.binary && (may(f.path) || (f.oldPath !== null && may(f.oldPath))),
  );
  if (configs.length === 0) return;
  const base = baseRevisionOf(patch);
  const before =
    base === null
      ? null
      : await readBlobs(
          root,
          configs.map((f) => ({ rev: base, path: f.oldPath ?? f.path })),
        );
  const changed = configs.filter((f, i) => {
    const now = coverageSettingsIn(
      basename(f.path),
      f.status === "deleted" ? null : readTextOrNull(join(root, f.path)),
    );
    if (before === null) return now !== null || f.status === "deleted";
    const then = coverageSettingsIn(
      basename(f.oldPath ?? f.path),
      before[i]?.toString("utf8") ?? null,
    );
    return now !== then;
  });
  if (changed.length === 0) return;
  throw refusal("patch-changes-coverage-config", {
    config: sample(changed.map((f) => f.path)),
    sources: sample(unmeasured.map((f) => f.path)),
  });
}

// Directories that hold test fixtures: a `.coverage` in one of them below a test directory is
// data to test a tool with, not a record of a run.
const FIXTURE_DIRS = new Set(["fixtures", "fixture", "testdata", "test_data", "data"]);

/**
 * Coverage data that the patch itself adds or changes is no evidence of this run: a patch could
 * commit data recorded with a test it then deleted, and a configured `coverage` path or the
 * default discovery of `.coverage.*` files (a fresh clone in CI) would read it, or
 * `pytest --cov-append` would merge it into the run's own `.coverage`. So a committed or staged
 * patch may hold no file read as data and no file named like coverage.py's data
 * (`.coverage`, `.coverage.*`), but a fixture in a fixtures or test-data directory below a test
 * directory. A work-tree patch is left alone: the run's own data is an untracked file there.
 */
export function refuseDataInPatch(root: string, patch: Patch, dataFiles: readonly string[]): void {
  const source = patch.source;
  if (source.kind !== "range" && source.kind !== "staged") return;
  const read = new Set(dataFiles.map((file) => relative(root, file).split(sep).join("/")));
  // Where coverage.py may merge from is not known here (a CI's combine directory, the data
  // file behind a JSON report, pytest run from tests/ or tests/unit/): a committed `.coverage*`
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
  const data = patch.files.find((f) => {
    if (f.status === "deleted") return false;
    const name = basename(f.path);
    return (
      read.has(f.path) ||
      ((name === ".coverage" || name.startsWith(".coverage.")) &&
        mayBeData(f.path) &&
        // Binary in the diff, or data on disk: pytest --cov-append may have merged the file
        // into the run's .coverage and deleted it before the audit runs.
        (f.binary || looksLikeDataFile(join(root, f.path))))
    );
  });
  if (data === undefined) return;
  const by =
    source.kind === "range"
      ? `${source.base}...${source.head} adds or changes it`
      : "the staged patch adds or changes it";
  // A .coverage kept as a test fixture is let through in one place: the fix says which.
  throw refusal("coverage-data-in-patch", { path: data.path, by, read: read.has(data.path) });
}
