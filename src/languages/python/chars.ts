// What the tokenizer (statements.ts) and the logical-line scanner
// (logical-lines.ts) share: character classes and the start of a line outside
// brackets. Both must read a line the same way.

// ASCII character classes: 1 identifier start, 2 digit (both are identifier characters).
const ASCII_CLASS = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) ASCII_CLASS[c] = 1;
  else if (c >= 48 && c <= 57) ASCII_CLASS[c] = 2;
}

export function isIdentStart(c: number): boolean {
  return c < 128 ? ASCII_CLASS[c] === 1 : !isOddSpace(c);
}

export function isIdentChar(c: number): boolean {
  return c < 128 ? ASCII_CLASS[c] !== 0 : !isOddSpace(c);
}

// Non-ASCII characters are identifier characters in valid Python except these separators;
// treating them as such keeps the tokenizer linear and never splits a line.
function isOddSpace(c: number): boolean {
  return c === 0xa0 || c === 0x85 || c === 0x2028 || c === 0x2029 || c === 0xfeff;
}

/** Whether text[from, to) is a string prefix (r, u, f, b, br, rb, fr, rf in any case), or empty. */
export function isStringPrefix(text: string, from: number, to: number): boolean {
  const len = to - from;
  if (len === 0 || len > 2) return len === 0;
  const a = text.charCodeAt(from) | 0x20;
  if (len === 1) return a === 0x72 || a === 0x75 || a === 0x66 || a === 0x62; // r u f b
  const b = text.charCodeAt(from + 1) | 0x20;
  // br rb fr rf
  return (
    (a === 0x62 && b === 0x72) ||
    (a === 0x72 && b === 0x62) ||
    (a === 0x66 && b === 0x72) ||
    (a === 0x72 && b === 0x66)
  );
}

/**
 * Whether the string prefix text[from, to) makes an f-string (it holds an f or F). Python
 * never takes an f-string for a docstring, nor a statement with an f-string part: it runs
 * code.
 */
export function isFormatPrefix(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if ((text.charCodeAt(i) | 0x20) === 0x66) return true;
  return false;
}

/** What indentStart saw: the line opens an indented block, keeps it, or closes blocks. */
export const INDENT = 1;
export const SAME = 0;
export const DEDENT = -1;
/** An unindent to no outer level: the tokenizer's error. */
export const BAD_DEDENT = 2;
/** Set by indentStart for a line of code. */
export let indentMove = SAME;

/**
 * The start of the line at `pos` (ending at `eol`) outside brackets and continuations, as
 * Lib/tokenize.py reads it: the offset of its first token, or -1 for a blank or comment-only
 * line (which neither opens nor closes a block). For a line of code `indents` (the open
 * blocks' columns, with tab stops of 8) is updated and `indentMove` says how.
 */
export function indentStart(text: string, pos: number, eol: number, indents: number[]): number {
  let column = 0;
  let i = pos;
  while (i < eol) {
    const c = text.charCodeAt(i);
    if (c === 32) column++;
    else if (c === 9) column = (Math.floor(column / 8) + 1) * 8;
    else if (c === 12) column = 0;
    else break;
    i++;
  }
  if (i === eol || text.charCodeAt(i) === 35 /* # */) return -1;
  const top = indents[indents.length - 1] as number;
  if (column > top) {
    indents.push(column);
    indentMove = INDENT;
  } else if (column < top) {
    while (column < (indents[indents.length - 1] as number)) indents.pop();
    indentMove = column === indents[indents.length - 1] ? DEDENT : BAD_DEDENT;
  } else {
    indentMove = SAME;
  }
  return i;
}
