// Refusals of the coverage data: coverage.py's SQLite data files and JSON reports, and the
// Node.js SQLite module that reads them.

import { environment, input, usage } from "./define.js";

const RERUN_FIX = "re-run the tests with coverage (pytest --cov --cov-context=test)";
const SHOW_CONTEXTS_FIX =
  "run `coverage json --show-contexts` (after pytest --cov --cov-context=test)";
const MEASURED_NOTHING_FIX =
  "check that the tests ran under coverage and that [run] source/include match your code";

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
