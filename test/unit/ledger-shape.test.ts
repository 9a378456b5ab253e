// The shape gate: each finding code from a ledger that has exactly that problem, the seeds'
// examples judged as the seeds judge them, and a well-formed ledger passing clean.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Finding } from "../../src/core/findings.js";
import { emptyLedger, idOnlyFreeze, parseLedger } from "../../src/core/ledger.js";
import type { Freeze, Ledger, Property } from "../../src/core/ledger-model.js";
import { checkShape } from "../../src/core/ledger-shape.js";
import { REPO_ROOT } from "../helpers/cli.js";

const FIXTURES = join(REPO_ROOT, "test/fixtures/ledger");
const fixture = (name: string) =>
  parseLedger(JSON.parse(readFileSync(join(FIXTURES, name), "utf8")), name);

const FREEZE: Freeze = {
  test_id: "tests/test_billing.py::test_proration_rounding",
  reason: "order-dependent failure",
  owner: "finley",
  opened: "2026-10-12",
  expires: "2026-10-26",
  invariant: "proration never decreases when the period lengthens",
  compensating_property: "tests/props/test_proration_props.py::test_monotonic_in_period",
  reused_property: false,
};
const KNOWN = new Set([FREEZE.test_id, FREEZE.compensating_property]);
const BALANCE = "tests/test_billing.py::test_balance";

function ledger(freezes: Freeze[], properties: Property[] = [], patch: Partial<Ledger> = {}) {
  return { ...emptyLedger(), freezes, properties, ...patch };
}

function codes(findings: Finding[]): string[] {
  return findings.map((f) => f.code);
}

const judge = (l: Ledger, today = "2026-10-18", knownTests: ReadonlySet<string> | null = KNOWN) =>
  checkShape(l, { today, knownTests });

describe("checkShape", () => {
  it("passes a complete freeze inside its window", () => {
    expect(judge(ledger([FREEZE]))).toEqual([]);
    // The expiry day itself is still covered ("the last day the freeze applies").
    expect(judge(ledger([FREEZE]), "2026-10-26")).toEqual([]);
  });

  it("missing-field: one finding per freeze listing every empty field", () => {
    const findings = judge(ledger([{ ...FREEZE, owner: "", invariant: "  " }]));
    expect(findings).toEqual([
      {
        gate: "shape",
        code: "missing-field",
        severity: "error",
        testId: FREEZE.test_id,
        message: `the freeze of ${FREEZE.test_id} has no owner, invariant`,
        details: { fields: ["owner", "invariant"] },
      },
    ]);
  });

  it("missing-field: a freeze without test_id is named by its position", () => {
    const [finding] = judge(ledger([FREEZE, { ...FREEZE, test_id: "" }]));
    expect(finding?.message).toBe("freeze #2 (no test_id) has no test_id");
    expect(finding?.testId).toBeUndefined();
    expect(finding?.details).toEqual({ index: 1, fields: ["test_id"] });
  });

  it("missing-field: approved_by only when the policy requires approval, or written empty", () => {
    const strict = { ...emptyLedger().policy, require_approval: true };
    expect(codes(judge(ledger([FREEZE], [], { policy: strict })))).toEqual(["missing-field"]);
    expect(judge(ledger([{ ...FREEZE, approved_by: "sam" }], [], { policy: strict }))).toEqual([]);
    expect(judge(ledger([{ ...FREEZE, approved_by: "" }]))[0]?.details).toEqual({
      fields: ["approved_by"],
    });
  });

  it("seed 000's id-only freezes are reported as missing owner, expiry and the rest", () => {
    const findings = judge(fixture("seed-000-quarantine.json"), "2026-10-18", null);
    expect(codes(findings)).toEqual(["missing-field", "missing-field"]);
    expect(findings[0]?.details?.fields).toEqual([
      "reason",
      "owner",
      "opened",
      "expires",
      "invariant",
      "compensating_property",
    ]);
  });

  it("bad-date: days that do not exist, and impossible orderings", () => {
    const findings = judge(
      ledger([
        { ...FREEZE, test_id: "tests/a.py::t", opened: "2026-02-30" },
        { ...FREEZE, test_id: "tests/b.py::t", expires: "26-10-26" },
        { ...FREEZE, test_id: "tests/c.py::t", opened: "2026-10-20", expires: "2026-10-19" },
      ]),
      "2026-10-25",
      null,
    );
    expect(findings.map((f) => [f.code, f.testId, f.details?.field])).toEqual([
      ["bad-date", "tests/a.py::t", "opened"],
      ["bad-date", "tests/b.py::t", "expires"],
      ["bad-date", "tests/c.py::t", "expires"],
      // Expiring before it opened (and before today) also means it is over.
      ["expired", "tests/c.py::t", undefined],
    ]);
    expect(findings[0]?.message).toBe(
      'the freeze of tests/a.py::t has opened "2026-02-30", which is not a real YYYY-MM-DD day',
    );
    expect(findings[2]?.message).toMatch(/expires \(2026-10-19\) before it opened \(2026-10-20\)/);
  });

  it("bad-date: a freeze that opens in the future (it would stretch the real window)", () => {
    const future = { ...FREEZE, opened: "2026-11-01", expires: "2026-11-15" };
    const findings = judge(ledger([future]), "2026-10-18");
    expect(codes(findings)).toEqual(["bad-date"]);
    expect(findings[0]?.message).toMatch(/opens in the future \(2026-11-01; today is 2026-10-18\)/);
    expect(judge(ledger([future]), "2026-11-01")).toEqual([]);
  });

  it("expired: an error the day after the last day, with both dates in the message", () => {
    const findings = judge(ledger([FREEZE]), "2026-10-27");
    expect(findings).toHaveLength(1);
    expect(findings[0]).toMatchObject({
      code: "expired",
      severity: "error",
      testId: FREEZE.test_id,
      details: { expires: "2026-10-26", today: "2026-10-27" },
    });
    expect(findings[0]?.message).toMatch(/expired on 2026-10-26 \(today is 2026-10-27\)/);
  });

  it("window-exceeded: longer than the policy's max_window_days, exactly the limit passes", () => {
    const fifteen = { ...FREEZE, expires: "2026-10-27" };
    const findings = judge(ledger([fifteen]));
    expect(findings).toEqual([
      expect.objectContaining({
        code: "window-exceeded",
        details: { days: 15, max: 14 },
        message: `the freeze of ${FREEZE.test_id} runs 15 days (2026-10-12 to 2026-10-27), more than the policy's 14`,
      }),
    ]);
    const seven = { ...emptyLedger().policy, max_window_days: 7 };
    expect(codes(judge(ledger([FREEZE], [], { policy: seven })))).toEqual(["window-exceeded"]);
    expect(judge(ledger([{ ...FREEZE, expires: "2026-10-19" }], [], { policy: seven }))).toEqual(
      [],
    );
  });

  it("the freeze-ledger example's proration freeze: in force on the example's own --today, expired after it", () => {
    const seed = fixture("seed-004-freeze_ledger.json");
    expect(judge(seed, "2026-10-18", null)).toEqual([]);
    expect(codes(judge(seed, "2026-10-27", null))).toEqual(["expired"]);
  });

  it("duplicate-freeze: once per test listed more than once", () => {
    const findings = judge(ledger([FREEZE, { ...FREEZE, owner: "sam" }, FREEZE]));
    expect(findings).toEqual([
      {
        gate: "shape",
        code: "duplicate-freeze",
        severity: "error",
        testId: FREEZE.test_id,
        message: `${FREEZE.test_id} is frozen 3 times; keep one entry`,
        details: { count: 3 },
      },
    ]);
  });

  it("unknown-test: frozen ids, compensating properties, property checks and witnesses", () => {
    const l = ledger(
      [{ ...FREEZE, compensating_property: "tests/props/test_typo.py::test_x" }],
      [
        {
          id: "prop.a",
          check: "tests/props/test_missing.py::test_p",
          witnessed_by: [
            FREEZE.test_id,
            "tests/test_gone.py::test_w",
            "tests/test_gone.py::test_w",
          ],
        },
      ],
    );
    const findings = judge(l);
    expect(findings.map((f) => [f.code, f.testId ?? f.propertyId, f.details?.field])).toEqual([
      ["unknown-test", FREEZE.test_id, "compensating_property"],
      ["unknown-test", "prop.a", "check"],
      ["unknown-test", "prop.a", "witnessed_by"],
    ]);
    expect(findings[0]?.message).toBe(
      `the freeze of ${FREEZE.test_id}: the compensating property tests/props/test_typo.py::test_x is not a test the suite has`,
    );
    expect(findings[2]?.message).toBe(
      "property prop.a: its witness tests/test_gone.py::test_w is not a test the suite has",
    );
    const typo = judge(ledger([{ ...FREEZE, test_id: "tests/test_billing.py::test_prorate" }]));
    expect(typo.map((f) => f.details?.field)).toEqual(["test_id"]);
  });

  it("a parametrized compensating property named without its parameters is known by its cases", () => {
    // As the deposit gate and the plugin read it: before, the
    // shape gate called it unknown, and no name passed both gates.
    const property = "tests/props/test_p.py::test_balance";
    const known = new Set([FREEZE.test_id, `${property}[0]`, `${property}[1]`]);
    const l = ledger([{ ...FREEZE, compensating_property: property }]);
    expect(judge(l, "2026-10-18", known)).toEqual([]);
    // Only the property: a frozen test named so is no test (the audit asks for [*]).
    const frozen = ledger([
      { ...FREEZE, test_id: property, compensating_property: FREEZE.test_id },
    ]);
    expect(judge(frozen, "2026-10-18", known).map((f) => f.details?.field)).toEqual(["test_id"]);
    // A prefix of another test's name is not its case.
    const prefix = ledger([
      { ...FREEZE, compensating_property: "tests/props/test_p.py::test_bal" },
    ]);
    expect(codes(judge(prefix, "2026-10-18", known))).toEqual(["unknown-test"]);
  });

  it("a property's check, witnesses and a compensating property are test ids, never globs", () => {
    // A glob that matches a test passed this gate while the witness gate read it as the id of
    // no test, so freezing the test it matched left the property "witnessed".
    const known = new Set([FREEZE.test_id, FREEZE.compensating_property, BALANCE]);
    const property: Property = {
      id: "prop.a",
      check: "tests/props/test_proration_props.py::test_*",
      witnessed_by: ["tests/test_billing.py::test_proration_*", FREEZE.test_id],
    };
    const l = ledger(
      [{ ...FREEZE, compensating_property: "tests/props/test_proration_props.py::test_mono*" }],
      [property],
    );
    expect(judge(l, "2026-10-18", known).map((f) => [f.code, f.message])).toEqual([
      [
        "unknown-test",
        `the freeze of ${FREEZE.test_id}: the compensating property tests/props/test_proration_props.py::test_mono* is not a test the suite has (a glob names no test here: list the test ids)`,
      ],
      [
        "unknown-test",
        "property prop.a: its check tests/props/test_proration_props.py::test_* is not a test the suite has (a glob names no test here: list the test ids)",
      ],
      [
        "unknown-test",
        "property prop.a: its witness tests/test_billing.py::test_proration_* is not a test the suite has (a glob names no test here: list the test ids)",
      ],
    ]);
    // "[*]" on a parametrized property is a glob too; its plain name stands for its cases.
    const cases = new Set([FREEZE.test_id, "tests/props/test_p.py::test_b[0]"]);
    const star = ledger([{ ...FREEZE, compensating_property: "tests/props/test_p.py::test_b[*]" }]);
    expect(codes(judge(star, "2026-10-18", cases))).toEqual(["unknown-test"]);
    // A test whose own id holds "*" (a parametrized case) is that test.
    const literal = "tests/test_m.py::test_match[*.py]";
    const withCase = new Set([FREEZE.test_id, literal]);
    const ok = ledger(
      [{ ...FREEZE, compensating_property: literal }],
      [{ id: "prop.m", check: literal, witnessed_by: [FREEZE.test_id] }],
    );
    expect(judge(ok, "2026-10-18", withCase)).toEqual([]);
  });

  it("unknown-test is not judged without known tests", () => {
    const l = ledger([{ ...FREEZE, test_id: "tests/nope.py::t" }]);
    expect(judge(l, "2026-10-18", null)).toEqual([]);
    expect(codes(judge(l, "2026-10-18", new Set(["tests/other.py::t"])))).toEqual([
      "unknown-test",
      "unknown-test",
    ]);
  });

  it("a glob id is known when it matches a known test", () => {
    const glob = (id: string) => ledger([{ ...FREEZE, test_id: id }]);
    expect(judge(glob("tests/test_billing.py::test_proration_*"))).toEqual([]);
    expect(codes(judge(glob("tests/test_billing.py::nothing_*")))).toEqual(["unknown-test"]);
    // "[" and "." are literal, as in the audit's frozen-list reader.
    const param = new Set(["tests/a.py::t[1]", FREEZE.compensating_property]);
    expect(judge(glob("tests/a.py::t[*]"), "2026-10-18", param)).toEqual([]);
    expect(codes(judge(glob("tests/a?py::t[*]"), "2026-10-18", param))).toEqual(["unknown-test"]);
  });

  it("the seed 003 properties are judged against the seed's test names", () => {
    const seed = fixture("seed-003-properties.json");
    const suite = new Set([
      "tests/properties/test_ledger.py::test_balance_never_negative",
      "tests/properties/test_ledger.py::test_rejected_withdrawal_is_a_noop",
      "tests/test_ledger.py::test_overdraft_rejected",
      "tests/test_ledger.py::test_withdraw_more_than_balance",
    ]);
    expect(judge(seed, "2026-10-18", suite)).toEqual([]);
    suite.delete("tests/test_ledger.py::test_overdraft_rejected");
    // The asymmetric property loses its only witness; the other keeps one.
    expect(judge(seed, "2026-10-18", suite).map((f) => f.propertyId)).toEqual([
      "prop.ledger.balance_non_negative",
      "prop.ledger.rejected_is_noop",
    ]);
  });

  it("properties without id or check are missing-field", () => {
    const findings = judge(
      ledger([], [{ id: "", check: "", witnessed_by: [] }]),
      "2026-10-18",
      null,
    );
    expect(findings).toEqual([
      expect.objectContaining({
        code: "missing-field",
        message: "property #1 has no id, check",
        details: { index: 0, fields: ["id", "check"] },
      }),
    ]);
  });

  it("reports every problem of a bad ledger at once", () => {
    const l = ledger([
      idOnlyFreeze("tests/x.py::t"),
      { ...FREEZE, expires: "2026-10-30" },
      { ...FREEZE, test_id: "tests/y.py::t", expires: "2026-10-13" },
    ]);
    expect(codes(judge(l, "2026-10-20")).sort()).toEqual([
      "expired",
      "missing-field",
      "unknown-test",
      "unknown-test",
      "window-exceeded",
    ]);
  });

  it("refuses a today that is not a day (a caller bug)", () => {
    expect(() => judge(ledger([]), "2026-02-30")).toThrow(RangeError);
  });
});
