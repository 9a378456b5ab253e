// The generator lock: narrowing a strategy (max_size=64 -> 4) keeps every
// property green while it stops witnessing. The files that shape what properties generate
// (strategies, conftest, golden fixtures) are fingerprinted into a committed lock file, so a
// change to them shows up as a lock change in the diff a reviewer reads. `lock-moved` when
// those files changed and the lock did not move with them, or when the lock does not match.
//
// Lock file: {"version": 1, "fingerprint": "sha256:<hex>", "files": {"<path>": "sha256:<hex>"}}
// The fingerprint is sha256 over, for each path in byte order of its UTF-8 form, the line
// "<path>\0<file hash>\n"; per-file hashes let a message name what moved. A text file is hashed
// with CRLF read as LF (hashBytes): the lock holds on checkouts of either line ending.

import { createHash } from "node:crypto";
import type { Finding } from "./findings.js";
import { compileGlob } from "./globs.js";
import { jsonValueText } from "./json-text.js";
import { refusal } from "./refusals/index.js";

export const LOCK_VERSION = 1;

export interface LockFile {
  version: number;
  fingerprint: string;
  /** Repository path -> "sha256:<hex>" of its bytes. */
  files: Record<string, string>;
}

const HASH = /^sha256:[0-9a-f]{64}$/;

/**
 * A file's hash as the lock records it: of its text with every CRLF read as LF, so that a
 * checkout that converts line endings (core.autocrlf on Windows) locks what git stores; a
 * file holding a NUL byte is binary and hashed as it is.
 */
export function hashBytes(content: Uint8Array): string {
  const hash = createHash("sha256");
  if (content.includes(0) || !content.includes(13))
    return `sha256:${hash.update(content).digest("hex")}`;
  let start = 0;
  for (let i = content.indexOf(13); i >= 0; i = content.indexOf(13, i + 1)) {
    if (content[i + 1] !== 10) continue;
    hash.update(content.subarray(start, i));
    start = i + 1;
  }
  hash.update(content.subarray(start));
  return `sha256:${hash.digest("hex")}`;
}

function byteOrder(a: string, b: string): number {
  return Buffer.compare(Buffer.from(a, "utf8"), Buffer.from(b, "utf8"));
}

function fingerprintOf(files: Record<string, string>): string {
  const h = createHash("sha256");
  for (const path of Object.keys(files).sort(byteOrder)) h.update(`${path}\0${files[path]}\n`);
  return `sha256:${h.digest("hex")}`;
}

/** The lock for these files (path -> content); an empty set has no lock (nothing to pin). */
export function buildLock(contents: ReadonlyMap<string, Uint8Array>): LockFile {
  if (contents.size === 0) {
    throw refusal("generator-lock-empty", undefined);
  }
  const files: Record<string, string> = {};
  for (const path of [...contents.keys()].sort(byteOrder)) {
    files[path] = hashBytes(contents.get(path) as Uint8Array);
  }
  return { version: LOCK_VERSION, fingerprint: fingerprintOf(files), files };
}

/** Stable text: keys in a fixed order, paths sorted, 2-space indent, trailing newline. */
export function serializeLock(lock: LockFile): string {
  const files: Record<string, string> = {};
  for (const path of Object.keys(lock.files).sort(byteOrder)) {
    files[path] = lock.files[path] as string;
  }
  return `${JSON.stringify({ version: lock.version, fingerprint: lock.fingerprint, files }, null, 2)}\n`;
}

/** Parse a lock file's JSON value; a lock whose fingerprint does not match its own files is refused. */
export function parseLock(value: unknown, label: string): LockFile {
  const bad = (problem: string): never => {
    throw refusal("lock-file-malformed", { label, problem });
  };
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    bad("is not a JSON object");
  }
  const obj = value as Record<string, unknown>;
  for (const key of Object.keys(obj)) {
    if (!["version", "fingerprint", "files"].includes(key)) bad(`has unknown key "${key}"`);
  }
  if (obj.version !== LOCK_VERSION) {
    bad(`has version ${jsonValueText(obj.version)}; this freezegate reads version ${LOCK_VERSION}`);
  }
  if (typeof obj.fingerprint !== "string" || !HASH.test(obj.fingerprint)) {
    bad('has no valid "fingerprint" (sha256:<64 hex digits>)');
  }
  const rawFiles = obj.files;
  if (typeof rawFiles !== "object" || rawFiles === null || Array.isArray(rawFiles)) {
    bad('has no "files" object');
  }
  const files: Record<string, string> = {};
  for (const [path, hash] of Object.entries(rawFiles as Record<string, unknown>)) {
    if (typeof hash !== "string" || !HASH.test(hash)) bad(`has a bad hash for "${path}"`);
    files[path] = hash as string;
  }
  if (Object.keys(files).length === 0) bad("lists no files");
  if (fingerprintOf(files) !== obj.fingerprint) {
    bad("has a fingerprint that does not match its own file hashes (edited by hand?)");
  }
  return { version: LOCK_VERSION, fingerprint: obj.fingerprint as string, files };
}

const GLOB_CHARS = /[*?[]/;

/**
 * The configured entries (paths or globs) as the sorted repository files they name. An entry
 * that names nothing is an error: an empty hash would pin nothing and always pass.
 */
export function resolveLockPaths(
  patterns: readonly string[],
  repoFiles: readonly string[],
): string[] {
  if (patterns.length === 0) {
    throw refusal("generator-lock-unlisted", undefined);
  }
  const known = new Set(repoFiles);
  const out = new Set<string>();
  for (const pattern of patterns) {
    if (GLOB_CHARS.test(pattern)) {
      const match = compileGlob(pattern);
      const hits = repoFiles.filter((f) => match(f));
      if (hits.length === 0) {
        throw refusal("generator-lock-glob-matches-nothing", { glob: pattern });
      }
      for (const h of hits) out.add(h);
    } else {
      const path = pattern.replace(/^\.\//, "");
      if (!known.has(path)) {
        const isDir = repoFiles.some((f) => f.startsWith(`${path.replace(/\/+$/, "")}/`));
        throw isDir
          ? refusal("generator-lock-entry-is-directory", {
              entry: pattern,
              dir: path.replace(/\/+$/, ""),
            })
          : refusal("generator-lock-file-missing", { path: pattern, where: "repository" });
      }
      out.add(path);
    }
  }
  return [...out].sort(byteOrder);
}

export interface LockDifference {
  changed: string[];
  added: string[];
  removed: string[];
}

/** What differs between the stored lock and the files now (by path). */
export function diffLocks(stored: LockFile, current: LockFile): LockDifference {
  const changed: string[] = [];
  const added: string[] = [];
  const removed: string[] = [];
  for (const [path, hash] of Object.entries(current.files)) {
    const was = stored.files[path];
    if (was === undefined) added.push(path);
    else if (was !== hash) changed.push(path);
  }
  for (const path of Object.keys(stored.files)) if (!(path in current.files)) removed.push(path);
  return { changed: changed.sort(byteOrder), added: added.sort(byteOrder), removed };
}

export interface LockCheckInput {
  /** The lock file's repository path (for messages). */
  lockPath: string;
  /** The lock computed from the configured files as they are now. */
  current: LockFile;
  /** The committed lock, or null when there is none. */
  stored: LockFile | null;
  /** With a base: the lock at the merge base and the paths changed in BASE...HEAD. */
  range?: { storedAtBase: LockFile | null; changedFiles: ReadonlySet<string> } | null;
}

function describe(diff: LockDifference): string {
  const parts = [
    diff.changed.length > 0 ? `changed: ${diff.changed.join(", ")}` : "",
    diff.added.length > 0 ? `newly locked: ${diff.added.join(", ")}` : "",
    diff.removed.length > 0 ? `no longer locked: ${diff.removed.join(", ")}` : "",
  ];
  return parts.filter((p) => p !== "").join("; ");
}

export function checkLock(input: LockCheckInput): Finding[] {
  const { lockPath, current, stored, range } = input;
  const finding = (message: string, details: Record<string, unknown>): Finding => ({
    gate: "lock",
    code: "lock-moved",
    severity: "error",
    path: lockPath,
    message,
    details,
  });
  if (stored === null) {
    return [
      finding(
        `there is no lock file ${lockPath}, so the generator files (${Object.keys(current.files).join(", ")}) are not pinned`,
        { files: Object.keys(current.files), stored: null, current: current.fingerprint },
      ),
    ];
  }
  if (range) {
    const moved = range.storedAtBase?.fingerprint !== stored.fingerprint;
    // A file git calls changed whose lock hash is the merge base's (its line ends converted,
    // CRLF to LF) generates what it did: the lock has nothing to move for it.
    const touched = [...new Set([...Object.keys(current.files), ...Object.keys(stored.files)])]
      .filter(
        (p) =>
          range.changedFiles.has(p) &&
          (range.storedAtBase?.files[p] === undefined ||
            range.storedAtBase.files[p] !== current.files[p]),
      )
      .sort(byteOrder);
    if (touched.length > 0 && !moved) {
      return [
        finding(
          `generator file${touched.length === 1 ? "" : "s"} ${touched.join(", ")} changed in this patch, but ${lockPath} did not move with ${touched.length === 1 ? "it" : "them"}`,
          { files: touched, stored: stored.fingerprint, current: current.fingerprint },
        ),
      ];
    }
  }
  if (stored.fingerprint !== current.fingerprint) {
    const diff = diffLocks(stored, current);
    return [
      finding(`${lockPath} does not match the generator files (${describe(diff)})`, {
        ...diff,
        stored: stored.fingerprint,
        current: current.fingerprint,
      }),
    ];
  }
  return [];
}
