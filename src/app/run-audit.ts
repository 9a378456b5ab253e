// The shadow audit as an application service: gather the values from git, the coverage data
// and the frozen list (adapters), check that they fit together, then call the pure audit.
// Everything that could turn misread input into an empty result is checked here and raised
// as an error instead.

import { join } from "node:path";
import { discoverCoverage, openCoverage } from "../adapters/coverage-discovery.js";
import { fileExists, readTextOrNull } from "../adapters/repo-files.js";
import { InputError } from "../core/errors.js";
import {
  type FrozenList,
  frozenForCollapsedContexts,
  frozenWithoutRun,
  resolveFrozen,
  testRootMismatch,
  unresolvedFix,
} from "../core/frozen.js";
import { sample } from "../core/listing.js";
import type { ContextIndex, CoverageMeta, Patch, StatementMap } from "../core/model.js";
import { baseRevisionOf } from "../core/patch-base.js";
import { type PathRule, unmappedPathsFix } from "../core/path-map.js";
import {
  type AuditFileInput,
  auditShadow,
  type FailableVerdict,
  type ShadowAudit,
} from "../core/shadow-audit.js";
import { splitLines, staleEvidence } from "../core/stale.js";
import {
  linesOfChangedStatements,
  statementRan,
  statementsWithData,
} from "../core/statement-map.js";
import { REPORT_LINE_BREAKS, refuseLoneCarriageReturn } from "../languages/python/line-breaks.js";
import {
  analyzePython,
  excludedStatements,
  isPythonSource,
} from "../languages/python/statements.js";
import {
  excludedUntested,
  firstLinesOf,
  identityStatements,
  jsonStatementMap,
  reportedStatements,
  withRecordedStatements,
} from "../runners/pytest/changed-source.js";
import {
  staticContextWithColons,
  staticContextWithColonsProblem,
} from "../runners/pytest/context-names.js";
import { NO_LINES_RECORDED } from "../runners/pytest/contexts.js";
import { COVERAGE_CONFIG_FILES, coverageExclusion } from "../runners/pytest/coverage-settings.js";
import { readAuditContexts } from "../runners/pytest/data-tests.js";
import { executedOfSource, refuseUnexecutedImported } from "../runners/pytest/installed-copies.js";
import { withoutParameters } from "../runners/pytest/node-ids.js";
import { pytestCovConfig } from "../runners/pytest/pytest-config.js";
import { checkPatchAgainstData } from "./audit/changed-files.js";
import { ambiguousRun, isRepoFile, mapCoverageToRepo, recordedRootIn } from "./audit/data-paths.js";
import { loadFrozenList } from "./audit/frozen-tests.js";
import { AuditAbandoned, letGitRun } from "./audit/hooks.js";
import { type PatchRequest, readPatch } from "./audit/read-patch.js";
import type { SettingsChange, SettingsFor } from "./audit/stricter-settings.js";
import { type EmptyPatchReason, emptyPatchReason } from "./empty-patch.js";
import { frozenAtBase, frozenOnlyAtBase } from "./patch-settings.js";
import { mark } from "./timing.js";

export { AuditAbandoned } from "./audit/hooks.js";

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
  settingsFor?: SettingsFor;
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
