// freezegate queue check end to end: a real temporary git repository shaped like a merge
// queue (main, the parent entry's commit, the child entry's commit on top of it), applied
// records written by hand in the plugin's format with the real commit ids and ledger hashes,
// and the built CLI.

import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, overrideArgs, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";

const FLAKY = "tests/test_ledger.py::test_overdraft_rejected";
const OTHER = "tests/test_ledger.py::test_withdraw_more_than_balance";
const TODAY = "2026-10-18";

function freeze(testId: string, expires = "2026-10-26") {
  return {
    test_id: testId,
    reason: "order-dependent failure in the full suite",
    owner: "finley",
    opened: "2026-10-12",
    expires,
    invariant: "a rejected withdrawal is a no-op",
    compensating_property: "tests/properties/test_ledger.py::test_rejected_withdrawal_is_a_noop",
    reused_property: false,
  };
}

function ledgerText(freezes: object[]): string {
  return `${JSON.stringify({ version: 1, freezes, properties: [] }, null, 2)}\n`;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

let repo: TempRepo;
/** The ledger's text at each commit. */
const ledgers: Record<"main" | "parent" | "child", string> = {
  main: ledgerText([freeze(FLAKY)]),
  // The parent entry freezes a second test.
  parent: ledgerText([freeze(FLAKY), freeze(OTHER)]),
  // The child entry fixed that test and removed its freeze.
  child: ledgerText([freeze(FLAKY)]),
};
const commits = { main: "", parent: "", child: "" };

function record(over: Record<string, unknown> = {}) {
  return {
    version: 1,
    tool: "pytest-freezegate",
    commit: commits.child,
    ledger: { path: "freeze-ledger.json", sha256: sha256(ledgers.child) },
    mode: "run",
    applied: [FLAKY],
    expired: [],
    outcomes: { [FLAKY]: "failed", [OTHER]: "passed" },
    ...over,
  };
}

/** The parent entry's honest record: its commit, its ledger, both freezes applied. */
function parentRecord(over: Record<string, unknown> = {}) {
  return record({
    commit: commits.parent,
    ledger: { path: "freeze-ledger.json", sha256: sha256(ledgers.parent) },
    applied: [FLAKY, OTHER],
    outcomes: { [FLAKY]: "failed", [OTHER]: "failed" },
    ...over,
  });
}

function writeRecord(name: string, value: unknown): string {
  const path = `records/${name}.json`;
  repo.write(path, typeof value === "string" ? value : `${JSON.stringify(value, null, 2)}\n`);
  return path;
}

function queue(args: string[], cwd = repo.dir) {
  return runCli(overrideArgs(["queue", "check", "--today", TODAY], args), { cwd });
}

function json(args: string[]) {
  const r = queue([...args, "--format", "json"]);
  expect(r.stderr).toBe("");
  return { status: r.status, body: JSON.parse(r.stdout) };
}

beforeAll(() => {
  repo = makeTempRepo();
  repo.write(".gitignore", "records/\n");
  repo.write("app/ledger.py", "class Ledger:\n    pass\n");
  repo.write("freeze-ledger.json", ledgers.main);
  commits.main = repo.commit("main");
  repo.write("freeze-ledger.json", ledgers.parent);
  commits.parent = repo.commit("queue entry 1: freeze a second flaky test");
  repo.write("app/ledger.py", "class Ledger:\n    balance = 0\n");
  repo.write("freeze-ledger.json", ledgers.child);
  commits.child = repo.commit("queue entry 2: fix the test, unfreeze it");
  writeRecord("parent", parentRecord());
});
afterAll(() => repo.cleanup());

describe("freezegate queue check", () => {
  it("passes a child that derived its freezes from its own ledger at its own commit", () => {
    const child = writeRecord("child", record());
    const r = queue(["--parent", "records/parent.json", "--child", child]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^queue gate: passed$/m);
    expect(r.stdout).toContain(
      `note: gated commit ${commits.child.slice(0, 12)}: freeze-ledger.json (sha256 ${sha256(ledgers.child).slice(0, 12)}) freezes 1 test; expiry judged on ${TODAY}`,
    );
    const { status, body } = json(["--parent", "records/parent.json", "--child", child]);
    expect(status).toBe(0);
    expect(body).toMatchObject({
      schema: "freezegate/gate",
      schemaVersion: 1,
      gate: "queue",
      ran: true,
      blocking: true,
      passed: true,
      exitCode: 0,
      findings: [],
    });
  });

  it("a child reusing its parent's record: stale, and the parent's extra freeze inherited", () => {
    const { status, body } = json([
      "--parent",
      "records/parent.json",
      "--child",
      "records/parent.json",
    ]);
    expect(status).toBe(1);
    expect(body.passed).toBe(false);
    expect(body.findings.map((f: { code: string; testId?: string }) => [f.code, f.testId])).toEqual(
      [
        ["stale-record", undefined],
        ["stale-record", undefined],
        ["inherited-skip", OTHER],
      ],
    );
    expect(body.findings[0].message).toBe(
      `the child's record records/parent.json was made at commit ${commits.parent.slice(0, 12)}, not at the commit being gated (${commits.child.slice(0, 12)})`,
    );
    expect(body.findings[1].details).toEqual({
      record: "child",
      problem: "ledger",
      recordSha256: sha256(ledgers.parent),
      checkedInSha256: sha256(ledgers.child),
    });
    expect(body.findings[2]).toEqual({
      gate: "queue",
      code: "inherited-skip",
      severity: "error",
      testId: OTHER,
      message: `${OTHER} was frozen in the child's run (ran without gating, failed), but freeze-ledger.json at ${commits.child.slice(0, 12)} does not freeze it; the parent's record records/parent.json (commit ${commits.parent.slice(0, 12)}) applied the same freeze: the skip was inherited`,
      details: {
        reason: "not-frozen",
        inheritedFrom: { record: "records/parent.json", commit: commits.parent },
        outcome: "failed",
        mode: "run",
        allowed: false,
      },
    });
    expect(body.notes).toContain(
      "the child's record has the same content as the parent's: it was reused",
    );
  });

  it("a current record that still applies an inherited freeze: only inherited-skip", () => {
    const child = writeRecord("carried", record({ applied: [FLAKY, OTHER] }));
    const r = queue(["--parent", "records/parent.json", "--child", child]);
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(
      new RegExp(
        `^error   inherited-skip: ${OTHER.replace(/[.]/g, "\\.")} was frozen in the child's run`,
        "m",
      ),
    );
    expect(r.stdout).not.toMatch(/stale-record/);
    expect(r.stdout).toMatch(/^queue gate: FAILED \(1 error\)$/m);
  });

  it("--allow accepts a named inherited freeze; an --allow id in no record is exit 2", () => {
    const child = writeRecord("carried", record({ applied: [FLAKY, OTHER] }));
    const { status, body } = json([
      "--parent",
      "records/parent.json",
      "--child",
      child,
      "--allow",
      OTHER,
    ]);
    expect(status).toBe(0);
    expect(body.findings).toMatchObject([
      { code: "inherited-skip", severity: "info", testId: OTHER, details: { allowed: true } },
    ]);
    const line = expectRefusal(
      queue([
        "--parent",
        "records/parent.json",
        "--child",
        child,
        "--allow",
        "tests/test_ledger.py::test_typo",
      ]),
      "allow-not-in-records",
    );
    expect(line).toMatch(
      '--allow "tests/test_ledger.py::test_typo": in neither applied record (records/parent.json, records/carried.json)',
    );
  });

  it("an expired freeze in the child's own ledger justifies nothing", () => {
    const child = writeRecord("child", record());
    const { status, body } = json([
      "--parent",
      "records/parent.json",
      "--child",
      child,
      "--today",
      "2026-10-27",
    ]);
    expect(status).toBe(1);
    expect(body.findings).toMatchObject([
      {
        code: "inherited-skip",
        testId: FLAKY,
        details: { reason: "expired", expires: "2026-10-26", today: "2026-10-27" },
      },
    ]);
  });

  it("--commit gates another commit than HEAD: the parent's own record passes as a child", () => {
    const { status, body } = json([
      "--parent",
      "records/parent.json",
      "--child",
      "records/parent.json",
      "--commit",
      commits.parent,
    ]);
    expect(status).toBe(0);
    expect(body.findings).toEqual([]);
  });

  it("the parent's record must match the ledger checked in at its commit", () => {
    const forged = writeRecord("forged-parent", parentRecord({ commit: commits.main }));
    const child = writeRecord("child", record());
    const { status, body } = json(["--parent", forged, "--child", child]);
    expect(status).toBe(1);
    expect(body.findings).toMatchObject([
      {
        code: "stale-record",
        details: {
          record: "parent",
          problem: "ledger",
          recordCommit: commits.main,
          checkedInSha256: sha256(ledgers.main),
        },
      },
    ]);
  });

  it("a record from a run without a known commit is stale", () => {
    const child = writeRecord("no-commit", record({ commit: null }));
    const { status, body } = json(["--parent", "records/parent.json", "--child", child]);
    expect(status).toBe(1);
    expect(body.findings.map((f: { code: string }) => f.code)).toEqual(["stale-record"]);
  });

  it("runs from a subdirectory (-C), with record paths relative to it", () => {
    const child = writeRecord("child", record());
    const r = runCli(
      [
        "queue",
        "check",
        "-C",
        "records",
        "--today",
        TODAY,
        "--parent",
        "parent.json",
        "--child",
        "child.json",
      ],
      { cwd: repo.dir },
    );
    expect(child).toBe("records/child.json");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain("note: child record records/child.json:");
  });

  it("refuses unusable input with one line and exit 2", () => {
    const child = writeRecord("child", record());
    const cases: [string[], RegExp][] = [
      [["--child", child], /queue check needs both applied records \(missing --parent\)/],
      [
        ["--parent", "records/none.json", "--child", child],
        /applied record not found: .*records\/none\.json/,
      ],
      [
        ["--parent", writeRecord("broken", "{not json"), "--child", child],
        /applied record .*records\/broken\.json is not valid JSON/,
      ],
      [
        ["--parent", writeRecord("v2", record({ version: 2 })), "--child", child],
        /applied record records\/v2\.json: \$\.version is 2; .* \(fix: upgrade freezegate/,
      ],
      [
        ["--parent", writeRecord("no-mode", { ...record(), mode: undefined }), "--child", child],
        /applied record records\/no-mode\.json: \$ has no "mode"/,
      ],
      [
        ["--parent", "records/parent.json", "--child", child, "--commit", "no-such-ref"],
        /--commit "no-such-ref" is not a commit in this repository/,
      ],
      [
        [
          "--parent",
          writeRecord("far", parentRecord({ commit: "f".repeat(40) })),
          "--child",
          child,
        ],
        /the parent's record names commit ffffffffffff, which this clone does not have \(fix: fetch it/,
      ],
      [
        ["--parent", "records/parent.json", "--child", child, "--format", "xml"],
        /unknown --format "xml"/,
      ],
      [
        ["--parent", "records/parent.json", "--child", child, "--ledger", "/tmp/elsewhere.json"],
        /^freezegate: error\[ledger-outside-repo\]: the ledger \/tmp\/elsewhere\.json is outside the repository/,
      ],
    ];
    for (const [args, expected] of cases) {
      expect(expectOneLineError(queue(args))).toMatch(expected);
    }
  });

  it("a ledger that does not parse at the gated commit is exit 2, not an empty ledger", () => {
    repo.write("freeze-ledger.json", "{ broken\n");
    const broken = repo.commit("break the ledger");
    try {
      const child = writeRecord("at-broken", record({ commit: broken }));
      const line = expectOneLineError(queue(["--parent", "records/parent.json", "--child", child]));
      expect(line).toMatch(
        new RegExp(`ledger freeze-ledger\\.json at ${broken.slice(0, 12)} is not valid JSON`),
      );
    } finally {
      repo.git("reset", "-q", "--hard", "HEAD~1");
    }
  });

  it("is listed in the CLI's help", () => {
    const help = runCli(["queue", "--help"], { cwd: repo.dir });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^ {2}check\s+Fail when the child's applied record froze a test/m);
    const sub = runCli(["queue", "check", "--help"], { cwd: repo.dir });
    expect(sub.stdout).toMatch(/--allow ID/);
    expect(sub.stdout).toMatch(/Exit codes:/);
  });
});
