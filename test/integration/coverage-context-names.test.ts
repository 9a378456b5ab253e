// Context names are read from the data file in one packed query when they are ASCII (the
// common case: pytest-cov escapes non-ASCII in node ids); any other name must send the
// reader down the row-by-row path with every name intact.

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

describe("context names", () => {
  it("reads every ASCII name exactly (packed path)", () => {
    const source = openCoverageSqlite([FIXTURE]);
    try {
      expect(source.contextNames().sort()).toEqual([...expected.contexts].sort());
    } finally {
      source.close();
    }
  });

  it("reads non-ASCII and comma-laden names exactly (row path)", () => {
    const dir = makeTempDir("ctx-names");
    const file = join(dir, ".coverage");
    copyFileSync(FIXTURE, file);
    const db = new Database(file);
    const renamed = "tests/test_format.py::test_format[é,x]|run";
    db.prepare("UPDATE context SET context = ? WHERE context = ?").run(
      renamed,
      "tests/test_format.py::test_format_amount_eur|run",
    );
    db.close();
    const source = openCoverageSqlite([file]);
    try {
      const names = source.contextNames();
      expect(names).toContain(renamed);
      expect(names.sort()).toEqual(
        expected.contexts
          .map((n) => (n === "tests/test_format.py::test_format_amount_eur|run" ? renamed : n))
          .sort(),
      );
      const lines = source.executedLines(source.measuredPaths());
      const all = [...lines.values()].flatMap((m) => [...m.values()].flat());
      expect(all).toContain(renamed);
    } finally {
      source.close();
    }
  });
});
