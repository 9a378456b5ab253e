// The source of one test in a Python test file, found by its node id's names: the block of
// `def name(` (with its decorators) inside the classes the id names. The witness gate takes
// the deleted witnesses' blocks out of the base's text, to see whether a patch did anything
// else to their file (where a renamed or moved witness could hide).

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

function escapeRegExp(name: string): string {
  return name.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * The text of the test a node id names in `text` (its file's source): `names` are the parts
 * after the file (`["TestX", "test_y[1]"]`); parameters are dropped. The decorators right
 * above the def are part of it; each line is trimmed at its end. Null when the file has no
 * such def at the place the id names (a class first, when given).
 */
export function testBlock(text: string, names: readonly string[]): string | null {
  const lines = text.split(/\r?\n/);
  const parts = names.map((n, i) => (i === names.length - 1 ? n.replace(/\[.*$/s, "") : n));
  let from = 0;
  let to = lines.length;
  // The indentation of the statements right inside the enclosing class (0: the module).
  let level = 0;
  for (const [i, name] of parts.entries()) {
    const last = i === parts.length - 1;
    const head = last
      ? new RegExp(`^\\s*(?:async\\s+)?def\\s+${escapeRegExp(name)}\\s*\\(`)
      : new RegExp(`^\\s*class\\s+${escapeRegExp(name)}\\b`);
    let found = -1;
    for (let l = from; l < to; l++) {
      const line = lines[l] as string;
      if (line.trim() === "" || indentOf(line) !== level || !head.test(line)) continue;
      found = l;
      break;
    }
    if (found < 0) return null;
    to = blockEnd(lines, found);
    if (last) {
      from = found;
      while (from > 0 && (lines[from - 1] as string).trimStart().startsWith("@")) from--;
    } else {
      from = found + 1;
      const inner = lines.slice(from, to).find((l) => l.trim() !== "");
      if (inner === undefined) return null;
      level = indentOf(inner);
    }
  }
  return lines
    .slice(from, to)
    .map((l) => l.trimEnd())
    .join("\n");
}
