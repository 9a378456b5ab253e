// The bundled example ships coverage data so that `npm run demo` needs no Python. This test
// re-records that data with the real pytest-cov and checks that the committed file still
// tells the same story: same contexts, same executed lines, so the demo cannot drift from
// its own source.

import { cpSync } from "node:fs";
import { join } from "node:path";
import { expect, it } from "vitest";
import { openCoverageSqlite } from "../../src/adapters/coverage-sqlite.js";
import { DEMO_DIR } from "../helpers/demo-repo.js";
import { describePython, makeTempDir, runPytestCov } from "../helpers/python.js";

function snapshot(file: string) {
  const source = openCoverageSqlite([file]);
  try {
    const paths = source.measuredPaths().sort();
    const lines = source.executedLines(paths);
    const out: Record<string, Record<string, string[]>> = {};
    for (const path of paths) {
      const byLine: Record<string, string[]> = {};
      for (const [line, names] of [...(lines.get(path) ?? new Map())].sort((a, b) => a[0] - b[0])) {
        byLine[line] = [...names].sort();
      }
      out[path] = byLine;
    }
    return { contexts: source.contextNames().sort(), lines: out };
  } finally {
    source.close();
  }
}

describePython("the demo's committed coverage data", () => {
  it("matches a fresh pytest-cov run on examples/demo/project", () => {
    const dir = makeTempDir("demo-rerecord");
    cpSync(join(DEMO_DIR, "project"), dir, { recursive: true });
    runPytestCov(dir);
    const fresh = snapshot(join(dir, ".coverage"));
    expect(fresh.contexts.length).toBeGreaterThan(1);
    expect(snapshot(join(DEMO_DIR, "project/.coverage"))).toEqual(fresh);
  });
});
