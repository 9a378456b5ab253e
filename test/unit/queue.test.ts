// The merge-queue check as pure functions: the applied record's strict parser, and the
// judgement of a child's record against its own ledger (inherited skips, stale records,
// --allow), on hand-built records and ledgers.

import { describe, expect, it } from "vitest";
import { InputError, UsageError } from "../../src/core/errors.js";
import { FINDING_CODES } from "../../src/core/findings.js";
import { DEFAULT_POLICY, type Freeze, type Ledger } from "../../src/core/ledger-model.js";
import {
  type AppliedRecord,
  checkQueue,
  parseAppliedRecord,
  QUEUE_FINDING_CODES,
  type QueueCheckInput,
  queueExitCode,
} from "../../src/core/queue.js";

const GATED = "a".repeat(40);
const PARENT_COMMIT = "b".repeat(40);
const LEDGER_SHA = "1".repeat(64);
const PARENT_LEDGER_SHA = "2".repeat(64);
const FLAKY = "tests/test_ledger.py::test_overdraft_rejected";
const OTHER = "tests/test_ledger.py::test_withdraw_more_than_balance";
const TODAY = "2026-10-18";

function record(over: Partial<AppliedRecord> = {}): AppliedRecord {
  return {
    version: 1,
    tool: "pytest-freezegate",
    commit: GATED,
    ledger: { path: "freeze-ledger.json", sha256: LEDGER_SHA },
    mode: "run",
    applied: [FLAKY],
    expired: [],
    outcomes: { [FLAKY]: "failed" },
    ...over,
  };
}

function freeze(testId: string, over: Partial<Freeze> = {}): Freeze {
  return {
    test_id: testId,
    reason: "order-dependent failure in the full suite",
    owner: "finley",
    opened: "2026-10-12",
    expires: "2026-10-26",
    invariant: "a rejected withdrawal is a no-op",
    compensating_property: "tests/properties/test_ledger.py::test_rejected_withdrawal_is_a_noop",
    reused_property: false,
    ...over,
  };
}

function ledger(freezes: Freeze[]): Ledger {
  return { source: "freezegate", policy: { ...DEFAULT_POLICY }, freezes, properties: [] };
}

/** An honest child: its own commit, the checked-in ledger, applying exactly what it freezes. */
function input(over: Partial<QueueCheckInput> = {}): QueueCheckInput {
  return {
    parent: {
      label: "parent/applied.json",
      record: record({
        commit: PARENT_COMMIT,
        ledger: { path: "freeze-ledger.json", sha256: PARENT_LEDGER_SHA },
      }),
      checkedInSha256: PARENT_LEDGER_SHA,
    },
    child: { label: "child/applied.json", record: record() },
    gatedCommit: GATED,
    ledgerPath: "freeze-ledger.json",
    childLedger: { sha256: LEDGER_SHA, ledger: ledger([freeze(FLAKY)]) },
    allow: [],
    today: TODAY,
    ...over,
  };
}

/** The error `fn` throws; fails the test when it throws nothing. */
function caught(fn: () => unknown): Error {
  try {
    fn();
  } catch (error) {
    return error as Error;
  }
  throw new Error("expected an error");
}

const summary = (i: QueueCheckInput) =>
  checkQueue(i).result.findings.map((f) => [f.code, f.severity, f.testId ?? f.details?.record]);

describe("parseAppliedRecord", () => {
  const valid = () => JSON.parse(JSON.stringify(record())) as Record<string, unknown>;
  const refusal = (value: unknown): string => {
    try {
      parseAppliedRecord(value, "applied.json");
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      return (error as InputError).message;
    }
    throw new Error(`expected ${JSON.stringify(value)} to be refused`);
  };

  it("reads the plugin's format, a null commit, and drops repeated ids", () => {
    expect(parseAppliedRecord(valid(), "applied.json")).toEqual(record());
    const repeated = { ...valid(), commit: null, mode: "skip", applied: [FLAKY, OTHER, FLAKY] };
    expect(parseAppliedRecord(repeated, "applied.json")).toMatchObject({
      commit: null,
      mode: "skip",
      applied: [FLAKY, OTHER],
    });
    const sha256Commit = { ...valid(), commit: "c".repeat(64) };
    expect(parseAppliedRecord(sha256Commit, "a").commit).toBe("c".repeat(64));
  });

  it("refuses what is not a record of version 1, naming the file and the JSON path", () => {
    expect(refusal([])).toBe("applied record applied.json: $ is a list, not a JSON object");
    expect(refusal({ ...valid(), version: 2 })).toMatch(
      /\$\.version is 2; this freezegate reads applied records of version 1/,
    );
    expect(refusal({ ...valid(), version: "1" })).toMatch(/\$\.version is "1"/);
    const { version: _v, ...noVersion } = valid();
    expect(refusal(noVersion)).toMatch(/\$\.version is missing/);
  });

  it("a newer version says to upgrade; an older one to regenerate", () => {
    const newer = caught(() => parseAppliedRecord({ ...valid(), version: 2 }, "x"));
    expect((newer as InputError).fix).toBe("upgrade freezegate to read this record");
    const older = caught(() => parseAppliedRecord({ ...valid(), version: 0 }, "x"));
    expect((older as InputError).fix).toMatch(/regenerate it/);
  });

  it("refuses missing fields, unknown keys and wrong types", () => {
    for (const key of ["tool", "commit", "ledger", "mode", "applied", "expired", "outcomes"]) {
      const value = valid();
      delete value[key];
      expect(refusal(value)).toBe(`applied record applied.json: $ has no "${key}"`);
    }
    expect(refusal({ ...valid(), passed: [] })).toMatch(/\$ has an unknown key "passed"/);
    expect(refusal({ ...valid(), tool: "" })).toMatch(/\$\.tool is ""/);
    expect(refusal({ ...valid(), commit: "abc123" })).toMatch(
      /\$\.commit is "abc123", not a full lowercase commit id or null/,
    );
    expect(refusal({ ...valid(), commit: "A".repeat(40) })).toMatch(/\$\.commit/);
    expect(refusal({ ...valid(), ledger: "freeze-ledger.json" })).toMatch(
      /\$\.ledger is "freeze-ledger\.json", not an object/,
    );
    expect(refusal({ ...valid(), ledger: { path: "l.json", sha256: "abc" } })).toMatch(
      /\$\.ledger\.sha256 is "abc", not a lowercase hex sha256/,
    );
    expect(refusal({ ...valid(), ledger: { sha256: LEDGER_SHA } })).toMatch(
      /\$\.ledger\.path is missing/,
    );
    expect(refusal({ ...valid(), ledger: { path: "l", sha256: LEDGER_SHA, size: 3 } })).toMatch(
      /\$\.ledger has an unknown key "size"/,
    );
    expect(refusal({ ...valid(), mode: "quarantine" })).toMatch(
      /\$\.mode is "quarantine", not "run" or "skip"/,
    );
    expect(refusal({ ...valid(), applied: "tests/a.py::t" })).toMatch(/\$\.applied is "tests/);
    expect(refusal({ ...valid(), applied: [FLAKY, 3] })).toMatch(/\$\.applied\[1\] is 3/);
    expect(refusal({ ...valid(), expired: [""] })).toMatch(/\$\.expired\[0\] is ""/);
    expect(refusal({ ...valid(), outcomes: [] })).toMatch(/\$\.outcomes is a list/);
    expect(refusal({ ...valid(), outcomes: { [FLAKY]: "xfailed" } })).toMatch(
      /\$\.outcomes\["tests\/test_ledger\.py::test_overdraft_rejected"\] is "xfailed"/,
    );
  });

  it("refuses an id that is both applied and expired", () => {
    expect(refusal({ ...valid(), expired: [FLAKY] })).toMatch(
      /lists "tests\/test_ledger\.py::test_overdraft_rejected" as both applied and expired/,
    );
  });
});

describe("checkQueue", () => {
  it("its codes are finding codes", () => {
    for (const code of QUEUE_FINDING_CODES) expect(FINDING_CODES).toContain(code);
  });

  it("passes an honest child: its own commit, its own ledger, its own freezes", () => {
    const { result, notes } = checkQueue(input());
    expect(result).toEqual({ gate: "queue", blocking: true, ran: true, findings: [] });
    expect(queueExitCode(result)).toBe(0);
    expect(notes).toEqual([
      "child record child/applied.json: commit aaaaaaaaaaaa, mode run, 1 applied, 0 expired (written by pytest-freezegate)",
      "parent record parent/applied.json: commit bbbbbbbbbbbb, mode run, 1 applied, 0 expired (written by pytest-freezegate)",
      "gated commit aaaaaaaaaaaa: freeze-ledger.json (sha256 111111111111) freezes 1 test; expiry judged on 2026-10-18",
    ]);
  });

  it("a freeze the child's ledger does not make, which the parent applied, is inherited", () => {
    const i = input({
      childLedger: { sha256: LEDGER_SHA, ledger: ledger([freeze(OTHER)]) },
      child: { label: "child/applied.json", record: record({ applied: [FLAKY, OTHER] }) },
    });
    const { result } = checkQueue(i);
    expect(queueExitCode(result)).toBe(1);
    expect(result.findings).toEqual([
      {
        gate: "queue",
        code: "inherited-skip",
        severity: "error",
        testId: FLAKY,
        message: `${FLAKY} was frozen in the child's run (ran without gating, failed), but freeze-ledger.json at aaaaaaaaaaaa does not freeze it; the parent's record parent/applied.json (commit bbbbbbbbbbbb) applied the same freeze: the skip was inherited`,
        details: {
          reason: "not-frozen",
          inheritedFrom: { record: "parent/applied.json", commit: PARENT_COMMIT },
          outcome: "failed",
          mode: "run",
          allowed: false,
        },
      },
    ]);
  });

  it("an unjustified freeze the parent did not apply is refused too, and says so", () => {
    const i = input({
      childLedger: { sha256: LEDGER_SHA, ledger: ledger([]) },
      child: {
        label: "child/applied.json",
        record: record({ applied: [OTHER], mode: "skip", outcomes: { [OTHER]: "skipped" } }),
      },
    });
    const [finding] = checkQueue(i).result.findings;
    expect(finding?.message).toBe(
      `${OTHER} was frozen in the child's run (skipped), but freeze-ledger.json at aaaaaaaaaaaa does not freeze it; the parent's record did not apply it either: the skip came from outside the ledger`,
    );
    expect(finding?.details?.inheritedFrom).toBeNull();
  });

  it("an expired freeze justifies nothing; one that expires today still does", () => {
    const expired = input({
      childLedger: {
        sha256: LEDGER_SHA,
        ledger: ledger([freeze(FLAKY, { expires: "2026-10-17" })]),
      },
    });
    const [finding] = checkQueue(expired).result.findings;
    expect(finding).toMatchObject({
      code: "inherited-skip",
      severity: "error",
      details: { reason: "expired", expires: "2026-10-17", today: TODAY },
    });
    expect(finding?.message).toMatch(
      /its freeze in freeze-ledger\.json at aaaaaaaaaaaa expired on 2026-10-17 \(today is 2026-10-18\)/,
    );
    const lastDay = input({
      childLedger: {
        sha256: LEDGER_SHA,
        ledger: ledger([freeze(FLAKY, { expires: TODAY })]),
      },
    });
    expect(summary(lastDay)).toEqual([]);
    // Two entries for one test: the live one justifies it.
    const renewed = input({
      childLedger: {
        sha256: LEDGER_SHA,
        ledger: ledger([freeze(FLAKY, { expires: "2026-10-01" }), freeze(FLAKY)]),
      },
    });
    expect(summary(renewed)).toEqual([]);
  });

  it("an expiry that is not a real day justifies nothing (full-width digits, blank)", () => {
    const fullWidth = input({
      childLedger: {
        sha256: LEDGER_SHA,
        ledger: ledger([
          freeze(FLAKY, { opened: "２０２６-１０-０１", expires: "２０２６-１０-１０" }),
        ]),
      },
    });
    const [finding] = checkQueue(fullWidth).result.findings;
    expect(finding).toMatchObject({
      code: "inherited-skip",
      severity: "error",
      testId: FLAKY,
      details: { reason: "bad-expiry", expires: "２０２６-１０-１０", today: TODAY },
    });
    expect(finding?.message).toBe(
      `${FLAKY} was frozen in the child's run (ran without gating, failed), but its freeze in freeze-ledger.json at aaaaaaaaaaaa has expires "２０２６-１０-１０", which is not a real YYYY-MM-DD day, so it justifies nothing; the parent's record parent/applied.json (commit bbbbbbbbbbbb) applied the same freeze: the skip was inherited`,
    );
    expect(queueExitCode(checkQueue(fullWidth).result)).toBe(1);
    for (const expires of ["", "2026-10-26\n", "2026-02-30", "soon"]) {
      const bad = input({
        childLedger: { sha256: LEDGER_SHA, ledger: ledger([freeze(FLAKY, { expires })]) },
      });
      expect(summary(bad)).toEqual([["inherited-skip", "error", FLAKY]]);
    }
    // A readable live entry for the same test still justifies it.
    const alsoLive = input({
      childLedger: {
        sha256: LEDGER_SHA,
        ledger: ledger([freeze(FLAKY, { expires: "soon" }), freeze(FLAKY)]),
      },
    });
    expect(summary(alsoLive)).toEqual([]);
    // The seeds' id-only lists carry no dates: their freezes stand until removed.
    const seed = input({
      childLedger: {
        sha256: LEDGER_SHA,
        ledger: {
          ...ledger([freeze(FLAKY, { opened: "", expires: "" })]),
          source: "seed-000-quarantine",
        },
      },
    });
    expect(summary(seed)).toEqual([]);
  });

  it("matches freezes as the audit does: exact ids and '*' globs, no prefix matching", () => {
    const glob = input({
      childLedger: { sha256: LEDGER_SHA, ledger: ledger([freeze("tests/test_ledger.py::*")]) },
      child: { label: "c", record: record({ applied: [FLAKY, OTHER] }) },
    });
    expect(summary(glob)).toEqual([]);
    const caseOf = input({
      child: { label: "c", record: record({ applied: [`${FLAKY}[1]`] }) },
    });
    expect(summary(caseOf)).toEqual([["inherited-skip", "error", `${FLAKY}[1]`]]);
  });

  it("--allow turns an inherited skip into a record; an id in no record is a usage error", () => {
    const inherited = {
      childLedger: { sha256: LEDGER_SHA, ledger: ledger([]) },
    } satisfies Partial<QueueCheckInput>;
    const allowed = checkQueue(input({ ...inherited, allow: [FLAKY] }));
    expect(queueExitCode(allowed.result)).toBe(0);
    expect(allowed.result.findings).toMatchObject([
      { code: "inherited-skip", severity: "info", testId: FLAKY, details: { allowed: true } },
    ]);
    const unknown = caught(() =>
      checkQueue(input({ allow: [FLAKY, "tests/x.py::nope", "tests/y.py::no"] })),
    );
    expect(unknown).toBeInstanceOf(UsageError);
    expect(unknown.message).toBe(
      '--allow "tests/x.py::nope", "tests/y.py::no": in neither applied record (parent/applied.json, child/applied.json)',
    );
  });

  it("notes an --allow that is not needed, or that only the parent applied", () => {
    const parentOnly = input({
      parent: {
        ...input().parent,
        record: record({
          commit: PARENT_COMMIT,
          ledger: { path: "freeze-ledger.json", sha256: PARENT_LEDGER_SHA },
          applied: [FLAKY, OTHER],
        }),
      },
      allow: [OTHER, FLAKY],
    });
    const { result, notes } = checkQueue(parentOnly);
    expect(result.findings).toEqual([]);
    expect(notes.slice(3)).toEqual([
      `--allow ${FLAKY}: not needed, the ledger at aaaaaaaaaaaa freezes it`,
      `--allow ${OTHER}: only the parent's record applied it; the child ran it`,
    ]);
  });

  it("the child's record must be from the gated commit and the ledger checked in there", () => {
    const elsewhere = input({ child: { label: "c", record: record({ commit: PARENT_COMMIT }) } });
    const [moved] = checkQueue(elsewhere).result.findings;
    expect(moved).toMatchObject({
      code: "stale-record",
      severity: "error",
      details: { record: "child", problem: "commit", recordCommit: PARENT_COMMIT },
    });
    expect(moved?.message).toBe(
      "the child's record c was made at commit bbbbbbbbbbbb, not at the commit being gated (aaaaaaaaaaaa)",
    );
    const unnamed = input({ child: { label: "c", record: record({ commit: null }) } });
    expect(checkQueue(unnamed).result.findings[0]?.message).toBe(
      "the child's record c does not say which commit it was made at, so it cannot vouch for aaaaaaaaaaaa",
    );
    const edited = input({
      childLedger: { sha256: "9".repeat(64), ledger: ledger([freeze(FLAKY)]) },
    });
    expect(checkQueue(edited).result.findings).toMatchObject([
      {
        code: "stale-record",
        message:
          "the child's record child/applied.json was made with a different ledger (freeze-ledger.json, sha256 111111111111) than the freeze-ledger.json checked in at aaaaaaaaaaaa (sha256 999999999999)",
        details: { record: "child", problem: "ledger", checkedInSha256: "9".repeat(64) },
      },
    ]);
  });

  it("no ledger at the gated commit: the record is stale and every applied freeze inherited", () => {
    expect(summary(input({ childLedger: null }))).toEqual([
      ["stale-record", "error", "child"],
      ["inherited-skip", "error", FLAKY],
    ]);
    expect(checkQueue(input({ childLedger: null })).result.findings[1]?.message).toMatch(
      /but commit aaaaaaaaaaaa has no freeze-ledger\.json;/,
    );
  });

  it("the parent's record must match the ledger at its own commit", () => {
    const base = input();
    expect(summary(input({ parent: { ...base.parent, checkedInSha256: "3".repeat(64) } }))).toEqual(
      [["stale-record", "error", "parent"]],
    );
    expect(
      checkQueue(input({ parent: { ...base.parent, checkedInSha256: null } })).result.findings[0]
        ?.message,
    ).toBe(
      "the parent's record parent/applied.json was made with a ledger (sha256 222222222222), but its commit bbbbbbbbbbbb has no freeze-ledger.json",
    );
    const unnamed = input({
      parent: { ...base.parent, record: { ...base.parent.record, commit: null } },
    });
    expect(summary(unnamed)).toEqual([["stale-record", "error", "parent"]]);
  });

  it("the child reusing the parent's record: stale, inherited, and noted", () => {
    const parentRecord = record({
      commit: PARENT_COMMIT,
      ledger: { path: "freeze-ledger.json", sha256: PARENT_LEDGER_SHA },
      applied: [OTHER],
      outcomes: { [OTHER]: "passed" },
    });
    const reused = input({
      parent: { label: "p.json", record: parentRecord, checkedInSha256: PARENT_LEDGER_SHA },
      child: { label: "c.json", record: parentRecord },
    });
    const { result, notes } = checkQueue(reused);
    expect(result.findings.map((f) => [f.code, f.details?.record ?? f.testId])).toEqual([
      ["stale-record", "child"],
      ["stale-record", "child"],
      ["inherited-skip", OTHER],
    ]);
    expect(result.findings.map((f) => f.details?.problem ?? null)).toEqual([
      "commit",
      "ledger",
      null,
    ]);
    expect(notes).toContain(
      "the child's record has the same content as the parent's: it was reused",
    );
  });

  it("lists every unjustified freeze, sorted by test id", () => {
    const many = input({
      childLedger: { sha256: LEDGER_SHA, ledger: ledger([]) },
      child: { label: "c", record: record({ applied: ["tests/z.py::t", FLAKY, "tests/a.py::t"] }) },
    });
    expect(summary(many).map((s) => s[2])).toEqual(["tests/a.py::t", FLAKY, "tests/z.py::t"]);
  });
});
