// The ledger gates end to end on real temporary git repositories: every finding code of the
// witness, deposit, lock and ledger-changes gates, reached through real commits (with real
// commit authors), real BASE...HEAD patches and the built CLI; `impact` on the real per-test
// coverage data committed with the bundled example (examples/demo/project/.coverage, recorded
// by pytest-cov 4.0 / coverage.py 6.5, see examples/demo/README.md). No Python needed.

import { mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freezeAuthors } from "../../src/adapters/git-history.js";
import type { GateContext } from "../../src/app/gates/gate-run.js";
import { runLedgerChangesGate } from "../../src/app/gates/ledger-changes-gate.js";
import type { Finding } from "../../src/core/findings.js";
import { parseLedger } from "../../src/core/ledger.js";
import type { Freeze, LedgerPolicy, Property } from "../../src/core/ledger-model.js";
import {
  type CliResult,
  expectOneLineError,
  expectRefusal,
  REPO_ROOT,
  runCli,
} from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import { makeTempRepo, runGit, type TempRepo } from "../helpers/git-repo.js";

const SEED_003 = join(REPO_ROOT, "test/fixtures/ledger/seed-003-properties.json");

// the properties example's test ids and the freeze-ledger example's proration freeze.
const OVERDRAFT = "tests/test_ledger.py::test_overdraft_rejected";
const WITHDRAW = "tests/test_ledger.py::test_withdraw_more_than_balance";
const PRORATION = "tests/test_billing.py::test_proration_rounding";
const PROP = "tests/props/test_proration_props.py::test_monotonic_in_period";
const PROP_FILE = "tests/props/test_proration_props.py";

const PROPERTIES: Property[] = [
  {
    id: "prop.ledger.balance_non_negative",
    check: "tests/properties/test_ledger.py::test_balance_never_negative",
    witnessed_by: [OVERDRAFT, WITHDRAW],
  },
  {
    id: "prop.ledger.rejected_is_noop",
    check: "tests/properties/test_ledger.py::test_rejected_withdrawal_is_a_noop",
    witnessed_by: [OVERDRAFT],
  },
];

function freeze(testId: string, over: Partial<Freeze> = {}): Freeze {
  return {
    test_id: testId,
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

function ledgerText(
  freezes: Freeze[],
  policy: Partial<LedgerPolicy> = {},
  properties: Property[] = PROPERTIES,
): string {
  return `${JSON.stringify({ version: 1, policy, freezes, properties }, null, 2)}\n`;
}

/** A small repository shaped like the seeds' examples (content is never run). */
function seedRepo(ledger: string): TempRepo {
  const repo = makeTempRepo();
  repo.write("src/app/ledger.py", "class Ledger:\n    balance = 0\n");
  repo.write("tests/test_ledger.py", "def test_overdraft_rejected():\n    pass\n");
  repo.write("tests/test_billing.py", "def test_proration_rounding():\n    pass\n");
  repo.write("tests/properties/test_ledger.py", "def test_balance_never_negative():\n    pass\n");
  repo.write("tests/properties/strategies.py", "AMOUNTS = dict(max_size=64)\n");
  repo.write("tests/properties/conftest.py", "import pytest\n");
  repo.write("fixtures/ledger_golden.json", '{"balance": 0}\n');
  repo.write(PROP_FILE, "def test_monotonic_in_period():\n    pass\n");
  repo.write("freeze-ledger.json", ledger);
  repo.commit("base");
  return repo;
}

const repos: TempRepo[] = [];
const dirs: string[] = [];
function track(repo: TempRepo): TempRepo {
  repos.push(repo);
  return repo;
}
function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "freezegate-gates-")));
  dirs.push(dir);
  return dir;
}
afterAll(() => {
  for (const r of repos) r.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function json(result: CliResult): { findings: Finding[]; ran: boolean; exitCode: number } {
  return JSON.parse(result.stdout);
}
const codes = (r: CliResult) => json(r).findings.map((f) => f.code);

// ---------------------------------------------------------------------------------------------

describe("witness check on the properties example's properties.json", () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = track(makeTempRepo());
    repo.write("properties.json", readFileSync(SEED_003));
    repo.write("src/app/ledger.py", "x = 1\n");
    repo.commit("properties example");
    repo.git("checkout", "-q", "-b", "freeze-the-only-witness");
    const seed = JSON.parse(readFileSync(SEED_003, "utf8"));
    seed.frozen = [OVERDRAFT];
    repo.write("properties.json", `${JSON.stringify(seed, null, 2)}\n`);
    repo.commit("freeze test_overdraft_rejected");
  });

  it("blocks freezing rejected_is_noop's only witness, naming the freeze that took it", () => {
    const r = runCli(["witness", "check", "--base", "main", "--ledger", "properties.json"], {
      cwd: repo.dir,
    });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      `error   orphaned-property: property prop.ledger.rejected_is_noop has no live witness left: the freeze of ${OVERDRAFT} took its last witness`,
    );
    // balance_non_negative keeps test_withdraw_more_than_balance: not reported.
    expect(r.stdout).not.toContain("balance_non_negative");
    expect(r.stdout).toContain("changed in main...HEAD: judged");
    expect(r.stdout).toMatch(/witness gate: FAILED \(1 error\)\n$/);

    const j = runCli(
      ["witness", "check", "--base", "main", "--ledger", "properties.json", "--format", "json"],
      { cwd: repo.dir },
    );
    expect(j.status).toBe(1);
    const report = json(j);
    expect(report.findings).toHaveLength(1);
    expect(report.findings[0]).toMatchObject({
      gate: "witness",
      code: "orphaned-property",
      propertyId: "prop.ledger.rejected_is_noop",
      details: { takenBy: [OVERDRAFT] },
    });
  });

  it("bites only when the ledger changed in BASE...HEAD; --always and no base judge anyway", () => {
    // The orphaning freeze is now on the base; the next patch leaves the ledger alone.
    repo.git("branch", "-f", "frozen-base", "HEAD");
    repo.write("src/app/ledger.py", "x = 2\n");
    repo.commit("unrelated change");
    const skipped = runCli(
      ["witness", "check", "--base", "frozen-base", "--ledger", "properties.json"],
      { cwd: repo.dir },
    );
    expect(skipped.status).toBe(0);
    expect(skipped.stdout).toContain(
      "witness gate: skipped (the ledger properties.json did not change in frozen-base...HEAD (--always runs it anyway))",
    );
    const always = runCli(
      ["witness", "check", "--base", "frozen-base", "--always", "--ledger", "properties.json"],
      { cwd: repo.dir },
    );
    expect(always.status).toBe(1);
    expect(always.stdout).toContain("orphaned-property");
    const noBase = runCli(["witness", "check", "--ledger", "properties.json"], { cwd: repo.dir });
    expect(noBase.status).toBe(1);
    expect(noBase.stdout).toContain("no --base: judged");
  });

  it("an uncommitted ledger change counts as a change", () => {
    const seed = JSON.parse(readFileSync(repo.path("properties.json"), "utf8"));
    seed.frozen = [OVERDRAFT, WITHDRAW];
    repo.write("properties.json", `${JSON.stringify(seed, null, 2)}\n`);
    try {
      const r = runCli(
        ["witness", "check", "--base", "frozen-base", "--ledger", "properties.json"],
        { cwd: repo.dir },
      );
      expect(r.status).toBe(1);
      expect(r.stdout).toContain("has uncommitted changes: judged");
      expect(r.stdout).toContain("prop.ledger.balance_non_negative has no live witness left");
    } finally {
      repo.git("checkout", "-q", "--", "properties.json");
    }
  });

  it("frozen-property-check when a property's own check is frozen; a missing ledger is exit 2", () => {
    const r = runCli(["witness", "check", "--ledger", "nope.json"], { cwd: repo.dir });
    expect(expectOneLineError(r)).toContain("nope.json");
    const seed = JSON.parse(readFileSync(SEED_003, "utf8"));
    seed.frozen = ["tests/properties/test_ledger.py::test_balance_never_negative"];
    repo.write("own.json", JSON.stringify(seed));
    const own = runCli(["witness", "check", "--ledger", "own.json", "--format", "json"], {
      cwd: repo.dir,
    });
    repo.remove("own.json");
    expect(own.status).toBe(1);
    expect(codes(own)).toEqual(["frozen-property-check"]);
  });
});

// ---------------------------------------------------------------------------------------------

describe("deposit check against real patches", () => {
  let repo: TempRepo;
  let collected: string;
  let samples: string;
  let seedSamples: string;
  let noProp: string;
  beforeAll(() => {
    repo = track(seedRepo(ledgerText([])));
    const dir = tempDir();
    const ids = [OVERDRAFT, WITHDRAW, PRORATION, PROP, ...PROPERTIES.map((p) => p.check)];
    collected = join(dir, "collected.txt");
    writeFileSync(collected, `${ids.join("\n")}\n\n${ids.length} tests collected in 0.02s\n`);
    noProp = join(dir, "collected-without-prop.txt");
    writeFileSync(noProp, `${ids.filter((i) => i !== PROP).join("\n")}\n`);
    samples = join(dir, "samples.json");
    seedSamples = join(dir, "prop_samples.json");
    writeFileSync(seedSamples, JSON.stringify({ distinct: 3 }));

    // Patch 1 (branch no-deposit): the freeze only.
    repo.git("checkout", "-q", "-b", "no-deposit", "main");
    repo.write("freeze-ledger.json", ledgerText([freeze(PRORATION)]));
    repo.commit("freeze proration without a deposit");
    // Patch 2 (branch with-deposit): the freeze and its property.
    repo.git("checkout", "-q", "-b", "with-deposit", "main");
    repo.write("freeze-ledger.json", ledgerText([freeze(PRORATION)]));
    repo.write(PROP_FILE, "def test_monotonic_in_period():\n    assert True\n");
    repo.commit("freeze proration, deposit the property");
  });

  /** The samples artifact of a run at the current HEAD (another commit's is refused). */
  const samplesAtHead = () => {
    const commit = repo.git("rev-parse", "HEAD").trim();
    const value = { version: 2, commit, properties: { [PROP]: { distinct: 12 } } };
    writeFileSync(samples, JSON.stringify(value));
  };
  const check = (branch: string, extra: string[]) => {
    repo.git("checkout", "-q", branch);
    samplesAtHead();
    return runCli(["deposit", "check", "--base", "main", "--format", "json", ...extra], {
      cwd: repo.dir,
    });
  };

  it("deposit-not-in-diff: the property's file is not in the patch", () => {
    const r = check("no-deposit", ["--collected", collected, "--samples", samples]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    expect(json(r).findings).toEqual([
      expect.objectContaining({
        code: "deposit-not-in-diff",
        testId: PRORATION,
        propertyId: PROP,
        path: PROP_FILE,
      }),
    ]);
  });

  it("passes when the patch deposits the property and the artifact shows its inputs", () => {
    const r = check("with-deposit", ["--collected", collected, "--samples", samples]);
    expect(r.status).toBe(0);
    expect(json(r).findings).toEqual([]);
    const text = runCli(
      ["deposit", "check", "--base", "main", "--collected", collected, "--samples", samples],
      { cwd: repo.dir },
    );
    expect(text.stdout).toMatch(/deposit gate: passed\n$/);
  });

  it("deposit-not-collected: the property is not in the collected ids", () => {
    const r = check("with-deposit", ["--collected", noProp, "--samples", samples]);
    expect(r.status).toBe(1);
    expect(codes(r)).toEqual(["deposit-not-collected"]);
  });

  it("deposit-too-few-inputs: the freeze-ledger example's session count below min_distinct, or no artifact", () => {
    const few = check("with-deposit", ["--collected", collected, "--samples", seedSamples]);
    expect(few.status).toBe(1);
    expect(codes(few)).toEqual(["deposit-too-few-inputs"]);
    expect(json(few).findings[0]?.message).toContain("ran on 3 distinct inputs");
    const none = check("with-deposit", ["--collected", collected]);
    expect(none.status).toBe(1);
    expect(json(none).findings[0]?.message).toContain("no samples artifact was given");
  });

  it("a freeze made in an earlier patch does not owe its deposit in this one", () => {
    repo.git("checkout", "-q", "-b", "later", "with-deposit");
    repo.write("src/app/ledger.py", "class Ledger:\n    balance = 1\n");
    repo.commit("unrelated");
    samplesAtHead();
    const r = runCli(
      [
        "deposit",
        "check",
        "--base",
        "with-deposit",
        "--collected",
        collected,
        "--samples",
        samples,
      ],
      { cwd: repo.dir },
    );
    expect(r.status).toBe(0);
    const depositCheck = () => {
      samplesAtHead();
      return runCli(
        [
          "deposit",
          "check",
          "--base",
          "with-deposit",
          "--collected",
          collected,
          "--samples",
          samples,
          "--format",
          "json",
        ],
        { cwd: repo.dir },
      );
    };
    // Extending it, rewording its reason, naming its approver: nothing new is deposited, and
    // the property's samples are still judged.
    repo.write(
      "freeze-ledger.json",
      ledgerText([
        freeze(PRORATION, {
          reason: "still order-dependent",
          expires: "2026-10-20",
          approved_by: "bob",
        }),
      ]),
    );
    repo.commit("extend the freeze, reword its reason");
    const extended = depositCheck();
    expect(extended.stderr).toBe("");
    expect(json(extended).findings).toEqual([]);
    expect(extended.status).toBe(0);
    // Another compensating property is a new deposit: due in this patch.
    const other = PROPERTIES[0]?.check as string;
    repo.write(
      "freeze-ledger.json",
      ledgerText([freeze(PRORATION, { compensating_property: other })]),
    );
    repo.commit("deposit another property");
    const due = depositCheck();
    expect(due.status).toBe(1);
    expect(codes(due)).toContain("deposit-not-in-diff");
  });

  it("input errors are exit 2, one line: no base, no known tests, a malformed artifact", () => {
    repo.git("checkout", "-q", "with-deposit");
    expect(
      expectOneLineError(runCli(["deposit", "check", "--collected", collected], { cwd: repo.dir })),
    ).toContain("--base");
    expect(
      expectOneLineError(runCli(["deposit", "check", "--base", "main"], { cwd: repo.dir })),
    ).toContain("--collected FILE");
    const bad = join(tempDir(), "bad.json");
    const commit = repo.git("rev-parse", "HEAD").trim();
    writeFileSync(
      bad,
      JSON.stringify({ version: 2, commit, properties: { [PROP]: { distinct: -2 } } }),
    );
    expect(
      expectOneLineError(
        runCli(["deposit", "check", "--base", "main", "--collected", collected, "--samples", bad], {
          cwd: repo.dir,
        }),
      ),
    ).toContain("whole number >= 0");
  });
});

// ---------------------------------------------------------------------------------------------

describe("lock and lock --check", () => {
  let repo: TempRepo;
  const policy = {
    generator_lock: [
      "tests/properties/strategies.py",
      "tests/properties/conftest.py",
      "fixtures/*.json",
    ],
  };
  beforeAll(() => {
    repo = track(seedRepo(ledgerText([], policy)));
    const w = runCli(["lock"], { cwd: repo.dir });
    expect(w.stderr).toBe("");
    expect(w.status).toBe(0);
    expect(w.stdout).toMatch(
      /^wrote property-lock\.json: 3 files \(fixtures\/ledger_golden\.json, tests\/properties\/conftest\.py, tests\/properties\/strategies\.py\), fingerprint sha256:[0-9a-f]{64}\n$/,
    );
    repo.commit("lock the generators");
  });

  it("writes the documented format, and writing again changes nothing", () => {
    const lock = JSON.parse(readFileSync(repo.path("property-lock.json"), "utf8"));
    expect(Object.keys(lock)).toEqual(["version", "fingerprint", "files"]);
    expect(Object.keys(lock.files)).toEqual([
      "fixtures/ledger_golden.json",
      "tests/properties/conftest.py",
      "tests/properties/strategies.py",
    ]);
    const again = runCli(["lock"], { cwd: repo.dir });
    expect(again.stdout).toMatch(/^unchanged property-lock\.json/);
    expect(repo.git("status", "--porcelain")).toBe("");
  });

  it("passes when the lock matches, with and without a base", () => {
    expect(runCli(["lock", "--check"], { cwd: repo.dir }).status).toBe(0);
    const r = runCli(["lock", "--check", "--base", "main"], { cwd: repo.dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/lock gate: passed\n$/);
  });

  it("lock-moved: a narrowed generator committed without moving the lock", () => {
    repo.git("checkout", "-q", "-b", "narrow", "main");
    repo.write("tests/properties/strategies.py", "AMOUNTS = dict(max_size=4)\n");
    repo.commit("narrow the generator");
    const r = runCli(["lock", "--check", "--base", "main"], { cwd: repo.dir });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      "lock-moved: generator file tests/properties/strategies.py changed in this patch, but property-lock.json did not move with it",
    );
    const noBase = runCli(["lock", "--check", "--format", "json"], { cwd: repo.dir });
    expect(noBase.status).toBe(1);
    expect(json(noBase).findings[0]).toMatchObject({
      code: "lock-moved",
      details: { changed: ["tests/properties/strategies.py"], added: [], removed: [] },
    });
  });

  it("passes once the lock moves with the files in the same patch", () => {
    repo.git("checkout", "-q", "narrow");
    expect(runCli(["lock"], { cwd: repo.dir }).stdout).toMatch(/^wrote /);
    repo.commit("re-lock");
    const r = runCli(["lock", "--check", "--base", "main"], { cwd: repo.dir });
    expect(r.status).toBe(0);
  });

  it("refuses to check a range against files that differ from HEAD", () => {
    repo.git("checkout", "-q", "narrow");
    repo.write("tests/properties/conftest.py", "import pytest  # edited\n");
    try {
      const r = runCli(["lock", "--check", "--base", "main"], { cwd: repo.dir });
      // The fix is one that works when the base comes from the config key too (no flag
      // turns that off).
      expect(expectRefusal(r, "lock-files-uncommitted")).toMatch(
        /^tests\/properties\/conftest\.py differs from HEAD, so the lock cannot be checked against main\.\.\.HEAD \(fix: commit the changes first: with a base, /,
      );
    } finally {
      repo.git("checkout", "-q", "--", "tests/properties/conftest.py");
    }
  });

  it("a configured path that does not exist is exit 2, never an empty hash", () => {
    repo.git("checkout", "-q", "main");
    repo.write(
      "freeze-ledger.json",
      ledgerText([], { generator_lock: ["tests/properties/strategy.py"] }),
    );
    try {
      for (const args of [["lock"], ["lock", "--check"]]) {
        const line = expectOneLineError(runCli(args, { cwd: repo.dir }));
        expect(line).toContain('generator_lock file "tests/properties/strategy.py" does not exist');
      }
      expect(readFileSync(repo.path("property-lock.json"), "utf8")).toBe(
        repo.git("show", "HEAD:property-lock.json"),
      );
    } finally {
      repo.git("checkout", "-q", "--", "freeze-ledger.json");
    }
  });

  it("unlocking a generator: the patch that drops its entry keeps its lines, and is told so", () => {
    // After `freezegate lock` in that patch the gate failed with "newly locked",
    // and running lock again changed nothing; the note says what to keep.
    repo.git("checkout", "-q", "-b", "unlock", "main");
    try {
      repo.write(
        "freeze-ledger.json",
        ledgerText([], { generator_lock: policy.generator_lock.slice(1) }),
      );
      repo.commit("stop locking strategies.py");
      const kept = runCli(["lock", "--check", "--base", "main"], { cwd: repo.dir });
      expect(kept.stdout).toContain(
        "note: the merge base's policy.generator_lock still locks \"tests/properties/strategies.py\" in this patch: keep its files in property-lock.json as the merge base had them (freezegate lock writes this patch's own entries only), and drop them in the next patch",
      );
      expect(kept.status).toBe(0);
      expect(runCli(["lock"], { cwd: repo.dir }).status).toBe(0);
      repo.commit("re-lock");
      const relocked = runCli(["lock", "--check", "--base", "main"], { cwd: repo.dir });
      expect(relocked.stdout).toContain("newly locked: tests/properties/strategies.py");
      expect(relocked.stdout).toContain("keep its files in property-lock.json");
      expect(relocked.status).toBe(1);
    } finally {
      repo.git("checkout", "-q", "main");
    }
  });

  it("lock-moved when the lock file is missing", () => {
    repo.git("checkout", "-q", "main");
    repo.remove("property-lock.json");
    try {
      const r = runCli(["lock", "--check"], { cwd: repo.dir });
      expect(r.status).toBe(1);
      expect(r.stdout).toContain("there is no lock file property-lock.json");
    } finally {
      repo.git("checkout", "-q", "--", "property-lock.json");
    }
  });
});

// ---------------------------------------------------------------------------------------------

describe("ledger changes between the merge base and HEAD, with real commit authors", () => {
  const AGENT = "--author=Coding Agent <agent@bots.invalid>";
  const REVIEWER = "--author=Reviewer <reviewer@example.com>";
  const approval = { require_approval: true };
  let repo: TempRepo;
  let ctx: GateContext;
  const commitAs = (author: string, message: string) => {
    repo.git("add", "-A");
    repo.git("commit", "-q", author, "-m", message);
  };

  beforeAll(() => {
    repo = track(
      seedRepo(
        ledgerText(
          [
            freeze("tests/t.py::test_extended", { opened: "2026-10-10", expires: "2026-10-20" }),
            freeze("tests/t.py::test_removed"),
            freeze("tests/t.py::test_expired", { opened: "2026-09-01", expires: "2026-09-10" }),
            freeze("tests/t.py::test_reopened", { opened: "2026-10-01", expires: "2026-10-12" }),
            freeze("tests/t.py::test_untouched", { approved_by: "finley" }),
          ],
          approval,
        ),
      ),
    );
    ctx = {
      root: repo.dir,
      ledgerPath: repo.path("freeze-ledger.json"),
      ledgerLabel: "freeze-ledger.json",
    };
    repo.git("checkout", "-q", "-b", "agent-patch");
    const head = [
      freeze("tests/t.py::test_extended", {
        opened: "2026-10-10",
        expires: "2026-10-24",
        approved_by: "Reviewer",
      }),
      freeze("tests/t.py::test_expired", {
        opened: "2026-09-01",
        expires: "2026-10-25",
        approved_by: "Security Lead",
      }),
      freeze("tests/t.py::test_reopened", {
        opened: "2026-10-15",
        expires: "2026-10-29",
        approved_by: "finley",
      }),
      freeze("tests/t.py::test_untouched", { approved_by: "finley" }),
      freeze("tests/t.py::test_added_self", { approved_by: "agent" }),
      freeze("tests/t.py::test_added_ok", { approved_by: "Security Lead" }),
      freeze("tests/t.py::test_added_unapproved"),
    ];
    repo.write("freeze-ledger.json", ledgerText(head, approval));
    commitAs(AGENT, "agent freezes and extends");
    // The reviewer then edits the extension they approve: now an author of it too.
    head[0] = { ...(head[0] as Freeze), reason: "still order-dependent, see #42" };
    repo.write("freeze-ledger.json", ledgerText(head, approval));
    commitAs(REVIEWER, "reviewer edits the extension");
  });

  it("lists every freeze added, removed, extended and re-opened", async () => {
    const { result } = await runLedgerChangesGate(ctx, { base: "main", today: "2026-10-18" });
    expect(result.ran).toBe(true);
    const changes = result.findings
      .filter((f) => f.code === "ledger-changed")
      .map((f) => [f.testId, (f.details as { change: string }).change, f.severity]);
    expect(changes).toEqual([
      ["tests/t.py::test_added_ok", "added", "info"],
      ["tests/t.py::test_added_self", "added", "info"],
      ["tests/t.py::test_added_unapproved", "added", "info"],
      ["tests/t.py::test_expired", "re-opened", "info"],
      ["tests/t.py::test_extended", "extended", "info"],
      ["tests/t.py::test_removed", "removed", "info"],
      ["tests/t.py::test_reopened", "re-opened", "info"],
    ]);
  });

  it("self-approved: approved by the commit author, by the owner, or not at all", async () => {
    const { result } = await runLedgerChangesGate(ctx, { base: "main", today: "2026-10-18" });
    const self = result.findings
      .filter((f) => f.code === "self-approved")
      .map((f) => [f.testId, f.message]);
    expect(self).toEqual([
      [
        "tests/t.py::test_added_self",
        "the new freeze of tests/t.py::test_added_self is approved by agent, who authored the change (Coding Agent <agent@bots.invalid>), and policy.require_approval is on",
      ],
      [
        "tests/t.py::test_added_unapproved",
        "the new freeze of tests/t.py::test_added_unapproved has no approved_by, and policy.require_approval is on",
      ],
      [
        "tests/t.py::test_extended",
        "the extended freeze of tests/t.py::test_extended is approved by Reviewer, who authored the change (Reviewer <reviewer@example.com>), and policy.require_approval is on",
      ],
      [
        "tests/t.py::test_reopened",
        "the re-opened freeze of tests/t.py::test_reopened is approved by its own owner (finley), and policy.require_approval is on",
      ],
    ]);
  });

  it("refuses an uncommitted ledger change (its author is unknown)", async () => {
    repo.write("freeze-ledger.json", ledgerText([], approval));
    try {
      await expect(
        runLedgerChangesGate(ctx, { base: "main", today: "2026-10-18" }),
      ).rejects.toThrow(/uncommitted changes/);
    } finally {
      repo.git("checkout", "-q", "--", "freeze-ledger.json");
    }
  });

  it("a merge that takes each side's entry authors neither", async () => {
    const merge = track(seedRepo(ledgerText([], approval)));
    merge.git("checkout", "-q", "-b", "alice-work");
    const a = freeze("tests/t.py::test_a", { owner: "alice", approved_by: "bob" });
    const b = freeze("tests/t.py::test_b", { owner: "bob", approved_by: "alice" });
    merge.write("freeze-ledger.json", ledgerText([a], approval));
    merge.git("add", "-A");
    merge.git("commit", "-q", "--author=Alice <alice@example.com>", "-m", "alice freezes a");
    merge.git("checkout", "-q", "-b", "bob-work", "main");
    merge.write("freeze-ledger.json", ledgerText([b], approval));
    merge.git("add", "-A");
    merge.git("commit", "-q", "--author=Bob <bob@example.com>", "-m", "bob freezes b");
    // Both edited the same lines: resolve the conflict by taking both entries.
    try {
      merge.git("merge", "-q", "--no-edit", "alice-work");
    } catch {
      // expected: a content conflict
    }
    merge.write("freeze-ledger.json", ledgerText([a, b], approval));
    merge.git("add", "-A");
    merge.git("commit", "-q", "--no-edit", "--author=Bob <bob@example.com>");
    expect(merge.git("rev-list", "--parents", "-n", "1", "HEAD").trim().split(" ")).toHaveLength(3);

    const mergeBase = merge.git("merge-base", "main", "HEAD").trim();
    const authors = await freezeAuthors(merge.dir, {
      mergeBase,
      head: "HEAD",
      ledgerPath: "freeze-ledger.json",
      parse: (text, label) => parseLedger(JSON.parse(text), label),
    });
    const names = (id: string) => authors.byTestId.get(id)?.map((w) => w.name);
    expect(names("tests/t.py::test_a")).toEqual(["Alice", "Freezegate Test"]);
    expect(names("tests/t.py::test_b")).toEqual(["Bob", "Freezegate Test"]);
    const { result } = await runLedgerChangesGate(
      { root: merge.dir, ledgerPath: merge.path("freeze-ledger.json"), ledgerLabel: "x" },
      { base: "main", today: "2026-10-18" },
    );
    expect(result.findings.filter((f) => f.code === "self-approved")).toEqual([]);
  });
});

describe("ledger changes in a shallow clone of a merge ref", () => {
  /** A PR (alice freezes, carol follows up) merged into a main that moved on; depth 2 of it. */
  function shallowMergeRef(policy: Partial<LedgerPolicy>): { origin: TempRepo; clone: string } {
    const origin = track(seedRepo(ledgerText([], policy)));
    origin.git("checkout", "-q", "-b", "pr");
    origin.write(
      "freeze-ledger.json",
      ledgerText([freeze("tests/t.py::test_a", { owner: "bob", approved_by: "alice" })], policy),
    );
    origin.git("add", "-A");
    origin.git("commit", "-q", "--author=Alice <alice@example.com>", "-m", "alice freezes a");
    origin.write("notes.txt", "unrelated\n");
    origin.git("add", "-A");
    origin.git("commit", "-q", "--author=Carol <carol@example.com>", "-m", "carol follows up");
    origin.git("checkout", "-q", "main");
    origin.write("other.txt", "main moved on\n");
    origin.git("add", "-A");
    origin.git("commit", "-q", "-m", "main moves on");
    // GitHub's refs/pull/N/merge: the target's tip merged with the PR.
    origin.git("checkout", "-q", "-b", "merge");
    origin.git("merge", "-q", "--no-ff", "--no-edit", "pr");
    // fetch-depth: 2 reaches the merge base (the first parent), not the PR's own commits.
    const clone = join(tempDir(), "clone");
    runGit(tmpdir(), [
      "clone",
      "-q",
      "--depth",
      "2",
      "--branch",
      "merge",
      `file://${origin.dir}`,
      clone,
    ]);
    expect(runGit(clone, ["rev-parse", "--is-shallow-repository"]).trim()).toBe("true");
    return { origin, clone };
  }
  const gate = (root: string) =>
    runLedgerChangesGate(
      { root, ledgerPath: join(root, "freeze-ledger.json"), ledgerLabel: "x" },
      { base: "HEAD^1", today: "2026-10-18" },
    );

  it("refuses a range whose commits reach the clone's edge when approval is judged", async () => {
    const { origin, clone } = shallowMergeRef({ require_approval: true });
    const full = await gate(origin.dir);
    expect(full.result.findings.filter((f) => f.code === "self-approved")).toHaveLength(1);
    // Before: Carol's commit read as a root commit, charged with alice's freeze: no finding.
    await expect(gate(clone)).rejects.toThrow(
      /^commit [0-9a-f]{12} of the range is the edge of a shallow clone \(its parents were not fetched\), so who added or changed each freeze cannot be told$/,
    );
  });

  it("reads no authors, and refuses nothing, when approval is not required", async () => {
    const { clone } = shallowMergeRef({});
    const { result } = await gate(clone);
    expect(result.findings.map((f) => f.code)).toEqual(["ledger-changed"]);
  });
});

// ---------------------------------------------------------------------------------------------

describe("impact on the bundled example's real per-test coverage", () => {
  const HALF_UP = "tests/test_billing.py::test_proration_rounds_half_up";
  const FULL = "tests/test_billing.py::test_full_period_charges_everything";
  const REFUND = "tests/test_billing.py::test_refund_of_unused_days";
  let repo: TempRepo;
  beforeAll(() => {
    repo = track(makeDemoRepo());
    repo.write(
      "freeze-ledger.json",
      ledgerText([], {}, [
        {
          id: "prop.billing.half_up",
          check: "tests/props/test_p.py::test_half_up",
          witnessed_by: [HALF_UP],
        },
        {
          id: "prop.billing.full",
          check: "tests/props/test_p.py::test_full",
          witnessed_by: [FULL, REFUND],
        },
      ]),
    );
  });

  it("the half-up test is the only live cover of line 13 and the last witness of a property", () => {
    const r = runCli(["impact", HALF_UP, "--format", "json"], { cwd: repo.dir });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const report = JSON.parse(r.stdout);
    expect(report.files).toEqual([
      { path: "src/billing/proration.py", lines: [13], fixtureOnly: [], ranges: "13" },
    ]);
    expect(report.witnessLoss.map((f: Finding) => [f.code, f.propertyId])).toEqual([
      ["orphaned-property", "prop.billing.half_up"],
    ]);
    const text = runCli(["impact", HALF_UP], { cwd: repo.dir });
    expect(text.status).toBe(0);
    expect(text.stdout).toContain("    src/billing/proration.py: 13\n");
    expect(text.stdout).toContain(
      `orphaned-property: property prop.billing.half_up has no live witness left: the freeze of ${HALF_UP} took its last witness`,
    );
  });

  it("lines shared with another live test are not withdrawn, unless that test is frozen", () => {
    const alone = JSON.parse(
      runCli(["impact", FULL, "--format", "json"], { cwd: repo.dir }).stdout,
    );
    expect(alone.files).toEqual([]);
    expect(alone.witnessLoss).toEqual([]);
    const both = JSON.parse(
      runCli(["impact", FULL, REFUND, "--format", "json"], { cwd: repo.dir }).stdout,
    );
    expect(both.files[0].ranges).toBe("14, 18, 20");
    expect(both.witnessLoss.map((f: Finding) => f.propertyId)).toEqual(["prop.billing.full"]);

    // With REFUND frozen in a ledger, FULL alone is now the only live cover of line 14.
    repo.write("frozen-ledger.json", ledgerText([freeze(REFUND)]));
    const frozen = JSON.parse(
      runCli(["impact", FULL, "--ledger", "frozen-ledger.json", "--format", "json"], {
        cwd: repo.dir,
      }).stdout,
    );
    repo.remove("frozen-ledger.json");
    expect(frozen.files).toEqual([
      { path: "src/billing/proration.py", lines: [14], fixtureOnly: [], ranges: "14" },
    ]);

    // A hand-written glob freeze freezes REFUND as the audit reads it; a freeze of an id
    // that only starts like REFUND's freezes nothing.
    for (const [written, lines] of [
      ["tests/test_billing.py::test_refund_*", [14]],
      ["tests/test_billing.py::test_refund", []],
    ] as const) {
      repo.write("frozen-ledger.json", ledgerText([freeze(written)]));
      const report = JSON.parse(
        runCli(["impact", FULL, "--ledger", "frozen-ledger.json", "--format", "json"], {
          cwd: repo.dir,
        }).stdout,
      );
      repo.remove("frozen-ledger.json");
      expect(
        report.files.flatMap((f: { lines: number[] }) => f.lines),
        written,
      ).toEqual(lines);
    }
  });

  it("reads a quarantine.json as a ledger and says the test is already frozen", () => {
    const r = runCli(["impact", HALF_UP, "--ledger", "quarantine.json"], { cwd: repo.dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`note: already frozen in the ledger: ${HALF_UP}`);
  });

  it("--source-files narrows the files; an unknown test id is exit 2, one line", () => {
    const none = JSON.parse(
      runCli(["impact", HALF_UP, "--source-files", "lib/**", "--format", "json"], {
        cwd: repo.dir,
      }).stdout,
    );
    expect(none.files).toEqual([]);
    expect(none.notes).toContain("no measured file matches the source filter");
    const line = expectRefusal(
      runCli(["impact", "tests/test_billing.py::test_typo"], { cwd: repo.dir }),
      "tests-not-in-data",
    );
    expect(line).toContain("tests/test_billing.py::test_typo is not in the coverage data");
    expect(expectRefusal(runCli(["impact"], { cwd: repo.dir }), "impact-needs-test-ids")).toContain(
      "test ids",
    );
  });
});
