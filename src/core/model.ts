// The values that flow between adapters and audits. Adapters (git, coverage data files,
// frozen lists) produce these; audits are pure functions over them. Paths are always
// repository-relative and POSIX ("src/app/x.py") once they reach the core.

// ---------------------------------------------------------------------------------------------
// Patch: what git (or a user-supplied unified diff) says changed.

export type ChangeStatus =
  | "added"
  | "modified"
  | "deleted"
  | "renamed"
  | "copied"
  | "mode-changed"
  | "type-changed";

export interface ChangedFile {
  /** Path in the new tree (for a deletion: the path that was deleted). */
  path: string;
  /** Path in the old tree when it differs (renames, copies); otherwise null. */
  oldPath: string | null;
  status: ChangeStatus;
  /** git could not show a text diff ("Binary files ... differ"). */
  binary: boolean;
  /** A gitlink (submodule pointer) change, not a file with lines. */
  submodule: boolean;
  /** Added or modified lines, numbered in the new file; ascending, unique. */
  addedLines: number[];
  /**
   * The new content's git blob id, when the diff carried a full one (`git diff --full-index`):
   * lets the audit check, without another git call, that the file on disk is what the patch
   * describes.
   */
  newBlob?: string;
}

export type PatchSource =
  | { kind: "range"; base: string; head: string; mergeBase: string }
  | { kind: "staged" }
  | { kind: "worktree" }
  | { kind: "diff"; file: string };

export interface Patch {
  source: PatchSource;
  files: ChangedFile[];
}

// ---------------------------------------------------------------------------------------------
// Coverage: which contexts (tests) executed which lines.

/** Which data was read: coverage.py's (pytest), or freezegate's Vitest recorder's. */
export type CoverageFormat =
  | "coverage.py-sqlite"
  | "coverage.py-json"
  | "freezegate-vitest-coverage";

/**
 * Where the user stands, for a search of the data without a path: a test runner writes its
 * data in the directory it runs in, which may be the user's directory or the test root rather
 * than the repository root. Paths in messages are relative to `cwd`.
 */
export interface DataPlaces {
  /** The directory the command runs in (-C applied), absolute; default the root. */
  cwd?: string | undefined;
  /** The test root (pytest's rootdir), relative to the root ("" or undefined for the root). */
  testRoot?: string | undefined;
}

export interface CoverageMeta {
  format: CoverageFormat;
  /** The data files read (absolute paths), e.g. ".coverage" and its parallel ".coverage.*". */
  dataFiles: string[];
  /** coverage.py version that wrote the data, when recorded. */
  coverageVersion: string | null;
  /** Branch (arc) data rather than line data. */
  hasArcs: boolean;
  /** When the data was recorded (newest of the files), when known. */
  recordedAt: Date | null;
}

/**
 * Read access to per-test coverage data. Implementations read lazily: the audit asks only
 * for the files the patch touched.
 */
export interface CoverageSource {
  readonly meta: CoverageMeta;
  /** Every measured file path exactly as stored in the data (absolute or relative). */
  measuredPaths(): string[];
  /** Every distinct context name in the data (including the empty context ""). */
  contextNames(): string[];
  /**
   * For each requested path (as stored in the data): line number -> names of the contexts
   * that executed it. Lines <= 0 are dropped. Paths not in the data are absent from the map.
   * With `wanted`, only the wanted lines of a path listed there get their names; its other
   * executed lines map to an empty array (executed, names not read), which saves building
   * name lists for lines nobody asked about.
   */
  executedLines(
    paths: readonly string[],
    wanted?: ReadonlyMap<string, ReadonlySet<number>>,
  ): Map<string, Map<number, string[]>>;
  /**
   * The statement lines coverage.py itself computed (JSON report: executed and missing
   * lines), or null when the data does not carry them (the SQLite data file).
   */
  statements(path: string): ReadonlySet<number> | null;
  /**
   * Lines coverage.py's exclusion patterns matched (JSON report: excluded_lines), or null.
   * A pattern matches any physical line, a comment or a line inside a string too: such a
   * line is code only where the statement finder says so, and never evidence of stale data.
   */
  excluded(path: string): ReadonlySet<number> | null;
  /**
   * The context names summed up without reading them all (see ContextOverview), or null
   * when this source cannot (the caller then reads `contextNames()`). Optional.
   */
  contextOverview?(): ContextOverview | null;
  close(): void;
}

/**
 * What a data source can say about its context names without handing them all over: the
 * plain pytest-cov names (an `isPlainTestId` node id, "|", a phase) counted, every other
 * name listed. A 20,000-test suite has 20,000 plain names and usually one other (the empty
 * context); reading and indexing them all costs more than the rest of a small audit.
 */
export interface ContextOverview {
  /** How many names are plain pytest-cov names. */
  plainNames: number;
  /** How many distinct node ids those names hold. */
  plainTests: number;
  /** Every other name. */
  others: readonly string[];
  /** Those of `ids` that some plain name in the data holds. */
  knownTests(ids: readonly string[]): Set<string>;
  /** Every name, for what needs them all (glob patterns over test ids). */
  allNames(): readonly string[];
  /**
   * Those of `ids` (plain names' tests in the data) that have no "|run" name: they never ran
   * their body (the audit's check of frozen tests).
   */
  testsWithoutRun(ids: readonly string[]): string[];
}

// ---------------------------------------------------------------------------------------------
// Tests and contexts.

/** The part of a test a context was recorded in. `null`: the context name does not say. */
export type TestPhase = "setup" | "run" | "teardown" | null;

/** A context name understood as (test, phase), or as "no test" (testId null). */
export interface ParsedContext {
  raw: string;
  /** pytest node id ("tests/test_a.py::TestX::test_y[p]"), or null for code outside tests. */
  testId: string | null;
  phase: TestPhase;
}

// ---------------------------------------------------------------------------------------------
// Python statements (for the SQLite path, where the data file has no statement list).

export interface StatementMap {
  /**
   * First line of the statement that `line` belongs to (a continuation line of a multi-line
   * statement maps to the statement's first line), or null when the line is not part of any
   * statement (blank, comment, docstring, `else:`-like headers without code, ...).
   */
  statementOf(line: number): number | null;
}

// ---------------------------------------------------------------------------------------------
// The data's tests, as a runner reads its context names (src/runners/).

/**
 * How the data names its tests: pytest-cov's node ids with phases, coverage.py's dotted
 * test_function names mapped to node ids, Vitest test ids (`FILE::SUITE > TEST`) with phases,
 * or no test at all (the audit refuses such data).
 */
export type ContextStyle = "pytest-cov" | "test-function" | "vitest" | "none";

/** Does the test root hold this file (a path relative to it, as test ids name files)? */
export type TestFileExists = (file: string) => boolean;

export interface ContextIndex {
  style: ContextStyle;
  /** The parsed form of a context name from the data (testId null: no test). Cached. */
  get(name: string): ParsedContext;
  /** Is this test id in the data? */
  hasTest(id: string): boolean;
  /**
   * Every test id in the data. Plain pytest-cov names give theirs while the names are
   * indexed; other styles compute them on first use (each name parsed).
   */
  readonly testIds: ReadonlySet<string>;
  /** Context names that name no test (the empty context, static-only labels). */
  readonly nonTestContexts: readonly string[];
  /** How many distinct tests the data names (`testIds.size`, without listing them). */
  readonly testCount: number;
  /**
   * Answers `hasTest` for many ids at once (one question to the data instead of one per
   * id). Optional: indexes that hold every test id answer `hasTest` directly.
   */
  preloadTests?(ids: readonly string[]): void;
}
