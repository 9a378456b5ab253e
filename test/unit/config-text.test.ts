// The one INI reader and the one shlex splitter (src/core/ini.ts, src/core/shlex.ts), on the
// texts where the two readers they replace disagreed, and checked against pytest's own
// iniconfig and Python's shlex.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { IniSyntaxError, iniSections, parseIni } from "../../src/core/ini.js";
import { ShlexError, shlexSplit } from "../../src/core/shlex.js";
import { describePython, makeTempDir, runPython } from "../helpers/python.js";

/** Python's repr of a string, for the characters these cases hold (a byte-order mark). */
function pyRepr(text: string): string {
  return `'${text.replaceAll("\uFEFF", "\\ufeff")}'`;
}

/** What iniconfig makes of a text: its sections' values, or its error (line, message). */
function ours(text: string): unknown {
  try {
    return Object.fromEntries([...parseIni(text)].map(([s, v]) => [s, Object.fromEntries(v)]));
  } catch (error) {
    if (!(error instanceof IniSyntaxError)) throw error;
    return `line ${error.line}: ${error.describe(pyRepr)}`;
  }
}

const INI_CASES: Array<[string, string, unknown]> = [
  [
    "a '[' line without ']' continues the value before it",
    "[pytest]\naddopts = -ra\n[not a header\n",
    { pytest: { addopts: "-ra\n[not a header" } },
  ],
  [
    "a byte-order mark is no whitespace: pytest refuses the file",
    "\uFEFF[pytest]\naddopts = -ra\n",
    "line 1: unexpected line: '\\ufeff[pytest]'",
  ],
  [
    "Python's whitespace, not JavaScript's, makes a continuation line",
    "[pytest]\naddopts = -ra\n\x1c  --strict\n",
    { pytest: { addopts: "-ra\n--strict" } },
  ],
  [
    "a key ends at '=' unless a ':' comes first; no inline comments",
    "[pytest] # c\nkey:value=x\na:b = c\nx = y ; not a comment\n",
    { pytest: { key: "value=x", a: "b = c", x: "y ; not a comment" } },
  ],
  [
    "lines end at \\r\\n, \\r or \\n",
    "[pytest]\r\naddopts = -q\r  -ra\rk = v\n",
    { pytest: { addopts: "-q\n-ra", k: "v" } },
  ],
  ["an empty section name", "[]\n", "line 1: empty section name"],
  ["a continuation before any value", "  x\n", "line 1: unexpected value continuation"],
  ["a continuation right after a header", "[a]\n  y\n", "line 2: unexpected value continuation"],
  ["a repeated section", "[a]\n[a]\n", "line 2: duplicate section 'a'"],
  ["a value before any section", "a = 1\n", "line 1: no section header defined"],
];

describe("iniSections: iniconfig's rules", () => {
  it.each(INI_CASES)("%s", (_name, text, expected) => {
    expect(ours(text)).toEqual(expected);
  });

  it("gives each entry the lines it stands on, so that an edit can keep the rest", () => {
    expect(iniSections("[a]\n# note\nk = v\n  w\nl = x\n")).toEqual([
      {
        name: "a",
        line: 0,
        entries: [
          { name: "k", value: "v\nw", line: 2, lastLine: 3 },
          { name: "l", value: "x", line: 4, lastLine: 4 },
        ],
      },
    ]);
  });
});

const SHLEX_CASES: Array<[string, string, string[] | string]> = [
  [
    "quotes and escapes",
    `-k "a and b" 'c\\d' e\\ f "g\\"h" ''`,
    ["-k", "a and b", "c\\d", "e f", 'g"h', ""],
  ],
  ["only space, tab, CR and LF separate words", "a\vb c\u00a0d\te", ["a\vb", "c\u00a0d", "e"]],
  ["an unclosed quote", `-o "x`, "no closing quotation"],
  ["a trailing backslash", "a\\", "no escaped character"],
  ["a trailing backslash inside double quotes", `"ab\\`, "no escaped character"],
];

function shlexOurs(text: string): string[] | string {
  try {
    return shlexSplit(text);
  } catch (error) {
    if (!(error instanceof ShlexError)) throw error;
    return error.reason;
  }
}

describe("shlexSplit: Python's shlex.split", () => {
  it.each(SHLEX_CASES)("%s", (_name, text, expected) => {
    expect(shlexOurs(text)).toEqual(expected);
  });
});

describePython("the same texts, read by pytest's iniconfig and Python's shlex", () => {
  it("agree with the readers here", () => {
    const dir = makeTempDir("config-text");
    const inputs = INI_CASES.map(([, text], i) => {
      const path = join(dir, `case${i}.ini`);
      writeFileSync(path, text);
      return path;
    });
    const script = [
      "import iniconfig, json, shlex, sys",
      "out = {'ini': [], 'shlex': []}",
      "for path in json.loads(sys.argv[1]):",
      "    try:",
      "        ini = iniconfig.IniConfig(path)",
      "        out['ini'].append({s: dict(ini[s].items()) for s in ini.sections})",
      "    except iniconfig.ParseError as e:",
      "        out['ini'].append('line %d: %s' % (e.lineno + 1, e.msg))",
      "for text in json.loads(sys.argv[2]):",
      "    try:",
      "        out['shlex'].append(shlex.split(text))",
      "    except ValueError as e:",
      "        out['shlex'].append(str(e).lower())",
      "print(json.dumps(out))",
    ].join("\n");
    const result = runPython(
      ["-c", script, JSON.stringify(inputs), JSON.stringify(SHLEX_CASES.map(([, text]) => text))],
      { cwd: dir },
    );
    expect(result.status, result.stderr).toBe(0);
    const python = JSON.parse(result.stdout) as { ini: unknown[]; shlex: unknown[] };
    expect(python.ini).toEqual(INI_CASES.map(([, text]) => ours(text)));
    expect(python.shlex).toEqual(SHLEX_CASES.map(([, text]) => shlexOurs(text)));
  });
});
