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

/**
 * Whether `now` is `base` with whole units deleted and nothing else changed: tests, helpers
 * and classes (with their decorators), imports, blank lines and comments. Deleting whole units
 * cannot put one test's assertions under another test's name; adding, editing or moving a
 * line can (an added `from helpers import *` or `import check as test_x` too), so any of those
 * answers false.
 */
export function onlyBlocksDeleted(base: string, now: string): boolean {
  const was = meaningfulLines(base);
  const is = meaningfulLines(now);
  let i = 0;
  for (const line of is) {
    while (i < was.length && was[i] !== line) {
      const end = deletableEnd(was, i);
      if (end < 0) return false;
      i = end;
    }
    if (i === was.length) return false;
    i++;
  }
  while (i < was.length) {
    const end = deletableEnd(was, i);
    if (end < 0) return false;
    i = end;
  }
  return true;
}
