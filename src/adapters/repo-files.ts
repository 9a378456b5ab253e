// Files freezegate reads: the inputs a user names (a diff, a frozen list, a ledger, a coverage
// report, an artifact) and the repository's own files (source text of changed files, config
// files, the list of Python files). Every whole-file read goes through one bounded reader:
// only a regular file is read (a named pipe would block for ever, a device never end), and
// never more than INPUT_LIMIT_BYTES of it.

import { execFileSync } from "node:child_process";
import {
  closeSync,
  constants,
  existsSync,
  fstatSync,
  lstatSync,
  openSync,
  readlinkSync,
  readSync,
  realpathSync,
  type Stats,
  statSync,
} from "node:fs";
import { join } from "node:path";
import { FreezegateError, InputError } from "../core/errors.js";
import { parseJsonText } from "../core/json-text.js";
import { refusal } from "../core/refusals/index.js";

/**
 * The most freezegate reads of one input: far above any real diff, ledger, frozen list or
 * report, and far below what would exhaust memory (a JavaScript string holds at most 512 MiB).
 */
/** The most freezegate reads of one input (the input-too-large refusal says 256 MiB). */
export const INPUT_LIMIT_BYTES = 256 * 1024 * 1024;

// Opening a named pipe waits for a writer; opened non-blocking, it returns at once and fstat
// says what it is. For a regular file the flag changes nothing.
const OPEN_FLAGS = constants.O_RDONLY | (constants.O_NONBLOCK ?? 0);

export interface ReadOptions {
  /** How to give the right file, when `path` is missing or not a regular file. */
  fix?: string;
  /** What to do instead when the file is over the limit. */
  tooLargeFix?: string;
}

/** The InputError for an input over the limit (`size`: its size when known). */
export function inputTooLarge(what: string, size: number | null, fix?: string): FreezegateError {
  return refusal("input-too-large", { what, size, fix });
}

function describeNonFile(stat: Stats): string {
  if (stat.isFIFO()) return "a named pipe (FIFO)";
  if (stat.isCharacterDevice()) return "a character device";
  if (stat.isBlockDevice()) return "a block device";
  if (stat.isSocket()) return "a socket";
  return "not a regular file";
}

/** Why `path` could not be opened, as the InputError to throw. */
function openFailure(
  path: string,
  label: string,
  error: unknown,
  opts: ReadOptions,
): FreezegateError {
  const code = (error as NodeJS.ErrnoException).code;
  const details = { cause: error };
  if (code === "ENOENT") {
    const target = linkTarget(path);
    if (target !== null) {
      return refusal("file-link-dangling", { label, path, target }, details);
    }
  }
  if (code === "ENOENT" || code === "ENOTDIR") {
    const underFile = code === "ENOTDIR";
    return refusal("file-not-found", { label, path, underFile, fix: opts.fix }, details);
  }
  if (code === "EACCES" || code === "EPERM") {
    return refusal("file-permission-denied", { label, path }, details);
  }
  if (code === "ELOOP") return refusal("file-link-loop", { label, path }, details);
  return refusal("file-unreadable", { label, path, why: (error as Error).message }, details);
}

/** Where the symbolic link `path` points, or null when `path` is no link. */
export function linkTarget(path: string): string | null {
  try {
    return lstatSync(path).isSymbolicLink() ? readlinkSync(path) : null;
  } catch {
    return null;
  }
}

/**
 * /dev/null reads as empty at once, as a regular empty file does: a CI step's
 * `--diff "${DIFF:-/dev/null}"` is then refused as an empty diff, which it is.
 */
function isNullDevice(stat: Stats): boolean {
  if (!stat.isCharacterDevice() || process.platform === "win32") return false;
  try {
    return statSync("/dev/null").rdev === stat.rdev;
  } catch {
    return false;
  }
}

/**
 * Open a regular file (or /dev/null) for reading: its descriptor and size. Anything else is
 * an InputError.
 */
function openRegularFile(
  path: string,
  label: string,
  opts: ReadOptions,
): { fd: number; size: number } {
  let fd: number;
  try {
    fd = openSync(path, OPEN_FLAGS);
  } catch (error) {
    throw openFailure(path, label, error, opts);
  }
  try {
    const stat = fstatSync(fd);
    if (stat.isDirectory()) {
      throw refusal("file-is-directory", { label, path, fix: opts.fix });
    }
    if (!stat.isFile() && !isNullDevice(stat)) {
      throw refusal("file-not-regular", {
        label,
        path,
        kind: describeNonFile(stat),
        fix: opts.fix,
      });
    }
    return { fd, size: stat.size };
  } catch (error) {
    closeSync(fd);
    if (error instanceof FreezegateError) throw error;
    throw openFailure(path, label, error, opts);
  }
}

/**
 * Read a regular file's bytes, at most INPUT_LIMIT_BYTES of them. A missing, unreadable or
 * oversized file, a directory, a pipe or a device is an InputError naming `label`.
 */
export function readFileBytes(path: string, label: string, opts: ReadOptions = {}): Buffer {
  const { fd, size } = openRegularFile(path, label, opts);
  const tooLarge = (known: number | null) =>
    inputTooLarge(`${label} ${path}`, known, opts.tooLargeFix);
  try {
    if (size > INPUT_LIMIT_BYTES) throw tooLarge(size);
    // The size is a hint: a file may grow while it is read, and some (in /proc) say 0.
    let buffer = Buffer.allocUnsafe(Math.min(size + 1, INPUT_LIMIT_BYTES + 1));
    let length = 0;
    for (;;) {
      if (length === buffer.length) {
        if (length > INPUT_LIMIT_BYTES) throw tooLarge(null);
        const grown = Buffer.allocUnsafe(
          Math.min(Math.max(length * 2, 65536), INPUT_LIMIT_BYTES + 1),
        );
        buffer.copy(grown, 0, 0, length);
        buffer = grown;
      }
      const read = readSync(fd, buffer, length, buffer.length - length, null);
      if (read === 0) break;
      length += read;
    }
    if (length > INPUT_LIMIT_BYTES) throw tooLarge(null);
    return buffer.subarray(0, length);
  } catch (error) {
    if (error instanceof FreezegateError) throw error;
    throw openFailure(path, label, error, opts);
  } finally {
    closeSync(fd);
  }
}

/** The first `length` bytes of a regular file (fewer when it is shorter), to tell its kind. */
export function readFileHead(
  path: string,
  label: string,
  length: number,
  opts: ReadOptions = {},
): Buffer {
  const { fd } = openRegularFile(path, label, opts);
  try {
    const buffer = Buffer.alloc(length);
    return buffer.subarray(0, readSync(fd, buffer, 0, length, 0));
  } catch (error) {
    throw openFailure(path, label, error, opts);
  } finally {
    closeSync(fd);
  }
}

/**
 * All of a stream (stdin), at most INPUT_LIMIT_BYTES: reading stops there, so an endless
 * producer (`yes | ...`) is refused instead of filling memory.
 */
export async function readStreamBytes(
  stream: NodeJS.ReadableStream,
  what: string,
  tooLargeFix?: string,
): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let length = 0;
  for await (const chunk of stream) {
    const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as string);
    length += bytes.length;
    if (length > INPUT_LIMIT_BYTES) throw inputTooLarge(what, null, tooLargeFix);
    chunks.push(bytes);
  }
  return Buffer.concat(chunks, length);
}

/** Read a UTF-8 text file (bounded, see readFileBytes). */
export function readTextFile(path: string, label: string, opts: ReadOptions = {}): string {
  return readFileBytes(path, label, opts).toString("utf8");
}

/**
 * A file's text, or null when there is no such file: nothing at that path (a dangling link
 * included), a file where a directory of the path should be, or a directory. Anything else
 * that keeps it from being read is an InputError, as for readTextFile.
 */
export function readTextIfExists(path: string, label: string): string | null {
  if (nothingAt(path)) return null;
  try {
    return readTextFile(path, label);
  } catch (error) {
    const code = ((error as Error).cause as NodeJS.ErrnoException | undefined)?.code;
    const absent = ["ENOENT", "ENOTDIR", "ENAMETOOLONG", "EISDIR"];
    if (code !== undefined && absent.includes(code)) return null;
    if (error instanceof InputError && isDirectory(path)) return null;
    throw error;
  }
}

/** A file's text, or null when it is missing or cannot be read (no evidence either way). */
export function readTextOrNull(path: string): string | null {
  if (nothingAt(path)) return null;
  try {
    return readTextFile(path, "file");
  } catch (error) {
    if (error instanceof FreezegateError) return null;
    throw error;
  }
}

/**
 * Whether nothing is at `path` (nor at the end of a link from it), asked without building an
 * error: most of the configuration files an audit looks for are absent, and each read of an
 * absent one built two of Node's errors and a refusal only to return null. Any other problem
 * is left to the read, which says what it is.
 */
function nothingAt(path: string): boolean {
  try {
    return statSync(path, { throwIfNoEntry: false }) === undefined;
  } catch {
    return false;
  }
}

/**
 * Read and parse a JSON file; syntax errors name the file and position. A byte-order mark is
 * skipped and a repeated key refused (src/core/json-text.ts), as for JSON read from git.
 */
export function readJsonFile(path: string, label: string, fix?: string): unknown {
  return parseJsonText(readTextFile(path, label), `${label} ${path}`, fix);
}

/** Is there an entry at `path`, even a symbolic link to nothing (which reading then names)? */
export function entryExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/** Python files git knows about or would add (tracked + untracked, not ignored), POSIX paths. */
export function listPythonFiles(root: string): string[] {
  let out: string;
  try {
    // Every file, filtered here: a "*.py" pathspec is no glob when the user's environment sets
    // GIT_LITERAL_PATHSPECS or GIT_NOGLOB_PATHSPECS, and would then list nothing.
    out = execFileSync("git", ["ls-files", "-z", "--cached", "--others", "--exclude-standard"], {
      cwd: root,
      encoding: "utf8",
      maxBuffer: INPUT_LIMIT_BYTES,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOBUFS") {
      throw inputTooLarge("the output of git ls-files", null, "check the repository's size");
    }
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").split("\n")[0];
    throw refusal("git-ls-files-failed", { root, line: stderr ?? "" }, { cause: error });
  }
  return [...new Set(out.split("\0").filter((p) => p.endsWith(".py")))];
}

export function fileExists(path: string): boolean {
  return existsSync(path);
}

/** Is `path` a directory (following links)? */
export function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/** Is there a file (not a directory) at this repository path? */
export function isRepoFile(root: string, repoPath: string): boolean {
  const full = join(root, repoPath);
  return fileExists(full) && !isDirectory(full);
}

/** Is `path` a symbolic link (dangling or not)? */
export function isSymbolicLink(path: string): boolean {
  try {
    return lstatSync(path).isSymbolicLink();
  } catch {
    return false;
  }
}

export function modifiedTime(path: string): Date | null {
  try {
    return statSync(path).mtime;
  } catch {
    return null;
  }
}

/** `path` with its symbolic links resolved; throws as the file system does (no such path). */
export function realPath(path: string): string {
  return realpathSync(path);
}

/** `path` with its symbolic links resolved, or null when that cannot be done (no such path). */
export function realPathOrNull(path: string): string | null {
  try {
    return realpathSync(path);
  } catch {
    return null;
  }
}

/** The spellings of an absolute directory: as given and as resolved through symlinks. */
export function directorySpellings(dir: string): string[] {
  const out = new Set([dir]);
  try {
    out.add(realpathSync(dir));
  } catch {
    // the directory was just found by git; if realpath fails the given spelling still works
  }
  return [...out];
}
