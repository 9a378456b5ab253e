// Refusals of the coverage data: finding it (one search for every runner, in the runner's
// words), coverage.py's SQLite data files and JSON reports and the Node.js SQLite module that
// reads them, and freezegate's Vitest data.

import { environment, input, usage } from "./define.js";

const RERUN_FIX = "re-run the tests with coverage (pytest --cov --cov-context=test)";
const SHOW_CONTEXTS_FIX =
  "run `coverage json --show-contexts` (after pytest --cov --cov-context=test)";
const MEASURED_NOTHING_FIX =
  "check that the tests ran under coverage and that [run] source/include match your code";
const VITEST_RECORD_AGAIN =
  "record it again with freezegate's Vitest runner and reporter (npx freezegate init vitest, then npx vitest run)";
const VITEST_RERUN = "re-run the whole suite (npx vitest run, no file filter, no -t), then audit";
const VITEST_SAME_RUN_FIX =
  "audit the files of one run: delete the data files, run every shard again (vitest run --shard i/n), and put all of them in one directory";

/** The data in the runner's words: "coverage data", "Vitest coverage data". */
type What = { what: string };

export const COVERAGE = {
  // Finding the data.
  "coverage-data-not-found": input(
    // Each test runner's word on where it looked, joined.
    (v: { looked: string; fix: string }) => v.looked,
    (v) => v.fix,
  ),
  "data-of-two-runners": usage(
    (v: { names: readonly string[] }) =>
      `data of ${v.names.length} test runners is here (${v.names.join(" and ")}), so which run to audit cannot be told`,
    "name the data of the run to audit with --coverage PATH (audit each runner's data in a run of its own)",
  ),
  // SQLite data files.
  "coverage-data-none-given": input(() => "no coverage.py data file was given", RERUN_FIX),
  "coverage-data-measured-nothing": input(
    (v: { files: string }) => `coverage data ${v.files} measured no files at all`,
    MEASURED_NOTHING_FIX,
  ),
  "coverage-data-no-lines": input(
    () =>
      "the coverage data records no executed line at all (no contexts): the tests ran none of the code coverage.py was told to measure (an installed copy of the package, or a --cov source the tests do not import from)",
    "run the tests against the checkout (pip install -e ., or PYTHONPATH=src) and record per-test contexts: pytest --cov --cov-context=test",
  ),
  "coverage-data-stale": input(
    (v: { path: string; evidence: string }) =>
      `the coverage data does not match ${v.path} on disk (${v.evidence}): it was recorded from another version of the file`,
    "re-run the tests with coverage on this checkout, then run freezegate again",
  ),
  "coverage-data-malformed": input(
    (v: { path: string; problem: string }) => `${v.path} ${v.problem}`,
    RERUN_FIX,
  ),
  "coverage-shard-without-contexts": input(
    (v: { path: string; seen: string; other: string }) =>
      `${v.path} has no per-test contexts (${v.seen}), unlike ${v.other}: combined, the lines it measured would count as run outside tests`,
    "record every shard with per-test contexts (pytest --cov --cov-context=test), or move this file away if it is not from this test run",
  ),
  "coverage-data-unreadable": input(
    (v: { path: string; why: string; opening: boolean }) =>
      `cannot ${v.opening ? "open" : "read"} coverage data file ${v.path}: ${v.why}`,
    RERUN_FIX,
  ),
  "coverage-schema-unknown": input(
    (v: { path: string; version: string; readable: number }) =>
      `${v.path} has coverage.py data schema version ${v.version}, freezegate reads ${v.readable}`,
    "produce the data with coverage.py 5.0 to 7.x, which write schema version 7",
  ),
  "coverage-branch-and-line-data": input(
    (v: { arcs: string; lines: string }) =>
      `cannot combine ${v.arcs} (branch/arc data) with ${v.lines} (line data); coverage combine refuses this too`,
    "re-run every test shard with the same --cov-branch / [run] branch setting",
  ),
  "coverage-data-not-a-file": input(
    (v: { path: string }) => `coverage data ${v.path} is not a file`,
    RERUN_FIX,
  ),
  "coverage-data-empty": input(
    (v: { path: string }) => `coverage data file ${v.path} is empty`,
    RERUN_FIX,
  ),
  "coverage-data-too-old": input(
    (v: { path: string }) =>
      `${v.path} is a coverage.py 4.x data file; this format is too old (freezegate reads the SQLite data of coverage.py 5.0 and later)`,
    "re-run the tests with coverage.py 5.0 or later",
  ),
  "coverage-data-not-sqlite": input(
    (v: { path: string }) => `${v.path} is not a SQLite database, so not a coverage.py data file`,
    RERUN_FIX,
  ),
  "coverage-data-truncated": input(
    (v: { path: string; detail: string }) => `coverage data file ${v.path} is truncated${v.detail}`,
    RERUN_FIX,
  ),
  "coverage-data-corrupt": input(
    (v: { path: string }) => `coverage data file ${v.path} is corrupt (bad SQLite page size)`,
    RERUN_FIX,
  ),
  "coverage-data-locked": input(
    (v: { path: string }) =>
      `coverage data file ${v.path} is locked by another process (a test run still writing it?)`,
    "wait for the test run to finish, then run freezegate again",
  ),
  "coverage-data-journal": input(
    (v: { path: string }) =>
      `coverage data file ${v.path} has a leftover rollback journal ${v.path}-journal: a coverage.py process crashed while writing it, so its data may be incomplete`,
    "re-run the tests with coverage (pytest --cov --cov-context=test); freezegate opens the data read-only and does not roll the journal back",
  ),
  // JSON reports (coverage json --show-contexts).
  "coverage-report-empty": input(
    (v: { path: string }) => `coverage report ${v.path} is empty`,
    SHOW_CONTEXTS_FIX,
  ),
  "coverage-report-not-json": input(
    (v: { path: string; why: string }) => `${v.path} is not JSON (${v.why})`,
    SHOW_CONTEXTS_FIX,
  ),
  "coverage-report-malformed": input(
    (v: { path: string; problem: string }) => `${v.path} ${v.problem}`,
    SHOW_CONTEXTS_FIX,
  ),
  "coverage-report-format-unknown": input(
    (v: { path: string; format: string }) =>
      `${v.path} is coverage.py JSON report format ${v.format}, freezegate reads formats 1 to 3`,
    "write the report with coverage.py 5.0 to 7.x, or upgrade freezegate",
  ),
  "coverage-report-without-contexts": input(
    (v: { path: string; file: string | null }) =>
      v.file === null
        ? `${v.path} was written without --show-contexts, so it does not say which test ran each line`
        : `${v.path} has no per-test contexts for ${v.file}, so it does not say which test ran each line`,
    SHOW_CONTEXTS_FIX,
  ),
  "coverage-report-measured-nothing": input(
    (v: { path: string }) => `coverage report ${v.path} measured no files at all`,
    MEASURED_NOTHING_FIX,
  ),
  // Finding the data, for every runner (src/adapters/coverage-discovery.ts).
  "data-not-found": input(
    (v: What & { where: string; lookedFor: string; record: string }) =>
      `no ${v.what} found in ${v.where} (looked for ${v.lookedFor})`,
    (v) => v.record,
  ),
  "data-of-two-runs": input(
    (v: What & { wheres: readonly string[]; flags: readonly string[] }) =>
      `${v.what} is ${v.wheres.slice(0, -1).join(", ")} and ${v.wheres.at(-1)}, and ${v.wheres.length === 2 ? "the two differ" : "they differ"}, so which run to audit cannot be told`,
    (v) =>
      `name the data of the run to audit: ${v.flags.map((f) => `--coverage ${f}`).join(" or ")} (and delete the stale data)`,
  ),
  "data-path-missing": input(
    (v: What & { path: string; give: string }) => `${v.what} ${v.path} does not exist`,
    (v) => v.give,
  ),
  "data-names-no-tests": input(
    (v: { only: string | null; fix: string }) =>
      `the coverage data names no tests${v.only === null ? "" : ` (only ${v.only})`}, so it cannot say which test ran a line`,
    // The runner's own way of recording per-test data.
    (v) => v.fix,
  ),
  "coverage-data-unrecognized": input(
    (v: { path: string }) =>
      `${v.path} is neither a coverage.py data file (SQLite) nor a coverage.py JSON report`,
    "pass the .coverage data file or coverage.json report of your test run",
  ),
  "coverage-parallel-file-not-data": input(
    (v: { path: string; dataFile: string; empty: boolean }) =>
      `${v.path} is named like a parallel coverage data file of ${v.dataFile} but ${v.empty ? "it is empty" : "it is not a SQLite database"}`,
    "re-run the tests with coverage, or move the file away if it is not coverage data",
  ),
  // freezegate's Vitest data (docs/vitest-data.md).
  "vitest-data-whole-and-shards": input(
    (v: { dir: string; whole: string; shard: string }) =>
      `${v.dir} holds both a whole run's Vitest data (${v.whole}) and shard files (${v.shard}, ...), which come from different runs`,
    "delete the files of the older run, or name the data file to audit",
  ),
  "vitest-data-unrecognized": input(
    (v: { path: string; format: string }) =>
      `${v.path} is not freezegate's Vitest coverage data (no "format": "${v.format}" in its first line)`,
    VITEST_RECORD_AGAIN,
  ),
  "vitest-data-version-unknown": input(
    (v: { path: string; version: string; readable: number }) =>
      `${v.path} is Vitest coverage data version ${v.version}, freezegate reads version ${v.readable}`,
    "audit with the freezegate version whose Vitest runner recorded it (the same package version), or record again with this one",
  ),
  "vitest-data-corrupt": input(
    (v: { path: string; problem: string; truncated?: boolean }) =>
      `Vitest coverage data ${v.path} is ${v.truncated ? "truncated or corrupt" : "corrupt"}: ${v.problem}`,
    VITEST_RECORD_AGAIN,
  ),
  "vitest-shard-missing": input(
    (v: { have: number; count: number; missing: string }) =>
      `the Vitest data has ${v.have} of ${v.count} shards: shard ${v.missing} is missing, so the tests it ran would read as having run nothing`,
    (v) => `put every shard's file (vitest-coverage.<i>-of-${v.count}.jsonl) in one directory`,
  ),
  "vitest-shards-not-one-run": input(
    (v: { first: string; other: string; why: string }) =>
      `the Vitest data files ${v.first} and ${v.other} are not shards of one run: ${v.why}`,
    VITEST_SAME_RUN_FIX,
  ),
  "vitest-tests-overlapped": input(
    (v: { tests: string | null }) =>
      `the Vitest data mixes the lines of tests that ran at the same time${v.tests === null ? "" : ` (${v.tests})`}, so it cannot say which of them ran a line`,
    "keep tests that wait for each other out of the recorded run, or make them sequential (no test.concurrent, sequence.concurrent false), then record again",
  ),
  "vitest-run-filtered": input(
    (v: { filter: string }) =>
      `the Vitest data is from a filtered run (${v.filter}): the tests it left out would read as having run nothing`,
    VITEST_RERUN,
  ),
  "vitest-run-incomplete": input(
    (
      v: { interrupted: true } | { interrupted: false; left: string; count: number; total: number },
    ) =>
      v.interrupted
        ? "the Vitest run that recorded the data was interrupted, so it holds only part of the suite"
        : `the Vitest run that recorded the data did not run ${v.count} of its ${v.total} test files (${v.left}): their tests would read as having run nothing`,
    (v) =>
      v.interrupted ? VITEST_RERUN : `${VITEST_RERUN} (without --bail, --changed or --related)`,
  ),
  "vitest-test-file-recorded-nothing": input(
    (
      v: { file: string; reason: string; noRunner: boolean } & (
        | { because: "changed" }
        | { because: "frozen"; test: string }
        | { because: "unmeasured"; changed: string; count: number }
      ),
    ) => {
      switch (v.because) {
        case "changed":
          return `the test file ${v.file}, which the patch changes, recorded no tests in the Vitest run (${v.reason})`;
        case "frozen":
          return `the frozen test "${v.test}" may be in ${v.file}, which recorded no tests in the Vitest run (${v.reason}), so the lines it would run are unknown`;
        case "unmeasured":
          return `the changed file ${v.changed} is not in the Vitest data, and ${v.count} test file(s) recorded no tests (${v.file}: ${v.reason}): the tests that import it may be among them`;
      }
    },
    (v) =>
      v.noRunner
        ? "give every Vitest project freezegate's runner (npx freezegate init vitest), then record again"
        : "fix what keeps that test file from running, then record again",
  ),
  "vitest-other-root": input(
    (v: { recorded: string; readAs: string; testRoot: string | null }) =>
      v.testRoot === null
        ? `the Vitest data was recorded with the Vitest root ${v.recorded}, whose test files are not under ${v.readAs} here`
        : `the Vitest data was recorded with the Vitest root ${v.recorded}, but the audit reads it against ${v.readAs}`,
    (v) =>
      v.testRoot === null
        ? "pass --test-root with the directory Vitest ran in, relative to the repository root"
        : `pass --test-root ${v.testRoot} (the directory Vitest ran in)`,
  ),
  // The SQLite module of Node.js.
  "node-sqlite-missing": environment(
    (v: { node: string; min: string }) =>
      `this Node.js (${v.node}) has no built-in SQLite module (node:sqlite), which freezegate reads coverage.py data files with`,
    (v) => `run freezegate on Node.js ${v.min} or later (24 recommended)`,
  ),
  "node-sqlite-turned-off": environment(
    (v: { node: string; why: string }) =>
      `this Node.js (${v.node}) cannot load its built-in SQLite module (node:sqlite), which freezegate reads coverage.py data files with: ${v.why}`,
    "run freezegate without --no-experimental-sqlite (on the node command line or in NODE_OPTIONS)",
  ),
  "node-sqlite-without-json": environment(
    (v: { node: string; version: string; min: string }) =>
      `this Node.js (${v.node}) is built with a SQLite (${v.version}) without the JSON functions (json_each) that freezegate's queries use`,
    (v) =>
      `run freezegate on an official build of Node.js ${v.min} or later, whose SQLite has them`,
  ),
};
