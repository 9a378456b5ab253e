// Which changed files the audit judges (the others are test files, not source, deleted, ...),
// and every refusal of a patch that does not fit the data or changes what it is judged by.

import { directorySpellings } from "../../adapters/repo-files.js";
import {
  compileGlobs,
  globsUnderTestRoot,
  outsideTestDirs,
  testFileMatcher,
} from "../../core/globs.js";
import { sameStrings } from "../../core/listing.js";
import type { ChangedFile, CoverageSource } from "../../core/model.js";
import {
  mapDataPaths,
  type PathMapping,
  type PathRule,
  refuseRemappedChanges,
} from "../../core/path-map.js";
import { refusal } from "../../core/refusals/index.js";
import type { SkippedFile } from "../../core/shadow-audit.js";
import type { DataTests, ExecutedOf, PatchFacts, Runner } from "../../runners/runner.js";
import { refuseDataInPatch } from "./data-in-patch.js";
import { lostRecording } from "./data-paths.js";
import { checkPatchOnDisk, type PatchOnDisk } from "./patch-on-disk.js";
import type { PatchRequest, ReadPatch } from "./read-patch.js";
import {
  type SettingsAsGiven,
  type StricterSettings,
  stricterSettings,
  type TestAndSourceGlobs,
  withDefaultGlobs,
} from "./stricter-settings.js";

/**
 * For classifyChangedFiles: whether a test of the data lives in a file (repository path), when
 * the test globs are the defaults (never given in a flag or a config). Explicit globs are the
 * user's word on what a test file is: undefined then.
 */
function productionNamedLikeTests(
  globs: TestAndSourceGlobs,
  runner: Runner,
  tests: DataTests,
  testRoot: string,
): ((path: string) => boolean) | undefined {
  const isDefault = (list: readonly string[]) => sameStrings(list, runner.files.defaultTestGlobs);
  if (!isDefault(globs.testGlobs) || (globs.baseTestGlobs && !isDefault(globs.baseTestGlobs))) {
    return undefined;
  }
  let files: Set<string> | null = null;
  return (path) => {
    files ??= runner.tests.testFiles(tests, testRoot);
    return files.has(path);
  };
}

export interface ClassifiedFiles {
  audited: ChangedFile[];
  skipped: SkippedFile[];
}

/** Which files the audit (and doctor's prediction of it) look at, and why the others not. */
export function classifyChangedFiles(
  files: readonly ChangedFile[],
  globs: TestAndSourceGlobs,
  /** "" or "dir/": the test root, whose node-id-relative paths the test globs may also match. */
  testPrefix: string,
  inData: (path: string) => boolean,
  /**
   * Whether a test of the data lives in the file (a node id names it). A file the test globs
   * match by its name (`app/ab_test.py`), outside any test directory, that the data measures
   * as source and no test lives in, is production code: audited. Undefined: globs decide.
   */
  namedByTests?: (path: string) => boolean,
  /**
   * The test globs before the runner's own configuration of test files was added (pytest's
   * `python_files`, see RunnerFiles.testGlobsForPatch). A file only those additions match is
   * a test file only when a test of the data lives in it: `python_files = *.py` or
   * `check_*.py` must not take an unmeasured or doctest-only library module out of the audit.
   */
  plainTestGlobs?: readonly string[],
  /** Test files as the runner chose them for the run (RunnerTests.testFilesOfRun). */
  testFilesOfRun?: ReadonlySet<string>,
): ClassifiedFiles {
  const matcher = (list: readonly string[]) => globsUnderTestRoot(list, testPrefix);
  const testGlob = matcher(globs.testGlobs);
  const baseTestGlob = globs.baseTestGlobs === undefined ? null : matcher(globs.baseTestGlobs);
  const isSource = compileGlobs([...globs.sourceGlobs]);
  const plainGlob = plainTestGlobs === undefined ? null : matcher(plainTestGlobs);
  const isTest = (path: string) =>
    (testFilesOfRun?.has(path) ?? false) ||
    (testGlob(path) &&
      (baseTestGlob?.(path) ?? true) &&
      (plainGlob === null || plainGlob(path) || (namedByTests?.(path) ?? false)) &&
      !(
        namedByTests !== undefined &&
        inData(path) &&
        outsideTestDirs(path) &&
        !namedByTests(path)
      ));
  const audited: ChangedFile[] = [];
  const skipped: SkippedFile[] = [];
  for (const file of files) {
    const reason: SkippedFile["reason"] | null =
      file.status === "deleted"
        ? "deleted"
        : file.submodule
          ? "submodule"
          : file.binary
            ? "binary"
            : isTest(file.path)
              ? "test-file"
              : !isSource(file.path) && !inData(file.path)
                ? "not-source"
                : file.addedLines.length === 0
                  ? "no-lines"
                  : null;
    if (reason) skipped.push({ path: file.path, reason });
    else audited.push(file);
  }
  return { audited, skipped };
}

export interface PatchAgainstData {
  root: string;
  runner: Runner;
  request: PatchRequest;
  patch: ReadPatch;
  /** The settings as the flags and the patch's own config give them. */
  settings: SettingsAsGiven;
  /** The data's tests, or null when doctor could not read them. */
  tests: DataTests | null;
  testRoot: string;
  /** "" or "dir/": the test root. */
  prefix: string;
  /** The data's recorded paths, and how they map onto the repository. */
  measured: readonly string[];
  mapping: PathMapping;
  pathMap: readonly PathRule[];
  /** The data files read (absolute). */
  dataFiles: readonly string[];
  /** A data path's executed lines (asked only when no changed file is in the data). */
  executedOf: ExecutedOf;
  data: CoverageSource;
}

/**
 * Once the patch is read: which changed files are judged, and every refusal of a patch that
 * does not fit the data, or that changes what it is judged by (data committed with it, the
 * config, a path-map, the runner's coverage configuration). Shared by the audit, which stops
 * at the error, and doctor, which reports it as its freshness check.
 */
export async function checkPatchAgainstData(a: PatchAgainstData): Promise<
  PatchOnDisk & {
    stricter: StricterSettings | null;
    /** Whether a measured file is a test file, by the test globs the patch was judged by. */
    isTestFile: (path: string) => boolean;
    /** What the runner's guards were told, for the ones asked later. */
    facts: PatchFacts;
  }
> {
  const { root, runner, patch, mapping } = a;
  refuseDataInPatch(root, patch, a.dataFiles, runner.data.layout);
  const stricter = await stricterSettings(root, patch, a.settings, runner.files);
  const given = stricter?.settings ?? withDefaultGlobs(a.settings, runner.files);
  // Before the runner's configuration widens them: a file it adds is named like a test too.
  const named =
    a.tests === null ? undefined : productionNamedLikeTests(given, runner, a.tests, a.testRoot);
  const settings = {
    ...given,
    ...(await runner.files.testGlobsForPatch(root, patch, a.testRoot, given)),
  };
  // The runner's own choice of test files, where its data records it, counts besides the globs.
  const ofRun = a.tests === null ? null : runner.tests.testFilesOfRun(a.tests);
  const byGlobs = testFileMatcher(settings.testGlobs, a.prefix);
  const isTestFile = ofRun === null ? byGlobs : (path: string) => ofRun.has(path) || byGlobs(path);
  const classified = classifyChangedFiles(
    patch.files,
    settings,
    a.prefix,
    (p) => mapping.toData.has(p),
    named,
    given.testGlobs,
    ofRun ?? undefined,
  );
  const onDisk = await checkPatchOnDisk(root, a.request, patch, classified, mapping.toData);
  const changed = onDisk.audited.map((f) => f.path);
  refusePinnedChange(stricter, changed);
  const [main, ...parallel] = a.dataFiles;
  const keptBeside =
    main !== undefined && parallel.length > 0 && parallel.every((f) => f.startsWith(`${main}.`));
  const lost = lostRecording(root, changed, a.measured, mapping, a.pathMap, keptBeside);
  if (lost !== null) throw lost;
  if (stricter?.settings.basePathMap !== undefined) {
    const base = mapDataPaths(a.measured, directorySpellings(root), stricter.settings.basePathMap);
    refuseRemappedChanges(changed, mapping, base, a.pathMap);
  }
  const facts: PatchFacts = {
    root,
    patch,
    audited: onDisk.audited,
    toData: mapping.toData,
    isTestFile,
    executedOf: a.executedOf,
    testRoot: a.testRoot,
    data: a.data,
  };
  const copy = await runner.guards.otherCopyMeasured(facts);
  if (copy !== null) throw copy;
  const unmeasured = onDisk.audited.filter((f) => !mapping.toData.has(f.path));
  runner.guards.refuseTestFilesWithoutData(facts, unmeasured);
  if (unmeasured.length > 0) await runner.guards.refuseUnmeasuredAfterConfig(facts, unmeasured);
  return { ...onDisk, stricter, isTestFile, facts };
}

/**
 * A patch that changes what chose its range (base) or the data (coverage): no stricter of
 * both readings exists, so it is refused: always for the range, which could leave the
 * patch's own code out; for the data when the patch changes a source file the audit judges
 * (a patch of its own can change it).
 */
function refusePinnedChange(stricter: StricterSettings | null, audited: readonly string[]): void {
  const pin = stricter?.pinned.find((p) => p.key === "base" || audited.length > 0);
  if (pin === undefined || stricter === null) return;
  const at = stricter.change.base === "HEAD" ? "HEAD" : stricter.change.base.slice(0, 12);
  throw refusal("patch-changes-pinned-setting", {
    key: pin.key,
    now: pin.now,
    atBase: pin.atBase,
    at,
  });
}
