// The applied record's word on tests that stop gating outside the ledger: `muted` (an xfail the run did not apply) and `deselected_frozen` (frozen
// tests collected but not run). The parser reads both, and records without them (plugins
// before them); check refuses deselected frozen tests and notes the muted ones.

import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import {
  refuseDeselectedFrozen,
  refuseForeignAppliedRecord,
  type ThisRunsRecord,
} from "../../src/adapters/pytest-ledger.js";
import { mutedNotes } from "../../src/app/run-check.js";
import { InputError } from "../../src/core/errors.js";
import { DEFAULT_POLICY, type Ledger } from "../../src/core/ledger-model.js";
import { parseAppliedRecord } from "../../src/core/queue.js";

const COMMIT = "a".repeat(40);
const FROZEN = "tests/test_ledger.py::test_statement_lists_entries";
const KNOWN_BUG = "tests/test_known.py::test_currency";

function raw(over: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    version: 1,
    tool: "pytest-freezegate",
    commit: COMMIT,
    ledger: { path: "freeze-ledger.json", sha256: "1".repeat(64) },
    mode: "run",
    applied: [],
    expired: [],
    outcomes: {},
    ...over,
  };
}

function refusal(value: unknown): string {
  try {
    parseAppliedRecord(value, "applied.json");
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as InputError).message;
  }
  throw new Error(`expected ${JSON.stringify(value)} to be refused`);
}

describe("parseAppliedRecord: muted and deselected_frozen", () => {
  it("reads both lists, dropping repeated ids", () => {
    const record = parseAppliedRecord(
      raw({ muted: [KNOWN_BUG, KNOWN_BUG], deselected_frozen: [FROZEN] }),
      "applied.json",
    );
    expect(record.muted).toEqual([KNOWN_BUG]);
    expect(record.deselectedFrozen).toEqual([FROZEN]);
    const none = parseAppliedRecord(raw({ muted: [], deselected_frozen: [] }), "a");
    expect([none.muted, none.deselectedFrozen]).toEqual([[], []]);
  });

  it("still reads a record without them (an older plugin): they are absent, not empty", () => {
    const record = parseAppliedRecord(raw(), "applied.json");
    expect("muted" in record).toBe(false);
    expect("deselectedFrozen" in record).toBe(false);
  });

  it("refuses lists that are not lists of test ids, naming the JSON path", () => {
    expect(refusal(raw({ muted: "tests/a.py::t" }))).toBe(
      'applied record applied.json: $.muted is "tests/a.py::t", not a list of test ids',
    );
    expect(refusal(raw({ deselected_frozen: [FROZEN, ""] }))).toBe(
      'applied record applied.json: $.deselected_frozen[1] is "", not a test id',
    );
    expect(refusal(raw({ deselected_frozen: null }))).toBe(
      "applied record applied.json: $.deselected_frozen is null, not a list of test ids",
    );
  });

  it("still refuses unknown keys, and names the new ones as allowed", () => {
    expect(refusal(raw({ xfailed: [] }))).toBe(
      'applied record applied.json: $ has an unknown key "xfailed" (allowed: version, tool, commit, ledger, mode, applied, expired, outcomes, muted, deselected_frozen, skipped)',
    );
  });
});

describe("mutedNotes", () => {
  const label = ".freezegate/applied.json";
  const of = (over: Record<string, unknown>) =>
    mutedNotes({ label, record: parseAppliedRecord(raw(over), label) });

  it("names the muted tests, up to five", () => {
    expect(of({ muted: [KNOWN_BUG] })).toEqual([
      `1 test(s) muted by an xfail outside the ledger count as frozen (their failures cannot fail the run; the applied record ${label}): ${KNOWN_BUG}`,
    ]);
    const many = Array.from({ length: 7 }, (_, i) => `tests/test_x.py::test_${i}`);
    expect(of({ muted: many })[0]).toMatch(
      /: tests\/test_x.py::test_0, .*test_4, \.\.\. \(7 in all\)$/,
    );
  });

  it("says nothing without muted tests or without a record of this commit", () => {
    expect(of({ muted: [] })).toEqual([]);
    expect(mutedNotes(null)).toEqual([]);
  });

  it("says when the record cannot tell (an older plugin)", () => {
    expect(of({})).toEqual([
      `the applied record ${label} does not say which tests an xfail muted (an older pytest plugin): such tests count as live; update the plugin`,
    ]);
  });
});

describe("refuseDeselectedFrozen: deselected frozen tests", () => {
  let dir = "";
  afterEach(() => {
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  function setUp(over: Record<string, unknown>) {
    dir = mkdtempSync(join(tmpdir(), "fg-muted-"));
    const ledgerText = '{"version": 1, "freezes": []}\n';
    writeFileSync(join(dir, "freeze-ledger.json"), ledgerText);
    const sha256 = createHash("sha256").update(ledgerText).digest("hex");
    writeFileSync(
      join(dir, "applied.json"),
      JSON.stringify(raw({ ledger: { path: "freeze-ledger.json", sha256 }, ...over })),
    );
    const ledger: Ledger = {
      source: "freezegate",
      policy: { ...DEFAULT_POLICY },
      freezes: [],
      properties: [],
    };
    return {
      root: dir,
      testRoot: "",
      ledgerPath: join(dir, "freeze-ledger.json"),
      judge: "check",
      ledgerKey: "--ledger",
      recordPath: join(dir, "applied.json"),
      headCommit: COMMIT,
      ledger,
    };
  }

  it("refuses deselected frozen tests the coverage data does not have", () => {
    const agreement = setUp({
      deselected_frozen: [FROZEN, "tests/a.py::b", "tests/a.py::c", "x::y", "tests/a.py::ran"],
    });
    const thisRun = refuseForeignAppliedRecord(agreement);
    expect(thisRun).not.toBeNull();
    const inData = (id: string) => id === "tests/a.py::ran";
    expect(() =>
      refuseDeselectedFrozen(thisRun as ThisRunsRecord, "freeze-ledger.json", inData),
    ).toThrowError(
      `the tests did not run 4 test(s) that freeze-ledger.json freezes: ${FROZEN}, tests/a.py::b, tests/a.py::c, ... (4 in all) (deselected, says the applied record applied.json, and not in the coverage data); a frozen test that does not run leaves no coverage, so the lines only it runs would read "uncovered" instead of "shadowed"`,
    );
    // Another job of a split CI ran them all: their coverage is in the combined data.
    expect(() =>
      refuseDeselectedFrozen(thisRun as ThisRunsRecord, "freeze-ledger.json", () => true),
    ).not.toThrow();
  });

  it("returns the record otherwise; a record of another commit is nothing to judge", () => {
    const agreement = setUp({ muted: [KNOWN_BUG], deselected_frozen: [] });
    expect(refuseForeignAppliedRecord(agreement)?.record.muted).toEqual([KNOWN_BUG]);
    expect(refuseForeignAppliedRecord({ ...agreement, headCommit: "b".repeat(40) })).toBeNull();
  });
});
