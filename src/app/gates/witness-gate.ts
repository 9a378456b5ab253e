// The witness gate: a test may be frozen only if every property it witnesses keeps a live
// witness. This module gathers what src/core/witness.ts judges: the ledger with the merge
// base's properties, the tests the run muted or skipped, and the tests that may be a deleted
// property's witness renamed or moved.

import { changedFilesInRange, dirtyPaths } from "../../adapters/git-history.js";
import { readLedgerFile } from "../../adapters/ledger-file.js";
import { isCollected } from "../../core/deposits.js";
import type { Finding } from "../../core/findings.js";
import type { Ledger } from "../../core/ledger-model.js";
import { sampleOf } from "../../core/listing.js";
import { checkWitnesses, frozenIds, withBaseProperties } from "../../core/witness.js";
import { withoutParameters } from "../../runners/pytest/node-ids.js";
import { type GateContext, type GateRun, gateResult } from "./gate-run.js";
import { ledgerRepoPath } from "./ledger-location.js";
import { type PatchLedger, patchLedger, policyNotes } from "./patch-policy.js";
import { witnessSuspects } from "./witness-suspects.js";

export interface WitnessGateOptions {
  /** Judge only when the ledger changed in BASE...HEAD; undefined: always judge. */
  base?: string;
  /** Judge even when the ledger did not change. */
  always?: boolean;
  /**
   * The suite's test ids, asked only when a freeze's test_id holds "*": such an entry that is
   * a test of the suite freezes that test alone (see frozenBy). Null: not known.
   */
  knownTests?: () => ReadonlySet<string> | null;
  /**
   * Tests an xfail outside the ledger muted in the run (the applied record): they witness
   * nothing, as if frozen, and a muted witness or check is judged even when the ledger did
   * not change.
   */
  muted?: { ids: readonly string[]; label: string };
  /** Tests a skip stopped in the run (the applied record): as muted ones. */
  skipped?: { ids: readonly string[]; label: string };
}

const SKIPPED = "was skipped in the run";
const MUTED = "is muted by an xfail outside the ledger";

export async function runWitnessGate(ctx: GateContext, opts: WitnessGateOptions): Promise<GateRun> {
  const silenced = silencedTests(opts);
  const notes: string[] = [];
  let patch: PatchLedger | null = null;
  let range: { changed: ReadonlySet<string>; mergeBase: string } | null = null;
  if (opts.base === undefined) {
    notes.push(
      opts.always ? ALWAYS : "no --base: judged without asking whether the ledger changed",
    );
  } else {
    // A ledger behind a symbolic link is refused before the range is read.
    const rel = ledgerRepoPath(ctx);
    range = await changedFilesInRange(ctx.root, opts.base);
    const judge = await whetherJudged(ctx, {
      rel,
      base: opts.base,
      always: opts.always === true,
      changed: range.changed,
      silenced,
    });
    if ("skipped" in judge) {
      return { result: gateResult("witness", null, [], judge.skipped), notes };
    }
    notes.push(judge.judged);
    patch = await patchLedger(ctx, range.mergeBase);
    notes.push(...policyNotes(patch, "witness"));
  }
  const atBase = withMergeBaseProperties(patch?.ledger ?? readLedgerFile(ctx.ledgerPath), patch);
  let { ledger } = atBase;
  if (atBase.removed.length > 0) notes.push(removedNote(atBase.removed));
  if (ledger.properties.length === 0) {
    notes.push(`the ledger ${ctx.ledgerLabel} records no properties, so no witness can be lost`);
  }
  const known = knownTestsIfAsked(opts, ledger, atBase.restored);
  let orphaned: Finding[] = [];
  if (atBase.restored.size > 0 && known === null) {
    notes.push(
      "witnesses this patch removes count as they were: without the suite's tests (--collected, or the coverage data) a renamed or deleted one cannot be told (check always knows them)",
    );
  } else if (known !== null && atBase.restored.size > 0) {
    const judged = await withoutLostWitnesses(ctx.root, atBase, known, range, silenced);
    ledger = judged.ledger;
    orphaned = judged.findings;
  }
  notes.push(...silencedNotes(ledger, silenced, opts));
  const findings = eachOnce([
    ...orphaned,
    ...checkWitnesses(ledger, frozenIds(ledger), known, silenced),
  ]);
  return { result: gateResult("witness", ledger, findings), notes };
}

const ALWAYS = "--always: judged whether or not the ledger changed";

/**
 * Tests that witnessed nothing in the run although no freeze names them (skipped or muted) ->
 * why.
 */
function silencedTests(opts: WitnessGateOptions): Map<string, string> {
  return new Map<string, string>([
    ...(opts.skipped?.ids ?? []).map((id): [string, string] => [id, SKIPPED]),
    ...(opts.muted?.ids ?? []).map((id): [string, string] => [id, MUTED]),
  ]);
}

/**
 * Whether the gate judges a range: it does when the ledger changed in it (committed or not),
 * when it cannot tell (a ledger outside the repository), with --always, and when the run muted
 * or skipped a property's check or witness; else it is skipped, and says why.
 */
async function whetherJudged(
  ctx: GateContext,
  range: {
    /** The ledger's repository path (null: outside the repository). */
    rel: string | null;
    base: string;
    always: boolean;
    changed: ReadonlySet<string>;
    silenced: ReadonlyMap<string, string>;
  },
): Promise<{ judged: string } | { skipped: string }> {
  const { rel, base, changed, silenced } = range;
  if (range.always) return { judged: ALWAYS };
  if (rel === null) {
    return {
      judged: `the ledger ${ctx.ledgerLabel} is outside the repository, so whether it changed cannot be told: judged`,
    };
  }
  const dirty = (await dirtyPaths(ctx.root, [rel])).length > 0;
  if (changed.has(rel)) {
    return { judged: `the ledger ${ctx.ledgerLabel} changed in ${base}...HEAD: judged` };
  }
  if (dirty) return { judged: `the ledger ${ctx.ledgerLabel} has uncommitted changes: judged` };
  const silencedHere =
    silenced.size > 0 ? silencedWitnesses(readLedgerFile(ctx.ledgerPath), silenced) : [];
  if (silencedHere.length > 0) {
    return {
      judged: `the ledger ${ctx.ledgerLabel} did not change in ${base}...HEAD, but the run muted or skipped ${silencedHere.join(", ")}: judged`,
    };
  }
  return {
    skipped: `the ledger ${ctx.ledgerLabel} did not change in ${base}...HEAD (--always runs it anyway)`,
  };
}

interface WithBaseProperties {
  /** The ledger with the properties, witnesses and checks the patch removes put back. */
  ledger: Ledger;
  /** The properties whose removal was not applied, sorted. */
  removed: string[];
  /** Property id -> the witnesses put back. */
  restored: Map<string, Set<string>>;
  /** The properties put back whole (the patch deletes them). */
  whole: Set<string>;
  /** The merge base ledger's frozen entries. */
  baseFreezes: readonly string[];
}

/**
 * The ledger judged with the merge base's properties as well: a patch's removal of a property,
 * a witness or a check takes effect from the next patch on (withBaseProperties). Without a
 * readable ledger at the merge base, the ledger as it is.
 */
function withMergeBaseProperties(ledger: Ledger, patch: PatchLedger | null): WithBaseProperties {
  if (patch === null || patch.base === null || patch.base === "unreadable") {
    return { ledger, removed: [], restored: new Map(), whole: new Set(), baseFreezes: [] };
  }
  return { ...withBaseProperties(ledger, patch.base), baseFreezes: frozenIds(patch.base) };
}

function removedNote(removed: readonly string[]): string {
  const one = removed.length === 1;
  return `the patch removes ${removed.join(", ")}, or some of ${one ? "its" : "their"} witnesses or ${one ? "its check" : "their checks"}: judged with the merge base's as well (a removal takes effect from the next patch on)`;
}

/**
 * The suite's tests, asked only when they decide something: an entry with "*" that is a
 * test's id names that test alone, and a witness the patch removes counts only while it is a
 * test. Null: not asked, or not known.
 */
function knownTestsIfAsked(
  opts: WitnessGateOptions,
  ledger: Ledger,
  restored: ReadonlyMap<string, ReadonlySet<string>>,
): ReadonlySet<string> | null {
  if (opts.knownTests === undefined) return null;
  const named = [
    ...ledger.freezes.map((f) => f.test_id),
    ...ledger.properties.flatMap((p) => [p.check, ...p.witnessed_by]),
  ];
  return restored.size > 0 || named.some((id) => id.includes("*")) ? opts.knownTests() : null;
}

/**
 * The ledger without the witnesses the patch removes that are no test of the suite any more
 * (renamed, or deleted with their property, they witness nothing under their old ids), and
 * without the properties the patch deletes together with all their witness tests: those guard
 * nothing, unless a renamed or moved witness may hide in a test file the patch changes
 * (witnessSuspects), which is an orphaned-property finding.
 */
async function withoutLostWitnesses(
  root: string,
  atBase: WithBaseProperties,
  known: ReadonlySet<string>,
  range: { changed: ReadonlySet<string>; mergeBase: string } | null,
  silenced: ReadonlyMap<string, string>,
): Promise<{ ledger: Ledger; findings: Finding[] }> {
  const { ledger, restored, whole } = atBase;
  // test_function data names a parametrized test once, without its parameters.
  const isTest = (w: string) => isCollected(w, known) || known.has(withoutParameters(w));
  const properties = ledger.properties.map((p) => {
    const back = restored.get(p.id);
    return back === undefined
      ? p
      : { ...p, witnessed_by: p.witnessed_by.filter((w) => !back.has(w) || isTest(w)) };
  });
  const gone = properties.filter((p) => whole.has(p.id) && p.witnessed_by.length === 0);
  const suspects =
    gone.length === 0 || range === null
      ? []
      : await witnessSuspects({
          root,
          mergeBase: range.mergeBase,
          ledger,
          baseFreezes: atBase.baseFreezes,
          silenced,
          changed: range.changed,
          known,
        });
  const findings = (suspects.length === 0 ? [] : gone).map((p): Finding => {
    const deleted = [...(restored.get(p.id) ?? [])].sort();
    return {
      gate: "witness",
      code: "orphaned-property",
      severity: "error",
      propertyId: p.id,
      message: `the patch deletes property ${p.id} and its witness tests (${deleted.join(", ")}), and the run freezes, skips or mutes ${sampleOf(suspects)} while the patch changes their test files or a test helper in more than deletions: one of them may be a witness renamed or moved, which leaves the property without a live witness; delete the property in a patch of its own, and its tests in a later one`,
      details: { witnesses: [], takenBy: suspects, deletedWitnesses: deleted },
    };
  });
  const goneIds = new Set(gone.map((p) => p.id));
  return {
    ledger: { ...ledger, properties: properties.filter((p) => !goneIds.has(p.id)) },
    findings,
  };
}

/** What the report says when muted or skipped tests among the properties' count as frozen. */
function silencedNotes(
  ledger: Ledger,
  silenced: ReadonlyMap<string, string>,
  opts: WitnessGateOptions,
): string[] {
  const quiet = silencedWitnesses(ledger, silenced);
  const notes: string[] = [];
  if (quiet.some((id) => silenced.get(id) === MUTED)) {
    notes.push(`tests an xfail outside the ledger muted (${opts.muted?.label}) count as frozen`);
  }
  if (quiet.some((id) => silenced.get(id) === SKIPPED)) {
    notes.push(`tests a skip stopped in the run (${opts.skipped?.label}) count as frozen`);
  }
  return notes;
}

/** The properties' checks and witnesses among `quiet`, sorted. */
function silencedWitnesses(ledger: Ledger, quiet: ReadonlyMap<string, string>): string[] {
  const named = ledger.properties.flatMap((p) => [p.check, ...p.witnessed_by]);
  return [...new Set(named.filter((id) => quiet.has(id)))].sort();
}

/** A property judged under two checks (see withBaseProperties) says each finding once. */
function eachOnce(findings: readonly Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = JSON.stringify([f.code, f.propertyId, f.testId, f.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
