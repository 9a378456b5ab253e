// The witness gate as a pure function: "is this test frozen" follows the audit's rules (exact
// ids exactly, entries with "*" as globs), and a property's own check is never its witness.

import { describe, expect, it } from "vitest";
import { emptyLedger } from "../../src/core/ledger.js";
import type { Freeze, Ledger, Property } from "../../src/core/ledger-model.js";
import {
  checkWitnesses,
  frozenBy,
  withBaseProperties,
  witnessLoss,
} from "../../src/core/witness.js";

const REJECTED = "tests/test_ledger.py::test_overdraft_rejected";
const MORE = "tests/test_ledger.py::test_withdraw_more_than_balance";
const NOOP_CHECK = "tests/properties/test_ledger.py::test_rejected_withdrawal_is_a_noop";
const BALANCE_CHECK = "tests/properties/test_ledger.py::test_balance_never_negative";

const NOOP: Property = { id: "prop.noop", check: NOOP_CHECK, witnessed_by: [REJECTED] };
const BALANCE: Property = {
  id: "prop.balance",
  check: BALANCE_CHECK,
  witnessed_by: [REJECTED, MORE],
};

function freeze(testId: string): Freeze {
  return {
    test_id: testId,
    reason: "flaky",
    owner: "finley",
    opened: "2026-10-12",
    expires: "2026-10-26",
    invariant: "x",
    compensating_property: NOOP_CHECK,
    reused_property: true,
  };
}

function ledger(frozen: string[], properties: Property[] = [NOOP, BALANCE]): Ledger {
  return { ...emptyLedger(), freezes: frozen.map(freeze), properties };
}

const messages = (l: Ledger) => checkWitnesses(l).map((f) => `${f.code}: ${f.message}`);

describe("checkWitnesses: frozen as the audit resolves it", () => {
  it("a witness written as a glob names no test, so it keeps no property alive", () => {
    // Before, the glob was read as the id of a test nobody froze: freezing the one test it
    // matched left the property witnessed, and check passed.
    const glob = "tests/test_ledger.py::test_overdraft_*";
    const only: Property = { id: "prop.noop", check: NOOP_CHECK, witnessed_by: [glob] };
    for (const frozen of [[REJECTED], []]) {
      expect(checkWitnesses(ledger(frozen, [only]), undefined, new Set([REJECTED]))).toEqual([
        {
          gate: "witness",
          code: "orphaned-property",
          severity: "error",
          propertyId: "prop.noop",
          message: `property prop.noop has no witness named by a test id: ${glob} is a glob, and witnessed_by lists tests one by one`,
          details: { witnesses: [], takenBy: [], notTestIds: [glob] },
        },
      ]);
    }
    // Beside a real witness it is left out: freezing that witness orphans the property.
    const mixed: Property = { ...only, witnessed_by: [glob, REJECTED] };
    expect(messages(ledger([], [mixed]))).toEqual([]);
    expect(messages(ledger([REJECTED], [mixed]))).toEqual([
      `orphaned-property: property prop.noop has no live witness left: the freeze of ${REJECTED} took its last witness`,
    ]);
    // A test whose own id holds "*" is that test when the suite's tests are known; without
    // them the message says how to make them known.
    const literal = "tests/test_m.py::test_match[*.py]";
    const param: Property = { ...only, witnessed_by: [literal] };
    expect(checkWitnesses(ledger([], [param]), undefined, new Set([literal]))).toEqual([]);
    expect(messages(ledger([], [param]))).toEqual([
      `orphaned-property: property prop.noop has no witness named by a test id: ${literal} is a glob, and witnessed_by lists tests one by one (a test whose own id holds * counts once the suite's tests are known: --collected, or the coverage data)`,
    ]);
  });

  it("an exact freeze of the last witness orphans the property (unchanged message)", () => {
    expect(messages(ledger([REJECTED]))).toEqual([
      `orphaned-property: property prop.noop has no live witness left: the freeze of ${REJECTED} took its last witness`,
    ]);
  });

  it("a glob freeze of the last witness orphans it too, and the message names the glob", () => {
    const findings = checkWitnesses(ledger(["tests/test_ledger.py::test_overdraft_*"]));
    expect(findings).toEqual([
      {
        gate: "witness",
        code: "orphaned-property",
        severity: "error",
        propertyId: "prop.noop",
        message: `property prop.noop has no live witness left: the freeze of ${REJECTED} (by the glob tests/test_ledger.py::test_overdraft_*) took its last witness`,
        details: {
          witnesses: [REJECTED],
          takenBy: [REJECTED],
          frozenBy: { [REJECTED]: "tests/test_ledger.py::test_overdraft_*" },
        },
      },
    ]);
    // A glob over the whole file takes every witness of both properties, and both checks' file
    // is another one, so only the witnesses go.
    expect(messages(ledger(["tests/test_ledger.py::*"]))).toEqual([
      `orphaned-property: property prop.noop has no live witness left: the freeze of ${REJECTED} (by the glob tests/test_ledger.py::*) took its last witness`,
      `orphaned-property: property prop.balance has no live witness left: the freezes of ${REJECTED} (by the glob tests/test_ledger.py::*), ${MORE} (by the glob tests/test_ledger.py::*) took every witness`,
    ]);
  });

  it("an exact entry wins over a glob in the message; exact ids never match as prefixes", () => {
    expect(messages(ledger(["tests/test_ledger.py::*", REJECTED], [NOOP]))).toEqual([
      `orphaned-property: property prop.noop has no live witness left: the freeze of ${REJECTED} took its last witness`,
    ]);
    // No suffix/prefix matching and no parametrized-case matching for exact ids; "[" is literal.
    expect(messages(ledger(["tests/test_ledger.py::test_overdraft"]))).toEqual([]);
    const param: Property = { id: "prop.p", check: NOOP_CHECK, witnessed_by: [`${REJECTED}[1]`] };
    expect(messages(ledger([REJECTED], [param]))).toEqual([]);
    expect(messages(ledger([`${REJECTED}[*]`], [param]))).toEqual([
      `orphaned-property: property prop.p has no live witness left: the freeze of ${REJECTED}[1] (by the glob ${REJECTED}[*]) took its last witness`,
    ]);
  });

  it("a glob that freezes a property's own check is frozen-property-check", () => {
    expect(checkWitnesses(ledger(["tests/properties/*"], [NOOP]))).toEqual([
      {
        gate: "witness",
        code: "frozen-property-check",
        severity: "error",
        propertyId: "prop.noop",
        testId: NOOP_CHECK,
        message: `property prop.noop's own check ${NOOP_CHECK} (by the glob tests/properties/*) is frozen`,
        details: { frozenBy: { [NOOP_CHECK]: "tests/properties/*" } },
      },
    ]);
  });

  it("an empty freeze (a test_id left out) freezes no property's empty check", () => {
    // ledger check reports both as missing-field; before, this read "property 's own check
    // is frozen".
    const empty: Property = { id: "prop.empty", check: "", witnessed_by: [REJECTED] };
    expect(checkWitnesses(ledger([""], [empty]))).toEqual([]);
    expect(checkWitnesses(ledger([""], [{ ...empty, witnessed_by: ["", REJECTED] }]))).toEqual([]);
  });

  it("frozenBy maps each frozen test to the entry that freezes it", () => {
    expect(frozenBy(["a::t_*", "a::t_1"], ["a::t_1", "a::t_2", "b::t_1"])).toEqual(
      new Map([
        ["a::t_1", "a::t_1"],
        ["a::t_2", "a::t_*"],
      ]),
    );
  });
});

describe('an entry holding "*" that is one of the suite\'s tests', () => {
  // pytest --collect-only -q prints a parametrized case's id with its "*" (test_match[*.py]);
  // the audit and the plugin freeze that case alone when the suite has it.
  const CASE_STAR = "tests/test_paths.py::test_match[*.py]";
  const CASE_A = "tests/test_paths.py::test_match[a.py]";
  const PATHS: Property = { id: "prop.paths", check: NOOP_CHECK, witnessed_by: [CASE_A] };
  const known = new Set([CASE_STAR, CASE_A, NOOP_CHECK]);

  it("freezes that case only when the suite's tests are known", () => {
    const l = ledger([CASE_STAR], [PATHS]);
    expect(checkWitnesses(l, [CASE_STAR], known)).toEqual([]);
    expect(frozenBy([CASE_STAR], [CASE_A], known)).toEqual(new Map());
    expect(witnessLoss(ledger([], [PATHS]), [CASE_STAR], known)).toEqual([]);
  });

  it("stays a glob when the tests are unknown or do not hold it (fails closed)", () => {
    const orphaned = [
      `orphaned-property: property prop.paths has no live witness left: the freeze of ${CASE_A} (by the glob ${CASE_STAR}) took its last witness`,
    ];
    const l = ledger([CASE_STAR], [PATHS]);
    expect(messages(l)).toEqual(orphaned);
    const without = new Set([CASE_A, NOOP_CHECK]);
    expect(checkWitnesses(l, [CASE_STAR], without).map((f) => `${f.code}: ${f.message}`)).toEqual(
      orphaned,
    );
  });
});

describe("witnessLoss with glob freezes in the ledger", () => {
  it("freezing the other witness of a property a glob half-froze takes its last witness", () => {
    const l = ledger(["tests/test_ledger.py::test_withdraw_*"]);
    expect(checkWitnesses(l)).toEqual([]);
    expect(witnessLoss(l, [REJECTED]).map((f) => f.propertyId)).toEqual([
      "prop.noop",
      "prop.balance",
    ]);
  });

  it("a test a glob already froze withdraws nothing new", () => {
    expect(witnessLoss(ledger(["tests/test_ledger.py::test_overdraft_*"]), [REJECTED])).toEqual([]);
  });
});

describe("a property's own check is not its witness", () => {
  it("listed beside a frozen witness, the check does not keep the property witnessed", () => {
    const selfWitnessed: Property = { ...NOOP, witnessed_by: [REJECTED, NOOP_CHECK] };
    expect(messages(ledger([REJECTED], [selfWitnessed]))).toEqual([
      `orphaned-property: property prop.noop has no live witness left: the freeze of ${REJECTED} took its last witness`,
    ]);
    expect(witnessLoss(ledger([], [selfWitnessed]), [REJECTED]).map((f) => f.code)).toEqual([
      "orphaned-property",
    ]);
  });

  it("listed alone, the property has no witness recorded", () => {
    const only: Property = { ...NOOP, witnessed_by: [NOOP_CHECK] };
    expect(checkWitnesses(ledger([], [only]))).toEqual([
      {
        gate: "witness",
        code: "orphaned-property",
        severity: "error",
        propertyId: "prop.noop",
        message: `property prop.noop has no witnesses recorded besides its own check ${NOOP_CHECK}, which is not its witness`,
        details: { witnesses: [], takenBy: [] },
      },
    ]);
    expect(messages(ledger([], [{ ...NOOP, witnessed_by: [] }]))).toEqual([
      "orphaned-property: property prop.noop has no witnesses recorded",
    ]);
  });
});

describe("checkWitnesses: tests that witnessed nothing in the run, unfrozen", () => {
  const MUTED = "is muted by an xfail outside the ledger";
  it("a muted last witness leaves the property orphaned, a muted check is reported", () => {
    // The audit and the deposit gate judged a muted test as frozen, the witness
    // gate as live.
    const muted = new Map([[REJECTED, MUTED]]);
    expect(checkWitnesses(ledger([]), [], null, muted)).toEqual([
      {
        gate: "witness",
        code: "orphaned-property",
        severity: "error",
        propertyId: "prop.noop",
        message: `property prop.noop has no live witness left: ${REJECTED} is muted by an xfail outside the ledger`,
        details: { witnesses: [REJECTED], takenBy: [REJECTED], silenced: [REJECTED] },
      },
    ]);
    // One frozen and one muted: both named.
    expect(checkWitnesses(ledger([MORE]), undefined, null, muted).map((f) => f.message)).toEqual([
      `property prop.noop has no live witness left: ${REJECTED} is muted by an xfail outside the ledger`,
      `property prop.balance has no live witness left: ${REJECTED} is muted by an xfail outside the ledger, ${MORE} is frozen`,
    ]);
    expect(checkWitnesses(ledger([]), [], null, new Map([[NOOP_CHECK, MUTED]]))).toEqual([
      {
        gate: "witness",
        code: "frozen-property-check",
        severity: "error",
        propertyId: "prop.noop",
        testId: NOOP_CHECK,
        message: `property prop.noop's own check ${NOOP_CHECK} is muted by an xfail outside the ledger`,
        details: { silenced: [NOOP_CHECK] },
      },
    ]);
    // A frozen witness keeps the freeze's message; muting a test no property names changes nothing.
    expect(messages(ledger([REJECTED]))).toEqual(
      checkWitnesses(ledger([REJECTED]), undefined, null, muted).map(
        (f) => `${f.code}: ${f.message}`,
      ),
    );
    expect(checkWitnesses(ledger([]), [], null, new Map([["tests/x.py::t", MUTED]]))).toEqual([]);
  });
});

describe("withBaseProperties: a removal takes effect from the next patch on", () => {
  it("keeps a property or witness the patch removes, and counts one it adds at once", () => {
    const base = ledger([], [NOOP, BALANCE]);
    // The patch deletes prop.noop and freezes its last witness: judged with it.
    const deleted = withBaseProperties(ledger([REJECTED], [BALANCE]), base);
    expect(deleted.removed).toEqual(["prop.noop"]);
    expect(messages(deleted.ledger)).toEqual([
      `orphaned-property: property prop.noop has no live witness left: the freeze of ${REJECTED} took its last witness`,
    ]);
    // The patch drops the frozen witness from witnessed_by: still judged with it.
    const dropped = withBaseProperties(
      ledger([REJECTED, MORE], [NOOP, { ...BALANCE, witnessed_by: [MORE] }]),
      base,
    );
    expect(dropped.removed).toEqual(["prop.balance"]);
    expect(dropped.ledger.properties.find((p) => p.id === "prop.balance")?.witnessed_by).toEqual([
      MORE,
      REJECTED,
    ]);
    // Promoting a test into witnessed_by keeps the property alive in the same patch.
    const promoted = withBaseProperties(
      ledger([REJECTED], [{ ...NOOP, witnessed_by: [REJECTED, MORE] }, BALANCE]),
      base,
    );
    expect(promoted.removed).toEqual([]);
    expect(messages(promoted.ledger)).toEqual([]);
    // A check the patch replaces is judged too: freezing it is still caught.
    const swapped = withBaseProperties(
      ledger([NOOP_CHECK], [{ ...NOOP, check: MORE }, BALANCE]),
      base,
    );
    expect(swapped.removed).toEqual(["prop.noop"]);
    expect(messages(swapped.ledger)).toContain(
      `frozen-property-check: property prop.noop's own check ${NOOP_CHECK} is frozen`,
    );
    // The ledger given is left as it was.
    expect(base.properties).toEqual([NOOP, BALANCE]);
  });
});
