// The logical-line scanner must answer exactly as the tokenizer (the reference it replaces for
// the logical lines): the same first line for every physical line, and a refusal (null, after
// which the tokenizer reports its error) exactly where the tokenizer refuses. Compared on hand-
// written shapes, on every module of Debian's Python 3.11 standard library (skipped loudly
// without it; a failure under CI=true), and on thousands of mutated modules.

import { readFileSync } from "node:fs";
import { describe, expect, it, vi } from "vitest";
import { scanLogicalLines } from "../../src/languages/python/logical-lines.js";
import { analyzePython, tokenizedLogicalLines } from "../../src/languages/python/statements.js";
import { STATEMENT_CASES } from "../fixtures/statements/cases.js";
import { stdlibModules } from "../helpers/stdlib.js";

/** The text as both read it (what analyzePython hands them). */
function normalized(source: string): string {
  const text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  return text.replace(/\r\n?/g, "\n").replaceAll("\f", " ");
}

/** The tokenizer's answer, or "refused". */
function reference(text: string): number[] | "refused" {
  try {
    return [...tokenizedLogicalLines(text)];
  } catch {
    return "refused";
  }
}

/** The scanner's answer, or "refused" (null). */
function scanned(text: string): number[] | "refused" {
  const lines = scanLogicalLines(text);
  return lines === null ? "refused" : [...lines];
}

function expectSame(text: string, label: string): "refused" | "read" {
  const want = reference(text);
  const got = scanned(text);
  if (got !== want && (got === "refused" || want === "refused")) {
    expect.fail(
      `${label}: the scanner ${got === "refused" ? "refused" : "read"} it, the tokenizer ${want === "refused" ? "refused" : "read"} it`,
    );
  }
  if (want !== "refused" && got !== "refused") {
    const at = want.findIndex((first, line) => got[line] !== first);
    if (at >= 0 || got.length !== want.length) {
      expect.fail(
        `${label}: line ${at} is in the logical line of ${got[at]} by the scanner, ${want[at]} by the tokenizer (${got.length - 1} and ${want.length - 1} lines)`,
      );
    }
  }
  return want === "refused" ? "refused" : "read";
}

/** A fixed pseudo-random sequence. */
function random(seed: number): (n: number) => number {
  let state = seed;
  return (n) => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return Math.floor((state / 2147483648) * n);
  };
}

/** What a mutation may put in: every character and pair the two read specially. */
const INSERTS = [
  '"',
  "'",
  '"""',
  "'''",
  '\\"',
  "\\'",
  "\\",
  "\\\n",
  "(",
  ")",
  "[",
  "]",
  "{",
  "}",
  "#",
  "\n",
  "\t",
  "    ",
  " ",
  'rb"',
  "f'",
  'x"',
  "u'''",
  'Br"""',
  "\u00a0",
  "é",
  "1",
  "\n\\\n",
  '""',
];

/** `text` with one to three random changes: an insert, a deleted special, a re-indented line. */
function mutate(text: string, next: (n: number) => number): string {
  let out = text;
  const changes = 1 + next(3);
  for (let k = 0; k < changes; k++) {
    const kind = next(3);
    if (kind === 0) {
      const at = next(out.length + 1);
      out = out.slice(0, at) + (INSERTS[next(INSERTS.length)] as string) + out.slice(at);
    } else if (kind === 1) {
      const specials = [...out.matchAll(/["'#\\()[\]{}\n]/g)];
      const hit = specials[next(specials.length)];
      if (hit !== undefined) out = out.slice(0, hit.index) + out.slice(hit.index + 1);
    } else {
      const starts = [0, ...[...out.matchAll(/\n/g)].map((m) => m.index + 1)];
      const at = starts[next(starts.length)] as number;
      out = out.slice(0, at) + (next(2) === 0 ? "  " : "\t") + out.slice(at);
    }
  }
  return out;
}

describe("scanLogicalLines", () => {
  it("reads hand-written shapes as the tokenizer does", () => {
    const shapes: [string, string][] = [
      ["empty", ""],
      ["no final newline", "x = 1"],
      ["blank lines only", "\n\n\n"],
      ["brackets over lines", "x = (1,\n     2)\n\n# c\ny = 3\n"],
      ["module docstring", '"""Doc.\n\nMore."""\nx = 1\n'],
      ["docstring after a comment is code", '# c\n"""Doc."""\nx = 1\n'],
      ["prefixed docstring", 'def f():\n    rb"""Doc\n    more"""\n    return 1\n'],
      ["not a prefix", 'def f():\n    xr"abc"\n    return 1\n'],
      ["strings joined over a backslash", 'def f():\n    "a" \\\n    "b"\n    pass\n'],
      ["a string then code", 'def f():\n    "a".join(x)\n    pass\n'],
      ["a string in brackets", 'def f():\n    ("a")\n    pass\n'],
      ["backslash-only line", "\\\nx = 1\n"],
      ["backslash then comment", "x = 1 + \\\n    2  # c\ny = 2\n"],
      ["comment inside brackets", "x = [\n    # c\n    1,\n]\n"],
      ["escaped quote", "x = 'it\\'s'\ny = \"a\\\"b\"\n"],
      ["backslash-newline in a string", "x = 'a\\\nb'\ny = 1\n"],
      ["escaped closing quote", 'x = """a\\""""\ny = 1\n'],
      ["four quotes", "x = ''''a'''\ny = 1\n"],
      ["empty strings", "x = '' + \"\"\ny = 1\n"],
      ["quotes in a comment", "x = 1  # it's \"(\n(y) = 2\n"],
      ["hash in a string", "x = '#' + \"(\"\ny = 1\n"],
      ["unbalanced closer", "x = 1)\ny = 2\n"],
      ["tabs", "if x:\n\ty = 1\n        z = 2\n"],
      ["final backslash", "x = 1 \\"],
      ["docstring, then a final backslash", '"""Doc.""" \\'],
      ["backslash last in a string at the end", "x = 'a\\"],
      ["unterminated string", "x = 'abc\ny = 1\n"],
      ["unterminated triple", 'x = """abc\ny = 1\n'],
      ["open bracket at the end", "x = (1,\n"],
      ["backslash at the end of a line, then the end", "x = 1 + \\\n"],
      ["bad dedent", "if x:\n        y = 1\n    z = 2\n"],
      ["non-ASCII", "π = 'é'\nx\u00a0= 1\n"],
      ["f-string first in a body", 'def f():\n    f"{g()}"\n    return 1\n'],
      ["f-string first in the file", 'f"""Doc {x}."""\nx = 1\n'],
      ["f-string first in a class", "class C:\n    F'{x}'\n"],
      ["rf triple-quoted over lines", 'def f():\n    rf"""a {x}\n    b"""\n    return 1\n'],
      ["a string, then an f-string", 'def f():\n    "a" f"{x}"\n    pass\n'],
      ["an f-string, then a string", 'def f():\n    f"a" "b"\n    pass\n'],
      ["an f-string after a backslash", 'def f():\n    "a" \\\n    fR"{x}"\n    pass\n'],
      ["an f-string, then code", 'def f():\n    f"{x}".strip()\n    pass\n'],
    ];
    const refused = shapes.filter(([label, text]) => expectSame(text, label) === "refused");
    expect(refused.map(([label]) => label)).toEqual([
      "backslash last in a string at the end",
      "unterminated string",
      "unterminated triple",
      "open bracket at the end",
      "backslash at the end of a line, then the end",
      "bad dedent",
    ]);
    for (const c of STATEMENT_CASES) expectSame(normalized(c.source), c.name);
  });

  it("reads a string statement with an f-string part as code, not a docstring", () => {
    const lines = (text: string) => [...(scanLogicalLines(text) ?? [])];
    expect(lines('def f():\n    f"{g()}"\n    return 1\n')).toEqual([0, 1, 2, 3]);
    expect(lines('f"""Doc {x}."""\nx = 1\n')).toEqual([0, 1, 2]);
    expect(lines('def f():\n    rf"""a {x}\n    b"""\n')).toEqual([0, 1, 2, 2]);
    expect(lines('class C:\n    "a" \\\n    Rf"{x}" "b"\n')).toEqual([0, 1, 2, 2]);
    // Other prefixes keep coverage.py's rule: a docstring.
    expect(lines('def f():\n    rb"""Doc {x}."""\n    u"a" R"b"\n')).toEqual([0, 1, 0, 3]);
  });

  it("reads the standard library's docstrings made f-strings as the tokenizer does", () => {
    const files = stdlibModules("the logical-line scanner");
    if (files === null) return;
    // Every line that starts with a quote, docstrings among them, given an f-string part.
    const variants = ["$1f$2", "$1Rf$2", '$1"" F$2', "$1$2x$2 f$2"];
    let madeCode = 0;
    files.forEach((file, i) => {
      const text = normalized(readFileSync(file, "utf8"));
      const before = scanLogicalLines(text);
      const variant = variants[i % variants.length] as string;
      const changed = text.replace(/^([ \t]*)(["'])/gm, variant);
      if (expectSame(changed, `${file} (${variant})`) === "refused" || before === null) return;
      const after = scanLogicalLines(changed) as Int32Array;
      for (let l = 1; l < Math.min(before.length, after.length); l++) {
        if (before[l] === 0 && after[l] !== 0) madeCode++;
      }
    });
    console.log(`logical-line scanner: ${madeCode} docstring lines read as code once f-strings`);
    expect(madeCode).toBeGreaterThan(10_000);
  }, 60_000);

  it("looks for each backslash once, however many triple-quoted strings there are", () => {
    // Each docstring searched to the end of the file for a backslash, which made
    // a module of many docstrings and few backslashes take the square of its size.
    const text = Array.from(
      { length: 2000 },
      (_, i) => `def f${i}():\n    """R ${i}."""\n    return ${i}\n`,
    )
      .join("")
      .concat('x = "\\n"\n');
    const indexOf = vi.spyOn(String.prototype, "indexOf");
    let lines: Int32Array | null;
    let searches: number;
    try {
      lines = scanLogicalLines(text);
      searches = indexOf.mock.calls.filter(([what]) => what === "\\").length;
    } finally {
      indexOf.mockRestore(); // which also forgets the calls
    }
    expect(searches).toBeLessThanOrEqual(3);
    expect(lines === null ? "refused" : [...lines]).toEqual(reference(text));
  });

  it("is what analyzePython's logical lines are, and the tokenizer's error where it refuses", () => {
    const python = analyzePython("x = (1,\n  2)\n'''a'''\n", { path: "m.py" });
    expect([1, 2, 3].map((l) => python.logical.statementOf(l))).toEqual([1, 1, 3]);
    expect(() => analyzePython("x = 'abc\n", { path: "m.py" })).toThrow(
      "m.py is not valid Python 3.11: unterminated string literal at line 1",
    );
    expect(() => analyzePython("if x:\n        y = 1\n    z = 2\n", { path: "m.py" })).toThrow(
      "m.py is not valid Python 3.11: unindent does not match any outer indentation level at line 3",
    );
  });

  it("reads every module of the standard library as the tokenizer does", () => {
    const files = stdlibModules("the logical-line scanner");
    if (files === null) return;
    expect(files.length).toBeGreaterThan(500);
    let read = 0;
    for (const file of files) {
      if (expectSame(normalized(readFileSync(file, "utf8")), file) === "read") read++;
    }
    console.log(`logical-line scanner: ${read} of ${files.length} standard library modules read`);
    expect(read).toBeGreaterThan(500);
  }, 60_000);

  it("reads mutated modules as the tokenizer does, refusing exactly what it refuses", () => {
    const files = stdlibModules("the logical-line scanner");
    if (files === null) return;
    const next = random(41);
    // Modules of every size up to 40 kB, a fixed sample.
    const sample = files
      .map((file) => normalized(readFileSync(file, "utf8")))
      .filter((text) => text.length < 40_000)
      .filter((_, i) => i % 5 === 0);
    let mutants = 0;
    let refused = 0;
    for (const text of sample) {
      for (let k = 0; k < 80; k++) {
        if (expectSame(mutate(text, next), `mutant ${mutants}`) === "refused") refused++;
        mutants++;
      }
    }
    console.log(`logical-line scanner: ${mutants} mutants, ${refused} refused by both`);
    expect(mutants).toBeGreaterThan(1000);
    // The mutations reach the refusals as well as the lines.
    expect(refused).toBeGreaterThan(mutants / 10);
    expect(refused).toBeLessThan(mutants - mutants / 10);
  }, 120_000);
});
