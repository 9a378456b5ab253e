// The pytest plugin and the CLI must judge one ledger. A patch
// that points the plugin at a second ledger (pytest.ini freezegate_ledger, or the pytest
// command line) freezes a test that only pytest knows is frozen: the job goes green and the
// gate counted the muted test as live. Real git, real pytest + pytest-cov + the plugin on
// examples/python-ledger, and the built CLI.

import { copyFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPython } from "../helpers/python.js";

const EXAMPLE = join(REPO_ROOT, "examples/python-ledger");
const PLUGIN = join(REPO_ROOT, "integrations/pytest");
const TODAY = "2026-10-18";
const STATEMENT = "tests/test_ledger.py::test_statement_lists_entries";

let repo: TempRepo;

/** The CI recipe's test step: pytest with the plugin and per-test coverage contexts. */
function pytest(extra: string[] = []): { status: number; output: string } {
  rmSync(repo.path(".coverage"), { force: true });
  rmSync(repo.path(".freezegate"), { recursive: true, force: true });
  const r = runPython(
    [
      "-m",
      "pytest",
      "-q",
      "-p",
      "no:cacheprovider",
      "-p",
      "freezegate_pytest",
      "--cov",
      "--cov-context=test",
      "--cov-report=",
      "--freezegate-today",
      TODAY,
      ...extra,
    ],
    { cwd: repo.dir, env: { PYTHONPATH: PLUGIN } },
  );
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

/** The CI recipe's gate step. */
function check() {
  return runCli(
    ["check", "--base", "main", "--today", TODAY, "--samples", ".freezegate/samples.json"],
    { cwd: repo.dir },
  );
}

/** A branch off main whose patch changes Ledger.statement(), which only one test runs. */
function patchBranch(name: string): void {
  repo.git("switch", "-q", "-c", name, "main");
  copyFileSync(
    join(EXAMPLE, "stories/3-shadowed-change/app/ledger.py"),
    repo.path("app/ledger.py"),
  );
}

/** A second ledger, read only by the plugin, that freezes the test the patch breaks. */
function writePluginLedger(): void {
  mkdirSync(repo.path("ci"), { recursive: true });
  copyFileSync(
    join(EXAMPLE, "stories/3-shadowed-change/freeze-ledger.json"),
    repo.path("ci/pytest-ledger.json"),
  );
}

const STATIC_REFUSAL = (judge: string, key: string) =>
  `freezegate: error[plugin-ledger-differs]: the freezegate pytest plugin applies the ledger ci/pytest-ledger.json (pytest.ini [pytest] freezegate_ledger), but ${judge} judges freeze-ledger.json: a freeze only pytest applies would mute a test the gate counts as live (fix: point both at one ledger: ${key}, and pytest's freezegate_ledger)`;

describePython("the pytest plugin and the CLI judge one ledger", () => {
  beforeAll(() => {
    repo = makeTempRepo();
    cpSync(join(EXAMPLE, "project"), repo.dir, { recursive: true });
    cpSync(join(EXAMPLE, "stories/1-honest-freeze"), repo.dir, { recursive: true });
    repo.write(".gitignore", ".coverage\n.freezegate/\n");
    repo.commit("the ledger service with story 1's honest freeze");
  });
  afterAll(() => repo?.cleanup());

  it("a freeze in a ledger only pytest.ini's freezegate_ledger names: check and audit exit 2", () => {
    patchBranch("hidden-ini");
    writePluginLedger();
    const ini = readFileSync(repo.path("pytest.ini"), "utf8");
    repo.write(
      "pytest.ini",
      ini.replace(/^freezegate_ledger = .*$/m, "freezegate_ledger = ci/pytest-ledger.json"),
    );
    repo.commit("change statement(); tidy the pytest config");

    const run = pytest();
    expect(run.status, run.output).toBe(0);
    const record = JSON.parse(readFileSync(repo.path(".freezegate/applied.json"), "utf8"));
    expect(record.ledger.path).toBe("ci/pytest-ledger.json");
    expect(record.applied).toContain(STATEMENT);

    // Before: exit 0, "5 defended", "the ledger freeze-ledger.json did not change".
    expect(expectOneLineError(check())).toBe(
      STATIC_REFUSAL("check", 'the "ledger" key of [tool.freezegate] (or --ledger)'),
    );
    expect(expectOneLineError(runCli(["audit", "--base", "main"], { cwd: repo.dir }))).toBe(
      STATIC_REFUSAL("the audit", '--frozen (or the "ledger" key of [tool.freezegate])'),
    );
  });

  it("the same ledger given on pytest's command line: the applied record shows it, exit 2", () => {
    patchBranch("hidden-flag");
    writePluginLedger();
    repo.commit("change statement(); add a ledger for CI");

    const run = pytest(["--freezegate-ledger", "ci/pytest-ledger.json"]);
    expect(run.status, run.output).toBe(0);
    expect(expectRefusal(check(), "tests-ran-other-ledger")).toMatch(
      /^the tests ran with the ledger ci\/pytest-ledger\.json \(.* applied record \.freezegate\/applied\.json\), but check judges freeze-ledger\.json: .*\(fix: point both at one ledger: the "ledger" key of \[tool\.freezegate\] \(or --ledger\), and pytest's freezegate_ledger; then run the tests again\)$/,
    );
  });

  it("one ledger for both (the ordinary setup): the shadowed change fails the gate, exit 1", () => {
    patchBranch("honest");
    writeFileSync(
      repo.path("freeze-ledger.json"),
      readFileSync(join(EXAMPLE, "stories/3-shadowed-change/freeze-ledger.json")),
    );
    repo.commit("change statement(); freeze its test in the ledger");

    const run = pytest();
    expect(run.status, run.output).toBe(0);
    const r = check();
    expect(r.stderr).toBe("");
    expect(r.status, r.stdout).toBe(1);
    expect(r.stdout).toContain("SHADOWED 41-45: only frozen tests cover it");
  });
});
