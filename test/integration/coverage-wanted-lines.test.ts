// executedLines(paths, wanted): SQLite picks the rows that touch the wanted lines, and the
// executed-line set comes from the distinct bitmaps / arc ends. Both must agree exactly with
// the full read, on line data and on branch (arc) data made by the real pytest-cov.

import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { openCoverageSqlite } from "../../src/adapters/coverage-sqlite.js";
import { REPO_ROOT } from "../helpers/cli.js";
import { makeTempDir } from "../helpers/python.js";

const FIXTURES = join(REPO_ROOT, "test/fixtures/coverage");

function sortedNames(map: Map<number, string[]> | undefined): Record<number, string[]> {
  const out: Record<number, string[]> = {};
  for (const [line, names] of map ?? []) out[line] = [...names].sort();
  return out;
}

describe.each(["lines.coverage", "branch.coverage"])("%s", (name) => {
  it("gives the wanted lines' tests and every executed line, like the full read", () => {
    const source = openCoverageSqlite([join(FIXTURES, name)]);
    try {
      const paths = source.measuredPaths();
      const full = source.executedLines(paths);
      let checked = 0;
      for (const path of paths) {
        const lines = [...(full.get(path)?.keys() ?? [])].sort((a, b) => a - b);
        // every other executed line, plus a line that never ran and one past the end
        const wanted = new Set([...lines.filter((_, i) => i % 2 === 0), 9999]);
        const part = source.executedLines([path], new Map([[path, wanted]])).get(path);
        const fullNames = sortedNames(full.get(path));
        const partNames = sortedNames(part);
        expect(
          Object.keys(partNames)
            .map(Number)
            .sort((a, b) => a - b),
        ).toEqual(lines);
        for (const line of lines) {
          expect(partNames[line], `${path}:${line}`).toEqual(
            wanted.has(line) ? fullNames[line] : [],
          );
          checked++;
        }
        const none = source.executedLines([path], new Map([[path, new Set<number>()]])).get(path);
        expect([...(none?.keys() ?? [])].sort((a, b) => a - b)).toEqual(lines);
        expect([...(none?.values() ?? [])].every((names) => names.length === 0)).toBe(true);
      }
      expect(checked).toBeGreaterThan(20);
    } finally {
      source.close();
    }
  });

  it("two data files with the same rows read like one (names merged, lines once)", () => {
    const copy = join(makeTempDir("wanted-merge"), ".coverage.copy");
    copyFileSync(join(FIXTURES, name), copy);
    const one = openCoverageSqlite([join(FIXTURES, name)]);
    const two = openCoverageSqlite([join(FIXTURES, name), copy]);
    try {
      const paths = one.measuredPaths();
      for (const path of paths) {
        const lines = [...(one.executedLines([path]).get(path)?.keys() ?? [])];
        const wanted = new Map([[path, new Set(lines.filter((_, i) => i % 3 === 0))]]);
        expect(sortedNames(two.executedLines([path], wanted).get(path)), path).toEqual(
          sortedNames(one.executedLines([path], wanted).get(path)),
        );
        expect(sortedNames(two.executedLines([path]).get(path)), path).toEqual(
          sortedNames(one.executedLines([path]).get(path)),
        );
      }
    } finally {
      one.close();
      two.close();
    }
  });
});

describe("line data", () => {
  it("gives every executed line of a module with more of them than fit a first buffer", () => {
    const copy = join(makeTempDir("wanted-long"), ".coverage");
    copyFileSync(join(FIXTURES, "lines.coverage"), copy);
    const db = new DatabaseSync(copy);
    // One row's bitmap becomes lines 1 to 1,599 (200 bytes of 0xff; bit 0 is line 0, no line).
    const fileId = db.prepare("SELECT file_id FROM line_bits ORDER BY rowid LIMIT 1").get()
      ?.file_id as number;
    db.prepare(
      "UPDATE line_bits SET numbits = ? WHERE rowid = (SELECT min(rowid) FROM line_bits)",
    ).run(Buffer.alloc(200, 0xff));
    const path = db.prepare("SELECT path FROM file WHERE id = ?").get(fileId)?.path as string;
    db.close();
    // The wanted lines first, in a source of their own: nothing has needed room for 1,599
    // lines before.
    const partSource = openCoverageSqlite([copy]);
    const source = openCoverageSqlite([copy]);
    try {
      const wanted = new Map([[path, new Set([3, 1500])]]);
      const part = partSource.executedLines([path], wanted).get(path);
      const full = source.executedLines([path]).get(path);
      expect(full?.size).toBe(1599);
      expect([...(part?.keys() ?? [])].sort((a, b) => a - b)).toEqual(
        [...(full?.keys() ?? [])].sort((a, b) => a - b),
      );
      expect(part?.get(1500)).toEqual(full?.get(1500));
      expect(part?.get(1400)).toEqual([]);
    } finally {
      partSource.close();
      source.close();
    }
  });
});
