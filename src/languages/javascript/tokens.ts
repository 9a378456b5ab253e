// A JavaScript/TypeScript token scanner, deep enough to find object literals in a configuration
// file and to edit them: identifiers, numbers, strings, template literals (their `${...}`
// parts scanned too), regular expression literals, comments and punctuators, with brackets
// matched. It parses no grammar. Whatever it cannot tokenize with certainty (an unterminated
// string, comment, template or regular expression, brackets that do not match) is a
// JsScanError, so that a caller refuses to edit rather than guesses.
//
// A `/` starts a regular expression where an expression can start: after an operator, an
// opening bracket, a comma, a colon, a `}` or a keyword such as `return`; after a name, a
// number, a string or a closing `)`/`]` it divides. A regular expression never spans lines,
// so a wrong guess ends in a JsScanError, not in a silently misread file.

export type TokenKind = "ident" | "number" | "string" | "template" | "regex" | "punct";

export interface Token {
  kind: TokenKind;
  /** Offsets into the text: [start, end). */
  start: number;
  end: number;
  /** The token's source text. */
  text: string;
  /** For a bracket, the index of its partner in the token list; otherwise -1. */
  match: number;
}

export interface JsScan {
  text: string;
  tokens: Token[];
  /** Comment spans [start, end), in order. */
  comments: Array<{ start: number; end: number }>;
}

export class JsScanError extends Error {
  constructor(
    message: string,
    /** Where the problem is (an offset into the text). */
    readonly offset: number,
  ) {
    super(message);
    this.name = "JsScanError";
  }
}

// Keywords after which an expression starts: a `/` there begins a regular expression.
const EXPRESSION_KEYWORDS = new Set([
  "return",
  "typeof",
  "instanceof",
  "in",
  "of",
  "new",
  "delete",
  "void",
  "throw",
  "case",
  "do",
  "else",
  "yield",
  "await",
  "extends",
]);

// Longest first: the scanner takes the first that matches.
const PUNCTUATORS = [
  ">>>=",
  "...",
  "===",
  "!==",
  "**=",
  "<<=",
  ">>=",
  ">>>",
  "&&=",
  "||=",
  "??=",
  "=>",
  "==",
  "!=",
  "<=",
  ">=",
  "&&",
  "||",
  "??",
  "?.",
  "++",
  "--",
  "+=",
  "-=",
  "*=",
  "%=",
  "&=",
  "|=",
  "^=",
  "**",
  "<<",
  ">>",
];

const OPENERS: Record<string, string> = { "(": ")", "[": "]", "{": "}" };
const CLOSERS = new Set([")", "]", "}"]);

const ID_START = /[\p{ID_Start}$_\\]/u;
const ID_PART = /[\p{ID_Continue}$_\\\u200c\u200d]/u;
const NUMBER =
  /0[xXoObB][\da-fA-F_]+n?|(?:\d[\d_]*(?:\.[\d_]*)?|\.\d[\d_]*)(?:[eE][+-]?\d[\d_]*)?n?/y;

function isLineBreak(ch: string | undefined): boolean {
  return ch === "\n" || ch === "\r" || ch === "\u2028" || ch === "\u2029";
}

/** Whether a `/` after the token `prev` starts a regular expression (see the header). */
function regexAllowedAfter(prev: Token | undefined): boolean {
  if (prev === undefined) return true;
  switch (prev.kind) {
    case "ident":
      return EXPRESSION_KEYWORDS.has(prev.text);
    case "punct":
      return prev.text !== ")" && prev.text !== "]" && prev.text !== "++" && prev.text !== "--";
    default:
      return false;
  }
}

class Scanner {
  readonly comments: Array<{ start: number; end: number }> = [];
  pos = 0;

  constructor(readonly text: string) {}

  fail(message: string, offset: number): never {
    throw new JsScanError(message, offset);
  }

  /**
   * Tokens from `pos` on, into `out`. With `untilBrace`, stops after the `}` that closes a
   * template literal's `${`, and returns; at the top level, runs to the end of the text.
   */
  scan(out: Token[], untilBrace: boolean): void {
    const text = this.text;
    const open: string[] = [];
    while (this.pos < text.length) {
      const start = this.pos;
      const ch = text[start] as string;
      if (ch === " " || ch === "\t" || isLineBreak(ch) || ch === "\f" || ch === "\v") {
        this.pos++;
        continue;
      }
      if (ch === "\ufeff" || ch === "\u00a0") {
        this.pos++;
        continue;
      }
      if (ch === "#" && start === 0 && text[1] === "!") {
        this.skipLineComment(start);
        continue;
      }
      if (ch === "/" && text[start + 1] === "/") {
        this.skipLineComment(start);
        continue;
      }
      if (ch === "/" && text[start + 1] === "*") {
        const end = text.indexOf("*/", start + 2);
        if (end < 0) this.fail("a /* comment is not closed", start);
        this.pos = end + 2;
        this.comments.push({ start, end: this.pos });
        continue;
      }
      if (ch === '"' || ch === "'") {
        this.skipString(ch, start);
        this.push(out, "string", start);
        continue;
      }
      if (ch === "`") {
        this.skipTemplate(start);
        this.push(out, "template", start);
        continue;
      }
      if (ch === "/" && regexAllowedAfter(out[out.length - 1])) {
        this.skipRegex(start);
        this.push(out, "regex", start);
        continue;
      }
      if (/\d/.test(ch) || (ch === "." && /\d/.test(text[start + 1] ?? ""))) {
        NUMBER.lastIndex = start;
        const m = NUMBER.exec(text);
        this.pos = start + (m?.[0].length ?? 1);
        this.push(out, "number", start);
        continue;
      }
      if (ID_START.test(ch) || (ch === "#" && ID_START.test(text[start + 1] ?? ""))) {
        this.pos = start + 1;
        while (this.pos < text.length && ID_PART.test(text[this.pos] as string)) this.pos++;
        this.push(out, "ident", start);
        continue;
      }
      const punct = PUNCTUATORS.find((p) => text.startsWith(p, start)) ?? ch;
      if (CLOSERS.has(punct)) {
        if (untilBrace && punct === "}" && open.length === 0) {
          this.pos = start + 1;
          return;
        }
        const expected = open.pop();
        if (expected !== punct) {
          this.fail(
            expected === undefined
              ? `a "${punct}" closes nothing`
              : `a "${punct}" where "${expected}" was expected`,
            start,
          );
        }
      } else if (OPENERS[punct] !== undefined) {
        open.push(OPENERS[punct] as string);
      }
      this.pos = start + punct.length;
      this.push(out, "punct", start);
    }
    if (untilBrace) this.fail("a template literal's ${ is not closed", text.length);
    if (open.length > 0)
      this.fail(`a "${open[open.length - 1]}" is missing at the end`, text.length);
  }

  push(out: Token[], kind: TokenKind, start: number): void {
    out.push({ kind, start, end: this.pos, text: this.text.slice(start, this.pos), match: -1 });
  }

  skipLineComment(start: number): void {
    let end = start;
    while (end < this.text.length && !isLineBreak(this.text[end])) end++;
    this.pos = end;
    this.comments.push({ start, end });
  }

  skipString(quote: string, start: number): void {
    const text = this.text;
    let i = start + 1;
    for (;;) {
      const ch = text[i];
      if (ch === undefined || ch === "\n" || ch === "\r") {
        this.fail(`a string is not closed on its line`, start);
      }
      if (ch === quote) break;
      // An escaped line break continues the string on the next line.
      if (ch === "\\") i += text.startsWith("\r\n", i + 1) ? 3 : 2;
      else i++;
    }
    this.pos = i + 1;
  }

  skipTemplate(start: number): void {
    const text = this.text;
    let i = start + 1;
    for (;;) {
      const ch = text[i];
      if (ch === undefined) this.fail("a template literal is not closed", start);
      if (ch === "`") break;
      if (ch === "\\") {
        i += 2;
      } else if (ch === "$" && text[i + 1] === "{") {
        this.pos = i + 2;
        this.scan([], true);
        i = this.pos;
      } else {
        i++;
      }
    }
    this.pos = i + 1;
  }

  skipRegex(start: number): void {
    const text = this.text;
    let i = start + 1;
    let inClass = false;
    for (;;) {
      const ch = text[i];
      if (ch === undefined || isLineBreak(ch)) {
        this.fail(
          "a regular expression (or a division freezegate took for one) is not closed on its line",
          start,
        );
      }
      if (ch === "\\") {
        if (isLineBreak(text[i + 1])) this.fail("a regular expression is not closed", start);
        i += 2;
        continue;
      }
      if (ch === "[") inClass = true;
      else if (ch === "]") inClass = false;
      else if (ch === "/" && !inClass) break;
      i++;
    }
    i++;
    while (i < text.length && ID_PART.test(text[i] as string)) i++;
    this.pos = i;
  }
}

/** The tokens of a JavaScript or TypeScript text, brackets matched; a JsScanError if unsure. */
export function scanJs(text: string): JsScan {
  const scanner = new Scanner(text);
  const tokens: Token[] = [];
  scanner.scan(tokens, false);
  const stack: number[] = [];
  tokens.forEach((token, index) => {
    if (token.kind !== "punct") return;
    if (OPENERS[token.text] !== undefined) stack.push(index);
    else if (CLOSERS.has(token.text)) {
      const partner = stack.pop() as number;
      token.match = partner;
      (tokens[partner] as Token).match = index;
    }
  });
  return { text, tokens, comments: scanner.comments };
}

/** The token at `index` (which must exist). */
export function tokenAt(scan: JsScan, index: number): Token {
  const token = scan.tokens[index];
  if (token === undefined) throw new Error(`no token ${index}`);
  return token;
}

/** Whether `token` is the punctuator `text`. */
export const isPunct = (token: Token | undefined, text: string): boolean =>
  token !== undefined && token.kind === "punct" && token.text === text;

/** Whether `token` is a name (or keyword), and `text` if given. */
export const isIdent = (token: Token | undefined, text?: string): boolean =>
  token !== undefined && token.kind === "ident" && (text === undefined || token.text === text);

/** The value of a string literal token (or of a template literal without `${`), or null. */
export function stringValue(token: Token): string | null {
  if (token.kind === "template") {
    if (/\$\{/.test(token.text.replace(/\\[\s\S]/g, ""))) return null;
  } else if (token.kind !== "string") {
    return null;
  }
  const body = token.text.slice(1, -1);
  let out = "";
  for (let i = 0; i < body.length; i++) {
    const ch = body[i] as string;
    if (ch !== "\\") {
      out += ch;
      continue;
    }
    const next = body[++i] ?? "";
    const simple: Record<string, string> = {
      n: "\n",
      t: "\t",
      r: "\r",
      b: "\b",
      f: "\f",
      v: "\v",
      "0": "\0",
    };
    if (next === "0" && /\d/.test(body[i + 1] ?? "")) {
      return null; // a legacy octal escape: not worth reading
    } else if (next in simple) {
      out += simple[next];
    } else if (next === "x" && /^[\da-fA-F]{2}$/.test(body.slice(i + 1, i + 3))) {
      out += String.fromCharCode(Number.parseInt(body.slice(i + 1, i + 3), 16));
      i += 2;
    } else if (next === "u") {
      const braced = /^\{([\da-fA-F]+)\}/.exec(body.slice(i + 1));
      const plain = /^[\da-fA-F]{4}/.exec(body.slice(i + 1));
      if (braced) {
        out += String.fromCodePoint(Number.parseInt(braced[1] as string, 16));
        i += braced[0].length;
      } else if (plain) {
        out += String.fromCharCode(Number.parseInt(plain[0], 16));
        i += 4;
      } else {
        return null;
      }
    } else if (next === "\r") {
      if (body[i + 1] === "\n") i++;
    } else if (next === "\n" || next === "\u2028" || next === "\u2029") {
      // a line continuation adds nothing
    } else if (/[1-9]/.test(next)) {
      return null;
    } else {
      out += next;
    }
  }
  return out;
}
