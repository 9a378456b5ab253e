// How a message names a few of many items: the first n, and the count when there are more.
// One spelling for every error and doctor line, so that users and tests read one format.

/** The first `n` of items already written out, then ", ... (N in all)" when there are more. */
export function sampleOf(shown: readonly string[], n = 3): string {
  const first = shown.slice(0, n);
  return shown.length > n ? `${first.join(", ")}, ... (${shown.length} in all)` : first.join(", ");
}

/** Like sampleOf, each item in double quotes. */
export function sample(items: readonly string[], n = 3): string {
  return sampleOf(
    items.map((s) => `"${s}"`),
    n,
  );
}

/** Whether two lists hold the same strings in the same order. */
export function sameStrings(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}
