// The ledger commands end to end: the built CLI on real temporary git repositories. The
// seeds' example files (test/fixtures/ledger) are the inputs; known tests come from
// collected-ids files, from the bundled example's real coverage data, and (when Python is
// installed) from real `pytest --collect-only -q` output and real pytest-cov data.

import { type ChildProcess, spawn } from "node:child_process";
import {
  copyFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { hostname } from "node:os";
import { join } from "node:path";
import { afterAll, beforeEach, describe, expect, it } from "vitest";
import {
  CLI,
  type CliResult,
  DEPOSIT_WARNING,
  expectOneLineError,
  expectRefusal,
  overrideArgs,
  REPO_ROOT,
  runCli,
} from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import { isolatedGitEnv, makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPython } from "../helpers/python.js";
import { assertMatchesSchema } from "../helpers/schema.js";

const FIXTURES = join(REPO_ROOT, "test/fixtures/ledger");

/** The tests the properties example's and the freeze-ledger example's examples name, as `pytest --collect-only -q` prints. */
const SEED_TESTS = [
  "tests/properties/test_ledger.py::test_balance_never_negative",
  "tests/properties/test_ledger.py::test_rejected_withdrawal_is_a_noop",
  "tests/test_ledger.py::test_overdraft_rejected",
  "tests/test_ledger.py::test_withdraw_more_than_balance",
  "tests/test_ledger.py::test_deposit_adds",
  "tests/test_billing.py::test_proration_rounding",
  "tests/props/test_proration_props.py::test_monotonic_in_period",
];
const COLLECTED = `${SEED_TESTS.join("\n")}\n\n${SEED_TESTS.length} tests collected in 0.02s\n`;

const repos: TempRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
});

function seedRepo(): TempRepo {
  const repo = makeTempRepo();
  repos.push(repo);
  repo.write("collected.txt", COLLECTED);
  repo.write("README.md", "seed repo\n");
  repo.commit("init");
  return repo;
}

function copyFixture(repo: TempRepo, name: string, to: string): void {
  repo.write(to, readFileSync(join(FIXTURES, name)));
}

const read = (repo: TempRepo, path = "freeze-ledger.json") => readFileSync(repo.path(path), "utf8");

/** Parsed and checked against the published schema: every ledger we write must match it. */
function ledgerOf(repo: TempRepo, path = "freeze-ledger.json") {
  const doc = JSON.parse(read(repo, path));
  assertMatchesSchema("ledger.schema.json", doc);
  return doc as {
    freezes: { test_id: string; opened: string; expires: string; owner: string }[];
    properties: { id: string }[];
    policy: { max_window_days: number };
  };
}

function freezeArgs(testId: string, extra: string[] = []): string[] {
  return overrideArgs(
    [
      "freeze",
      testId,
      "--owner",
      "finley",
      "--reason",
      "order-dependent",
      "--invariant",
      "balance never negative",
      "--property",
      "tests/properties/test_ledger.py::test_balance_never_negative",
      "--collected",
      "collected.txt",
      "--today",
      "2026-10-12",
    ],
    extra,
  );
}

/** No lock and no temporary file left next to the ledger. */
function expectNoDebris(repo: TempRepo): void {
  const debris = readdirSync(repo.dir).filter((n) => n.includes(".lock") || n.endsWith(".tmp"));
  expect(debris).toEqual([]);
}

describe("freezegate ledger check", () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = seedRepo();
    copyFixture(repo, "seed-004-freeze_ledger.json", "gate/freeze_ledger.json");
  });

  it("passes the freeze-ledger example's proration freeze on the example's own --today, fails it once expired", () => {
    const args = [
      "ledger",
      "check",
      "--ledger",
      "gate/freeze_ledger.json",
      "--collected",
      "collected.txt",
    ];
    const ok = runCli([...args, "--today", "2026-10-18"], { cwd: repo.dir });
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(0);
    expect(ok.stdout).toBe(
      [
        `ledger gate/freeze_ledger.json (freeze ledger (schema 1)): 1 freeze, 0 properties; today is 2026-10-18 (UTC)`,
        `known tests: 7 tests from ${repo.path("collected.txt")}`,
        "PASS: the ledger's shape gate found no problem",
        "",
      ].join("\n"),
    );
    // The last day still applies; the day after is an error, not a warning.
    expect(runCli([...args, "--today", "2026-10-26"], { cwd: repo.dir }).status).toBe(0);
    const late = runCli([...args, "--today", "2026-10-27"], { cwd: repo.dir });
    expect(late.status).toBe(1);
    expect(late.stdout).toContain(
      "error: expired: the freeze of tests/test_billing.py::test_proration_rounding expired on 2026-10-26 (today is 2026-10-27)",
    );
    expect(late.stdout).toMatch(/^FAIL: the ledger's shape gate found 1 error$/m);
  });

  it("judges expiry on the UTC date only, in any time zone (fake clock around midnight UTC)", () => {
    const args = ["ledger", "check", "--ledger", "gate/freeze_ledger.json"];
    const zones = [
      "Pacific/Kiritimati",
      "America/Adak",
      "Pacific/Pago_Pago",
      "Asia/Kolkata",
      "UTC",
    ];
    for (const TZ of zones) {
      // 23:30 UTC on the last day: in Kiritimati (UTC+14) it is already the 27th locally.
      const before = runCli(args, {
        cwd: repo.dir,
        env: { TZ, FREEZEGATE_NOW: "2026-10-26T23:30:00Z" },
      });
      expect(before.status, `${TZ} before`).toBe(0);
      expect(before.stdout).toContain("today is 2026-10-26 (UTC)");
      // 00:30 UTC the next day: in Adak (UTC-10) it is still the 26th locally.
      const after = runCli(args, {
        cwd: repo.dir,
        env: { TZ, FREEZEGATE_NOW: "2026-10-27T00:30:00Z" },
      });
      expect(after.status, `${TZ} after`).toBe(1);
      expect(after.stdout).toContain("today is 2026-10-27 (UTC)");
    }
    // The same instant written with a local offset is the same UTC day.
    const offset = runCli(args, {
      cwd: repo.dir,
      env: { TZ: "Pacific/Kiritimati", FREEZEGATE_NOW: "2026-10-27T13:30:00+14:00" },
    });
    expect(offset.status).toBe(0);
  });

  it("defaults to the real clock's UTC date", () => {
    const before = new Date().toISOString().slice(0, 10);
    const r = runCli(["ledger", "check", "--ledger", "gate/freeze_ledger.json"], {
      cwd: repo.dir,
      env: { TZ: "Pacific/Kiritimati" },
    });
    const after = new Date().toISOString().slice(0, 10);
    const day = /today is (\d{4}-\d{2}-\d{2}) \(UTC\)/.exec(r.stdout)?.[1];
    expect([before, after]).toContain(day);
  });

  it("says when unknown tests were not judged, and judges them with --collected", () => {
    copyFixture(repo, "seed-003-properties.json", "properties.json");
    const blind = runCli(["ledger", "check", "--ledger", "properties.json"], { cwd: repo.dir });
    expect(blind.status).toBe(0);
    expect(blind.stdout).toMatch(
      /^known tests: none \(no --collected file .*unknown-test was not judged/m,
    );
    repo.write("short.txt", "tests/test_ledger.py::test_withdraw_more_than_balance\n");
    const r = runCli(
      ["ledger", "check", "--ledger", "properties.json", "--collected", "short.txt"],
      { cwd: repo.dir },
    );
    expect(r.status).toBe(1);
    expect(r.stdout.split("\n").filter((l) => l.startsWith("error: unknown-test"))).toEqual([
      "error: unknown-test: property prop.ledger.balance_non_negative: its check tests/properties/test_ledger.py::test_balance_never_negative is not a test the suite has",
      "error: unknown-test: property prop.ledger.balance_non_negative: its witness tests/test_ledger.py::test_overdraft_rejected is not a test the suite has",
      "error: unknown-test: property prop.ledger.rejected_is_noop: its check tests/properties/test_ledger.py::test_rejected_withdrawal_is_a_noop is not a test the suite has",
      "error: unknown-test: property prop.ledger.rejected_is_noop: its witness tests/test_ledger.py::test_overdraft_rejected is not a test the suite has",
    ]);
  });

  it("--format json: the shape gate's findings as data", () => {
    const r = runCli(
      [
        "ledger",
        "check",
        "--ledger",
        "gate/freeze_ledger.json",
        "--today",
        "2026-10-30",
        "--format",
        "json",
      ],
      { cwd: repo.dir },
    );
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report).toMatchObject({
      schema: "freezegate/ledger-check",
      schemaVersion: 1,
      ledger: { path: "gate/freeze_ledger.json", format: "seed-004-ledger", freezes: 1 },
      today: "2026-10-30",
      knownTests: null,
      passed: false,
      exitCode: 1,
      // As check's gates[] (docs/json-contract.md): passed and notes too.
      gate: { gate: "shape", blocking: true, ran: true, passed: false },
    });
    expect(report.gate.notes).toEqual([
      "judged on 2026-10-30 (UTC)",
      expect.stringMatching(/^unknown-test not judged: /),
    ]);
    expect(report.gate.findings.map((f: { code: string }) => f.code)).toEqual(["expired"]);
  });

  it("bad input: exit 2, one line naming the file and what is wrong", () => {
    const cases: [string, string, RegExp][] = [
      [
        "broken.json",
        "{ not json",
        /^freezegate: error\[json-invalid\]: ledger .*broken\.json is not valid JSON/,
      ],
      [
        "v2.json",
        '{"version": 2, "freezes": []}',
        /v2\.json: \$\.version is 2; this freezegate reads ledger version 1 \(fix: upgrade freezegate/,
      ],
      [
        "unknown.json",
        '{"version": 1, "freezes": [{"test_id": "t", "ownr": "x"}]}',
        /unknown\.json: \$\.freezes\[0\] has an unknown key "ownr"/,
      ],
      [
        "escape.json",
        '{"version": 1, "policy": {"generator_lock": ["../secrets.py"]}}',
        /escape\.json: \$\.policy\.generator_lock\[0\] "\.\.\/secrets\.py" escapes the repository/,
      ],
      ["list.json", "[]", /list\.json: \$ is a list, not an object/],
    ];
    for (const [name, text, message] of cases) {
      repo.write(name, text);
      const r = runCli(["ledger", "check", "--ledger", name], { cwd: repo.dir });
      expect(expectOneLineError(r), name).toMatch(message);
    }
    expect(
      expectRefusal(
        runCli(["ledger", "check", "--ledger", "missing.json"], { cwd: repo.dir }),
        "file-not-found",
      ),
    ).toMatch(`ledger not found: ${repo.path("missing.json")} (fix: check --ledger `);
    for (const day of ["2026-02-30", "2026-10-1", "yesterday"]) {
      const r = runCli(["ledger", "check", "--ledger", "gate/freeze_ledger.json", "--today", day], {
        cwd: repo.dir,
      });
      expect(expectOneLineError(r)).toContain(`--today "${day}" is not a real day`);
    }
    // Values JavaScript's Date reads as some day (2001-01-01 for "1") are no instants.
    for (const now of ["not a time", "1", "2026/10/20", "2026-02-30"]) {
      const clock = runCli(["ledger", "check", "--ledger", "gate/freeze_ledger.json"], {
        cwd: repo.dir,
        env: { FREEZEGATE_NOW: now },
      });
      expect(expectRefusal(clock, "bad-freezegate-now")).toMatch(`FREEZEGATE_NOW "${now}"`);
    }
    repo.write("ids.txt", "tests/test_a.py: 3\n");
    const qq = runCli(
      ["ledger", "check", "--ledger", "gate/freeze_ledger.json", "--collected", "ids.txt"],
      { cwd: repo.dir },
    );
    expect(expectOneLineError(qq)).toMatch(/per-file counts/);
  });
});

describe("freezegate ledger migrate", () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = seedRepo();
    copyFixture(repo, "seed-000-quarantine.json", "quarantine.json");
    copyFixture(repo, "seed-003-properties.json", "properties.json");
    copyFixture(repo, "seed-004-freeze_ledger.json", "gate/freeze_ledger.json");
  });

  it("merges the three seeds' files found in the root and gate/ into one ledger", () => {
    const r = runCli(["ledger", "migrate"], { cwd: repo.dir });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      [
        "migrated 2 freezes and 2 properties from quarantine.json (quarantine list), properties.json (properties file), gate/freeze_ledger.json (freeze ledger (schema 1)) into freeze-ledger.json",
        "1 freeze carries only a test id: fill in owner, reason, dates, invariant and property (freezegate ledger check lists them)",
        "",
      ].join("\n"),
    );
    const ledger = ledgerOf(repo);
    expect(ledger.freezes.map((f) => [f.test_id, f.owner])).toEqual([
      ["tests/test_billing.py::test_proration_rounding", "finley"],
      ["tests/test_ledger.py::test_withdraw_more_than_balance", ""],
    ]);
    expect(ledger.properties.map((p) => p.id)).toEqual([
      "prop.ledger.balance_non_negative",
      "prop.ledger.rejected_is_noop",
    ]);
    // The source files are left alone.
    expect(read(repo, "quarantine.json")).toBe(
      readFileSync(join(FIXTURES, "seed-000-quarantine.json"), "utf8"),
    );
    // The id-only freeze is what ledger check then reports.
    const check = runCli(
      ["ledger", "check", "--today", "2026-10-18", "--collected", "collected.txt"],
      {
        cwd: repo.dir,
      },
    );
    expect(check.status).toBe(1);
    expect(check.stdout).toContain(
      "error: missing-field: the freeze of tests/test_ledger.py::test_withdraw_more_than_balance has no reason, owner, opened, expires, invariant, compensating_property",
    );
    expectNoDebris(repo);
  });

  it("refuses to overwrite an existing ledger unless --force", () => {
    expect(runCli(["ledger", "migrate"], { cwd: repo.dir }).status).toBe(0);
    const first = read(repo);
    const again = runCli(["ledger", "migrate", "--from", "properties.json"], { cwd: repo.dir });
    expect(expectOneLineError(again)).toMatch(
      /the ledger freeze-ledger\.json already exists .*--force/,
    );
    expect(read(repo)).toBe(first);
    const forced = runCli(["ledger", "migrate", "--from", "properties.json", "--force"], {
      cwd: repo.dir,
    });
    expect(forced.status).toBe(0);
    expect(ledgerOf(repo).freezes).toEqual([]);
  });

  it("refuses conflicting duplicates and writes nothing", () => {
    const other = JSON.parse(readFileSync(join(FIXTURES, "seed-004-freeze_ledger.json"), "utf8"));
    other.freezes[0].expires = "2026-10-20";
    repo.write("other_ledger.json", JSON.stringify(other));
    const r = runCli(
      ["ledger", "migrate", "--from", "gate/freeze_ledger.json", "--from", "other_ledger.json"],
      { cwd: repo.dir },
    );
    expect(expectRefusal(r, "ledger-migrate-conflict")).toMatch(
      'the freeze of tests/test_billing.py::test_proration_rounding differs between gate/freeze_ledger.json and other_ledger.json (expires: "2026-10-26" vs "2026-10-20")',
    );
    expect(existsSync(repo.path("freeze-ledger.json"))).toBe(false);
    expectNoDebris(repo);
  });

  it("says so when there is nothing to migrate, and refuses a malformed source", () => {
    const empty = seedRepo();
    expect(expectOneLineError(runCli(["ledger", "migrate"], { cwd: empty.dir }))).toMatch(
      /nothing to migrate: none of quarantine\.json, properties\.json, freeze_ledger\.json/,
    );
    empty.write("quarantine.json", '{"frozen": ["tests/a.py::t"], "note": "x"}');
    expect(expectOneLineError(runCli(["ledger", "migrate"], { cwd: empty.dir }))).toMatch(
      /quarantine\.json: \$ has an unknown key "note"/,
    );
    expect(existsSync(empty.path("freeze-ledger.json"))).toBe(false);
  });
});

describe("freezegate freeze", () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = seedRepo();
    // Start from the properties example's properties: rejected_is_noop has a single witness.
    copyFixture(repo, "seed-003-properties.json", "properties.json");
    expect(
      runCli(["ledger", "migrate", "--from", "properties.json"], { cwd: repo.dir }).status,
    ).toBe(0);
  });

  it("records a freeze: opened today, expires after the policy's window, stable file", () => {
    const r = runCli(freezeArgs("tests/test_ledger.py::test_withdraw_more_than_balance"), {
      cwd: repo.dir,
    });
    expect(r.stderr).toMatch(DEPOSIT_WARNING);
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      "froze tests/test_ledger.py::test_withdraw_more_than_balance until 2026-10-26 (owner finley, opened 2026-10-12) in freeze-ledger.json\n",
    );
    expect(ledgerOf(repo).freezes).toEqual([
      {
        test_id: "tests/test_ledger.py::test_withdraw_more_than_balance",
        reason: "order-dependent",
        owner: "finley",
        opened: "2026-10-12",
        expires: "2026-10-26",
        invariant: "balance never negative",
        compensating_property: "tests/properties/test_ledger.py::test_balance_never_negative",
        reused_property: false,
      },
    ]);
    const shorter = runCli(
      freezeArgs("tests/test_ledger.py::test_deposit_adds", [
        "--days",
        "3",
        "--reused",
        "--approved-by",
        "sam",
      ]),
      {
        cwd: repo.dir,
      },
    );
    expect(shorter.status).toBe(0);
    const added = ledgerOf(repo).freezes.find((f) => f.test_id.endsWith("test_deposit_adds"));
    expect(added).toMatchObject({
      expires: "2026-10-15",
      reused_property: true,
      approved_by: "sam",
    });
    expectNoDebris(repo);
  });

  it("refuses to take a property's last witness, naming the property and the freeze", () => {
    const before = read(repo);
    const r = runCli(freezeArgs("tests/test_ledger.py::test_overdraft_rejected"), {
      cwd: repo.dir,
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      "freezegate: refused to freeze tests/test_ledger.py::test_overdraft_rejected: property prop.ledger.rejected_is_noop has no live witness left: the freeze of tests/test_ledger.py::test_overdraft_rejected took its last witness (fix: give the property another live witness in its witnessed_by first; or pass --force to record the freeze anyway)\n",
    );
    expect(read(repo)).toBe(before);
    // balance_non_negative keeps test_overdraft_rejected once the other witness is frozen...
    expect(
      runCli(freezeArgs("tests/test_ledger.py::test_withdraw_more_than_balance"), { cwd: repo.dir })
        .status,
    ).toBe(0);
    // ...so freezing overdraft_rejected now orphans both properties; --force records it.
    const forced = runCli(
      freezeArgs("tests/test_ledger.py::test_overdraft_rejected", ["--force"]),
      {
        cwd: repo.dir,
      },
    );
    expect(forced.status).toBe(0);
    expect(forced.stdout.split("\n")[1]).toBe(
      "recorded with --force; it withdrew: property prop.ledger.balance_non_negative has no live witness left: the freezes of tests/test_ledger.py::test_overdraft_rejected, tests/test_ledger.py::test_withdraw_more_than_balance took every witness; property prop.ledger.rejected_is_noop has no live witness left: the freeze of tests/test_ledger.py::test_overdraft_rejected took its last witness",
    );
    expect(ledgerOf(repo).freezes).toHaveLength(2);
  });

  it("refuses an unknown test or property, and an already frozen test", () => {
    const before = read(repo);
    const typo = runCli(freezeArgs("tests/test_ledger.py::test_overdraft_rejectd"), {
      cwd: repo.dir,
    });
    expect(typo.status).toBe(1);
    expect(typo.stderr).toMatch(
      /^freezegate: refused to freeze .*: the test tests\/test_ledger\.py::test_overdraft_rejectd is not a test the suite has \(fix: check the ids/,
    );
    const prop = runCli(
      freezeArgs("tests/test_ledger.py::test_deposit_adds", [
        "--property",
        "tests/props/test_nope.py::t",
      ]),
      { cwd: repo.dir },
    );
    expect(prop.status).toBe(1);
    expect(prop.stderr).toContain(
      "the compensating property tests/props/test_nope.py::t is not a test the suite has",
    );
    expect(read(repo)).toBe(before);
    expect(
      runCli(freezeArgs("tests/test_ledger.py::test_deposit_adds"), { cwd: repo.dir }).status,
    ).toBe(0);
    const twice = runCli(freezeArgs("tests/test_ledger.py::test_deposit_adds", ["--force"]), {
      cwd: repo.dir,
    });
    expect(twice.status).toBe(1);
    expect(twice.stderr).toMatch(
      /is already frozen \(until 2026-10-26\) \(fix: .*freezegate extend/,
    );
    // A frozen test does not run, so it cannot be the deposit of another freeze.
    const frozenProperty = runCli(
      freezeArgs("tests/test_billing.py::test_proration_rounding", [
        "--property",
        "tests/test_ledger.py::test_deposit_adds",
      ]),
      { cwd: repo.dir },
    );
    expect(frozenProperty.status).toBe(1);
    expect(frozenProperty.stderr).toContain(
      "the compensating property tests/test_ledger.py::test_deposit_adds is itself frozen, so it does not run",
    );
    const itself = runCli(
      freezeArgs("tests/test_ledger.py::test_deposit_adds", [
        "--property",
        "tests/test_ledger.py::test_deposit_adds",
      ]),
      { cwd: repo.dir },
    );
    expect(expectRefusal(itself, "property-is-frozen-test")).toMatch(
      /^tests\/test_ledger\.py::test_deposit_adds cannot be its own compensating property/,
    );
    expect(ledgerOf(repo).freezes).toHaveLength(1);
  });

  it("without known tests it refuses unless --force, saying how to provide them", () => {
    const args = freezeArgs("tests/test_ledger.py::test_deposit_adds").filter(
      (a) => a !== "--collected" && a !== "collected.txt",
    );
    const r = runCli(args, { cwd: repo.dir });
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(
      /cannot tell whether tests\/test_ledger\.py::test_deposit_adds is a test .*\(fix: pass --collected FILE .*--coverage PATH.*or pass --force/,
    );
    const forced = runCli([...args, "--force"], { cwd: repo.dir });
    expect(forced.status).toBe(0);
    expect(forced.stdout).toMatch(/recorded with --force; it withdrew: freezegate cannot tell/);
  });

  it("usage errors: exit 2, nothing written", () => {
    const before = read(repo);
    const id = "tests/test_ledger.py::test_deposit_adds";
    const cases: [string[], string, RegExp][] = [
      [
        freezeArgs(id, ["--days", "15"]),
        "days-over-policy-window",
        /--days 15 .* window of 14 days/,
      ],
      [freezeArgs(id, ["--days", "0"]), "bad-count", /--days "0"/],
      [freezeArgs(id, ["--days", "2.5"]), "bad-count", /--days "2\.5"/],
      [
        freezeArgs(id).filter((a, i, all) => a !== "--owner" && all[i - 1] !== "--owner"),
        "freeze-needs-field",
        /--owner/,
      ],
      [freezeArgs("tests/test_ledger.py::*"), "not-one-test-id", /"tests\/test_ledger\.py::\*"/],
      [["freeze", "--owner", "x"], "needs-one-test-id", /which test\?/],
      [freezeArgs(id, ["--today", "2026-13-01"]), "bad-today", /"2026-13-01"/],
    ];
    for (const [args, code, field] of cases) {
      expect(expectRefusal(runCli(args, { cwd: repo.dir }), code), args.join(" ")).toMatch(field);
    }
    expect(read(repo)).toBe(before);
  });

  it("does not rewrite a seed-format file in place; it says to migrate", () => {
    copyFixture(repo, "seed-004-freeze_ledger.json", "gate/freeze_ledger.json");
    const before = read(repo, "gate/freeze_ledger.json");
    const r = runCli(
      freezeArgs("tests/test_ledger.py::test_deposit_adds", [
        "--ledger",
        "gate/freeze_ledger.json",
      ]),
      { cwd: repo.dir },
    );
    expect(expectOneLineError(r)).toMatch(
      /gate\/freeze_ledger\.json is a freeze ledger \(schema 1\), .* \(fix: run freezegate ledger migrate --from gate\/freeze_ledger\.json/,
    );
    expect(read(repo, "gate/freeze_ledger.json")).toBe(before);
  });

  it("creates the ledger when the repository has none, honouring -C from a subdirectory", () => {
    const fresh = seedRepo();
    fresh.write("sub/dir/.keep", "");
    const r = runCli(
      [
        ...freezeArgs("tests/test_ledger.py::test_deposit_adds", [
          "--collected",
          "../../collected.txt",
        ]),
        "-C",
        "sub/dir",
      ],
      { cwd: fresh.dir },
    );
    expect(r.stderr).toMatch(DEPOSIT_WARNING);
    expect(r.stdout).toMatch(/in freeze-ledger\.json \(created freeze-ledger\.json\)\n$/);
    expect(ledgerOf(fresh).policy.max_window_days).toBe(14);
  });
});

describe("freezegate unfreeze and extend", () => {
  let repo: TempRepo;
  const id = "tests/test_billing.py::test_proration_rounding";
  beforeEach(() => {
    repo = seedRepo();
    copyFixture(repo, "seed-004-freeze_ledger.json", "gate/freeze_ledger.json");
    expect(runCli(["ledger", "migrate"], { cwd: repo.dir }).status).toBe(0);
  });

  it("extend moves the expiry N days later, within the window counted from opened", () => {
    // the freeze-ledger example's freeze: opened 2026-10-12, expires 2026-10-26 (the full 14 days).
    const policy = JSON.parse(read(repo));
    policy.policy.max_window_days = 20;
    repo.write("freeze-ledger.json", JSON.stringify(policy));
    const ok = runCli(["extend", id, "--days", "5", "--today", "2026-10-25"], { cwd: repo.dir });
    expect(ok.stderr).toBe("");
    expect(ok.stdout).toBe(
      `extended ${id} by 5 days, from 2026-10-26 to 2026-10-31 (opened 2026-10-12, 19 of 20 days) in freeze-ledger.json\n`,
    );
    expect(ledgerOf(repo).freezes[0]?.expires).toBe("2026-10-31");
    const before = read(repo);
    const over = runCli(["extend", id, "--days", "2", "--today", "2026-10-30"], { cwd: repo.dir });
    expect(over.status).toBe(1);
    expect(over.stderr).toBe(
      `freezegate: refused to extend: extending ${id} by 2 days to 2026-11-02 (counted from its expiry 2026-10-31, not from today) goes past 2026-11-01, the latest expiry its window allows (opened 2026-10-12, max_window_days 20) (fix: pass --days 1 or fewer; past 2026-11-01, unfreeze it and freeze it again with a fresh review (freezegate unfreeze ${id}, then freezegate freeze ${id} ...), or fix the test and unfreeze it)\n`,
    );
    expect(read(repo)).toBe(before);
  });

  it("extend refuses an expired freeze (re-attest instead), one at its window's end, and an unknown id", () => {
    const before = read(repo);
    const expired = runCli(["extend", id, "--days", "1", "--today", "2026-10-27"], {
      cwd: repo.dir,
    });
    expect(expired.status).toBe(1);
    expect(expired.stderr).toMatch(
      /expired on 2026-10-26; an expired freeze is re-attested, not extended/,
    );
    // Frozen for the whole window (14 days from 2026-10-12): no --days can extend it.
    const full = runCli(["extend", id, "--days", "2", "--today", "2026-10-20"], {
      cwd: repo.dir,
    });
    expect(full.status).toBe(1);
    expect(full.stderr).toMatch(
      /cannot be extended: it expires on 2026-10-26, and the policy's window of 14 days from its opening on 2026-10-12 allows no expiry later than 2026-10-26/,
    );
    const unknown = runCli(["extend", "tests/x.py::t", "--days", "2"], { cwd: repo.dir });
    expect(expectOneLineError(unknown)).toMatch(
      /tests\/x\.py::t is not frozen in freeze-ledger\.json/,
    );
    expect(expectOneLineError(runCli(["extend", id], { cwd: repo.dir }))).toMatch(/needs --days/);
    expect(read(repo)).toBe(before);
  });

  it("unfreeze removes the freeze; a test that is not frozen is exit 2", () => {
    const r = runCli(["unfreeze", id], { cwd: repo.dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toBe(
      `unfroze ${id} (owner finley, frozen since 2026-10-12) in freeze-ledger.json\n`,
    );
    expect(ledgerOf(repo).freezes).toEqual([]);
    const again = runCli(["unfreeze", id], { cwd: repo.dir });
    expect(expectOneLineError(again)).toMatch(/is not frozen in freeze-ledger\.json/);
    const none = runCli(["unfreeze", id, "--ledger", "nope.json"], { cwd: repo.dir });
    expect(expectOneLineError(none)).toMatch(/ledger not found: .*nope\.json/);
    expect(existsSync(repo.path("nope.json"))).toBe(false);
  });

  it("every ledger command has --help", () => {
    for (const args of [
      ["ledger", "check", "--help"],
      ["ledger", "migrate", "--help"],
      ["freeze", "--help"],
      ["unfreeze", "--help"],
      ["extend", "--help"],
      ["ledger", "--help"],
    ]) {
      const r = runCli(args, { cwd: repo.dir });
      expect(r.status, args.join(" ")).toBe(0);
      expect(r.stdout).toMatch(/^Usage: freezegate /);
    }
  });
});

describe("known tests from the bundled example's real coverage data", () => {
  it("finds the coverage data in the root, and refuses a typo", () => {
    const repo = makeDemoRepo();
    repos.push(repo);
    const prop = "tests/test_billing.py::test_full_period_charges_everything";
    const base = ["--owner", "o", "--reason", "r", "--invariant", "i", "--property", prop];
    const ok = runCli(["freeze", "tests/test_billing.py::test_refund_of_unused_days", ...base], {
      cwd: repo.dir,
    });
    expect(ok.stderr).toMatch(DEPOSIT_WARNING);
    expect(ok.status).toBe(0);
    const typo = runCli(["freeze", "tests/test_billing.py::test_refund", ...base], {
      cwd: repo.dir,
    });
    expect(typo.status).toBe(1);
    expect(typo.stderr).toContain(
      "the test tests/test_billing.py::test_refund is not a test the suite has",
    );
    const check = runCli(["ledger", "check"], { cwd: repo.dir });
    expect(check.status).toBe(0);
    expect(check.stdout).toMatch(/^known tests: 4 tests from the coverage data .*\.coverage$/m);
    // Coverage data that exists but is unusable is an error, never "nothing known".
    writeFileSync(repo.path("broken.json"), "{}");
    const broken = runCli(["ledger", "check", "--coverage", "broken.json"], { cwd: repo.dir });
    expect(broken.status).toBe(2);
  });
});

// ---------------------------------------------------------------------------------------------
// Concurrency and crashes.

interface Running {
  child: ChildProcess;
  done: Promise<CliResult>;
  stderrSoFar(): string;
}

function startCli(args: string[], cwd: string, env: NodeJS.ProcessEnv = {}): Running {
  const child = spawn(process.execPath, [CLI, ...args], {
    cwd,
    env: isolatedGitEnv({ NO_COLOR: "1", FREEZEGATE_DEBUG: "", ...env }),
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout?.on("data", (d) => {
    stdout += String(d);
  });
  child.stderr?.on("data", (d) => {
    stderr += String(d);
  });
  const done = new Promise<CliResult>((resolveDone, reject) => {
    child.on("error", reject);
    child.on("close", (code, signal) =>
      resolveDone({ status: code ?? (signal ? -1 : -2), stdout, stderr }),
    );
  });
  return { child, done, stderrSoFar: () => stderr };
}

async function waitFor(check: () => boolean, what: string, ms = 20_000): Promise<void> {
  const start = Date.now();
  while (!check()) {
    if (Date.now() - start > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

describe("concurrent and interrupted writes", () => {
  it("20 concurrent freeze processes: every entry is kept", async () => {
    const repo = seedRepo();
    const ids = Array.from(
      { length: 20 },
      (_, i) => `tests/test_many.py::test_${String(i).padStart(2, "0")}`,
    );
    repo.write("collected.txt", `${[...ids, "tests/props/test_p.py::test_p"].join("\n")}\n`);
    const runs = ids.map((id) =>
      startCli(
        [
          "freeze",
          id,
          "--owner",
          "o",
          "--reason",
          "r",
          "--invariant",
          "i",
          "--property",
          "tests/props/test_p.py::test_p",
          "--collected",
          "collected.txt",
          "--today",
          "2026-10-12",
        ],
        repo.dir,
      ),
    );
    const results = await Promise.all(runs.map((r) => r.done));
    for (const r of results) {
      expect(r.stderr).toMatch(DEPOSIT_WARNING);
      expect(r.status).toBe(0);
    }
    expect(ledgerOf(repo).freezes.map((f) => f.test_id)).toEqual(ids);
    // Exactly one of them created the file.
    expect(results.filter((r) => r.stdout.includes("(created freeze-ledger.json)"))).toHaveLength(
      1,
    );
    expectNoDebris(repo);
  }, 60_000);

  it("a write killed before its rename leaves the old ledger; a live lock is respected, a dead one broken", async () => {
    const repo = seedRepo();
    copyFixture(repo, "seed-003-properties.json", "properties.json");
    expect(
      runCli(["ledger", "migrate", "--from", "properties.json"], { cwd: repo.dir }).status,
    ).toBe(0);
    const before = read(repo);
    const held = startCli(freezeArgs("tests/test_ledger.py::test_deposit_adds"), repo.dir, {
      FREEZEGATE_TEST_HOLD_BEFORE_RENAME: "1",
    });
    await waitFor(() => held.stderrSoFar().includes("freezegate: holding "), "the held write");
    const temp = /freezegate: holding (.*)\n/.exec(held.stderrSoFar())?.[1] as string;
    expect(existsSync(temp)).toBe(true);
    const lockPath = repo.path("freeze-ledger.json.lock");
    const lock = JSON.parse(readFileSync(lockPath, "utf8"));
    expect(lock.pid).toBe(held.child.pid);

    // Age the lock past the stale limit: its process is alive, so it must not be broken.
    const old = new Date(Date.now() - 120_000);
    const backdate = () => {
      const current = JSON.parse(readFileSync(lockPath, "utf8"));
      writeFileSync(lockPath, JSON.stringify({ ...current, time: old.getTime() }));
      utimesSync(lockPath, old, old);
    };
    backdate();
    const blocked = runCli(["unfreeze", "tests/x.py::t"], { cwd: repo.dir });
    expect(expectOneLineError(blocked)).toMatch(
      new RegExp(`is locked by process ${held.child.pid} on .* waited 10 s`),
    );

    held.child.kill("SIGKILL");
    await held.done;
    expect(read(repo)).toBe(before);
    expect(existsSync(temp)).toBe(true);
    expect(existsSync(lockPath)).toBe(true);
    backdate();

    // The next command breaks the dead writer's lock, cleans its temp file and works.
    const next = runCli(freezeArgs("tests/test_ledger.py::test_withdraw_more_than_balance"), {
      cwd: repo.dir,
    });
    expect(next.stderr).toMatch(DEPOSIT_WARNING);
    expect(next.status).toBe(0);
    expect(ledgerOf(repo).freezes.map((f) => f.test_id)).toEqual([
      "tests/test_ledger.py::test_withdraw_more_than_balance",
    ]);
    expect(existsSync(temp)).toBe(false);
    expectNoDebris(repo);
  }, 60_000);

  it("a fresh lock of a dead process is not broken before it is stale", () => {
    const repo = seedRepo();
    expect(
      runCli(freezeArgs("tests/test_ledger.py::test_deposit_adds"), { cwd: repo.dir }).status,
    ).toBe(0);
    const before = read(repo);
    // A pid that cannot be alive (above the kernel's pid_max).
    writeFileSync(
      repo.path("freeze-ledger.json.lock"),
      JSON.stringify({ pid: 2 ** 30, host: hostname(), time: Date.now(), token: "x" }),
    );
    const r = runCli(["unfreeze", "tests/test_ledger.py::test_deposit_adds"], { cwd: repo.dir });
    expect(expectOneLineError(r)).toMatch(/is locked by process 1073741824/);
    expect(read(repo)).toBe(before);
  }, 30_000);
});

// ---------------------------------------------------------------------------------------------
// Real pytest.

describePython("known tests from real pytest output and real per-test coverage", () => {
  it("the properties example's example: collect-only ids and coverage contexts judge the same", () => {
    const repo = makeTempRepo();
    repos.push(repo);
    repo.write("pytest.ini", "[pytest]\npythonpath = .\n");
    repo.write("app/__init__.py", "");
    repo.write(
      "app/ledger.py",
      [
        "class InsufficientFunds(Exception):",
        "    pass",
        "",
        "",
        "class Ledger:",
        "    def __init__(self, initial=0):",
        "        self.balance = initial",
        "",
        "    def apply(self, amount):",
        "        if self.balance + amount < 0:",
        "            raise InsufficientFunds(amount)",
        "        self.balance += amount",
        "",
        "    def snapshot(self):",
        "        return self.balance",
        "",
      ].join("\n"),
    );
    repo.write("tests/__init__.py", "");
    repo.write(
      "tests/test_ledger.py",
      [
        "import pytest",
        "from app.ledger import InsufficientFunds, Ledger",
        "",
        "",
        "def test_overdraft_rejected():",
        "    with pytest.raises(InsufficientFunds):",
        "        Ledger().apply(-1)",
        "",
        "",
        "def test_withdraw_more_than_balance():",
        "    ledger = Ledger(initial=5)",
        "    with pytest.raises(InsufficientFunds):",
        "        ledger.apply(-6)",
        "    assert ledger.balance == 5",
        "",
      ].join("\n"),
    );
    repo.write("tests/properties/__init__.py", "");
    repo.write(
      "tests/properties/test_ledger.py",
      [
        "from hypothesis import given, settings, strategies as st",
        "from app.ledger import InsufficientFunds, Ledger",
        "",
        "",
        "@given(st.lists(st.integers(min_value=-100, max_value=100), max_size=16))",
        "@settings(max_examples=20, derandomize=True, database=None)",
        "def test_balance_never_negative(amounts):",
        "    ledger = Ledger()",
        "    for amount in amounts:",
        "        try:",
        "            ledger.apply(amount)",
        "        except InsufficientFunds:",
        "            pass",
        "    assert ledger.balance >= 0",
        "",
        "",
        "@given(st.integers(min_value=1, max_value=100))",
        "@settings(max_examples=10, derandomize=True, database=None)",
        "def test_rejected_withdrawal_is_a_noop(amount):",
        "    ledger = Ledger()",
        "    before = ledger.snapshot()",
        "    try:",
        "        ledger.apply(-amount)",
        "    except InsufficientFunds:",
        "        pass",
        "    assert ledger.snapshot() == before",
        "",
      ].join("\n"),
    );
    copyFileSync(join(FIXTURES, "seed-003-properties.json"), repo.path("properties.json"));
    repo.commit("properties example");

    const collect = runPython(["-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider"], {
      cwd: repo.dir,
    });
    expect(collect.status, collect.stdout + collect.stderr).toBe(0);
    writeFileSync(repo.path("collected.txt"), collect.stdout);
    const cov = runPython(
      [
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--cov=app",
        "--cov-context=test",
        "--cov-report=",
      ],
      { cwd: repo.dir },
    );
    expect(cov.status, cov.stdout + cov.stderr).toBe(0);

    expect(
      runCli(["ledger", "migrate", "--from", "properties.json"], { cwd: repo.dir }).status,
    ).toBe(0);
    const byCollected = runCli(["ledger", "check", "--collected", "collected.txt"], {
      cwd: repo.dir,
    });
    expect(byCollected.stdout).toMatch(/^known tests: 4 tests from .*collected\.txt$/m);
    expect(byCollected.status).toBe(0);
    const byCoverage = runCli(["ledger", "check"], { cwd: repo.dir });
    expect(byCoverage.stdout).toMatch(/^known tests: 4 tests from the coverage data /m);
    expect(byCoverage.status).toBe(0);

    // The seed's rule: rejected_is_noop has one witness, so it cannot be frozen.
    const args = [
      "freeze",
      "tests/test_ledger.py::test_overdraft_rejected",
      "--owner",
      "o",
      "--reason",
      "r",
      "--invariant",
      "i",
      "--property",
      "tests/properties/test_ledger.py::test_rejected_withdrawal_is_a_noop",
    ];
    for (const source of [["--collected", "collected.txt"], []]) {
      const r = runCli([...args, ...source], { cwd: repo.dir });
      expect(r.status).toBe(1);
      expect(r.stderr).toMatch(/property prop\.ledger\.rejected_is_noop has no live witness left/);
    }
  });
});
