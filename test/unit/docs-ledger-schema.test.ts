// schema/ledger.schema.json tells editors what freezegate accepts: what it violates must be
// what the parser refuses (exit 2), and a ledger the parser reads, with fields missing, must
// be valid there, its gaps left to `ledger check` (missing-field) and the witness gate.

import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import { parseLedger } from "../../src/core/ledger.js";
import { checkShape } from "../../src/core/ledger-shape.js";
import { checkWitnesses, frozenIds } from "../../src/core/witness.js";
import { assertMatchesSchema } from "../helpers/schema.js";

describe("the ledger schema is no stricter than the parser", () => {
  const partial = {
    version: 1,
    freezes: [{ test_id: "t.py::a" }, {}],
    properties: [{ id: "p", check: "t.py::c" }, {}],
  };

  it("accepts freezes and properties with fields missing, which ledger check reports", () => {
    expect(() => assertMatchesSchema("ledger.schema.json", partial)).not.toThrow();
    const ledger = parseLedger(partial, "x");
    const findings = checkShape(ledger, { today: "2026-10-18", knownTests: null });
    expect(findings.filter((f) => f.code === "missing-field").map((f) => f.message)).toEqual([
      "the freeze of t.py::a has no reason, owner, opened, expires, invariant, compensating_property",
      "freeze #2 (no test_id) has no test_id, reason, owner, opened, expires, invariant, compensating_property",
      "property #2 has no id, check",
    ]);
    const orphaned = checkWitnesses(ledger, frozenIds(ledger), null).filter(
      (f) => f.code === "orphaned-property" && f.propertyId === "p",
    );
    expect(orphaned.map((f) => f.message)).toEqual(["property p has no witnesses recorded"]);
  });

  it("still refuses what the parser refuses", () => {
    for (const value of [
      { freezes: [] },
      { version: 1, freezes: [{ test_id: 3 }] },
      { version: 1, properties: [{ id: "p", witnessed_by: [""] }] },
      { version: 1, properties: [{ id: "p", witnessed_by: "t.py::w" }] },
    ]) {
      expect(() => parseLedger(value, "x"), JSON.stringify(value)).toThrow(InputError);
      expect(() => assertMatchesSchema("ledger.schema.json", value)).toThrow();
    }
  });
});
