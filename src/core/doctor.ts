// `freezegate doctor`: the checks to run before anyone trusts an audit. Each check is a pure
// function of values the app layer gathered and returns one line with a fix; the doctor runs
// them all rather than stopping at the first. The checks of the data's tests are the
// runner's (RunnerTests.doctorChecks).

import { nodeIdFile } from "./deposits.js";
import type { FreezegateError } from "./errors.js";
import { type FrozenResolution, type IdWords, testRootMismatch, unresolvedFix } from "./frozen.js";
import { sample, sampleOf } from "./listing.js";
import {
  type PathMapping,
  type RecordedRoot,
  slashSeparated,
  unmappedPathsFix,
} from "./path-map.js";

export type CheckStatus = "ok" | "warn" | "fail" | "skip";

export interface DoctorCheck {
  id: string;
  status: CheckStatus;
  message: string;
  fix?: string;
  /** The refusal's code, when the check failed on one (docs/refusals.md). */
  code?: string;
}

/** The failed check `id` for a refusal the audit would stop at: its message, fix and code. */
export function failedCheck(id: string, error: FreezegateError): DoctorCheck {
  return {
    id,
    status: "fail",
    message: error.message,
    ...(error.fix ? { fix: error.fix } : {}),
    ...(error.code === undefined ? {} : { code: error.code }),
  };
}

/** How to make the data measure code, in the runner's words (see RunnerAdvice). */
export interface MeasureWords {
  measureFiles: string;
  measureCode: string;
}

/**
 * The data's test ids name test files that exist (`exists`, as the audit reads ids' files).
 * `testRoot` says, in the runner's words, which directory the ids are relative to;
 * `unreadable` may name one cause of every missing file (pytest: a static context holding
 * "::" before every node id).
 */
export function checkTestIdFiles(
  testIds: Iterable<string>,
  exists: (file: string) => boolean,
  testRoot: string,
  unreadable: () => { message: string; fix: string } | null = () => null,
): DoctorCheck {
  const missing = new Set<string>();
  let total = 0;
  for (const id of testIds) {
    total++;
    const file = nodeIdFile(id);
    if (!exists(file)) missing.add(file);
  }
  if (missing.size === 0) {
    return {
      id: "node-ids",
      status: "ok",
      message: `every test id names a test file that exists (${total} tests)`,
    };
  }
  const message = `test ids name ${missing.size} file(s) that do not exist in the repository: ${sample([...missing].sort())}`;
  const problem = unreadable();
  return problem === null
    ? {
        id: "node-ids",
        status: "fail",
        message,
        fix: `set --test-root to ${testRoot}, or record the data again on this checkout`,
      }
    : {
        id: "node-ids",
        status: "fail",
        message: `${message}; ${problem.message}`,
        fix: problem.fix,
      };
}

export function checkPathMapping(
  measured: readonly string[],
  mapping: PathMapping,
  existing: readonly string[],
  recorded: RecordedRoot | null,
  words: MeasureWords,
): DoctorCheck {
  if (measured.length === 0) {
    return {
      id: "paths",
      status: "fail",
      message: "the coverage data has no measured files",
      fix: `check ${words.measureCode} so that coverage measures your code`,
    };
  }
  if (existing.length === 0) {
    return {
      id: "paths",
      status: "fail",
      message: `no data path maps onto a file in the repository: data has ${sample(measured)}`,
      fix: unmappedPathsFix(measured, recorded),
    };
  }
  // Data paths, not repository files: one file recorded under two roots is two data paths
  // (mapping.shared), both found when the file exists.
  const found = existing.reduce(
    (n, repoPath) => n + (mapping.shared.get(repoPath)?.length ?? 1),
    0,
  );
  if (found < measured.length) {
    // A data path that a rule renamed is not what was not found: its target is.
    const missing = [...mapping.toData.entries()]
      .filter(([repoPath]) => !existing.includes(repoPath))
      .flatMap(([repoPath, first]) =>
        (mapping.shared.get(repoPath) ?? [first]).map((dataPath) => [repoPath, dataPath] as const),
      )
      .map(([repoPath, dataPath]) => {
        const slashed = slashSeparated(dataPath);
        return slashed === repoPath || slashed.endsWith(`/${repoPath}`)
          ? `"${dataPath}"`
          : `"${dataPath}" (mapped to "${repoPath}")`;
      });
    return {
      id: "paths",
      status: "warn",
      message: `${found} of ${measured.length} data paths map onto repository files; not found: ${sampleOf([...mapping.outside.map((p) => `"${p}"`), ...missing])}`,
      fix: "add --path-map FROM=TO for the rest, or ignore if those files were deleted or live outside the repository",
    };
  }
  return {
    id: "paths",
    status: "ok",
    message: `all ${measured.length} data paths map onto repository files`,
  };
}

export function checkFrozenResolved(
  label: string,
  entries: number,
  resolution: FrozenResolution,
  allowUnresolved: boolean,
  /** The data's test ids, for the fix (a parametrized test's or a class's own id). */
  testIds: Iterable<string>,
  /** The runner's words for its ids, for the fix. */
  words: IdWords,
  /**
   * Why the data's test ids cannot be read at all (the runner's RunnerTests.unreadableIds),
   * asked only when an id matches no test.
   */
  unreadableIds?: () => { message: string; fix: string } | null,
  /**
   * The test root ("" or "dir/") and whether a repository path is a file: to name ids that
   * are the data's from another directory as the cause (see testRootMismatch).
   */
  testRoot?: { prefix: string; repoFileExists: (repoPath: string) => boolean },
): DoctorCheck {
  if (resolution.unresolved.length === 0) {
    return {
      id: "frozen",
      status: "ok",
      message: `${label}: ${entries === 1 ? "1 entry resolves" : `${entries} entries resolve`} to ${resolution.frozenTests.size} test(s) in the data`,
    };
  }
  const message = `${label}: ${resolution.unresolved.length} of ${entries} frozen id(s) match no test in the data: ${sample(resolution.unresolved)}`;
  // As in the audit: unreadable test ids are no tests that no longer exist, whatever
  // --allow-unresolved says.
  const problem = unreadableIds?.() ?? null;
  if (problem !== null) {
    return {
      id: "frozen",
      status: "fail",
      message: `${message}; ${problem.message}`,
      fix: problem.fix,
    };
  }
  // As in the audit: the tests exist under another name, whatever --allow-unresolved says.
  const offRoot =
    testRoot === undefined
      ? null
      : testRootMismatch(
          resolution.unresolved,
          testIds instanceof Set ? testIds : new Set(testIds),
          testRoot.prefix,
          testRoot.repoFileExists,
          words,
        );
  if (offRoot !== null) {
    return {
      id: "frozen",
      status: "fail",
      message: `${message}; ${offRoot.message}`,
      fix: offRoot.fix,
    };
  }
  return {
    id: "frozen",
    status: allowUnresolved ? "warn" : "fail",
    message,
    fix: unresolvedFix(resolution.unresolved, testIds, words),
  };
}

export interface FreshnessInput {
  /** Changed files whose content contradicts the data (path -> evidence sentence). */
  contradicted: Array<{ path: string; evidence: string }>;
  /** Changed files modified on disk after the data was recorded. */
  newerThanData: string[];
  recordedAt: Date | null;
  checkedFiles: number;
  /** How many changed files the audit judges (source files, see classifyChangedFiles). */
  auditedFiles: number;
  /** Those of them that are not in the data: the audit reads their lines as unmeasured. */
  unmeasured: string[];
  /** How the runner's data comes to measure them, in its words (RunnerAdvice.measureFiles). */
  measureFiles: string;
}

export function checkFreshness(input: FreshnessInput | null): DoctorCheck {
  if (input === null) {
    return {
      id: "freshness",
      status: "skip",
      message: "no patch given, so the patch's files were not compared with the data",
      fix: "pass --base REF (or --staged, --worktree, --diff FILE) to check them",
    };
  }
  const first = input.contradicted[0];
  if (first) {
    return {
      id: "freshness",
      status: "fail",
      message: `the data does not match ${first.path} on disk (${first.evidence})${input.contradicted.length > 1 ? ` and ${input.contradicted.length - 1} more file(s)` : ""}: stale data shifts line numbers`,
      fix: "re-run the tests with coverage on this checkout",
    };
  }
  // A changed source file the data lacks reads unmeasured, which passes unless unmeasured is
  // in fail-on: a warning, not a failure, as the audit runs (a patch of docs/conf.py alone is
  // no error); data that lost a file (an omit, a rename) shows here.
  const { unmeasured } = input;
  const warnings: Array<{ message: string; fix: string }> = [];
  if (unmeasured.length > 0) {
    const which =
      unmeasured.length === input.auditedFiles
        ? `none of the ${unmeasured.length} changed source file(s) is in the coverage data`
        : `${unmeasured.length} of ${input.auditedFiles} changed source files are not in the coverage data`;
    warnings.push({
      message: `${which}: ${sample(unmeasured)}; the audit reads their changed lines as unmeasured, which passes unless --fail-on unmeasured`,
      fix: `if tests run them, record the data on this checkout with ${input.measureFiles}; a file no test is meant to run can be left out of the audit with --source-files`,
    });
  }
  if (input.newerThanData.length > 0) {
    warnings.push({
      message: `${input.newerThanData.length} changed file(s) were modified after the data was recorded (${input.recordedAt?.toISOString() ?? "unknown time"}): ${sample(input.newerThanData)}`,
      fix: "if you edited them since the test run, re-run the tests with coverage (a fresh checkout also looks newer; then this is harmless)",
    });
  }
  if (warnings.length > 0) {
    return {
      id: "freshness",
      status: "warn",
      message: warnings.map((w) => w.message).join("; "),
      fix: warnings.map((w) => w.fix).join("; "),
    };
  }
  return {
    id: "freshness",
    status: "ok",
    message: `the data matches the ${input.checkedFiles} changed file(s) it measures`,
  };
}
