// Refusals of what joins the coverage data to the repository: the context names that say
// which test ran a line, the path mapping, the Python sources and copies of them.

import { input, usage } from "./define.js";

const RECORD_NODE_IDS = "record node ids instead: run pytest --cov --cov-context=test (pytest-cov)";
const CHECKOUT_OR_MAP = (v: { checkout: string }) =>
  `run the tests against the checkout (${v.checkout}), or measure the package (--cov=PKG) and map its installed copy onto the checkout with --path-map FROM=TO`;

/** Names of test_function contexts that cannot be told apart: how many, and one of them. */
type Names = { count: number; example: string };

export const SOURCES = {
  // Context names.
  "context-pipe-unresolved": input(
    (v: { raw: string; readings: string }) =>
      `the coverage data's context name "${v.raw}" has a "|" before its first "::", which may end a static context or belong to the test file's path, and no reading names a file under the test root (${v.readings}), so the test that ran cannot be told`,
    "set --test-root to pytest's rootdir (the rootdir: line pytest prints); if the patch deletes that test file, record the data on the patch",
  ),
  "context-pipe-two-files": input(
    (v: { raw: string; first: string; second: string }) =>
      `the coverage data's context name "${v.raw}" names two test files that both exist: ${v.first}, and ${v.second}, so the test that ran cannot be told`,
    'rename the test directory so that its path holds no "|", or record the data without a static context ([run] context)',
  ),
  "contexts-mixed": input(
    (v: { pytestCov: string; testFunction: string }) =>
      `the coverage data mixes pytest-cov contexts (e.g. "${v.pytestCov}") with coverage.py test_function contexts (e.g. "${v.testFunction}")`,
    "record contexts one way only: pytest --cov-context=test, or dynamic_context = test_function",
  ),
  "test-function-ambiguous": input(
    (v: Names) =>
      `${v.count} test_function context name(s) fit more than one test file, e.g. ${v.example}`,
    `if pytest ran in a subdirectory, give it as --test-root (names are relative to it); else ${RECORD_NODE_IDS}`,
  ),
  "test-function-inherited-uncertain": input(
    (v: Names) =>
      `${v.count} test_function context name(s) cannot be told from an inherited test method, e.g. ${v.example}; test_function names a method after the class that defines it, so the tests that ran an inherited test method cannot be told`,
    RECORD_NODE_IDS,
  ),
  "test-function-fixture-or-test": input(
    (v: Names) =>
      `${v.count} test_function context name(s) name a method that its file defines in classes both as a pytest fixture and as a test, e.g. ${v.example}, so whether a test ran cannot be told`,
    RECORD_NODE_IDS,
  ),
  "test-function-undefined-test": input(
    (v: Names) =>
      `${v.count} test_function context name(s) name a test that their file does not define, e.g. ${v.example}, so the test that ran cannot be told`,
    RECORD_NODE_IDS,
  ),
  "test-function-in-source": input(
    (v: Names) =>
      `${v.count} test_function context name(s) in source modules may name a test, not a helper that ran outside tests, e.g. ${v.example}`,
    RECORD_NODE_IDS,
  ),
  "test-function-in-library": input(
    (v: Names) =>
      `${v.count} test_function context name(s) name a module outside the repository, e.g. "${v.example}": a library function named test* (such as Hypothesis's @given runner) started the context, so the test that ran under it cannot be told`,
    RECORD_NODE_IDS,
  ),
  "test-function-unmapped": input(
    (v: Names) =>
      `${v.count} test_function context name(s) match no test file in the repository, e.g. "${v.example}"`,
    "check --test-root (pytest's rootdir), or record node ids with pytest --cov --cov-context=test",
  ),
  "test-function-inherited": input((v: { why: string }) => v.why, RECORD_NODE_IDS),
  // Path mapping.
  "path-map-no-equals": usage(
    (v: { spec: string }) => `--path-map "${v.spec}" has no "="`,
    "write --path-map FROM=TO, e.g. --path-map /app/=. to map /app/src/x.py to src/x.py",
  ),
  "path-map-sends-away": input(
    (v: { rule: string; recorded: string; path: string; target: string }) =>
      `the path-map rule "${v.rule}" sends the coverage data's "${v.recorded}", the recording of the changed file ${v.path}, ${v.target}, so ${v.path} would pass as unmeasured`,
    (v) =>
      `drop the rule (--path-map or the config's path-map), or narrow it so that it no longer matches "${v.recorded}"`,
  ),
  "patch-changes-path-map": input(
    (v: { rules: string; path: string; now: string; then: string }) =>
      `the patch changes path-map (now ${v.rules}), and the new rules give the changed file ${v.path} the data recorded as "${v.now}" instead of "${v.then}"`,
    "change path-map in a patch that changes no measured source file, or pass --path-map",
  ),
  // Python sources.
  "python-foreign-encoding": input(
    (v: { where: string; encoding: string }) =>
      `${v.where} declares the source encoding "${v.encoding}", which freezegate does not read: it reads Python source as UTF-8, where that encoding's text may hide code in a comment or string`,
    (v) => `save ${v.where} as UTF-8 and drop the coding line`,
  ),
  "python-syntax-error": input(
    (v: { where: string; line: number; what: string }) =>
      `${v.where} is not valid Python 3.11: ${v.what} at line ${v.line}`,
    "make the file importable by Python 3.11 (coverage.py cannot measure it either)",
  ),
  // Copies of the code the tests ran instead of the checkout.
  "tests-ran-a-copy": input(
    (v: { copy: string; path: string }) =>
      `none of the changed source files is in the coverage data, which measures ${v.copy} instead of ${v.path}: the tests ran another copy of the code (a build or an installed package)`,
    "run the tests against the checkout (an editable install, or PYTHONPATH), or map the copy onto it with --path-map FROM=TO",
  ),
  "tests-measured-only": input(
    (v: { only: boolean; count: number; importer: string; path: string; checkout: string }) =>
      `the coverage data ${v.only ? "measures" : "has executed lines in"} test files only (${v.count}, e.g. ${v.importer}), not ${v.path}, which ${v.importer} imports: the tests ran a copy of the code that coverage.py did not measure (an installed package)`,
    CHECKOUT_OR_MAP,
  ),
  "imported-file-never-ran": input(
    (v: { path: string; importer: string; checkout: string }) =>
      `the coverage data holds ${v.path} without a single executed line, though ${v.importer}, which ran, imports it: the tests ran another copy of the code (an installed package) that coverage.py did not measure`,
    CHECKOUT_OR_MAP,
  ),
};
