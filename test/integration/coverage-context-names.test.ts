// Context names are read from the data file in one query and split on a separator when the
// ids are 1..n (as coverage.py writes them); a name holding the separator, or sparse ids, must
// send the reader down the row-by-row path with every name, and every line's tests, intact.

import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import Database from "better-sqlite3";
import { describe, expect, it } from "vitest";
import { openCoverageSqlite } from "../../src/adapters/coverage-sqlite.js";
import { REPO_ROOT } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/python.js";

const FIXTURE = join(REPO_ROOT, "test/fixtures/coverage/lines.coverage");
const expected = JSON.parse(
  readFileSync(join(REPO_ROOT, "test/fixtures/coverage/lines.expected.json"), "utf8"),
) as { contexts: string[] };

/** The context the tests below rename, and the fixture's names with it renamed. */
const RENAMED = "tests/test_format.py::test_format_amount_eur|run";
const renamedIn = (names: readonly string[], to: string) =>
  names.map((n) => (n === RENAMED ? to : n)).sort();

/** A copy of the fixture with RENAMED's name changed to `to` (after `edit`, if given). */
function copyWithRenamed(to: string, edit: (db: Database.Database) => void = () => {}): string {
  const file = join(makeTempDir("ctx-names"), ".coverage");
  copyFileSync(FIXTURE, file);
  const db = new Database(file);
  edit(db);
  db.prepare("UPDATE context SET context = ? WHERE context = ?").run(to, RENAMED);
  db.close();
  return file;
}

describe("context names", () => {
  it("reads every name exactly (one query)", () => {
    const source = openCoverageSqlite([FIXTURE]);
    try {
      expect(source.contextNames().sort()).toEqual([...expected.contexts].sort());
    } finally {
      source.close();
    }
  });

  it("reads non-ASCII and comma-laden names exactly", () => {
    const renamed = "tests/test_format.py::test_format[é,x]|run";
    const file = copyWithRenamed(renamed);
    const source = openCoverageSqlite([file]);
    try {
      const names = source.contextNames();
      expect(names).toContain(renamed);
      expect(names.sort()).toEqual(renamedIn(expected.contexts, renamed));
      const lines = source.executedLines(source.measuredPaths());
      const all = [...lines.values()].flatMap((m) => [...m.values()].flat());
      expect(all).toContain(renamed);
    } finally {
      source.close();
    }
  });

  function linesByName(file: string): Record<string, string[]> {
    const source = openCoverageSqlite([file]);
    try {
      const out: Record<string, string[]> = {};
      for (const [path, lines] of source.executedLines(source.measuredPaths())) {
        for (const [line, names] of lines) out[`${path}:${line}`] = [...names].sort();
      }
      return out;
    } finally {
      source.close();
    }
  }

  it.each([true, false])(
    "a name holding the separator is read row by row (sparse ids: %s)",
    (sparse) => {
      const original = linesByName(FIXTURE);
      expect(Object.keys(original).length).toBeGreaterThan(20);
      const odd = "tests/test_format.py::test_format[a\u0001b]|run";
      const file = copyWithRenamed(odd, (db) => {
        if (!sparse) return;
        // ids 2, 4, 6, ... instead of 1, 2, 3, ...; the line rows follow
        db.pragma("foreign_keys = OFF");
        db.exec("UPDATE context SET id = id + 100000");
        db.exec("UPDATE context SET id = (id - 100000) * 2");
        db.exec("UPDATE line_bits SET context_id = context_id + 100000");
        db.exec("UPDATE line_bits SET context_id = (context_id - 100000) * 2");
      });
      const source = openCoverageSqlite([file]);
      try {
        expect(source.contextNames().sort()).toEqual(renamedIn(expected.contexts, odd));
      } finally {
        source.close();
      }
      const want = Object.fromEntries(
        Object.entries(original).map(([key, names]) => [key, renamedIn(names, odd)]),
      );
      expect(linesByName(file)).toEqual(want);
    },
  );

  it.each([
    ["NULL", "NULL"],
    ["a blob", "X'74657374'"],
  ])("a context name that is %s is a malformed table, exit 2", (_what, value) => {
    const dir = makeTempDir("ctx-bad");
    const file = join(dir, ".coverage");
    copyFileSync(FIXTURE, file);
    const db = new Database(file);
    db.exec(`UPDATE context SET context = ${value} WHERE id = (SELECT max(id) FROM context)`);
    db.close();
    const source = openCoverageSqlite([file]);
    try {
      expect(() => source.contextNames()).toThrow(
        `${file} has a malformed row in its context table`,
      );
    } finally {
      source.close();
    }
  });
});
