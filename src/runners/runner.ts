// What is specific to a test runner and the language of its tests, behind one interface. The
// audit (src/app/audit/), doctor, impact and the test-id lookups take a Runner as a value and
// never name one; the registry (registry.ts) chooses it from the data found.
//
// pytest with coverage.py is the first implementation (src/runners/pytest/, with Python's
// statements, logical lines and imports under src/languages/python/). A second runner is a
// module beside it: the doc comments below say, member by member, what pytest does and what
// Vitest with freezegate's recorder (docs/vitest-data.md) would do. What a runner cannot do
// (Vitest has no installed copies to find) is a member that finds nothing, not an `if` in
// the audit.
//
// A runner is a vertical slice: its pure rules (the grammar of its test ids, which lines are
// statements) and the composition that reads its files through src/adapters.

import type { DataLayout } from "../adapters/coverage-discovery.js";
import type { DoctorCheck } from "../core/doctor.js";
import type { FreezegateError } from "../core/errors.js";
import type { FrozenList, IdWords } from "../core/frozen.js";
import type {
  ChangedFile,
  ContextIndex,
  CoverageSource,
  DataPlaces,
  Patch,
  StatementMap,
} from "../core/model.js";
import type { MutatorAnswer } from "../core/mutants.js";

/** Where the data is: an explicit path (absolute, or relative to the root), else the places. */
export interface DataRequest {
  root: string;
  /** A path the user gave (a file or a directory to search), or undefined to search. */
  explicit?: string | undefined;
  places: DataPlaces;
}

/**
 * The data's tests as the audit reads them: which test each context name stands for, which of
 * them never ran their body, and the test root their ids are relative to.
 */
export interface DataTests {
  index: ContextIndex;
  /** "" or "dir/": the test root as a path prefix inside the repository. */
  prefix: string;
  /** Does the test root hold this file (as the data's test ids name files)? */
  testFileExists: (file: string) => boolean;
  /** Of `ids` (tests in the data), those whose body never ran (only setup or teardown). */
  testsWithoutRun(ids: readonly string[]): string[];
  /** Every context name, when they were asked for (see RunnerTests.read). */
  names?: readonly string[];
}

/** What the data says about one changed file, as the runner reads it with its text. */
export interface ChangedSourceInput {
  change: ChangedFile;
  /** The file's text on disk (what the data should have measured). */
  text: string;
  /** Its lines, as splitLines gives them. */
  lines: readonly string[];
  /** The paths the data records it under (one, or several shards' roots; none: unmeasured). */
  dataPaths: readonly string[];
  data: CoverageSource;
}

/**
 * One changed file as the runner reads it: which lines are code and how they group into
 * statements. Made before the data's rows are read (they are read only for `wantedLines`),
 * finished once they are.
 * pytest: the Python statement finder (its logical lines first, the bytecode model only where
 * a changed statement never ran) and, from a JSON report, coverage.py's own statement lists.
 * Vitest: the data's statement spans; no tokenizer.
 */
export interface ChangedSource {
  /**
   * The lines whose tests the data must give: every line of each statement that holds a
   * changed line. Empty when the changed lines are not code (the file's rows are not read).
   */
  readonly wantedLines: ReadonlySet<number>;
  /**
   * Whether its module runs code when imported, so that the data holding it without one
   * executed line may mean the tests ran another copy (see RunnerGuards.refuseUnexecuted).
   */
  readonly runsOnImport: boolean;
  /**
   * Whether a changed statement has no line in `executed`: its verdict then needs the slow
   * part of the statement model. Asked to know how much work is left (AuditHooks).
   */
  needsStatementModel(executed: ReadonlyMap<number, unknown> | undefined): boolean;
  /**
   * The file's statements, once its executed lines are read (null: the data does not measure
   * it). `contexts` tells which executed lines a test ran (pytest: an excluded statement no
   * test ran is none).
   */
  statements(
    executed: ReadonlyMap<number, readonly string[]> | null,
    contexts: ContextIndex,
  ): StatementMap;
  /**
   * Why the data cannot have been recorded from this text (a recorded line past the end, or
   * one that is no code), or null.
   */
  staleEvidence(executed: ReadonlyMap<number, unknown>): string | null;
}

/** Reads the changed files of one audit (settings read once, such as exclusion patterns). */
export interface ChangedSourceReader {
  read(input: ChangedSourceInput): ChangedSource;
}

/**
 * What it takes to find and open the runner's data. Every runner's data is found by the one
 * search of src/adapters/coverage-discovery.ts (its places, its order, its refusals), given the
 * runner's layout: isThere and files are that search.
 */
export interface RunnerData {
  /**
   * What the data looks like on disk. pytest: `.coverage`, `.coverage.*`, `coverage.json`;
   * Vitest: `.freezegate/vitest-coverage.jsonl` or its shards' files. The guard on data
   * committed with a patch reads it too.
   */
  readonly layout: DataLayout;
  /**
   * Whether the runner's data is there: `explicit` is its data by content, or, without it, a
   * search finds its files. Cheap (names and first bytes); the registry asks every runner.
   */
  isThere(request: DataRequest): boolean;
  /**
   * The data files `open` would read (absolute), before reading them; throws what `open`
   * throws when there are none.
   */
  files(request: DataRequest): string[];
  /** Opens the data; an InputError in the runner's words when it is missing or unreadable. */
  open(request: DataRequest): CoverageSource;
  /** One phrase for doctor: "coverage.py-sqlite, coverage.py 7.4.1, line data". */
  describe(data: CoverageSource): string;
}

/** The data's tests: the grammar of its context names and test ids. */
export interface RunnerTests {
  /**
   * The data's tests, read against the test root (`testRoot`, relative to the repository
   * root): it is checked first (UsageError in the runner's words). With `names`, every
   * context name is read and kept (doctor); without, the data may sum them up (the audit).
   * pytest: pytest-cov's node ids with phases, or coverage.py's dotted test_function names
   * mapped to node ids through the test root's Python files. Vitest: the header's tests.
   */
  read(
    root: string,
    testRoot: string,
    data: CoverageSource,
    options?: { names?: boolean },
  ): DataTests;
  /** Refuses data that names no test, saying how to record per-test data. */
  refuseNoTests(tests: DataTests): void;
  /**
   * Why the data's test ids cannot be read at all, when frozen ids match none of them (pytest:
   * a static context holding "::" stands before every node id), or null.
   */
  unreadableIds(tests: DataTests): { message: string; fix: string } | null;
  /**
   * The frozen list as it applies to this data (pytest: test_function data merges a test's
   * parametrized cases into one name, so an entry for one case is refused). `label` names it.
   */
  frozenList(list: FrozenList, label: string, tests: DataTests): FrozenList;
  /** Ids of tests muted outside the frozen list (an xfail), as the data names them. */
  mutedIds(ids: readonly string[], tests: DataTests): string[];
  /**
   * The refusal for frozen tests that never ran their body, in the runner's words (how to keep
   * frozen tests running), or null when there are none.
   */
  refuseNotRun(label: string, ids: readonly string[], data: CoverageSource): FreezegateError | null;
  /**
   * The repository paths of the files the data's tests live in, for telling a production file
   * named like a test from a test file (pytest: a doctest makes its module no test file).
   */
  testFiles(tests: DataTests, testRoot: string): Set<string>;
  /**
   * The test files as the runner itself chose them for the recorded run (repository paths):
   * a changed file among them is a test file whatever the test globs say. null: the runner's
   * data does not say, and the globs decide (pytest). Vitest: the files its `include` matched.
   */
  testFilesOfRun(tests: DataTests): ReadonlySet<string> | null;
  /**
   * doctor's checks of the data's tests (read with `names`): "contexts" and "node-ids", in
   * that order.
   */
  doctorChecks(tests: DataTests): DoctorCheck[];
}

/** Which changed files are tests, which are audited source. */
export interface RunnerFiles {
  /** pytest: test_*.py, *_test.py, conftest.py and test directories; Vitest: the data's testFiles. */
  readonly defaultTestGlobs: readonly string[];
  /** pytest: **\/*.py; Vitest: the JavaScript and TypeScript extensions. */
  readonly defaultSourceGlobs: readonly string[];
  /**
   * The test globs with the runner's own configuration of test files added (pytest's
   * `python_files`) as on disk.
   */
  testGlobsOnDisk(root: string, testRoot: string, testGlobs: readonly string[]): string[];
  /**
   * The same for a patch: when it changes that configuration, a test file must match it at
   * both ends (`baseTestGlobs`), so that a patch cannot make its own files tests.
   */
  testGlobsForPatch(
    root: string,
    patch: Patch,
    testRoot: string,
    globs: { testGlobs: readonly string[]; baseTestGlobs?: readonly string[] },
  ): Promise<{ testGlobs: string[]; baseTestGlobs?: string[] }>;
}

/** Which lines of a source file are code, and how they group into statements. */
export interface RunnerSources {
  /** The reader for one audit's changed files (`prefix`: the test root, "" or "dir/"). */
  reader(root: string, prefix: string): ChangedSourceReader;
  /**
   * Refuses a text whose lines the runner numbers otherwise than git does (pytest: Python ends
   * a line at a lone "\r"), where the data names lines.
   */
  refuseLineBreaks(path: string, text: string): void;
  /**
   * Why recorded lines cannot be from this text (doctor, impact): `listed` adds the
   * statements the data lists for the file at `dataPath`, where the runner trusts them.
   */
  staleEvidence(
    path: string,
    text: string,
    executed: Iterable<number>,
    listed?: { data: CoverageSource; dataPath: string },
  ): string | null;
  /** Whether a changed file's module runs code when imported (see ChangedSource.runsOnImport). */
  runsOnImport(path: string): boolean;
}

/** A data path's executed line numbers (in any context). */
export type ExecutedOf = (dataPath: string) => ReadonlySet<number>;

/** What the runner knows about a patch and the files around the data. */
export interface PatchFacts {
  root: string;
  patch: Patch;
  /** The changed files the audit judges. */
  audited: readonly ChangedFile[];
  /** Repository path -> data path, for every measured file of the repository. */
  toData: ReadonlyMap<string, string>;
  isTestFile: (path: string) => boolean;
  executedOf: ExecutedOf;
  testRoot: string;
  /** The data the patch is judged by. */
  data: CoverageSource;
}

/**
 * The runner's own refusals: evidence the data may hold although it is no record of the
 * patch's code. Each finds nothing when the runner has no such case.
 */
export interface RunnerGuards {
  /**
   * None of the changed files is in the data while a copy of them is (pytest: a build, an
   * installed package): the error, or null.
   */
  otherCopyMeasured(facts: PatchFacts): Promise<FreezegateError | null>;
  /**
   * Changed files left out of the data while the patch changes what the data measures
   * (pytest: coverage.py's configuration; Vitest: the coverage include and exclude).
   */
  refuseUnmeasuredAfterConfig(facts: PatchFacts, unmeasured: readonly ChangedFile[]): Promise<void>;
  /**
   * Changed modules the data holds without one executed line (`candidates`), though a test
   * that ran imports them: another copy ran (pytest only).
   */
  refuseUnexecuted(facts: PatchFacts, candidates: readonly string[]): void;
  /**
   * Test files of the run that recorded no test (Vitest: one that failed to import), where
   * that can change a verdict: the patch changes one, or a changed file the data lacks
   * (`unmeasured`) may be imported by them alone. pytest: none (its data has no such list).
   */
  refuseTestFilesWithoutData(facts: PatchFacts, unmeasured: readonly ChangedFile[]): void;
}

/**
 * Advice in the runner's words, for the fixes of refusals the audit core, doctor and the
 * ledger commands make: they take these words as values and never name a runner.
 */
export interface RunnerAdvice extends IdWords {
  /** How to record data that says which test ran each line (pytest: --cov-context=test). */
  readonly recordTests: string;
  /** How to name a test exactly, as the data does (pytest: node ids as --collect-only gives). */
  readonly exactIds: string;
  /** One id as an example: "tests/test_x.py::test_y". */
  readonly exampleId: string;
  /**
   * How to make the data measure changed files that tests run, to end "record the data on
   * this checkout with ...": "coverage.py measuring them (its source and omit settings)".
   */
  readonly measureFiles: string;
  /** How to make the data measure any of the code: "[run] source / --cov=". */
  readonly measureCode: string;
}

/**
 * The runner's ledger integration (pytest: the freezegate pytest plugin; Vitest: freezegate's
 * Vitest runner and reporter): the files it writes in a test run and its words for them.
 */
export interface RunnerLedger {
  /** The "tool" its applied record and samples artifact name. */
  readonly tool: string;
  /** Who writes them, in messages: "the freezegate pytest plugin". */
  readonly writer: string;
  /**
   * Where its applied record of a run may be (absolute, in order, no repeats): where its
   * settings put it, beside the samples artifact given (`samplesPath`), its default place.
   */
  recordPlaces(root: string, testRoot: string, samplesPath: string | undefined): string[];
  /** Where its samples artifact of a run may be (absolute, in order, no repeats). */
  samplesPlaces(root: string, testRoot: string): string[];
  /** How to keep the applied record where check finds it. */
  readonly keepRecord: string;
  /** Its short name, after "a property test ... counted": "the pytest plugin". */
  readonly short: string;
  /** What it counts as a property's inputs: "the plugin counts the distinct inputs of ...". */
  readonly counts: string;
  /** A property test it counts, as an example: "a Hypothesis @given test". */
  readonly propertyTest: string;
  /** What mutes a test outside the ledger: "an xfail", "test.fails". */
  readonly mutedBy: string;
}

/** What the mutator is asked: the statements at `lines` of repository file `path`. */
export interface MutateRequest {
  root: string;
  path: string;
  lines: readonly number[];
  /** The interpreter or tool the mutator runs on, as the user named it. */
  python: string;
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal | undefined;
}

/**
 * Running the runner's tests against mutants of its language's statements (impact
 * --mutants). pytest: Python statements mutated with Python's own ast
 * (freezegate_pytest.mutants), tests run by node id with the outcomes recorder
 * (freezegate_pytest.outcomes). Vitest: none yet. Which runner has one is said by
 * src/runners/mutations.ts, apart from the Runner: the audit never needs it.
 */
export interface RunnerMutation {
  /** The language whose statements are mutated, in messages: "Python". */
  readonly language: string;
  /** Whether the mutator reads this measured file. */
  accepts(path: string): boolean;
  /** The mutants of the statements at the request's lines, and the file's import probe. */
  mutate(request: MutateRequest): Promise<MutatorAnswer>;
  /**
   * The words after the user's command that run exactly `ids` (as the data names them, under
   * the test root `prefix`) from `cwd` (repository-relative), with the outcomes recorded.
   */
  testArguments(ids: readonly string[], where: { prefix: string; cwd: string }): string[];
  /** The user's environment with what a run adds: the recorder, and where it writes. */
  environment(outcomesFile: string, env: NodeJS.ProcessEnv): NodeJS.ProcessEnv;
}

export interface Runner {
  /** The runner's name in messages: "pytest", "Vitest". */
  readonly name: string;
  readonly advice: RunnerAdvice;
  readonly ledger: RunnerLedger;
  readonly data: RunnerData;
  readonly tests: RunnerTests;
  readonly files: RunnerFiles;
  readonly sources: RunnerSources;
  readonly guards: RunnerGuards;
}
