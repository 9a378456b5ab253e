// TOML text read for editing in place: where a table's keys and values stand, so that a value
// can be extended without writing the document anew (its comments and layout stay). The values
// themselves are read by the TOML parser; this finds only positions. Pure.

/** Where the text cannot be scanned (a parser would refuse it, or it is written unusually). */
export class TomlScanError extends Error {}

/** Index just after a TOML string starting at `start` (any of the four kinds). */
export function skipString(text: string, start: number): number {
  const quote = text[start] as string;
  const triple = text.startsWith(quote.repeat(3), start);
  const delimiter = triple ? quote.repeat(3) : quote;
  let i = start + delimiter.length;
  while (i < text.length) {
    if (quote === '"' && text[i] === "\\") {
      i += 2;
      continue;
    }
    if (text.startsWith(delimiter, i)) {
      // A multi-line string may end with up to two extra quotes before its delimiter.
      let end = i + delimiter.length;
      if (triple) while (text[end] === quote && end < i + delimiter.length + 2) end += 1;
      return end;
    }
    if (!triple && text[i] === "\n") break;
    i += 1;
  }
  throw new TomlScanError("an unterminated string");
}

export interface ValueShape {
  end: number;
  /** Index just after the last value or comma inside the array (start + 1 when empty). */
  lastEnd: number;
  lastWasComma: boolean;
  empty: boolean;
}

/** Index just after the TOML value at `start`; for arrays also where the last item ends. */
export function skipValue(text: string, start: number): ValueShape {
  const ch = text[start];
  if (ch === '"' || ch === "'") {
    const end = skipString(text, start);
    return { end, lastEnd: end, lastWasComma: false, empty: false };
  }
  if (ch === "[" || ch === "{") {
    const close = ch === "[" ? "]" : "}";
    let i = start + 1;
    let lastEnd = start + 1;
    let lastWasComma = false;
    let empty = true;
    while (i < text.length) {
      const c = text[i] as string;
      if (c === close) return { end: i + 1, lastEnd, lastWasComma, empty };
      if (c === "#") {
        while (i < text.length && text[i] !== "\n") i += 1;
      } else if (/\s/.test(c)) {
        i += 1;
      } else if (c === ",") {
        i += 1;
        lastEnd = i;
        lastWasComma = true;
      } else if (ch === "{" && c !== '"' && c !== "'" && c !== "[" && c !== "{") {
        i += 1; // keys, "=" and bare values of an inline table
        lastEnd = i;
      } else {
        const inner = skipValue(text, i);
        i = inner.end;
        lastEnd = i;
        lastWasComma = false;
        empty = false;
      }
    }
    throw new TomlScanError("an unterminated array or inline table");
  }
  // A bare value (number, boolean, date): up to a comma, bracket, comment or line end.
  let i = start;
  while (i < text.length && !/[,\]}#\n]/.test(text[i] as string)) i += 1;
  while (i > start && /\s/.test(text[i - 1] as string)) i -= 1;
  return { end: i, lastEnd: i, lastWasComma: false, empty: false };
}

export interface TomlKeyValue {
  key: string;
  valueStart: number;
  shape: ValueShape;
  lineStart: number;
}

/**
 * The table `[a.b.c]` (its dotted name as `parts`): where its header line ends and its
 * key/value pairs; null when no header line names it (a table written as dotted keys or
 * inline is not found).
 */
export function tableEntries(
  text: string,
  parts: readonly string[],
): { headerEnd: number; pairs: TomlKeyValue[] } | null {
  const name = parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")).join("[ \\t]*\\.[ \\t]*");
  const header = new RegExp(`^[ \\t]*\\[[ \\t]*${name}[ \\t]*\\][ \\t]*(#[^\\n]*)?\\r?$`, "m");
  // Scan the whole file so that a "[" inside a multi-line value is never taken for a header.
  let i = 0;
  let inTable = false;
  let headerEnd = -1;
  const pairs: TomlKeyValue[] = [];
  while (i < text.length) {
    const lineStart = i;
    while (i < text.length && (text[i] === " " || text[i] === "\t")) i += 1;
    const c = text[i];
    if (c === undefined) break;
    if (c === "\n" || c === "\r" || c === "#") {
      while (i < text.length && text[i] !== "\n") i += 1;
      i += 1;
      continue;
    }
    if (c === "[") {
      const lineEnd = text.indexOf("\n", i);
      const line = text.slice(lineStart, lineEnd < 0 ? text.length : lineEnd);
      if (inTable) break;
      if (header.test(line)) {
        inTable = true;
        headerEnd = lineEnd < 0 ? text.length : lineEnd + 1;
      }
      i = lineEnd < 0 ? text.length : lineEnd + 1;
      continue;
    }
    // key = value
    const eq = findKeyEnd(text, i);
    const key = text
      .slice(i, eq)
      .trim()
      .split(".")
      .map((part) => part.trim().replace(/^(["'])(.*)\1$/, "$2"))
      .join(".");
    let v = eq + 1;
    while (text[v] === " " || text[v] === "\t") v += 1;
    const shape = skipValue(text, v);
    if (inTable) pairs.push({ key, valueStart: v, shape, lineStart });
    i = shape.end;
    while (i < text.length && text[i] !== "\n") i += 1;
    i += 1;
  }
  return inTable ? { headerEnd, pairs } : null;
}

/** Index of the "=" that ends the key starting at `start` (quoted keys may contain "="). */
function findKeyEnd(text: string, start: number): number {
  let i = start;
  while (i < text.length && text[i] !== "=" && text[i] !== "\n") {
    if (text[i] === '"' || text[i] === "'") i = skipString(text, i);
    else i += 1;
  }
  if (text[i] !== "=") throw new TomlScanError("a line that is not a key/value pair");
  return i;
}

export function lineIndexAt(text: string, offset: number): number {
  let n = 0;
  for (let i = 0; i < offset && i < text.length; i++) if (text[i] === "\n") n += 1;
  return n;
}

/** Key-order-independent text of a parsed TOML document (dates and big integers included). */
export function canonicalToml(value: unknown): string {
  if (typeof value === "bigint") return `${value}n`;
  if (value instanceof Date) return `date:${value.toISOString?.() ?? String(value)}`;
  if (Array.isArray(value)) return `[${value.map(canonicalToml).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const record = value as Record<string, unknown>;
    return `{${Object.keys(record)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonicalToml(record[k])}`)
      .join(",")}}`;
  }
  return JSON.stringify(value) ?? String(value);
}
