// What a new user meets first with the ledger commands, on real git repositories with the
// built CLI: the older formats' names in migrate, extend's --days and the window's last day,
// check on a ledger with uncommitted changes, freeze's warning when check's deposit gate will
// fail the freeze (real pytest, pytest-cov and Hypothesis with the freezegate plugin), and
// docs/ledger.md's first policy on a project without property tests.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPytestCov } from "../helpers/python.js";

const repos: TempRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
});
function track(repo: TempRepo): TempRepo {
  repos.push(repo);
  return repo;
}

const readLedger = (repo: TempRepo) =>
  JSON.parse(readFileSync(repo.path("freeze-ledger.json"), "utf8")) as {
    freezes: { test_id: string; opened: string; expires: string }[];
  };

describe("ledger migrate names the formats by what they are", () => {
  const FIXTURES = join(REPO_ROOT, "test/fixtures/ledger");
  let repo: TempRepo;
  beforeAll(() => {
    repo = track(makeTempRepo());
    repo.write("quarantine.json", readFileSync(join(FIXTURES, "seed-000-quarantine.json")));
    repo.write("properties.json", readFileSync(join(FIXTURES, "seed-003-properties.json")));
    repo.write(
      "gate/freeze_ledger.json",
      readFileSync(join(FIXTURES, "seed-004-freeze_ledger.json")),
    );
    repo.commit("older formats");
  });

  it("in its output and in the ledger commands' help", () => {
    const r = runCli(["ledger", "migrate"], { cwd: repo.dir });
    expect(r.status).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe(
      "migrated 2 freezes and 2 properties from quarantine.json (quarantine list), properties.json (properties file), gate/freeze_ledger.json (freeze ledger (schema 1)) into freeze-ledger.json",
    );
    const texts = [
      r.stdout,
      runCli(["ledger", "--help"], { cwd: repo.dir }).stdout,
      runCli(["ledger", "migrate", "--help"], { cwd: repo.dir }).stdout,
      runCli(["deposit", "check", "--help"], { cwd: repo.dir }).stdout,
      runCli(["ledger", "check", "--ledger", "gate/freeze_ledger.json"], { cwd: repo.dir }).stdout,
    ];
    for (const text of texts) expect(text).not.toMatch(/seed/i);
    expect(texts[2]).toContain('quarantine list             {"frozen": [...]}');
  });

  it("the JSON reports keep their format ids", () => {
    const r = runCli(
      ["ledger", "check", "--ledger", "gate/freeze_ledger.json", "--format", "json"],
      { cwd: repo.dir },
    );
    expect(JSON.parse(r.stdout).ledger.format).toBe("seed-004-ledger");
  });
});

describe("extend: --days counts from the expiry, and the window's last day is named", () => {
  const ID = "tests/test_x.py::test_a";
  let repo: TempRepo;
  beforeAll(() => {
    repo = track(makeTempRepo());
    repo.write("collected.txt", `${ID}\ntests/test_x.py::test_b\n\n2 tests collected\n`);
    repo.commit("init");
  });
  const freeze = (days: string[]) => {
    repo.remove("freeze-ledger.json");
    const r = runCli(
      [
        "freeze",
        ID,
        ...["--owner", "o", "--reason", "r", "--invariant", "i"],
        ...["--property", "tests/test_x.py::test_b", "--reused", "--collected", "collected.txt"],
        ...["--today", "2026-10-12", ...days],
      ],
      { cwd: repo.dir },
    );
    expect(r.status, r.stderr).toBe(0);
  };
  const extend = (days: string, today: string) =>
    runCli(["extend", ID, "--days", days, "--today", today], { cwd: repo.dir });

  it("a freeze made for the whole window cannot be extended, whatever --days says", () => {
    freeze([]);
    const before = readFileSync(repo.path("freeze-ledger.json"), "utf8");
    for (const days of ["1", "14", "15"]) {
      const r = extend(days, "2026-10-12");
      expect(r.status, days).toBe(1);
      expect(r.stdout).toBe("");
      expect(r.stderr).toBe(
        `freezegate: refused to extend: the freeze of ${ID} cannot be extended: it expires on 2026-10-26, and the policy's window of 14 days from its opening on 2026-10-12 allows no expiry later than 2026-10-26 (fix: unfreeze it and freeze it again with a fresh review (freezegate unfreeze ${ID}, then freezegate freeze ${ID} ...), or fix the test and unfreeze it)\n`,
      );
    }
    expect(readFileSync(repo.path("freeze-ledger.json"), "utf8")).toBe(before);
  });

  it("moves the expiry N days past the current one; too many days names the most allowed", () => {
    freeze(["--days", "5"]);
    const ok = extend("3", "2026-10-13");
    expect(ok.stderr).toBe("");
    expect(ok.stdout).toBe(
      `extended ${ID} by 3 days, from 2026-10-17 to 2026-10-20 (opened 2026-10-12, 8 of 14 days) in freeze-ledger.json\n`,
    );
    expect(readLedger(repo).freezes[0]?.expires).toBe("2026-10-20");
    const over = extend("7", "2026-10-13");
    expect(over.status).toBe(1);
    expect(over.stderr).toBe(
      `freezegate: refused to extend: extending ${ID} by 7 days to 2026-10-27 (counted from its expiry 2026-10-20, not from today) goes past 2026-10-26, the latest expiry its window allows (opened 2026-10-12, max_window_days 14) (fix: pass --days 6 or fewer; past 2026-10-26, unfreeze it and freeze it again with a fresh review (freezegate unfreeze ${ID}, then freezegate freeze ${ID} ...), or fix the test and unfreeze it)\n`,
    );
    // The fix's --days works.
    expect(extend("6", "2026-10-13").status).toBe(0);
    expect(readLedger(repo).freezes[0]?.expires).toBe("2026-10-26");
  });

  it("freeze --base naming no commit is exit 2, and nothing is written", () => {
    freeze([]);
    const before = readFileSync(repo.path("freeze-ledger.json"), "utf8");
    const r = runCli(
      [
        "freeze",
        "tests/test_x.py::test_b",
        ...["--owner", "o", "--reason", "r", "--invariant", "i", "--property", ID],
        ...["--collected", "collected.txt", "--base", "no-such-branch"],
      ],
      { cwd: repo.dir },
    );
    expect(expectOneLineError(r)).toMatch(/no-such-branch/);
    expect(readFileSync(repo.path("freeze-ledger.json"), "utf8")).toBe(before);
  });

  it("--help says where --days counts from", () => {
    const help = runCli(["extend", "--help"], { cwd: repo.dir }).stdout;
    expect(help).toContain(
      "how many days to add to the freeze's current expiry (not counted from today",
    );
    expect(help).toContain("the latest allowed\nexpiry is opened + max_window_days");
  });
});

describe("check on a ledger with uncommitted changes", () => {
  const FROZEN = "tests/test_billing.py::test_refund_of_unused_days";
  let repo: TempRepo;
  beforeAll(() => {
    repo = track(makeDemoRepo());
    repo.remove("quarantine.json");
    repo.write(
      "freeze-ledger.json",
      `${JSON.stringify({ version: 1, policy: { blocking: ["ledger-changes"], require_approval: true } })}\n`,
    );
    repo.commit("the ledger");
  });
  const freezeNow = (approver: string) => {
    repo.git("checkout", "-q", "--", "freeze-ledger.json");
    const r = runCli(
      [
        "freeze",
        FROZEN,
        ...["--owner", "finley", "--reason", "r", "--invariant", "i", "--reused"],
        ...["--property", "tests/test_billing.py::test_full_period_charges_everything"],
        ...["--approved-by", approver, "--today", "2026-11-25"],
      ],
      { cwd: repo.dir },
    );
    expect(r.status, r.stderr).toBe(0);
  };
  const gate = (stdout: string) =>
    (
      JSON.parse(stdout) as {
        gates: { gate: string; passed: boolean; notes: string[]; findings: { code: string }[] }[];
      }
    ).gates.find((g) => g.gate === "ledger-changes");

  it("refuses them with the exact command that tries the check on them", () => {
    freezeNow("Freezegate Test");
    const refused = runCli(
      ["check", "--base", "base", "--today", "2026-11-25", "--format", "json"],
      { cwd: repo.dir },
    );
    const line = expectRefusal(refused, "ledger-uncommitted");
    expect(line).toMatch(
      /^the ledger freeze-ledger\.json has uncommitted changes, .*run freezegate check --base base --today 2026-11-25 --format json --uncommitted\)$/,
    );
    // The command it gives runs, and charges the uncommitted freeze to whoever commits next
    // (the repository's user.name approved it himself).
    const command = /run (freezegate check [^)]*)\)$/.exec(line)?.[1] as string;
    const tried = runCli(command.split(" ").slice(1), { cwd: repo.dir });
    expect(tried.status).toBe(1);
    const changes = gate(tried.stdout);
    expect(changes?.findings.map((f) => f.code)).toContain("self-approved");
    expect(changes?.notes).toContain(
      "the ledger freeze-ledger.json has uncommitted changes: judged as the work tree has them, as if you committed them now (--uncommitted); the check of the commits is the one that counts",
    );
  });

  it("an approval by someone else passes the try-out", () => {
    freezeNow("Reviewer");
    const tried = runCli(
      ["check", "--base", "base", "--today", "2026-11-25", "--format", "json", "--uncommitted"],
      { cwd: repo.dir },
    );
    expect(tried.stderr).toBe("");
    expect(tried.status).toBe(0);
    expect(gate(tried.stdout)?.passed).toBe(true);
  });
});
// A project without property tests, then one property test: real pytest-cov data, the plugin's
// samples artifact and applied record, the built CLI.
const PLUGIN = join(REPO_ROOT, "integrations/pytest");
const ADD = "tests/test_calc.py::test_add";
const SUB = "tests/test_calc.py::test_sub";
const MUL = "tests/test_calc.py::test_mul";
const COMMUTES = "tests/test_props.py::test_add_commutes";

function pythonProject(ledger: object): TempRepo {
  const repo = track(makeTempRepo());
  repo.write("app/__init__.py", "");
  repo.write(
    "app/calc.py",
    "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n\n\ndef mul(a, b):\n    return a * b\n",
  );
  repo.write("tests/__init__.py", "");
  repo.write(
    "tests/test_calc.py",
    [
      "from app.calc import add, mul, sub",
      "",
      "",
      "def test_add():",
      "    assert add(1, 2) == 3",
      "",
      "",
      "def test_sub():",
      "    assert sub(3, 2) == 1",
      "",
      "",
      "def test_mul():",
      "    assert mul(2, 3) == 6",
      "",
    ].join("\n"),
  );
  repo.write("pytest.ini", "[pytest]\ntestpaths = tests\naddopts = -p freezegate_pytest\n");
  repo.write(".gitignore", ".coverage\n.freezegate/\n");
  repo.write("freeze-ledger.json", `${JSON.stringify(ledger, null, 2)}\n`);
  repo.commit("a small project and its ledger");
  repo.git("checkout", "-q", "-b", "work");
  return repo;
}

/** pytest with per-test contexts and the plugin (pytest.ini loads it), on the freezes' day. */
function pytest(repo: TempRepo): void {
  runPytestCov(repo.dir, [], { PYTHONPATH: PLUGIN, FREEZEGATE_NOW: "2026-10-12T12:00:00Z" });
}

function freezeArgs(testId: string, property: string): string[] {
  return [
    "freeze",
    testId,
    ...["--owner", "o", "--reason", "flaky", "--invariant", "arithmetic holds"],
    ...["--property", property, "--coverage", ".coverage", "--today", "2026-10-12"],
  ];
}

function check(repo: TempRepo) {
  const r = runCli(
    [
      "check",
      ...["--base", "main", "--today", "2026-10-12"],
      ...["--samples", ".freezegate/samples.json", "--format", "json"],
    ],
    { cwd: repo.dir },
  );
  expect(r.stderr).toBe("");
  return {
    status: r.status,
    report: JSON.parse(r.stdout) as {
      failedGates: string[];
      gates: {
        gate: string;
        blocking: boolean;
        passed: boolean;
        findings: { code: string; testId?: string }[];
      }[];
    },
  };
}

const depositCodes = (report: ReturnType<typeof check>["report"]) =>
  report.gates
    .find((g) => g.gate === "deposit")
    ?.findings.map((f) => [f.code, f.testId])
    .sort();

describePython("freeze says when check's deposit gate will fail the freeze", () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = pythonProject({ version: 1 });
    // The patch's property test, not committed yet: new in the patch.
    repo.write(
      "tests/test_props.py",
      [
        "from hypothesis import given, strategies as st",
        "",
        "from app.calc import add",
        "",
        "",
        "@given(st.integers(), st.integers())",
        "def test_add_commutes(a, b):",
        "    assert add(a, b) == add(b, a)",
        "",
      ].join("\n"),
    );
    pytest(repo);
  });

  it("a plain unit test as the property: recorded (exit 0) with one warning line naming both failures", () => {
    const r = runCli([...freezeArgs(ADD, SUB), "--base", "main"], { cwd: repo.dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      `froze ${ADD} until 2026-10-26 (owner o, opened 2026-10-12) in freeze-ledger.json\n`,
    );
    expect(r.stderr.split("\n")).toHaveLength(2);
    expect(r.stderr).toBe(
      `freezegate: warning: recorded, but check's deposit gate, which policy.blocking lists, will fail this freeze: deposit-not-in-diff: tests/test_calc.py is changed neither in main...HEAD nor in the work tree (the property must be new or changed in the patch that adds the freeze; pass --reused if it already existed); deposit-too-few-inputs: the samples artifact .freezegate/samples.json has no count for ${SUB}: it is not a property test the pytest plugin counted (the plugin counts the distinct inputs of Hypothesis @given tests and of freezegate_pytest.record(value) calls, in tests that passed), and policy.min_distinct is 8 (fix: deposit a property test of the invariant that runs on at least 8 distinct inputs, a Hypothesis @given test or one calling freezegate_pytest.record(value), in this patch; until the project has property tests, leave "deposit" out of policy.blocking: docs/ledger.md)\n`,
    );
    expect(readLedger(repo).freezes.map((f) => f.test_id)).toEqual([ADD]);
  });

  it("a new Hypothesis property of the patch: recorded without a word on stderr", () => {
    const r = runCli(freezeArgs(MUL, COMMUTES), { cwd: repo.dir });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
  });

  it("check then fails exactly the freeze freeze warned about", () => {
    repo.commit("freeze two tests, one with a property test");
    pytest(repo);
    const { status, report } = check(repo);
    expect(status).toBe(1);
    expect(report.failedGates).toEqual(["deposit"]);
    expect(depositCodes(report)).toEqual([
      ["deposit-not-in-diff", ADD],
      ["deposit-too-few-inputs", ADD],
    ]);
  });
});

describePython("docs/ledger.md's first policy on a project without property tests", () => {
  it("freeze does not warn, and check passes with the deposit findings reported, not blocking", () => {
    const doc = readFileSync(join(REPO_ROOT, "docs/ledger.md"), "utf8");
    const step1 = /## Step 1[^\n]*\n[\s\S]*?```json\n([\s\S]*?)```/.exec(doc)?.[1];
    expect(step1).toBeDefined();
    const repo = pythonProject(JSON.parse(step1 as string));
    pytest(repo);
    const frozen = runCli(freezeArgs(ADD, SUB), { cwd: repo.dir });
    expect(frozen.status).toBe(0);
    expect(frozen.stderr).toBe("");
    repo.commit("freeze a flaky test");
    pytest(repo);
    const { status, report } = check(repo);
    expect(report.failedGates).toEqual([]);
    expect(status).toBe(0);
    const deposit = report.gates.find((g) => g.gate === "deposit");
    expect([deposit?.blocking, deposit?.passed]).toEqual([false, false]);
    expect(depositCodes(report)).toEqual([
      ["deposit-not-in-diff", ADD],
      ["deposit-too-few-inputs", ADD],
    ]);
  });
});
