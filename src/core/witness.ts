// The witness gate (seed 003): a test may be frozen only if every property it witnesses is
// still witnessed by at least one live test. A property's own check does not count as its
// witness; a frozen check is reported on its own.

import type { Finding } from "./findings.js";
import type { Ledger } from "./ledger-model.js";

/** Test ids frozen by the ledger. */
export function frozenIds(ledger: Ledger): Set<string> {
  return new Set(ledger.freezes.map((f) => f.test_id));
}

export function checkWitnesses(
  ledger: Ledger,
  frozen: ReadonlySet<string> = frozenIds(ledger),
): Finding[] {
  const findings: Finding[] = [];
  for (const property of ledger.properties) {
    const witnesses = [...new Set(property.witnessed_by)];
    if (witnesses.length === 0) {
      findings.push({
        gate: "witness",
        code: "orphaned-property",
        severity: "error",
        propertyId: property.id,
        message: `property ${property.id} has no witnesses recorded`,
        details: { witnesses: [], takenBy: [] },
      });
    } else if (witnesses.every((w) => frozen.has(w))) {
      const takenBy = witnesses.filter((w) => frozen.has(w)).sort();
      findings.push({
        gate: "witness",
        code: "orphaned-property",
        severity: "error",
        propertyId: property.id,
        message: `property ${property.id} has no live witness left: the freeze${takenBy.length === 1 ? "" : "s"} of ${takenBy.join(", ")} took ${takenBy.length === 1 ? "its last witness" : "every witness"}`,
        details: { witnesses: witnesses.sort(), takenBy },
      });
    }
    if (frozen.has(property.check)) {
      findings.push({
        gate: "witness",
        code: "frozen-property-check",
        severity: "error",
        propertyId: property.id,
        testId: property.check,
        message: `property ${property.id}'s own check ${property.check} is frozen`,
      });
    }
  }
  return findings;
}

/**
 * What freezing `tests` would take away: properties that would lose their last live witness
 * (or whose check would be frozen). Used by `freeze` (to refuse) and `impact` (to tell).
 */
export function witnessLoss(ledger: Ledger, tests: readonly string[]): Finding[] {
  const before = new Set(checkWitnesses(ledger).map(key));
  const frozen = frozenIds(ledger);
  for (const t of tests) frozen.add(t);
  return checkWitnesses(ledger, frozen).filter((f) => !before.has(key(f)));
}

function key(f: Finding): string {
  return `${f.code}\u0000${f.propertyId ?? ""}`;
}
