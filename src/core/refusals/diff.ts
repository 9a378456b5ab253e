// Refusals of the patch: a diff file or stdin that cannot be read as git or diff -u wrote it, a
// patch that does not describe the files on disk, and patches that change what they would be
// judged by.

import { config, input } from "./define.js";
import { NON_UTF8_PATH_FIX } from "./git.js";

const FIX_SHAPE =
  "pass the diff exactly as `git diff` or `diff -u` printed it (not edited, not truncated)";
const ONE_DIFF = "pass one diff made by one command";

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
};
