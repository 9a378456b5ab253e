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
import { InputError } from "../../core/errors.js";
import { checkLedgerChanges, diffFreezes } from "../../core/ledger-changes.js";
import type { Ledger } from "../../core/ledger-model.js";
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
  const rel = ledgerRepoPath(ctx);
  if (rel === null) {
    throw new InputError(`the ledger ${ctx.ledgerPath} is outside the repository`, {
      fix: "keep the ledger in the repository, so that its changes are reviewed",
    });
  }
  const uncommitted = (await dirtyPaths(ctx.root, [rel])).length > 0;
  if (uncommitted && opts.uncommitted !== true) {
    throw new InputError(
      `the ledger ${rel} has uncommitted changes, and who changed a freeze is read from the commits`,
      {
        fix: `commit them; to try the check on them before committing, run ${opts.uncommittedCommand ?? `freezegate check --base ${opts.base} --uncommitted`}`,
      },
    );
  }
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
  // Authors are read (and a shallow clone's edge refused) only when they are judged: approval
  // is required by either policy and a freeze is added or changed.
  const baseLedgerRead = base === "unreadable" ? null : base;
  const approvalJudged =
    ((baseLedgerRead?.policy.require_approval ?? false) ||
      (head?.policy.require_approval ?? false)) &&
    diffFreezes(baseLedgerRead?.freezes ?? [], head?.freezes ?? [], opts.today).some(
      (change) => change.after !== null,
    );
  const authors = approvalJudged
    ? await freezeAuthors(ctx.root, {
        mergeBase,
        head: "HEAD",
        ledgerPath: rel,
        parse: parseLedgerText,
        ...(uncommitted
          ? {
              uncommitted: {
                identities: await committingIdentities(ctx.root),
                ledger: head,
                parents: [committed],
              },
            }
          : {}),
      })
    : { byTestId: new Map(), anyEntry: [] };
  const findings = checkLedgerChanges({
    base: baseLedgerRead,
    head,
    today: opts.today,
    authors,
    ledgerPath: rel,
  });
  // Judged with the stricter of both policies (a deleted ledger: the merge base's), as in
  // patchLedger.
  let judged = head;
  const own = head?.policy ?? (base !== null && base !== "unreadable" ? base.policy : null);
  const strict = own === null ? null : judgedPolicy(base, own);
  if (strict !== null) {
    judged = { ...((head ?? base) as Ledger), policy: strict.policy };
    if (base !== "unreadable" && strict.loosened.length > 0) {
      findings.push({
        gate: "ledger-changes",
        code: "ledger-changed",
        severity: "warning",
        path: rel,
        message: `this patch loosens the policy (${strict.loosened.join("; ")}): the patch itself is judged with the merge base's stricter policy; the loosening applies from the next patch on`,
        details: { change: "policy-loosened", loosened: strict.loosened },
      });
    }
  }
  return { result: gateResult("ledger-changes", judged, findings), notes };
}
