// Why a patch holds no change. An empty patch passes (no changed line can fail the gate), but a
// report that only says "0 files, 0 changed lines ... PASS" reads as green when the range was
// wrong, e.g. a CI variable that names the commit under test as the base: every report says
// plainly that nothing was audited and why (the words are in src/reporters/words.ts).

import { resolveCommit } from "../adapters/git.js";
import type { Patch } from "../core/model.js";

/**
 * `base-is-head`: the base is HEAD's own commit; `merge-base-is-head`: HEAD is already in the
 * base's history (the base is ahead of it); `no-changes`: the range, the index, the work tree
 * or the diff holds commits or text but no change to any file.
 */
export type EmptyPatchReason = "base-is-head" | "merge-base-is-head" | "no-changes";

/** Why `patch` is empty, or null when it changes a file. */
export async function emptyPatchReason(
  root: string,
  patch: Patch,
): Promise<EmptyPatchReason | null> {
  if (patch.files.length > 0) return null;
  const source = patch.source;
  if (source.kind !== "range") return "no-changes";
  // Asked only for an empty range: two rev-parse calls a normal audit never makes.
  const [base, head] = await Promise.all([
    resolveCommit(root, source.base),
    resolveCommit(root, source.head),
  ]);
  if (base !== null && base === head) return "base-is-head";
  if (head !== null && source.mergeBase === head) return "merge-base-is-head";
  return "no-changes";
}
