// Refusals where git failed, or the repository cannot answer the question asked of it.

import { git, input, usage } from "./define.js";

const BUG = "report this as a freezegate bug";

/**
 * For a changed path that is not valid UTF-8: renaming is the way out. Coverage data names
 * files in UTF-8 (coverage.py stores them as text), so such a path could never be matched.
 */
export const NON_UTF8_PATH_FIX =
  "rename the file to a name that is valid UTF-8 (git mv): freezegate matches changed paths against the coverage data's file names, which are UTF-8";
const A_COMMIT = (v: { flag: string }) =>
  `pass a branch, tag or commit, e.g. ${v.flag} origin/main`;

export const GIT = {
  "git-not-installed": git(
    () => "git is not installed or not on PATH",
    "install git (2.28 or newer) and make sure `git --version` works",
  ),
  "git-not-run": git(
    (v: { why: string }) => `could not run git: ${v.why}`,
    "check that git runs in this directory",
  ),
  "not-a-repository": git(
    (v: { dir: string }) => `${v.dir} is not inside a git repository`,
    // Every command needs the repository (a --diff too is read against it): no other way out.
    "run freezegate inside your repository's work tree, or point -C at it (`git init` starts a new one)",
  ),
  "repository-not-safe": git(
    (v: { dir: string }) => `git refuses to read ${v.dir}: the repository is owned by another user`,
    (v) => `mark it as safe: git config --global --add safe.directory ${v.dir}`,
  ),
  "git-failed": git(
    (v: { args: readonly string[]; dir: string; line: string }) =>
      `git ${v.args[0]} failed: ${v.line}`,
    (v) => `run \`git ${v.args.join(" ")}\` in ${v.dir} to see git's full message`,
  ),
  "directory-not-found": input(
    (v: { dir: string }) => `directory ${v.dir} does not exist`,
    "run freezegate from (or point it at) your repository's work tree",
  ),
  "not-a-work-tree": git(
    (v: { dir: string }) =>
      `${v.dir} is not inside a git work tree (a bare repository or .git itself)`,
    "run freezegate inside the checked-out work tree",
  ),
  "no-commits": git(
    () => "the repository has no commits yet (HEAD does not point at a commit)",
    "commit first, or audit the staged changes with --staged",
  ),
  "ref-ambiguous": git(
    (v: { ref: string }) =>
      `the ref '${v.ref}' is ambiguous: more than one branch, tag or remote has that name`,
    (v) => `name the one you mean in full, e.g. refs/heads/${v.ref} or refs/tags/${v.ref}`,
  ),
  "ref-starts-with-dash": git(
    (v: { flag: string; ref: string }) =>
      `${v.flag} '${v.ref}' is not a ref name (it starts with "-")`,
    A_COMMIT,
  ),
  "ref-is-range": git(
    (v: { flag: string; ref: string; withHead: boolean }) =>
      `${v.flag} '${v.ref}' is a range, not one ref`,
    (v) =>
      v.withHead
        ? "for A..B write --base A --head B (the audit reads the changes since their merge base)"
        : `pass one ref: freezegate audits REF...HEAD itself (e.g. ${v.flag} ${v.ref.split("..")[0] || "origin/main"})`,
  ),
  "ref-has-control-character": usage(
    (v: { flag: string; ref: string }) =>
      `${v.flag} ${JSON.stringify(v.ref)} contains a control character`,
    A_COMMIT,
  ),
  "ref-not-a-commit": git(
    (v: { flag: string; ref: string; type: string }) =>
      `${v.flag} '${v.ref}' names a ${v.type || "non-commit object"}, not a commit`,
    A_COMMIT,
  ),
  "base-not-found": git(
    (v: { base: string; shallow: boolean; nearest: string; fix: string }) =>
      `base ref '${v.base}' does not exist in this ${v.shallow ? "shallow " : ""}clone (or is not a commit)${v.nearest}`,
    // How to fetch it depends on the clone's remotes: the adapter works it out.
    (v) => v.fix,
  ),
  "head-not-found": git(
    (v: { head: string }) => `head ref '${v.head}' does not exist (or is not a commit)`,
    "pass an existing branch, tag or commit as the head",
  ),
  "shallow-no-merge-base": git(
    (v: { base: string; head: string }) =>
      `no merge base between '${v.base}' and '${v.head}': this clone is shallow and the commits that join them were not fetched`,
    "fetch the history: actions/checkout with fetch-depth: 0, or `git fetch --deepen=200` (or `git fetch --unshallow`)",
  ),
  "unrelated-histories": git(
    (v: { base: string; head: string }) =>
      `'${v.base}' and '${v.head}' have no common history (unrelated histories), so there is no merge base to diff from`,
    (v) => `pass as --base the branch that '${v.head}' was branched from`,
  ),
  "index-has-conflicts": git(
    (v: { paths: readonly string[] }) =>
      `the index has unresolved merge conflicts (${v.paths.slice(0, 3).join(", ")}${v.paths.length > 3 ? ", ..." : ""})`,
    "resolve the conflicts and `git add` the files, or audit the work tree instead",
  ),
  "removed-from-index-on-disk": git(
    (v: { path: string }) =>
      `${v.path} is removed from the index but still on disk (git rm --cached?), so the work tree's changes to it cannot be told apart`,
    (v) =>
      `put it back in the index (\`git add ${v.path}\`) or delete it from disk, then audit again`,
  ),
  "path-not-utf8": git(
    (v: { path: string }) => `the changed path "${v.path}" is not valid UTF-8`,
    NON_UTF8_PATH_FIX,
  ),
  "git-unexpected-output": git((v: { what: string }) => v.what, BUG),
  "name-has-line-break": input(
    (v: { name: string; what: "file" | "ledger" }) =>
      v.what === "ledger"
        ? `the ledger path "${v.name}" holds a line break`
        : `cannot read "${v.name}" from git: the name holds a line break`,
    (v) => (v.what === "ledger" ? "rename the ledger file" : "rename the file"),
  ),
  "not-a-revision": git(
    (v: { rev: string }) => `"${v.rev}" is not a revision`,
    "pass a branch, tag or commit",
  ),
  "not-a-file-at-revision": input(
    (v: { path: string; type: string; rev: string }) =>
      `${v.path} is a ${v.type} at ${v.rev}, not a file`,
    "point at a file",
  ),
  "shallow-edge-in-range": input(
    (v: { commit: string }) =>
      `commit ${v.commit.slice(0, 12)} of the range is the edge of a shallow clone (its parents were not fetched), so who added or changed each freeze cannot be told`,
    "fetch the whole history: actions/checkout with fetch-depth: 0, or git fetch --unshallow",
  ),
  "no-git-identity": input(
    () =>
      "git cannot tell who would commit the ledger's uncommitted changes, so their approval cannot be judged",
    'set your identity: git config user.name "Your Name" and git config user.email you@example.com',
  ),
};
