// Files of the work tree the audit reads: source text of changed files, JSON inputs, and the
// list of Python files (to turn test_function context names into node ids and to check that
// node ids name test files that exist).

import { execFileSync } from "node:child_process";
import { existsSync, lstatSync, readFileSync, realpathSync, statSync } from "node:fs";
import { GitError, InputError } from "../core/errors.js";
import { parseJsonText } from "../core/json-text.js";

/** Read a UTF-8 text file; a missing or unreadable file is an InputError naming `label`. */
export function readTextFile(path: string, label: string): string {
  return readFileBytes(path, label).toString("utf8");
}

/** A file's text, or null when it is missing or cannot be read (no evidence either way). */
export function readTextOrNull(path: string): string | null {
  try {
    return readFileSync(path, "utf8");
  } catch {
    return null;
  }
}

/** Read a file's bytes; a missing or unreadable file is an InputError naming `label`. */
export function readFileBytes(path: string, label: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "ENOENT") {
      throw new InputError(`${label} not found: ${path}`, {
        fix: "check the path",
        cause: error,
      });
    }
    if (code === "EISDIR") {
      throw new InputError(`${label} is a directory, not a file: ${path}`, {
        fix: "give the path of a file",
        cause: error,
      });
    }
    throw new InputError(`cannot read ${label} ${path}: ${(error as Error).message}`, {
      fix: "check that the file is readable by this user",
      cause: error,
    });
  }
}

/**
 * Read and parse a JSON file; syntax errors name the file and position. A byte-order mark is
 * skipped and a repeated key refused (src/core/json-text.ts), as for JSON read from git.
 */
export function readJsonFile(path: string, label: string, fix?: string): unknown {
  return parseJsonText(readTextFile(path, label), `${label} ${path}`, fix);
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
      maxBuffer: 256 * 1024 * 1024,
      stdio: ["ignore", "pipe", "pipe"],
    });
  } catch (error) {
    const stderr = String((error as { stderr?: unknown }).stderr ?? "").split("\n")[0];
    throw new GitError(`git ls-files failed in ${root}: ${stderr}`, { cause: error });
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
