// The policy a patch is judged with: the stricter of the ledger's own and the merge base's, so
// that a patch that edits the policy cannot disarm the gates that judge it.

import { readLedgerFile } from "../../adapters/ledger-file.js";
import { stricterPolicy } from "../../core/ledger.js";
import {
  DEFAULT_POLICY,
  type Gate,
  type Ledger,
  type LedgerPolicy,
} from "../../core/ledger-model.js";
import { baseLedger } from "./base-ledger.js";
import type { GateContext } from "./gate-run.js";
import { ledgerRepoPath } from "./ledger-location.js";

export interface PatchLedger {
  /** The ledger on disk, with the policy the patch is judged by (see stricterPolicy). */
  ledger: Ledger;
  /** The disk ledger's own policy. */
  own: LedgerPolicy;
  /** The ledger's repository path (ledgerRepoPath); null when outside the repository. */
  path: string | null;
  /** The ledger at the merge base: null when absent there, "unreadable" when it does not parse. */
  base: Ledger | null | "unreadable";
  /** Where the merge base kept it (another path when the patch moves the ledger). */
  basePath: string | null;
}

/**
 * The policy a patch with policy `own` is judged by, given the ledger at the merge base: the
 * stricter of the two; a ledger the merge base lacks, its own (null: nothing to merge); one
 * that does not parse there, its own made no looser than the default policy.
 */
export function judgedPolicy(
  base: Ledger | null | "unreadable",
  own: LedgerPolicy,
): ReturnType<typeof stricterPolicy> | null {
  if (base === null) return null;
  return stricterPolicy(base === "unreadable" ? DEFAULT_POLICY : base.policy, own);
}

/**
 * The ledger on disk judged with the stricter of its own policy and the merge base's: a patch
 * that edits the policy cannot disarm the gates that judge it. A ledger the merge base does not
 * have is judged by its own policy; one the merge base has but that does not parse there, by
 * its own made no looser than the default policy.
 */
export async function patchLedger(
  ctx: GateContext,
  mergeBase: string,
  ledger: Ledger = readLedgerFile(ctx.ledgerPath),
): Promise<PatchLedger> {
  const path = ledgerRepoPath(ctx);
  const atBase = path === null ? null : await baseLedger(ctx.root, mergeBase, path);
  const base = atBase?.ledger ?? null;
  const own = ledger.policy;
  const strict = judgedPolicy(base, own);
  return {
    ledger: strict ? { ...ledger, policy: strict.policy } : ledger,
    own,
    path,
    base,
    basePath: atBase?.path ?? null,
  };
}

/** What the report should say about the policy a gate was judged with, when not its own. */
export function policyNotes(patch: PatchLedger, gate: Gate): string[] {
  const notes: string[] = [];
  const { policy } = patch.ledger;
  const { own } = patch;
  const from =
    patch.base === "unreadable"
      ? "the default policy (the ledger at the merge base could not be read)"
      : "the merge base's policy";
  if (policy.blocking.includes(gate) && !own.blocking.includes(gate)) {
    notes.push(
      `blocking, as ${from} makes it: this patch's policy.blocking applies from the next patch on`,
    );
  }
  if (gate === "deposit" && policy.min_distinct !== own.min_distinct) {
    notes.push(
      `min_distinct ${policy.min_distinct}, from ${from}, not this patch's ${own.min_distinct}`,
    );
  }
  if (gate === "deposit" && policy.min_compensation !== own.min_compensation) {
    notes.push(
      `min_compensation ${policy.min_compensation ?? "off"}, from ${from}, not this patch's ${own.min_compensation ?? "off"}`,
    );
  }
  if (gate === "shape" && policy.max_window_days !== own.max_window_days) {
    notes.push(
      `max_window_days ${policy.max_window_days}, from ${from}, not this patch's ${own.max_window_days}`,
    );
  }
  if (gate === "lock") {
    const extra = policy.generator_lock.filter((e) => !own.generator_lock.includes(e));
    if (extra.length > 0) {
      notes.push(`also locked, as ${from} lists them: ${extra.join(", ")}`);
    }
  }
  return notes;
}
