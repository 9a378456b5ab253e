// Evidence that coverage data was recorded from a different version of a file than the one on
// disk. Stale data shifts line numbers, and shifted numbers give wrong verdicts with no error.
// Timestamps cannot tell (a CI job checks out after the tests ran; a downloaded artifact is
// older than the checkout), but content can: a tracer never reports a line past the end of
// the file, nor a blank or comment-only line (they have no bytecode).

export function splitLines(source: string): string[] {
  // Most files have no CR: a plain split is several times faster than the pattern's.
  const lines = source.includes("\r") ? source.split(/\r\n|\r|\n/) : source.split("\n");
  if (lines.length > 0 && lines[lines.length - 1] === "") lines.pop();
  return lines;
}

/**
 * A human sentence saying why the data cannot belong to this source, or null. The source is
 * its text or, when the caller has split it already, its lines (as splitLines gives them).
 * `inStatement` (from Python's tokenizer) says which lines belong to a statement: such a line
 * is no evidence whatever its text (in a multi-line f-string, a line "# {title}" holds an
 * expression that Python records).
 */
export function staleEvidence(
  source: string | readonly string[],
  recordedLines: Iterable<number>,
  inStatement?: (line: number) => boolean,
): string | null {
  const lines = typeof source === "string" ? splitLines(source) : source;
  let worst: string | null = null;
  for (const n of recordedLines) {
    if (n > lines.length) {
      return `line ${n} is recorded as executed, but the file has ${lines.length} lines`;
    }
    if (worst !== null) continue;
    const kind = blankOrComment(lines[n - 1] ?? "");
    if (kind !== null && !inStatement?.(n)) {
      worst = `line ${n} is recorded as executed, but it is ${kind}`;
    }
  }
  return worst;
}

/**
 * "blank" when only white space (as String.prototype.trim sees it), "a comment" when the
 * first other character is "#", else null. Read character by character: most lines hold
 * code, and a trimmed copy of every executed line cost more than the rest of the check.
 */
function blankOrComment(text: string): "blank" | "a comment" | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) continue;
    if (c > 127) {
      // Unicode white space: as trim() decides.
      const rest = text.slice(i).trim();
      return rest === "" ? "blank" : rest.startsWith("#") ? "a comment" : null;
    }
    return c === 35 ? "a comment" : null;
  }
  return "blank";
}
