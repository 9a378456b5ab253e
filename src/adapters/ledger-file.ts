// The ledger file on disk: reading it, and changing it safely when several freezegate
// processes run at once (two agents freezing tests in the same checkout, a CI retry).
//
// A change is: take `<ledger>.lock` (created exclusively, holding pid, host, time and a
// token), re-read the ledger INSIDE the lock (so no writer works from a stale copy), apply
// the change, write a temporary file in the same directory, fsync it, check the lock is still
// ours, rename it over the ledger, release the lock. A reader therefore sees the old or the
// new ledger, never half of one, and concurrent writers never lose each other's entries.
// A lock whose process is gone (killed mid-write) is broken once it is older than
// STALE_LOCK_MS, together with the temporary files that process left.

import { randomBytes } from "node:crypto";
import {
  closeSync,
  fsyncSync,
  linkSync,
  lstatSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  writeSync,
} from "node:fs";
import { hostname } from "node:os";
import { basename, dirname, join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { FreezegateError } from "../core/errors.js";
import { parseJsonText } from "../core/json-text.js";
import { emptyLedger, parseLedger, serializeLedger } from "../core/ledger.js";
import type { Ledger } from "../core/ledger-model.js";
import { refusal } from "../core/refusals/index.js";
import { entryExists, readTextFile } from "./repo-files.js";

/** How long a writer waits for the lock before giving up. */
export const LOCK_TIMEOUT_MS = 10_000;
/** A lock at least this old whose process is dead may be broken. */
export const STALE_LOCK_MS = 30_000;

export interface LockOptions {
  timeoutMs?: number;
  staleMs?: number;
}

export interface UpdateOptions {
  /** Start from an empty ledger (default policy) when the file does not exist. */
  createIfMissing?: boolean;
  lock?: LockOptions;
  /**
   * Test hook: awaited after the temporary file is written and fsynced, before the rename.
   * The CLI wires it to the hidden env var FREEZEGATE_TEST_HOLD_BEFORE_RENAME so a test can
   * kill a writer at exactly that point; nothing else uses it.
   */
  beforeRename?: (tempPath: string) => Promise<void>;
}

export interface LedgerUpdate {
  /** The ledger as read inside the lock (null when it did not exist). */
  before: Ledger | null;
  /** What the change returned (null: it declined, nothing was written). */
  after: Ledger | null;
  written: boolean;
}

const LEDGER_FIX =
  "check --ledger (or the ledger config key), or create it with freezegate freeze or freezegate ledger migrate";

/** Read and parse a ledger file (any readable format). */
export function readLedgerFile(path: string): Ledger {
  // A repository with only a quarantine list has no ledger yet: the fix says how to get one.
  const text = readTextFile(path, "ledger", { fix: LEDGER_FIX });
  const value = parseJsonText(
    text,
    `ledger ${path}`,
    "fix the JSON syntax; the ledger must be one JSON object",
  );
  return parseLedger(value, path);
}

function readLedgerIfExists(path: string): Ledger | null {
  // A dangling link is not "no ledger": reading it says where it points.
  return entryExists(path) ? readLedgerFile(path) : null;
}

/**
 * Apply `change` to the ledger at `path` under the lock. `change` sees the ledger as it is
 * inside the lock and returns the new ledger, or null to write nothing (a refusal). Errors
 * thrown by `change` propagate after the lock is released; the file is untouched.
 */
/**
 * A ledger that is a symbolic link is not written: the new file would be renamed over the
 * link, which silently turns it into a regular file (the gates refuse such a ledger anyway).
 */
function refuseLinkedLedger(path: string): void {
  let target: string;
  try {
    if (!lstatSync(path).isSymbolicLink()) return;
    target = readlinkSync(path);
  } catch {
    return; // absent: created as a regular file
  }
  throw refusal("ledger-is-link", { path, target });
}

export async function updateLedgerFile(
  path: string,
  change: (current: Ledger) => Ledger | null,
  opts: UpdateOptions = {},
): Promise<LedgerUpdate> {
  refuseLinkedLedger(path);
  return withLedgerLock(path, opts.lock ?? {}, async (lock) => {
    const before = readLedgerIfExists(path);
    if (before === null && !opts.createIfMissing) {
      throw refusal("ledger-not-found", { path });
    }
    const after = change(before ?? emptyLedger());
    if (after === null) return { before, after, written: false };
    await writeLedgerText(path, serializeLedger(after), lock, opts.beforeRename);
    return { before, after, written: true };
  });
}

/**
 * Write `ledger` to `path` under the lock, whatever is there (migrate). `mayReplace` sees
 * whether a file exists and may throw to refuse.
 */
export async function replaceLedgerFile(
  path: string,
  ledger: Ledger,
  mayReplace: (exists: boolean) => void,
  opts: Pick<UpdateOptions, "lock" | "beforeRename"> = {},
): Promise<void> {
  refuseLinkedLedger(path);
  await withLedgerLock(path, opts.lock ?? {}, async (lock) => {
    let exists = true;
    try {
      statSync(path);
    } catch {
      exists = false;
    }
    mayReplace(exists);
    await writeLedgerText(path, serializeLedger(ledger), lock, opts.beforeRename);
  });
}

// ---------------------------------------------------------------------------------------------
// The lock.

interface LockRecord {
  pid: number;
  host: string;
  time: number;
  token: string;
}

interface HeldLock {
  path: string;
  token: string;
}

async function withLedgerLock<T>(
  ledgerPath: string,
  opts: LockOptions,
  body: (lock: HeldLock) => Promise<T>,
): Promise<T> {
  const lock = await acquireLock(`${ledgerPath}.lock`, ledgerPath, opts);
  try {
    return await body(lock);
  } finally {
    releaseLock(lock);
  }
}

async function acquireLock(
  lockPath: string,
  ledgerPath: string,
  opts: LockOptions,
): Promise<HeldLock> {
  const timeoutMs = opts.timeoutMs ?? LOCK_TIMEOUT_MS;
  const staleMs = opts.staleMs ?? STALE_LOCK_MS;
  const token = `${process.pid}.${randomBytes(8).toString("hex")}`;
  const record: LockRecord = { pid: process.pid, host: hostname(), time: Date.now(), token };
  const started = Date.now();
  let delay = 5;
  for (;;) {
    record.time = Date.now();
    if (tryCreateLock(lockPath, record)) return { path: lockPath, token };
    const holder = readLock(lockPath);
    if (holder !== null && isStale(holder, staleMs)) {
      breakStaleLock(lockPath, holder, ledgerPath);
      continue;
    }
    if (Date.now() - started >= timeoutMs) {
      const owner = holder?.record;
      const who = owner
        ? `process ${owner.pid} on ${owner.host} since ${new Date(owner.time).toISOString()}`
        : "a lock file without a readable owner";
      throw refusal("ledger-locked", {
        ledger: ledgerPath,
        who,
        lock: lockPath,
        seconds: Math.round(timeoutMs / 1000),
      });
    }
    // Exponential backoff with jitter, so twenty waiting writers do not retry in lockstep.
    await sleep(delay + Math.floor(Math.random() * delay));
    delay = Math.min(delay * 2, 200);
  }
}

function tryCreateLock(lockPath: string, record: LockRecord): boolean {
  let fd: number;
  try {
    fd = openSync(lockPath, "wx");
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === "EEXIST") return false;
    throw refusal(
      "ledger-lock-failed",
      { action: "create", lock: lockPath, why: (error as Error).message },
      { cause: error },
    );
  }
  try {
    writeSync(fd, JSON.stringify(record));
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
  return true;
}

interface SeenLock {
  /** The parsed content, or null when it is empty or unreadable (a writer died creating it). */
  record: LockRecord | null;
  text: string;
  mtimeMs: number;
}

function readLock(lockPath: string): SeenLock | null {
  try {
    const mtimeMs = statSync(lockPath).mtimeMs;
    const text = readFileSync(lockPath, "utf8");
    return { record: parseLockRecord(text), text, mtimeMs };
  } catch (error) {
    // Released between our attempt and this read: simply try again.
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw refusal(
      "ledger-lock-failed",
      { action: "read", lock: lockPath, why: (error as Error).message },
      { cause: error },
    );
  }
}

function parseLockRecord(text: string): LockRecord | null {
  try {
    const value = JSON.parse(text) as Partial<LockRecord>;
    if (
      typeof value.pid === "number" &&
      typeof value.host === "string" &&
      typeof value.time === "number" &&
      typeof value.token === "string"
    ) {
      return value as LockRecord;
    }
  } catch {
    // empty or half-written: judged by the file's age alone
  }
  return null;
}

function isStale(seen: SeenLock, staleMs: number): boolean {
  const now = Date.now();
  if (seen.record === null) return now - seen.mtimeMs >= staleMs;
  // Another host's pid means nothing here: such a lock is never broken automatically.
  if (seen.record.host !== hostname()) return false;
  const time = Math.max(seen.record.time, seen.mtimeMs);
  return now - time >= staleMs && !processAlive(seen.record.pid);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: it exists but belongs to someone else.
    return (error as NodeJS.ErrnoException).code !== "ESRCH";
  }
}

/**
 * Move the stale lock aside (atomic), then make sure what was moved is the lock judged stale:
 * if another process broke it first and already holds a fresh lock, put that one back.
 */
function breakStaleLock(lockPath: string, seen: SeenLock, ledgerPath: string): void {
  const aside = `${lockPath}.stale.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    renameSync(lockPath, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return;
    throw refusal(
      "ledger-lock-failed",
      { action: "break", lock: lockPath, why: (error as Error).message },
      { cause: error },
    );
  }
  let moved = "";
  try {
    moved = readFileSync(aside, "utf8");
  } catch {
    // unreadable: treat as the stale one
    moved = seen.text;
  }
  if (moved !== seen.text) {
    try {
      linkSync(aside, lockPath);
    } catch {
      // A third process took the lock meanwhile; the displaced holder will notice before it
      // renames (it checks its token) and fail without writing.
    }
    rmSync(aside, { force: true });
    return;
  }
  rmSync(aside, { force: true });
  if (seen.record !== null) removeTempFiles(ledgerPath, seen.record.pid);
}

/** Temporary files a dead writer left next to the ledger (`.<name>.<pid>.<hex>.tmp`). */
function removeTempFiles(ledgerPath: string, pid: number): void {
  const dir = dirname(ledgerPath);
  const prefix = `.${basename(ledgerPath)}.${pid}.`;
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(prefix) && name.endsWith(".tmp")) rmSync(join(dir, name), { force: true });
  }
}

function stillHeld(lock: HeldLock): boolean {
  try {
    return parseLockRecord(readFileSync(lock.path, "utf8"))?.token === lock.token;
  } catch {
    return false;
  }
}

function releaseLock(lock: HeldLock): void {
  // Never remove a lock that is no longer ours (it was broken and re-taken by someone else).
  if (stillHeld(lock)) rmSync(lock.path, { force: true });
}

// ---------------------------------------------------------------------------------------------
// The write.

async function writeLedgerText(
  path: string,
  text: string,
  lock: HeldLock,
  beforeRename?: (tempPath: string) => Promise<void>,
): Promise<void> {
  const temp = join(
    dirname(path),
    `.${basename(path)}.${process.pid}.${randomBytes(4).toString("hex")}.tmp`,
  );
  try {
    const fd = openSync(temp, "wx");
    try {
      writeSync(fd, text);
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (beforeRename) await beforeRename(temp);
    if (!stillHeld(lock)) {
      throw refusal("ledger-lock-lost", { lock: lock.path });
    }
    renameSync(temp, path);
  } catch (error) {
    rmSync(temp, { force: true });
    if (error instanceof FreezegateError) throw error;
    throw refusal(
      "write-failed",
      { what: "the ledger", path, why: (error as Error).message, nothingWritten: false },
      { cause: error },
    );
  }
  syncDirectory(dirname(path));
}

/** Make the rename itself durable; not every platform lets a directory be fsynced. */
function syncDirectory(dir: string): void {
  let fd: number | undefined;
  try {
    fd = openSync(dir, "r");
    fsyncSync(fd);
  } catch {
    // best effort
  } finally {
    if (fd !== undefined) closeSync(fd);
  }
}
