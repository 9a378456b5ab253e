// Writing reports and state files so that a reader never sees half of one: write a temporary
// file next to the target, then rename it over the target (atomic on POSIX file systems).
//
// Only a regular file (or a name that does not exist yet) can be replaced that way. A rename
// over a symlink replaces the link, and over a FIFO or a device (`--output /dev/stdout`, as
// root) replaces the node in /dev with a regular file: those are written through instead, a
// symlink to a regular file by replacing the file it points to.

import { randomBytes } from "node:crypto";
import * as fs from "node:fs";
import { basename, dirname, join } from "node:path";
import { InputError } from "../core/errors.js";

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
  return join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.${kind}`,
  );
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
    throw new InputError(`cannot write ${path}: ${(error as Error).message}`, {
      fix: "check that the directory exists and is writable",
      cause: error,
    });
  }
}
