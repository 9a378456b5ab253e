// The tokenizer's logical lines (statements.ts) without its tokens: which physical lines
// form each logical line, and which logical lines are docstrings. An audit needs only this for
// most changed files (the full statement model is asked for only where a changed line never
// ran), and recording every token cost about three times as much as this scan on a cold start:
// here the JavaScript runs once per line and once per bracket, quote, "#" or backslash, and the
// regular expression engine skips everything else.
//
// It follows tokenize() in statements.ts step by step and must give the same answer:
// test/unit/python-logical-lines.test.ts compares the two over the standard library and
// thousands of mutated modules. Where tokenize() would refuse the text (an unterminated
// string, a bracket or backslash open at the end, an unindent to no outer level), this gives
// up and returns null, so that the caller runs tokenize() and reports its error.

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

/** The characters that can change a line's structure: brackets, quotes, "#" and "\". */
const SPECIAL = /["'#\\()[\]{}]/g;
/** What can end a single-quoted string: its quote, a backslash, a newline. */
const SINGLE_END = /['\\\n]/g;
const DOUBLE_END = /["\\\n]/g;

/** Newlines inside the string literal stringEnd read last. */
let stringNewlines = 0;
/**
 * The first backslash at or after where stringEnd last looked for one in the text being
 * scanned (-1: none left; -2: not looked yet). Kept from string to string: searched afresh
 * each time, a file of many triple-quoted strings and few backslashes was read to its end
 * once per string.
 */
let backslashAt = -2;

/** The first backslash at or after `i`; calls for one text must ask for rising `i`. */
function backslashFrom(text: string, i: number): number {
  if (backslashAt !== -1 && backslashAt < i) backslashAt = text.indexOf("\\", i);
  return backslashAt;
}

/** The end offset of the string literal whose opening quote is at `quote`, or -1 (unterminated). */
function stringEnd(text: string, quote: number): number {
  const q = text.charCodeAt(quote);
  if (text.charCodeAt(quote + 1) === q && text.charCodeAt(quote + 2) === q) {
    const closing = q === 34 ? '"""' : "'''";
    let i = quote + 3;
    let close = text.indexOf(closing, i);
    let backslash = backslashFrom(text, i);
    // A backslash escapes the character after it, which may be the first of the closing three.
    while (close >= 0 && backslash >= 0 && backslash < close) {
      i = backslash + 2;
      if (close < i) close = text.indexOf(closing, i);
      backslash = backslashFrom(text, i);
    }
    if (close < 0) return -1;
    let newlines = 0;
    for (let n = text.indexOf("\n", quote); n >= 0 && n < close; n = text.indexOf("\n", n + 1)) {
      newlines++;
    }
    stringNewlines = newlines;
    return close + 3;
  }
  const end = q === 34 ? DOUBLE_END : SINGLE_END;
  let newlines = 0;
  end.lastIndex = quote + 1;
  while (end.test(text)) {
    const at = end.lastIndex - 1;
    const c = text.charCodeAt(at);
    if (c === q) {
      stringNewlines = newlines;
      return at + 1;
    }
    if (c === 10) return -1;
    // A backslash: the next character is the string's, and a newline continues it.
    if (text.charCodeAt(at + 1) === 10) newlines++;
    end.lastIndex = at + 2;
  }
  return -1;
}

/** Where the string token (with any prefix) at `i` opens its quote, or -1 if it is no string. */
function stringQuote(text: string, i: number, eol: number): number {
  let j = i;
  if (isIdentStart(text.charCodeAt(i))) {
    j = i + 1;
    while (j < eol && isIdentChar(text.charCodeAt(j))) j++;
  }
  const q = j < eol ? text.charCodeAt(j) : 0;
  return (q === 34 || q === 39) && isStringPrefix(text, i, j) ? j : -1;
}

/**
 * For each physical line 1..n of normalized source text (LF line ends, no form feeds or BOM),
 * the first line of the logical line that holds it, or 0 for blank and comment-only lines
 * between logical lines and for docstring lines; index 0 is unused. Null where tokenize()
 * refuses the text.
 */
export function scanLogicalLines(text: string): Int32Array | null {
  const len = text.length;
  backslashAt = -2;
  let firstOf = new Int32Array(64 + (len >> 3));
  const indents: number[] = [0];
  let lineNo = 0;
  let pos = 0; // start of the current physical line
  let parenLevel = 0;
  let continued = false;
  // As in tokenize(): an INDENT just emitted (or the start of the file) makes a first STRING
  // token a docstring candidate.
  let prevWasIndent = true;
  let open = false; // the logical line being read has a token
  let logicalFirst = 0;
  let docstring = false;
  let next = -2; // the next special character at or after where it was looked for; -1: none

  while (pos < len || continued || parenLevel > 0) {
    if (pos >= len) return null; // end of file in a multi-line statement
    lineNo++;
    let eol = text.indexOf("\n", pos);
    if (eol < 0) eol = len;
    let i = pos;

    if (parenLevel === 0 && !continued) {
      i = indentStart(text, pos, eol, indents);
      if (i < 0) {
        prevWasIndent = false;
        pos = eol + 1;
        continue;
      }
      if (indentMove === BAD_DEDENT) return null;
      if (indentMove !== SAME) prevWasIndent = indentMove === INDENT;
    } else {
      continued = false;
    }

    if (!open) {
      // The logical line's first token; only after a line holding just a backslash can it be
      // missing from this line.
      while (i < eol) {
        const c = text.charCodeAt(i);
        if (c === 32 || c === 9 || c === 12) i++;
        else break;
      }
      if (i < eol) {
        const c = text.charCodeAt(i);
        if (c === 35) {
          i = eol;
        } else if (c === 92 && i + 1 === eol && eol < len) {
          continued = true;
          i = eol;
        } else {
          open = true;
          logicalFirst = lineNo;
          docstring = prevWasIndent && stringQuote(text, i, eol) >= 0;
        }
      }
    }

    while (i < eol) {
      // The quote of the next string, read past below; other characters are handled here.
      let quote: number;
      if (docstring) {
        // A docstring candidate stays one while only strings follow: read token by token.
        const c = text.charCodeAt(i);
        if (c === 32 || c === 9 || c === 12) {
          i++;
          continue;
        }
        if (c === 35) break;
        if (c === 92 && i + 1 === eol && eol < len) {
          continued = true;
          break;
        }
        quote = stringQuote(text, i, eol);
        // Other tokens, or an f-string part, make it a statement: read on as one.
        if (quote < 0 || (quote > i && isFormatPrefix(text, i, quote))) {
          docstring = false;
          continue;
        }
      } else {
        if (next < i && next !== -1) {
          SPECIAL.lastIndex = i;
          next = SPECIAL.test(text) ? SPECIAL.lastIndex - 1 : -1;
        }
        if (next === -1 || next >= eol) break;
        i = next;
        const c = text.charCodeAt(i);
        if (c === 35) break; // a comment runs to the end of the line
        if (c !== 34 && c !== 39) {
          if (c === 92) {
            if (i + 1 === eol && eol < len) {
              continued = true;
              break;
            }
          } else if (c === 40 || c === 91 || c === 123) {
            parenLevel++;
          } else if (parenLevel > 0) {
            parenLevel--;
          }
          i++;
          continue;
        }
        quote = i;
      }
      const end = stringEnd(text, quote);
      if (end < 0) return null;
      if (stringNewlines > 0) {
        lineNo += stringNewlines;
        eol = text.indexOf("\n", end);
        if (eol < 0) eol = len;
      }
      i = end;
    }

    // NEWLINE: the logical line ends here unless a bracket or backslash carries it on.
    if (!continued && parenLevel === 0 && open) {
      if (!docstring) {
        if (lineNo >= firstOf.length) {
          const bigger = new Int32Array(Math.max(lineNo + 1, firstOf.length * 2));
          bigger.set(firstOf);
          firstOf = bigger;
        }
        for (let l = logicalFirst; l <= lineNo; l++) firstOf[l] = logicalFirst;
      }
      open = false;
    }
    prevWasIndent = false;
    pos = eol + 1;
  }
  // Numbered as tokenize() numbers them: text.split("\n") minus the remainder after a final
  // newline.
  const physical = len === 0 ? 0 : text.endsWith("\n") ? lineNo : Math.max(lineNo, 1);
  if (firstOf.length === physical + 1) return firstOf;
  const exact = new Int32Array(physical + 1);
  exact.set(firstOf.subarray(0, physical + 1));
  return exact;
}
