// The ledger-changes gate: every change a patch makes to the ledger is listed for review and,
// where the policy asks for approval, a freeze it adds or changes needs an approver who did not
// make the change. This module reads the ledgers at the merge base and HEAD and who changed
// them; src/core/ledger-changes.ts judges.

import {
  changedFilesInRange,
  committingIdentities,
  dirtyPaths,
  freezeAuthors,
} from "../../adapters/git-history.js";
import { readLedgerFile } from "../../adapters/ledger-file.js";
import { fileExists } from "../../adapters/repo-files.js";
import type { Finding } from "../../core/findings.js";
import { checkLedgerChanges, diffFreezes, type FreezeAuthors } from "../../core/ledger-changes.js";
import type { Ledger } from "../../core/ledger-model.js";
import { refusal } from "../../core/refusals/index.js";
import { baseLedger, movedNote, parseLedgerText, readLedgerAt } from "./base-ledger.js";
import { type GateContext, type GateRun, gateResult } from "./gate-run.js";
import { ledgerRepoPath } from "./ledger-location.js";
import { judgedPolicy } from "./patch-policy.js";

export interface LedgerChangesOptions {
  base: string;
  /** YYYY-MM-DD (UTC). */
  today: string;
  /**
   * Judge the work tree's ledger when it has uncommitted changes, charging them to whoever
   * would commit them now (a try-out before committing); otherwise they are refused.
   */
  uncommitted?: boolean;
  /** The command that runs the same check with `uncommitted`, for the refusal's fix. */
  uncommittedCommand?: string;
}

/**
 * The ledger at the merge base against the ledger at HEAD (the committed one: who changed an
 * entry is only known for commits, so an uncommitted ledger change is refused, unless the
 * caller asks to charge it to the user who would commit it).
 */
export async function runLedgerChangesGate(
  ctx: GateContext,
  opts: LedgerChangesOptions,
): Promise<GateRun> {
  const { rel, uncommitted } = await ledgerToJudge(ctx, opts);
  const { changed, mergeBase } = await changedFilesInRange(ctx.root, opts.base);
  const notes: string[] = [];
  if (uncommitted) {
    notes.push(
      `the ledger ${rel} has uncommitted changes: judged as the work tree has them, as if you committed them now (--uncommitted); the check of the commits is the one that counts`,
    );
  } else if (!changed.has(rel)) {
    notes.push(`the ledger ${rel} did not change in ${opts.base}...HEAD`);
  }
  const atBase = await baseLedger(ctx.root, mergeBase, rel);
  const base = atBase.ledger;
  notes.push(...movedNote(rel, atBase));
  // HEAD's ledger is the one judged: one that does not parse is an input error, never read as
  // a deleted ledger (which would judge no approval at all).
  const committed = await readLedgerAt(ctx.root, "HEAD", rel);
  const head = !uncommitted
    ? committed
    : fileExists(ctx.ledgerPath)
      ? readLedgerFile(ctx.ledgerPath)
      : null;
  if (base === "unreadable") {
    notes.push(`the ledger at the merge base could not be read: every entry counts as added`);
  }
  const baseRead = base === "unreadable" ? null : base;
  const authors = await authorsIfJudged(ctx.root, {
    mergeBase,
    rel,
    today: opts.today,
    base: baseRead,
    head,
    uncommitted: uncommitted ? { committed } : null,
  });
  const findings = checkLedgerChanges({
    base: baseRead,
    head,
    today: opts.today,
    authors,
    ledgerPath: rel,
  });
  const strict = withStricterPolicy(head, base, rel);
  findings.push(...strict.findings);
  return { result: gateResult("ledger-changes", strict.ledger, findings), notes };
}

/**
 * The ledger's repository path, and whether its uncommitted changes are judged. A ledger
 * outside the repository is refused (its changes are not reviewed), and so are uncommitted
 * changes unless the caller asks to judge them.
 */
async function ledgerToJudge(
  ctx: GateContext,
  opts: LedgerChangesOptions,
): Promise<{ rel: string; uncommitted: boolean }> {
  const rel = ledgerRepoPath(ctx);
  if (rel === null) {
    throw refusal("ledger-outside-repo", { ledger: ctx.ledgerPath });
  }
  const uncommitted = (await dirtyPaths(ctx.root, [rel])).length > 0;
  if (uncommitted && opts.uncommitted !== true) {
    throw refusal("ledger-uncommitted", {
      ledger: rel,
      command: opts.uncommittedCommand ?? `freezegate check --base ${opts.base} --uncommitted`,
    });
  }
  return { rel, uncommitted };
}

/**
 * Who changed each freeze, read (and a shallow clone's edge refused) only when it is judged:
 * approval is required by either policy and a freeze is added or changed. Uncommitted changes
 * are charged to whoever would commit them now.
 */
async function authorsIfJudged(
  root: string,
  range: {
    mergeBase: string;
    rel: string;
    today: string;
    base: Ledger | null;
    head: Ledger | null;
    /** The ledger committed at HEAD, when the work tree's is judged. */
    uncommitted: { committed: Ledger | null } | null;
  },
): Promise<FreezeAuthors> {
  const { base, head } = range;
  const approvalJudged =
    ((base?.policy.require_approval ?? false) || (head?.policy.require_approval ?? false)) &&
    diffFreezes(base?.freezes ?? [], head?.freezes ?? [], range.today).some(
      (change) => change.after !== null,
    );
  if (!approvalJudged) return { byTestId: new Map(), anyEntry: [] };
  return freezeAuthors(root, {
    mergeBase: range.mergeBase,
    head: "HEAD",
    ledgerPath: range.rel,
    parse: parseLedgerText,
    ...(range.uncommitted === null
      ? {}
      : {
          uncommitted: {
            identities: await committingIdentities(root),
            ledger: head,
            parents: [range.uncommitted.committed],
          },
        }),
  });
}

/**
 * The ledger judged with the stricter of both policies (a deleted ledger: the merge base's),
 * as in patchLedger, and a warning when the patch loosens the policy.
 */
function withStricterPolicy(
  head: Ledger | null,
  base: Ledger | null | "unreadable",
  rel: string,
): { ledger: Ledger | null; findings: Finding[] } {
  const own = head?.policy ?? (base !== null && base !== "unreadable" ? base.policy : null);
  const strict = own === null ? null : judgedPolicy(base, own);
  if (strict === null) return { ledger: head, findings: [] };
  const ledger = { ...((head ?? base) as Ledger), policy: strict.policy };
  if (base === "unreadable" || strict.loosened.length === 0) return { ledger, findings: [] };
  const finding: Finding = {
    gate: "ledger-changes",
    code: "ledger-changed",
    severity: "warning",
    path: rel,
    message: `this patch loosens the policy (${strict.loosened.join("; ")}): the patch itself is judged with the merge base's stricter policy; the loosening applies from the next patch on`,
    details: { change: "policy-loosened", loosened: strict.loosened },
  };
  return { ledger, findings: [finding] };
}
