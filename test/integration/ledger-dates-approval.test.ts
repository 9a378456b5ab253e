// Re-opening a freeze someone approved, and
// leaving their name in approved_by, is not approved (the ledger-changes gate, on real commits
// and authors). F9: a freeze whose expiry is written with full-width digits cannot be read, so
// it does not justify a skip in `freezegate queue check` (the built CLI); the plugin refuses
// such a ledger (integrations/pytest/tests).

import { createHash } from "node:crypto";
import { afterAll, describe, expect, it } from "vitest";
import { runLedgerChangesGate } from "../../src/app/gates/ledger-changes-gate.js";
import type { Freeze } from "../../src/core/ledger-model.js";
import { runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";

const FLAKY = "tests/test_ledger.py::test_withdraw_more_than_balance";

function freeze(over: Partial<Freeze> = {}): Freeze {
  return {
    test_id: FLAKY,
    reason: "order-dependent failure in the full suite",
    owner: "finley",
    opened: "2026-10-01",
    expires: "2026-10-10",
    invariant: "a balance never goes negative",
    compensating_property: "tests/properties/test_ledger.py::test_balance_never_negative",
    reused_property: false,
    ...over,
  };
}

function ledgerText(freezes: Freeze[], policy: Record<string, unknown> = {}): string {
  return `${JSON.stringify({ version: 1, policy, freezes, properties: [] }, null, 2)}\n`;
}

const repos: TempRepo[] = [];
function repoWith(ledger: string): TempRepo {
  const repo = makeTempRepo();
  repos.push(repo);
  repo.write("tests/test_ledger.py", "def test_withdraw_more_than_balance():\n    pass\n");
  repo.write("freeze-ledger.json", ledger);
  return repo;
}
afterAll(() => {
  for (const repo of repos) repo.cleanup();
});

describe("F6: an approval is for the terms its approver saw", () => {
  it("re-opening bob's approved freeze and keeping his name is self-approved", async () => {
    const approval = { require_approval: true };
    const repo = repoWith(ledgerText([freeze({ approved_by: "bob" })], approval));
    repo.git("add", "-A");
    repo.git("commit", "-q", "--author=bob <bob@example.com>", "-m", "bob-approved freeze");
    repo.git("checkout", "-q", "-b", "reopen");
    const reopened = freeze({
      approved_by: "bob",
      opened: "2026-10-18",
      expires: "2026-10-31",
      compensating_property: "tests/properties/test_ledger.py::test_rejected_withdrawal_is_a_noop",
    });
    repo.write("freeze-ledger.json", ledgerText([reopened], approval));
    repo.git("add", "-A");
    repo.git("commit", "-q", "--author=alice <alice@example.com>", "-m", "re-open it");
    const ctx = {
      root: repo.dir,
      ledgerPath: repo.path("freeze-ledger.json"),
      ledgerLabel: "freeze-ledger.json",
    };
    const { result } = await runLedgerChangesGate(ctx, { base: "main", today: "2026-10-18" });
    expect(
      result.findings.filter((f) => f.code === "self-approved").map((f) => [f.severity, f.message]),
    ).toEqual([
      [
        "error",
        `the re-opened freeze of ${FLAKY} keeps the approval of bob, given before its opened, expires, compensating_property changed (name who approved this change in approved_by), and policy.require_approval is on`,
      ],
    ]);

    // carol, who neither wrote the change nor owns the freeze, approves the new terms.
    repo.write("freeze-ledger.json", ledgerText([{ ...reopened, approved_by: "carol" }], approval));
    repo.git("add", "-A");
    repo.git("commit", "-q", "--author=alice <alice@example.com>", "-m", "carol approved it");
    const approved = await runLedgerChangesGate(ctx, { base: "main", today: "2026-10-18" });
    expect(approved.result.findings.filter((f) => f.code === "self-approved")).toEqual([]);
  });
});

describe("F9: an expiry in full-width digits justifies no skip in queue check", () => {
  it("exits 1 with inherited-skip, reason bad-expiry", () => {
    const text = ledgerText([
      freeze({ opened: "２０２６-１０-０１", expires: "２０２６-１０-１０" }),
    ]);
    const repo = repoWith(text);
    repo.write(".gitignore", "records/\n");
    const commit = repo.commit("freeze with full-width dates");
    const sha = createHash("sha256").update(text).digest("hex");
    const record = {
      version: 1,
      tool: "pytest-freezegate",
      commit,
      ledger: { path: "freeze-ledger.json", sha256: sha },
      mode: "run",
      applied: [FLAKY],
      expired: [],
      outcomes: { [FLAKY]: "failed" },
    };
    repo.write("records/applied.json", `${JSON.stringify(record, null, 2)}\n`);
    const r = runCli(
      [
        "queue",
        "check",
        "--parent",
        "records/applied.json",
        "--child",
        "records/applied.json",
        "--today",
        "2027-06-01",
        "--format",
        "json",
      ],
      { cwd: repo.dir },
    );
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    const body = JSON.parse(r.stdout);
    expect(body.findings).toMatchObject([
      {
        code: "inherited-skip",
        severity: "error",
        testId: FLAKY,
        message: `${FLAKY} was frozen in the child's run (ran without gating, failed), but its freeze in freeze-ledger.json at ${commit.slice(0, 12)} has expires "２０２６-１０-１０", which is not a real YYYY-MM-DD day, so it justifies nothing; the parent's record records/applied.json (commit ${commit.slice(0, 12)}) applied the same freeze: the skip was inherited`,
        details: { reason: "bad-expiry", expires: "２０２６-１０-１０", today: "2027-06-01" },
      },
    ]);
  });
});
