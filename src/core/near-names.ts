// Names near a name that matches nothing, for the "did you mean" of a message: a frozen id
// one typo away from a test in the data, the refs that exist nearest a missing base ref.
// Only asked on the way to an error, and bounded there: one pass over the candidates.

/** Are `a` and `b` different and one insertion, deletion or substitution apart? */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  let j = a.length;
  let k = b.length;
  while (j > i && k > i && a[j - 1] === b[k - 1]) {
    j--;
    k--;
  }
  // What is left between the common start and the common end is the one edit.
  return j - i <= 1 && k - i <= 1;
}

/**
 * For each of `names`, the one candidate one edit apart from it, when exactly one is (two
 * such candidates make a guess, not a suggestion). One pass over `candidates`.
 */
export function oneEditMatches(
  names: readonly string[],
  candidates: Iterable<string>,
): Map<string, string> {
  const seen = new Map<string, string | null>();
  for (const candidate of candidates) {
    for (const name of names) {
      if (!oneEditApart(name, candidate)) continue;
      seen.set(name, seen.has(name) ? null : candidate);
    }
  }
  const out = new Map<string, string>();
  for (const [name, match] of seen) if (match !== null) out.set(name, match);
  return out;
}

/** Levenshtein distance: insertions, deletions and substitutions, each 1. */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1);
      row.push(Math.min(substitution, (previous[j] as number) + 1, (row[j - 1] as number) + 1));
    }
    previous = row;
  }
  return previous[b.length] as number;
}

/**
 * The `n` names nearest `name`, nearest first (ties by name). A name is compared whole and by
 * its last "/" part, plus one when the parts before it differ: for "origin/main", "master"
 * comes right after "origin/master", where the default branch is called master.
 */
export function nearestNames(name: string, names: Iterable<string>, n: number): string[] {
  const cut = (s: string) => s.lastIndexOf("/") + 1;
  const last = (s: string) => s.slice(cut(s));
  const head = (s: string) => s.slice(0, cut(s));
  const scored: Array<{ name: string; score: number }> = [];
  for (const candidate of names) {
    if (candidate === name) continue;
    const whole = editDistance(name, candidate);
    const tail =
      editDistance(last(name), last(candidate)) + (head(name) === head(candidate) ? 0 : 1);
    scored.push({ name: candidate, score: Math.min(whole, tail) });
  }
  scored.sort((x, y) => x.score - y.score || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0));
  return scored.slice(0, n).map((s) => s.name);
}
