// JSON text as every freezegate input reads it, whether from a file or from a git blob: a
// leading UTF-8 byte-order mark is dropped (Windows editors and PowerShell write one; npm's
// readers skip it too), and an object that repeats a key is refused. JSON.parse keeps the last
// of two equal keys, so a reviewer reading `"policy": {...}` at the top of a ledger would not
// see the `"policy"` at the bottom that freezegate (and json.loads) actually use.

import { refusal } from "./refusals/index.js";

/**
 * The encoding `text` (bytes decoded as UTF-8) was really written in, when it is plainly
 * UTF-16 or UTF-32: NUL characters among the first few, which no JSON or diff text has there
 * (ASCII in UTF-16 is every other byte NUL; its byte-order mark decodes as two U+FFFD).
 * Null for anything else.
 */
export function wideEncodingOf(text: string): "UTF-16" | "UTF-32" | null {
  const head = text.slice(0, 12);
  if (!head.includes("\u0000")) return null;
  return head.includes("\u0000\u0000\u0000") ? "UTF-32" : "UTF-16";
}

/**
 * A decoded JSON value as a message shows it: as JSON spells it, except a number too large
 * for a double (`1e400`), which JSON.parse reads as Infinity and JSON.stringify would spell
 * `null`, naming the wrong problem.
 */
export function jsonValueText(value: unknown): string {
  if (typeof value === "number" && !Number.isFinite(value)) {
    return `a number too large to hold (it reads as ${value})`;
  }
  return JSON.stringify(value) ?? "missing";
}

/** `text` without a leading byte-order mark. */
export function stripBom(text: string): string {
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

export interface DuplicateKey {
  /** The repeated key, decoded. */
  key: string;
  /** JSONPath of the object that repeats it ("$", "$.policy", "$.freezes[2]"). */
  path: string;
}

interface Level {
  /** Keys seen so far (objects); null for arrays. */
  keys: Set<string> | null;
  /** The path of this container. */
  path: string;
  /** The current member key (objects) or index (arrays): the next container's name. */
  at: string | number;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** JSON's four whitespace characters (NaN past the end is none of them). */
function isJsonSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function memberPath(level: Level): string {
  if (typeof level.at === "number") return `${level.path}[${level.at}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(level.at)
    ? `${level.path}.${level.at}`
    : `${level.path}[${JSON.stringify(level.at)}]`;
}

/**
 * The first key an object of `text` repeats, or null. `text` must be valid JSON (call it after
 * JSON.parse succeeded): the scan then only needs to find strings, brackets and commas. Keys
 * are compared decoded, so "a" and "\u0061" are the same key, as for JSON.parse. One pass,
 * no allocation per value: fine for the ledger, records and artifacts freezegate reads.
 */
export function findDuplicateKey(
  text: string,
  /** Which repeats count (default: all): package.json's own are npm's business, not ours. */
  counts: (repeat: DuplicateKey) => boolean = () => true,
): DuplicateKey | null {
  const stack: Level[] = [];
  let i = 0;
  const n = text.length;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      // Find the closing quote: one not preceded by an odd number of backslashes.
      let end = i + 1;
      for (;;) {
        end = text.indexOf('"', end);
        if (end < 0) return null; // not valid JSON after all: JSON.parse reports it
        let slashes = 0;
        for (let k = end - 1; text.charCodeAt(k) === BACKSLASH; k--) slashes++;
        if (slashes % 2 === 0) break;
        end++;
      }
      const top = stack[stack.length - 1];
      if (top?.keys) {
        // A string followed by ':' is a key.
        let j = end + 1;
        while (isJsonSpace(text.charCodeAt(j))) j++;
        if (text.charCodeAt(j) === 0x3a) {
          const raw = text.slice(i + 1, end);
          const key = raw.includes("\\") ? (JSON.parse(`"${raw}"`) as string) : raw;
          if (top.keys.has(key) && counts({ key, path: top.path })) return { key, path: top.path };
          top.keys.add(key);
          top.at = key;
        }
      }
      i = end + 1;
      continue;
    }
    if (c === 0x7b || c === 0x5b) {
      // { or [: a new container, named by its parent's current member.
      const parent = stack[stack.length - 1];
      const path = parent ? memberPath(parent) : "$";
      stack.push({ keys: c === 0x7b ? new Set() : null, path, at: 0 });
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
    } else if (c === 0x2c) {
      const top = stack[stack.length - 1];
      if (top && top.keys === null) top.at = (top.at as number) + 1;
    }
    i++;
  }
  return null;
}

/**
 * Parse JSON text read from `source` (e.g. "ledger freeze-ledger.json" or "ledger X at
 * 1a2b3c4d5e6f"): BOM dropped, syntax errors and repeated keys are InputErrors naming it.
 */
export function parseJsonText(text: string, source: string, fix = "fix the JSON syntax"): unknown {
  const body = stripBom(text);
  let value: unknown;
  try {
    value = JSON.parse(body);
  } catch (error) {
    const wide = wideEncodingOf(body);
    if (wide !== null) {
      throw refusal("json-wide-encoding", { source, encoding: wide }, { cause: error });
    }
    throw refusal("json-invalid", { source, why: (error as Error).message, fix }, { cause: error });
  }
  const duplicate = findDuplicateKey(body);
  if (duplicate !== null) {
    throw refusal("json-duplicate-key", { source, key: duplicate.key, at: duplicate.path });
  }
  return value;
}
