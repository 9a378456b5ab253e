// Context names are read from the data file in one query and split on a separator when the
// ids are 1..n (as coverage.py writes them); a name holding the separator, or sparse ids, must
// send the reader down the row-by-row path with every name, and every line's tests, intact.

import { copyFileSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { openCoverageSqlite } from "../../src/adapters/coverage-sqlite.js";
import { isPlainTestId } from "../../src/runners/pytest/context-names.js";
import { indexContexts } from "../../src/runners/pytest/contexts.js";
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
function copyWithRenamed(to: string, edit: (db: DatabaseSync) => void = () => {}): string {
  const file = join(makeTempDir("ctx-names"), ".coverage");
  copyFileSync(FIXTURE, file);
  const db = new DatabaseSync(file);
  edit(db);
  db.prepare("UPDATE context SET context = ? WHERE context = ?").run(to, RENAMED);
  db.close();
  return file;
}

/** A copy of the fixture changed by `sql` (foreign keys off, as coverage.py leaves them). */
function editedCopy(sql: string): string {
  const file = join(makeTempDir("ctx-edited"), ".coverage");
  copyFileSync(FIXTURE, file);
  const db = new DatabaseSync(file);
  db.exec("PRAGMA foreign_keys = OFF");
  db.exec(sql);
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
        db.exec("PRAGMA foreign_keys = OFF");
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
    const db = new DatabaseSync(file);
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

// The audit's overview of the context table (contextOverview): one SQL scan classifies the
// names, names are then read by id for the lines that need them. It must agree with reading
// every name, on real pytest-cov data and on names built to sit on each rule's edge.
describe("context overview", () => {
  const PHASE = /\|(run|setup|teardown)$/;
  const isPlainName = (name: string) => PHASE.test(name) && isPlainTestId(name.replace(PHASE, ""));
  const sortedLines = (map: Map<number, string[]> | undefined) =>
    Object.fromEntries([...(map ?? [])].map(([line, names]) => [line, [...names].sort()]));

  it.each(["lines.coverage", "branch.coverage"])(
    "sums up %s as the full name list does, and reads lines' names by id alike",
    (fixture) => {
      const file = join(REPO_ROOT, "test/fixtures/coverage", fixture);
      const lazy = openCoverageSqlite([file]);
      const eager = openCoverageSqlite([file]);
      try {
        const names = eager.contextNames();
        const overview = lazy.contextOverview();
        expect(overview).not.toBeNull();
        if (overview === null) return;
        expect(overview.plainNames).toBe(names.filter(isPlainName).length);
        expect(overview.plainNames).toBe(24);
        expect(overview.plainTests).toBe(8);
        expect(overview.others).toEqual([""]);
        const index = indexContexts(names, new Map());
        const asked = [...index.testIds, "tests/test_tax.py::test_rate", "tests/test_tax.py", ""];
        expect([...overview.knownTests(asked)].sort()).toEqual([...index.testIds].sort());

        const paths = eager.measuredPaths();
        for (const path of paths) {
          const all = [...(eager.executedLines([path]).get(path)?.keys() ?? [])];
          const wanted = new Map([[path, new Set(all.filter((_, i) => i % 2 === 1))]]);
          expect(sortedLines(lazy.executedLines([path], wanted).get(path)), path).toEqual(
            sortedLines(eager.executedLines([path], wanted).get(path)),
          );
        }
        // Every name can still be had, and then every line's.
        expect(lazy.contextNames().sort()).toEqual([...names].sort());
        const everything = lazy.executedLines(paths);
        for (const path of paths) {
          expect(sortedLines(everything.get(path))).toEqual(
            sortedLines(eager.executedLines([path]).get(path)),
          );
        }
      } finally {
        lazy.close();
        eager.close();
      }
    },
  );

  // Each name replaces one plain name of the fixture; SQLite's classification must be the
  // one isPlainTestId gives (so the count moves by exactly that).
  it.each([
    ["tests/a.py::t|run", true],
    ["tests/a.py::t[p|q]|setup", true],
    ["tests/a.py::T::t[a::b|c]|teardown", true],
    ["tests/é.py::t[€|😀]|run", true],
    ["a::b|run", true],
    ["tests/a.py::t[a|b::c]|run", true],
    ["a:::t|run", true],
    [":::t|run", false],
    ["::a::t|run", false],
    ["|a::t|run", false],
    ["a::t||run", true],
    ["::t|run", false],
    ["x|::t|run", false],
    ["shard|tests/a.py::t|run", false],
    ["tests/a.py::t|call", false],
    ["tests/a.py::t|Run", false],
    ["tests/a.py::t|run|x", false],
    ["tests/a.py::t|", false],
    ["tests/a.py|run", false],
    ["tests/a.py::t|runs", false],
  ])("classifies %j as plain: %s", (name, plain) => {
    expect(isPlainName(name)).toBe(plain);
    const source = openCoverageSqlite([copyWithRenamed(name)]);
    try {
      const overview = source.contextOverview();
      if (plain) {
        expect(overview?.plainNames).toBe(24);
        expect(overview?.others).toEqual([""]);
        const id = name.replace(PHASE, "");
        expect([...(overview?.knownTests([id, `${id}x`]) ?? [])]).toEqual([id]);
      } else {
        expect(overview?.plainNames).toBe(23);
        expect(overview?.others).toEqual(["", name]);
      }
    } finally {
      source.close();
    }
  });

  it.each([
    ["no other name", `UPDATE context SET context = 'tests/a.py::t|run' WHERE context = ''`, []],
    [
      "one other name, not the empty one",
      `UPDATE context SET context = 'x' WHERE context = ''`,
      ["x"],
    ],
    [
      "several, in id order",
      `UPDATE context SET context = 'b' WHERE context = '';
       UPDATE context SET context = 'a' WHERE context = '${RENAMED}'`,
      ["b", "a"], // the empty name came first
    ],
  ])("lists the names that are not plain: %s", (_, sql, others) => {
    const file = editedCopy(sql);
    const lazy = openCoverageSqlite([file]);
    const eager = openCoverageSqlite([file]);
    try {
      const overview = lazy.contextOverview();
      expect(overview?.others).toEqual(others);
      const names = eager.contextNames();
      expect(overview?.plainNames).toBe(names.filter(isPlainName).length);
      expect(overview?.plainNames).toBe(names.length - others.length);
    } finally {
      lazy.close();
      eager.close();
    }
  });

  it("counts a test once whatever phases it has, and a setup-only test too", () => {
    const source = openCoverageSqlite([
      copyWithRenamed("tests/test_new.py::test_setup_only|setup"),
    ]);
    try {
      // RENAMED was test_format_amount_eur's run name: that test keeps its setup and
      // teardown names, and a ninth test appears with only a setup name.
      expect(source.contextOverview()).toMatchObject({ plainNames: 24, plainTests: 9 });
    } finally {
      source.close();
    }
  });

  it("counts tests from run names alone when there are no other phases", () => {
    // Drop the setup and teardown contexts and number the rest 1..n again, as coverage.py
    // would have written them.
    const file = editedCopy(`
      DELETE FROM line_bits WHERE context_id IN
        (SELECT id FROM context WHERE context GLOB '*|setup' OR context GLOB '*|teardown');
      DELETE FROM context WHERE context GLOB '*|setup' OR context GLOB '*|teardown';
      CREATE TEMP TABLE renumber AS
        SELECT id AS old, row_number() OVER (ORDER BY id) AS new FROM context;
      UPDATE context SET id = id + 100000;
      UPDATE context SET id = (SELECT new FROM renumber WHERE old = context.id - 100000);
      UPDATE line_bits SET context_id = context_id + 100000;
      UPDATE line_bits SET context_id =
        (SELECT new FROM renumber WHERE old = line_bits.context_id - 100000);
    `);
    const source = openCoverageSqlite([file]);
    try {
      expect(source.contextOverview()).toMatchObject({ plainNames: 8, plainTests: 8 });
      const paths = source.measuredPaths();
      const lines = source.executedLines(paths);
      const tests = new Set([...lines.values()].flatMap((m) => [...m.values()].flat()));
      expect([...tests].every((name) => name === "" || name.endsWith("|run"))).toBe(true);
      expect(tests.size).toBeGreaterThan(4);
    } finally {
      source.close();
    }
  });

  it.each([
    [
      "sparse ids",
      "UPDATE context SET id = id + 100000; UPDATE context SET id = (id - 100000) * 2",
    ],
    [
      "a name holding NUL",
      "UPDATE context SET context = CAST(X'610062' AS TEXT) WHERE context = ''",
    ],
    ["a name that is NULL", "UPDATE context SET context = NULL WHERE context = ''"],
    ["no contexts", "DELETE FROM context"],
    ["a name that is a blob", "UPDATE context SET context = X'74657374' WHERE context = ''"],
  ])("has no overview for %s (every name is read instead)", (_what, sql) => {
    const source = openCoverageSqlite([editedCopy(sql)]);
    try {
      expect(source.contextOverview()).toBeNull();
    } finally {
      source.close();
    }
  });

  it("matches frozen ids byte for byte even where the column compares without case", () => {
    const file = editedCopy(`
      CREATE TABLE context2 (id integer primary key, context text COLLATE NOCASE, unique (context));
      INSERT INTO context2 SELECT id, context FROM context;
      DROP TABLE context;
      ALTER TABLE context2 RENAME TO context;
    `);
    const source = openCoverageSqlite([file]);
    try {
      const overview = source.contextOverview();
      expect(overview?.plainTests).toBe(8);
      const exact = "tests/test_tax.py::test_rate_for";
      expect([...(overview?.knownTests([exact, exact.toUpperCase()]) ?? [])]).toEqual([exact]);
    } finally {
      source.close();
    }
  });

  it("has no overview for several data files (their ids must be merged by name)", () => {
    const copy = join(makeTempDir("ctx-overview-two"), ".coverage.b");
    copyFileSync(FIXTURE, copy);
    const source = openCoverageSqlite([FIXTURE, copy]);
    try {
      expect(source.contextOverview()).toBeNull();
      expect(source.contextNames().sort()).toEqual([...expected.contexts].sort());
    } finally {
      source.close();
    }
  });
});
