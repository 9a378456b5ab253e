// statementNear answers a line from the top-level statement that holds it, and leaves every
// other shape to the full model. Its answers must be the full model's on every line, asked in
// any order: over the statement cases, the dead-code corpus and the whole of Debian's Python
// 3.11 standard library (skipped loudly without it; a failure under CI=true).

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { splitLines } from "../../src/core/stale.js";
import {
  analyzePython,
  findPythonStatements,
  type PythonLines,
} from "../../src/languages/python/statements.js";
import { STATEMENT_CASES } from "../fixtures/statements/cases.js";
import { stdlibModules } from "../helpers/stdlib.js";

const DEAD_CODE = join(__dirname, "../fixtures/statements/dead-code.py");

/** A fixed shuffle (the units are analysed in the order lines ask for them). */
function shuffled(count: number, seed: number): number[] {
  const lines = Array.from({ length: count + 2 }, (_, i) => i);
  let state = seed;
  for (let i = lines.length - 1; i > 0; i--) {
    state = (state * 1103515245 + 12345) % 2147483648;
    const j = state % (i + 1);
    [lines[i], lines[j]] = [lines[j] as number, lines[i] as number];
  }
  return lines;
}

/** Counts on `lines`' full model: whether anything (statementNear too) has asked for it since. */
function watchFullModel(lines: PythonLines): () => boolean {
  let built = false;
  const statements = lines.statements.bind(lines);
  lines.statements = () => {
    built = true;
    return statements();
  };
  return () => built;
}

/** Compares every line; returns whether statementNear needed the full model. */
function expectSameAsFull(source: string, label: string, seed = 7): boolean {
  const full = findPythonStatements(source, { path: label });
  const near = analyzePython(source, { path: label });
  const fullBuilt = watchFullModel(near);
  const count = splitLines(source).length;
  const differing: string[] = [];
  for (const line of shuffled(count, seed)) {
    const want = full.statementOf(line);
    const got = near.statementNear(line);
    if (got !== want) differing.push(`line ${line}: ${got} instead of ${want}`);
  }
  expect(differing, label).toEqual([]);
  return fullBuilt();
}

describe("statementNear", () => {
  it("answers as the full model on every statement case", () => {
    for (const c of STATEMENT_CASES) expectSameAsFull(c.source, c.name);
  });

  it("answers as the full model on the dead-code corpus, in several orders", () => {
    const source = readFileSync(DEAD_CODE, "utf8");
    for (const seed of [1, 2, 3]) expectSameAsFull(source, "dead-code.py", seed);
  });

  it("answers as the full model on every line of the standard library", () => {
    const files = stdlibModules("statementNear");
    if (files === null) return;
    expect(files.length).toBeGreaterThan(500);
    let compared = 0;
    let withoutFull = 0;
    for (const file of files) {
      const source = readFileSync(file, "utf8");
      let fullBuilt: boolean;
      try {
        fullBuilt = expectSameAsFull(source, file);
      } catch (error) {
        // A file the finder refuses (a Python 2 test fixture, a foreign encoding) is refused
        // the same way by both; anything else is a real difference.
        const message = String(error);
        if (!/InputError|cannot read|syntax|encoding/i.test(message)) throw error;
        expect(() => findPythonStatements(source, { path: file })).toThrow();
        continue;
      }
      compared++;
      if (!fullBuilt) withoutFull++;
    }
    console.log(`statementNear: ${compared} files compared, ${withoutFull} without the full model`);
    expect(compared).toBeGreaterThan(500);
    // Most modules are imports, defs and classes: answered without the full model.
    expect(withoutFull / compared).toBeGreaterThan(0.3);
  }, 120_000);

  it("reads only the statement that holds the line in a module of imports and defs", () => {
    const source = [
      '"""Doc."""',
      "from __future__ import annotations",
      "import os",
      "",
      "@decorate",
      "def f(x: int) -> int:",
      "    return x",
      "    y = 1",
      "",
      "class C:",
      "    z: int",
      "    def g(self):",
      "        pass",
      "",
      "def h():",
      "    raise ValueError",
      "    def dead():",
      "        return 1",
      "    return dead",
      "",
    ].join("\n");
    const near = analyzePython(source);
    const fullBuilt = watchFullModel(near);
    const full = findPythonStatements(source);
    for (const line of [8, 7, 5, 6, 11, 13, 17, 18, 19, 1, 2, 3, 4]) {
      expect(near.statementNear(line), `line ${line}`).toBe(full.statementOf(line));
    }
    expect(fullBuilt()).toBe(false);
  });

  // A module the full model refuses is refused whichever line is asked, also
  // when the line's own statement parses (the error after it, or before it).
  it.each([
    ["a def without its colon", "def legacy()\n    return 1\n"],
    ["an else without its if", "else:\n    x = 1\n"],
    ["a try without except or finally", "try:\n    x = 1\n"],
    ["a decorator before no def", "@decorate\nx = 1\n"],
    ["a def without a body", "def f():\nx = 1\n"],
    ["a match without cases", "match x:\n    pass\n"],
    ["an unexpected indent", "x = 1\n    y = 2\n"],
  ])("refuses a module with %s as the full model does", (_shape, broken) => {
    const good = "def helper():\n    return 1\n\n";
    for (const [source, line] of [
      [`${good}${broken}`, 2],
      [`${broken}\n${good}`, broken.split("\n").length + 2],
    ] as const) {
      let message = "";
      try {
        findPythonStatements(source);
      } catch (error) {
        message = error instanceof Error ? error.message : String(error);
      }
      expect(message, source).toMatch(/not valid Python 3\.11/);
      expect(() => analyzePython(source).statementNear(line), source).toThrow(message);
    }
  });

  it.each([
    [
      "a compound statement before it",
      "try:\n    import x\nexcept ImportError:\n    x = None\n\ndef f():\n    return 1\n",
      7,
    ],
    ["a top-level raise before it", "raise SystemExit\n\ndef f():\n    return 1\n", 4],
    ["an elif clause", "if a:\n    b = 1\nelif c:\n    d = 2\n", 4],
    ["dead code in a top-level if", "if x:\n    raise E\n    f = lambda: 1\n", 3],
  ])("leaves %s to the full model, with its answer", (_shape, source, line) => {
    const near = analyzePython(source);
    const fullBuilt = watchFullModel(near);
    expect(near.statementNear(line)).toBe(findPythonStatements(source).statementOf(line));
    expect(fullBuilt()).toBe(true);
  });
});
