// Unit tests for the Python statement finder: every construct in the case table, whose
// expectations are coverage.py's own answers (see test/fixtures/statements/cases.ts), a
// golden file of dead-code rules, refusals of unparsable input, and linear running time.

import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import {
  analyzePython,
  findPythonStatements,
  isPythonSource,
  type PythonLines,
} from "../../src/languages/python/statements.js";
import { INVALID_SOURCES, STATEMENT_CASES } from "../fixtures/statements/cases.js";

const fixture = (name: string) =>
  fileURLToPath(new URL(`../fixtures/statements/${name}`, import.meta.url));

/** Lines as coverage.py numbers them: CR, LF and CRLF end lines; a final newline adds none. */
function physicalLines(source: string): number {
  const text = source.replace(/^\ufeff/, "").replace(/\r\n?/g, "\n");
  if (text === "") return 0;
  return text.split("\n").length - (text.endsWith("\n") ? 1 : 0);
}

function answers(source: string, lines: number): (number | null)[] {
  const map = findPythonStatements(source);
  return Array.from({ length: lines }, (_, i) => map.statementOf(i + 1));
}

describe("findPythonStatements agrees with coverage.py 6.5 on Python 3.11", () => {
  // Each expectation was produced by scripts/statements-oracle.py and is re-checked against it
  // by test/integration/python-statements-stdlib.test.ts.
  for (const c of STATEMENT_CASES) {
    it(`${c.name}: ${c.why}`, () => {
      // An expectation must cover every line, or a missing one would pass unnoticed.
      expect(c.expected).toHaveLength(physicalLines(c.source));
      expect(answers(c.source, c.expected.length)).toEqual(c.expected);
    });
  }

  it("dead-code golden file (dead-code.py, answers from the oracle)", () => {
    const source = readFileSync(fixture("dead-code.py"), "utf8");
    const expected = JSON.parse(readFileSync(fixture("dead-code.expected.json"), "utf8")) as {
      answers: (number | null)[];
    };
    const ours = answers(source, expected.answers.length);
    const wrong = ours
      .map((answer, i) => ({ line: i + 1, ours: answer, coverage: expected.answers[i] }))
      .filter((row) => row.ours !== row.coverage);
    expect(wrong).toEqual([]);
  });
});

describe("analyzing many files in turn (the tokenizer reuses its arrays)", () => {
  it("gives each file's statements as if it had been analyzed alone", () => {
    // Interleaved: all files tokenized first, their full statement maps asked for afterwards,
    // in another order, between files of very different sizes (the audit's access pattern).
    const cases = [...STATEMENT_CASES].sort((a, b) => b.source.length - a.source.length);
    const analyzed = cases.map((c) => ({ c, lines: analyzePython(c.source) }));
    check(analyzed);
  });

  it("gives the same where the unit model kept tokens first, interleaved with files that did not", () => {
    const cases = [...STATEMENT_CASES].sort((a, b) => b.source.length - a.source.length);
    const analyzed = cases.map((c) => ({ c, lines: analyzePython(c.source) }));
    // statementNear keeps a copy of its file's tokens, which the full model then reads after
    // other files were tokenized into the shared arrays.
    analyzed.forEach(({ lines }, i) => {
      if (i % 2 === 0) lines.statementNear(1);
    });
    check(analyzed);
  });

  function check(analyzed: { c: (typeof STATEMENT_CASES)[number]; lines: PythonLines }[]) {
    for (const { c, lines } of [...analyzed].reverse()) {
      const map = lines.statements();
      const ours = Array.from({ length: c.expected.length }, (_, i) => map.statementOf(i + 1));
      expect(ours, c.name).toEqual(c.expected);
    }
  }

  it("keeps the logical-line view of an earlier file after later files are tokenized", () => {
    const first = analyzePython("x = (1,\n     2)\n\n# c\ny = 3\n");
    analyzePython(`${"z = [1, 2, 3]\n".repeat(5000)}def f():\n    return 1\n`);
    expect([1, 2, 3, 4, 5].map((l) => first.logical.statementOf(l))).toEqual([1, 1, null, null, 5]);
    expect([1, 2, 3, 4, 5].map((l) => first.statements().statementOf(l))).toEqual([
      1,
      1,
      null,
      null,
      5,
    ]);
  });
});

describe("statementOf", () => {
  const map = findPythonStatements("x = (1,\n     2)\n\n# c\ny = 3\n");

  it("maps continuation lines to the first line and non-code lines to null", () => {
    expect([1, 2, 3, 4, 5].map((l) => map.statementOf(l))).toEqual([1, 1, null, null, 5]);
  });

  it("returns null for line numbers outside the file or not integers", () => {
    for (const line of [0, -1, 6, 1000, 1.5, Number.NaN, Number.POSITIVE_INFINITY]) {
      expect(map.statementOf(line)).toBeNull();
    }
  });
});

describe("input coverage.py cannot parse either", () => {
  for (const { name, source } of INVALID_SOURCES) {
    it(`refuses ${name} with an InputError that says what and where`, () => {
      let error: unknown;
      try {
        findPythonStatements(source, { path: "pkg/mod.py" });
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(InputError);
      const inputError = error as InputError;
      expect(inputError.message).toMatch(
        /^pkg\/mod\.py is not valid Python 3\.11: .+ at line \d+$/,
      );
      expect(inputError.fix).toBeTruthy();
    });
  }
});

describe("running time", () => {
  // Sized so that anything quadratic takes minutes while linear work stays far below the
  // bound, even on a busy machine (typically 0.1-1 s here; stdlib files take ~2 ms per 5,000
  // lines once warm: see scripts/check-statements.mjs).
  const BOUND_MS = 6000;
  const timed = (source: string) => {
    const started = performance.now();
    const map = findPythonStatements(source);
    return { map, ms: performance.now() - started };
  };

  it("handles a 50,000-line file", () => {
    const { map, ms } = timed(
      "def f(x):\n    if x:\n        return [i for i in x]\n    y = x + 1\n".repeat(12_500),
    );
    expect(ms).toBeLessThan(BOUND_MS);
    expect(map.statementOf(49_999)).toBe(49_999);
  });

  const N = 60_000;
  const pathological: [string, string][] = [
    ["nested parentheses in a test", `if ${"(".repeat(N)}x${")".repeat(N)}:\n    pass\n`],
    ["a chain of not", `if ${"not ".repeat(N)}0:\n    pass\n`],
    ["a nested pattern", `match x:\n    case ${"(".repeat(N)}_${")".repeat(N)}:\n        pass\n`],
    ["dead lambdas", `def f():\n    return 1\n${"    x = lambda: 2\n".repeat(N)}`],
    [
      "a long or-chain",
      `if ${Array.from({ length: N }, (_, i) => `x${i}`).join(" or ")}:\n    pass\n`,
    ],
  ];
  for (const [name, source] of pathological) {
    it(`stays linear on ${name}`, () => {
      expect(timed(source).ms).toBeLessThan(BOUND_MS);
    });
  }
});

describe("isPythonSource: which files get the statement model", () => {
  it("takes .py and .pyw files, and scripts whose first line runs Python", () => {
    for (const [path, text] of [
      ["a/b.py", ""],
      ["a/b.pyw", "x = 1\n"],
      ["bin/tool", "#!/usr/bin/env python3\nx = 1\n"],
      ["bin/tool", "#!/usr/bin/python3.11\r\nx = 1\n"],
      ["bin/tool", "#!/usr/bin/env -S python -u"],
    ] as const) {
      expect(isPythonSource(path, text), `${path} ${JSON.stringify(text)}`).toBe(true);
    }
  });

  it("leaves other files (templates, shell scripts) with one statement per line", () => {
    for (const [path, text] of [
      ["templates/page.html", "{% if x %}\n"],
      ["bin/run", "#!/bin/sh\npython3 -m app\n"],
      ["bin/run", "#!/usr/bin/pythonista\n"],
      ["bin/run", "x = 1\n#!/usr/bin/env python3\n"],
      ["a/b.py.orig", "x = 1\n"],
    ] as const) {
      expect(isPythonSource(path, text), `${path} ${JSON.stringify(text)}`).toBe(false);
    }
  });
});

describe("a coding declaration (PEP 263)", () => {
  it("refuses an encoding in which ASCII text may be other code (utf-7), not UTF-8 or latin-1", () => {
    // Python decodes "+AAo-" as a newline: the comment is a return statement.
    const hidden =
      "# coding: utf-7\ndef add(a, b):\n    # +AAo-    return a * b\n    return a + b\n";
    let refused: unknown;
    try {
      analyzePython(hidden, { path: "calc.py" });
    } catch (error) {
      refused = error;
    }
    expect(refused).toBeInstanceOf(InputError);
    expect(refused).toMatchObject({
      code: "python-foreign-encoding",
      message: expect.stringMatching(/^calc\.py declares the source encoding "utf-7"/),
      fix: "save calc.py as UTF-8 and drop the coding line",
    });
    expect(() => analyzePython(`#!/usr/bin/env python\n${hidden}`)).toThrow(
      /declares the source encoding "utf-7"/,
    );
    // gbk's two-byte characters may hold a byte that reads as a backslash.
    expect(() => analyzePython("# coding: gbk\nx = 1\n")).toThrow(
      /declares the source encoding "gbk"/,
    );
    for (const ok of [
      "utf-8",
      "UTF8",
      "latin-1",
      "iso-8859-15",
      "cp1252",
      "ascii",
      "utf-8-unix",
      "latin-1-dos",
      "eucjp",
      "euc-jp",
    ]) {
      expect(analyzePython(`# -*- coding: ${ok} -*-\nx = 1\n`).logical.statementOf(2)).toBe(2);
    }
    // Only lines 1 and 2 declare; later it is a comment.
    expect(analyzePython("x = 1\ny = 2\n# coding: utf-7\n").logical.statementOf(2)).toBe(2);
  });
});
