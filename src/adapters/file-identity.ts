// What a path names on the file system: a regular file (and which one), something else, or
// nothing yet; where its symbolic links lead; and whether two names are one file. The report
// writer's callers ask it before writing, so that a report never replaces an input, and two
// reports never replace each other.

import { fstatSync, lstatSync, readlinkSync, realpathSync, type Stats, statSync } from "node:fs";
import { basename, dirname, join, resolve } from "node:path";

export type Entry =
  /** A regular file; `inode` ("dev:ino") is the same for every name of it. */
  | { kind: "file"; inode: string; size: number }
  | { kind: "directory" }
  /** A FIFO, a device or a socket: written through, never replaced. */
  | { kind: "other" };

/** What `path` names now, symbolic links followed; null when nothing (or a dangling link). */
export function entryAt(path: string): Entry | null {
  let stat: Stats;
  try {
    stat = statSync(path);
  } catch {
    return null;
  }
  if (stat.isFile()) return { kind: "file", inode: `${stat.dev}:${stat.ino}`, size: stat.size };
  return stat.isDirectory() ? { kind: "directory" } : { kind: "other" };
}

/** Whether `path` itself is a regular file: not a link, even to one. */
export function isPlainFile(path: string): boolean {
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

/** Where a chain of symbolic links ends, also when its last link names nothing yet. */
export function linkEnd(path: string): string {
  let end = path;
  for (let hops = 0; hops < 40; hops++) {
    try {
      if (!lstatSync(end).isSymbolicLink()) break;
      end = resolve(dirname(end), readlinkSync(end));
    } catch {
      break;
    }
  }
  return end;
}

/** A path as the file system resolves it (through links), also for a file not made yet. */
export function canonicalPath(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    try {
      return join(realpathSync(dirname(path)), basename(path));
    } catch {
      return resolve(path);
    }
  }
}

/**
 * What a path names, for telling whether two names are one file: an existing regular file's
 * device and inode (symbolic and hard links alike); else the path a link chain ends at, as
 * canonicalPath resolves it (so a link to a report not written yet and that report's own name
 * agree). A device or a pipe is written through, not replaced: /dev/stdout and /dev/stderr
 * may be one pipe and still both get their report.
 */
export function fileIdentity(path: string): string {
  const entry = entryAt(path);
  if (entry !== null) {
    return entry.kind === "file" ? `inode ${entry.inode}` : `path ${canonicalPath(path)}`;
  }
  return `path ${canonicalPath(linkEnd(path))}`;
}

/** Whether `path` is the file or stream this process's stdout writes to. */
export function isOwnStdout(path: string): boolean {
  try {
    const own = fstatSync(1);
    const named = statSync(path);
    return own.dev === named.dev && own.ino === named.ino;
  } catch {
    return false;
  }
}
