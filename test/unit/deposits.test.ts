// The deposit gate as a pure function over hand-built ledgers: each finding code, and the
// cases that must not produce one (reused property, old freezes, parametrized properties).

import { describe, expect, it } from "vitest";
import { checkDeposits, isCollected, nodeIdFile } from "../../src/core/deposits.js";
import { InputError } from "../../src/core/errors.js";
import { DEFAULT_POLICY, type Freeze, type Ledger } from "../../src/core/ledger-model.js";
import type { SamplesArtifact } from "../../src/core/samples.js";

const PROP = "tests/props/test_proration_props.py::test_monotonic_in_period";
const PROP_FILE = "tests/props/test_proration_props.py";

// the freeze-ledger example's proration freeze.
function freeze(over: Partial<Freeze> = {}): Freeze {
  return {
    test_id: "tests/test_billing.py::test_proration_rounding",
    reason: "order-dependent failure in full suite; passes in isolation",
    owner: "finley",
    opened: "2026-10-12",
    expires: "2026-10-26",
    invariant: "proration amount never decreases when the period lengthens",
    compensating_property: PROP,
    reused_property: false,
    ...over,
  };
}

function ledger(freezes: Freeze[], minDistinct = 8): Ledger {
  return {
    source: "freezegate",
    policy: { ...DEFAULT_POLICY, min_distinct: minDistinct },
    freezes,
    properties: [],
  };
}

const HEAD = "0123456789abcdef0123456789abcdef01234567";
const enough: SamplesArtifact = {
  kind: "per-property",
  commit: HEAD,
  label: "samples.json",
  properties: new Map([[PROP, 12]]),
};
const collected = new Set([PROP, "tests/test_billing.py::test_proration_rounding"]);
const codes = (fs: { code: string }[]) => fs.map((f) => f.code).sort();

describe("checkDeposits", () => {
  it("passes a deposit that is collected, in the diff and ran on enough inputs", () => {
    expect(
      checkDeposits(ledger([freeze()]), {
        headCommit: HEAD,
        collected,
        changedFiles: new Set([PROP_FILE, "freeze-ledger.json"]),
        samples: enough,
      }),
    ).toEqual([]);
  });

  it("deposit-not-collected: the property is not a test the suite has", () => {
    const fs = checkDeposits(ledger([freeze()]), {
      headCommit: HEAD,
      collected: new Set(["tests/test_billing.py::test_proration_rounding"]),
      changedFiles: new Set([PROP_FILE]),
      samples: enough,
    });
    expect(codes(fs)).toEqual(["deposit-not-collected"]);
    expect(fs[0]).toMatchObject({
      gate: "deposit",
      severity: "error",
      testId: "tests/test_billing.py::test_proration_rounding",
      propertyId: PROP,
      path: PROP_FILE,
    });
    expect(fs[0]?.message).toContain(PROP);
  });

  it("a parametrized property counts as collected through its cases", () => {
    expect(isCollected(PROP, new Set([`${PROP}[1]`, `${PROP}[2]`]))).toBe(true);
    expect(isCollected(PROP, new Set([`${PROP}_other`]))).toBe(false);
  });

  it("deposit-not-in-diff: the property's file is not in the patch", () => {
    const fs = checkDeposits(ledger([freeze()]), {
      headCommit: HEAD,
      collected,
      changedFiles: new Set(["freeze-ledger.json"]),
      samples: enough,
    });
    expect(codes(fs)).toEqual(["deposit-not-in-diff"]);
    expect(fs[0]?.message).toContain(`${PROP_FILE} is not changed in this patch`);
  });

  it("reused_property waives the diff requirement, nothing else", () => {
    const fs = checkDeposits(ledger([freeze({ reused_property: true })]), {
      headCommit: HEAD,
      collected: new Set(),
      changedFiles: new Set(),
      samples: null,
    });
    expect(codes(fs)).toEqual(["deposit-not-collected", "deposit-too-few-inputs"]);
  });

  it("only freezes the patch adds or changes owe their deposit in this diff", () => {
    const old = freeze({ test_id: "tests/test_a.py::test_old" });
    const fresh = freeze({ test_id: "tests/test_a.py::test_new" });
    const fs = checkDeposits(ledger([old, fresh]), {
      headCommit: HEAD,
      collected,
      changedFiles: new Set(),
      samples: enough,
      depositDue: new Set(["tests/test_a.py::test_new"]),
    });
    expect(fs.map((f) => [f.code, f.testId])).toEqual([
      ["deposit-not-in-diff", "tests/test_a.py::test_new"],
    ]);
  });

  it("node ids are relative to the test root: the file is looked up under it", () => {
    expect(nodeIdFile(PROP, "svc")).toBe(`svc/${PROP_FILE}`);
    expect(nodeIdFile(PROP, "./svc/")).toBe(`svc/${PROP_FILE}`);
    expect(nodeIdFile(PROP)).toBe(PROP_FILE);
    const fs = checkDeposits(ledger([freeze()]), {
      headCommit: HEAD,
      collected,
      changedFiles: new Set([PROP_FILE]),
      samples: enough,
      testRoot: "svc",
    });
    expect(codes(fs)).toEqual(["deposit-not-in-diff"]);
    expect(
      checkDeposits(ledger([freeze()]), {
        headCommit: HEAD,
        collected,
        changedFiles: new Set([`svc/${PROP_FILE}`]),
        samples: enough,
        testRoot: "svc",
      }),
    ).toEqual([]);
  });

  it("deposit-too-few-inputs: below min_distinct, not in the artifact, or no artifact", () => {
    const base = { collected, changedFiles: new Set([PROP_FILE]), headCommit: HEAD };
    const few = checkDeposits(ledger([freeze()]), {
      ...base,
      samples: { kind: "session", distinct: 7 },
    });
    expect(codes(few)).toEqual(["deposit-too-few-inputs"]);
    expect(few[0]?.message).toContain("ran on 7 distinct inputs");
    expect(few[0]?.details).toEqual({ distinct: 7, minDistinct: 8 });

    const exactlyMin = checkDeposits(ledger([freeze()]), {
      ...base,
      samples: { kind: "session", distinct: 8 },
    });
    expect(exactlyMin).toEqual([]);

    const missing = checkDeposits(ledger([freeze()]), {
      ...base,
      samples: { ...enough, properties: new Map([["tests/x.py::test_other", 99]]) },
    });
    expect(missing[0]?.message).toBe(
      `the freeze of tests/test_billing.py::test_proration_rounding deposits ${PROP}, but the samples artifact has no count for it (the pytest plugin counts only tests that passed and are not frozen) (min_distinct is 8)`,
    );

    const none = checkDeposits(ledger([freeze()]), { ...base, samples: null });
    expect(none[0]?.message).toContain("no samples artifact was given");

    // min_distinct comes from the policy
    expect(
      checkDeposits(ledger([freeze()], 3), { ...base, samples: { kind: "session", distinct: 3 } }),
    ).toEqual([]);
  });

  it("a freeze that names no property fails as not collected, and only that", () => {
    const fs = checkDeposits(ledger([freeze({ compensating_property: "" })]), {
      headCommit: HEAD,
      collected,
      changedFiles: new Set(),
      samples: null,
    });
    expect(codes(fs)).toEqual(["deposit-not-collected"]);
    expect(fs[0]?.message).toContain("names no compensating property");
  });

  it("collected null: collection is not judged (the caller must say so)", () => {
    const fs = checkDeposits(ledger([freeze()]), {
      headCommit: HEAD,
      collected: null,
      changedFiles: new Set([PROP_FILE]),
      samples: enough,
    });
    expect(fs).toEqual([]);
  });

  it("deposit-not-collected: the property is the frozen test itself", () => {
    const self = freeze({
      compensating_property: "tests/test_billing.py::test_proration_rounding",
    });
    const fs = checkDeposits(ledger([self]), {
      headCommit: HEAD,
      collected,
      changedFiles: new Set(["tests/test_billing.py"]),
      samples: {
        ...enough,
        properties: new Map([["tests/test_billing.py::test_proration_rounding", 73]]),
      },
    });
    expect(fs.map((f) => [f.code, f.message])).toEqual([
      [
        "deposit-not-collected",
        "the freeze of tests/test_billing.py::test_proration_rounding deposits tests/test_billing.py::test_proration_rounding, which is the frozen test itself: a frozen test's failures do not gate, so it compensates nothing",
      ],
    ]);
    expect(fs[0]?.details).toEqual({
      frozenBy: ["tests/test_billing.py::test_proration_rounding"],
    });
  });

  it("deposit-not-collected: the property is frozen by another freeze, exact or glob", () => {
    const other = freeze({ test_id: PROP, compensating_property: "tests/x.py::test_z" });
    const fs = checkDeposits(ledger([freeze(), other]), {
      headCommit: HEAD,
      collected: new Set([...collected, "tests/x.py::test_z"]),
      changedFiles: new Set([PROP_FILE, "tests/x.py"]),
      samples: {
        ...enough,
        properties: new Map([
          [PROP, 12],
          ["tests/x.py::test_z", 12],
        ]),
      },
    });
    expect(fs.map((f) => [f.code, f.testId, f.message])).toEqual([
      [
        "deposit-not-collected",
        "tests/test_billing.py::test_proration_rounding",
        `the freeze of tests/test_billing.py::test_proration_rounding deposits ${PROP}, which is frozen too (by ${PROP}): a frozen test's failures do not gate, so it compensates nothing`,
      ],
    ]);

    // a glob freeze (as the audit matches it: "*" is any run of characters)
    const glob = freeze({
      test_id: "tests/props/*::test_monotonic_*",
      compensating_property: PROP,
    });
    const byGlob = checkDeposits(ledger([freeze(), glob]), {
      headCommit: HEAD,
      collected,
      changedFiles: new Set([PROP_FILE]),
      samples: enough,
    });
    expect(byGlob.map((f) => [f.code, f.details])).toEqual([
      ["deposit-not-collected", { frozenBy: ["tests/props/*::test_monotonic_*"] }],
      ["deposit-not-collected", { frozenBy: ["tests/props/*::test_monotonic_*"] }],
    ]);

    // a frozen case of a parametrized property taints the property it stands for
    const cases = new Set([...collected, `${PROP}[a]`, `${PROP}[b]`]);
    const oneCase = freeze({ test_id: `${PROP}[b]`, compensating_property: "tests/x.py::test_z" });
    const byCase = checkDeposits(ledger([freeze(), oneCase]), {
      headCommit: HEAD,
      collected: new Set([...cases, "tests/x.py::test_z"]),
      changedFiles: new Set([PROP_FILE, "tests/x.py"]),
      samples: {
        ...enough,
        properties: new Map([
          [PROP, 12],
          ["tests/x.py::test_z", 12],
        ]),
      },
    });
    expect(byCase.map((f) => [f.code, f.testId, f.details])).toEqual([
      [
        "deposit-not-collected",
        "tests/test_billing.py::test_proration_rounding",
        { frozenBy: [`${PROP}[b]`] },
      ],
    ]);

    // no near misses: a frozen test whose id merely starts with the property's is not it
    const near = freeze({ test_id: `${PROP}_slow`, compensating_property: "tests/x.py::test_z" });
    expect(
      checkDeposits(ledger([freeze(), near]), {
        headCommit: HEAD,
        collected: new Set([...collected, `${PROP}_slow`, "tests/x.py::test_z"]),
        changedFiles: new Set([PROP_FILE, "tests/x.py"]),
        samples: {
          ...enough,
          properties: new Map([
            [PROP, 12],
            ["tests/x.py::test_z", 12],
          ]),
        },
      }),
    ).toEqual([]);
  });

  it("deposit-not-collected: the property, or one of its cases, is muted by an xfail outside the ledger", () => {
    // The muted case was passed over and the passing one's count
    // taken, while the same case frozen by the ledger failed the gate.
    const cases = new Set([...collected, `${PROP}[a]`, `${PROP}[b]`]);
    const inputs = {
      headCommit: HEAD,
      collected: cases,
      changedFiles: new Set([PROP_FILE]),
      samples: { ...enough, properties: new Map([[`${PROP}[a]`, 35]]) },
    };
    expect(checkDeposits(ledger([freeze()]), inputs)).toEqual([]);
    const fs = checkDeposits(ledger([freeze()]), { ...inputs, muted: new Set([`${PROP}[b]`]) });
    expect(fs.map((f) => [f.code, f.message, f.details])).toEqual([
      [
        "deposit-not-collected",
        `the freeze of tests/test_billing.py::test_proration_rounding deposits ${PROP}, which an xfail outside the ledger mutes (${PROP}[b], the applied record): a muted test's failures do not gate, so it compensates nothing`,
        { mutedTests: [`${PROP}[b]`] },
      ],
    ]);
    // Another test muted: nothing to say.
    expect(
      checkDeposits(ledger([freeze()]), {
        ...inputs,
        muted: new Set([`${PROP}x`, "tests/a.py::t"]),
      }),
    ).toEqual([]);
  });

  it("refuses (InputError) a samples artifact recorded at another commit, or at none", () => {
    const judge = (samples: SamplesArtifact) => () =>
      checkDeposits(ledger([freeze()]), {
        headCommit: HEAD,
        collected,
        changedFiles: new Set([PROP_FILE]),
        samples,
      });
    const other = "fedcba9876543210fedcba9876543210fedcba98";
    expect(judge({ ...enough, commit: other })).toThrow(InputError);
    expect(judge({ ...enough, commit: other })).toThrow(
      "samples artifact samples.json was recorded at commit fedcba987654, not at HEAD (0123456789ab): its counts are another run's",
    );
    try {
      judge({ ...enough, commit: other })();
    } catch (e) {
      expect((e as InputError).fix).toBe(
        "re-run the tests on this commit and pass the samples artifact that run wrote",
      );
    }
    expect(judge({ ...enough, commit: null })).toThrow(
      'samples artifact samples.json: "commit" is null (the run could not tell its commit), so its counts cannot be tied to HEAD (0123456789ab)',
    );
    // even with no freeze to judge: the input is unusable either way
    expect(() =>
      checkDeposits(ledger([]), {
        headCommit: HEAD,
        collected,
        changedFiles: new Set(),
        samples: { ...enough, commit: other },
      }),
    ).toThrow(InputError);
    // the freeze-ledger example's file records no commit: it is read as before (the gate's notes say what it is)
    expect(judge({ kind: "session", distinct: 12 })()).toEqual([]);
  });
});
