// The deposit gate: a freeze withdraws a test, so it must deposit a compensating property that
// ran in this patch's gate on enough distinct inputs. This module reads the samples artifact and
// the ledgers; src/core/deposits.ts judges.

import { readHeadCommit } from "../../adapters/git.js";
import { changedFilesInRange } from "../../adapters/git-history.js";
import { readLedgerFile } from "../../adapters/ledger-file.js";
import { fileExists, readJsonFile } from "../../adapters/repo-files.js";
import { checkDeposits } from "../../core/deposits.js";
import type { Freeze } from "../../core/ledger-model.js";
import { refusal } from "../../core/refusals/index.js";
import { parseSamples, type SamplesArtifact } from "../../core/samples.js";
import type { KnownTests } from "../known-tests.js";
import { type GateContext, type GateRun, gateResult } from "./gate-run.js";
import { type PatchLedger, patchLedger, policyNotes } from "./patch-policy.js";

export interface DepositGateOptions {
  base: string;
  /** The samples artifact (absolute), or undefined when none was given. */
  samplesPath?: string;
  /** The suite's tests (loadKnownTests); ids must not be null: the caller refuses that. */
  known: KnownTests & { ids: ReadonlySet<string> };
  /** pytest's rootdir, relative to the root ("" for the root). */
  testRoot: string;
  /** Tests an xfail outside the ledger muted in the run (check: the applied record). */
  muted?: readonly string[];
  /** HEAD's commit and the parsed samples artifact, when the caller has read them already. */
  headCommit?: string;
  samples?: SamplesArtifact;
}

export function readSamples(path: string): SamplesArtifact {
  if (!fileExists(path)) {
    // The usual cause: the pytest plugin ran inactive (it found no ledger), so it wrote none.
    throw refusal("samples-not-found", { path });
  }
  return parseSamples(
    readJsonFile(path, "samples artifact", "fix the JSON syntax of the samples artifact"),
    path,
  );
}

/** What a freeze deposits: its test, its compensating property and whether that is reused. */
function depositKey(f: Freeze): string {
  return JSON.stringify([f.test_id, f.compensating_property, f.reused_property]);
}

/**
 * The frozen tests whose deposit this patch makes, which owe it in this diff: a new frozen
 * test, or another compensating property. Extending a freeze, fixing its reason or adding its
 * approver deposits nothing new (its property's samples are still judged). Null: the merge
 * base's ledger cannot be read, so every freeze owes its deposit.
 */
function depositsDue(patch: PatchLedger): Set<string> | null {
  const before = patch.path === null ? "unreadable" : patch.base;
  if (before === "unreadable") return null;
  const old = new Set((before?.freezes ?? []).map(depositKey));
  return new Set(patch.ledger.freezes.filter((f) => !old.has(depositKey(f))).map((f) => f.test_id));
}

export async function runDepositGate(ctx: GateContext, opts: DepositGateOptions): Promise<GateRun> {
  const notes: string[] = [];
  const onDisk = readLedgerFile(ctx.ledgerPath);
  const samples =
    opts.samplesPath === undefined ? null : (opts.samples ?? readSamples(opts.samplesPath));
  const { changed, mergeBase } = await changedFilesInRange(ctx.root, opts.base);
  const patch = await patchLedger(ctx, mergeBase, onDisk);
  const { ledger } = patch;
  notes.push(...policyNotes(patch, "deposit"));
  const due = depositsDue(patch);
  if (due === null) {
    notes.push(
      `the ledger at the merge base could not be read: every freeze must show its deposit in this patch`,
    );
  }
  notes.push(`tests known: ${opts.known.description}`);
  if (samples === null) notes.push("no --samples artifact: no deposit can show its inputs");
  else if (samples.kind === "session") {
    notes.push(
      `the samples artifact is a single session count {"distinct": ${samples.distinct}}: it counts the whole session and is applied to every compensating property`,
    );
  }
  if (ledger.freezes.length === 0) notes.push(`the ledger ${ctx.ledgerLabel} has no freezes`);
  const findings = checkDeposits(ledger, {
    collected: opts.known.ids,
    changedFiles: changed,
    samples,
    headCommit: opts.headCommit ?? (await readHeadCommit(ctx.root)),
    depositDue: due,
    testRoot: opts.testRoot,
    ...(opts.muted === undefined ? {} : { muted: new Set(opts.muted) }),
  });
  return { result: gateResult("deposit", ledger, findings), notes };
}
