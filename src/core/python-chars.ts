// Character classes of Python source that the tokenizer (python-statements.ts) and the
// logical-line scanner (python-logical-lines.ts) share: both must read a line the same way.

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
