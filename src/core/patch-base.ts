// The commit a patch is judged against, whose files say what the repository said before it.

import type { Patch } from "./model.js";

/**
 * The commit a patch is measured against, whose files say what the repository said before
 * it: the merge base of a range, HEAD for a staged or work-tree patch, none for a user's diff.
 */
export function baseRevisionOf(patch: Patch): string | null {
  const source = patch.source;
  if (source.kind === "range") return source.mergeBase;
  return source.kind === "staged" || source.kind === "worktree" ? "HEAD" : null;
}
