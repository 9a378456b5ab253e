// Refusals of the patch: a diff file or stdin that cannot be read as git or diff -u wrote it, a
// patch that does not describe the files on disk, and patches that change what they would be
// judged by.

import { config, input } from "./define.js";
import { NON_UTF8_PATH_FIX } from "./git.js";

const FIX_SHAPE =
  "pass the diff exactly as `git diff` or `diff -u` printed it (not edited, not truncated)";
const ONE_DIFF = "pass one diff made by one command";
const OF_THE_CHECKOUT =
  "make the diff from the repository root against the checkout the tests ran on, e.g. git diff origin/main...HEAD with HEAD checked out";

export const DIFF = {
  "diff-has-colour": input(
    (v: { source: string }) =>
      `${v.source} holds terminal colour codes, so its headers cannot be read`,
    "make it again without colour: git diff --no-color (or -c color.ui=never)",
  ),
  "diff-not-unified": input(
    (v: { source: string }) =>
      `${v.source} is not a unified diff: it has no "diff --git" or "---"/"+++" file header`,
    FIX_SHAPE,
  ),
  "diff-malformed": input(
    (v: { where: string; problem: string }) => `${v.where}: ${v.problem}`,
    FIX_SHAPE,
  ),
  "diff-path-not-utf8": input(
    (v: { where: string; path: string }) => `${v.where}: the path ${v.path} is not valid UTF-8`,
    NON_UTF8_PATH_FIX,
  ),
  "diff-prefixes-disagree": input(
    (v: { source: string; first: string; second: string }) =>
      `${v.source}: the file headers disagree about path prefixes (${v.first}, ${v.second})`,
    ONE_DIFF,
  ),
  "diff-prefix-missing": input(
    (v: { where: string; path: string; prefix: string }) =>
      `${v.where}: path "${v.path}" does not start with the prefix '${v.prefix}' that the diff uses`,
    `${ONE_DIFF}, with paths relative to the repository root`,
  ),
  "diff-path-outside-repo": input(
    (v: { where: string; path: string }) =>
      `${v.where}: path "${v.path}" is not a path inside the repository`,
    "make the diff from the repository root so paths are relative to it (git diff does this)",
  ),
  "diff-file-twice": input(
    (v: { source: string; line: number; path: string; first: number }) =>
      `${v.source} line ${v.line}: "${v.path}" appears a second time (first at line ${v.first})`,
    "pass the diff of one change (e.g. `git diff BASE...HEAD`), not several concatenated",
  ),
  "coverage-data-in-patch": input(
    (v: { what: string; path: string; by: string; recordInCi: string; fixtureHint: boolean }) =>
      `the ${v.what} ${v.path} is part of the patch (${v.by}): data committed with a patch is not a record of this run`,
    (v) =>
      `remove ${v.path} from the patch (and add it to .gitignore); record the data in CI with ${v.recordInCi}${v.fixtureHint ? "; a data file kept as a test fixture belongs in a fixtures or testdata directory below the tests (tests/fixtures/)" : ""}`,
  ),
  "patch-changes-pinned-setting": config(
    (v: { key: "base" | "coverage"; now: string; atBase: string; at: string }) =>
      `the patch changes ${v.key} in the repository's config (now ${v.now}; ${v.atBase} at ${v.at}), ${v.key === "base" ? "which chose the range of commits the patch is judged by" : "which names the data the patch is judged by"}: a patch cannot choose that for itself`,
    (v) =>
      v.key === "base"
        ? "pass --base REF (the branch the patch merges into)"
        : "change coverage in a patch that changes no audited source file, or pass --coverage",
  ),
  "diff-empty": input(
    (v: { file: string | null }) =>
      v.file === null ? "--diff -: stdin is empty" : `the diff file ${v.file} is empty`,
    (v) =>
      v.file === null
        ? "pipe a unified diff in, e.g. git diff origin/main...HEAD | freezegate audit --diff -"
        : "check the step that wrote it (a failed git diff, e.g. in a shallow clone, leaves an empty file); a patch with no changes needs no audit",
  ),
  "diff-wide-encoding": input(
    (v: { source: string; encoding: string }) =>
      `${v.source} is ${v.encoding} text; freezegate reads diffs as UTF-8`,
    "write the diff as UTF-8, e.g. in PowerShell: git diff origin/main...HEAD | Out-File -Encoding utf8 patch.diff",
  ),
  // Whether the patch describes the files on disk, the ones coverage measured.
  "measured-file-binary-in-diff": input(
    (v: { files: string }) =>
      `the diff shows ${v.files} as binary, but the coverage data measured it, so its changed lines are unknown`,
    "make the diff with `git diff --text` (or drop the -diff/binary attribute for these files in .gitattributes)",
  ),
  "changed-file-not-on-disk": input(
    (v: { path: string }) =>
      `changed file ${v.path} is not on disk, so no test here can have run it: a sparse checkout that leaves it out, or a patch that is not of this checkout`,
    "check out the patch's commit in full (git sparse-checkout add DIR, or git sparse-checkout disable), run the tests, then audit",
  ),
  "diff-names-missing-files": input(
    (v: { source: string; count: number; root: string; example: string; prefixes: string }) =>
      `${v.source} names ${v.count} source file(s) that are not in the work tree ${v.root}, e.g. "${v.example}"; ${v.prefixes}`,
    `${OF_THE_CHECKOUT} (in a sparse checkout, add their directories: git sparse-checkout add DIR)`,
  ),
  "diff-not-of-disk": input(
    (v: { source: string; path: string; difference: string }) =>
      `${v.source} does not describe ${v.path} on disk: ${v.difference}`,
    OF_THE_CHECKOUT,
  ),
  "unstaged-edits": input(
    (v: { files: string }) =>
      `changed file(s) have unstaged edits: ${v.files}; --staged numbers the index's lines, the coverage data measured the files on disk`,
    "stage the edits (git add) or stash them (git stash --keep-index), re-run the tests, then audit; or audit the work tree with --worktree",
  ),
  "changed-files-differ-from-head": input(
    (v: { head: string; files: string; headCheckedOut: boolean }) =>
      `changed file(s) on disk differ from ${v.head}: ${v.files}; the diff describes ${v.head}, the coverage data the files on disk`,
    (v) =>
      v.headCheckedOut
        ? "commit or stash the changes, then re-run the tests and the audit"
        : `check out ${v.head}, run the tests with coverage there, then audit`,
  ),
  // Patches that change what they would be judged by, or carry their own evidence.
  "patch-changes-coverage-config": input(
    (v: { config: string; sources: string }) =>
      `the patch changes coverage.py's configuration (${v.config}) and its changed source ${v.sources} is not in the coverage data: the change may have taken it out`,
    "land the coverage configuration change in a patch of its own, or make the tests measure these files",
  ),
};
