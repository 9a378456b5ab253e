// The SQLite driver layer (src/adapters/sqlite-driver.ts): node:sqlite loaded without its
// experimental warning, and the driver's own problems worded as such, with the Node.js that
// fixes them (never "re-run the tests", which cannot help).

import { afterEach, describe, expect, it } from "vitest";
import {
  checkSqlite,
  hasUnflaggedSqlite,
  loadSqlite,
  sqlite,
} from "../../src/adapters/sqlite-driver.js";
import { EnvironmentError, formatError } from "../../src/core/errors.js";

const SQLITE_WARNING = "SQLite is an experimental feature and might change at any time";
const realEmitWarning = process.emitWarning;
afterEach(() => {
  process.emitWarning = realEmitWarning;
});

describe("loading node:sqlite", () => {
  it("drops exactly Node's SQLite warning while it loads, and nothing after", () => {
    const passed: unknown[][] = [];
    process.emitWarning = ((...args: unknown[]) => {
      passed.push(args);
    }) as typeof process.emitWarning;
    const recorder = process.emitWarning;
    const loaded = loadSqlite(() => {
      // As Node 22 words it, in both of emitWarning's forms.
      process.emitWarning(SQLITE_WARNING, "ExperimentalWarning");
      process.emitWarning(SQLITE_WARNING, { type: "ExperimentalWarning" });
      process.emitWarning("VM Modules is an experimental feature", "ExperimentalWarning");
      process.emitWarning(SQLITE_WARNING, "DeprecationWarning");
      return sqlite();
    }, "v22.13.0");
    expect(typeof loaded.DatabaseSync).toBe("function");
    expect(process.emitWarning).toBe(recorder);
    process.emitWarning(SQLITE_WARNING, "ExperimentalWarning");
    expect(passed).toEqual([
      ["VM Modules is an experimental feature", "ExperimentalWarning"],
      [SQLITE_WARNING, "DeprecationWarning"],
      [SQLITE_WARNING, "ExperimentalWarning"],
    ]);
  });

  const missing = () => {
    throw Object.assign(new Error("No such built-in module: node:sqlite"), {
      code: "ERR_UNKNOWN_BUILTIN_MODULE",
    });
  };

  it("a Node.js without node:sqlite: says so and which Node.js reads the data", () => {
    const error = (() => {
      try {
        loadSqlite(missing, "v20.20.2");
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(EnvironmentError);
    expect(formatError(error as EnvironmentError)).toBe(
      "this Node.js (v20.20.2) has no built-in SQLite module (node:sqlite), which freezegate reads coverage.py data files with (fix: run freezegate on Node.js 22.13.0 or later (24 recommended))",
    );
    expect(process.emitWarning).toBe(realEmitWarning);
  });

  it("a Node.js that has it turned off: says how to turn it on", () => {
    expect(() => loadSqlite(missing, "v24.22.3")).toThrow(
      expect.objectContaining({
        message:
          "this Node.js (v24.22.3) cannot load its built-in SQLite module (node:sqlite), which freezegate reads coverage.py data files with: No such built-in module: node:sqlite",
        fix: "run freezegate without --no-experimental-sqlite (on the node command line or in NODE_OPTIONS)",
      }),
    );
  });

  it.each([
    ["v20.20.2", false],
    ["v22.12.0", false],
    ["v22.13.0", true],
    ["v22.23.5", true],
    ["v23.3.0", false],
    ["v23.4.0", true],
    ["v24.0.0", true],
    ["v26.12.1", true],
  ])("node:sqlite without a flag in %s: %s", (version, expected) => {
    expect(hasUnflaggedSqlite(version)).toBe(expected);
  });
});

describe("the SQLite underneath", () => {
  it("is refused, with its version and the fix, when it has no JSON functions", () => {
    const noJson = {
      prepare: (sql: string) => {
        if (sql.includes("json_each")) throw new Error("no such table: json_each");
        return { get: () => ({ v: "3.37.2" }) };
      },
    } as unknown as Parameters<typeof checkSqlite>[0];
    expect(() => checkSqlite(noJson)).toThrow(
      expect.objectContaining({
        constructor: EnvironmentError,
        message: `this Node.js (${process.version}) is built with a SQLite (3.37.2) without the JSON functions (json_each) that freezegate's queries use`,
        fix: "run freezegate on an official build of Node.js 22.13.0 or later, whose SQLite has them",
      }),
    );
  });

  it("this Node.js's passes", () => {
    const memory = new (sqlite().DatabaseSync)(":memory:");
    expect(() => checkSqlite(memory)).not.toThrow();
    memory.close();
  });
});
