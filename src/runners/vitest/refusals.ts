// Vitest data that cannot say which test ran a changed line, refused (exit 2, what is wrong and
// how to fix it) instead of judged: every one of these would otherwise read as lines no test
// ran, and a line only a frozen test ran would pass as "uncovered" instead of failing as
// "shadowed". Pure: each takes the data's header and what the audit knows of the patch.

import { nodeIdFile } from "../../core/deposits.js";
import { InputError } from "../../core/errors.js";
import type { FrozenList } from "../../core/frozen.js";
import { sample, sampleOf } from "../../core/listing.js";
import { normalizePath } from "../../core/path-map.js";
import type { VitestHeader } from "./data-format.js";
import { repoPathOf } from "./files.js";

const RERUN = "re-run the whole suite (npx vitest run, no file filter, no -t), then audit";

/** Two tests' windows overlapped: the lines they ran are mixed. */
export function refuseConcurrentOverlap(header: VitestHeader): void {
  if (!header.concurrentOverlap) return;
  const tests = header.tests.filter((t) => t.concurrent).map((t) => t.id);
  throw new InputError(
    `the Vitest data mixes the lines of tests that ran at the same time${tests.length ? ` (${sample(tests)})` : ""}, so it cannot say which of them ran a line`,
    {
      fix: "keep tests that wait for each other out of the recorded run, or make them sequential (no test.concurrent, sequence.concurrent false), then record again",
    },
  );
}

/** A run filtered by name or file holds only part of the suite. */
export function refuseFilteredRun(header: VitestHeader): void {
  const { filter } = header;
  if (filter === null) return;
  const what = [
    filter.testNamePattern === null ? null : `-t ${filter.testNamePattern}`,
    filter.files?.length ? `files ${sampleOf(filter.files.map((f) => JSON.stringify(f)))}` : null,
  ].filter((x) => x !== null);
  throw new InputError(
    `the Vitest data is from a filtered run (${what.join(", ")}): the tests it left out would read as having run nothing`,
    { fix: RERUN },
  );
}

/**
 * A run that did not run every test file Vitest's include matched (interrupted, stopped by
 * --bail, limited to changed files): the rest read as having run nothing.
 */
export function refuseIncompleteRun(header: VitestHeader): void {
  if (header.reason === "interrupted") {
    throw new InputError(
      "the Vitest run that recorded the data was interrupted, so it holds only part of the suite",
      {
        fix: RERUN,
      },
    );
  }
  const ran = new Set([...header.ranFiles, ...header.failedFiles.map((f) => f.file)]);
  const left = header.testFiles.filter((file) => !ran.has(file));
  if (left.length > 0) {
    throw new InputError(
      `the Vitest run that recorded the data did not run ${left.length} of its ${header.testFiles.length} test files (${sample(left)}): their tests would read as having run nothing`,
      { fix: `${RERUN} (without --bail, --changed or --related)` },
    );
  }
}

/** What the audit knows of a patch, for the test files that recorded nothing. */
export interface FailedFilesFacts {
  /** The Vitest root as a prefix of repository paths ("" or "dir/"). */
  prefix: string;
  /** Repository paths of the files the patch changes. */
  changed: readonly string[];
  /** Repository paths of changed source files that have no section in the data. */
  unmeasured: readonly string[];
  frozen: FrozenList;
}

/**
 * Test files that failed (they did not import, or ran outside freezegate's runner) recorded no
 * test at all. Refused where that can change a verdict silently: a frozen test in one of them
 * (its lines would read as run by no test: uncovered, not shadowed), a changed source file the
 * data lacks (only they may have imported it), and a test file the patch changes.
 */
export function refuseFailedFiles(header: VitestHeader, facts: FailedFilesFacts): void {
  if (header.failedFiles.length === 0) return;
  const failed = header.failedFiles.map((f) => ({
    ...f,
    repoPath: repoPathOf(facts.prefix, f.file),
  }));
  const fix = (f: { reason: string }) =>
    f.reason.startsWith("no per-test data")
      ? "give every Vitest project freezegate's runner (npx freezegate init vitest), then record again"
      : "fix what keeps that test file from running, then record again";
  const changed = new Set(facts.changed);
  const changedFailed = failed.find((f) => f.repoPath !== null && changed.has(f.repoPath));
  if (changedFailed !== undefined) {
    throw new InputError(
      `the test file ${changedFailed.repoPath}, which the patch changes, recorded no tests in the Vitest run (${changedFailed.reason})`,
      { fix: fix(changedFailed) },
    );
  }
  for (const entry of facts.frozen.entries) {
    const hit = failed.find((f) => mayNameTestIn(entry.pattern, f.file));
    if (hit !== undefined) {
      throw new InputError(
        `the frozen test "${entry.pattern}" may be in ${hit.repoPath ?? hit.file}, which recorded no tests in the Vitest run (${hit.reason}), so the lines it would run are unknown`,
        { fix: fix(hit) },
      );
    }
  }
  const [first] = failed;
  if (facts.unmeasured.length > 0 && first !== undefined) {
    throw new InputError(
      `the changed file ${facts.unmeasured[0]} is not in the Vitest data, and ${failed.length} test file(s) recorded no tests (${first.repoPath ?? first.file}: ${first.reason}): the tests that import it may be among them`,
      { fix: fix(first) },
    );
  }
}

/**
 * Whether a frozen entry may name a test of `file` (relative to the Vitest root): an exact id
 * whose file part it is, or a glob that matches some id starting "FILE::".
 */
function mayNameTestIn(pattern: string, file: string): boolean {
  if (!pattern.includes("*")) return nodeIdFile(pattern) === file;
  return globMatchesSomeWithPrefix(pattern, `${file}::`);
}

/**
 * Whether a frozen glob ("*": any run of characters, as globToRegExp reads it) matches some
 * string that starts with `prefix`: it does when it can read all of the prefix, whatever is
 * left of it then (any rest of a glob matches some string).
 */
export function globMatchesSomeWithPrefix(glob: string, prefix: string): boolean {
  // Past its first "*" a glob matches anything, so only the text before it decides.
  const star = glob.indexOf("*");
  const head = star < 0 ? glob : glob.slice(0, star);
  return head.length >= prefix.length
    ? head.startsWith(prefix)
    : star >= 0 && prefix.startsWith(head);
}

/**
 * Data recorded at another Vitest root than the one the audit reads it against: its paths
 * would name other files. `vitestRoot` is the root the audit assumes (absolute); data recorded
 * elsewhere (a CI machine) must end in the same directories and name test files that are
 * there (`exists`, a repository path).
 */
export function refuseOtherRoot(
  header: VitestHeader,
  facts: {
    repoRoot: string;
    prefix: string;
    exists: (repoPath: string) => boolean;
  },
): void {
  const dataRoot = normalizePath(header.root);
  const repoRoot = normalizePath(facts.repoRoot);
  const assumed = normalizePath(`${repoRoot}/${facts.prefix}`);
  if (dataRoot === assumed) return;
  const shown = facts.prefix === "" ? "the repository root" : facts.prefix.slice(0, -1);
  const inRepo = dataRoot.startsWith(`${repoRoot}/`) ? dataRoot.slice(repoRoot.length + 1) : null;
  if (inRepo !== null || dataRoot === repoRoot) {
    throw new InputError(
      `the Vitest data was recorded with the Vitest root ${inRepo ?? "the repository root"}, but the audit reads it against ${shown}`,
      { fix: `pass --test-root ${inRepo ?? "."} (the directory Vitest ran in)` },
    );
  }
  const tail = facts.prefix === "" ? "" : `/${facts.prefix.slice(0, -1)}`;
  const present = header.ranFiles.some((file) => {
    const path = repoPathOf(facts.prefix, file);
    return path !== null && facts.exists(path);
  });
  if (!dataRoot.endsWith(tail) || !present) {
    throw new InputError(
      `the Vitest data was recorded with the Vitest root ${header.root}, whose test files are not under ${shown} here`,
      {
        fix: "pass --test-root with the directory Vitest ran in, relative to the repository root",
      },
    );
  }
}

/**
 * Frozen tests whose body never ran (skipped, todo, stopped by a failing hook) or is not known
 * to have run: the lines they would run are unknown, so the shadow they hide is too. The
 * error, or null.
 */
export function frozenWithoutBody(label: string, ids: readonly string[]): InputError | null {
  if (ids.length === 0) return null;
  return new InputError(
    `${ids.length} frozen test(s) in ${label} did not run their body in the Vitest run (skipped, todo, or stopped by a failing beforeAll or beforeEach hook), or the data does not say that they did, so the lines they would cover are unknown: ${sample([...ids].sort())}`,
    {
      fix: "freeze tests through the freeze ledger, which freezegate's Vitest runner applies by running them with their failures ignored, instead of .skip or .todo, and make their hooks pass; then record again",
    },
  );
}

/**
 * Refuses a run whose data cannot judge any patch: tests that overlapped, a filtered run, a
 * run that left test files out.
 */
export function refuseRunThatCannotJudge(header: VitestHeader): void {
  refuseConcurrentOverlap(header);
  refuseFilteredRun(header);
  refuseIncompleteRun(header);
}
