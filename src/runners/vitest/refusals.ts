// Vitest data that cannot say which test ran a changed line, refused (exit 2, what is wrong and
// how to fix it) instead of judged: every one of these would otherwise read as lines no test
// ran, and a line only a frozen test ran would pass as "uncovered" instead of failing as
// "shadowed". Pure: each takes the data's header and what the audit knows of the patch.

import { nodeIdFile } from "../../core/deposits.js";
import type { FreezegateError } from "../../core/errors.js";
import type { FrozenList } from "../../core/frozen.js";
import { sample, sampleOf } from "../../core/listing.js";
import { normalizePath } from "../../core/path-map.js";
import { refusal } from "../../core/refusals/index.js";
import type { VitestHeader } from "./data-format.js";
import { repoPathOf } from "./files.js";

/** Two tests' windows overlapped: the lines they ran are mixed. */
export function refuseConcurrentOverlap(header: VitestHeader): void {
  if (!header.concurrentOverlap) return;
  const tests = header.tests.filter((t) => t.concurrent).map((t) => t.id);
  throw refusal("vitest-tests-overlapped", { tests: tests.length ? sample(tests) : null });
}

/** A run filtered by name or file holds only part of the suite. */
export function refuseFilteredRun(header: VitestHeader): void {
  const { filter } = header;
  if (filter === null) return;
  const what = [
    filter.testNamePattern === null ? null : `-t ${filter.testNamePattern}`,
    filter.files?.length ? `files ${sampleOf(filter.files.map((f) => JSON.stringify(f)))}` : null,
  ].filter((x) => x !== null);
  throw refusal("vitest-run-filtered", { filter: what.join(", ") });
}

/**
 * A run that did not run every test file Vitest's include matched (interrupted, stopped by
 * --bail, limited to changed files): the rest read as having run nothing.
 */
export function refuseIncompleteRun(header: VitestHeader): void {
  if (header.reason === "interrupted") {
    throw refusal("vitest-run-incomplete", { interrupted: true });
  }
  const ran = new Set([...header.ranFiles, ...header.failedFiles.map((f) => f.file)]);
  const left = header.testFiles.filter((file) => !ran.has(file));
  if (left.length > 0) {
    throw refusal("vitest-run-incomplete", {
      interrupted: false,
      left: sample(left),
      count: left.length,
      total: header.testFiles.length,
    });
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
  // What the refusal says of a failed file, whatever the patch it hides from.
  const about = (f: (typeof failed)[number]) => ({
    file: f.repoPath ?? f.file,
    reason: f.reason,
    noRunner: f.reason.startsWith("no per-test data"),
  });
  const changed = new Set(facts.changed);
  const changedFailed = failed.find((f) => f.repoPath !== null && changed.has(f.repoPath));
  if (changedFailed !== undefined) {
    throw refusal("vitest-test-file-recorded-nothing", {
      ...about(changedFailed),
      because: "changed",
    });
  }
  for (const entry of facts.frozen.entries) {
    const hit = failed.find((f) => mayNameTestIn(entry.pattern, f.file));
    if (hit !== undefined) {
      throw refusal("vitest-test-file-recorded-nothing", {
        ...about(hit),
        because: "frozen",
        test: entry.pattern,
      });
    }
  }
  const [first] = failed;
  const [unmeasured] = facts.unmeasured;
  if (unmeasured !== undefined && first !== undefined) {
    throw refusal("vitest-test-file-recorded-nothing", {
      ...about(first),
      because: "unmeasured",
      changed: unmeasured,
      count: failed.length,
    });
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
    throw refusal("vitest-other-root", {
      recorded: inRepo ?? "the repository root",
      readAs: shown,
      testRoot: inRepo ?? ".",
    });
  }
  const tail = facts.prefix === "" ? "" : `/${facts.prefix.slice(0, -1)}`;
  const present = header.ranFiles.some((file) => {
    const path = repoPathOf(facts.prefix, file);
    return path !== null && facts.exists(path);
  });
  if (!dataRoot.endsWith(tail) || !present) {
    throw refusal("vitest-other-root", { recorded: header.root, readAs: shown, testRoot: null });
  }
}

/**
 * Frozen tests whose body never ran (skipped, todo, stopped by a failing hook) or is not known
 * to have run: the lines they would run are unknown, so the shadow they hide is too. The
 * error, or null.
 */
export function frozenWithoutBody(label: string, ids: readonly string[]): FreezegateError | null {
  if (ids.length === 0) return null;
  return refusal("frozen-tests-not-run", {
    count: ids.length,
    label,
    list: sample([...ids].sort()),
    vitest: true,
  });
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
