// Vitest with freezegate's recorder (integrations/vitest, docs/vitest-data.md) as a Runner: its
// data found at the Vitest root (the test root), its tests by the ids Vitest prints, a changed
// file's statements from istanbul's spans in the data, and its test files as Vitest's own
// include matched them. What pytest needs and Vitest has no case of (installed copies, a
// tokenizer) finds nothing here.

import { resolve } from "node:path";
import { appliedRecordBeside } from "../../adapters/pytest-ledger.js";
import { isRepoFile, readFileHead } from "../../adapters/repo-files.js";
import { isVitestDataName } from "../../adapters/vitest-data.js";
import { nodeIdFile } from "../../core/deposits.js";
import type { DoctorCheck } from "../../core/doctor.js";
import { InputError } from "../../core/errors.js";
import { sample } from "../../core/listing.js";
import type { ContextIndex, Patch, StatementMap } from "../../core/model.js";
import { splitLines } from "../../core/stale.js";
import type { ChangedSource, DataTests, Runner } from "../runner.js";
import { changedStatementStarts, spanStatements, spansPastEnd } from "./changed-source.js";
import { vitestContextIndex } from "./data-tests.js";
import { isJsTsModule, VITEST_SOURCE_GLOBS, vitestTestFiles } from "./files.js";
import {
  frozenWithoutBody,
  refuseFailedFiles,
  refuseOtherRoot,
  refuseRunThatCannotJudge,
} from "./refusals.js";
import {
  openVitestSource,
  testRootPrefix,
  VITEST_FORMAT,
  type VitestRun,
  vitestDataFiles,
  vitestOf,
} from "./source.js";

const RECORD = "npx freezegate init vitest, then npx vitest run";

/** The run each DataTests this runner read was read from (by its index). */
const runsOfTests = new WeakMap<ContextIndex, VitestRun>();

/** Does the file start as the recorder's data does (its header names the format first)? */
function looksLikeVitestData(path: string): boolean {
  const head = readFileHead(path, "Vitest coverage data", 64).toString("utf8");
  return /^\s*\{\s*"format"\s*:\s*"freezegate-vitest-coverage"/.test(head);
}

/** JavaScript ends a line at a lone "\r" and at U+2028/U+2029 too; git does not. */
const OTHER_LINE_BREAK = /\r(?!\n)|[\u2028\u2029]/;

export const vitestRunner: Runner = {
  name: "Vitest",

  advice: {
    recordTests: `record per-test coverage with freezegate's Vitest runner and reporter (${RECORD})`,
    exactIds:
      "use exact Vitest test ids (FILE::SUITE > TEST, the file relative to the Vitest root, the names as Vitest prints them)",
    runner: "Vitest",
    exactNames:
      'exact Vitest test ids (FILE::SUITE > TEST: the file relative to the Vitest root, "::", then the suite and test names as Vitest prints them, joined by " > ")',
    listed: 'by their ids, the file, "::" and the names as Vitest prints them',
    leftOut: "skipped, or left out by .only or a filter",
    groups: [
      { after: " > ", glob: " > *", is: "a suite, not a test", members: "its tests" },
      { after: "::", glob: "::*", is: "a test file, not a test", members: "its tests" },
    ],
    ids: "test ids",
    root: "the Vitest root",
    itsRoot: "its root",
    exampleId: "tests/cart.spec.ts::cart > adds tax",
    measureFiles:
      "Vitest's coverage measuring them (coverage.include and coverage.exclude in vitest.config.*)",
    measureCode: "coverage.include in vitest.config.*",
  },

  ledger: {
    tool: "vitest-freezegate",
    writer: "freezegate's Vitest reporter",
    recordPlaces: (root, testRoot, samplesPath) => [
      ...new Set([
        ...(samplesPath === undefined ? [] : [appliedRecordBeside(samplesPath)]),
        resolve(root, testRoot, ".freezegate/applied.json"),
      ]),
    ],
    samplesPlaces: (root, testRoot) => [resolve(root, testRoot, ".freezegate/samples.json")],
    keepRecord:
      "keep the reporter's record at its default place (.freezegate/applied.json at the Vitest root) or next to the samples artifact (the reporter's record option, or FREEZEGATE_VITEST_RECORD)",
    short: "the Vitest reporter",
    counts:
      "the reporter counts the distinct inputs of fast-check properties (fc.assert, test.prop) and of record(value) calls from freezegate/vitest, in tests that passed",
    propertyTest: "a fast-check property (fc.assert, test.prop) or a test calling record(value)",
    mutedBy: "test.fails",
  },

  data: {
    isThere(request) {
      try {
        // A file named explicitly is this runner's by its first line, whatever its name.
        return vitestDataFiles(request).every(
          (file) => request.explicit === undefined || looksLikeVitestData(file),
        );
      } catch {
        return false;
      }
    },
    files: vitestDataFiles,
    open: openVitestSource,
    describe(data) {
      const { header } = vitestOf(data).data;
      return `${VITEST_FORMAT}, Vitest ${header.vitest ?? "unknown version"}, istanbul line data`;
    },
  },

  tests: {
    read(root, testRoot, data, options) {
      const run = vitestOf(data);
      const { header, tests } = run.data;
      const prefix = testRootPrefix(testRoot);
      refuseOtherRoot(header, {
        repoRoot: root,
        prefix,
        exists: (path) => isRepoFile(root, path),
      });
      refuseRunThatCannotJudge(header);
      const index: ContextIndex = { style: "vitest", ...vitestContextIndex(tests) };
      runsOfTests.set(index, run);
      return {
        index,
        prefix,
        testFileExists: (file) => isRepoFile(root, `${prefix}${file}`),
        testsWithoutRun: (ids) => tests.testsWithoutRun(ids),
        ...(options?.names ? { names: run.data.contextNames() } : {}),
      };
    },
    refuseNoTests({ index }) {
      if (index.testCount > 0) return;
      throw new InputError(
        "the Vitest data names no tests, so it cannot say which test ran a line",
        {
          fix: `run the test files with freezegate's Vitest runner (${RECORD})`,
        },
      );
    },
    unreadableIds: () => null,
    frozenList(list, _label, tests) {
      // A frozen test in a test file that recorded nothing would read as having run nothing.
      const { data } = vitestOfTests(tests);
      refuseFailedFiles(data.header, {
        prefix: tests.prefix,
        changed: [],
        unmeasured: [],
        frozen: list,
      });
      return list;
    },
    mutedIds: (ids) => [...new Set(ids)],
    refuseNotRun: (label, ids) => frozenWithoutBody(label, ids),
    testFiles: (tests) => runTestFiles(tests),
    testFilesOfRun: (tests) => runTestFiles(tests),
    doctorChecks: (tests) => [contextsCheck(tests), testFilesCheck(tests)],
  },

  files: {
    // Vitest's include decides (the data's test files, RunnerTests.testFilesOfRun).
    defaultTestGlobs: [],
    defaultSourceGlobs: VITEST_SOURCE_GLOBS,
    testGlobsOnDisk: (_root, _testRoot, testGlobs) => [...testGlobs],
    testGlobsForPatch: async (_root, _patch, _testRoot, globs) => ({
      testGlobs: [...globs.testGlobs],
      ...(globs.baseTestGlobs === undefined ? {} : { baseTestGlobs: [...globs.baseTestGlobs] }),
    }),
  },

  sources: {
    reader: () => ({
      read({ change, lines, dataPaths, data }): ChangedSource {
        const { data: run } = vitestOf(data);
        const sections = dataPaths.flatMap((p) => {
          const section = run.section(vitestOf(data).dataPathOf.get(p) ?? p);
          return section === null ? [] : [section];
        });
        const statements: StatementMap = !isJsTsModule(change.path)
          ? { statementOf: () => null }
          : sections.length === 0
            ? // Unmeasured: no spans to tell code from comments; every written line counts.
              { statementOf: (line) => ((lines[line - 1] ?? "").trim() === "" ? null : line) }
            : spanStatements(sections.flatMap((s) => s.statements));
        const wanted =
          sections.length === 0
            ? new Set<number>()
            : changedStatementStarts(change.addedLines, statements);
        return {
          wantedLines: wanted,
          runsOnImport: false,
          needsStatementModel: () => false,
          statements: () => statements,
          staleEvidence(executed) {
            for (const section of sections) {
              const past = spansPastEnd(section, lines.length);
              if (past !== null) return past;
            }
            return linesThatCannotRun(lines, executed.keys());
          },
        };
      },
    }),
    refuseLineBreaks(path, text) {
      if (!OTHER_LINE_BREAK.test(text)) return;
      throw new InputError(
        `${path} holds a line break that git does not count (a lone carriage return, or U+2028/U+2029), so the Vitest data's line numbers do not name the lines the patch changes`,
        { fix: `end its lines with "\\n" (or "\\r\\n") only, then record again` },
      );
    },
    staleEvidence(_path, text, executed, listed) {
      const lines = splitLines(text);
      if (listed !== undefined) {
        const run = vitestOf(listed.data);
        const section = run.data.section(run.dataPathOf.get(listed.dataPath) ?? listed.dataPath);
        const past = section === null ? null : spansPastEnd(section, lines.length);
        if (past !== null) return past;
      }
      return linesThatCannotRun(lines, executed);
    },
    runsOnImport: () => false,
  },

  guards: {
    refuseDataInPatch,
    otherCopyMeasured: async () => null,
    refuseUnmeasuredAfterConfig: async () => {},
    refuseUnexecuted: () => {},
    refuseTestFilesWithoutData({ data, patch, toData }, unmeasured) {
      const run = vitestOf(data);
      refuseFailedFiles(run.data.header, {
        prefix: run.prefix,
        changed: patch.files.filter((f) => f.status !== "deleted").map((f) => f.path),
        unmeasured: unmeasured.filter((f) => !toData.has(f.path)).map((f) => f.path),
        frozen: { format: "quarantine", entries: [] },
      });
    },
  },
};

/** The run of the data a DataTests was read from. */
function vitestOfTests(tests: DataTests): VitestRun {
  const run = runsOfTests.get(tests.index);
  if (run === undefined) throw new Error("the Vitest runner was handed another runner's tests");
  return run;
}

/** The run's test files, as Vitest's include matched them, and those its tests name. */
function runTestFiles(tests: DataTests): Set<string> {
  const { data } = vitestOfTests(tests);
  const files = [...data.header.testFiles, ...[...data.tests.ids].map((id) => nodeIdFile(id))];
  return vitestTestFiles(files, tests.prefix);
}

/**
 * Why recorded lines cannot be from this text: a statement recorded starting past the end, or
 * on a line that holds nothing (no statement starts on a blank line). Null when none.
 */
function linesThatCannotRun(lines: readonly string[], executed: Iterable<number>): string | null {
  for (const line of executed) {
    if (line > lines.length) {
      return `line ${line} is recorded as run, but the file has ${lines.length} lines`;
    }
    if ((lines[line - 1] ?? "").trim() === "") {
      return `line ${line} is recorded as starting a statement, but it is blank`;
    }
  }
  return null;
}

function contextsCheck({ index, names }: DataTests): DoctorCheck {
  if (index.testCount === 0) {
    return {
      id: "contexts",
      status: "fail",
      message: "the Vitest data names no tests",
      fix: `run the test files with freezegate's Vitest runner (${RECORD})`,
    };
  }
  return {
    id: "contexts",
    status: "ok",
    message: `${index.testCount} tests in ${names?.length ?? 0} contexts (Vitest test ids); 1 context outside tests`,
  };
}

function testFilesCheck({ index, testFileExists }: DataTests): DoctorCheck {
  const missing = [...new Set([...index.testIds].map((id) => nodeIdFile(id)))].filter(
    (f) => !testFileExists(f),
  );
  if (missing.length === 0) {
    return {
      id: "node-ids",
      status: "ok",
      message: `every test id names a test file that exists (${index.testCount} tests)`,
    };
  }
  return {
    id: "node-ids",
    status: "fail",
    message: `test ids name ${missing.length} file(s) that do not exist in the repository: ${sample(missing.sort())}`,
    fix: "pass --test-root with the Vitest root (the directory Vitest ran in), or record the data again on this checkout",
  };
}

/** The Vitest data committed with the patch is no record of this run. */
function refuseDataInPatch(_root: string, patch: Patch): void {
  const source = patch.source;
  if (source.kind !== "range" && source.kind !== "staged") return;
  const data = patch.files.find((f) => {
    if (f.status === "deleted") return false;
    const name = f.path.slice(f.path.lastIndexOf("/") + 1);
    return isVitestDataName(name) && f.path.split("/").includes(".freezegate");
  });
  if (data === undefined) return;
  const by =
    source.kind === "range"
      ? `${source.base}...${source.head} adds or changes it`
      : "the staged patch adds or changes it";
  throw new InputError(
    `the Vitest data ${data.path} is part of the patch (${by}): data committed with a patch is not a record of this run`,
    {
      fix: `remove ${data.path} from the patch (and add .freezegate/ to .gitignore); record the data in CI with npx vitest run`,
    },
  );
}
