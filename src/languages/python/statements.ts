// Which lines of a Python file coverage.py counts as statements, from the source text alone.
//
// coverage.py's SQLite data file stores the lines each test executed, not the lines that are
// code, so a changed blank line, comment or docstring would otherwise look "never executed".
// coverage.py 6.5 (the version on Debian's Python 3.11) computes statements as: every line
// that has a bytecode instruction in any code object of the compiled module, mapped to the
// first line of its logical line (tokenizer NEWLINE to NEWLINE), minus docstrings (a STRING
// token right after an INDENT, or first in the file; we require strings alone, none an
// f-string). We cannot run the compiler, so this module reproduces that answer: a
// tokenizer equivalent to Python 3.11's `tokenize` module, a statement parser, and a model
// of what CPython 3.11 emits bytecode for, including its dead-code elimination (code after
// return/raise/break/continue, `while True` without break, constant tests such as `if 0:` or
// `if __debug__:`, `assert False`, exhaustive `match`).
// scripts/check-statements.mjs measures agreement with coverage.py over the standard library.

import type { FreezegateError } from "../../core/errors.js";
import type { StatementMap } from "../../core/model.js";
import { refusal } from "../../core/refusals/index.js";
import {
  BAD_DEDENT,
  INDENT,
  indentMove,
  indentStart,
  isFormatPrefix,
  isIdentChar,
  isIdentStart,
  isStringPrefix,
  SAME,
} from "./chars.js";
import { lineOfOffset } from "./imports.js";
import { scanLogicalLines } from "./logical-lines.js";

export interface PythonStatementsOptions {
  /** Used only in error messages. */
  path?: string;
}

/** Computes coverage.py's statement map for Python 3.11 source text (any line endings). */
export function findPythonStatements(
  source: string,
  options: PythonStatementsOptions = {},
): StatementMap {
  const { text, where } = readable(source, options);
  return analyzeTokens(text, tokenize(text, where), where);
}

/** The text as the tokenizer reads it, after refusing a foreign source encoding. */
function readable(source: string, options: PythonStatementsOptions) {
  const text = normalizeSource(source);
  const where = options.path ?? "Python source";
  refuseForeignEncoding(text, where);
  return { text, where };
}

/** Views of one Python file; the statement models are computed only when asked for. */
export interface PythonLines {
  /**
   * The tokenizer's logical lines: first line of the logical line holding `line`, or null
   * for blank, comment-only and docstring lines. Every statement is such a line; a logical
   * line is a statement exactly when CPython gives it bytecode, so one that the coverage data
   * shows executed is a statement without further analysis.
   */
  logical: StatementMap;
  /** coverage.py's statements (parse and bytecode model), computed on first call. */
  statements(): StatementMap;
  /**
   * `statements().statementOf(line)`, computed from as little of the module as the line
   * needs: the top-level statement holding it, after a look at the top-level statements
   * before it. Modules where that does not settle it get the full model.
   */
  statementNear(line: number): number | null;
}

export function analyzePython(source: string, options: PythonStatementsOptions = {}): PythonLines {
  const { text, where } = readable(source, options);
  // The logical lines come from the scanner; where it gives up, tokenize() reports the error
  // (or, should it accept the text after all, its tokens give the lines).
  const logicalFirst = scanLogicalLines(text) ?? logicalLinesOf(tokenize(text, where));
  let full: StatementMap | null = null;
  let units: UnitStatements | null = null;
  // The unit model's tokens: a copy of their own, because the next tokenize() call reuses
  // its arrays. The full model reads them at once, from the copy if there is one.
  let kept: Tokens | null = null;
  return {
    logical: new LineTable(logicalFirst),
    statements() {
      full ??= analyzeTokens(text, kept ?? tokenize(text, where), where);
      return full;
    },
    statementNear(line) {
      if (full === null) {
        kept ??= copyOfTokens(tokenize(text, where));
        units ??= new UnitStatements(text, kept, where);
        const answer = units.statementOf(line);
        if (answer !== undefined) return answer;
      }
      return this.statements().statementOf(line);
    },
  };
}

/**
 * scanLogicalLines' answer (see logical-lines.ts) from the tokenizer, for normalized
 * text: the reference its tests compare it with. Throws where the tokenizer refuses the text.
 */
export function tokenizedLogicalLines(text: string): Int32Array {
  return logicalLinesOf(tokenize(text, "Python source"));
}

/** The first line of each physical line's logical line (0: none, or a docstring), from tokens. */
function logicalLinesOf(tokens: Tokens): Int32Array {
  const physical = tokens.physicalCount;
  const logicalFirst = new Int32Array(physical + 1);
  for (let n = 0; n < tokens.logicalCount; n++) {
    if (tokens.lineDocstring[n] === 1) continue;
    const first = tokens.lineFirst[n] as number;
    const last = Math.min(tokens.lineLast[n] as number, physical);
    for (let l = first; l <= last; l++) logicalFirst[l] = first;
  }
  return logicalFirst;
}

/**
 * Tokens in arrays of their own (with the cleared slot after the last token and line), all
 * views of one new buffer: a backing store per array would cost more than the copy.
 */
function copyOfTokens(tokens: Tokens): Tokens {
  const lines = tokens.logicalCount + 1;
  const last =
    tokens.logicalCount === 0 ? 0 : (tokens.lineTokEnd[tokens.logicalCount - 1] as number);
  const count = last + 1;
  const buffer = new ArrayBuffer(4 * (2 * count + 5 * lines) + count + lines);
  let offset = 0;
  const int32 = (from: Int32Array, n: number) => {
    const view = new Int32Array(buffer, offset, n);
    view.set(from.subarray(0, n));
    offset += 4 * n;
    return view;
  };
  const uint8 = (from: Uint8Array, n: number) => {
    const view = new Uint8Array(buffer, offset, n);
    view.set(from.subarray(0, n));
    offset += n;
    return view;
  };
  // The 32-bit arrays first, so that every one starts at a multiple of 4.
  const start = int32(tokens.start, count);
  const end = int32(tokens.end, count);
  const lineFirst = int32(tokens.lineFirst, lines);
  const lineLast = int32(tokens.lineLast, lines);
  const lineTokStart = int32(tokens.lineTokStart, lines);
  const lineTokEnd = int32(tokens.lineTokEnd, lines);
  const lineDepth = int32(tokens.lineDepth, lines);
  return {
    kind: uint8(tokens.kind, count),
    start,
    end,
    lineFirst,
    lineLast,
    lineTokStart,
    lineTokEnd,
    lineDepth,
    lineDocstring: uint8(tokens.lineDocstring, lines),
    logicalCount: tokens.logicalCount,
    physicalCount: tokens.physicalCount,
  };
}

function analyzeTokens(text: string, tokens: Tokens, where: string): StatementMap {
  const parser = new StatementParser(text, tokens, where);
  const module = parser.parseModule();
  const future = hasFutureAnnotations(text, tokens, module);
  let emitted = new Uint8Array(tokens.logicalCount);
  const detector = new DeadCodeDetector();
  new Analyzer(text, tokens, parser, emitted, future, detector).module(module);
  if (detector.found) {
    emitted = new Uint8Array(tokens.logicalCount);
    new Analyzer(text, tokens, parser, emitted, future, null).module(module);
  }

  const physical = tokens.physicalCount;
  const firstLineOf = new Int32Array(physical + 1);
  for (let n = 0; n < tokens.logicalCount; n++) {
    if (emitted[n] !== 1 || tokens.lineDocstring[n] === 1) continue;
    const first = tokens.lineFirst[n] as number;
    const last = Math.min(tokens.lineLast[n] as number, physical);
    for (let l = first; l <= last; l++) firstLineOf[l] = first;
  }
  return new LineTable(firstLineOf);
}

class LineTable implements StatementMap {
  readonly #firstLineOf: Int32Array;
  constructor(firstLineOf: Int32Array) {
    this.#firstLineOf = firstLineOf;
  }
  statementOf(line: number): number | null {
    if (!Number.isInteger(line) || line < 1 || line >= this.#firstLineOf.length) return null;
    const first = this.#firstLineOf[line] ?? 0;
    return first === 0 ? null : first;
  }
}

/**
 * The full model's answer for single lines, from the top-level statement that holds each.
 * What CPython emits for a top-level `def` or `class` depends only on it, once it is
 * reachable: its body is a code object of its own, with its own constants (the dead code
 * that survives in co_consts is its own too). It is reachable when every top-level statement
 * before it is a def, a class or a simple statement that does not end the module's flow
 * (raise, return, `assert False`). Any other shape (a compound statement before it, dead
 * code in a top-level statement that is not a def or class) is left to the full model:
 * `statementOf` then answers undefined. A module that does not parse is refused as the full
 * model refuses it. The full model's answers are the reference; a test compares the two on
 * every line of the standard library.
 */
class UnitStatements {
  readonly #text: string;
  readonly #t: Tokens;
  readonly #parser: StatementParser;
  /** Top-level logical lines before this index are checked (see `#reachable`). */
  #checked = 0;
  /** The simple top-level statements checked, in order (for hasFutureAnnotations). */
  readonly #simple: number[] = [];
  /** The first top-level def, class or decorator line checked (Infinity: none yet). */
  #firstDef = Number.POSITIVE_INFINITY;
  /** The first top-level statement that may end the module's flow (Infinity: none yet). */
  #closedAt = Number.POSITIVE_INFINITY;
  /** emitted flags per analysed unit, by the unit's first logical line. */
  readonly #units = new Map<number, Uint8Array | null>();

  constructor(text: string, tokens: Tokens, where: string) {
    this.#text = text;
    this.#t = tokens;
    // The whole module must parse, as the full model requires: its refusal of a file that is
    // not Python 3.11 must not depend on which lines are asked about. The truth of tests
    // decides no syntax, so this parse skips it (about half of the parser's work).
    new StatementParser(text, tokens, where, false).parseModule();
    this.#parser = new StatementParser(text, tokens, where);
  }

  statementOf(line: number): number | null | undefined {
    const t = this.#t;
    if (!Number.isInteger(line) || line < 1 || line > t.physicalCount) return null;
    // The logical line holding `line`: the last one starting at or before it.
    let lo = 0;
    let hi = t.logicalCount - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((t.lineFirst[mid] as number) <= line) lo = mid;
      else hi = mid - 1;
    }
    const n = lo;
    if (
      t.logicalCount === 0 ||
      (t.lineFirst[n] as number) > line ||
      (t.lineLast[n] as number) < line
    ) {
      return null;
    }
    if (t.lineDocstring[n] === 1) return null;
    // The top-level statement: back to the top-level line, and over a decorator stack.
    let start = n;
    while (start > 0 && (t.lineDepth[start] as number) > 0) start--;
    const keyword = this.#parser.headerKeywordAt(start);
    if (keyword === "@" || keyword === "def" || keyword === "class") {
      while (
        start > 0 &&
        t.lineDepth[start - 1] === 0 &&
        this.#parser.headerKeywordAt(start - 1) === "@"
      ) {
        start--;
      }
    } else if (keyword !== null && !STATEMENT_KEYWORDS.has(keyword)) {
      return undefined; // elif, else, except, finally: part of an earlier statement
    }
    let emitted = this.#units.get(start);
    if (emitted === undefined) {
      emitted = this.#analyse(start);
      this.#units.set(start, emitted);
    }
    if (emitted === null) return undefined;
    return emitted[n] === 1 ? (t.lineFirst[n] as number) : null;
  }

  /** Whether every top-level statement before logical line `start` lets the flow through. */
  #reachable(start: number): boolean {
    const t = this.#t;
    while (this.#closedAt === Number.POSITIVE_INFINITY && this.#checked < start) {
      const n = this.#checked++;
      if (t.lineDepth[n] !== 0) continue;
      const keyword = this.#parser.headerKeywordAt(n);
      if (keyword === null) {
        this.#simple.push(n);
        const from = t.lineTokStart[n] as number;
        const to = t.lineTokEnd[n] as number;
        if (this.#parser.simpleParts(from, to).some((part) => part.term !== TERM_NONE)) {
          this.#closedAt = n;
        }
      } else if (keyword === "@" || keyword === "def" || keyword === "class") {
        if (n < this.#firstDef) this.#firstDef = n;
      } else {
        this.#closedAt = n;
      }
    }
    return this.#closedAt >= start;
  }

  /** The emitted flags of the top-level statement at logical line `start`, or null. */
  #analyse(start: number): Uint8Array | null {
    if (!this.#reachable(start)) return null;
    const t = this.#t;
    // The constructor parsed the whole module: this statement parses, and ends at the next
    // top-level line.
    const stmt = this.#parser.statementAt(start).stmt;
    const isDef = typeof stmt === "object" && stmt.kind === "def";
    // The module's statements as far as hasFutureAnnotations reads them: it stops at the
    // first that is not simple.
    const leading: Stmt[] = this.#simple.filter((n) => n < start && n < this.#firstDef);
    leading.push(this.#firstDef < start ? NOT_SIMPLE : stmt);
    const future = hasFutureAnnotations(this.#text, t, leading);
    const detector = new DeadCodeDetector();
    let emitted = new Uint8Array(t.logicalCount);
    new Analyzer(this.#text, t, this.#parser, emitted, future, detector).unit(stmt, start === 0);
    if (detector.found) {
      // Dead code objects of a def or class live in its own constants; elsewhere in the
      // module's, which the rest of the module decides.
      if (!isDef) return null;
      emitted = new Uint8Array(t.logicalCount);
      new Analyzer(this.#text, t, this.#parser, emitted, future, null).unit(stmt, start === 0);
    }
    return emitted;
  }
}

const STATEMENT_KEYWORDS = new Set(["if", "while", "for", "try", "with", "match"]);

/** Stands for a compound statement in a statement list (hasFutureAnnotations stops there). */
const NOT_SIMPLE: Stmt = { kind: "inline", line: -1, from: 0, to: 0 };

// coverage.py reads the file as bytes, turns CRLF and CR into LF and form feeds into spaces
// before decoding (coverage/python.py get_python_source); the decoder drops a UTF-8 BOM.
// Line numbers therefore count CR, LF and CRLF as line ends, like CPython's compiler, whose
// numbers are the ones in the data file. (coverage.py's tokenizer also breaks lines at \v,
// \x1c-\x1e, \x85, U+2028 and U+2029, which the compiler does not: for a file containing one
// of those its own answers are skewed. We follow the compiler and git.)
function normalizeSource(source: string): string {
  let text = source.charCodeAt(0) === 0xfeff ? source.slice(1) : source;
  if (text.includes("\r")) text = text.replace(/\r\n?/g, "\n");
  if (text.includes("\f")) text = text.replaceAll("\f", " ");
  return text;
}

// ---------------------------------------------------------------------------------------------
// Tokenizer. Follows CPython 3.11's Lib/tokenize.py, which is what coverage.py uses to find
// logical lines and docstrings: f-strings are plain STRING tokens (no nesting of the same
// quote before 3.12), indentation columns use tab stops of 8, comments and blank lines never
// open or close blocks.

const T_NAME = 1;
const T_NUMBER = 2;
const T_STRING = 3;
const T_OP = 4;

/**
 * The token stream, as columns. Token i: kind[i] (T_NAME...), source offsets
 * [start[i], end[i]). Logical line n (NEWLINE to NEWLINE): physical lines
 * [lineFirst[n], lineLast[n]], tokens [lineTokStart[n], lineTokEnd[n]), indentation level
 * lineDepth[n], and coverage.py's docstring rule in lineDocstring[n] (it starts with a STRING
 * token right after an INDENT, or first in the file; we also want strings alone, none of them
 * an f-string). Typed arrays, because large growing JS arrays and many small objects cost
 * more in garbage collection than the tokenizing itself.
 */
interface Tokens {
  kind: Uint8Array;
  start: Int32Array;
  end: Int32Array;
  lineFirst: Int32Array;
  lineLast: Int32Array;
  lineTokStart: Int32Array;
  lineTokEnd: Int32Array;
  lineDepth: Int32Array;
  lineDocstring: Uint8Array;
  logicalCount: number;
  /** Physical lines, numbered as coverage.py numbers them. */
  physicalCount: number;
}

/** A copy of `array` in a new array of `size` elements (monomorphic: a generic version was slow cold). */
function grownInt32(array: Int32Array, size: number) {
  const bigger = new Int32Array(size);
  bigger.set(array);
  return bigger;
}

function grownUint8(array: Uint8Array, size: number) {
  const bigger = new Uint8Array(size);
  bigger.set(array);
  return bigger;
}

function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

/** Length of the operator at `i`: Python's two- and three-character operators, else 1. */
function operatorLength(text: string, i: number, eol: number): number {
  const c = text.charCodeAt(i);
  const d = i + 1 < eol ? text.charCodeAt(i + 1) : 0;
  const e = i + 2 < eol ? text.charCodeAt(i + 2) : 0;
  switch (c) {
    case 42: // * ** *= **=
    case 47: // / // /= //=
    case 60: // < << <= <<=
    case 62: // > >> >= >>=
      if (d === c) return e === 61 ? 3 : 2;
      return d === 61 || (c === 60 && d === 62) ? 2 : 1;
    case 46: // . ...
      return d === 46 && e === 46 ? 3 : 1;
    case 45: // - -= ->
      return d === 61 || d === 62 ? 2 : 1;
    case 43: // + +=
    case 37: // % %=
    case 38: // & &=
    case 124: // | |=
    case 94: // ^ ^=
    case 64: // @ @=
    case 61: // = ==
    case 33: // !=
    case 58: // : :=
      return d === 61 ? 2 : 1;
    default:
      return 1;
  }
}

// PEP 263: a coding declaration in a comment on line 1, or on line 2 after a comment or
// blank line 1.
const CODING = /^[ \t\f]*#.*?coding[:=][ \t]*([-\w.]+)/;
// Encodings in which Python's syntax reads as it does in UTF-8: ASCII bytes are ASCII, and no
// multi-byte character holds one (gbk, gb18030, big5 and shift_jis do: one reads as a
// backslash).
const ASCII_COMPATIBLE =
  /^(?:utf[-_]?8(?:[-_]sig)?|u8|(?:us[-_]?)?ascii|646|latin[-_]?1|l1|iso[-_]?8859[-_]?\d+|iso[-_]?latin[-_]?\d|(?:cp|windows[-_]?)125\d|cp(?:437|850|852|855|857|858|866)|koi8[-_][a-z]+|mac[-_]?[a-z]+|euc[-_]?(?:jp|kr|jis[-_]?2004|jisx0213)|gb2312)$/i;

/**
 * The encoding a file declares (PEP 263) when it is not UTF-8 or one that ASCII text reads
 * the same in; null otherwise. Read as UTF-8, such a file may hide code in a comment or a
 * string: under `# coding: utf-7`, `# +AAo-    return a * b` is a return statement.
 */
export function foreignEncoding(text: string): string | null {
  if (!text.includes("coding")) return null;
  const lines = text.split("\n", 2);
  const first = lines[0] ?? "";
  const declared =
    CODING.exec(first)?.[1] ??
    (/^[ \t\f]*(?:#.*)?$/.test(first) ? CODING.exec(lines[1] ?? "")?.[1] : undefined);
  if (declared === undefined) return null;
  // Emacs writes the line-end convention after the name (utf-8-unix, latin-1-dos).
  const name = declared.replace(/[-_](?:unix|dos|mac)$/i, "");
  return ASCII_COMPATIBLE.test(name) ? null : declared;
}

/** A changed file that declares a foreign encoding is refused: its bytes would be misread. */
function refuseForeignEncoding(text: string, where: string): void {
  const declared = foreignEncoding(text);
  if (declared === null) return;
  throw refusal("python-foreign-encoding", { where, encoding: declared });
}

function syntaxError(where: string, line: number, what: string): FreezegateError {
  return refusal("python-syntax-error", { where, line, what });
}

/**
 * The token arrays are reused from one tokenize() call to the next: allocating nine typed
 * arrays per file (each a separate backing store outside the JavaScript heap) cost more than
 * tokenizing on a 500-file patch. So a Tokens value is valid only until the next call.
 */
let scratch: Tokens | null = null;

function tokenize(text: string, where: string): Tokens {
  const wantTokens = 64 + (text.length >> 1);
  const wantLines = 64 + (text.length >> 4);
  const reuseTokens = scratch !== null && scratch.kind.length >= wantTokens;
  const reuseLines = scratch !== null && scratch.lineFirst.length >= wantLines;
  let capacity = reuseTokens ? (scratch as Tokens).kind.length : wantTokens;
  let kind = reuseTokens ? (scratch as Tokens).kind : new Uint8Array(capacity);
  let start = reuseTokens ? (scratch as Tokens).start : new Int32Array(capacity);
  let end = reuseTokens ? (scratch as Tokens).end : new Int32Array(capacity);
  let count = 0;
  let lineCapacity = reuseLines ? (scratch as Tokens).lineFirst.length : wantLines;
  const old = reuseLines ? (scratch as Tokens) : null;
  let lineFirst = old ? old.lineFirst : new Int32Array(lineCapacity);
  let lineLast = old ? old.lineLast : new Int32Array(lineCapacity);
  let lineTokStart = old ? old.lineTokStart : new Int32Array(lineCapacity);
  let lineTokEnd = old ? old.lineTokEnd : new Int32Array(lineCapacity);
  let lineDepth = old ? old.lineDepth : new Int32Array(lineCapacity);
  let lineDocstring = old ? old.lineDocstring : new Uint8Array(lineCapacity);
  let logicalCount = 0;
  const indents: number[] = [0];
  const len = text.length;

  let lineNo = 0;
  let pos = 0; // start of the current physical line
  let parenLevel = 0;
  let continued = false;
  // Whether the token emitted last was an INDENT, for the docstring rule; coverage.py starts
  // with prev_toktype = INDENT, so a string first in the file is the module docstring.
  let prevWasIndent = true;
  // The logical line being read: its first token's index (-1 between lines) and line.
  let logicalStart = -1;
  let logicalFirst = 0;
  let logicalDocstring = false;

  while (pos < len || continued || parenLevel > 0) {
    if (pos >= len) {
      throw syntaxError(where, lineNo, "unexpected end of file in a multi-line statement");
    }
    lineNo++;
    let eol = text.indexOf("\n", pos);
    if (eol < 0) eol = len;
    let i = pos;

    if (parenLevel === 0 && !continued) {
      i = indentStart(text, pos, eol, indents);
      if (i < 0) {
        // Blank or comment-only line: an NL token, no INDENT/DEDENT.
        prevWasIndent = false;
        pos = eol + 1;
        continue;
      }
      if (indentMove === BAD_DEDENT) {
        throw syntaxError(where, lineNo, "unindent does not match any outer indentation level");
      }
      if (indentMove !== SAME) prevWasIndent = indentMove === INDENT;
    } else {
      continued = false;
    }

    // Tokens of this physical line (a string token may carry on over further lines).
    while (i < eol) {
      const c = text.charCodeAt(i);
      if (c === 32 || c === 9 || c === 12) {
        i++;
        continue;
      }
      if (c === 35) break; // a comment runs to the end of the line
      if (c === 92 /* \ */ && i + 1 === eol && eol < len) {
        continued = true;
        break;
      }
      let k = T_OP;
      let j: number;
      if (isIdentStart(c)) {
        j = i + 1;
        while (j < eol && isIdentChar(text.charCodeAt(j))) j++;
        const q = j < eol ? text.charCodeAt(j) : 0;
        if ((q === 34 || q === 39) && isStringPrefix(text, i, j)) k = T_STRING;
        else k = T_NAME;
      } else if (isDigit(c) || (c === 46 && i + 1 < eol && isDigit(text.charCodeAt(i + 1)))) {
        k = T_NUMBER;
        j = scanNumber(text, i, eol);
      } else if (c === 34 || c === 39) {
        k = T_STRING;
        j = i;
      } else {
        j = i + operatorLength(text, i, eol);
        if (c === 40 || c === 91 || c === 123) parenLevel++;
        else if ((c === 41 || c === 93 || c === 125) && parenLevel > 0) parenLevel--;
      }
      let newlines = 0;
      let formatted = false;
      if (k === T_STRING) {
        // j is at the opening quote, after any prefix.
        formatted = j > i && isFormatPrefix(text, i, j);
        j = scanString(text, j, lineNo, where);
        newlines = stringNewlines;
        if (newlines > 0) {
          lineNo += newlines;
          eol = text.indexOf("\n", j);
          if (eol < 0) eol = len;
        }
      }
      if (logicalStart < 0) {
        logicalStart = count;
        logicalFirst = lineNo - newlines;
        logicalDocstring = k === T_STRING && prevWasIndent && !formatted;
      } else if (k !== T_STRING || formatted) {
        // Here we part from coverage.py 6.5, whose rule looks at the first token only: a
        // line such as `",".join(parts)` first in a block runs code, and the tracer records
        // it; taken for a docstring, a line only frozen tests run would read as not code.
        // So does a string with an f-string part (`f"{record()}"`, `"a" f"{b}"`): Python
        // never takes it for a docstring.
        logicalDocstring = false;
      }
      // Grown while one slot is still free: the end keeps a cleared slot after the last one.
      if (count + 1 === capacity) {
        capacity *= 2;
        kind = grownUint8(kind, capacity);
        start = grownInt32(start, capacity);
        end = grownInt32(end, capacity);
      }
      kind[count] = k;
      start[count] = i;
      end[count] = j;
      count++;
      prevWasIndent = false;
      i = j;
    }

    // End of the physical line: NEWLINE closes a logical line; NL (inside brackets or after
    // a backslash) does not.
    if (!continued && parenLevel === 0 && logicalStart >= 0) {
      if (logicalCount + 1 === lineCapacity) {
        lineCapacity *= 2;
        lineFirst = grownInt32(lineFirst, lineCapacity);
        lineLast = grownInt32(lineLast, lineCapacity);
        lineTokStart = grownInt32(lineTokStart, lineCapacity);
        lineTokEnd = grownInt32(lineTokEnd, lineCapacity);
        lineDepth = grownInt32(lineDepth, lineCapacity);
        lineDocstring = grownUint8(lineDocstring, lineCapacity);
      }
      lineFirst[logicalCount] = logicalFirst;
      lineLast[logicalCount] = lineNo;
      lineTokStart[logicalCount] = logicalStart;
      lineTokEnd[logicalCount] = count;
      lineDepth[logicalCount] = indents.length - 1;
      lineDocstring[logicalCount] = logicalDocstring ? 1 : 0;
      logicalCount++;
      logicalStart = -1;
    }
    prevWasIndent = false;
    pos = eol + 1;
  }
  // coverage.py numbers text.split("\n") minus the empty remainder after a final newline.
  const physicalCount = len === 0 ? 0 : text.endsWith("\n") ? lineNo : Math.max(lineNo, 1);
  // Reused arrays hold the previous file's tokens past the end: clear the slot after the
  // last token and the last logical line, which readers may peek at as they would at zeros.
  kind[count] = 0;
  start[count] = 0;
  end[count] = 0;
  lineFirst[logicalCount] = 0;
  lineLast[logicalCount] = 0;
  lineTokStart[logicalCount] = 0;
  lineTokEnd[logicalCount] = 0;
  lineDepth[logicalCount] = 0;
  lineDocstring[logicalCount] = 0;
  scratch = {
    kind,
    start,
    end,
    lineFirst,
    lineLast,
    lineTokStart,
    lineTokEnd,
    lineDepth,
    lineDocstring,
    logicalCount,
    physicalCount,
  };
  return scratch;
}

function scanNumber(text: string, i: number, eol: number): number {
  const c1 = i + 1 < eol ? text.charCodeAt(i + 1) | 0x20 : 0;
  if (text.charCodeAt(i) === 48 && (c1 === 0x78 || c1 === 0x6f || c1 === 0x62)) {
    // 0x.. 0o.. 0b..
    let j = i + 2;
    while (j < eol) {
      const c = text.charCodeAt(j);
      if (c === 95 || isDigit(c) || ((c | 0x20) >= 0x61 && (c | 0x20) <= 0x66)) j++;
      else break;
    }
    return j;
  }
  let j = skipDigits(text, i, eol);
  if (j < eol && text.charCodeAt(j) === 46) j = skipDigits(text, j + 1, eol);
  // An exponent only when digits follow: `1else` is 1 then else.
  if (j < eol && (text.charCodeAt(j) | 0x20) === 0x65) {
    let k = j + 1;
    const sign = k < eol ? text.charCodeAt(k) : 0;
    if (sign === 43 || sign === 45) k++;
    if (k < eol && isDigit(text.charCodeAt(k))) j = skipDigits(text, k, eol);
  }
  if (j < eol && (text.charCodeAt(j) | 0x20) === 0x6a) j++; // imaginary
  return j;
}

function skipDigits(text: string, j: number, eol: number): number {
  while (j < eol) {
    const c = text.charCodeAt(j);
    if (isDigit(c) || c === 95) j++;
    else break;
  }
  return j;
}

/**
 * Newlines crossed by the string literal scanString read last: a second result without an
 * allocation per string. Only tokenize() reads it, right after the call.
 */
let stringNewlines = 0;

/** Scans the string literal whose opening quote is at `quote`; returns its end offset. */
function scanString(text: string, quote: number, lineNo: number, where: string): number {
  const q = text.charCodeAt(quote);
  const len = text.length;
  let lines = 0;
  if (text.charCodeAt(quote + 1) === q && text.charCodeAt(quote + 2) === q) {
    let i = quote + 3;
    while (i < len) {
      const c = text.charCodeAt(i);
      if (c === 92) {
        if (text.charCodeAt(i + 1) === 10) lines++;
        i += 2;
        continue;
      }
      if (c === 10) lines++;
      else if (c === q && text.charCodeAt(i + 1) === q && text.charCodeAt(i + 2) === q) {
        stringNewlines = lines;
        return i + 3;
      }
      i++;
    }
    throw syntaxError(where, lineNo, "unterminated triple-quoted string");
  }
  let i = quote + 1;
  while (i < len) {
    const c = text.charCodeAt(i);
    if (c === 92) {
      // A backslash escapes the next character; before a newline it continues the string.
      if (text.charCodeAt(i + 1) === 10) lines++;
      i += 2;
      continue;
    }
    if (c === q) {
      stringNewlines = lines;
      return i + 1;
    }
    if (c === 10) break;
    i++;
  }
  throw syntaxError(where, lineNo + lines, "unterminated string literal");
}

// ---------------------------------------------------------------------------------------------
// Statements: logical lines grouped into a tree by indentation.

/** Bound on recursion into nested brackets and patterns; deeper is treated as unknown. */
const MAX_NESTING = 32;

const SCOPE_MODULE = 0;
const SCOPE_CLASS = 1;
const SCOPE_FUNCTION = 2;

const TERM_NONE = 0;
const TERM_RETURN = 1; // return, raise, assert <always false>
const TERM_BREAK = 2;
const TERM_CONTINUE = 3;

// A bare annotation (`x: int`) compiles to code depending on the target and the scope.
const ANN_NONE = 0; // not a bare annotation
const ANN_NAME = 1; // x: int
const ANN_PAREN_NAME = 2; // (x): int
const ANN_COMPLEX = 3; // x.y: int, x[0]: int

/** global, nonlocal and `del ()` compile to nothing. */
const NO_CODE = 1;
/** An expression statement that is only a constant (a NOP, no constant is stored). */
const CONSTANT_EXPR = 2;

interface SimplePart {
  /** Token range of the statement. */
  from: number;
  to: number;
  flags: number;
  term: number;
  ann: number;
}

/** Truth value of a test known at compile time: 1 true, 0 false, -1 unknown. */
type Truth = 1 | 0 | -1;

interface Clause {
  /** Logical line index of the clause header. */
  line: number;
  /** Whether the header itself compiles to an instruction (`else:`/`finally:` do not). */
  headerCode: boolean;
  /** Header tokens between the keyword(s) and the colon. */
  headFrom: number;
  headTo: number;
  body: Stmt[];
}

interface MatchCase {
  clause: Clause;
  /** The pattern can fail (or a guard can be false). */
  refutable: boolean;
  /** The guard's compile-time truth; 1 when there is no guard. */
  guard: Truth;
  /** `case _:` (CPython's WILDCARD_CHECK), whatever the guard. */
  wildcard: boolean;
}

/**
 * A statement. A plain number n is the most common case, a logical line n that is entirely a
 * simple statement list (kept unboxed: dense files have tens of thousands of them); `inline`
 * is the simple statement list after a compound header's colon on the same line.
 */
type Stmt =
  | number
  | { kind: "inline"; line: number; from: number; to: number }
  | { kind: "if"; tests: { clause: Clause; truth: Truth }[]; orelse: Clause | null }
  | { kind: "while"; clause: Clause; truth: Truth; orelse: Clause | null }
  | { kind: "for"; clause: Clause; orelse: Clause | null }
  | {
      kind: "try";
      clause: Clause;
      handlers: Clause[];
      orelse: Clause | null;
      finalbody: Clause | null;
    }
  | { kind: "with"; clause: Clause }
  | { kind: "match"; clause: Clause; cases: MatchCase[] }
  | { kind: "def"; decorators: number[]; clause: Clause; isClass: boolean };

function isOpenBracket(c: number): boolean {
  return c === 40 || c === 91 || c === 123;
}

function isCloseBracket(c: number): boolean {
  return c === 41 || c === 93 || c === 125;
}

class StatementParser {
  #next = 0;
  readonly #text: string;
  readonly #t: Tokens;
  readonly #where: string;
  /** False: every test's truth is "unknown" (a parse that only checks the syntax). */
  readonly #evaluateTests: boolean;

  constructor(text: string, tokens: Tokens, where: string, evaluateTests = true) {
    this.#text = text;
    this.#t = tokens;
    this.#where = where;
    this.#evaluateTests = evaluateTests;
  }

  /** The compound statement keyword of logical line `index` (see #headerKeyword). */
  headerKeywordAt(index: number): string | null {
    return this.#headerKeyword(index);
  }

  /** The top-level statement starting at logical line `index`, and the line after it. */
  statementAt(index: number): { stmt: Stmt; next: number } {
    this.#next = index;
    const stmt = this.#statement(0);
    return { stmt, next: this.#next };
  }

  parseModule(): Stmt[] {
    const body = this.#block(0);
    if (this.#next < this.#t.logicalCount) throw this.#error(this.#next, "unexpected indent");
    return body;
  }

  #error(lineIndex: number, what: string): FreezegateError {
    const line =
      lineIndex < this.#t.logicalCount ? this.#t.lineFirst[lineIndex] : this.#t.physicalCount;
    return syntaxError(this.#where, line ?? 0, what);
  }

  #tokText(i: number): string {
    return this.#text.slice(this.#t.start[i], this.#t.end[i]);
  }

  /** First character of an operator token, or 0 for other tokens. */
  #opChar(i: number): number {
    return this.#t.kind[i] === T_OP ? this.#text.charCodeAt(this.#t.start[i] as number) : 0;
  }

  #isOp(i: number, op: string): boolean {
    return this.#t.kind[i] === T_OP && this.#spells(i, op);
  }

  #isName(i: number, name: string): boolean {
    return this.#t.kind[i] === T_NAME && this.#spells(i, name);
  }

  /** Whether token i is exactly `word`, compared in place (no copy of the token). */
  #spells(i: number, word: string): boolean {
    const start = this.#t.start[i] as number;
    return (this.#t.end[i] as number) - start === word.length && this.#text.startsWith(word, start);
  }

  /** Indentation level of logical line n, or -1 past the end. */
  #depthOf(n: number): number {
    return n < this.#t.logicalCount ? (this.#t.lineDepth[n] as number) : -1;
  }

  #tokStart(n: number): number {
    return this.#t.lineTokStart[n] as number;
  }

  #tokEnd(n: number): number {
    return this.#t.lineTokEnd[n] as number;
  }

  #block(depth: number): Stmt[] {
    const out: Stmt[] = [];
    while (this.#next < this.#t.logicalCount) {
      const lineDepth = this.#depthOf(this.#next);
      if (lineDepth < depth) break;
      if (lineDepth > depth) throw this.#error(this.#next, "unexpected indent");
      out.push(this.#statement(depth));
    }
    return out;
  }

  /** The keyword that makes logical line `index` a compound statement header, or null. */
  #headerKeyword(index: number): string | null {
    const t0 = this.#tokStart(index);
    if (this.#t.kind[t0] === T_OP) return this.#isOp(t0, "@") ? "@" : null;
    if (this.#t.kind[t0] !== T_NAME) return null;
    // Keywords are 2 to 7 characters long: most names need no copy to be ruled out.
    const length = (this.#t.end[t0] as number) - (this.#t.start[t0] as number);
    if (length < 2 || length > 7) return null;
    let word = this.#tokText(t0);
    if (word === "async" && t0 + 1 < this.#tokEnd(index)) {
      const second = this.#tokText(t0 + 1);
      if (second === "def" || second === "for" || second === "with") word = second;
    }
    switch (word) {
      case "if":
      case "elif":
      case "else":
      case "while":
      case "for":
      case "try":
      case "except":
      case "finally":
      case "with":
      case "def":
      case "class":
        return word;
      case "match":
        // A soft keyword: `match x:` ends its line with the colon (the cases follow on their
        // own lines), and no simple statement ends with a top-level colon.
        return this.#endsWithColon(index) ? word : null;
      default:
        return null;
    }
  }

  #endsWithColon(n: number): boolean {
    const last = this.#tokEnd(n) - 1;
    if (last <= this.#tokStart(n) || !this.#isOp(last, ":")) return false;
    return this.#headerColon(this.#tokStart(n) + 1, last + 1) === last;
  }

  /** Index of the colon that ends a clause header: the first top-level one not a lambda's. */
  #headerColon(from: number, to: number): number {
    let depth = 0;
    let lambdas = 0;
    for (let i = from; i < to; i++) {
      const k = this.#t.kind[i];
      if (k === T_OP) {
        const c = this.#opChar(i);
        if (isOpenBracket(c)) depth++;
        else if (isCloseBracket(c)) depth--;
        else if (
          c === 58 &&
          depth === 0 &&
          (this.#t.end[i] as number) - (this.#t.start[i] as number) === 1
        ) {
          if (lambdas === 0) return i;
          lambdas--;
        }
      } else if (k === T_NAME && depth === 0 && this.#tokText(i) === "lambda") {
        lambdas++;
      }
    }
    return -1;
  }

  /** Parses the clause whose header is the current line and advances past its body. */
  #clause(depth: number, headerCode: boolean, keywordTokens: number): Clause {
    const index = this.#next;
    const headFrom = this.#tokStart(index) + keywordTokens;
    const lineEnd = this.#tokEnd(index);
    const colon = this.#headerColon(headFrom, lineEnd);
    if (colon < 0) throw this.#error(index, "expected ':'");
    this.#next++;
    let body: Stmt[];
    if (colon + 1 < lineEnd) {
      body = [{ kind: "inline", line: index, from: colon + 1, to: lineEnd }];
    } else {
      const bodyDepth = this.#depthOf(this.#next);
      if (bodyDepth <= depth) throw this.#error(index, "expected an indented block");
      body = this.#block(bodyDepth);
    }
    return { line: index, headerCode, headFrom, headTo: colon, body };
  }

  #atClause(depth: number, keyword: string): boolean {
    const n = this.#next;
    return this.#depthOf(n) === depth && this.#isName(this.#tokStart(n), keyword);
  }

  #elseClause(depth: number): Clause | null {
    return this.#atClause(depth, "else") ? this.#clause(depth, false, 1) : null;
  }

  #statement(depth: number): Stmt {
    const index = this.#next;
    const keyword = this.#headerKeyword(index);
    const skip = 1 + (keyword !== null && this.#isName(this.#tokStart(index), "async") ? 1 : 0);
    switch (keyword) {
      case null:
        this.#next++;
        return index;
      case "@": {
        const decorators: number[] = [];
        while (this.#depthOf(this.#next) === depth && this.#headerKeyword(this.#next) === "@") {
          decorators.push(this.#next++);
        }
        const atDepth = this.#depthOf(this.#next) === depth;
        const next = atDepth ? this.#headerKeyword(this.#next) : null;
        if (next !== "def" && next !== "class") {
          throw this.#error(this.#next - 1, "a decorator must precede def or class");
        }
        const def = this.#statement(depth);
        if (typeof def === "object" && def.kind === "def") def.decorators = decorators;
        return def;
      }
      case "def":
      case "class":
        return {
          kind: "def",
          decorators: [],
          clause: this.#clause(depth, true, skip),
          isClass: keyword === "class",
        };
      case "if": {
        const first = this.#clause(depth, true, 1);
        const tests = [{ clause: first, truth: this.#truth(first.headFrom, first.headTo) }];
        while (this.#atClause(depth, "elif")) {
          const next = this.#clause(depth, true, 1);
          tests.push({ clause: next, truth: this.#truth(next.headFrom, next.headTo) });
        }
        return { kind: "if", tests, orelse: this.#elseClause(depth) };
      }
      case "while": {
        const clause = this.#clause(depth, true, 1);
        const truth = this.#truth(clause.headFrom, clause.headTo);
        return { kind: "while", clause, truth, orelse: this.#elseClause(depth) };
      }
      case "for": {
        const clause = this.#clause(depth, true, skip);
        return { kind: "for", clause, orelse: this.#elseClause(depth) };
      }
      case "with":
        return { kind: "with", clause: this.#clause(depth, true, skip) };
      case "try": {
        const clause = this.#clause(depth, true, 1);
        const handlers: Clause[] = [];
        while (this.#atClause(depth, "except")) handlers.push(this.#clause(depth, true, 1));
        const orelse = this.#elseClause(depth);
        const finalbody = this.#atClause(depth, "finally") ? this.#clause(depth, false, 1) : null;
        if (handlers.length === 0 && finalbody === null) {
          throw this.#error(index, "try without except or finally");
        }
        return { kind: "try", clause, handlers, orelse, finalbody };
      }
      case "match":
        return this.#match(depth);
      default:
        // elif/else/except/finally without their statement.
        throw this.#error(index, `'${keyword}' without a matching statement`);
    }
  }

  #match(depth: number): Stmt {
    const index = this.#next;
    const clause: Clause = {
      line: index,
      headerCode: true,
      headFrom: this.#tokStart(index) + 1,
      headTo: this.#tokEnd(index) - 1,
      body: [],
    };
    this.#next++;
    const caseDepth = this.#depthOf(this.#next);
    if (caseDepth <= depth) throw this.#error(index, "expected an indented block");
    const cases: MatchCase[] = [];
    while (this.#next < this.#t.logicalCount) {
      const at = this.#depthOf(this.#next);
      if (at < caseDepth) break;
      if (at > caseDepth || !this.#isName(this.#tokStart(this.#next), "case")) {
        throw this.#error(this.#next, "expected 'case'");
      }
      const head = this.#clause(caseDepth, true, 1);
      // `case P if guard:` splits at the first top-level `if`.
      let guardAt = -1;
      let d = 0;
      for (let i = head.headFrom; i < head.headTo; i++) {
        const c = this.#opChar(i);
        if (isOpenBracket(c)) d++;
        else if (isCloseBracket(c)) d--;
        else if (d === 0 && this.#isName(i, "if")) {
          guardAt = i;
          break;
        }
      }
      const patternEnd = guardAt < 0 ? head.headTo : guardAt;
      const guard: Truth = guardAt < 0 ? 1 : this.#truth(guardAt + 1, head.headTo);
      const refutable = guard !== 1 || this.#patternRefutable(head.headFrom, patternEnd - 1);
      const wildcard = this.#isWildcard(head.headFrom, patternEnd - 1);
      cases.push({ clause: head, refutable, guard, wildcard });
    }
    return { kind: "match", clause, cases };
  }

  /** Splits a simple statement list on top-level semicolons and classifies each part. */
  simpleParts(from: number, to: number): SimplePart[] {
    const parts: SimplePart[] = [];
    let depth = 0;
    let partStart = from;
    for (let i = from; i <= to; i++) {
      if (i < to) {
        const c = this.#opChar(i);
        if (isOpenBracket(c)) depth++;
        else if (isCloseBracket(c)) depth--;
        if (!(c === 59 && depth === 0)) continue;
      }
      if (i > partStart) parts.push(this.#classify(partStart, i));
      partStart = i + 1;
    }
    return parts;
  }

  #classify(from: number, to: number): SimplePart {
    const part: SimplePart = { from, to, flags: 0, term: TERM_NONE, ann: ANN_NONE };
    const k = this.#t.kind[from];
    if (k === T_NAME) {
      switch (this.#tokText(from)) {
        case "global":
        case "nonlocal":
          part.flags = NO_CODE;
          return part;
        case "return":
        case "raise":
          part.term = TERM_RETURN;
          return part;
        case "break":
          part.term = TERM_BREAK;
          return part;
        case "continue":
          part.term = TERM_CONTINUE;
          return part;
        case "del":
          // Deleting an empty tuple or list target deletes nothing.
          if (to - from === 3 && isOpenBracket(this.#opChar(from + 1))) part.flags = NO_CODE;
          return part;
        case "assert": {
          // `assert <always false>` compiles to an unconditional raise.
          let end = to;
          let depth = 0;
          for (let i = from + 1; i < to; i++) {
            const c = this.#opChar(i);
            if (isOpenBracket(c)) depth++;
            else if (isCloseBracket(c)) depth--;
            else if (c === 44 && depth === 0) {
              end = i;
              break;
            }
          }
          if (this.#truth(from + 1, end) === 0) part.term = TERM_RETURN;
          return part;
        }
        case "pass":
        case "import":
        case "from":
          return part;
        case "None":
        case "True":
        case "False":
          if (to - from === 1) part.flags = CONSTANT_EXPR;
          return part;
        default:
          break;
      }
    }
    // A constant alone (a string that is not a docstring, a number, `...`) is a NOP.
    let strings = from;
    while (strings < to && this.#t.kind[strings] === T_STRING) strings++;
    if (strings === to || (to - from === 1 && (k === T_NUMBER || this.#isOp(from, "...")))) {
      part.flags = CONSTANT_EXPR;
      return part;
    }
    part.ann = this.#annotation(from, to);
    return part;
  }

  /** Recognises a bare annotation `target: annotation` (no value) and its target's shape. */
  #annotation(from: number, to: number): number {
    let depth = 0;
    let colon = -1;
    for (let i = from; i < to && colon < 0; i++) {
      const k = this.#t.kind[i];
      if (k === T_NAME) {
        if (depth === 0 && this.#tokText(i) === "lambda") return ANN_NONE;
        continue;
      }
      if (k !== T_OP) continue;
      const c = this.#opChar(i);
      const single = (this.#t.end[i] as number) - (this.#t.start[i] as number) === 1;
      if (isOpenBracket(c)) depth++;
      else if (isCloseBracket(c)) depth--;
      else if (depth === 0 && single && c === 61)
        return ANN_NONE; // `=` before any colon
      else if (depth === 0 && single && c === 58) colon = i;
    }
    if (colon < 0) return ANN_NONE;
    // A value after the annotation makes it an ordinary (annotated) assignment.
    depth = 0;
    for (let i = colon + 1; i < to; i++) {
      const c = this.#opChar(i);
      if (isOpenBracket(c)) depth++;
      else if (isCloseBracket(c)) depth--;
      else if (depth === 0 && c === 61 && this.#isOp(i, "=")) return ANN_NONE;
    }
    if (colon === from + 1 && this.#t.kind[from] === T_NAME) return ANN_NAME;
    // (x) or ((x)): a parenthesised plain name.
    let a = from;
    let b = colon - 1;
    let parens = 0;
    while (a < b && this.#isOp(a, "(") && this.#isOp(b, ")")) {
      a++;
      b--;
      parens++;
    }
    if (parens > 0 && a === b && this.#t.kind[a] === T_NAME) return ANN_PAREN_NAME;
    return ANN_COMPLEX;
  }

  /** Tokens [a, b] (inclusive) without the parentheses that wrap all of them. */
  #unwrap(a: number, b: number): [number, number] {
    for (let layers = 0; layers < MAX_NESTING; layers++) {
      if (!(a < b && this.#isOp(a, "(") && this.#isOp(b, ")") && this.#wraps(a, b))) break;
      a++;
      b--;
    }
    return [a, b];
  }

  #isWildcard(from: number, to: number): boolean {
    const [a, b] = this.#unwrap(from, to);
    return a === b && this.#isName(a, "_");
  }

  /** Whether the pattern in tokens [from, to] (inclusive) can fail to match. */
  #patternRefutable(from: number, to: number, nesting = 0): boolean {
    if (nesting > MAX_NESTING) return true;
    const [a, b] = this.#unwrap(from, to);
    // An or-pattern always matches when one of its alternatives does.
    let depth = 0;
    let alternative = a;
    let isOr = false;
    for (let i = a; i <= b; i++) {
      const c = this.#opChar(i);
      if (isOpenBracket(c)) depth++;
      else if (isCloseBracket(c)) depth--;
      else if (depth === 0 && c === 124) {
        isOr = true;
        if (!this.#patternRefutable(alternative, i - 1, nesting + 1)) return false;
        alternative = i + 1;
      }
    }
    if (isOr) return this.#patternRefutable(alternative, b, nesting + 1);
    if (a === b) {
      // A capture name or `_` always matches; None/True/False are literal patterns.
      if (this.#t.kind[a] !== T_NAME) return true;
      const word = this.#tokText(a);
      return word === "None" || word === "True" || word === "False";
    }
    // P as name
    if (b - a >= 2 && this.#isName(b - 1, "as") && this.#t.kind[b] === T_NAME) {
      return this.#patternRefutable(a, b - 2, nesting + 1);
    }
    return true;
  }

  /** Whether the brackets at `a` and `b` match each other. */
  #wraps(a: number, b: number): boolean {
    let depth = 0;
    for (let i = a; i <= b; i++) {
      const c = this.#opChar(i);
      if (isOpenBracket(c)) depth++;
      else if (isCloseBracket(c)) {
        depth--;
        if (depth === 0 && i !== b) return false;
      }
    }
    return depth === 0;
  }

  /** The compile-time truth of a test expression, as CPython 3.11's jump folding sees it. */
  #truth(from: number, to: number): Truth {
    if (!this.#evaluateTests) return -1;
    return new ConstEvaluator(this.#text, this.#t).truth(from, to);
  }
}

// ---------------------------------------------------------------------------------------------
// Compile-time constants in tests. CPython 3.11 folds constant expressions in its AST
// optimizer (literals, unary and binary operators on constants, tuples of constants,
// `__debug__`), and its jump compiler follows `not`/`and`/`or` so that `x and False` never
// enters the body. A test that is always false (`if 0:`) leaves its body without bytecode; a
// test that is always true (`while True:`) makes the else branch, and what follows a loop
// without break, unreachable. Anything this evaluator does not understand is "unknown".

type Const =
  | { t: "num"; v: number }
  | { t: "str"; empty: boolean }
  | { t: "other"; truthy: boolean };

const TRUE: Const = { t: "other", truthy: true };
const FALSE: Const = { t: "other", truthy: false };

function truthOf(value: Const): Truth {
  if (value.t === "num") return value.v !== 0 ? 1 : 0;
  if (value.t === "str") return value.empty ? 0 : 1;
  return value.truthy ? 1 : 0;
}

function invert(truth: Truth): Truth {
  return truth === -1 ? -1 : truth === 1 ? 0 : 1;
}

// Binary operators by binding power (higher binds tighter), as in Python's grammar.
const BINARY_POWER: Record<string, number> = {
  "|": 1,
  "^": 2,
  "&": 3,
  "<<": 4,
  ">>": 4,
  "+": 5,
  "-": 5,
  "*": 6,
  "/": 6,
  "//": 6,
  "%": 6,
  "@": 6,
};

class ConstEvaluator {
  readonly #text: string;
  readonly #t: Tokens;

  constructor(text: string, tokens: Tokens) {
    this.#text = text;
    this.#t = tokens;
  }

  #tok(i: number): string {
    return this.#text.slice(this.#t.start[i], this.#t.end[i]);
  }

  #isOpen(i: number): boolean {
    if (this.#t.kind[i] !== T_OP) return false;
    const c = this.#text.charCodeAt(this.#t.start[i] as number);
    return c === 40 || c === 91 || c === 123;
  }

  #isClose(i: number): boolean {
    if (this.#t.kind[i] !== T_OP) return false;
    const c = this.#text.charCodeAt(this.#t.start[i] as number);
    return c === 41 || c === 93 || c === 125;
  }

  /** Splits [from, to) on a top-level keyword or operator; null when it does not occur. */
  #split(from: number, to: number, word: string): [number, number][] | null {
    let depth = 0;
    let partStart = from;
    let parts: [number, number][] | null = null;
    for (let i = from; i < to; i++) {
      if (this.#isOpen(i)) depth++;
      else if (this.#isClose(i)) depth--;
      else if (depth === 0 && this.#tok(i) === word) {
        parts ??= [];
        parts.push([partStart, i]);
        partStart = i + 1;
      }
    }
    if (parts) parts.push([partStart, to]);
    return parts;
  }

  /** Whether [from, to) is one bracketed group `( ... )`. */
  #wrapped(from: number, to: number): boolean {
    if (to - from < 2 || this.#tok(from) !== "(" || this.#tok(to - 1) !== ")") return false;
    let depth = 0;
    for (let i = from; i < to; i++) {
      if (this.#isOpen(i)) depth++;
      else if (this.#isClose(i)) {
        depth--;
        if (depth === 0 && i !== to - 1) return false;
      }
    }
    return true;
  }

  #hasTopLevel(from: number, to: number, words: readonly string[]): boolean {
    let depth = 0;
    for (let i = from; i < to; i++) {
      if (this.#isOpen(i)) depth++;
      else if (this.#isClose(i)) depth--;
      else if (depth === 0 && words.includes(this.#tok(i))) return true;
    }
    return false;
  }

  // Nesting deeper than this is "unknown": keeps pathological inputs linear.
  #depth = 0;

  /** Truth of a test in jump context (compiler_jump_if). */
  truth(from: number, to: number): Truth {
    if (this.#depth > MAX_NESTING) return -1;
    this.#depth++;
    const truth = this.#truth(from, to);
    this.#depth--;
    return truth;
  }

  /** The folded constant of [from, to) (ast_opt), or null when it is not a constant. */
  value(from: number, to: number): Const | null {
    if (this.#depth > MAX_NESTING) return null;
    this.#depth++;
    const value = this.#value(from, to);
    this.#depth--;
    return value;
  }

  #truth(from: number, to: number): Truth {
    if (from >= to) return -1;
    if (this.#hasTopLevel(from, to, ["if", "lambda", ":=", ","])) return -1;
    const ors = this.#split(from, to, "or");
    if (ors) {
      let unknown = false;
      for (const [a, b] of ors) {
        const v = this.truth(a, b);
        if (v === 1) return 1;
        if (v === -1) unknown = true;
      }
      return unknown ? -1 : 0;
    }
    const ands = this.#split(from, to, "and");
    if (ands) {
      let unknown = false;
      for (const [a, b] of ands) {
        const v = this.truth(a, b);
        if (v === 0) return 0;
        if (v === -1) unknown = true;
      }
      return unknown ? -1 : 1;
    }
    if (this.#tok(from) === "not" && this.#t.kind[from] === T_NAME) {
      return invert(this.truth(from + 1, to));
    }
    if (to - from > 2 && this.#wrapped(from, to) && !this.#hasTopLevel(from + 1, to - 1, [","])) {
      return this.truth(from + 1, to - 1);
    }
    const value = this.value(from, to);
    return value === null ? -1 : truthOf(value);
  }

  #value(from: number, to: number): Const | null {
    if (from >= to) return null;
    if (this.#hasTopLevel(from, to, ["if", "lambda", ":=", "or", "and"])) return null;
    if (this.#t.kind[from] === T_NAME && this.#tok(from) === "not") {
      const v = this.value(from + 1, to);
      return v === null ? null : truthOf(v) === 1 ? FALSE : TRUE;
    }
    const state = { i: from };
    const v = this.#binary(state, to, 0);
    return state.i === to ? v : null;
  }

  #binary(state: { i: number }, to: number, minPower: number): Const | null {
    let left = this.#unary(state, to);
    while (state.i < to && this.#t.kind[state.i] === T_OP) {
      const op = this.#tok(state.i);
      const power = BINARY_POWER[op];
      if (power === undefined || power <= minPower) break;
      state.i++;
      const right = this.#binary(state, to, power);
      left = left !== null && right !== null ? fold(op, left, right) : null;
    }
    return left;
  }

  #unary(state: { i: number }, to: number): Const | null {
    if (state.i >= to) return null;
    const op = this.#t.kind[state.i] === T_OP ? this.#tok(state.i) : "";
    if (op === "-" || op === "+" || op === "~") {
      state.i++;
      const v = this.#unary(state, to);
      if (v === null) return null;
      const n = v.t === "num" ? v.v : v.t === "other" ? (v.truthy ? 1 : 0) : null;
      if (n === null) return null;
      return { t: "num", v: op === "-" ? -n : op === "~" ? ~n : n };
    }
    const base = this.#atom(state, to);
    if (state.i < to && this.#tok(state.i) === "**") {
      state.i++;
      const exponent = this.#unary(state, to);
      return base !== null && exponent !== null ? fold("**", base, exponent) : null;
    }
    return base;
  }

  #atom(state: { i: number }, to: number): Const | null {
    const i = state.i;
    const k = this.#t.kind[i];
    const text = this.#tok(i);
    let value: Const | null;
    if (k === T_NUMBER) {
      state.i++;
      value = numberConst(text);
    } else if (k === T_STRING) {
      let empty = true;
      let formatted = false;
      while (state.i < to && this.#t.kind[state.i] === T_STRING) {
        const info = stringInfo(this.#tok(state.i));
        if (!info.empty) empty = false;
        if (info.formatted) formatted = true;
        state.i++;
      }
      value = formatted ? null : { t: "str", empty };
    } else if (k === T_NAME) {
      state.i++;
      if (text === "True" || text === "__debug__") value = TRUE;
      else if (text === "False" || text === "None") value = FALSE;
      else value = null;
    } else if (text === "...") {
      state.i++;
      value = TRUE;
    } else if (text === "(") {
      let depth = 0;
      let close = -1;
      for (let j = i; j < to; j++) {
        if (this.#isOpen(j)) depth++;
        else if (this.#isClose(j) && --depth === 0) {
          close = j;
          break;
        }
      }
      if (close < 0) return null;
      state.i = close + 1;
      const items = this.#split(i + 1, close, ",");
      if (close === i + 1)
        value = FALSE; // ()
      else if (items) {
        // A tuple of constants is a constant; a non-empty one is true.
        const real = items.filter(([a, b]) => b > a);
        value = real.every(([a, b]) => this.value(a, b) !== null) ? TRUE : null;
      } else value = this.value(i + 1, close);
    } else {
      return null;
    }
    // Calls, attributes and subscripts make it a runtime value.
    if (state.i < to) {
      const next = this.#tok(state.i);
      if (next === "(" || next === "[" || next === ".") return null;
    }
    return value;
  }
}

function fold(op: string, a: Const, b: Const): Const | null {
  if (a.t === "str" && b.t === "str" && op === "+") return { t: "str", empty: a.empty && b.empty };
  // "ab" * 0 is "".
  if (op === "*" && a.t === "str" && b.t === "num") return { t: "str", empty: a.empty || b.v <= 0 };
  if (op === "*" && a.t === "num" && b.t === "str") return { t: "str", empty: b.empty || a.v <= 0 };
  const num = (c: Const): number | null =>
    c.t === "num" ? c.v : c.t === "other" ? (c.truthy ? 1 : 0) : null;
  const x = num(a);
  const y = num(b);
  if (x === null || y === null) return null;
  switch (op) {
    case "+":
      return { t: "num", v: x + y };
    case "-":
      return { t: "num", v: x - y };
    case "*":
      return { t: "num", v: x * y };
    case "**":
      return { t: "num", v: x ** y };
    case "|":
      return { t: "num", v: x | y };
    case "&":
      return { t: "num", v: x & y };
    case "^":
      return { t: "num", v: x ^ y };
    case "<<":
      return { t: "num", v: x * 2 ** y };
    case ">>":
      return { t: "num", v: Math.floor(x / 2 ** y) };
    default:
      // Division by zero is left to run time by the optimizer; the rest is rare in tests.
      return null;
  }
}

function numberConst(text: string): Const {
  const clean = text.replaceAll("_", "").toLowerCase();
  if (clean.endsWith("j")) return { t: "num", v: Number.parseFloat(clean.slice(0, -1)) };
  if (clean.startsWith("0x") || clean.startsWith("0o") || clean.startsWith("0b")) {
    return { t: "num", v: /[^0]/.test(clean.slice(2)) ? 1 : 0 };
  }
  const v = Number(clean);
  return { t: "num", v: Number.isNaN(v) ? 1 : v };
}

function stringInfo(token: string): { empty: boolean; formatted: boolean } {
  let p = 0;
  let formatted = false;
  while (p < token.length) {
    const c = token.charCodeAt(p);
    if (c === 34 || c === 39) break;
    if ((c | 0x20) === 0x66) formatted = true;
    p++;
  }
  const q = token.charCodeAt(p);
  const triple =
    token.length - p >= 6 && token.charCodeAt(p + 1) === q && token.charCodeAt(p + 2) === q;
  const quoteLength = triple ? 3 : 1;
  // An f-string is never a constant for the compiler, even without replacement fields.
  return { empty: token.length - p - 2 * quoteLength === 0, formatted };
}

// ---------------------------------------------------------------------------------------------
// Which statements get bytecode. The walk follows CPython 3.11's compiler: statements in
// compile order, a reachability flag for the basic blocks it lays out (dead blocks lose their
// instructions), and three quirks that put line numbers on code that looks dead:
// - co_consts is trimmed only at its end (trim_unused_consts), so a function, class, lambda
//   or comprehension compiled in dead code survives when a live instruction loads a constant
//   added after it; coverage.py walks co_consts and counts the lines of such code objects.
// - The jump that ends a `case` body, and the RERAISE that ends the exception path of a
//   `finally` body, carry the location of the last statement compiled before them, even
//   when that statement is dead (`if False: x = 1` as the last statement).
// - Tuples folded by the bytecode optimizer (constant default values, constant annotations)
//   are appended after all other constants, so a live one keeps every dead code object.

interface LoopState {
  broken: boolean;
}

interface Ctx {
  scope: number;
  loop: LoopState | null;
  pool: Pool;
}

interface Pool {
  add(key: string, live: boolean): void;
  code(live: boolean, survive: () => void): void;
  appendFolded(live: boolean): void;
  finish(): void;
}

/**
 * Stands in for ConstPool on the first pass: constants matter only when dead code holds a
 * code object, which is rare; the first pass only notices whether that happens.
 */
class DeadCodeDetector implements Pool {
  found = false;
  add(): void {}
  code(live: boolean): void {
    if (!live) this.found = true;
  }
  appendFolded(): void {}
  finish(): void {}
}

/** A code object's constant table, as far as trimming is concerned. */
class ConstPool implements Pool {
  readonly #keys = new Map<string, number>();
  #maxLive = 0; // the first constant (docstring or None) is always kept
  #appended = false;
  #codeObjects = 0;
  readonly #pending: { index: number; survive: () => void }[] = [];

  add(key: string, live: boolean): void {
    let index = this.#keys.get(key);
    if (index === undefined) {
      index = this.#keys.size;
      this.#keys.set(key, index);
    }
    if (live && index > this.#maxLive) this.#maxLive = index;
  }

  /** A nested code object; `survive` runs if it stays in co_consts although dead. */
  code(live: boolean, survive: () => void): void {
    const key = `#${this.#codeObjects++}`;
    this.add(key, live);
    if (!live) this.#pending.push({ index: this.#keys.get(key) as number, survive });
  }

  /** A tuple the bytecode optimizer folds and appends after every other constant. */
  appendFolded(live: boolean): void {
    if (live) this.#appended = true;
  }

  finish(): void {
    for (const { index, survive } of this.#pending) {
      if (this.#appended || index <= this.#maxLive) survive();
    }
  }
}

const KEYWORDS = new Set([
  "False",
  "None",
  "True",
  "and",
  "as",
  "assert",
  "async",
  "await",
  "break",
  "class",
  "continue",
  "def",
  "del",
  "elif",
  "else",
  "except",
  "finally",
  "for",
  "from",
  "global",
  "if",
  "import",
  "in",
  "is",
  "lambda",
  "nonlocal",
  "not",
  "or",
  "pass",
  "raise",
  "return",
  "try",
  "while",
  "with",
  "yield",
]);

class Analyzer {
  readonly #text: string;
  readonly #t: Tokens;
  readonly #parser: StatementParser;
  readonly #emitted: Uint8Array;
  readonly #future: boolean;
  /** The first pass's detector, or null when modelling constant pools in full. */
  readonly #detector: DeadCodeDetector | null;

  constructor(
    text: string,
    tokens: Tokens,
    parser: StatementParser,
    emitted: Uint8Array,
    future: boolean,
    detector: DeadCodeDetector | null,
  ) {
    this.#text = text;
    this.#t = tokens;
    this.#parser = parser;
    this.#emitted = emitted;
    this.#future = future;
    this.#detector = detector;
  }

  #newPool(): Pool {
    return this.#detector ?? new ConstPool();
  }

  /**
   * One top-level statement as `module` compiles it when the statements before it let the
   * flow through; `first`: it is the module's first (a string there is the docstring).
   */
  unit(stmt: Stmt, first: boolean): void {
    const pool = this.#newPool();
    const ctx: Ctx = { scope: SCOPE_MODULE, loop: null, pool };
    this.#block([stmt], true, ctx, first);
  }

  module(stmts: readonly Stmt[]): void {
    const pool = this.#newPool();
    const ctx: Ctx = { scope: SCOPE_MODULE, loop: null, pool };
    const end = this.#block(stmts, true, ctx, true);
    pool.add("c:None", end);
    pool.finish();
  }

  #mark(line: number): void {
    this.#emitted[line] = 1;
  }

  #tok(i: number): string {
    return this.#text.slice(this.#t.start[i], this.#t.end[i]);
  }

  /** `stmts` in order; `docScope`: a leading string is a module or class docstring. */
  #block(stmts: readonly Stmt[], reachable: boolean, ctx: Ctx, docScope = false): boolean {
    let r = reachable;
    for (let i = 0; i < stmts.length; i++) {
      const stmt = stmts[i] as Stmt;
      const docstring = i === 0 && docScope ? this.#docstringKey(stmt) : null;
      if (docstring !== null) {
        // Stored as __doc__: code, and a constant.
        if (r) this.#mark(stmt as number);
        ctx.pool.add(docstring, r);
        continue;
      }
      r = this.#stmt(stmt, r, ctx);
    }
    return r;
  }

  /** The constant key of a docstring statement, or null when `stmt` is not one. */
  #docstringKey(stmt: Stmt): string | null {
    if (typeof stmt !== "number") return null;
    const from = this.#t.lineTokStart[stmt] as number;
    const to = this.#t.lineTokEnd[stmt] as number;
    let key = "s:";
    for (let i = from; i < to; i++) {
      if (this.#t.kind[i] !== T_STRING) return null;
      const text = this.#tok(i);
      // Bytes and f-strings are not docstrings.
      if (/^[a-zA-Z]*[bBfF]/.test(text)) return null;
      key += text;
    }
    return key;
  }

  #clause(clause: Clause, reachable: boolean, ctx: Ctx): boolean {
    if (clause.headerCode && reachable) this.#mark(clause.line);
    return this.#block(clause.body, reachable, ctx);
  }

  #hasCode(part: SimplePart, ctx: Ctx): boolean {
    if (part.flags & NO_CODE) return false;
    switch (part.ann) {
      case ANN_NAME:
        // Local variable annotations are never evaluated; module and class ones are stored.
        return ctx.scope !== SCOPE_FUNCTION;
      case ANN_PAREN_NAME:
        // Not stored anywhere; evaluated only outside functions, and not under PEP 563.
        return ctx.scope !== SCOPE_FUNCTION && !this.#future;
      default:
        return true;
    }
  }

  /** A simple statement list on logical line `line`, tokens [from, to). */
  #simple(line: number, from: number, to: number, reachable: boolean, ctx: Ctx): boolean {
    let r = reachable;
    for (const part of this.#parser.simpleParts(from, to)) {
      this.#partConsts(part, r, ctx, line);
      if (!r) continue;
      if (this.#hasCode(part, ctx)) this.#mark(line);
      if (part.term === TERM_BREAK && ctx.loop) ctx.loop.broken = true;
      if (part.term !== TERM_NONE) r = false;
    }
    return r;
  }

  #stmt(stmt: Stmt, reachable: boolean, ctx: Ctx): boolean {
    if (typeof stmt === "number") {
      const from = this.#t.lineTokStart[stmt] as number;
      return this.#simple(stmt, from, this.#t.lineTokEnd[stmt] as number, reachable, ctx);
    }
    switch (stmt.kind) {
      case "inline":
        return this.#simple(stmt.line, stmt.from, stmt.to, reachable, ctx);
      case "if": {
        let r = reachable;
        let out = false;
        for (const { clause, truth } of stmt.tests) {
          if (r) this.#mark(clause.line);
          this.#scan(clause.headFrom, clause.headTo, r && truth === -1, ctx, clause.line);
          if (this.#block(clause.body, r && truth !== 0, ctx)) out = true;
          r = r && truth !== 1;
        }
        if (stmt.orelse) {
          if (this.#clause(stmt.orelse, r, ctx)) out = true;
        } else if (r) {
          out = true;
        }
        return out;
      }
      case "while": {
        const { clause, truth } = stmt;
        const loop: LoopState = { broken: false };
        if (reachable) this.#mark(clause.line);
        this.#scan(clause.headFrom, clause.headTo, reachable && truth === -1, ctx, clause.line);
        this.#block(clause.body, reachable && truth !== 0, { ...ctx, loop });
        const exits = reachable && truth !== 1;
        const out = stmt.orelse ? this.#clause(stmt.orelse, exits, ctx) : exits;
        return out || loop.broken;
      }
      case "for": {
        const { clause } = stmt;
        const loop: LoopState = { broken: false };
        if (reachable) this.#mark(clause.line);
        this.#scan(clause.headFrom, clause.headTo, reachable, ctx, clause.line);
        this.#block(clause.body, reachable, { ...ctx, loop });
        const out = stmt.orelse ? this.#clause(stmt.orelse, reachable, ctx) : reachable;
        return out || loop.broken;
      }
      case "with": {
        const { clause } = stmt;
        this.#scan(clause.headFrom, clause.headTo, reachable, ctx, clause.line);
        this.#clause(clause, reachable, ctx);
        ctx.pool.add("c:None", reachable); // __exit__(None, None, None)
        // The exception path calls __exit__, which may swallow the exception: the code after
        // a with statement is reachable even when its body always returns or raises.
        return reachable;
      }
      case "try": {
        const bodyOut = this.#clause(stmt.clause, reachable, ctx);
        let out = stmt.orelse ? this.#clause(stmt.orelse, bodyOut, ctx) : bodyOut;
        for (const handler of stmt.handlers) {
          this.#scan(handler.headFrom, handler.headTo, reachable, ctx, handler.line);
          if (this.#clause(handler, reachable, ctx)) out = true;
          if (this.#hasName(handler.headFrom, handler.headTo, "as")) {
            ctx.pool.add("c:None", reachable); // name = None; del name
          }
        }
        if (stmt.finalbody) {
          // Compiled twice: on the normal path (reachable when the try part falls through)
          // and on the exception path (reachable whenever the try is). The exception path's
          // cleanup handler is located at the last statement compiled, and is reachable
          // even when the finally body always returns.
          const finalOut = this.#clause(stmt.finalbody, reachable, ctx);
          if (reachable) this.#markLast(stmt.finalbody.body);
          out = out && finalOut;
        }
        return out;
      }
      case "match": {
        const { clause, cases } = stmt;
        if (reachable) this.#mark(clause.line);
        this.#scan(clause.headFrom, clause.headTo, reachable, ctx, clause.line);
        let r = reachable;
        let out = false;
        for (let i = 0; i < cases.length; i++) {
          const c = cases[i] as MatchCase;
          if (r) this.#mark(c.clause.line);
          this.#scan(c.clause.headFrom, c.clause.headTo, r, ctx, c.clause.line);
          const bodyOut = this.#block(c.clause.body, r && c.guard !== 0, ctx);
          if (bodyOut) {
            out = true;
            const isDefault = i === cases.length - 1 && c.wildcard && cases.length > 1;
            if (!isDefault) this.#markLast(c.clause.body);
          }
          r = r && c.refutable;
        }
        return out || r;
      }
      case "def":
        return this.#def(stmt, reachable, ctx);
    }
  }

  #def(stmt: Extract<Stmt, { kind: "def" }>, reachable: boolean, ctx: Ctx): boolean {
    const { clause, decorators } = stmt;
    for (const line of decorators) {
      if (reachable) this.#mark(line);
      const at = this.#t.lineTokStart[line] as number;
      this.#scan(at + 1, this.#t.lineTokEnd[line] as number, reachable, ctx, line);
    }
    if (reachable) this.#mark(clause.line);
    if (stmt.isClass) {
      ctx.pool.code(reachable, () => this.#defBody(stmt, true));
      ctx.pool.add(`s:${this.#tok(clause.headFrom)}`, reachable);
      this.#scan(clause.headFrom + 1, clause.headTo, reachable, ctx, clause.line);
    } else {
      this.#defHeader(clause, reachable, ctx);
      ctx.pool.code(reachable, () => this.#defBody(stmt, true));
    }
    if (reachable) this.#defBody(stmt, false);
    return reachable;
  }

  /** Compiles a function or class body; `dead`: it only survives in co_consts. */
  #defBody(stmt: Extract<Stmt, { kind: "def" }>, dead: boolean): void {
    // A code object's first line (its RESUME) is the first decorator's, or the def's.
    if (dead) this.#mark(stmt.decorators[0] ?? stmt.clause.line);
    const pool = this.#newPool();
    let body = stmt.clause.body;
    if (stmt.isClass) {
      pool.add("q:", true); // __qualname__
      const ctx: Ctx = { scope: SCOPE_CLASS, loop: null, pool };
      const end = this.#block(body, true, ctx, true);
      pool.add("c:None", end);
    } else {
      const first = body[0];
      const docstring = first === undefined ? null : this.#docstringKey(first);
      // co_consts[0] is the docstring, or None.
      pool.add(docstring ?? "c:None", true);
      if (docstring !== null) body = body.slice(1);
      const ctx: Ctx = { scope: SCOPE_FUNCTION, loop: null, pool };
      const end = this.#block(body, true, ctx);
      pool.add("c:None", end);
    }
    pool.finish();
  }

  /** Constants of a def header: defaults, annotations; folded tuples are appended. */
  #defHeader(clause: Clause, live: boolean, ctx: Ctx): void {
    if (this.#detector && live) return;
    const open = clause.headFrom + 1;
    if (!(this.#t.kind[open] === T_OP && this.#tok(open) === "(")) return;
    let depth = 0;
    let close = open;
    for (let i = open; i < clause.headTo; i++) {
      const c = this.#text.charCodeAt(this.#t.start[i] as number);
      if (this.#t.kind[i] !== T_OP) continue;
      if (isOpenBracket(c)) depth++;
      else if (isCloseBracket(c) && --depth === 0) {
        close = i;
        break;
      }
    }
    let keywordOnly = false;
    let defaults = 0;
    let constantDefaults = 0;
    let annotations = 0;
    let constantAnnotations = 0;
    let paramStart = open + 1;
    const param = (from: number, to: number) => {
      if (from >= to) return;
      const first = this.#tok(from);
      if (first === "*" || first === "**") keywordOnly = true;
      let colon = -1;
      let equals = -1;
      let d = 0;
      for (let i = from; i < to; i++) {
        const text = this.#tok(i);
        if (this.#t.kind[i] !== T_OP) continue;
        const c = text.charCodeAt(0);
        if (isOpenBracket(c)) d++;
        else if (isCloseBracket(c)) d--;
        else if (d === 0 && text === ":" && colon < 0) colon = i;
        else if (d === 0 && text === "=" && equals < 0) equals = i;
      }
      const nameEnd = colon >= 0 ? colon : equals >= 0 ? equals : to;
      if (colon >= 0) {
        annotations++;
        const annEnd = equals >= 0 ? equals : to;
        ctx.pool.add(`s:${this.#tok(nameEnd - 1)}`, live);
        if (this.#future || this.#isLiteral(colon + 1, annEnd)) constantAnnotations++;
        if (this.#future) ctx.pool.add(`a:${this.#tok(colon + 1)}`, live);
        else this.#scan(colon + 1, annEnd, live, ctx, clause.line);
      }
      if (equals >= 0) {
        if (!keywordOnly) {
          defaults++;
          if (this.#isLiteral(equals + 1, to)) constantDefaults++;
        } else {
          ctx.pool.add(`s:${this.#tok(nameEnd - 1)}`, live);
        }
        this.#scan(equals + 1, to, live, ctx, clause.line);
      }
    };
    depth = 0;
    for (let i = open + 1; i < close; i++) {
      if (this.#t.kind[i] !== T_OP) continue;
      const text = this.#tok(i);
      const c = text.charCodeAt(0);
      if (isOpenBracket(c)) depth++;
      else if (isCloseBracket(c)) depth--;
      else if (depth === 0 && text === ",") {
        param(paramStart, i);
        paramStart = i + 1;
      }
    }
    param(paramStart, close);
    if (close + 1 < clause.headTo && this.#tok(close + 1) === "->") {
      annotations++;
      ctx.pool.add("s:return", live);
      if (this.#future || this.#isLiteral(close + 2, clause.headTo)) constantAnnotations++;
      if (!this.#future) this.#scan(close + 2, clause.headTo, live, ctx, clause.line);
    }
    // BUILD_TUPLE of constants is folded after compilation and appended to co_consts.
    if (defaults > 0 && constantDefaults === defaults) ctx.pool.appendFolded(live);
    if (annotations > 0 && constantAnnotations === annotations) ctx.pool.appendFolded(live);
  }

  #isLiteral(from: number, to: number): boolean {
    if (from >= to) return false;
    for (let i = from; i < to; i++) {
      const k = this.#t.kind[i];
      const text = this.#tok(i);
      if (k === T_NUMBER || (k === T_STRING && !/^[a-zA-Z]*[fF]/.test(text))) continue;
      if (k === T_NAME && (text === "None" || text === "True" || text === "False")) continue;
      if (k === T_OP && (text === "-" || text === "(" || text === ")" || text === ",")) continue;
      if (k === T_OP && text === "...") continue;
      return false;
    }
    return true;
  }

  #hasName(from: number, to: number, word: string): boolean {
    for (let i = from; i < to; i++) {
      if (this.#t.kind[i] === T_NAME && this.#tok(i) === word) return true;
    }
    return false;
  }

  /** Constants a simple statement adds to the pool. */
  #partConsts(part: SimplePart, live: boolean, ctx: Ctx, line: number): void {
    const { from, to } = part;
    if (part.flags !== 0) return;
    if (part.ann === ANN_NAME || part.ann === ANN_PAREN_NAME) {
      if (ctx.scope === SCOPE_FUNCTION) return;
      if (part.ann === ANN_NAME) ctx.pool.add(`s:${this.#tok(from)}`, live);
      this.#scan(from + 1, to, live, ctx, line);
      return;
    }
    const first = this.#t.kind[from] === T_NAME ? this.#tok(from) : "";
    if (first === "import") {
      ctx.pool.add("n:0", live);
      ctx.pool.add("c:None", live);
      return;
    }
    if (first === "from") {
      let level = 0;
      let i = from + 1;
      for (; i < to; i++) {
        const text = this.#tok(i);
        if (text === ".") level++;
        else if (text === "...") level += 3;
        else break;
      }
      while (i < to && this.#tok(i) !== "import") i++;
      let names = "";
      for (let j = i + 1; j < to; j++) {
        if (this.#t.kind[j] === T_NAME && this.#tok(j - 1) !== "as") names += `${this.#tok(j)},`;
        else if (this.#tok(j) === "*") names += "*";
      }
      ctx.pool.add(`n:${level}`, live);
      ctx.pool.add(`t:${names}`, live);
      return;
    }
    if ((first === "return" || first === "yield") && to - from === 1) {
      ctx.pool.add("c:None", live);
      return;
    }
    this.#scan(from, to, live, ctx, line);
  }

  /**
   * Adds the constants an expression's bytecode loads (approximately: literals, keyword
   * argument names, the None of await/yield) and its nested code objects (lambdas,
   * comprehensions) to the pool.
   */
  #scan(from: number, to: number, live: boolean, ctx: Ctx, line: number): void {
    if (this.#detector && live) return;
    // Per open bracket: keyword names when it is a call's parenthesis, null otherwise; and
    // whether a comprehension was already counted inside it.
    const calls: (string[] | null)[] = [];
    const comprehensions: boolean[] = [];
    const survive = () => this.#mark(line);
    for (let i = from; i < to; i++) {
      const k = this.#t.kind[i];
      if (k === T_STRING) {
        let key = "s:";
        while (i < to && this.#t.kind[i] === T_STRING) key += this.#tok(i++);
        i--;
        ctx.pool.add(key, live);
        continue;
      }
      const text = this.#tok(i);
      if (k === T_NUMBER) {
        const prev = i > from ? this.#tok(i - 1) : "";
        const before = i - 1 > from ? i - 2 : -1;
        const unary =
          prev === "-" &&
          (before < 0 ||
            (this.#t.kind[before] === T_OP && !isCloseBracket(this.#tok(before).charCodeAt(0))) ||
            (this.#t.kind[before] === T_NAME && KEYWORDS.has(this.#tok(before))));
        ctx.pool.add(`n:${unary ? "-" : ""}${text}`, live);
        continue;
      }
      if (k === T_NAME) {
        if (text === "None" || text === "True" || text === "False") {
          ctx.pool.add(`c:${text}`, live);
        } else if (text === "lambda") {
          ctx.pool.code(live, survive);
        } else if (text === "for" && calls.length > 0 && !comprehensions[calls.length - 1]) {
          comprehensions[calls.length - 1] = true;
          ctx.pool.code(live, survive);
        } else if (text === "await" || text === "yield") {
          ctx.pool.add("c:None", live);
        }
        continue;
      }
      if (k !== T_OP) continue;
      const c = text.charCodeAt(0);
      if (text === "...") {
        ctx.pool.add("c:...", live);
      } else if (isOpenBracket(c)) {
        const prevKind = i > from ? this.#t.kind[i - 1] : 0;
        const prev = i > from ? this.#tok(i - 1) : "";
        const call =
          c === 40 &&
          ((prevKind === T_NAME && !KEYWORDS.has(prev)) ||
            prevKind === T_STRING ||
            (prevKind === T_OP && isCloseBracket(prev.charCodeAt(0))));
        calls.push(call ? [] : null);
        comprehensions.push(false);
      } else if (isCloseBracket(c)) {
        const names = calls.pop();
        comprehensions.pop();
        if (names && names.length > 0) ctx.pool.add(`k:${names.join(",")}`, live);
      } else if (text === "=" && calls.length > 0) {
        const top = calls[calls.length - 1];
        if (top && this.#t.kind[i - 1] === T_NAME) top.push(this.#tok(i - 1));
      }
    }
  }

  /** Marks the location the compiler holds after `stmts`: that of the last one compiled. */
  #markLast(stmts: readonly Stmt[]): void {
    const line = this.#lastLocation(stmts);
    if (line >= 0) this.#mark(line);
  }

  #lastLocation(stmts: readonly Stmt[]): number {
    const stmt = stmts[stmts.length - 1];
    if (stmt === undefined) return -1;
    if (typeof stmt === "number") return stmt;
    switch (stmt.kind) {
      case "inline":
        return stmt.line;
      case "if":
        return stmt.orelse
          ? this.#lastLocation(stmt.orelse.body)
          : this.#lastLocation(
              (stmt.tests[stmt.tests.length - 1] as { clause: Clause }).clause.body,
            );
      case "while":
        return stmt.orelse ? this.#lastLocation(stmt.orelse.body) : stmt.clause.line;
      case "for":
        return stmt.orelse ? this.#lastLocation(stmt.orelse.body) : -1;
      case "with":
        return -1;
      case "try":
        return stmt.finalbody ? this.#lastLocation(stmt.finalbody.body) : -1;
      case "match": {
        const last = stmt.cases[stmt.cases.length - 1] as MatchCase;
        const hasDefault = last.wildcard && stmt.cases.length > 1;
        return hasDefault ? this.#lastLocation(last.clause.body) : last.clause.line;
      }
      case "def":
        return stmt.clause.line;
    }
  }
}

/** `from __future__ import annotations` among the module's leading statements. */
function hasFutureAnnotations(text: string, tokens: Tokens, module: readonly Stmt[]): boolean {
  for (const stmt of module) {
    if (typeof stmt !== "number") return false;
    const from = tokens.lineTokStart[stmt] as number;
    const words: string[] = [];
    for (let i = from; i < (tokens.lineTokEnd[stmt] as number); i++) {
      words.push(text.slice(tokens.start[i], tokens.end[i]));
    }
    if (words[0] === "from" && words[1] === "__future__") {
      if (words.includes("annotations")) return true;
      continue;
    }
    // The module docstring may come before __future__ imports.
    if (stmt === module[0] && tokens.kind[from] === T_STRING) continue;
    return false;
  }
  return false;
}

/**
 * Files the statement finder reads: `.py`/`.pyw`, and scripts without that ending whose
 * first line runs Python (`#!/usr/bin/env python3`), which coverage.py measures when a test
 * runs them (`runpy.run_path("bin/tool")`). Anything else measured (a template a coverage
 * plugin traced) keeps one statement per line.
 */
export function isPythonSource(path: string, text: string): boolean {
  if (path.endsWith(".py") || path.endsWith(".pyw")) return true;
  if (!text.startsWith("#!")) return false;
  const end = text.indexOf("\n");
  return /^#![^\r]*\bpython[0-9.]*\b/.test(end < 0 ? text : text.slice(0, end));
}

/**
 * A Python file's code as text: its logical lines' tokens, one line each, without comments and
 * without docstrings (coverage.py's rule: a string statement first in the file or first in a
 * block). Other strings stay: `importlib.import_module(".cli", __name__)` names its module in
 * one. Null when the file does not tokenize.
 */
export function pythonCodeText(source: string): string | null {
  const text = normalizeSource(source);
  let tokens: Tokens;
  try {
    tokens = tokenize(text, "Python source");
  } catch {
    return null;
  }
  const lines: string[] = [];
  for (let n = 0; n < tokens.logicalCount; n++) {
    if (tokens.lineDocstring[n] === 1) continue;
    const parts: string[] = [];
    for (let t = tokens.lineTokStart[n] as number; t < (tokens.lineTokEnd[n] as number); t++) {
      parts.push(text.slice(tokens.start[t] as number, tokens.end[t] as number));
    }
    if (parts.length > 0) lines.push(parts.join(" "));
  }
  return lines.join("\n");
}

/** coverage.py's default `exclude_lines` (DEFAULT_EXCLUDE): the `# pragma: no cover` comment. */
export const DEFAULT_EXCLUDE = /#\s*(pragma|PRAGMA)[:\s]?\s*(no|NO)\s*(cover|COVER)/;

/** `pattern` with `^` and `$` at every line's ends, made once per pattern (audits ask per file). */
const multiline = new WeakMap<RegExp, RegExp>();
function multilineOf(pattern: RegExp): RegExp {
  let found = multiline.get(pattern);
  if (found === undefined) {
    found = new RegExp(pattern.source, "m");
    multiline.set(pattern, found);
  }
  return found;
}

/**
 * The first lines of the statements coverage.py excludes from its report for `pattern`
 * (coverage/parser.py `_raw_parse`, 6.x and 7.x): a statement any of whose physical lines
 * matches; the whole suite of a compound statement whose `:` sits on a matching line; and a
 * decorated definition whose decorator matches, with its suite. Empty when no line matches or
 * the file does not tokenize (nothing is then taken out of the audit).
 */
export function excludedStatements(source: string, pattern: RegExp = DEFAULT_EXCLUDE): Set<number> {
  const out = new Set<number>();
  const text = normalizeSource(source);
  // Tested line by line, as coverage.py does (`^` is a line's start); first once over the text.
  if (!multilineOf(pattern).test(text)) return out;
  const physical = text.split("\n");
  const raw = new Set<number>();
  for (const [i, line] of physical.entries()) if (pattern.test(line)) raw.add(i + 1);
  let tokens: Tokens;
  try {
    tokens = tokenize(text, "Python source");
  } catch {
    return out;
  }
  const lineAt = lineOfOffset(text);
  let excluding = false;
  let excludeDepth = 0;
  let decorators = false;
  for (let n = 0; n < tokens.logicalCount; n++) {
    const first = tokens.lineFirst[n] as number;
    const depth = tokens.lineDepth[n] as number;
    if (excluding && depth <= excludeDepth) excluding = false;
    if (excluding) out.add(first);
    for (let l = first; l <= (tokens.lineLast[n] as number); l++) if (raw.has(l)) out.add(first);
    const from = tokens.lineTokStart[n] as number;
    const to = tokens.lineTokEnd[n] as number;
    let nesting = 0;
    for (let t = from; t < to; t++) {
      if (tokens.kind[t] !== T_OP) continue;
      const s = tokens.start[t] as number;
      const op = text.slice(s, tokens.end[t] as number);
      if (op === "@" && t === from) {
        if (raw.has(lineAt(s))) decorators = true;
        if (decorators) out.add(first);
      } else if (op === ":" && nesting === 0) {
        if (!excluding && (raw.has(lineAt(s)) || decorators)) {
          out.add(first);
          excludeDepth = depth;
          excluding = true;
          decorators = false;
        }
      } else if (op === "(" || op === "[" || op === "{") nesting++;
      else if (op === ")" || op === "]" || op === "}") nesting--;
    }
  }
  return out;
}
