// Whether a patch only deleted whole blocks from a Python test file (tests, helpers, classes,
// imports). The witness gate asks it of the files where a deleted property's witness could
// hide, renamed or moved under an old frozen or skipped test. Text-level and pure.

import { foreignEncoding } from "./statements.js";

/** Indentation width of a line (tabs count as one). */
function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/**
 * The lines of the block that starts at `start` (a `class` or `def` line): it and every
 * following line that is indented deeper or continues a statement (`starts`: each line's
 * statement's first line; a black-style `):` closing a signature is no end).
 */
function blockEnd(lines: readonly string[], start: number, starts: Int32Array): number {
  const indent = indentOf(lines[start] as string);
  let end = start + 1;
  while (end < lines.length && (starts[end] !== end || indentOf(lines[end] as string) > indent)) {
    end++;
  }
  return end;
}

/**
 * Each line's statement's first line, by bracket depth (strings on one line and comments
 * aside; a bracket inside a multi-line string may mislead it, which only makes a unit end
 * where it does not, and the comparison fail).
 */
function statementStarts(lines: readonly string[]): Int32Array {
  const starts = new Int32Array(lines.length);
  let depth = 0;
  let continued = false;
  for (const [l, line] of lines.entries()) {
    starts[l] = depth > 0 || continued ? (starts[l - 1] as number) : l;
    const code = line.replace(/("|')(?:\\.|(?!\1).)*\1/g, "").replace(/#.*$/, "");
    for (const c of code) {
      if (c === "(" || c === "[" || c === "{") depth++;
      else if ((c === ")" || c === "]" || c === "}") && depth > 0) depth--;
    }
    continued = code.endsWith("\\");
  }
  return starts;
}

/** A line that opens a block a clean-up may delete whole: a decorator, a def or a class. */
const BLOCK_HEAD = /^\s*(?:@|(?:async\s+)?def\s|class\s)/;
const DEF_OR_CLASS = /^\s*(?:(?:async\s+)?def\s|class\s)/;
const IMPORT = /^\s*(?:import\s|from\s+\S+\s+import\b)/;

/** The lines of a test file this comparison reads: CRLF as LF, ends trimmed, no blank lines and no comment-only lines. */
function meaningfulLines(text: string): string[] {
  return text
    .replace(/\r\n/g, "\n")
    .split("\n")
    .map((l) => l.trimEnd())
    .filter((l) => {
      const s = l.trimStart();
      return s !== "" && !s.startsWith("#");
    });
}

/**
 * Where the whole unit a clean-up may delete that opens at `start` ends (exclusive), or -1
 * when no such unit opens there:
 * - an import statement, with its parenthesised or backslash-continued lines;
 * - a def or class with its body and its whole stack of decorators: a unit never starts
 *   inside a stack, which would hand the decorators above it to the next def.
 */
function deletableEnd(lines: readonly string[], start: number, starts: Int32Array): number {
  const first = lines[start] as string;
  if (starts[start] !== start) return -1;
  if (IMPORT.test(first)) {
    let l = start + 1;
    while (l < lines.length && starts[l] === start) l++;
    return l;
  }
  if (!BLOCK_HEAD.test(first)) return -1;
  const decorator = (l: number) =>
    l >= 0 && (lines[starts[l] as number] as string).trimStart().startsWith("@");
  if (decorator(start - 1)) return -1;
  const indent = indentOf(first);
  let l = start;
  while (l < lines.length && decorator(l)) l++;
  const head = lines[l];
  if (head === undefined || indentOf(head) !== indent || !DEF_OR_CLASS.test(head)) return -1;
  return blockEnd(lines, l, starts);
}

/** The qualified name ("Class::method") of the def or class a deleted unit holds, if any. */
function unitName(
  lines: readonly string[],
  start: number,
  end: number,
  starts: Int32Array,
): string | null {
  let head = start;
  while (head < end && !DEF_OR_CLASS.test(lines[head] as string)) head++;
  if (head >= end) return null;
  const name = /^\s*(?:async\s+)?(?:def|class)\s+(\w+)/.exec(lines[head] as string)?.[1];
  if (name === undefined) return null;
  const names = [name];
  let indent = indentOf(lines[head] as string);
  for (let l = head - 1; l >= 0 && indent > 0; l--) {
    // A statement over several lines (`class TestX(\n    Base,\n):`) counts by its first.
    l = starts[l] as number;
    const line = lines[l] as string;
    if (indentOf(line) >= indent) continue;
    indent = indentOf(line);
    const outer = /^\s*class\s+(\w+)/.exec(line)?.[1];
    if (outer === undefined) return names.join("::");
    names.unshift(outer);
  }
  return names.join("::");
}

/**
 * Whether `now` is `base` with whole units deleted and nothing else changed: tests, helpers
 * and classes (with their decorators), imports, blank lines and comments. Deleting whole units
 * cannot put one test's assertions under another test's name, unless the name stays bound
 * (an inherited method, an earlier def of it): the qualified names of the deleted defs and
 * classes are returned for the caller to check against the tests that remain. Adding, editing
 * or moving a line can (an added `from helpers import *` or `import check as test_x` too), so
 * any of those answers null. Units are matched whole, so a deleted test and the next one may
 * carry the same decorator.
 */
export function deletedUnits(
  base: string,
  now: string,
  /** Also let `now` add module-level tests (`def test_*` with decorators): a helper module's. */
  addedTests = false,
): string[] | null {
  const was = meaningfulLines(base);
  const is = meaningfulLines(now);
  const n = was.length;
  const m = is.length;
  const starts = statementStarts(was);
  const nowStarts = addedTests ? statementStarts(is) : null;
  /** Where a module-level test added at `j` of `now` ends, or -1. */
  const addedEnd = (j: number): number => {
    if (nowStarts === null) return -1;
    const end = deletableEnd(is, j, nowStarts);
    if (end < 0 || indentOf(is[j] as string) !== 0) return -1;
    const name = unitName(is, j, end, nowStarts);
    return name !== null && /^test/.test(name) && !name.includes("::") ? end : -1;
  };
  const failed = new Set<number>();
  // Each state (i, j) fails at most once; a comparison that would visit more gives up (not
  // known to be only deletions) instead of taking seconds and hundreds of MB.
  let budget = 500_000;
  const deleted: number[] = [];
  const align = (i: number, j: number): boolean => {
    if (j === m) {
      const mark = deleted.length;
      for (let k = i; k < n; ) {
        const end = deletableEnd(was, k, starts);
        if (end < 0) {
          deleted.length = mark;
          return false;
        }
        deleted.push(k);
        k = end;
      }
      return true;
    }
    const key = i * (m + 1) + j;
    if (failed.has(key)) return false;
    if (i < n && was[i] === is[j] && align(i + 1, j + 1)) return true;
    if (--budget < 0) throw new RangeError("comparison too large");
    const end = i < n ? deletableEnd(was, i, starts) : -1;
    if (end > 0) {
      deleted.push(i);
      if (align(end, j)) return true;
      deleted.pop();
    }
    const added = addedEnd(j);
    if (added > 0 && align(i, added)) return true;
    failed.add(key);
    return false;
  };
  let aligned: boolean;
  try {
    aligned = align(0, 0);
  } catch (error) {
    // A file too long to align line by line: not known to be only deletions.
    if (error instanceof RangeError) return null;
    throw error;
  }
  if (!aligned) return null;
  return deleted.flatMap((start) => {
    const name = unitName(was, start, deletableEnd(was, start, starts), starts);
    return name === null ? [] : [name];
  });
}

/**
 * Whether Python reads this text otherwise than the comparison above, which may then hide any
 * change: a lone CR ends a line for Python, and a foreign encoding may turn a comment into code.
 */
export function readOtherwiseByPython(text: string): boolean {
  return /\r(?!\n)/.test(text) || foreignEncoding(text) !== null;
}
