// pytest with coverage.py as a Runner: per-test data from pytest-cov's contexts (or coverage.py's
// test_function contexts) in a `.coverage` data file or a `coverage json --show-contexts`
// report, Python sources, pytest's node ids and configuration.

import { dataIsThere } from "../../adapters/coverage-discovery.js";
import {
  COVERAGE_PY_DATA,
  discoverCoverage,
  openCoverage,
} from "../../adapters/coverage-py-files.js";
import { recordCandidates, samplesCandidates } from "../../adapters/pytest-ledger.js";
import { nodeIdFile } from "../../core/deposits.js";
import { checkTestIdFiles } from "../../core/doctor.js";
import { DEFAULT_SOURCE_GLOBS, DEFAULT_TEST_GLOBS } from "../../core/globs.js";
import { sample } from "../../core/listing.js";
import { refusal } from "../../core/refusals/index.js";
import { PLUGIN_TOOL } from "../../core/samples.js";
import { staleEvidence } from "../../core/stale.js";
import {
  REPORT_LINE_BREAKS,
  refuseLoneCarriageReturn,
} from "../../languages/python/line-breaks.js";
import type { DataTests, Runner } from "../runner.js";
import { pytestSourceReader, statementLinesOf } from "./changed-source.js";
import { staticContextWithColons, staticContextWithColonsProblem } from "./context-names.js";
import { readPytestTests } from "./data-tests.js";
import { checkContextsPresent } from "./doctor-checks.js";
import { frozenForCollapsedContexts, frozenWithoutRun } from "./frozen-tests.js";
import { noneMeasured, refuseUnexecutedImported } from "./installed-copies.js";
import { isDoctestId, withoutParameters } from "./node-ids.js";
import { refuseUnmeasuredAfterCoverageConfig } from "./patch-guards.js";
import { testGlobsOnDisk, testGlobsWithPythonFiles } from "./test-files.js";

/** A static context holding "::" makes every test id unreadable. */
function unreadablePytestIds({ index, testFileExists }: DataTests) {
  const found = staticContextWithColons(index.testIds, testFileExists);
  return found === null ? null : staticContextWithColonsProblem(found);
}

export const pytestRunner: Runner = {
  name: "pytest",

  advice: {
    recordTests: "record per-test contexts: pytest --cov --cov-context=test",
    exactIds:
      "use exact pytest node ids (as in pytest --collect-only -q), recorded with --cov-context=test",
    runner: "pytest",
    exactNames: "exact pytest node ids (as in `pytest --collect-only -q`)",
    listed: "as `pytest --collect-only -q` prints them",
    leftOut: "deselected with -k, -m or --deselect",
    groups: [
      { after: "[", glob: "[*]", is: "a parametrized test", members: "its cases" },
      { after: "::", glob: "::*", is: "a class or module, not a test", members: "its tests" },
    ],
    ids: "node ids",
    root: "pytest's rootdir",
    itsRoot: "its rootdir",
    exampleId: "tests/test_x.py::test_y",
    measureFiles: "coverage.py measuring them (its source and omit settings)",
    measureCode: "[run] source / --cov=",
  },

  ledger: {
    tool: PLUGIN_TOOL,
    writer: "the freezegate pytest plugin",
    recordPlaces: recordCandidates,
    samplesPlaces: samplesCandidates,
    keepRecord:
      "keep the plugin's record at its default place, or set freezegate_record in pytest's config (not --freezegate-record on pytest's command line)",
    short: "the pytest plugin",
    counts:
      "the plugin counts the distinct inputs of Hypothesis @given tests and of freezegate_pytest.record(value) calls, in tests that passed",
    propertyTest: "a Hypothesis @given test or one calling freezegate_pytest.record(value)",
    mutedBy: "an xfail",
  },

  data: {
    layout: COVERAGE_PY_DATA,
    isThere: ({ root, explicit, places }) => dataIsThere(COVERAGE_PY_DATA, root, explicit, places),
    files: ({ root, explicit, places }) => discoverCoverage(root, explicit, places).files,
    open: ({ root, explicit, places }) => openCoverage(root, explicit, places),
    describe({ meta }) {
      return `${meta.format}, coverage.py ${meta.coverageVersion ?? "unknown version"}, ${meta.hasArcs ? "branch" : "line"} data`;
    },
  },

  tests: {
    read: readPytestTests,
    refuseNoTests({ index }) {
      if (index.style !== "none") return;
      // Without tests every name is outside them.
      const names = index.nonTestContexts;
      if (names.length === 0) throw refusal("coverage-data-no-lines", undefined);
      throw refusal("data-names-no-tests", {
        only: sample(names),
        fix: "record per-test contexts: pytest --cov --cov-context=test (or [run] dynamic_context = test_function)",
      });
    },
    unreadableIds: unreadablePytestIds,
    frozenList: (list, label, { index }) =>
      index.style === "test-function" ? frozenForCollapsedContexts(list, label) : list,
    // test_function data merges a test's parametrized cases into one name: a muted case mutes
    // that name (fail closed: its other cases' lines read shadowed too).
    mutedIds: (ids, { index }) => [
      ...new Set(index.style === "test-function" ? ids.map(withoutParameters) : ids),
    ],
    refuseNotRun: (label, ids, data) => frozenWithoutRun(label, ids, data.meta.format),
    testFiles: ({ index }, testRoot) =>
      new Set(
        [...index.testIds].filter((id) => !isDoctestId(id)).map((id) => nodeIdFile(id, testRoot)),
      ),
    testFilesOfRun: () => null,
    doctorChecks: (tests) => [
      checkContextsPresent(tests.names ?? [], tests.index),
      tests.index.style === "pytest-cov"
        ? checkTestIdFiles(
            tests.index.testIds,
            tests.testFileExists,
            "pytest's rootdir (the rootdir: line pytest prints)",
            () => unreadablePytestIds(tests),
          )
        : {
            id: "node-ids",
            status: "skip",
            message: "not checked: no pytest-cov node ids in the data",
          },
    ],
  },

  files: {
    defaultTestGlobs: DEFAULT_TEST_GLOBS,
    defaultSourceGlobs: DEFAULT_SOURCE_GLOBS,
    testGlobsOnDisk,
    testGlobsForPatch: testGlobsWithPythonFiles,
  },

  sources: {
    reader: pytestSourceReader,
    refuseLineBreaks: refuseLoneCarriageReturn,
    staleEvidence(path, text, executed, listed) {
      // As in the audit: a report's lists are shifted after a line break only Python sees.
      const reported =
        listed === undefined || REPORT_LINE_BREAKS.test(text)
          ? null
          : listed.data.statements(listed.dataPath);
      return staleEvidence(text, [...executed, ...(reported ?? [])], statementLinesOf(path, text));
    },
    runsOnImport: (path) => path.endsWith(".py"),
  },

  guards: {
    otherCopyMeasured: ({ root, audited, toData, isTestFile, executedOf }) =>
      noneMeasured(root, audited, toData, isTestFile, executedOf),
    refuseUnmeasuredAfterConfig: ({ root, patch, testRoot, toData }, unmeasured) =>
      refuseUnmeasuredAfterCoverageConfig(root, patch, unmeasured, testRoot, toData.keys()),
    refuseUnexecuted: ({ root, toData, isTestFile, executedOf }, candidates) =>
      refuseUnexecutedImported(root, candidates, toData, isTestFile, executedOf),
    refuseTestFilesWithoutData: () => {},
  },
};
