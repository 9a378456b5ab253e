// The shadow audit as an application service: gather the values from git, the coverage data
// and the frozen list (adapters), check that they fit together, then call the pure audit.
// Everything that could turn misread input into an empty result is checked here and raised
// as an error instead.

import { dirname, isAbsolute, join, relative } from "node:path";
import { CONFIG_FILES, loadConfig, refuseNestedConfig } from "../adapters/config-files.js";
import { discoverCoverage, openCoverage } from "../adapters/coverage-discovery.js";
import {
  type EarlyRange,
  patchFromRange,
  patchFromStaged,
  patchFromWorktree,
  readHeadCommit,
  resolveCommit,
  workTreeBlobIds,
} from "../adapters/git.js";
import {
  directorySpellings,
  fileExists,
  isDirectory,
  isSymbolicLink,
  listPythonFiles,
  readFileBytes,
  readJsonFile,
  readTextIfExists,
  readTextOrNull,
} from "../adapters/repo-files.js";
import type { ConfigValues } from "../core/config.js";
import { nodeIdFile } from "../core/deposits.js";
import { ConfigError, InputError, UsageError } from "../core/errors.js";
import {
  type FrozenList,
  frozenForCollapsedContexts,
  frozenWithoutRun,
  parseFrozenList,
  resolveFrozen,
  testRootMismatch,
  unresolvedFix,
} from "../core/frozen.js";
import { gitBlobId } from "../core/git-blob.js";
import {
  compileGlobs,
  DEFAULT_TEST_GLOBS,
  globsUnderTestRoot,
  outsideTestDirs,
  testFileMatcher,
} from "../core/globs.js";
import { sample } from "../core/listing.js";
import type {
  ChangedFile,
  ContextIndex,
  CoverageMeta,
  CoverageSource,
  Patch,
  StatementMap,
  TestFileExists,
} from "../core/model.js";
import {
  findAmbiguousRun,
  findLostRecording,
  mapDataPaths,
  normalizePath,
  type PathMapping,
  type PathRule,
  type RecordedRoot,
  recordedRoot,
  refuseMappedAway,
  refuseRemappedChanges,
  unmappedPathsFix,
} from "../core/path-map.js";
import {
  type AuditFileInput,
  auditShadow,
  type FailableVerdict,
  type ShadowAudit,
  type SkippedFile,
} from "../core/shadow-audit.js";
import { splitLines, staleEvidence } from "../core/stale.js";
import {
  linesOfChangedStatements,
  statementRan,
  statementsWithData,
} from "../core/statement-map.js";
import {
  describePathPrefixes,
  NON_UTF8_PATH_FIX,
  nonUtf8Path,
  type ParsedDiff,
  parseDiff,
} from "../core/unified-diff.js";
import {
  analyzePython,
  excludedStatements,
  isPythonSource,
} from "../languages/python/statements.js";
import {
  staticContextWithColons,
  staticContextWithColonsProblem,
} from "../runners/pytest/context-names.js";
import {
  indexContextOverview,
  indexContexts,
  NO_LINES_RECORDED,
} from "../runners/pytest/contexts.js";
import { COVERAGE_CONFIG_FILES, coverageExclusion } from "../runners/pytest/coverage-settings.js";
import {
  type ExecutedOf,
  executedOfSource,
  noneMeasured,
  refuseUnexecutedImported,
} from "../runners/pytest/installed-copies.js";
import { withoutParameters } from "../runners/pytest/node-ids.js";
import {
  baseRevisionOf,
  refuseDataInPatch,
  refuseUnmeasuredAfterCoverageConfig,
} from "../runners/pytest/patch-guards.js";
import { pytestCovConfig } from "../runners/pytest/pytest-config.js";
import { testGlobsWithPythonFiles } from "../runners/pytest/test-files.js";
import {
  buildModuleIndex,
  lazyTestFileExists,
  moduleIndexOnFirstUse,
} from "../runners/pytest/test-root-files.js";
import { type EmptyPatchReason, emptyPatchReason } from "./empty-patch.js";
import {
  configValuesAt,
  type FrozenChoice,
  frozenAtBase,
  frozenOnlyAtBase,
} from "./patch-settings.js";
import { mark } from "./timing.js";

export type PatchRequest =
  | { kind: "range"; base: string; head?: string; early?: EarlyRange }
  | { kind: "staged" }
  | { kind: "worktree" }
  | { kind: "diff"; label: string; text: string };

export interface AuditRequest {
  /** Repository root (absolute), from findRepoRoot. */
  root: string;
  patch: PatchRequest;
  /**
   * Coverage data path (absolute), or undefined to discover it: in the working directory,
   * the test root and the repository root (see discoverCoverage).
   */
  coverage?: string;
  /**
   * The directory the user runs in (absolute; default the root): the search for coverage data
   * starts there, and messages name data paths relative to it.
   */
  cwd?: string;
  /** Frozen-test file (absolute path). */
  frozen: string;
  /**
   * Tests that defend nothing for another reason than the frozen list (e.g. muted by pytest's
   * xfail, as the plugin's applied record says), judged as frozen: exact node ids. Ids that
   * name no test in the data are left out: a muted test that ran no measured line hides
   * nothing. `label` says where they come from.
   */
  alsoFrozen?: { ids: readonly string[]; label: string };
  pathMap: PathRule[];
  testGlobs: string[];
  sourceGlobs: string[];
  failOn: FailableVerdict[];
  allowUnresolved: boolean;
  /** pytest's rootdir, relative to the repository root ("" for the root). */
  testRoot: string;
  /**
   * The settings above that the config gives, as a config with `values` would give them (the
   * same flags applied). When the patch changes the root's config file, the audit then reads
   * the config at the patch's base too and judges by the stricter of both (see
   * stricterSettings): a patch cannot loosen the settings it is judged by. The frozen list
   * the base's config and files give counts too when it is another file (see frozenAtBase).
   * Undefined: the settings are taken as given.
   */
  settingsFor?: (values: ConfigValues) => ConfigurableSettings & ConfigChoices;
  /**
   * Told which coverage data files are about to be read (absolute paths), before the read:
   * a command on a terminal can say what it is waiting for when they are large.
   */
  onDataFiles?: (files: readonly string[]) => void;
  /**
   * Called once what is left of the audit is short: when the changed files' rows are read,
   * or, when many files need the statement model, once the verdicts are made.
   */
  onLongLoopsDone?: () => void;
  /**
   * Asked between the audit's first steps; true abandons the run (it rejects with
   * AuditAbandoned). The command line starts an audit from a guessed root and drops it this
   * way as soon as git names another.
   */
  abandonIf?: () => boolean;
}

/** A run its caller abandoned (see AuditRequest.abandonIf): no answer, only a signal. */
export class AuditAbandoned extends Error {}

/** The audit settings a config file can give. */
export interface ConfigurableSettings {
  testGlobs: string[];
  sourceGlobs: string[];
  failOn: FailableVerdict[];
  pathMap: PathRule[];
}

/**
 * The other things a config (with the flags) decides that a patch must not choose for itself:
 * a patch that changes them is refused (base, coverage: no stricter value of both exists) or
 * judged by the stricter reading (allow-unresolved, the frozen list).
 */
export interface ConfigChoices {
  frozen: FrozenChoice;
  /** The data path (absolute), or undefined to discover it. */
  coverage: string | undefined;
  allowUnresolved: boolean;
  /** The range's base, from a flag or the config; undefined when neither gives one. */
  base: string | undefined;
}

/** The stricter settings, and which keys the patch changed (for notes). */
export interface SettingsChange {
  /** The commit whose config was compared ("HEAD" for a staged or work-tree patch). */
  base: string;
  /** The keys whose effective value differs between the base's config and the patch's. */
  changed: string[];
  /**
   * The patch reads its frozen tests from another file than its base did: the tests frozen in
   * either count. `tests`: those frozen only in the base's list.
   */
  frozen?: { files: string[]; now: string; tests: string[] };
}

export interface AuditRun {
  root: string;
  patch: Patch;
  coverage: CoverageMeta;
  contextStyle: ContextIndex["style"];
  testCount: number;
  frozen: {
    file: string;
    format: FrozenList["format"];
    entries: number;
    frozenTests: string[];
    unresolved: string[];
    /** The request's alsoFrozen ids that name tests in the data (not in frozenTests). */
    also: { label: string; tests: string[] } | null;
  };
  audit: ShadowAudit;
  /** The text of each audited file as read for the audit (repository path -> text). */
  sources: Map<string, string>;
  /** When the patch changed the config's settings: judged by the stricter of both. */
  settingsChange: SettingsChange | null;
  /** Why nothing was audited when the patch changes no file, else null. */
  emptyPatch: EmptyPatchReason | null;
}

/** A patch; from a user's diff, also that diff as parsed (with its shown lines), for the checks. */
export type ReadPatch = Patch & { userDiff?: ParsedDiff };

export async function readPatch(root: string, request: PatchRequest): Promise<ReadPatch> {
  switch (request.kind) {
    case "range":
      return (
        (await request.early?.patch(root)) ??
        patchFromRange(root, request.base, request.head ?? "HEAD")
      );
    case "staged":
      return patchFromStaged(root);
    case "worktree":
      return patchFromWorktree(root);
    case "diff": {
      const userDiff = parseDiff(request.text, {
        source: diffSource(request.label),
        keepText: true,
      });
      // A path written unquoted in another encoding (git diff with core.quotePath=false).
      const bad = nonUtf8Path(userDiff.files);
      if (bad !== null) {
        throw new InputError(
          `${diffLabel(request.label)} names the path "${bad}", which is not valid UTF-8`,
          {
            fix: NON_UTF8_PATH_FIX,
          },
        );
      }
      // A copy (`git diff -C`) shows only its edits against the source; like git's own ranges
      // here (no -C), it counts as a new file, every line of it.
      return {
        source: { kind: "diff", file: request.label },
        files: userDiff.files.map((f) => (f.status === "copied" ? everyLineOf(root, f) : f)),
        userDiff,
      };
    }
  }
}

function diffSource(label: string): string {
  return label === "-" ? "stdin" : label;
}

function diffLabel(label: string): string {
  return label === "-" ? "the diff on stdin" : `the diff ${label}`;
}

const DIFF_FIX =
  "make the diff from the repository root against the checkout the tests ran on, e.g. git diff origin/main...HEAD with HEAD checked out";

/** A user's diff naming audited files the work tree does not have: how it read the paths. */
function missingFromDiff(
  root: string,
  label: string,
  { prefixes }: ParsedDiff,
  missing: readonly ChangedFile[],
): InputError {
  return new InputError(
    `${diffLabel(label)} names ${missing.length} source file(s) that are not in the work tree ${root}, e.g. "${missing[0]?.path}"; ${describePathPrefixes(prefixes)}`,
    {
      fix: `${DIFF_FIX} (in a sparse checkout, add their directories: git sparse-checkout add DIR)`,
    },
  );
}

/** A file with every line on disk added (unchanged when it is no regular file here). */
function everyLineOf(root: string, file: ChangedFile): ChangedFile {
  const full = join(root, file.path);
  if (!fileExists(full) || isSymbolicLink(full)) return file;
  const lines = readFileBytes(full, `changed file ${file.path}`).toString("utf8").split("\n");
  if (lines.at(-1) === "") lines.pop();
  return { ...file, addedLines: lines.map((_, i) => i + 1) };
}

/**
 * Which of `files` differ on disk from the blob the diff gives them (hashed with checkout
 * filters applied, as `git add` would). A file the diff gives no blob id (git always does for
 * changed content) cannot be shown to match, so it counts as differing.
 */
async function differFromBlobs(root: string, files: readonly ChangedFile[]): Promise<string[]> {
  if (files.length === 0) return [];
  const ids = await workTreeBlobIds(
    root,
    files.filter((f) => f.newBlob !== undefined).map((f) => f.path),
  );
  return files.filter((f) => ids.get(f.path) !== f.newBlob).map((f) => f.path);
}

/**
 * A user's diff carries no promise that it describes the files on disk (the ones coverage
 * measured): it may be of an earlier commit, or made in a subdirectory with --relative and so
 * name another file. For each audited file: it must exist; every line the hunks show on the
 * new side must be that line on disk (added lines exactly, context lines without their
 * whitespace: `diff -u -w` may print the old side's); a new file must be all of the file; and
 * the new side's blob id, when the diff has one, must be the file's.
 */
async function checkUserDiff(
  root: string,
  diffFile: string,
  { newText, newBlobs }: ParsedDiff,
  audited: readonly ChangedFile[],
  sources: ReadonlyMap<string, Buffer>,
): Promise<void> {
  const label = diffLabel(diffFile);
  const bare = (l: string) => (l.endsWith("\r") ? l.slice(0, -1) : l);
  const squeezed = (l: string) => l.replace(/\s+/g, "");
  const quote = (t: string | undefined) =>
    t === undefined ? "past its end" : JSON.stringify(bare(t).slice(0, 60));
  for (const file of audited) {
    const lines = (sources.get(file.path) as Buffer).toString("utf8").split("\n");
    if (lines.at(-1) === "") lines.pop();
    const added = new Set(file.addedLines);
    for (const [n, text] of newText?.get(file.path) ?? []) {
      const onDisk = lines[n - 1];
      const same =
        onDisk !== undefined &&
        (added.has(n) ? bare(onDisk) === bare(text) : squeezed(onDisk) === squeezed(text));
      if (!same) {
        throw new InputError(
          `${label} does not describe ${file.path} on disk: its line ${n} is ${quote(text)} in the diff but ${quote(onDisk)} on disk`,
          { fix: DIFF_FIX },
        );
      }
    }
    if (file.status === "added" && file.addedLines.length !== lines.length) {
      throw new InputError(
        `${label} does not describe ${file.path} on disk: it adds the file with ${file.addedLines.length} line(s), the file on disk has ${lines.length}`,
        { fix: DIFF_FIX },
      );
    }
  }
  const withBlob = audited.filter((f) => newBlobs?.has(f.path));
  const ids = await workTreeBlobIds(
    root,
    withBlob.map((f) => f.path),
  );
  for (const file of withBlob) {
    const blob = newBlobs?.get(file.path) as string;
    const id = ids.get(file.path) ?? "";
    if (!id.startsWith(blob)) {
      throw new InputError(
        `${label} does not describe ${file.path} on disk: its new side is blob ${blob}, the file on disk is ${id.slice(0, Math.max(blob.length, 7))}`,
        { fix: DIFF_FIX },
      );
    }
  }
}

/** One file's statements from each data path that records it: their union, or null. */
function reportedStatements(each: (ReadonlySet<number> | null)[]): ReadonlySet<number> | null {
  const known = each.filter((s) => s !== null);
  if (known.length <= 1) return known[0] ?? null;
  return new Set(known.flatMap((s) => [...s]));
}

/** Executed lines of one file recorded under several paths: every test of each. */
function unionOfLines(each: (ReadonlyMap<number, string[]> | undefined)[]): Map<number, string[]> {
  const out = new Map<number, string[]>();
  for (const lines of each) {
    for (const [line, tests] of lines ?? []) {
      const before = out.get(line);
      out.set(line, before === undefined ? tests : [...new Set([...before, ...tests])]);
    }
  }
  return out;
}

/**
 * git ends a line at "\n" only; Python (so coverage.py and the statement finder) also at a
 * lone "\r". After one, git's line numbers and the data's name different lines.
 */
export function refuseLoneCarriageReturn(path: string, text: string): void {
  const at = text.search(/\r(?!\n)/);
  if (at < 0) return;
  const line = text.slice(0, at).split("\n").length;
  throw new InputError(
    `${path} has a carriage return that ends no line on line ${line} (git counts it as one line, Python as two), so git's line numbers do not match the coverage data's`,
    {
      fix: "use LF or CRLF line endings only (e.g. dos2unix), commit, re-run the tests, then audit",
    },
  );
}

/**
 * Statement map from coverage.py's own statement list (JSON report) plus our finder. A line
 * the finder reads as blank, comment or docstring is no statement whatever the report says:
 * coverage.py 6.x lists the docstring lines CPython traces among the executed lines.
 * `notCode`: first lines (finder's) of statements that are none here either: the report's
 * excluded statements no test ran (excludedUntested), as with the SQLite data.
 */
function jsonStatementMap(
  reported: ReadonlySet<number>,
  finder: StatementMap,
  notCode: ReadonlySet<number>,
): StatementMap {
  return {
    statementOf(line) {
      const first = finder.statementOf(line);
      if (first === null || notCode.has(first)) return null;
      if (reported.has(line)) return line;
      return reported.has(first) ? first : null;
    },
  };
}

/** The finder's first lines of the statements that hold some of `lines`. */
function firstLinesOf(lines: Iterable<number>, finder: StatementMap): Set<number> {
  const firsts = new Set<number>();
  for (const line of lines) {
    const first = finder.statementOf(line);
    if (first !== null) firsts.add(first);
  }
  return firsts;
}

/** `reported` plus the recorded lines that `finder` says start a statement. */
function withRecordedStatements(
  reported: ReadonlySet<number>,
  recorded: ReadonlyMap<number, string[]> | null,
  finder: StatementMap,
): ReadonlySet<number> {
  const extra = [...(recorded?.keys() ?? [])].filter(
    (line) => !reported.has(line) && finder.statementOf(line) === line,
  );
  return extra.length === 0 ? reported : new Set([...reported, ...extra]);
}

/**
 * Give the event loop a turn between synchronous phases: git's output is read, and the next
 * git command started, only then. Without it git stalls on a full pipe while the data is read.
 */
function letGitRun(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

const identityStatements: StatementMap = { statementOf: (line) => line };

/**
 * Characters Python's str.splitlines() ends a line at, besides "\n" and "\r". coverage.py 6.x
 * splits a file that way to analyse it, so after one of them a JSON report's executed and
 * missing lists name other lines than the tracer (its contexts) and git do: an executed
 * `return x` would read as not code. Such a file's statements come from the finder alone,
 * as with the SQLite data, whose lines are the tracer's.
 */
// biome-ignore lint/suspicious/noControlCharactersInRegex: these line breaks are what it finds
export const REPORT_LINE_BREAKS = /[\v\f\x1c-\x1e\x85\u2028\u2029]/;

/**
 * For staleEvidence: which lines of a Python file belong to a statement (tokenizer level), or
 * undefined for other files and for source the tokenizer refuses (the text check alone).
 */
export function statementLinesOf(
  path: string,
  text: string,
): ((line: number) => boolean) | undefined {
  if (!isPythonSource(path, text)) return undefined;
  try {
    const { logical } = analyzePython(text, { path });
    return (line) => logical.statementOf(line) !== null;
  } catch {
    return undefined;
  }
}

/**
 * Changed files needing the statement model beyond which the verdicts are not "short" (see
 * AuditRequest.onLongLoopsDone). The bench's 30-line patch has 10 such files, its 900-line patch
 * about 300.
 */
const MODELLED_FILES_FOR_SHORT_REST = 32;

/** Whether a changed statement has no executed line (its verdict needs the statement model). */
function hasUnexecutedStatement(
  addedLines: readonly number[],
  logical: StatementMap,
  executed: ReadonlyMap<number, unknown> | undefined,
): boolean {
  for (const line of addedLines) {
    const first = logical.statementOf(line);
    if (first !== null && !(executed && statementRan(logical, first, executed))) return true;
  }
  return false;
}

/** The same strings in the same order. */
function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * The excluded statements no test ran (in its body or a fixture, frozen or not): those are no
 * statements, as in coverage.py's report, also when code ran them at import time
 * (`if TYPE_CHECKING:`). One a test ran keeps its verdict: the pragma hides no shadow.
 */
function excludedUntested(
  excluded: Set<number>,
  lines: ReadonlyMap<number, readonly string[]> | null,
  logical: StatementMap,
  contexts: Pick<ContextIndex, "get">,
): Set<number> {
  if (excluded.size === 0) return excluded;
  for (const [line, names] of lines ?? []) {
    if (!names.some((name) => contexts.get(name).testId !== null)) continue;
    const first = logical.statementOf(line);
    if (first !== null) excluded.delete(first);
  }
  return excluded;
}

/**
 * For classifyChangedFiles: whether a test of the data lives in a file (repository path), when
 * the test globs are the defaults (never given in a flag or a config). Explicit globs are the
 * user's word on what a test file is: undefined then.
 */
function productionNamedLikeTests(
  globs: TestAndSourceGlobs,
  contexts: Pick<ContextIndex, "testIds">,
  testRoot: string,
): ((path: string) => boolean) | undefined {
  const isDefault = (list: readonly string[]) => sameStrings(list, DEFAULT_TEST_GLOBS);
  if (!isDefault(globs.testGlobs) || (globs.baseTestGlobs && !isDefault(globs.baseTestGlobs))) {
    return undefined;
  }
  let files: Set<string> | null = null;
  return (path) => {
    files ??= new Set(
      [...contexts.testIds].filter((id) => !isDoctestId(id)).map((id) => nodeIdFile(id, testRoot)),
    );
    return files.has(path);
  };
}

/**
 * A doctest's node id (`--doctest-modules`: `app/limits.py::app.limits.check`): its name is a
 * dotted one, which no test function or class has. A doctest in a module makes it no test
 * file: the module is library code (review 37).
 */
function isDoctestId(id: string): boolean {
  const parts = withoutParameters(id).split("::");
  return parts.length === 2 && (parts[1] as string).includes(".");
}

export interface TestAndSourceGlobs {
  testGlobs: readonly string[];
  sourceGlobs: readonly string[];
  /** The base config's test globs when the patch changed them: a test file matches both. */
  baseTestGlobs?: readonly string[];
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
   * The test globs before pytest's `python_files` were added (see testGlobsWithPythonFiles).
   * A file only those additions match is a test file only when a test of the data lives in
   * it: `python_files = *.py` or `check_*.py` must not take an unmeasured or doctest-only
   * library module out of the audit (review 37).
   */
  plainTestGlobs?: readonly string[],
): ClassifiedFiles {
  const matcher = (list: readonly string[]) => globsUnderTestRoot(list, testPrefix);
  const testGlob = matcher(globs.testGlobs);
  const baseTestGlob = globs.baseTestGlobs === undefined ? null : matcher(globs.baseTestGlobs);
  const isSource = compileGlobs([...globs.sourceGlobs]);
  const plainGlob = plainTestGlobs === undefined ? null : matcher(plainTestGlobs);
  const isTest = (path: string) =>
    testGlob(path) &&
    (baseTestGlob?.(path) ?? true) &&
    (plainGlob === null || plainGlob(path) || (namedByTests?.(path) ?? false)) &&
    !(namedByTests !== undefined && inData(path) && outsideTestDirs(path) && !namedByTests(path));
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

/** The frozen-test file as a parsed list (any of the seed formats). */
export function loadFrozenList(path: string): FrozenList {
  return parseFrozenList(readJsonFile(path, "frozen-test file"), path);
}

export interface DataContexts {
  names: string[];
  index: ContextIndex;
  /** "" or "dir/": the test root as a path prefix inside the repository. */
  prefix: string;
  /** Does the test root hold a file (as node ids name them)? As the index reads names. */
  testFileExists: TestFileExists;
}

export function readDataContexts(
  root: string,
  coverage: CoverageSource,
  testRoot: string,
): DataContexts {
  const { prefix, modules, testFileExists } = testRootOf(root, testRoot);
  const names = coverage.contextNames();
  const index = indexContexts(names, modules);
  return { names, index, prefix, testFileExists };
}

/**
 * `--test-root` as a path prefix, and the Python files under it (listed on first use), also as
 * a module index (built on first use).
 */
function testRootOf(root: string, testRoot: string) {
  const normalized = normalizePath(testRoot);
  if (normalized.startsWith("/") || normalized.startsWith("..")) {
    throw new UsageError(`--test-root "${testRoot}" is outside the repository`, {
      fix: "give pytest's rootdir (the rootdir: line pytest prints), relative to the repository root",
    });
  }
  // A mistyped test root would only show as node ids naming missing files, or not at all.
  if (normalized !== "" && !fileExists(join(root, normalized))) {
    throw new UsageError(`--test-root "${testRoot}" does not exist in the repository`, {
      fix: "give pytest's rootdir (the rootdir: line pytest prints), relative to the repository root",
    });
  }
  if (normalized !== "" && !isDirectory(join(root, normalized))) {
    throw new UsageError(`--test-root "${testRoot}" is a file, not a directory`, {
      fix: "give pytest's rootdir, the directory on the rootdir: line pytest prints (relative to the repository root), not a file in it",
    });
  }
  if (normalized !== "") refuseNestedConfig(root, join(root, normalized));
  const prefix = normalized === "" ? "" : `${normalized}/`;
  let files: Set<string> | null = null;
  const testRootFiles = () => {
    files ??= new Set(
      listPythonFiles(root)
        .filter((p) => p.startsWith(prefix))
        .map((p) => p.slice(prefix.length)),
    );
    return files;
  };
  // test_function names are checked against the test root's source (contexts.ts).
  // A name too long for the file system (a long static context before a path) is none.
  const read = (file: string): string | null =>
    readTextIfExists(join(root, prefix, file), "test file");
  const modules = moduleIndexOnFirstUse(() => buildModuleIndex(testRootFiles(), read));
  return { prefix, testRootFiles, modules, testFileExists: lazyTestFileExists(modules) };
}

/**
 * The contexts as the audit needs them: from the data's overview when it has one and its
 * tests all have plain pytest-cov names (no name list read), else from every name.
 * `testsWithoutRun`: which of some tests in the data never ran their body. `testFileExists`:
 * whether the test root holds a file, as the index reads node ids' files.
 */
export function readAuditContexts(
  root: string,
  coverage: CoverageSource,
  testRoot: string,
): {
  index: ContextIndex;
  prefix: string;
  testsWithoutRun: (ids: readonly string[]) => string[];
  testFileExists: TestFileExists;
} {
  const { prefix, modules, testFileExists } = testRootOf(root, testRoot);
  const overview = coverage.contextOverview?.() ?? null;
  const fast = overview === null ? null : indexContextOverview(overview, modules);
  if (fast !== null && overview !== null) {
    return {
      index: fast,
      prefix,
      testsWithoutRun: (ids) => overview.testsWithoutRun(ids),
      testFileExists,
    };
  }
  const names = coverage.contextNames();
  const index = indexContexts(names, modules);
  return {
    index,
    prefix,
    testsWithoutRun: (ids) => testsWithoutRunIn(names, index, ids),
    testFileExists,
  };
}

/**
 * Of `ids` (tests in the data), those with no "|run" context among `names`: pytest-cov names
 * a test's contexts by phase, and a test with only setup or teardown never ran its body.
 * Other styles name no phases (a test_function context is the test function itself).
 */
export function testsWithoutRunIn(
  names: readonly string[],
  index: ContextIndex,
  ids: readonly string[],
): string[] {
  if (index.style !== "pytest-cov" || ids.length === 0) return [];
  const waiting = new Set(ids);
  for (const name of names) {
    if (!name.endsWith("|run")) continue;
    // As the index reads it (a "|" before the first "::": a static context, or the path's).
    const id = index.get(name).testId;
    if (id !== null && waiting.delete(id) && waiting.size === 0) break;
  }
  return ids.filter((id) => waiting.has(id));
}

/** The root the data's absolute paths were recorded under, when a tail of one is a file here. */
export function recordedRootIn(root: string, measured: readonly string[]): RecordedRoot | null {
  return recordedRoot(measured, (repoPath) => isRepoFile(root, repoPath));
}

/** Is there a file (not a directory) at this repository path? */
export function isRepoFile(root: string, repoPath: string): boolean {
  const full = join(root, repoPath);
  return fileExists(full) && !isDirectory(full);
}

export interface DataPaths {
  measured: string[];
  mapping: PathMapping;
  /** Repository paths of data files that exist in the work tree (all, or the first one). */
  existing: string[];
}

/**
 * Map the data's paths onto the repository. `firstExisting` stops the existence checks at the
 * first file found (the audit only needs to know that the mapping lands somewhere real).
 */
export function mapCoverageToRepo(
  root: string,
  coverage: CoverageSource,
  rules: readonly PathRule[],
  { firstExisting = false } = {},
): DataPaths {
  const measured = coverage.measuredPaths();
  const mapping = mapDataPaths(measured, directorySpellings(root), rules);
  const existing: string[] = [];
  for (const p of mapping.toData.keys()) {
    if (!fileExists(join(root, p))) continue;
    existing.push(p);
    if (firstExisting) break;
  }
  return { measured, mapping, existing };
}

/**
 * Relative data paths that name files both at the repository root and under the directory
 * the tests may have run in (the test root, the data file's directory), with no rule to say
 * which: the error to stop with, or null. Reading them from the root would judge one
 * service's changes with another's tests (findAmbiguousRun).
 */
export function ambiguousRun(
  root: string,
  measured: readonly string[],
  rules: readonly PathRule[],
  testRoot: string,
  dataFiles: readonly string[],
): InputError | null {
  const dirs = new Map<string, string>();
  const test = normalizePath(testRoot);
  if (test !== "" && !test.startsWith("/") && !test.startsWith("..")) {
    dirs.set(`${test}/`, "the --test-root");
  }
  const spellings = directorySpellings(root);
  for (const file of dataFiles) {
    for (const dir of directorySpellings(dirname(file))) {
      for (const r of spellings) {
        const rel = relative(r, dir);
        if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) continue;
        const prefix = `${normalizePath(rel)}/`;
        if (!dirs.has(prefix)) dirs.set(prefix, "the data file's directory");
      }
    }
  }
  const found = findAmbiguousRun(measured, rules, [...dirs.keys()], (p) =>
    fileExists(join(root, p)),
  );
  if (found === null) return null;
  const dir = found.dir.slice(0, -1);
  return new InputError(
    `the coverage data's relative path "${found.recorded}" names both ${found.atRoot} (read from the repository root) and ${found.inDir} (read from ${dir}, ${dirs.get(found.dir)}), and nothing says which directory coverage ran in`,
    {
      fix: `if coverage ran in ${dir}, read its paths there with --path-map =${found.dir}; if it ran at the repository root, say so with --path-map =`,
    },
  );
}

/**
 * Data from several machines, or from an installed copy of the package: a changed file may
 * be recorded under a path no rule maps onto it, and that recording's tests would be lost.
 * The error to stop with, or null.
 */
function lostRecording(
  root: string,
  changed: readonly string[],
  measured: readonly string[],
  mapping: PathMapping,
  rules: readonly PathRule[],
  /** Parallel data files are read beside a combined data file (`coverage combine --keep`). */
  keptBeside = false,
): InputError | null {
  const roots = directorySpellings(root);
  const isRepoFile = (p: string) => fileExists(join(root, p));
  // A rule that sends a changed file's own recording elsewhere loses it just as surely.
  const away = refuseMappedAway(changed, measured, roots, rules, isRepoFile);
  if (away !== null) return away;
  const lost = findLostRecording(changed, measured, mapping, roots, rules, isRepoFile);
  if (lost === null) return null;
  return new InputError(
    `the coverage data also records ${lost.path} as "${lost.recorded}" (another root, or an installed copy) and no --path-map maps it there, so the tests recorded there would be lost`,
    {
      fix: `map it onto the repository with --path-map "${lost.rule.from}=${lost.rule.to}"${keptBeside ? "; or, if `coverage combine --keep` already merged the parallel data files into the combined one (freezegate reads both), delete the parallel files" : ""}`,
    },
  );
}

export interface PatchOnDisk {
  /** The changed files the audit judges. */
  audited: ChangedFile[];
  skipped: SkippedFile[];
  /** The bytes of each audited file, as read for the checks. */
  sources: Map<string, Buffer>;
}

/**
 * Which changed files the audit judges, and the refusals when the patch does not describe
 * the files on disk (the ones coverage measured): a measured file the diff calls binary, a
 * file missing from disk, unstaged edits under --staged, a user's diff of other lines, a range
 * over files edited since. The audit stops at the error; doctor reports it as a check.
 */
async function checkPatchOnDisk(
  root: string,
  request: PatchRequest,
  patch: ReadPatch,
  globs: TestAndSourceGlobs,
  /** "" or "dir/": the test root (see classifyChangedFiles). */
  prefix: string,
  toData: ReadonlyMap<string, string>,
  namedByTests?: (path: string) => boolean,
  plainTestGlobs?: readonly string[],
): Promise<PatchOnDisk> {
  const classified = classifyChangedFiles(
    patch.files,
    globs,
    prefix,
    (p) => toData.has(p),
    namedByTests,
    plainTestGlobs,
  );
  // A symbolic link's "line" is its target's name, and coverage records the file it points
  // at under that file's own path: a link is no source file. Never read through it (a
  // link to a file outside the repository would put that file in the report).
  const links = new Set(
    classified.audited.filter((f) => isSymbolicLink(join(root, f.path))).map((f) => f.path),
  );
  const audited = classified.audited.filter((f) => !links.has(f.path));
  const skipped = [
    ...classified.skipped,
    ...[...links].map((path) => ({ path, reason: "not-source" as const })),
  ];

  // A file the data measured has lines; if the diff calls it binary, they are missing.
  const binaryMeasured = skipped.filter((f) => f.reason === "binary" && toData.has(f.path));
  if (binaryMeasured.length > 0) {
    throw new InputError(
      `the diff shows ${sample(binaryMeasured.map((f) => f.path))} as binary, but the coverage data measured it, so its changed lines are unknown`,
      {
        fix: "make the diff with `git diff --text` (or drop the -diff/binary attribute for these files in .gitattributes)",
      },
    );
  }
  const missing = audited.filter((f) => !fileExists(join(root, f.path)));
  const absent = missing[0];
  if (absent) {
    if (request.kind === "diff" && patch.userDiff) {
      throw missingFromDiff(root, request.label, patch.userDiff, missing);
    }
    throw new InputError(
      `changed file ${absent.path} is not on disk, so no test here can have run it: a sparse checkout that leaves it out, or a patch that is not of this checkout`,
      {
        fix: "check out the patch's commit in full (git sparse-checkout add DIR, or git sparse-checkout disable), run the tests, then audit",
      },
    );
  }
  if (patch.source.kind === "staged") {
    // The staged diff's blob ids are the index's: a file on disk that hashes otherwise has
    // unstaged edits (whatever assume-unchanged says).
    const unstaged = await differFromBlobs(root, audited);
    if (unstaged.length > 0) {
      throw new InputError(
        `changed file(s) have unstaged edits: ${sample(unstaged)}; --staged numbers the index's lines, the coverage data measured the files on disk`,
        {
          fix: "stage the edits (git add) or stash them (git stash --keep-index), re-run the tests, then audit; or audit the work tree with --worktree",
        },
      );
    }
  }

  // The diff describes the patch's commit; coverage measured the files on disk. They must
  // be the same bytes: compared against the diff's blob ids, asking git only on a mismatch.
  const sources = new Map(
    audited.map((f) => [f.path, readFileBytes(join(root, f.path), `changed file ${f.path}`)]),
  );
  if (request.kind === "diff" && patch.userDiff) {
    await checkUserDiff(root, request.label, patch.userDiff, audited, sources);
  }
  if (patch.source.kind === "range") {
    const source = patch.source;
    const suspects = audited.filter(
      (f) =>
        f.newBlob === undefined ||
        gitBlobId(sources.get(f.path) as Buffer, f.newBlob.length) !== f.newBlob,
    );
    // With checkout filters (core.autocrlf, eol) the bytes on disk never hash to the blob:
    // git hashes the suspects as `git add` would. Not `git diff`, which believes the index's
    // skip-worktree and assume-unchanged flags over the bytes on disk.
    const dirty = await differFromBlobs(root, suspects);
    const headCheckedOut =
      dirty.length > 0 &&
      (source.head === "HEAD" ||
        (await resolveCommit(root, source.head)) === (await readHeadCommit(root)));
    if (dirty.length > 0) {
      throw new InputError(
        `changed file(s) on disk differ from ${source.head}: ${sample(dirty)}; the diff describes ${source.head}, the coverage data the files on disk`,
        {
          fix: headCheckedOut
            ? "commit or stash the changes, then re-run the tests and the audit"
            : `check out ${source.head}, run the tests with coverage there, then audit`,
        },
      );
    }
  }
  return { audited, skipped, sources };
}

export interface PatchAgainstData {
  root: string;
  request: PatchRequest;
  patch: ReadPatch;
  /** The settings as the flags and the patch's own config give them. */
  settings: ConfigurableSettings & Pick<AuditRequest, "settingsFor">;
  /** The data's tests, or null when doctor could not read them. */
  contexts: Pick<ContextIndex, "testIds"> | null;
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
}

/**
 * Once the patch is read: which changed files are judged, and every refusal of a patch that
 * does not fit the data, or that changes what it is judged by (data committed with it, the
 * config, a path-map, coverage.py's configuration). Shared by the audit, which stops at the
 * error, and doctor, which reports it as its freshness check.
 */
export async function checkPatchAgainstData(a: PatchAgainstData): Promise<
  PatchOnDisk & {
    stricter: Awaited<ReturnType<typeof stricterSettings>>;
    /** Whether a measured file is a test file, by the test globs the patch was judged by. */
    isTestFile: (path: string) => boolean;
  }
> {
  const { root, patch, mapping } = a;
  refuseDataInPatch(root, patch, a.dataFiles);
  const stricter = await stricterSettings(root, patch, a.settings);
  const given = stricter?.settings ?? a.settings;
  // Before python_files widen them: a file they add is named like a test too.
  const named =
    a.contexts === null ? undefined : productionNamedLikeTests(given, a.contexts, a.testRoot);
  const settings = {
    ...given,
    ...(await testGlobsWithPythonFiles(root, patch, a.testRoot, given)),
  };
  const isTestFile = testFileMatcher(settings.testGlobs, a.prefix);
  const onDisk = await checkPatchOnDisk(
    root,
    a.request,
    patch,
    settings,
    a.prefix,
    mapping.toData,
    named,
    given.testGlobs,
  );
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
  const none = await noneMeasured(root, onDisk.audited, mapping.toData, isTestFile, a.executedOf);
  if (none !== null) throw none;
  const unmeasured = onDisk.audited.filter((f) => !mapping.toData.has(f.path));
  if (unmeasured.length > 0) {
    await refuseUnmeasuredAfterCoverageConfig(
      root,
      patch,
      unmeasured,
      a.testRoot,
      mapping.toData.keys(),
    );
  }
  return { ...onDisk, stricter, isTestFile };
}

/**
 * A patch that changes what chose its range (base) or the data (coverage): no stricter of
 * both readings exists, so it is refused: always for the range, which could leave the
 * patch's own code out; for the data when the patch changes a source file the audit judges
 * (a patch of its own can change it).
 */
function refusePinnedChange(
  stricter: Awaited<ReturnType<typeof stricterSettings>>,
  audited: readonly string[],
): void {
  const pin = stricter?.pinned.find((p) => p.key === "base" || audited.length > 0);
  if (pin === undefined || stricter === null) return;
  const at = stricter.change.base === "HEAD" ? "HEAD" : stricter.change.base.slice(0, 12);
  const what = {
    base: "which chose the range of commits the patch is judged by",
    coverage: "which names the data the patch is judged by",
  }[pin.key];
  const flag =
    pin.key === "base" ? "--base REF (the branch the patch merges into)" : `--${pin.key}`;
  throw new ConfigError(
    `the patch changes ${pin.key} in the repository's config (now ${pin.now}; ${pin.atBase} at ${at}), ${what}: a patch cannot choose that for itself`,
    {
      fix:
        pin.key === "base"
          ? `pass ${flag}`
          : `change ${pin.key} in a patch that changes no audited source file, or pass ${flag}`,
    },
  );
}

/**
 * When the patch changes the root's config file (pyproject.toml, package.json), the settings
 * at the patch's base (the merge base of a range; HEAD for a staged or work-tree patch), with
 * the same flags, combined with the patch's own into the stricter of both: every fail-on
 * verdict of either; a file is a test file (not audited) only when both configs say so, and
 * a source file when either does; unresolved frozen ids are allowed only when both allow them.
 * What cannot be combined (the range's base, the data) is `pinned`: the caller
 * refuses the patch where it matters. A base config that cannot be read counts as no config.
 * Null when the config did not change or there is no base (a user's diff).
 */
async function stricterSettings(
  root: string,
  patch: Patch,
  request: ConfigurableSettings & Pick<AuditRequest, "settingsFor">,
): Promise<{
  settings: ConfigurableSettings & TestAndSourceGlobs & { basePathMap?: PathRule[] };
  change: SettingsChange;
  /** Settings the patch changed that no stricter value settles: what it says now and then. */
  pinned: Array<{ key: "base" | "coverage"; now: string; atBase: string }>;
  /** The base's config does not allow unresolved frozen ids, the patch's does. */
  unresolvedWaived: boolean;
} | null> {
  if (request.settingsFor === undefined) return null;
  const base = baseRevisionOf(patch);
  const names: readonly string[] = CONFIG_FILES;
  const touched = (f: ChangedFile) =>
    names.includes(f.path) || (f.oldPath !== null && names.includes(f.oldPath));
  if (base === null || !patch.files.some(touched)) return null;
  const then = request.settingsFor(await configValuesAt(root, base));
  const now = request.settingsFor(loadConfig(root).values);
  const union = <T>(a: readonly T[], b: readonly T[]): T[] => [...new Set([...a, ...b])];
  const changed = (["failOn", "testGlobs", "sourceGlobs"] as const).filter(
    (key) => !sameStrings(then[key], request[key]),
  );
  const pathMapChanged = JSON.stringify(then.pathMap) !== JSON.stringify(request.pathMap);
  const unresolvedWaived = now.allowUnresolved && !then.allowUnresolved;
  const shown = (value: string | undefined, key: string) =>
    value === undefined ? `no ${key}` : key === "coverage" ? relative(root, value) : value;
  const pinned = (
    [
      // The config's base chooses the range only for a range.
      ...(patch.source.kind === "range" ? [["base", "base"] as const] : []),
      ["coverage", "coverage"],
    ] as const
  )
    .filter(([field]) => then[field] !== now[field])
    .map(([field, key]) => ({ key, now: shown(now[field], key), atBase: shown(then[field], key) }));
  if (changed.length === 0 && !pathMapChanged && !unresolvedWaived && pinned.length === 0) {
    return null;
  }
  return {
    settings: {
      failOn: union(request.failOn, then.failOn),
      testGlobs: request.testGlobs,
      baseTestGlobs: then.testGlobs,
      sourceGlobs: union(request.sourceGlobs, then.sourceGlobs),
      pathMap: request.pathMap,
      ...(pathMapChanged ? { basePathMap: then.pathMap } : {}),
    },
    change: {
      base,
      changed: [
        ...changed.map(
          (key) =>
            ({ failOn: "fail-on", testGlobs: "test-files", sourceGlobs: "source-files" })[key],
        ),
        ...(pathMapChanged ? ["path-map"] : []),
        ...(unresolvedWaived ? ["allow-unresolved"] : []),
      ],
    },
    pinned,
    unresolvedWaived,
  };
}

export async function runAudit(request: AuditRequest): Promise<AuditRun> {
  const root = request.root;
  // git runs in other processes: start it, read the data meanwhile, then wait for it.
  const patchPromise = readPatch(root, request.patch);
  patchPromise.catch(() => {}); // its error is raised where it is awaited
  const frozenList = loadFrozenList(request.frozen);

  mark("start audit");
  const places = { cwd: request.cwd, testRoot: request.testRoot };
  if (request.onDataFiles) {
    request.onDataFiles(discoverCoverage(root, request.coverage, places).files);
  }
  const coverage = openCoverage(root, request.coverage, places);
  mark("open data");
  await letGitRun();
  if (request.abandonIf?.()) {
    coverage.close();
    throw new AuditAbandoned();
  }
  try {
    // 1. Contexts: the data must say which test ran each line.
    const {
      index: contexts,
      prefix,
      testsWithoutRun,
      testFileExists,
    } = readAuditContexts(root, coverage, request.testRoot);
    if (contexts.style === "none") {
      // Without tests every name is outside them.
      const names = contexts.nonTestContexts;
      if (names.length === 0) {
        throw new InputError(NO_LINES_RECORDED.message, { fix: NO_LINES_RECORDED.fix });
      }
      throw new InputError(
        `the coverage data names no tests (only ${sample(names)}), so it cannot say which test ran a line`,
        {
          fix: "record per-test contexts: pytest --cov --cov-context=test (or [run] dynamic_context = test_function)",
        },
      );
    }

    mark("contexts");
    await letGitRun();
    if (request.abandonIf?.()) throw new AuditAbandoned();
    // 2. Frozen ids must name tests in the data; a typo would hide shadow.
    const resolution = resolveFrozen(
      contexts.style === "test-function"
        ? frozenForCollapsedContexts(frozenList, request.frozen)
        : frozenList,
      contexts,
    );
    // A static context holding "::" makes every test id unreadable: the ids match no test
    // although their tests ran, so --allow-unresolved (for tests that no longer exist) does
    // not waive it.
    const colons =
      resolution.unresolved.length === 0
        ? null
        : staticContextWithColons(contexts.testIds, testFileExists);
    if (colons !== null) {
      const problem = staticContextWithColonsProblem(colons);
      throw new InputError(
        `${resolution.unresolved.length} frozen id(s) in ${request.frozen} match no test in the coverage data: ${sample(resolution.unresolved)}; ${problem.message}`,
        { fix: problem.fix },
      );
    }
    // Ids that name the data's tests from another directory: the tests exist and ran, so
    // --allow-unresolved (for tests that no longer exist) does not waive them either.
    const offRoot =
      resolution.unresolved.length === 0
        ? null
        : testRootMismatch(resolution.unresolved, contexts.testIds, prefix, (p) =>
            isRepoFile(root, p),
          );
    if (offRoot !== null) {
      throw new InputError(
        `${resolution.unresolved.length} frozen id(s) in ${request.frozen} match no test in the coverage data: ${sample(resolution.unresolved)}; ${offRoot.message}`,
        { fix: offRoot.fix },
      );
    }
    // A parametrized test's or a class's own id names none of its tests: say how to freeze
    // them all.
    const unresolvedError = (why = "", fix = "") =>
      new InputError(
        `${resolution.unresolved.length} frozen id(s) in ${request.frozen} match no test in the coverage data: ${sample(resolution.unresolved)}${why}`,
        { fix: `${unresolvedFix(resolution.unresolved, contexts.testIds)}${fix}` },
      );
    if (resolution.unresolved.length > 0 && !request.allowUnresolved) throw unresolvedError();
    // A frozen test that was skipped hides shadow nobody can see: --allow-unresolved (for
    // tests that no longer exist) does not waive it.
    const bodiless = frozenWithoutRun(
      request.frozen,
      testsWithoutRun([...resolution.frozenTests]),
      coverage.meta.format,
    );
    if (bodiless !== null) throw bodiless;
    // After that check: an xfail(run=False) test is muted without running, and harmless.
    // test_function data merges a test's parametrized cases into one name: a muted case
    // mutes that name (fail closed: its other cases' lines read shadowed too).
    const alsoIds = [
      ...new Set(
        (request.alsoFrozen?.ids ?? []).map((id) =>
          contexts.style === "test-function" ? withoutParameters(id) : id,
        ),
      ),
    ];
    if (alsoIds.length > 0) contexts.preloadTests?.(alsoIds);
    const also = alsoIds.filter((id) => !resolution.frozenTests.has(id) && contexts.hasTest(id));
    const frozenTests =
      also.length === 0 ? resolution.frozenTests : new Set([...resolution.frozenTests, ...also]);

    // 3. Data paths onto the repository.
    const { measured, mapping, existing } = mapCoverageToRepo(root, coverage, request.pathMap, {
      firstExisting: true,
    });
    if (measured.length === 0) {
      throw new InputError("the coverage data has no measured files", {
        fix: "check [run] source / --cov= so that coverage measures your code",
      });
    }
    if (existing.length === 0) {
      throw new InputError(
        `no file in the coverage data maps onto the repository ${root}: data has ${sample(measured)}`,
        { fix: unmappedPathsFix(measured, recordedRootIn(root, measured)) },
      );
    }
    const ambiguous = ambiguousRun(
      root,
      measured,
      request.pathMap,
      request.testRoot,
      coverage.meta.dataFiles,
    );
    if (ambiguous !== null) throw ambiguous;

    mark("frozen + paths");
    // The lines coverage.py's report excludes: the `exclude_lines` of its configuration where
    // the tests ran (the test root, else the root), or the default `# pragma: no cover`.
    const configDir =
      [...new Set([prefix, ""])].find((dir) =>
        COVERAGE_CONFIG_FILES.some((name) => fileExists(join(root, dir, name))),
      ) ?? "";
    // pytest-cov's --cov-config in pytest's addopts names coverage.py's file (read like a
    // .coveragerc, or a pyproject.toml when it is TOML); one that cannot be read, or that
    // pytest 7 and 9 would name differently, excludes nothing.
    const covConfig = pytestCovConfig((name) => readTextOrNull(join(root, prefix, name)));
    const covConfigText =
      typeof covConfig === "string" ? readTextOrNull(join(root, prefix, covConfig)) : null;
    const excludePattern =
      covConfig === undefined
        ? coverageExclusion((name) => readTextOrNull(join(root, configDir, name)))
        : covConfigText === null || covConfig === null
          ? null
          : coverageExclusion((name) =>
              name === (covConfig.endsWith(".toml") ? "pyproject.toml" : ".coveragerc")
                ? covConfigText
                : null,
            );
    // 4. Which changed files are audited.
    const patch = await patchPromise;
    mark("git (waited)");
    const executedOf = executedOfSource(coverage);
    const { audited, skipped, sources, stricter, isTestFile } = await checkPatchAgainstData({
      root,
      request: request.patch,
      patch,
      settings: request,
      contexts,
      testRoot: request.testRoot,
      prefix,
      measured,
      mapping,
      pathMap: request.pathMap,
      dataFiles: coverage.meta.dataFiles,
      executedOf,
    });
    const settings = stricter?.settings ?? request;
    const baseRev = baseRevisionOf(patch);
    const at = baseRev === "HEAD" || baseRev === null ? "HEAD" : baseRev.slice(0, 12);
    if (stricter?.unresolvedWaived && resolution.unresolved.length > 0) {
      throw unresolvedError(
        `; the patch allows unresolved ids (allow-unresolved), the config at ${at} does not`,
        "; change allow-unresolved in a patch of its own, or pass --allow-unresolved",
      );
    }
    // The tests frozen in the list the patch's base read count too when the patch reads
    // another file (see frozenAtBase); an id of a test the data lacks freezes nothing.
    const { settingsFor } = request;
    const atBase =
      settingsFor === undefined
        ? null
        : await frozenAtBase(root, patch, baseRev, request.frozen, (v) => settingsFor(v).frozen);
    let judgedFrozen = frozenTests;
    let frozenChange: SettingsChange["frozen"];
    if (atBase !== null) {
      const onlyAtBase = frozenOnlyAtBase(
        atBase,
        at,
        contexts,
        frozenTests,
        testsWithoutRun,
        coverage.meta.format,
      );
      judgedFrozen = new Set([...frozenTests, ...onlyAtBase]);
      frozenChange = { files: atBase.files, now: atBase.now, tests: onlyAtBase };
    }
    const keysChanged = stricter !== null && stricter.change.changed.length > 0;
    const settingsChange: SettingsChange | null =
      frozenChange === undefined
        ? keysChanged
          ? stricter.change
          : null
        : {
            base: baseRev ?? "HEAD",
            changed: keysChanged ? stricter.change.changed : [],
            frozen: frozenChange,
          };
    const mappedAudited = audited.filter((f) => mapping.toData.has(f.path));

    // 5. Per file: statements first, so that only the changed statements' lines get their
    // tests read from the data; then executed lines and the staleness check.
    // One file may be recorded under several roots (shards from different machines, each
    // mapped with --path-map): its tests are those of all of them.
    const dataPathsOf = (path: string): string[] => {
      const first = mapping.toData.get(path);
      return first === undefined ? [] : (mapping.shared.get(path) ?? [first]);
    };
    const dataPaths = mappedAudited.flatMap((f) => dataPathsOf(f.path));
    mark("read + check sources");
    const prepared = audited.map((change) => {
      const text = (sources.get(change.path) as Buffer).toString("utf8");
      const recorded = dataPathsOf(change.path);
      // Line numbers matter where the data names lines; an unmeasured file's do not.
      if (recorded.length > 0) refuseLoneCarriageReturn(change.path, text);
      // A report's line lists are trusted only where coverage.py numbered lines as git does.
      const listsShifted = REPORT_LINE_BREAKS.test(text);
      const measured = listsShifted
        ? null
        : reportedStatements(recorded.map((p) => coverage.statements(p)));
      const excluded = listsShifted
        ? null
        : reportedStatements(recorded.map((p) => coverage.excluded(p)));
      const isPython = isPythonSource(change.path, text);
      const python = isPython ? analyzePython(text, { path: change.path }) : null;
      // coverage.py's statements: measured (evidence of the file's lines) plus the excluded
      // lines the full statement model calls statements. The exclusion pattern matches any
      // physical line: a comment, a line in a docstring, an `else:` that has no bytecode.
      const excludedCode =
        measured === null || excluded === null
          ? []
          : [...excluded].filter(
              (line) =>
                !measured.has(line) &&
                (python === null || python.statements().statementOf(line) === line),
            );
      const reported =
        measured === null
          ? null
          : excludedCode.length === 0
            ? measured
            : new Set([...measured, ...excludedCode]);
      return {
        change,
        text,
        lines: splitLines(text),
        recorded,
        reported,
        measured,
        excluded,
        python,
      };
    });
    mark("tokenize");
    const wanted = new Map<string, Set<number>>();
    for (const { change, lines, recorded, python } of prepared) {
      if (recorded.length === 0) continue;
      // The finder's statements hold a JSON report's (see below): every one of them is read.
      const finder = python ? python.logical : identityStatements;
      const changed = linesOfChangedStatements(change.addedLines, finder, lines.length);
      for (const p of recorded) wanted.set(p, changed);
    }
    // A file whose changed lines are all blank, comments or docstrings gets the same verdicts
    // whatever the data says: its rows are not read.
    const executed = coverage.executedLines(
      dataPaths.filter((p) => (wanted.get(p)?.size ?? 0) > 0),
      wanted,
    );
    mark("executed lines");
    // What is left is short unless many files need the statement model (a changed statement
    // no test ran): each is tokenized and parsed, which pays for optimized code on a large
    // patch (the 900-line bench patch: 119 -> 215 ms of verdicts without it).
    const modelled = prepared.filter(
      ({ change, recorded, python }) =>
        python !== null &&
        recorded.some((p) =>
          hasUnexecutedStatement(change.addedLines, python.logical, executed.get(p)),
        ),
    ).length;
    const shortRest = modelled <= MODELLED_FILES_FOR_SHORT_REST;
    if (shortRest) request.onLongLoopsDone?.();
    // Changed Python modules in the data without one executed line anywhere (rare): did a
    // test that ran import them?
    const silent = prepared
      .filter(
        ({ recorded, python }) =>
          python !== null &&
          recorded.length > 0 &&
          recorded.every((p) => executed.has(p) && (executed.get(p)?.size ?? 0) === 0),
      )
      .map(({ change }) => change.path);
    refuseUnexecutedImported(root, silent, mapping.toData, isTestFile, executedOf);
    const inputs: AuditFileInput[] = prepared.map(
      ({ change, text, lines: sourceLines, recorded, reported, measured, excluded, python }) => {
        const lines =
          recorded.length === 0
            ? null
            : recorded.length === 1
              ? (executed.get(recorded[0] as string) ?? new Map<number, string[]>())
              : unionOfLines(recorded.map((p) => executed.get(p)));
        // A JSON report's statements are coverage.py's own (6.x lists docstrings, for one),
        // plus the lines the finder calls statements that the tracer recorded: coverage.py
        // 6.5 takes `",".join(x)` first in a block for a docstring although it runs. Its
        // excluded statements that no test ran are none, as from SQLite data (review 46 #6).
        const finder = python ? python.logical : identityStatements;
        const statements = reported
          ? jsonStatementMap(
              withRecordedStatements(reported, lines, finder),
              finder,
              excluded === null
                ? new Set()
                : excludedUntested(firstLinesOf(excluded, finder), lines, finder, contexts),
            )
          : python
            ? statementsWithData(
                python,
                lines,
                excludePattern === null
                  ? undefined
                  : excludedUntested(
                      excludedStatements(text, excludePattern),
                      lines,
                      python.logical,
                      contexts,
                    ),
              )
            : identityStatements;
        if (lines !== null) {
          const evidence = staleEvidence(
            sourceLines,
            measured ? [...lines.keys(), ...measured] : lines.keys(),
            python ? (line) => python.logical.statementOf(line) !== null : undefined,
          );
          if (evidence) {
            throw new InputError(
              `the coverage data does not match ${change.path} on disk (${evidence}): it was recorded from another version of the file`,
              { fix: "re-run the tests with coverage on this checkout, then audit again" },
            );
          }
        }
        return { change, statements, executed: lines };
      },
    );

    mark("staleness");
    const audit = auditShadow({
      files: inputs,
      skipped,
      contexts,
      frozen: judgedFrozen,
      failOn: settings.failOn,
    });
    if (!shortRest) request.onLongLoopsDone?.();
    return {
      root,
      patch,
      coverage: coverage.meta,
      contextStyle: contexts.style,
      testCount: contexts.testCount,
      frozen: {
        file: request.frozen,
        format: frozenList.format,
        entries: frozenList.entries.length,
        frozenTests: [...resolution.frozenTests].sort(),
        unresolved: resolution.unresolved,
        also:
          request.alsoFrozen === undefined
            ? null
            : { label: request.alsoFrozen.label, tests: [...new Set(also)].sort() },
      },
      audit,
      sources: new Map(prepared.map(({ change, text }) => [change.path, text])),
      settingsChange,
      emptyPatch: await emptyPatchReason(root, patch),
    };
  } finally {
    coverage.close();
  }
}
