// Where a file, and the ledger above all, sits in the repository: the ledger's changes are
// read from the commits, so its path must be one git records.

import { isAbsolute, relative } from "node:path";
import { isSymbolicLink, realPath, realPathOrNull } from "../../adapters/repo-files.js";
import { refusal } from "../../core/refusals/index.js";
import type { GateContext } from "./gate-run.js";

/** The repository path of a file, or null when it is outside the repository. */
export function repoPath(root: string, path: string): string | null {
  const rel = relative(root, path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return null;
  return rel.split("\\").join("/");
}

/**
 * The ledger's repository path, for reading it at commits; null when it is outside the
 * repository. A ledger reached through a symbolic link is refused: git records the link, not
 * the file it points to, so at the link's path the patch's edits of the real file are
 * invisible (the witness gate would see no change, the ledger-changes gate would read the
 * link's target text). Resolving the link instead would let a patch re-point it at another file.
 */
export function ledgerRepoPath(ctx: GateContext): string | null {
  const rel = repoPath(ctx.root, ctx.ledgerPath);
  if (rel === null) return null;
  const real = realPathOrNull(ctx.ledgerPath);
  if (real === null) return rel; // missing (or a dangling link): reading it says so
  const realRel = repoPath(realPath(ctx.root), real);
  if (realRel !== rel) {
    const target = realRel ?? real;
    throw refusal("ledger-behind-link", {
      ledger: ctx.ledgerLabel,
      target,
      isLink: isSymbolicLink(ctx.ledgerPath),
    });
  }
  return rel;
}
