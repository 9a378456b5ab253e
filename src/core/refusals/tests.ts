// Refusals of what says which tests ran a line and which tests are frozen: the data's context
// names, the test root, the frozen-test list and how its ids resolve against the data.

import { input, usage } from "./define.js";

const RECORD_NODE_IDS = "record node ids instead: run pytest --cov --cov-context=test (pytest-cov)";
const TEST_ROOT_FIX =
  "give pytest's rootdir (the rootdir: line pytest prints), relative to the repository root";
const FROZEN_LIST_EXAMPLE =
  'write {"frozen": ["tests/test_x.py::test_y", ...]} or a freeze ledger with "freezes"';

/** Why test_function context names cannot say which test ran (one code, the reason a value). */
type Unclear =
  | "ambiguous"
  | "inherited-uncertain"
  | "fixture-or-test"
  | "undefined-test"
  | "in-source"
  | "in-library";

const UNCLEAR: Record<Unclear, (v: { count: number; example: string }) => string> = {
  ambiguous: (v) =>
    `${v.count} test_function context name(s) fit more than one test file, e.g. ${v.example}`,
  "inherited-uncertain": (v) =>
    `${v.count} test_function context name(s) cannot be told from an inherited test method, e.g. ${v.example}; test_function names a method after the class that defines it, so the tests that ran an inherited test method cannot be told`,
  "fixture-or-test": (v) =>
    `${v.count} test_function context name(s) name a method that its file defines in classes both as a pytest fixture and as a test, e.g. ${v.example}, so whether a test ran cannot be told`,
  "undefined-test": (v) =>
    `${v.count} test_function context name(s) name a test that their file does not define, e.g. ${v.example}, so the test that ran cannot be told`,
  "in-source": (v) =>
    `${v.count} test_function context name(s) in source modules may name a test, not a helper that ran outside tests, e.g. ${v.example}`,
  "in-library": (v) =>
    `${v.count} test_function context name(s) name a module outside the repository, e.g. "${v.example}": a library function named test* (such as Hypothesis's @given runner) started the context, so the test that ran under it cannot be told`,
};

export const TESTS = {
  // Which tests the data names.
  "contexts-mixed": input(
    (v: { pytestCov: string; testFunction: string }) =>
      `the coverage data mixes pytest-cov contexts (e.g. "${v.pytestCov}") with coverage.py test_function contexts (e.g. "${v.testFunction}")`,
    "record contexts one way only: pytest --cov-context=test, or dynamic_context = test_function",
  ),
  "tests-not-in-data": input(
    // The fix is the runner's word on how its test ids are written.
    (v: { ids: readonly string[]; fix: string }) =>
      `${v.ids.length === 1 ? "test" : "tests"} ${v.ids.join(", ")} ${v.ids.length === 1 ? "is" : "are"} not in the coverage data`,
    (v) => v.fix,
  ),
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
  "test-function-names-unclear": input(
    (v: { count: number; example: string; problem: Unclear }) => UNCLEAR[v.problem](v),
    (v) =>
      v.problem === "ambiguous"
        ? `if pytest ran in a subdirectory, give it as --test-root (names are relative to it); else ${RECORD_NODE_IDS}`
        : RECORD_NODE_IDS,
  ),
  "test-function-inherited": input((v: { why: string }) => v.why, RECORD_NODE_IDS),
  "test-function-names-unmapped": input(
    (v: { count: number; example: string }) =>
      `${v.count} test_function context name(s) match no test file in the repository, e.g. "${v.example}"`,
    "check --test-root (pytest's rootdir), or record node ids with pytest --cov --cov-context=test",
  ),
  "bad-test-root": usage(
    (v: { testRoot: string; problem: "outside" | "missing" | "file" }) =>
      `--test-root "${v.testRoot}" ${
        v.problem === "outside"
          ? "is outside the repository"
          : v.problem === "missing"
            ? "does not exist in the repository"
            : "is a file, not a directory"
      }`,
    (v) =>
      v.problem === "file"
        ? "give pytest's rootdir, the directory on the rootdir: line pytest prints (relative to the repository root), not a file in it"
        : TEST_ROOT_FIX,
  ),
  // The frozen-test list.
  "frozen-list-ambiguous": usage(
    (v: { ledger: string }) =>
      `both quarantine.json and ${v.ledger} are in the repository root, so which tests are frozen cannot be told`,
    'delete the list the ledger replaced (after freezegate ledger migrate: quarantine.json), or name one with --frozen FILE or the config\'s "ledger" key',
  ),
  "no-frozen-list": usage(
    (v: { ledger: string }) =>
      `no frozen-test list: neither quarantine.json nor ${v.ledger} is in the repository root, and without one every covered line looks defended`,
    'pass --frozen FILE (a quarantine list or a freeze ledger); only if no test is frozen at all, create quarantine.json with {"frozen": []}, which declares exactly that',
  ),
  "frozen-list-malformed": input(
    (v: { label: string; why: string }) => `frozen-test file ${v.label} is malformed: ${v.why}`,
    FROZEN_LIST_EXAMPLE,
  ),
  "frozen-ids-unresolved": input(
    (v: { count: number; label: string; sample: string; why: string | null; fix: string }) =>
      `${v.count} frozen id(s) in ${v.label} match no test in the coverage data: ${v.sample}${v.why === null ? "" : `; ${v.why}`}`,
    // How to name the tests meant depends on the ids and the data: worked out by the caller.
    (v) => v.fix,
  ),
  "frozen-case-with-test-function": input(
    (v: { label: string; pattern: string; glob: boolean }) =>
      `${v.label} freezes ${v.glob ? "parametrized cases" : "the parametrized case"} "${v.pattern}", but the coverage data uses test_function contexts, which merge all cases of a test into one name and do not tell parametrized tests from others`,
    'record node ids with pytest --cov --cov-context=test, or freeze every case of one test with "id[*]" (or the whole test)',
  ),
};
