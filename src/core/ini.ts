// INI text as iniconfig reads it: the parser pytest 7 and pytest 9 both read pytest.ini,
// .pytest.ini, tox.ini and setup.cfg with (iniconfig 1.1 and 2.x agree on every rule here).
// Each entry keeps the lines it stands on, so that a file can be edited in place and read back.
// Pure: text in, sections out.

/** One `name = value` (or `name: value`) with its continuation lines. */
export interface IniEntry {
  name: string;
  /** Continuation lines joined by "\n", each stripped. */
  value: string;
  /** Index of the `name = value` line. */
  line: number;
  /** Index of its last continuation line (== line when there is none). */
  lastLine: number;
}

export interface IniSection {
  name: string;
  /** Index of the `[name]` line. */
  line: number;
  entries: IniEntry[];
}

/** Where and why iniconfig refuses a text (pytest then stops: it runs no test). */
export class IniSyntaxError extends Error {
  constructor(
    /** 1-based line number, as iniconfig reports it. */
    readonly line: number,
    readonly what:
      | "unexpected line"
      | "empty section name"
      | "unexpected value continuation"
      | "no section header defined"
      | "duplicate section"
      | "duplicate name",
    /** The line, section or name concerned; null when the problem says it all. */
    readonly subject: string | null = null,
  ) {
    super(`line ${line}: ${describeWith(what, subject, (s) => s)}`);
  }

  /** The problem in words, `quote` showing the subject. */
  describe(quote: (subject: string) => string): string {
    return describeWith(this.what, this.subject, quote);
  }
}

function describeWith(what: string, subject: string | null, quote: (s: string) => string) {
  if (subject === null) return what;
  return `${what}${what === "unexpected line" ? ":" : ""} ${quote(subject)}`;
}

/**
 * Lines with their own terminators (a file read back from them is the same text), split where
 * Python's universal newlines split a file: "\r\n", "\r" or "\n".
 */
export function textLines(text: string): string[] {
  return text.match(/[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+$/g) ?? [];
}

/** Python's str.isspace characters (JavaScript's \s differs: it has U+FEFF, lacks \x1c-\x1f). */
const PY_SPACE =
  "\\t\\n\\v\\f\\r\\x1c-\\x1f \\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const LEADING_SPACE = new RegExp(`^[${PY_SPACE}]+`);
const TRAILING_SPACE = new RegExp(`[${PY_SPACE}]+$`);
const STARTS_WITH_SPACE = new RegExp(`^[${PY_SPACE}]`);

/** Python's str.strip() with no argument. */
export function pyStrip(text: string): string {
  return text.replace(LEADING_SPACE, "").replace(TRAILING_SPACE, "");
}

function pyRstrip(text: string): string {
  return text.replace(TRAILING_SPACE, "");
}

type Token =
  | { kind: "section"; line: number; name: string }
  | { kind: "entry"; line: number; lastLine: number; name: string; value: string };

/**
 * The sections of an INI text by iniconfig's rules: a line whose first non-blank character is
 * # or ; is a comment (no inline comments in values); `[name]` opens a section (a comment may
 * follow it; a "[" line without "]" is a continuation); a key ends at the first "=" unless the
 * part before it holds ":", then at the first ":"; an indented line continues the previous
 * value. A byte-order mark is text like any other (pytest reads the file as plain UTF-8, so a
 * file that starts with one is refused). Throws IniSyntaxError where iniconfig raises.
 */
export function iniSections(text: string): IniSection[] {
  const tokens: Token[] = [];
  textLines(text).forEach((raw, index) => {
    if (/^[#;]?$/.test(raw.replace(LEADING_SPACE, "").slice(0, 1))) return;
    const line = pyRstrip(raw);
    if (line === "") return;
    if (line.startsWith("[")) {
      const head = pyRstrip(pyRstrip(line.split("#")[0] as string).split(";")[0] as string);
      if (head.endsWith("]")) {
        const name = head.slice(1, -1);
        if (name === "") throw new IniSyntaxError(index + 1, "empty section name");
        tokens.push({ kind: "section", line: index, name });
        return;
      }
      continueValue(tokens, index, pyStrip(line));
      return;
    }
    if (STARTS_WITH_SPACE.test(line)) {
      continueValue(tokens, index, pyStrip(line));
      return;
    }
    const eq = line.indexOf("=");
    const at = eq >= 0 && !line.slice(0, eq).includes(":") ? eq : line.indexOf(":");
    if (at < 0) throw new IniSyntaxError(index + 1, "unexpected line", line);
    tokens.push({
      kind: "entry",
      line: index,
      lastLine: index,
      name: pyStrip(line.slice(0, at)),
      value: pyStrip(line.slice(at + 1)),
    });
  });
  // iniconfig checks sections and names once every line is read.
  const sections: IniSection[] = [];
  let current: IniSection | null = null;
  for (const token of tokens) {
    if (token.kind === "section") {
      if (sections.some((s) => s.name === token.name)) {
        throw new IniSyntaxError(token.line + 1, "duplicate section", token.name);
      }
      current = { name: token.name, line: token.line, entries: [] };
      sections.push(current);
      continue;
    }
    if (current === null) throw new IniSyntaxError(token.line + 1, "no section header defined");
    if (current.entries.some((e) => e.name === token.name)) {
      throw new IniSyntaxError(token.line + 1, "duplicate name", token.name);
    }
    const { name, value, line, lastLine } = token;
    current.entries.push({ name, value, line, lastLine });
  }
  return sections;
}

function continueValue(tokens: Token[], index: number, data: string): void {
  const last = tokens.at(-1);
  if (last === undefined || last.kind !== "entry") {
    throw new IniSyntaxError(index + 1, "unexpected value continuation");
  }
  last.value = last.value === "" ? data : `${last.value}\n${data}`;
  last.lastLine = index;
}

/** An INI text's values by section and name (see iniSections). */
export function parseIni(text: string): Map<string, Map<string, string>> {
  return new Map(
    iniSections(text).map((s) => [s.name, new Map(s.entries.map((e) => [e.name, e.value]))]),
  );
}
