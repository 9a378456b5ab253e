// executedLines(paths, wanted): SQLite picks the rows that touch the wanted lines, and the
// executed-line set comes from the distinct bitmaps / arc ends. Both must agree exactly with
// the full read, on line data and on branch (arc) data made by the real pytest-cov.

import { copyFileSync } from "node:fs";
import { join } from "node:path";
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
