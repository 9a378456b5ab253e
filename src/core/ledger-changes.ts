// Ledger changes are a security boundary: an agent that can edit the ledger can turn
// a failing assertion into a skipped one without touching the assertion. This gate diffs the
// ledger at the merge base against the ledger at HEAD and lists every change as a
// `ledger-changed` record (freezes added, removed, extended, re-opened or otherwise edited;
// properties and policy too, since deleting a property or loosening the policy disarms the
// other gates). When approval is required, a freeze the patch adds or changes needs an
// `approved_by` who is neither its owner nor anyone who authored that change, nor, when the
// change alters the freeze's terms, the person who approved the entry before it
// (`self-approved`): an approval is for the terms its approver saw.

import type { Finding } from "./findings.js";
import type { Freeze, Ledger, LedgerPolicy, Property } from "./ledger-model.js";

/** A git identity (author or committer of a commit). */
export interface Identity {
  name: string;
  email: string;
}

/** Who added or changed each freeze in BASE..HEAD (see attributeFreezeChanges). */
export interface FreezeAuthors {
  /** test id -> identities of the commits that added or changed that entry. */
  byTestId: ReadonlyMap<string, readonly Identity[]>;
  /** Identities that may have changed any entry (a commit whose ledger could not be read). */
  anyEntry: readonly Identity[];
}

export type FreezeChangeKind = "added" | "removed" | "extended" | "re-opened" | "changed";

export interface LedgerChangeInput {
  /** The ledger at the merge base; null when it did not exist there. */
  base: Ledger | null;
  /** The ledger at HEAD; null when the patch deletes it. */
  head: Ledger | null;
  /** YYYY-MM-DD (UTC): a freeze that had expired by today and now expires later is re-opened. */
  today: string;
  authors: FreezeAuthors;
  /** The ledger's repository path, for messages and annotations. */
  ledgerPath: string;
}

const FREEZE_FIELDS = [
  "reason",
  "owner",
  "opened",
  "expires",
  "invariant",
  "compensating_property",
  "reused_property",
  "approved_by",
] as const satisfies readonly (keyof Freeze)[];

const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** The value that decides whether two entries are the same (every field, fixed order). */
export function freezeKey(f: Freeze): string {
  return JSON.stringify([f.test_id, ...FREEZE_FIELDS.map((k) => f[k] ?? null)]);
}

function propertyKey(p: Property): string {
  return JSON.stringify([p.id, p.check, [...p.witnessed_by].sort(), p.invariant ?? null]);
}

function groupBy<T>(items: readonly T[], id: (t: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const list = out.get(id(item));
    if (list) list.push(item);
    else out.set(id(item), [item]);
  }
  return out;
}

interface FreezeChange {
  kind: FreezeChangeKind;
  before: Freeze | null;
  after: Freeze | null;
  fields: string[];
}

function classify(before: Freeze, after: Freeze, today: string): FreezeChange {
  const fields = FREEZE_FIELDS.filter((k) => (before[k] ?? null) !== (after[k] ?? null));
  const dated = DATE.test(before.expires) && DATE.test(after.expires);
  let kind: FreezeChangeKind = "changed";
  if (before.opened !== after.opened) kind = "re-opened";
  else if (dated && after.expires > before.expires) {
    kind = before.expires < today ? "re-opened" : "extended";
  }
  return { kind, before, after, fields };
}

/** Pair the base and head entries of each test id; identical entries are no change. */
export function diffFreezes(
  base: readonly Freeze[],
  head: readonly Freeze[],
  today: string,
): FreezeChange[] {
  const before = groupBy(base, (f) => f.test_id);
  const after = groupBy(head, (f) => f.test_id);
  const ids = [...new Set([...before.keys(), ...after.keys()])].sort();
  const changes: FreezeChange[] = [];
  for (const id of ids) {
    const b = before.get(id) ?? [];
    const a = after.get(id) ?? [];
    const bKeys = b.map(freezeKey);
    const aKeys = a.map(freezeKey);
    const oldOnes = b.filter((_, i) => !aKeys.includes(bKeys[i] as string));
    const newOnes = a.filter((_, i) => !bKeys.includes(aKeys[i] as string));
    const pairs = Math.min(oldOnes.length, newOnes.length);
    for (let i = 0; i < pairs; i++) {
      changes.push(classify(oldOnes[i] as Freeze, newOnes[i] as Freeze, today));
    }
    for (const f of newOnes.slice(pairs)) {
      changes.push({ kind: "added", before: null, after: f, fields: [] });
    }
    for (const f of oldOnes.slice(pairs)) {
      changes.push({ kind: "removed", before: f, after: null, fields: [] });
    }
  }
  return changes;
}

/** Spellings one person may go by: "Name", "name@host", its local part, GitHub's "id+user". */
function spellings(raw: string): Set<string> {
  const out = new Set<string>();
  const add = (s: string) => {
    const v = s.trim().toLowerCase().replace(/^@/, "");
    if (v === "") return;
    out.add(v);
    const at = v.lastIndexOf("@");
    if (at > 0) {
      const local = v.slice(0, at);
      out.add(local);
      const plus = local.indexOf("+");
      if (plus >= 0 && plus < local.length - 1) out.add(local.slice(plus + 1));
    }
  };
  const angle = /^(.*)<([^<>]+)>\s*$/.exec(raw);
  if (angle) {
    add(angle[1] ?? "");
    add(angle[2] ?? "");
  } else {
    add(raw);
  }
  return out;
}

/**
 * Could `a` and `b` name the same person? Deliberately generous (a shared email local part is
 * a match): a false "self-approved" costs a second approver, a missed one costs the gate.
 */
export function samePerson(a: string, b: string): boolean {
  const sa = spellings(a);
  for (const s of spellings(b)) if (sa.has(s)) return true;
  return false;
}

function describeFreeze(change: FreezeChange): string {
  const f = (change.after ?? change.before) as Freeze;
  switch (change.kind) {
    case "added":
      return `freeze of ${f.test_id} added (owner ${f.owner || "none"}, expires ${f.expires || "never"})`;
    case "removed":
      return `freeze of ${f.test_id} removed`;
    case "extended":
      return `freeze of ${f.test_id} extended: expires ${change.before?.expires} -> ${change.after?.expires}${alsoChanged(change, ["expires"])}`;
    case "re-opened":
      return `freeze of ${f.test_id} re-opened: ${change.before?.opened}..${change.before?.expires} -> ${change.after?.opened}..${change.after?.expires}${alsoChanged(change, ["opened", "expires"])}`;
    case "changed":
      return `freeze of ${f.test_id} changed: ${change.fields.join(", ")}`;
  }
}

/** "; also changed: reason, approved_by" for the fields besides the window's, or "". */
function alsoChanged(change: FreezeChange, window: readonly string[]): string {
  const others = change.fields.filter((k) => !window.includes(k));
  return others.length === 0 ? "" : `; also changed: ${others.join(", ")}`;
}

function propertyChanges(base: readonly Property[], head: readonly Property[]): Finding[] {
  const before = new Map(base.map((p) => [p.id, p]));
  const after = new Map(head.map((p) => [p.id, p]));
  const out: Finding[] = [];
  for (const id of [...new Set([...before.keys(), ...after.keys()])].sort()) {
    const b = before.get(id);
    const a = after.get(id);
    if (b && a && propertyKey(b) === propertyKey(a)) continue;
    let change: string;
    let details: Record<string, unknown>;
    if (!b && a) {
      change = "added";
      details = { change, after: a };
    } else if (b && !a) {
      change = "removed";
      details = { change, before: b };
    } else {
      const was = new Set(b?.witnessed_by);
      const now = new Set(a?.witnessed_by);
      const dropped = [...was].filter((w) => !now.has(w)).sort();
      const gained = [...now].filter((w) => !was.has(w)).sort();
      change = "changed";
      details = { change, before: b, after: a, witnessesRemoved: dropped, witnessesAdded: gained };
    }
    const removedWitnesses = (details.witnessesRemoved as string[] | undefined) ?? [];
    out.push({
      gate: "ledger-changes",
      code: "ledger-changed",
      severity: "info",
      propertyId: id,
      message:
        change === "changed"
          ? `property ${id} changed${removedWitnesses.length > 0 ? ` (witnesses removed: ${removedWitnesses.join(", ")})` : ""}`
          : `property ${id} ${change}`,
      details,
    });
  }
  return out;
}

function policyChange(base: LedgerPolicy, head: LedgerPolicy): Finding | null {
  const keys = Object.keys(head) as (keyof LedgerPolicy)[];
  const changed = keys.filter((k) => JSON.stringify(base[k]) !== JSON.stringify(head[k]));
  if (changed.length === 0) return null;
  const show = (v: unknown) => (Array.isArray(v) ? `[${v.join(", ")}]` : String(v));
  return {
    gate: "ledger-changes",
    code: "ledger-changed",
    severity: "info",
    message: `policy changed: ${changed.map((k) => `${k} ${show(base[k])} -> ${show(head[k])}`).join("; ")}`,
    details: {
      change: "policy",
      before: Object.fromEntries(changed.map((k) => [k, base[k]])),
      after: Object.fromEntries(changed.map((k) => [k, head[k]])),
    },
  };
}

function identityText(who: Identity): string {
  return `${who.name} <${who.email}>`;
}

/**
 * The terms a re-point carries from the freeze it moves: its words and its property. An owner
 * handed over, or a flag, is no sign of one.
 */
const CARRIED_TERMS: readonly string[] = ["reason", "invariant", "compensating_property"];

/** The fields of a freeze's window and approval: a plain extension changes only these. */
const WINDOW_FIELDS: readonly string[] = ["opened", "expires", "approved_by"];

/** The fields that are a freeze's terms, what its approver agreed to: all but approved_by. */
const TERM_FIELDS = FREEZE_FIELDS.filter((k) => k !== "approved_by");

/**
 * An approval carried over from the base: `freeze` changes the terms of an entry the base had
 * for the same test, and names the same approver. That person approved the old terms, not this
 * change (a re-opened window, a new property): the patch must name who approved the change.
 */
function carriedOverApproval(freeze: Freeze, baseEntries: readonly Freeze[]): string | null {
  const approver = (freeze.approved_by ?? "").trim();
  if (approver === "") return null;
  for (const before of baseEntries) {
    const earlier = (before.approved_by ?? "").trim();
    if (earlier === "" || !samePerson(approver, earlier)) continue;
    const terms = TERM_FIELDS.filter((k) => (before[k] ?? null) !== (freeze[k] ?? null));
    if (terms.length === 0) continue;
    return `keeps the approval of ${approver}, given before its ${terms.join(", ")} changed (name who approved this change in approved_by)`;
  }
  return null;
}

/**
 * A new freeze named with the approver of a freeze the same patch removes: it may be that
 * freeze pointed at other tests (its test_id edited), and the approval was for the old ones.
 */
function approvalOfRemoved(
  freeze: Freeze,
  removed: readonly Freeze[],
  change: Pick<FreezeChange, "kind" | "fields">,
): string | null {
  const approver = (freeze.approved_by ?? "").trim();
  if (approver === "") return null;
  const kind = change.kind;
  // Which fields a re-point keeps cannot be required of a new entry (its reason may be
  // reworded on the way): any freeze the patch removes under the same approver counts. A new
  // freeze that person really approved goes in a patch of its own, or names another approver.
  // An entry the base had is re-pointed onto when it takes over a removed freeze's terms: a
  // changed term that now holds the removed freeze's value (an extension that rewords its
  // own reason is no re-point).
  const carried = (r: Freeze) =>
    kind === "added" ||
    change.fields.some((k) => {
      const key = k as (typeof FREEZE_FIELDS)[number];
      return CARRIED_TERMS.includes(k) && (freeze[key] ?? null) === (r[key] ?? null);
    });
  const old = removed.find((r) => samePerson(approver, (r.approved_by ?? "").trim()) && carried(r));
  if (old === undefined) return null;
  const way = kind === "added" ? "add the freeze" : "make this change";
  return `keeps the approval of ${approver}, given to the freeze of ${old.test_id} that this patch removes (name who approved this change in approved_by, or ${way} in a patch that removes none ${approver} approved)`;
}

function approvalProblem(freeze: Freeze, authors: readonly Identity[]): string | null {
  const approver = (freeze.approved_by ?? "").trim();
  if (approver === "") return "has no approved_by";
  if (freeze.owner.trim() !== "" && samePerson(approver, freeze.owner)) {
    return `is approved by its own owner (${approver})`;
  }
  const self = authors.find(
    (who) => samePerson(approver, who.name) || samePerson(approver, who.email),
  );
  if (self) return `is approved by ${approver}, who authored the change (${identityText(self)})`;
  if (authors.length === 0) {
    return `is approved by ${approver}, but git could not say who authored the change`;
  }
  return null;
}

export function checkLedgerChanges(input: LedgerChangeInput): Finding[] {
  const { base, head, today, authors, ledgerPath } = input;
  const findings: Finding[] = [];
  if (base !== null && head === null) {
    findings.push({
      gate: "ledger-changes",
      code: "ledger-changed",
      severity: "info",
      path: ledgerPath,
      message: `the ledger ${ledgerPath} is deleted in this patch (${base.freezes.length} freezes, ${base.properties.length} properties)`,
      details: { change: "ledger-deleted" },
    });
  }
  const changes = diffFreezes(base?.freezes ?? [], head?.freezes ?? [], today);
  for (const change of changes) {
    const f = (change.after ?? change.before) as Freeze;
    findings.push({
      gate: "ledger-changes",
      code: "ledger-changed",
      severity: "info",
      testId: f.test_id,
      path: ledgerPath,
      message: describeFreeze(change),
      details: {
        change: change.kind,
        ...(change.fields.length > 0 ? { fields: change.fields } : {}),
        ...(change.before ? { before: change.before } : {}),
        ...(change.after ? { after: change.after } : {}),
      },
    });
  }
  findings.push(...propertyChanges(base?.properties ?? [], head?.properties ?? []));
  if (base && head) {
    const policy = policyChange(base.policy, head.policy);
    if (policy) findings.push({ ...policy, path: ledgerPath });
  }

  // Turning approval off in the same patch must not waive it: either side's policy requires it.
  const required =
    (base?.policy.require_approval ?? false) || (head?.policy.require_approval ?? false);
  if (required) {
    const baseEntries = groupBy(base?.freezes ?? [], (f) => f.test_id);
    // A freeze pointed at other tests reads as one removed and one added: the approval of the
    // removed entry is no approval of the added one.
    const removed = changes.flatMap((c) => (c.after === null && c.before ? [c.before] : []));
    for (const change of changes) {
      if (change.after === null) continue; // an unfreeze gives coverage back; it needs no approver
      const who = [...(authors.byTestId.get(change.after.test_id) ?? []), ...authors.anyEntry];
      const problem =
        approvalProblem(change.after, who) ??
        carriedOverApproval(change.after, baseEntries.get(change.after.test_id) ?? []) ??
        // An entry the base had that takes a new approver and new terms beyond its window may
        // be a removed freeze moved onto a test the base already froze, with that freeze's
        // approval; a plain extension with a new approver is not.
        (change.kind === "added" ||
        (change.before &&
          !samePerson(
            (change.after.approved_by ?? "").trim(),
            (change.before.approved_by ?? "").trim(),
          ) &&
          change.fields.some((k) => !WINDOW_FIELDS.includes(k)))
          ? approvalOfRemoved(change.after, removed, change)
          : null);
      if (problem === null) continue;
      findings.push({
        gate: "ledger-changes",
        code: "self-approved",
        severity: "error",
        testId: change.after.test_id,
        path: ledgerPath,
        message: `the ${change.kind === "added" ? "new" : change.kind} freeze of ${change.after.test_id} ${problem}, and policy.require_approval is on`,
        details: {
          change: change.kind,
          approvedBy: change.after.approved_by ?? null,
          owner: change.after.owner,
          authors: who.map(identityText),
        },
      });
    }
  }
  return findings;
}

// ---------------------------------------------------------------------------------------------
// Who changed which entry: one step per commit in BASE..HEAD.

/** A commit's ledger, read from git: parsed, absent at that commit, or not readable. */
export type LedgerAtCommit = Ledger | null | "unreadable";

export interface LedgerStep {
  identities: readonly Identity[];
  ledger: LedgerAtCommit;
  /** The ledger at each parent of the commit. */
  parents: readonly LedgerAtCommit[];
}

/**
 * Attribute each freeze entry to the commits that wrote it: an entry whose exact value at a
 * commit appears in none of its parents was added or changed by that commit (for a merge,
 * taking one side's entry is not authoring it). A commit whose ledger cannot be read could
 * have written anything, so its identities count for every entry.
 */
export function attributeFreezeChanges(steps: readonly LedgerStep[]): FreezeAuthors {
  const byTestId = new Map<string, Identity[]>();
  const anyEntry: Identity[] = [];
  const add = (list: Identity[], who: readonly Identity[]) => {
    for (const w of who) {
      if (!list.some((x) => x.name === w.name && x.email === w.email)) list.push(w);
    }
  };
  for (const step of steps) {
    if (step.ledger === "unreadable") {
      add(anyEntry, step.identities);
      continue;
    }
    if (step.ledger === null) continue;
    const readable = step.parents.filter((p): p is Ledger | null => p !== "unreadable");
    const known = readable.map((p) => new Set((p?.freezes ?? []).map(freezeKey)));
    const noParentToCompare = step.parents.length > 0 && readable.length === 0;
    for (const freeze of step.ledger.freezes) {
      const key = freezeKey(freeze);
      const inherited = !noParentToCompare && known.some((set) => set.has(key));
      if (inherited) continue;
      let list = byTestId.get(freeze.test_id);
      if (!list) {
        list = [];
        byTestId.set(freeze.test_id, list);
      }
      add(list, step.identities);
    }
  }
  return { byTestId, anyEntry };
}
