// freezegate check and stats end to end: the bundled example's patch with a freeze ledger on
// top (real git, the example's real pytest-cov data, the built CLI).

import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, overrideArgs, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import type { TempRepo } from "../helpers/git-repo.js";
import { assertMatchesSchema } from "../helpers/schema.js";

const FROZEN = "tests/test_billing.py::test_proration_rounds_half_up";
const PROPERTY = "tests/test_billing.py::test_full_period_charges_everything";
const TODAY = "2026-11-25";

function ledger(over: { policy?: object; freeze?: object } = {}) {
  return {
    $schema: "https://unpkg.com/freezegate@0/schema/ledger.schema.json",
    version: 1,
    policy: { max_window_days: 14, min_distinct: 8, ...over.policy },
    freezes: [
      {
        test_id: FROZEN,
        reason: "order-dependent failure in the full suite",
        owner: "finley",
        opened: "2026-11-20",
        expires: "2026-12-01",
        invariant: "half-up rounding never charges more than the exact share plus half a cent",
        compensating_property: PROPERTY,
        reused_property: true,
        ...over.freeze,
      },
    ],
    properties: [
      {
        id: "prop.billing.refund",
        check: "tests/test_billing.py::test_refund_of_unused_days",
        witnessed_by: [PROPERTY],
      },
    ],
  };
}

let repo: TempRepo;

function commitLedger(value: object): void {
  writeFileSync(join(repo.dir, "freeze-ledger.json"), `${JSON.stringify(value, null, 2)}\n`);
  repo.git("add", "freeze-ledger.json");
  repo.git("commit", "-q", "-m", "ledger");
}

/** A samples artifact of a run at the current HEAD (the deposit gate refuses other commits'). */
function samplesAtHead(distinct: number): string {
  const commit = repo.git("rev-parse", "HEAD").trim();
  return JSON.stringify({ version: 2, commit, properties: { [PROPERTY]: { distinct } } });
}

function check(args: string[] = []) {
  writeFileSync(join(repo.dir, "samples.json"), samplesAtHead(9));
  return runCli(
    overrideArgs(["check", "--base", "base", "--today", TODAY, "--samples", "samples.json"], args),
    {
      cwd: repo.dir,
    },
  );
}

beforeAll(() => {
  repo = makeDemoRepo();
  commitLedger(ledger());
  writeFileSync(join(repo.dir, "samples.json"), samplesAtHead(9));
});
afterAll(() => repo.cleanup());

describe("freezegate check", () => {
  it("fails on the shadowed line only; every other gate passes; one JSON report", () => {
    const r = check(["--format", "json"]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout);
    assertMatchesSchema("check-report.schema.json", report);
    assertMatchesSchema("audit-report.schema.json", report.audit);
    expect(report.failedGates).toEqual(["shadow"]);
    const byGate = Object.fromEntries(
      report.gates.map((g: { gate: string; passed: boolean }) => [g.gate, g.passed]),
    );
    expect(byGate).toEqual({
      shadow: false,
      shape: true,
      witness: true,
      deposit: true,
      lock: true,
      "ledger-changes": true,
    });
    const shadow = report.gates.find((g: { gate: string }) => g.gate === "shadow");
    expect(shadow.findings).toEqual([
      {
        gate: "shadow",
        code: "shadowed-line",
        severity: "error",
        path: "src/billing/proration.py",
        line: 13,
        message: `src/billing/proration.py:13 is shadowed: only frozen tests cover it: ${FROZEN}`,
        details: { frozenTests: [FROZEN] },
      },
    ]);
    const changes = report.gates.find((g: { gate: string }) => g.gate === "ledger-changes");
    // The patch adds the ledger: the property and the freeze are both recorded as changes.
    expect(
      changes.findings.map((f: { code: string; testId?: string; propertyId?: string }) => [
        f.code,
        f.testId ?? f.propertyId,
      ]),
    ).toEqual([
      ["ledger-changed", "prop.billing.refund"],
      ["ledger-changed", FROZEN],
    ]);
    expect(report.audit.frozen.format).toBe("ledger");
  });

  it("prints the audit, each gate and one verdict line as text", () => {
    const r = check();
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/SHADOWED 13: only frozen tests cover it/);
    expect(r.stdout).toMatch(/^witness gate: passed$/m);
    expect(r.stdout).toMatch(/^check: FAIL \(blocking gate failed: shadow\)$/m);
  });

  it("judges a patch that lists its own source under test-files by the merge base's config too", () => {
    writeFileSync(
      join(repo.dir, "pyproject.toml"),
      '[tool.freezegate]\ntest-files = ["tests/**", "src/**"]\n',
    );
    repo.git("add", "pyproject.toml");
    repo.git("commit", "-q", "-m", "config");
    try {
      const r = check();
      expect(r.stdout).toMatch(/SHADOWED 13: only frozen tests cover it/);
      expect(r.stdout).toMatch(/^check: FAIL \(blocking gate failed: shadow\)$/m);
      expect(r.status).toBe(1);
      const json = check(["--format", "json"]);
      const shadow = JSON.parse(json.stdout).gates.find(
        (g: { gate: string }) => g.gate === "shadow",
      );
      expect(shadow.notes).toContain(
        "the patch changes test-files in the repository's config: judged by the stricter of its settings and those at the merge base",
      );
    } finally {
      repo.git("reset", "-q", "--hard", "HEAD~1");
    }
  });

  it("refuses a config frozen key that names another file than the ledger it judges (check, stats)", () => {
    writeFileSync(
      join(repo.dir, "pyproject.toml"),
      '[tool.freezegate]\nfrozen = "quarantine.json"\n',
    );
    repo.git("add", "pyproject.toml");
    repo.git("commit", "-q", "-m", "config");
    try {
      // Before: check took the ledger's freezes without a word, while audit took the list's.
      const refusal = (command: string) =>
        `the config's frozen key names quarantine.json, but ${command} judges the ledger's freezes (freeze-ledger.json)`;
      expect(expectRefusal(check(), "frozen-key-beside-ledger")).toMatch(refusal("check"));
      expect(
        expectRefusal(
          runCli(["stats", "--today", TODAY, "--base", "base"], { cwd: repo.dir }),
          "frozen-key-beside-ledger",
        ),
      ).toMatch(refusal("stats"));
      writeFileSync(
        join(repo.dir, "pyproject.toml"),
        '[tool.freezegate]\nfrozen = "freeze-ledger.json"\n',
      );
      const same = check();
      expect(same.stderr).toBe("");
      expect(same.stdout).toMatch(/^check: FAIL \(blocking gate failed: shadow\)$/m);
      // The same file through a symlinked checkout (-C LINK, --ledger "$PWD/..."): not refused.
      const link = join(mkdtempSync(join(tmpdir(), "freezegate-link-")), "repo");
      symlinkSync(repo.dir, link);
      const viaLink = runCli(
        ["stats", "--today", TODAY, "-C", link, "--ledger", join(link, "freeze-ledger.json")],
        { cwd: repo.dir },
      );
      expect(viaLink.stderr).toBe("");
      expect(viaLink.status).toBe(0);
      // A ledger that is not there, named the same way: "not found", not "another file".
      writeFileSync(join(repo.dir, "pyproject.toml"), '[tool.freezegate]\nfrozen = "nope.json"\n');
      expect(
        expectOneLineError(
          runCli(["stats", "--today", TODAY, "-C", link, "--ledger", join(link, "nope.json")], {
            cwd: repo.dir,
          }),
        ),
      ).toMatch(/^freezegate: error\[file-not-found\]: ledger not found: /);
      writeFileSync(join(repo.dir, "pyproject.toml"), '[tool.freezegate]\nfrozen = "tests"\n');
      expect(expectRefusal(check(), "frozen-key-is-directory")).toMatch(
        /frozen key names tests, a directory \(fix: .*check takes/,
      );
      // A frozen key that names another ledger: the fix is the ledger key.
      writeFileSync(
        join(repo.dir, "gate-ledger.json"),
        readFileSync(join(repo.dir, "freeze-ledger.json")),
      );
      writeFileSync(
        join(repo.dir, "pyproject.toml"),
        '[tool.freezegate]\nfrozen = "gate-ledger.json"\n',
      );
      expect(expectOneLineError(check())).toMatch(
        /\(fix: gate-ledger\.json is a freeze ledger: name it with the ledger key instead \(ledger = "gate-ledger\.json"\) and remove the frozen key\)$/,
      );
    } finally {
      repo.git("reset", "-q", "--hard", "HEAD~1");
      rmSync(join(repo.dir, "gate-ledger.json"), { force: true });
    }
  });

  it("a samples artifact that is not there: the fix names the plugin's ledger setting", () => {
    const r = check(["--samples", "missing/samples.json"]);
    expect(expectRefusal(r, "samples-not-found")).toMatch(
      `samples artifact not found: ${join(repo.dir, "missing/samples.json")} (fix: check the path; `,
    );
    expect(r.stderr).toMatch(/freezegate_ledger = PATH in pytest's config\)$/m);
  });

  it("passes when the policy does not make the shadow gate blocking", () => {
    commitLedger(
      ledger({ policy: { blocking: ["shape", "witness", "deposit", "lock", "ledger-changes"] } }),
    );
    try {
      const r = check();
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/^shadow gate: failed, not blocking \(1 error\)$/m);
      expect(r.stdout).toMatch(/^check: PASS/m);
    } finally {
      repo.git("reset", "-q", "--hard", "HEAD~1");
    }
  });

  it("an expired freeze fails the shape gate, and too few inputs the deposit gate", () => {
    writeFileSync(join(repo.dir, "samples.json"), samplesAtHead(9));
    const late = runCli(
      [
        "check",
        "--base",
        "base",
        "--today",
        "2026-12-02",
        "--samples",
        "samples.json",
        "--format",
        "json",
      ],
      { cwd: repo.dir },
    );
    expect(late.status).toBe(1);
    const report = JSON.parse(late.stdout);
    expect(report.failedGates).toEqual(["shadow", "shape"]);
    const shape = report.gates.find((g: { gate: string }) => g.gate === "shape");
    expect(shape.findings.map((f: { code: string }) => f.code)).toEqual(["expired"]);

    writeFileSync(join(repo.dir, "few.json"), samplesAtHead(3));
    const few = JSON.parse(check(["--samples", "few.json", "--format", "json"]).stdout);
    expect(few.failedGates).toEqual(["shadow", "deposit"]);
  });

  it("freezing the property's last witness fails the witness gate", () => {
    const value = ledger();
    value.freezes.push({
      ...value.freezes[0],
      test_id: PROPERTY,
    } as (typeof value.freezes)[number]);
    commitLedger(value);
    try {
      const report = JSON.parse(check(["--format", "json"]).stdout);
      expect(report.failedGates).toContain("witness");
      const witness = report.gates.find((g: { gate: string }) => g.gate === "witness");
      expect(witness.findings[0]).toMatchObject({
        code: "orphaned-property",
        propertyId: "prop.billing.refund",
      });
    } finally {
      repo.git("reset", "-q", "--hard", "HEAD~1");
    }
  });

  it("needs a base, and a ledger", () => {
    expect(expectOneLineError(runCli(["check"], { cwd: repo.dir }))).toMatch(
      /check needs the patch/,
    );
    expect(expectOneLineError(check(["--ledger", "missing-ledger.json"]))).toMatch(
      /missing-ledger\.json/,
    );
  });
});

describe("freezegate stats", () => {
  it("prints the figures, appends the history and shows the trend", () => {
    const history = join(repo.dir, "history.jsonl");
    writeFileSync(join(repo.dir, "samples.json"), samplesAtHead(9));
    const first = runCli(
      [
        "stats",
        "--base",
        "base",
        "--today",
        TODAY,
        "--samples",
        "samples.json",
        "--history",
        "history.jsonl",
      ],
      { cwd: repo.dir },
    );
    expect(first.status).toBe(0);
    expect(first.stdout).toMatch(/open freezes\s+1$/m);
    expect(first.stdout).toMatch(/median age \(days\)\s+5$/m);
    expect(first.stdout).toMatch(/expired\s+0$/m);
    expect(first.stdout).toMatch(/deposit failures\s+0$/m);
    expect(first.stdout).toMatch(/orphaned properties\s+0$/m);
    expect(first.stdout).toMatch(/shadow ratio\s+50\.0%$/m);
    const lines = readFileSync(history, "utf8").trim().split("\n");
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0] as string)).toMatchObject({
      date: TODAY,
      openFreezes: 1,
      medianAgeDays: 5,
      shadowRatio: 0.5,
    });
    const second = runCli(
      [
        "stats",
        "--base",
        "base",
        "--today",
        TODAY,
        "--history",
        "history.jsonl",
        "--stale-runs",
        "2",
        "--format",
        "json",
      ],
      { cwd: repo.dir },
    );
    const body = JSON.parse(second.stdout);
    expect(body.history).toHaveLength(2);
    expect(body.warning).toMatch(/shadow ratio has stayed at 50\.0% over the last 2 runs/);
    // Without --samples the deposits are not measured (before: every freeze a failure).
    expect(body.stats.depositFailures).toBeNull();
    expect(body.notes).toContain("no --samples artifact: deposit failures not measured");
  });

  it("refuses a history file that is not JSON lines, and writes nothing", () => {
    const path = join(repo.dir, "bad-history.jsonl");
    writeFileSync(path, "date,shadow\n2026-11-01,0.5\n");
    const r = runCli(["stats", "--today", TODAY, "--history", "bad-history.jsonl"], {
      cwd: repo.dir,
    });
    expect(expectOneLineError(r)).toMatch(
      /bad-history\.jsonl line 1 is not JSON: the history must be JSON lines/,
    );
    expect(readFileSync(path, "utf8")).toBe("date,shadow\n2026-11-01,0.5\n");
  });

  it("without a base, measures what the ledger alone tells", () => {
    const r = runCli(["stats", "--today", "2026-12-05", "--format", "json"], { cwd: repo.dir });
    expect(r.status).toBe(0);
    expect(JSON.parse(r.stdout).stats).toMatchObject({
      openFreezes: 1,
      expired: 1,
      shadowRatio: null,
      depositFailures: null,
    });
    // Data flags it cannot use without a base are named, not silently dropped.
    const flags = runCli(
      [
        "stats",
        "--today",
        "2026-12-05",
        "--format",
        "json",
        "--samples",
        "nope.json",
        "--coverage",
        "nope",
      ],
      { cwd: repo.dir },
    );
    expect(flags.status).toBe(0);
    expect(JSON.parse(flags.stdout).notes).toEqual([
      "no base given: shadow ratio, deposit failures and compensation not measured",
      "--samples, --coverage not read: they count only with a base (--base REF)",
    ]);
  });
});
