// The SQLite driver: Node's built-in `node:sqlite` (no native addon to compile or download),
// loaded on first use, and the database opened read-only. Problems of the driver itself (a
// Node.js without the module, a SQLite without what the queries need) are said here, with
// the Node.js that fixes them; problems of a data file are the caller's to word.

import { createRequire } from "node:module";
import type { DatabaseSync } from "node:sqlite";
import type { FreezegateError } from "../core/errors.js";
import { refusal } from "../core/refusals/index.js";

type Sqlite = typeof import("node:sqlite");

/** The first Node.js 22 whose node:sqlite needs no flag (23.4 in 23.x). */
export const MIN_NODE = "22.13.0";

const requireBuiltin = createRequire(import.meta.url);

/**
 * The one warning dropped: Node.js 22 (and 24 before 24.15) print it on stderr the first time
 * node:sqlite loads. What freezegate uses of the module behaves the same in every Node.js
 * it supports (its tests run on the oldest and the newest), and the warning lands in users'
 * CI logs, where it reads as something wrong with the run. It is filtered only while
 * freezegate itself loads the module, in its own process: no `--no-warnings` or
 * `--disable-warning` that would hide other warnings or reach the processes it starts.
 * Node.js prints each experimental warning once per process, so a program that loads
 * node:sqlite itself after freezegate did would not see it either.
 */
const SQLITE_WARNING = "SQLite is an experimental feature";

let driver: Sqlite | null = null;

/**
 * node:sqlite, loaded on first use, once it has shown that its SQLite has what the queries
 * use (on an in-memory database: a data file's own trouble, a lock say, is not the driver's).
 * An EnvironmentError when this Node.js cannot load it or its SQLite falls short.
 */
export function sqlite(): Sqlite {
  if (driver === null) {
    const loaded = loadSqlite(() => requireBuiltin("node:sqlite") as Sqlite, process.version);
    const memory = new loaded.DatabaseSync(":memory:");
    try {
      checkSqlite(memory);
    } finally {
      memory.close();
    }
    driver = loaded;
  }
  return driver;
}

/** `load()` without node:sqlite's experimental warning; a failure is an EnvironmentError. */
export function loadSqlite(load: () => Sqlite, nodeVersion: string): Sqlite {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    const options = rest[0];
    const type =
      typeof options === "string" ? options : (options as { type?: unknown } | undefined)?.type;
    const text = typeof warning === "string" ? warning : warning.message;
    if (type === "ExperimentalWarning" && text.startsWith(SQLITE_WARNING)) return;
    return (emitWarning as (...args: unknown[]) => void).call(this, warning, ...rest);
  } as typeof process.emitWarning;
  try {
    return load();
  } catch (error) {
    throw driverMissing(nodeVersion, error);
  } finally {
    process.emitWarning = emitWarning;
  }
}

function driverMissing(nodeVersion: string, error: unknown): FreezegateError {
  const reason = error instanceof Error ? error.message : String(error);
  if (!hasUnflaggedSqlite(nodeVersion)) {
    return refusal("node-sqlite-missing", { node: nodeVersion, min: MIN_NODE }, { cause: error });
  }
  return refusal("node-sqlite-turned-off", { node: nodeVersion, why: reason }, { cause: error });
}

/** Whether this Node.js version has node:sqlite without a flag: 22.13+, 23.4+, 24 and later. */
export function hasUnflaggedSqlite(nodeVersion: string): boolean {
  const [major = 0, minor = 0] = nodeVersion.replace(/^v/, "").split(".").map(Number);
  if (major === 22) return minor >= 13;
  if (major === 23) return minor >= 4;
  return major > 23;
}

/**
 * Opens a database read-only. SQLite's own errors (a file that is not a database, locked,
 * corrupt) are the caller's to word.
 */
export function openReadOnly(path: string): DatabaseSync {
  return new (sqlite().DatabaseSync)(path, { readOnly: true });
}

/**
 * An EnvironmentError when this SQLite lacks what freezegate's queries use: the JSON
 * functions, built into SQLite since 3.38 and in every Node.js build, but a Node.js linked
 * against the system's SQLite has that SQLite's.
 */
export function checkSqlite(db: Pick<DatabaseSync, "prepare">): void {
  try {
    db.prepare("SELECT count(*) FROM json_each('[1]')").get();
  } catch (error) {
    let version = "unknown";
    try {
      version = String(db.prepare("SELECT sqlite_version() AS v").get()?.v);
    } catch {
      // the version is only part of the message
    }
    throw refusal(
      "node-sqlite-without-json",
      { node: process.version, version, min: MIN_NODE },
      { cause: error },
    );
  }
}

/** SQLite's extended result code of an error node:sqlite threw, or null for any other error. */
export function sqliteResultCode(error: unknown): number | null {
  const { code, errcode } = (error ?? {}) as { code?: unknown; errcode?: unknown };
  return code === "ERR_SQLITE_ERROR" && typeof errcode === "number" ? errcode : null;
}

/** SQLite's result codes that say a writer is in the way (primary codes, and one extended). */
export const SQLITE_BUSY = 5;
export const SQLITE_LOCKED = 6;
export const SQLITE_READONLY_ROLLBACK = 8 | (3 << 8);
