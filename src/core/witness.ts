// The witness gate: a test may be frozen only if every property it witnesses is
// still witnessed by at least one live test. A property's own check does not count as its
// witness (listing it in witnessed_by changes nothing); a frozen check is reported on its own.
// "Frozen" follows the audit's and the plugin's rules (src/core/frozen.ts): an exact entry
// freezes that id only, an entry with "*" is a glob unless the suite has a test of exactly that
// id (a parametrized case such as `test_match[*.py]`), when the suite's tests are known. A
// hand-written glob freeze that takes a property's last witness must fail the gate as an exact
// freeze of it does.

import type { Finding } from "./findings.js";
import { frozenListOf, lookupOf, resolveFrozen } from "./frozen.js";
import type { Ledger } from "./ledger-model.js";

/** The test ids the ledger's freezes name, as written (exact ids and globs). */
export function frozenIds(ledger: Ledger): string[] {
  return ledger.freezes.map((f) => f.test_id);
}

/**
 * Which of `tests` the frozen entries freeze -> the entry that freezes it. An exact entry wins
 * over a glob (as in the plugin), so a message names the glob only when nothing else applies.
 * `known`: the suite's test ids, when known; an entry with "*" that is one of them is that test
 * only, as the audit and the plugin read it. Without them such an entry stays a glob, which at
 * worst fails a gate that should pass.
 */
export function frozenBy(
  frozen: Iterable<string>,
  tests: Iterable<string>,
  known: ReadonlySet<string> | null = null,
): Map<string, string> {
  const lookup = lookupOf(tests);
  const { matches } = resolveFrozen(frozenListOf(frozen), {
    ...lookup,
    hasTest: (id) => lookup.hasTest(id) || (known?.has(id) ?? false),
  });
  const by = new Map<string, string>();
  for (const glob of [false, true]) {
    for (const [pattern, ids] of matches) {
      if (pattern.includes("*") !== glob) continue;
      for (const id of ids) if (lookup.hasTest(id) && !by.has(id)) by.set(id, pattern);
    }
  }
  return by;
}

/**
 * The witness findings. `frozen`: the frozen entries as written (default: the ledger's
 * freezes); `witnessLoss` passes them with the tests about to be frozen. `known`: the suite's
 * test ids when known (see frozenBy).
 */
export function checkWitnesses(
  ledger: Ledger,
  frozen: Iterable<string> = frozenIds(ledger),
  known: ReadonlySet<string> | null = null,
  /**
   * Tests that witnessed nothing in the run although no freeze names them -> why, as a
   * predicate ("is muted by an xfail outside the ledger"): they count as frozen.
   */
  silenced: ReadonlyMap<string, string> = new Map(),
): Finding[] {
  // An empty id (a field left out: ledger check's missing-field) names no test, and an empty
  // freeze freezes none of them.
  const named = ledger.properties
    .flatMap((p) => [p.check, ...p.witnessed_by])
    .filter((id) => id !== "");
  const by = frozenBy(frozen, named, known);
  const shown = (id: string): string => {
    const entry = by.get(id);
    return entry === undefined || entry === id ? id : `${id} (by the glob ${entry})`;
  };
  const globs = (ids: readonly string[]) => {
    const viaGlob = ids.filter((id) => by.get(id) !== id).map((id) => [id, by.get(id)]);
    return viaGlob.length === 0 ? {} : { frozenBy: Object.fromEntries(viaGlob) };
  };
  const findings: Finding[] = [];
  for (const property of ledger.properties) {
    const listed = [...new Set(property.witnessed_by)];
    // The property's own check fails with the invariant itself: it cannot be its own witness.
    // A witness is one test, named by its id: an entry with "*" that is no known test's id
    // names no test, and a freeze of the tests it looks like would leave it standing.
    const notIds = listed.filter((w) => w.includes("*") && !(known?.has(w) ?? false));
    const witnesses = listed.filter((w) => w !== property.check && !notIds.includes(w));
    if (witnesses.length === 0) {
      findings.push({
        gate: "witness",
        code: "orphaned-property",
        severity: "error",
        propertyId: property.id,
        message:
          notIds.length > 0
            ? `property ${property.id} has no witness named by a test id: ${notIds.join(", ")} ${notIds.length === 1 ? "is a glob" : "are globs"}, and witnessed_by lists tests one by one${known === null ? " (a test whose own id holds * counts once the suite's tests are known: --collected, or the coverage data)" : ""}`
            : listed.length === 0
              ? `property ${property.id} has no witnesses recorded`
              : `property ${property.id} has no witnesses recorded besides its own check ${property.check}, which is not its witness`,
        details: {
          witnesses: [],
          takenBy: [],
          ...(notIds.length > 0 ? { notTestIds: notIds } : {}),
        },
      });
    } else if (witnesses.every((w) => by.has(w) || silenced.has(w))) {
      const takenBy = [...witnesses].sort();
      const quiet = takenBy.filter((w) => !by.has(w));
      findings.push({
        gate: "witness",
        code: "orphaned-property",
        severity: "error",
        propertyId: property.id,
        message:
          quiet.length === 0
            ? `property ${property.id} has no live witness left: the freeze${takenBy.length === 1 ? "" : "s"} of ${takenBy.map(shown).join(", ")} took ${takenBy.length === 1 ? "its last witness" : "every witness"}`
            : `property ${property.id} has no live witness left: ${takenBy.map((w) => (by.has(w) ? `${shown(w)} is frozen` : `${w} ${silenced.get(w)}`)).join(", ")}`,
        details: {
          witnesses: witnesses.sort(),
          takenBy,
          ...globs(takenBy.filter((w) => by.has(w))),
          ...(quiet.length === 0 ? {} : { silenced: quiet }),
        },
      });
    }
    const frozenCheck = by.has(property.check);
    const quietCheck = frozenCheck ? undefined : silenced.get(property.check);
    if (frozenCheck || quietCheck !== undefined) {
      findings.push({
        gate: "witness",
        code: "frozen-property-check",
        severity: "error",
        propertyId: property.id,
        testId: property.check,
        message: frozenCheck
          ? `property ${property.id}'s own check ${shown(property.check)} is frozen`
          : `property ${property.id}'s own check ${property.check} ${quietCheck}`,
        ...(!frozenCheck
          ? { details: { silenced: [property.check] } }
          : by.get(property.check) === property.check
            ? {}
            : { details: globs([property.check]) }),
      });
    }
  }
  return findings;
}

/**
 * What freezing `tests` would take away: properties that would lose their last live witness
 * (or whose check would be frozen). Used by `freeze` (to refuse) and `impact` (to tell).
 */
export function witnessLoss(
  ledger: Ledger,
  tests: readonly string[],
  known: ReadonlySet<string> | null = null,
): Finding[] {
  const before = new Set(checkWitnesses(ledger, frozenIds(ledger), known).map(key));
  return checkWitnesses(ledger, [...frozenIds(ledger), ...tests], known).filter(
    (f) => !before.has(key(f)),
  );
}

function key(f: Finding): string {
  return `${f.code}\u0000${f.propertyId ?? ""}`;
}

/**
 * The properties a patch is judged by: its own, plus what the merge base's ledger had that the
 * patch removes (a property, or witnesses of one it keeps). A removal takes effect from the
 * next patch on, as a loosened policy does: otherwise the patch that freezes a property's last
 * witness could delete the property, or swap the witness for another, and pass. A witness the
 * patch adds counts at once (promoting a test into witnessed_by is how a blocked freeze goes
 * on). A check the patch replaces is judged as well, through a second entry of the property
 * (dedupe the findings). `removed`: the property ids whose removal was not applied, sorted;
 * `restored`: property id -> the witnesses put back, and `whole`: the properties put back
 * whole (the caller drops a put-back witness that is no test any more: renamed or deleted
 * with the property, it witnesses nothing under its old id).
 */
export function withBaseProperties(
  ledger: Ledger,
  base: Ledger,
): { ledger: Ledger; removed: string[]; restored: Map<string, Set<string>>; whole: Set<string> } {
  const properties = ledger.properties.map((p) => ({ ...p, witnessed_by: [...p.witnessed_by] }));
  const byId = new Map(properties.map((p) => [p.id, p]));
  const removed = new Set<string>();
  const restored = new Map<string, Set<string>>();
  const whole = new Set<string>();
  for (const old of base.properties) {
    const now = byId.get(old.id);
    if (now === undefined) {
      const kept = { ...old, witnessed_by: [...old.witnessed_by] };
      properties.push(kept);
      byId.set(old.id, kept);
      removed.add(old.id);
      whole.add(old.id);
      restored.set(old.id, new Set(old.witnessed_by));
      continue;
    }
    const gone = old.witnessed_by.filter((w) => !now.witnessed_by.includes(w));
    if (gone.length > 0) {
      now.witnessed_by.push(...gone);
      removed.add(old.id);
      restored.set(old.id, new Set(gone));
    }
    if (old.check !== now.check && old.check !== "") {
      // The check the patch replaces is judged too (freezing it is frozen-property-check):
      // a second entry of the property, whose findings the caller shows once.
      properties.push({ ...now, check: old.check });
      removed.add(old.id);
    }
  }
  return { ledger: { ...ledger, properties }, removed: [...removed].sort(), restored, whole };
}
