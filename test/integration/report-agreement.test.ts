// Reports, the loose ends: every format shows the same warnings (a frozen id that
// matched no test under --allow-unresolved; a fixture-only line outside --fail-on in check's
// JSON and Markdown gate table as in the annotations, SARIF and JUnit), every SARIF result has
// a location (GitHub code scanning rejects one without), two --output names for one file are
// refused, and the ledger commands print repository strings through visible(). Real git, real
// pytest-cov data (the bundled example's, or recorded here), the built CLI.

import { linkSync, readFileSync, symlinkSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEPOSIT_WARNING, expectOneLineError, expectRefusal, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPytestCov } from "../helpers/python.js";
import { validateSarif } from "../helpers/sarif.js";

const cleanups: TempRepo[] = [];
afterAll(() => {
  for (const repo of cleanups) repo.cleanup();
});

interface SarifResult {
  ruleId: string;
  level: string;
  locations?: Array<{ physicalLocation: { artifactLocation: { uri: string } } }>;
  properties: { gate: string };
}

function sarifResults(text: string): SarifResult[] {
  const log = JSON.parse(text);
  validateSarif(log);
  return log.runs[0].results as SarifResult[];
}

describePython("every format shows the same warnings", () => {
  const GONE = "tests/test_gone.py::test_removed";
  let repo: TempRepo;
  const cli = (args: string[]) => runCli(args, { cwd: repo.dir });

  beforeAll(() => {
    repo = makeTempRepo();
    cleanups.push(repo);
    repo.write(".gitignore", ".coverage*\n");
    repo.write(".coveragerc", "[run]\nrelative_files = true\n");
    repo.write("tests/__init__.py", "");
    repo.write("mod.py", "def base():\n    return 1\n");
    repo.commit("base");
    repo.git("branch", "base");
    // setup_thing runs only in a fixture: its lines are fixture-only, outside the default
    // fail-on (shadowed).
    repo.write("mod.py", "def base():\n    return 1\n\n\ndef setup_thing():\n    return 42\n");
    repo.write(
      "tests/test_m.py",
      [
        "import pytest",
        "from mod import base, setup_thing",
        "@pytest.fixture",
        "def thing():",
        "    return setup_thing()",
        "def test_base(thing):",
        "    assert base() == 1",
        "",
      ].join("\n"),
    );
    repo.write("quarantine.json", `${JSON.stringify({ frozen: [GONE] })}\n`);
    repo.write(
      "freeze-ledger.json",
      `${JSON.stringify({ version: 1, policy: { max_window_days: 14, min_distinct: 8 }, freezes: [] })}\n`,
    );
    repo.commit("patch");
    runPytestCov(repo.dir);
  });

  it("audit --allow-unresolved: the frozen id that matched no test is a warning in github, sarif and junit", () => {
    const args = ["audit", "--base", "base", "--frozen", "quarantine.json", "--allow-unresolved"];
    const message = `the frozen id ${GONE} matches no test in the coverage data (allowed by --allow-unresolved): it freezes nothing the audit can see`;
    const github = cli([...args, "--format", "github"]);
    expect(github.status).toBe(0);
    expect(github.stdout.split("\n")).toContain(
      `::warning file=quarantine.json,title=freezegate%3A frozen id matches no test::${message}`,
    );
    expect(github.stdout.split("\n")).toContain(
      `  warning unresolved-frozen-id: quarantine.json: ${message}`,
    );
    const sarif = sarifResults(cli([...args, "--format", "sarif"]).stdout);
    expect(
      sarif
        .filter((r) => r.ruleId === "unresolved-frozen-id")
        .map((r) => [r.level, r.locations?.[0]?.physicalLocation.artifactLocation.uri]),
    ).toEqual([["warning", "quarantine.json"]]);
    const junit = cli([...args, "--format", "junit"]).stdout;
    expect(junit).toContain(`warning unresolved-frozen-id: quarantine.json: ${message}`);
    // The formats that had it still have it, once.
    const json = JSON.parse(cli([...args, "--format", "json"]).stdout);
    expect(json.frozen.unresolved).toEqual([GONE]);
  });

  it("check: the fixture-only warning is in the JSON's shadow gate, the Markdown table and every other format", () => {
    const args = ["check", "--base", "base", "--today", "2026-01-05"];
    const json = JSON.parse(cli([...args, "--format", "json"]).stdout);
    const shadow = json.gates.find((g: { gate: string }) => g.gate === "shadow");
    expect(shadow.findings).toEqual([
      {
        gate: "shadow",
        code: "fixture-only-line",
        severity: "warning",
        path: "mod.py",
        line: 6,
        message:
          "mod.py:6 is fixture-only: only the setup/teardown of tests/test_m.py::test_base runs it",
      },
    ]);
    const markdown = cli([...args, "--format", "markdown"]).stdout;
    expect(markdown.split("\n")).toContain("| shadow | yes | ✅ passed | 0 | 1 | 0 |");
    const github = cli([...args, "--format", "github"]).stdout;
    expect(github.match(/^::warning file=mod\.py,line=6,.*fixture-only/gm)).toHaveLength(1);
    const sarif = sarifResults(cli([...args, "--format", "sarif"]).stdout);
    const shadowWarnings = sarif.filter(
      (r) => r.properties.gate === "shadow" && r.level === "warning",
    );
    expect(shadowWarnings.map((r) => r.ruleId)).toEqual(["fixture-only-line"]);
    const junit = cli([...args, "--format", "junit"]).stdout;
    expect(junit.match(/warning fixture-only-line: mod\.py:6: /g)).toHaveLength(1);
    // One count everywhere: the JSON's warnings of each gate equal the other formats'.
    const warningsByGate = (gate: string) =>
      json.gates
        .find((g: { gate: string }) => g.gate === gate)
        .findings.filter((f: { severity: string }) => f.severity === "warning").length;
    for (const gate of json.gates.map((g: { gate: string }) => g.gate)) {
      expect(
        sarif.filter((r) => r.properties.gate === gate && r.level === "warning").length,
        gate,
      ).toBe(warningsByGate(gate));
    }
  });
});

describe("SARIF of a check whose witness, shape, deposit and lock gates fail", () => {
  const FROZEN = "tests/test_billing.py::test_proration_rounds_half_up";
  const PROPERTY = "tests/test_billing.py::test_full_period_charges_everything";
  let repo: TempRepo;

  beforeAll(() => {
    repo = makeDemoRepo();
    cleanups.push(repo);
    const freeze = {
      reason: "order-dependent failure in the full suite",
      owner: "finley",
      opened: "2026-11-01",
      expires: "2026-11-10", // expired on --today: shape
      invariant: "half-up rounding never charges more than the exact share plus half a cent",
      compensating_property: PROPERTY,
      reused_property: true,
    };
    const ledger = {
      version: 1,
      policy: {
        max_window_days: 14,
        min_distinct: 8, // the samples say 3: deposit
        generator_lock: ["src/billing/proration.py"], // and no lock file: lock
      },
      // The property's only witness frozen: witness.
      freezes: [
        { test_id: FROZEN, ...freeze },
        { test_id: PROPERTY, ...freeze },
      ],
      properties: [
        {
          id: "prop.billing.refund",
          check: "tests/test_billing.py::test_refund_of_unused_days",
          witnessed_by: [PROPERTY],
        },
      ],
    };
    repo.write("freeze-ledger.json", `${JSON.stringify(ledger, null, 2)}\n`);
    const commit = repo.commit("ledger");
    repo.write(
      "samples.json",
      JSON.stringify({ version: 2, commit, properties: { [PROPERTY]: { distinct: 3 } } }),
    );
  });

  it("every result has at least one location, and the log is valid SARIF 2.1.0", () => {
    const r = runCli(
      [
        "check",
        ...["--base", "base", "--today", "2026-11-25", "--samples", "samples.json"],
        ...["--format", "sarif"],
      ],
      { cwd: repo.dir },
    );
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    const results = sarifResults(r.stdout);
    const gates = new Set(results.filter((x) => x.level === "error").map((x) => x.properties.gate));
    for (const gate of ["shape", "witness", "lock"]) expect(gates, gate).toContain(gate);
    expect(results.map((x) => x.ruleId)).toContain("deposit-too-few-inputs");
    for (const result of results) {
      expect(result.locations?.length ?? 0, result.ruleId).toBeGreaterThan(0);
      expect(result.locations?.[0]?.physicalLocation.artifactLocation.uri).not.toBe("");
    }
  });
});

describe("two --output names for one file", () => {
  let repo: TempRepo;
  const ARGS = ["audit", "--base", "base", "--frozen", "quarantine.json"];

  beforeAll(() => {
    repo = makeDemoRepo();
    cleanups.push(repo);
    repo.write("quarantine.json", '{"frozen": []}\n');
    repo.write("reports/freezegate.json", "old\n");
  });

  it.each([
    ["a symbolic link", (_: string, to: string) => symlinkSync("freezegate.json", to, "file")],
    ["a hard link", (from: string, to: string) => linkSync(from, to)],
  ])("are refused before anything is written when one is %s to the other", (kind, link) => {
    const json = repo.path("reports/freezegate.json");
    const sarif = repo.path(`reports/freezegate-${kind.replace(/ /g, "-")}.sarif`);
    link(json, sarif);
    const r = runCli([...ARGS, "-o", "json=reports/freezegate.json", "-o", `sarif=${sarif}`], {
      cwd: repo.dir,
    });
    expect(expectRefusal(r, "output-same-file")).toMatch(
      `--output json=reports/freezegate.json and --output sarif=${sarif} are one file`,
    );
    expect(readFileSync(json, "utf8")).toBe("old\n");
  });

  it("a link to a report not written yet is the same file too; distinct files are fine", () => {
    symlinkSync("new.json", repo.path("reports/new-link.sarif"));
    const r = runCli(
      [...ARGS, "-o", "json=reports/new.json", "-o", "sarif=reports/new-link.sarif"],
      {
        cwd: repo.dir,
      },
    );
    expect(expectOneLineError(r)).toMatch(/are one file \(a link\)/);
    const ok = runCli([...ARGS, "-o", "json=reports/a.json", "-o", "sarif=reports/a.sarif"], {
      cwd: repo.dir,
    });
    expect(ok.stderr).toBe("");
    expect(JSON.parse(readFileSync(repo.path("reports/a.json"), "utf8")).schema).toBe(
      "freezegate/audit",
    );
  });
});

describe("the ledger commands print repository strings through visible()", () => {
  const ID = "tests/test_x.py::test_a[##[error file=x.py]forged]";
  const PROPERTY = "tests/test_x.py::test_property";
  let repo: TempRepo;

  beforeAll(() => {
    repo = makeTempRepo();
    cleanups.push(repo);
    repo.write("collected.txt", `${ID}\n${PROPERTY}\n`);
    repo.commit("base");
  });

  it("freeze, extend and unfreeze break ##[ in ids and owners, on stdout and stderr", () => {
    const freeze = runCli(
      [
        "freeze",
        ID,
        ...["--owner", "eve ##[warning title=freezegate]all gates passed"],
        ...["--reason", "r", "--invariant", "i", "--property", PROPERTY],
        ...["--collected", "collected.txt", "--today", "2026-10-12", "--days", "3"],
      ],
      { cwd: repo.dir },
    );
    expect(freeze.stderr).toMatch(DEPOSIT_WARNING);
    expect(freeze.status).toBe(0);
    expect(freeze.stdout).toBe(
      "froze tests/test_x.py::test_a[##\\[error file=x.py]forged] until 2026-10-15 (owner eve ##\\[warning title=freezegate]all gates passed, opened 2026-10-12) in freeze-ledger.json (created freeze-ledger.json)\n",
    );
    const refused = runCli(
      [
        "freeze",
        "tests/test_x.py::test_b[##[error]x]",
        ...["--owner", "o", "--reason", "r", "--invariant", "i", "--property", PROPERTY],
        ...["--collected", "collected.txt", "--today", "2026-10-12", "--days", "3"],
      ],
      { cwd: repo.dir },
    );
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).not.toContain("##[");
    const extend = runCli(["extend", ID, "--days", "5", "--today", "2026-10-12"], {
      cwd: repo.dir,
    });
    expect(extend.status).toBe(0);
    expect(extend.stdout).toMatch(/^extended tests\/test_x\.py::test_a\[##\\\[error /);
    const unfreeze = runCli(["unfreeze", ID], { cwd: repo.dir });
    expect(unfreeze.status).toBe(0);
    expect(unfreeze.stdout).toBe(
      "unfroze tests/test_x.py::test_a[##\\[error file=x.py]forged] (owner eve ##\\[warning title=freezegate]all gates passed, frozen since 2026-10-12) in freeze-ledger.json\n",
    );
    for (const r of [freeze, refused, extend, unfreeze]) {
      expect(`${r.stdout}${r.stderr}`).not.toMatch(/##\[/);
    }
  });
});
