// Python's shlex.split (POSIX mode, no comments): how pytest splits an `addopts` or
// `python_files` string into arguments; and its inverse for one word, shlex.quote. Pure.

/** Where shlex.split raises ValueError. */
export class ShlexError extends Error {
  constructor(readonly reason: "no closing quotation" | "no escaped character") {
    super(reason);
  }
}

/** shlex's whitespace: these four only (a form feed or a no-break space is part of a word). */
const WHITESPACE = new Set([" ", "\t", "\r", "\n"]);

/**
 * The words of `text`: single quotes keep everything, a backslash escapes the next character
 * outside quotes and only `"` and `\` inside double quotes. Throws ShlexError on an unclosed
 * quote or a trailing backslash.
 */
export function shlexSplit(text: string): string[] {
  const out: string[] = [];
  let token: string | null = null;
  let quote: string | null = null;
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (quote === "'") {
      if (c === "'") quote = null;
      else token = `${token ?? ""}${c}`;
    } else if (quote === '"') {
      if (c === '"') quote = null;
      else if (c === "\\" && i + 1 >= text.length) throw new ShlexError("no escaped character");
      else if (c === "\\" && (text[i + 1] === '"' || text[i + 1] === "\\")) {
        token = `${token ?? ""}${text[++i]}`;
      } else token = `${token ?? ""}${c}`;
    } else if (WHITESPACE.has(c)) {
      if (token !== null) out.push(token);
      token = null;
    } else if (c === "'" || c === '"') {
      quote = c;
      token ??= "";
    } else if (c === "\\") {
      if (i + 1 >= text.length) throw new ShlexError("no escaped character");
      token = (token ?? "") + text[++i];
    } else token = (token ?? "") + c;
  }
  if (quote !== null) throw new ShlexError("no closing quotation");
  if (token !== null) out.push(token);
  return out;
}

/** A word as a POSIX shell reads it back unchanged: bare when safe, else single-quoted. */
export function shellWord(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replaceAll("'", "'\\''")}'`;
}
