// Writing reports and state files so that a reader never sees half of one: write a temporary
// file next to the target, then rename it over the target (atomic on POSIX file systems).
//
// Only a regular file (or a name that does not exist yet) can be replaced that way. A rename
// over a symlink replaces the link, and over a FIFO or a device (`--output /dev/stdout`, as
// root) replaces the node in /dev with a regular file: those are written through instead, a
// symlink to a regular file by replacing the file it points to.
//
// Several files (one run's reports) are written as a set, all or none: each is written to a
// temporary file next to its target; only when all of them are written are they renamed over
// their targets (a target that existed is kept as a hard link, or a copy where links fail,
// until every rename succeeded, so a failed rename puts it back). When any step fails, the
// temporary files are removed and no target is new or changed.

import * as fs from "node:fs";
import { basename, dirname, join } from "node:path";
import type { FreezegateError } from "../core/errors.js";
import { refusal } from "../core/refusals/index.js";

export type WriteTarget =
  /** A regular file or a new name: write a temporary file beside it, then rename. */
  | { mode: "replace"; path: string }
  /** A FIFO, a device, a socket, or a link to nothing yet: open it and write. */
  | { mode: "through"; path: string };

export type TargetOps = Pick<typeof fs, "lstatSync" | "statSync" | "realpathSync">;

/** How to write `path` (absolute) without destroying what is there; throws for a directory. */
export function writeTargetOf(path: string, ops: TargetOps = fs): WriteTarget {
  let own: fs.Stats;
  try {
    own = ops.lstatSync(path);
  } catch {
    return { mode: "replace", path };
  }
  if (own.isDirectory()) throw new Error("it is a directory");
  if (own.isFile()) return { mode: "replace", path };
  if (!own.isSymbolicLink()) return { mode: "through", path };
  let target: fs.Stats;
  try {
    target = ops.statSync(path);
  } catch {
    // A dangling link: opening it creates the file it names.
    return { mode: "through", path };
  }
  if (target.isDirectory()) throw new Error("it is a link to a directory");
  // /dev/stdout is a link to /proc/self/fd/1, whose own target may be a pipe with no path.
  if (!target.isFile()) return { mode: "through", path };
  return { mode: "replace", path: ops.realpathSync(path) };
}

/** A name for a temporary file beside `path` (same directory, so a rename is atomic). */
export function siblingName(path: string, kind: "tmp" | "bak"): string {
  // node:crypto is loaded when a file is written, not by every audit that loads this module.
  const token = process.getBuiltinModule("node:crypto").randomBytes(4).toString("hex");
  return join(dirname(path), `.${basename(path)}.${process.pid}.${token}.${kind}`);
}

/** Remove a file (a report an earlier run left); throws as the file system does. */
export function removeFile(path: string): void {
  fs.rmSync(path);
}

export function writeFileAtomic(path: string, content: string): void {
  let temp: string | null = null;
  try {
    const target = writeTargetOf(path);
    if (target.mode === "through") {
      fs.writeFileSync(target.path, content);
      return;
    }
    temp = siblingName(target.path, "tmp");
    fs.writeFileSync(temp, content, { flag: "wx" });
    fs.renameSync(temp, target.path);
  } catch (error) {
    if (temp !== null) fs.rmSync(temp, { force: true });
    throw refusal(
      "write-failed",
      { path, why: (error as Error).message, nothingWritten: false },
      { cause: error },
    );
  }
}

/** The file-system calls the set writer makes (tests pass failing ones). */
export type WriteOps = Pick<
  typeof fs,
  | "writeFileSync"
  | "renameSync"
  | "rmSync"
  | "linkSync"
  | "copyFileSync"
  | "statSync"
  | "lstatSync"
  | "realpathSync"
>;

function writeError(path: string, error: unknown): FreezegateError {
  return refusal(
    "write-failed",
    { path, why: (error as Error).message, nothingWritten: true },
    { cause: error },
  );
}

/** Write every file or none (see the module comment for how). */
export function writeFilesAtomically(
  files: ReadonlyArray<{ path: string; content: string }>,
  ops: WriteOps = fs,
): void {
  const staged: Array<{ path: string; temp: string; backup: string | null }> = [];
  // FIFOs, devices and links to them cannot be replaced, only written to: after every
  // temporary file is in place and before any rename, so that a failed write to one (a full
  // device, a closed pipe) still leaves every regular target untouched.
  const through: Array<{ path: string; shown: string; content: string }> = [];
  // Cleaning up must not hide the error that made it necessary (a temporary name the file
  // system refuses cannot be removed either).
  const remove = (path: string) => {
    try {
      ops.rmSync(path, { force: true });
    } catch {
      // nothing was created under that name
    }
  };
  const removeStaged = () => {
    for (const s of staged) {
      remove(s.temp);
      if (s.backup !== null) remove(s.backup);
    }
  };
  for (const file of files) {
    try {
      const target = writeTargetOf(file.path, ops);
      if (target.mode === "through") {
        through.push({ path: target.path, shown: file.path, content: file.content });
        continue;
      }
      let existing: fs.Stats | null = null;
      try {
        existing = ops.statSync(target.path);
      } catch {
        existing = null;
      }
      const entry = {
        path: target.path,
        temp: siblingName(target.path, "tmp"),
        backup: null as string | null,
      };
      staged.push(entry);
      ops.writeFileSync(entry.temp, file.content, { flag: "wx" });
      if (existing !== null) {
        entry.backup = siblingName(target.path, "bak");
        try {
          ops.linkSync(target.path, entry.backup);
        } catch {
          ops.copyFileSync(target.path, entry.backup);
        }
      }
    } catch (error) {
      removeStaged();
      throw writeError(file.path, error);
    }
  }
  for (const t of through) {
    try {
      ops.writeFileSync(t.path, t.content);
    } catch (error) {
      removeStaged();
      throw writeError(t.shown, error);
    }
  }
  let renamed = 0;
  try {
    for (const s of staged) {
      ops.renameSync(s.temp, s.path);
      renamed++;
    }
  } catch (error) {
    for (const s of staged.slice(0, renamed)) {
      try {
        if (s.backup !== null) ops.renameSync(s.backup, s.path);
        else remove(s.path);
      } catch {
        // Best effort: the error below names the write that failed.
      }
    }
    removeStaged();
    throw writeError((staged[renamed] as { path: string }).path, error);
  }
  for (const s of staged) if (s.backup !== null) remove(s.backup);
}
