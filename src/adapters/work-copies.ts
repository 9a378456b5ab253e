// Temporary copies of a repository's work tree, where mutants are written and tests run: the
// user's own work tree and .git are never written. A copy holds the files git tracks or would
// add (the caller lists them), never `__pycache__` (a stale compiled module would run instead
// of its mutant), and lives in a directory of its own under the system's temporary directory
// (TMPDIR), removed whole when the run ends.

import {
  copyFileSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

export interface WorkCopy {
  /** The copy's own temporary directory (removed whole by removeWorkCopy). */
  dir: string;
  /** The copied work tree, inside `dir`. */
  tree: string;
  /** A file inside `dir`, outside the tree, for a run to write its outcomes to. */
  outcomes: string;
}

/** A new, empty copy directory (the tree is filled by fillWorkCopy). */
export function makeWorkCopy(): WorkCopy {
  const dir = mkdtempSync(join(tmpdir(), "freezegate-mutants-"));
  return { dir, tree: join(dir, "tree"), outcomes: join(dir, "outcomes.json") };
}

/**
 * Copies `files` (repository paths) from `root` into the copy's tree: regular files with their
 * mode, symbolic links as links. A path that is gone, or is a directory (a submodule), is left
 * out, as is anything under a `__pycache__` directory.
 */
export function fillWorkCopy(copy: WorkCopy, root: string, files: readonly string[]): void {
  mkdirSync(copy.tree, { recursive: true });
  for (const path of files) {
    if (path.split("/").includes("__pycache__")) continue;
    const from = join(root, path);
    let stat: ReturnType<typeof lstatSync>;
    try {
      stat = lstatSync(from);
    } catch {
      continue;
    }
    if (!stat.isFile() && !stat.isSymbolicLink()) continue;
    const to = join(copy.tree, path);
    mkdirSync(dirname(to), { recursive: true });
    if (stat.isSymbolicLink()) symlinkSync(readlinkSync(from), to);
    else copyFileSync(from, to);
  }
}

/** Removes the copy and everything in it; a copy already gone is no error. */
export function removeWorkCopy(copy: WorkCopy): void {
  rmSync(copy.dir, { recursive: true, force: true, maxRetries: 3 });
}

/** The bytes of a file of the copy's tree. */
export function readCopyFile(copy: WorkCopy, path: string): Buffer {
  return readFileSync(join(copy.tree, path));
}

/** Writes a file of the copy's tree. */
export function writeCopyFile(copy: WorkCopy, path: string, content: string | Buffer): void {
  writeFileSync(join(copy.tree, path), content);
}

/** Makes sure `path` (relative to the tree) is a directory of the copy, and returns it. */
export function copyDirectory(copy: WorkCopy, path: string): string {
  const dir = join(copy.tree, path);
  mkdirSync(dir, { recursive: true });
  return dir;
}

/** The outcomes a run wrote, or null when it wrote none; the file is removed after reading. */
export function takeOutcomes(copy: WorkCopy): string | null {
  let text: string;
  try {
    text = readFileSync(copy.outcomes, "utf8");
  } catch {
    return null;
  }
  rmSync(copy.outcomes, { force: true });
  return text;
}

/** Removes an outcomes file a run left, so that the next run's absence of one shows. */
export function clearOutcomes(copy: WorkCopy): void {
  rmSync(copy.outcomes, { force: true });
}
