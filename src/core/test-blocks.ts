// Whether a patch only deleted whole blocks from a Python test file (tests, helpers, classes,
// imports). The witness gate asks it of the files where a deleted property's witness could
// hide, renamed or moved under an old frozen or skipped test.

/** Indentation width of a line (tabs count as one). */
function indentOf(line: string): number {
  return line.length - line.trimStart().length;
}

/**
 * The lines of the block that starts at `start` (a `class` or `def` line): it and every
 * following line that is blank or indented deeper. Trailing blank lines are left out.
 */
function blockEnd(lines: readonly string[], start: number): number {
  const indent = indentOf(lines[start] as string);
  let end = start + 1;
  let last = start;
  for (; end < lines.length; end++) {
    const line = lines[end] as string;
    if (line.trim() === "") continue;
    if (indentOf(line) <= indent) break;
    last = end;
  }
  return last + 1;
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
 * - a def or class with its body, and its decorators, which may span lines (deeper lines, or
 *   closing brackets at its indentation).
 */
function deletableEnd(lines: readonly string[], start: number): number {
  const first = lines[start] as string;
  if (IMPORT.test(first)) {
    let l = start;
    if (first.includes("(") && !first.includes(")")) {
      while (l < lines.length && !(lines[l] as string).includes(")")) l++;
      return l < lines.length ? l + 1 : -1;
    }
    while (l < lines.length && (lines[l] as string).endsWith("\\")) l++;
    return l < lines.length ? l + 1 : -1;
  }
  if (!BLOCK_HEAD.test(first)) return -1;
  const indent = indentOf(first);
  // A def's decorators go with it: deleting the def alone would hand them to the next one.
  const before = start > 0 ? (lines[start - 1] as string) : "";
  if (DEF_OR_CLASS.test(first) && indentOf(before) === indent && /^\s*[@)\]}]/.test(before)) {
    return -1;
  }
  for (let l = start; l < lines.length; l++) {
    const line = lines[l] as string;
    const at = indentOf(line);
    if (at > indent) continue;
    if (at < indent) return -1;
    if (DEF_OR_CLASS.test(line)) return blockEnd(lines, l);
    if (!/^\s*[@)\]}]/.test(line)) return -1;
  }
  return -1;
}

/** The qualified name ("Class::method") of the def or class a deleted unit holds. */
function unitName(lines: readonly string[], start: number, end: number): string | null {
  let head = start;
  while (head < end && !DEF_OR_CLASS.test(lines[head] as string)) head++;
  const name = /^\s*(?:async\s+)?(?:def|class)\s+(\w+)/.exec(lines[head] ?? "")?.[1];
  if (name === undefined) return null;
  const names = [name];
  let indent = indentOf(lines[head] as string);
  for (let l = head - 1; l >= 0 && indent > 0; l--) {
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
export function deletedUnits(base: string, now: string): string[] | null {
  const was = meaningfulLines(base);
  const is = meaningfulLines(now);
  const n = was.length;
  const m = is.length;
  const failed = new Set<number>();
  const deleted: number[] = [];
  const align = (i: number, j: number): boolean => {
    if (j === m) {
      const mark = deleted.length;
      for (let k = i; k < n; ) {
        const end = deletableEnd(was, k);
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
    if (i >= n || failed.has(key)) return false;
    if (was[i] === is[j] && align(i + 1, j + 1)) return true;
    const end = deletableEnd(was, i);
    if (end > 0) {
      deleted.push(i);
      if (align(end, j)) return true;
      deleted.pop();
    }
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
    const name = unitName(was, start, deletableEnd(was, start));
    return name === null ? [] : [name];
  });
}

/**
 * Whether `now`'s lines are `base`'s with some deleted: a data file's cases taken out (CRLF as
 * LF, ends trimmed, a trailing comma aside, which a JSON list's new last element loses).
 */
export function onlyLinesDeleted(base: string, now: string): boolean {
  const lines = (text: string) =>
    text
      .replace(/\r\n/g, "\n")
      .split("\n")
      .map((l) => l.trimEnd().replace(/,$/, ""))
      .filter((l) => l !== "");
  const was = lines(base);
  let i = 0;
  for (const line of lines(now)) {
    while (i < was.length && was[i] !== line) i++;
    if (i === was.length) return false;
    i++;
  }
  return true;
}
