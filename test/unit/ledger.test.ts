// Reading the ledger (our format and the seeds' files as published), refusing structural
// problems with the file and JSON path named, and writing it back in one stable form that
// the published JSON Schema accepts.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import {
  emptyLedger,
  idOnlyFreeze,
  LEDGER_SCHEMA_URL,
  mergeLedgers,
  parseLedger,
  serializeLedger,
} from "../../src/core/ledger.js";
import { DEFAULT_POLICY, type Freeze, type Ledger } from "../../src/core/ledger-model.js";
import { REPO_ROOT } from "../helpers/cli.js";
import { assertMatchesSchema } from "../helpers/schema.js";

const FIXTURES = join(REPO_ROOT, "test/fixtures/ledger");
const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(join(FIXTURES, name), "utf8")) as unknown;

const PRORATION: Freeze = {
  test_id: "tests/test_billing.py::test_proration_rounding",
  reason: "order-dependent failure in full suite; passes in isolation",
  owner: "finley",
  opened: "2026-10-12",
  expires: "2026-10-26",
  invariant: "proration amount never decreases when the period lengthens",
  compensating_property: "tests/props/test_proration_props.py::test_monotonic_in_period",
  reused_property: false,
};

function own(extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { version: 1, freezes: [{ ...PRORATION }], properties: [], ...extra };
}

/** The InputError message for `value`, or a failure when it parses. */
function parseError(value: unknown, label = "L.json"): string {
  try {
    parseLedger(value, label);
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as InputError).message;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
}

/** Serialize, check the schema, and check the round trip is a fixed point. */
function written(ledger: Ledger): string {
  const text = serializeLedger(ledger);
  assertMatchesSchema("ledger.schema.json", JSON.parse(text));
  expect(serializeLedger(parseLedger(JSON.parse(text), "again"))).toBe(text);
  return text;
}

describe("the seeds' files, read as they are", () => {
  it("the freeze-ledger example's freeze ledger: its freezes, and max_window_days as the policy", () => {
    const ledger = parseLedger(fixture("seed-004-freeze_ledger.json"), "gate/freeze_ledger.json");
    expect(ledger.source).toBe("seed-004-ledger");
    expect(ledger.freezes).toEqual([PRORATION]);
    expect(ledger.policy).toEqual({ ...DEFAULT_POLICY, max_window_days: 14 });
    expect(ledger.properties).toEqual([]);
    const seven = parseLedger({ schema: 1, max_window_days: 7, freezes: [] }, "x").policy;
    expect(seven.max_window_days).toBe(7);
    written(ledger);
  });

  it("the properties example's properties.json, with the asymmetric rejected_is_noop property", () => {
    const ledger = parseLedger(fixture("seed-003-properties.json"), "properties.json");
    expect(ledger.source).toBe("seed-003-properties");
    expect(ledger.freezes).toEqual([]);
    expect(ledger.properties.map((p) => [p.id, p.witnessed_by.length])).toEqual([
      ["prop.ledger.balance_non_negative", 2],
      ["prop.ledger.rejected_is_noop", 1],
    ]);
    written(ledger);
  });

  it("a quarantine.json: freezes with only a test id, everything else empty", () => {
    const ledger = parseLedger(fixture("seed-000-quarantine.json"), "quarantine.json");
    expect(ledger.source).toBe("seed-000-quarantine");
    expect(ledger.freezes).toEqual([
      idOnlyFreeze("tests/test_billing.py::test_proration_rounding"),
      idOnlyFreeze("tests/test_ledger.py::test_withdraw_more_than_balance"),
    ]);
    expect(ledger.freezes[0]?.owner).toBe("");
    // properties.json's frozen ids become id-only freezes as well.
    const props = parseLedger({ properties: [], frozen: ["tests/a.py::t"] }, "p");
    expect(props.freezes).toEqual([idOnlyFreeze("tests/a.py::t")]);
    written(ledger);
  });
});

describe("freezegate's own format", () => {
  it("fills the policy's missing keys from the defaults", () => {
    const ledger = parseLedger(own({ policy: { max_window_days: 7 } }), "x");
    expect(ledger.source).toBe("freezegate");
    expect(ledger.policy).toEqual({ ...DEFAULT_POLICY, max_window_days: 7 });
    expect(parseLedger({ version: 1 }, "x")).toEqual(emptyLedger());
  });

  it("reads a freeze with missing fields as empty strings (the shape gate reports them)", () => {
    const ledger = parseLedger({ version: 1, freezes: [{ test_id: "tests/a.py::t" }] }, "x");
    expect(ledger.freezes).toEqual([idOnlyFreeze("tests/a.py::t")]);
    const empty = parseLedger({ version: 1, freezes: [{}] }, "x");
    expect(empty.freezes[0]?.test_id).toBe("");
    // A day that does not exist is content, not structure.
    const bad = parseLedger(own({ freezes: [{ ...PRORATION, expires: "2026-02-30" }] }), "x");
    expect(bad.freezes[0]?.expires).toBe("2026-02-30");
  });

  it("keeps approved_by and invariant words when present, and omits them when absent", () => {
    const ledger = parseLedger(
      own({
        freezes: [{ ...PRORATION, approved_by: "sam" }],
        properties: [{ id: "p", check: "tests/p.py::t", witnessed_by: [], invariant: "words" }],
      }),
      "x",
    );
    expect(ledger.freezes[0]?.approved_by).toBe("sam");
    expect(ledger.properties[0]?.invariant).toBe("words");
    const text = written(ledger);
    expect(text).toContain('"approved_by": "sam"');
    expect(written(parseLedger(own(), "x"))).not.toContain("approved_by");
  });
});

describe("structural problems stop the run, naming the file and the JSON path", () => {
  it("wrong or missing version says which versions are read", () => {
    expect(parseError({ version: 2, freezes: [] })).toBe(
      "ledger L.json: $.version is 2; this freezegate reads ledger version 1",
    );
    expect(parseError({ version: "1" })).toMatch(/\$\.version is "1"; .*reads ledger version 1/);
    expect(parseError({ freezes: [] })).toMatch(/has "freezes" but no "version" .*version 1/);
    expect(parseError({ schema: 2, freezes: [] })).toMatch(/\$\.schema is 2/);
    expect(parseError({})).toMatch(/is not a freeze ledger/);
    expect(parseError([])).toMatch(/^ledger L\.json: \$ is a list, not an object$/);
    expect(parseError("x")).toMatch(/\$ is "x", not an object/);
  });

  it("unknown keys anywhere", () => {
    expect(parseError(own({ polcy: {} }))).toMatch(/\$ has an unknown key "polcy"/);
    expect(parseError(own({ policy: { max_window: 3 } }))).toMatch(
      /\$\.policy has an unknown key "max_window"/,
    );
    expect(parseError(own({ freezes: [{ ...PRORATION, ownr: "x" }] }))).toMatch(
      /\$\.freezes\[0\] has an unknown key "ownr"/,
    );
    expect(
      parseError(own({ properties: [{ id: "p", check: "c", witnessed_by: [], extra: 1 }] })),
    ).toMatch(/\$\.properties\[0\] has an unknown key "extra"/);
    expect(parseError({ schema: 1, freezes: [], policy: {} })).toMatch(/unknown key "policy"/);
    expect(parseError({ frozen: [], note: "x" })).toMatch(/unknown key "note"/);
  });

  it("wrong types", () => {
    expect(parseError(own({ freezes: {} }))).toMatch(/\$\.freezes is an object, not a list/);
    expect(parseError(own({ freezes: [{ ...PRORATION, owner: 7 }] }))).toMatch(
      /\$\.freezes\[0\]\.owner is 7, not a string/,
    );
    expect(parseError(own({ freezes: [{ ...PRORATION, reused_property: "no" }] }))).toMatch(
      /\$\.freezes\[0\]\.reused_property is "no", not true or false/,
    );
    expect(parseError(own({ freezes: [{ ...PRORATION, opened: null }] }))).toMatch(
      /\.opened is null, not a string/,
    );
    expect(parseError(own({ policy: { max_window_days: 0 } }))).toMatch(/not a whole number >= 1/);
    expect(parseError(own({ policy: { min_distinct: 2.5 } }))).toMatch(/not a whole number >= 1/);
    expect(parseError(own({ policy: { require_approval: "yes" } }))).toMatch(/not true or false/);
    for (const bad of [1.5, -0.1, "0.5", null, true]) {
      expect(parseError(own({ policy: { min_compensation: bad } }))).toMatch(
        /\$\.policy\.min_compensation is .*, not a number from 0 to 1/,
      );
    }
    expect(parseError({ frozen: [""] })).toMatch(/\$\.frozen\[0\] is empty/);
    expect(
      parseError(own({ properties: [{ id: "p", check: "c", witnessed_by: "tests/a.py::t" }] })),
    ).toMatch(/witnessed_by is "tests\/a\.py::t", not a list/);
  });

  it("a blocking entry that is not a gate, or listed twice", () => {
    expect(parseError(own({ policy: { blocking: ["shape", "shadows"] } }))).toMatch(
      /\$\.policy\.blocking\[1\] is "shadows", not a gate/,
    );
    expect(parseError(own({ policy: { blocking: ["shape", "shape"] } }))).toMatch(/repeats/);
  });

  it("generator_lock paths that are absolute or escape the repository", () => {
    for (const bad of ["/etc/passwd", "../outside.py", "tests/../../x.py", "C:/x.py", "a\\b.py"]) {
      expect(parseError(own({ policy: { generator_lock: [bad] } })), bad).toMatch(
        /\$\.policy\.generator_lock\[0\] ".*" (is an absolute path|escapes the repository|contains a backslash)/,
      );
    }
    const ok = parseLedger(own({ policy: { generator_lock: ["tests/props/*.py", "..x/y"] } }), "x");
    expect(ok.policy.generator_lock).toEqual(["tests/props/*.py", "..x/y"]);
  });

  it("two properties with one id", () => {
    expect(
      parseError(
        own({
          properties: [
            { id: "p", check: "a", witnessed_by: [] },
            { id: "p", check: "b", witnessed_by: [] },
          ],
        }),
      ),
    ).toMatch(/\$\.properties\[1\]\.id repeats the id "p" of \$\.properties\[0\]/);
  });

  it("carries a fix for every refusal", () => {
    const refusal = (value: unknown) => {
      try {
        parseLedger(value, "x");
      } catch (error) {
        return (error as InputError).fix;
      }
      return undefined;
    };
    expect(refusal({ version: 9 })).toMatch(/upgrade freezegate/);
    expect(refusal({ version: 0 })).toBe('set "version": 1');
    expect(refusal(own({ policy: { blocking: ["x"] } }))).toMatch(/use any of: shadow, shape/);
  });
});

describe("serializeLedger", () => {
  const messy: Ledger = {
    source: "seed-004-ledger",
    policy: { ...DEFAULT_POLICY, blocking: ["witness", "shape"], generator_lock: ["b.py", "a.py"] },
    freezes: [
      { ...PRORATION, test_id: "tests/z.py::t", approved_by: "sam" },
      { ...PRORATION, test_id: "tests/a.py::t" },
      { ...PRORATION, test_id: "tests/B.py::t" },
    ],
    properties: [
      { id: "prop.z", check: "tests/p.py::z", witnessed_by: ["tests/z.py::t", "tests/a.py::t"] },
      { id: "prop.a", check: "tests/p.py::a", witnessed_by: [], invariant: "i" },
    ],
  };

  it("min_compensation is written only when set, and read back as written", () => {
    const off = parseLedger({ version: 1, policy: {} }, "off");
    expect(off.policy.min_compensation).toBeUndefined();
    expect(JSON.parse(written(off)).policy).not.toHaveProperty("min_compensation");
    const on = parseLedger({ version: 1, policy: { min_compensation: 0 } }, "on");
    expect(on.policy.min_compensation).toBe(0);
    expect(JSON.parse(written(on)).policy.min_compensation).toBe(0);
  });

  it("writes the fixed key order, sorted entries, 2-space indentation and a final newline", () => {
    const text = written(messy);
    const doc = JSON.parse(text);
    expect(Object.keys(doc)).toEqual(["$schema", "version", "policy", "freezes", "properties"]);
    expect(doc.$schema).toBe(LEDGER_SCHEMA_URL);
    expect(doc.version).toBe(1);
    expect(Object.keys(doc.policy)).toEqual([
      "max_window_days",
      "min_distinct",
      "blocking",
      "generator_lock",
      "require_approval",
    ]);
    // Gates in their canonical order; lock paths as written (their order is the user's).
    expect(doc.policy.blocking).toEqual(["shape", "witness"]);
    expect(doc.policy.generator_lock).toEqual(["b.py", "a.py"]);
    // Code-unit order: "B" sorts before "a", on every machine and locale.
    expect(doc.freezes.map((f: Freeze) => f.test_id)).toEqual([
      "tests/B.py::t",
      "tests/a.py::t",
      "tests/z.py::t",
    ]);
    expect(Object.keys(doc.freezes[2])).toEqual([
      "test_id",
      "reason",
      "owner",
      "opened",
      "expires",
      "invariant",
      "compensating_property",
      "reused_property",
      "approved_by",
    ]);
    expect(doc.properties.map((p: { id: string }) => p.id)).toEqual(["prop.a", "prop.z"]);
    expect(Object.keys(doc.properties[0])).toEqual(["id", "check", "witnessed_by", "invariant"]);
    // Witness order is the author's.
    expect(doc.properties[1].witnessed_by).toEqual(["tests/z.py::t", "tests/a.py::t"]);
    expect(text.endsWith("}\n")).toBe(true);
    expect(text.split("\n")[1]).toBe(`  "$schema": "${LEDGER_SCHEMA_URL}",`);
  });

  it("does not depend on the order entries were added in", () => {
    const reversed: Ledger = {
      ...messy,
      freezes: [...messy.freezes].reverse(),
      properties: [...messy.properties].reverse(),
    };
    expect(serializeLedger(reversed)).toBe(serializeLedger(messy));
  });

  it("is a fixed point through parse for every fixture and an empty ledger", () => {
    for (const name of [
      "seed-004-freeze_ledger.json",
      "seed-003-properties.json",
      "seed-000-quarantine.json",
    ]) {
      written(parseLedger(fixture(name), name));
    }
    written(emptyLedger());
    // Content problems survive the round trip untouched (the shape gate reports them).
    written({ ...emptyLedger(), freezes: [{ ...PRORATION, opened: "2026-02-30", owner: "" }] });
  });
});

describe("the JSON Schema agrees with the parser", () => {
  it("rejects what the parser rejects", () => {
    const base = JSON.parse(serializeLedger(parseLedger(own(), "x")));
    const invalid = [
      { ...base, version: 2 },
      { ...base, extra: true },
      { ...base, policy: { ...base.policy, blocking: ["shadows"] } },
      { ...base, policy: { ...base.policy, generator_lock: ["../x.py"] } },
      { ...base, policy: { ...base.policy, generator_lock: ["/abs.py"] } },
      { ...base, policy: { ...base.policy, generator_lock: ["a/../../x.py"] } },
      { ...base, freezes: [{ ...base.freezes[0], ownr: "x" }] },
      { ...base, freezes: [{ ...base.freezes[0], reused_property: "no" }] },
    ];
    for (const value of invalid) {
      expect(() => parseLedger(value, "x"), JSON.stringify(value)).toThrow(InputError);
      expect(() => assertMatchesSchema("ledger.schema.json", value)).toThrow();
    }
  });
});

describe("mergeLedgers (ledger migrate)", () => {
  const seed004 = () => parseLedger(fixture("seed-004-freeze_ledger.json"), "f");
  const seed000 = () => parseLedger(fixture("seed-000-quarantine.json"), "q");
  const seed003 = () => parseLedger(fixture("seed-003-properties.json"), "p");

  it("joins the three seeds; an id-only entry gives way to the full record", () => {
    const merged = mergeLedgers([
      { label: "quarantine.json", ledger: seed000() },
      { label: "properties.json", ledger: seed003() },
      { label: "gate/freeze_ledger.json", ledger: seed004() },
    ]);
    expect(merged.source).toBe("freezegate");
    expect(merged.freezes).toEqual([
      PRORATION,
      idOnlyFreeze("tests/test_ledger.py::test_withdraw_more_than_balance"),
    ]);
    expect(merged.properties).toHaveLength(2);
    written(merged);
  });

  it("refuses entries that disagree, naming both files and the first difference", () => {
    const other = seed004();
    (other.freezes[0] as Freeze).owner = "sam";
    expect(() =>
      mergeLedgers([
        { label: "a.json", ledger: seed004() },
        { label: "b.json", ledger: other },
      ]),
    ).toThrow(
      'cannot migrate: the freeze of tests/test_billing.py::test_proration_rounding differs between a.json and b.json (owner: "finley" vs "sam")',
    );
    const props = seed003();
    (props.properties[1] as { witnessed_by: string[] }).witnessed_by = [];
    expect(() =>
      mergeLedgers([
        { label: "p1", ledger: seed003() },
        { label: "p2", ledger: props },
      ]),
    ).toThrow(/property prop\.ledger\.rejected_is_noop differs between p1 and p2/);
    const seven = parseLedger({ schema: 1, max_window_days: 7, freezes: [] }, "s");
    expect(() =>
      mergeLedgers([
        { label: "a", ledger: seed004() },
        { label: "b", ledger: seven },
      ]),
    ).toThrow(/the policy differs between a and b \(max_window_days: 14 vs 7\)/);
  });

  it("merges identical duplicates silently", () => {
    const merged = mergeLedgers([
      { label: "a", ledger: seed004() },
      { label: "b", ledger: seed004() },
      { label: "c", ledger: seed003() },
      { label: "d", ledger: seed003() },
    ]);
    expect(merged.freezes).toHaveLength(1);
    expect(merged.properties).toHaveLength(2);
  });
});
