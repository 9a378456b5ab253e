// `freezegate calibrate` end to end on data recorded by real pytest-cov: a healthy setup (every
// shadow canary fails the gate, no control does), setups where the gate cannot fire (nothing
// frozen; frozen tests that execute nothing only they execute) and setups where a setting
// breaks the gate (a test-files glob that takes a source file for a test; a frozen list the
// data does not match, let through by allow-unresolved). The scenario: test/fixtures/scenarios/shop.

import { copyFileSync, cpSync, mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectRefusal, REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, makeTempDir, runPytestCov, runPython } from "../helpers/python.js";
import { validateSarif } from "../helpers/sarif.js";
import { assertMatchesSchema } from "../helpers/schema.js";
import { treeState } from "../helpers/tree-state.js";

const SCENARIO = join(REPO_ROOT, "test/fixtures/scenarios/shop");

interface Canary {
  kind: string;
  path: string;
  tests: string[];
  line: number;
  verdict: string | null;
  skipped: string | null;
  fired: boolean;
  ok: boolean;
  reason: string | null;
}

let repo: TempRepo;

function calibrate(args: string[] = []) {
  const r = runCli(["calibrate", "--format", "json", ...args], { cwd: repo.dir });
  if (r.status !== 0 && r.status !== 1) throw new Error(`calibrate failed: ${r.stderr}`);
  const report = JSON.parse(r.stdout);
  assertMatchesSchema("calibrate-report.schema.json", report);
  return { status: r.status, report, canaries: report.canaries as Canary[] };
}

function withConfig(text: string | null, run: () => void) {
  const path = join(repo.dir, "pyproject.toml");
  if (text !== null) writeFileSync(path, text);
  try {
    run();
  } finally {
    rmSync(path, { force: true });
  }
}

describePython("calibrate on data recorded by pytest-cov", () => {
  beforeAll(() => {
    repo = makeTempRepo();
    cpSync(join(SCENARIO, "common"), repo.dir, { recursive: true });
    cpSync(join(SCENARIO, "patch"), repo.dir, { recursive: true });
    writeFileSync(join(repo.dir, ".gitignore"), ".coverage\n");
    repo.commit("shop");
    runPytestCov(repo.dir);
  });
  afterAll(() => repo?.cleanup());

  it("fires on every shadow canary and on no control, and leaves the tree as it was", () => {
    const before = treeState(repo.dir);
    const { status, report, canaries } = calibrate();
    expect(treeState(repo.dir)).toEqual(before);
    expect(status).toBe(0);
    expect(report.passed).toBe(true);
    expect(report.cannotFire).toBeNull();
    const shadow = canaries.filter((c) => c.kind === "shadow");
    const control = canaries.filter((c) => c.kind === "control");
    // discount's and bulk_price's statements run only under the frozen tests.
    expect(shadow.length).toBeGreaterThanOrEqual(3);
    for (const c of shadow) expect(c).toMatchObject({ verdict: "shadowed", fired: true, ok: true });
    expect(control.length).toBeGreaterThanOrEqual(2);
    for (const c of control) expect(c).toMatchObject({ verdict: "defended", fired: false });
    expect(canaries.every((c) => c.path === "src/shop/pricing.py")).toBe(true);
  });

  it("gives the same canaries for the same seed, and reports uncovered ones per fail-on", () => {
    const a = calibrate(["--seed", "7", "--max", "12"]);
    const b = calibrate(["--seed", "7", "--max", "12"]);
    expect(b.canaries).toEqual(a.canaries);
    expect(a.canaries.length).toBeLessThanOrEqual(12);
    const strict = calibrate(["--seed", "7", "--max", "12", "--fail-on", "uncovered"]);
    const uncovered = strict.canaries.filter((c) => c.kind === "uncovered");
    expect(uncovered.length).toBeGreaterThan(0);
    for (const c of uncovered) expect(c).toMatchObject({ verdict: "uncovered", fired: true });
    for (const c of a.canaries.filter((x) => x.kind === "uncovered")) expect(c.fired).toBe(false);
  });

  it("refuses --ledger with --frozen: two frozen lists, and which gate is meant cannot be told", () => {
    const refused = expectRefusal(
      runCli(["calibrate", "--ledger", "freeze-ledger.json", "--frozen", writeList([])], {
        cwd: repo.dir,
      }),
      "ledger-and-frozen",
    );
    expect(refused).toContain("--ledger and --frozen");
  });

  it("exits 1 when nothing is frozen: the calibration proves nothing", () => {
    const { status, report } = calibrate(["--frozen", writeList([])]);
    expect(status).toBe(1);
    expect(report.cannotFire.reason).toBe("nothing-frozen");
    expect(report.failures[0]).toMatch(/the gate cannot fire: .*freezes no test/);
  });

  it("exits 1 when the frozen tests execute nothing only they execute", () => {
    // The small case of format_price runs only lines the big case runs too.
    const list = writeList(["tests/test_pricing.py::test_format_price[small|cents]"]);
    const { status, report, canaries } = calibrate(["--frozen", list]);
    expect(status).toBe(1);
    expect(report.cannotFire.reason).toBe("no-shadow");
    expect(canaries.some((c) => c.kind === "shadow")).toBe(false);
    const text = runCli(["calibrate", "--frozen", list], { cwd: repo.dir });
    expect(text.status).toBe(1);
    expect(text.stdout).toMatch(/the gate cannot fire: the 1 frozen test execute/);
    expect(text.stdout).toMatch(/FAIL: the gate cannot be shown to fire/);
  });

  it("exits 1 naming the setting when a test-files glob takes a source file out of the audit", () => {
    withConfig('[tool.freezegate]\ntest-files = ["tests/**", "src/shop/pricing.py"]\n', () => {
      const { status, report, canaries } = calibrate();
      expect(status).toBe(1);
      const missed = canaries.filter((c) => c.kind === "shadow");
      expect(missed.length).toBeGreaterThan(0);
      for (const c of missed) {
        expect(c).toMatchObject({ skipped: "test-file", fired: false, ok: false });
        expect(c.reason).toMatch(/takes the file for a test file/);
      }
      expect(report.failures.length).toBe(missed.length);
      // Every format tells the same story, with the same exit code.
      for (const format of ["text", "markdown", "github", "junit"]) {
        const r = runCli(["calibrate", "--format", format], { cwd: repo.dir });
        expect(r.status, format).toBe(1);
        expect(r.stdout, format).toMatch(/src\/shop\/pricing\.py/);
        expect(r.stdout, format).toMatch(/test file/);
      }
    });
  });

  it("exits 1 when the frozen list matches no test of the data and allow-unresolved lets it", () => {
    const list = writeList(["tests/test_pricing.py::test_discount_rounding_renamed"]);
    withConfig("[tool.freezegate]\nallow-unresolved = true\n", () => {
      const { status, report } = calibrate(["--frozen", list]);
      expect(status).toBe(1);
      expect(report.cannotFire.reason).toBe("nothing-frozen");
    });
    // Without the setting the gate itself refuses the list: exit 2, as audit.
    const refused = runCli(["calibrate", "--frozen", list], { cwd: repo.dir });
    expect(refused.status).toBe(2);
    expect(refused.stderr).toMatch(/^freezegate: error\[frozen-ids-unresolved\]: .* match no test/);
  });
});

let lists = 0;
let listDir: string | undefined;
/** A frozen list outside the repository, as --frozen may name one. */
function writeList(ids: string[]): string {
  listDir ??= makeTempDir("calibrate-lists");
  const path = join(listDir, `frozen-${lists++}.json`);
  writeFileSync(path, JSON.stringify({ frozen: ids }));
  return path;
}

// The gate of a team that runs `freezegate check` on data the freezegate pytest plugin's run
// produced: examples/python-ledger with story 1's honest freeze, real pytest + pytest-cov + the
// plugin, and the built CLI.
const LEDGER_EXAMPLE = join(REPO_ROOT, "examples/python-ledger");
const PLUGIN = join(REPO_ROOT, "integrations/pytest");
const STATEMENT = "tests/test_ledger.py::test_statement_lists_entries";
const HONEST = "tests/test_ledger.py::test_withdraw_more_than_balance";

let ledgerRepo: TempRepo;

/** The CI recipe's test step. */
function pytestWithPlugin(extra: string[] = []): void {
  rmSync(ledgerRepo.path(".coverage"), { force: true });
  rmSync(ledgerRepo.path(".freezegate"), { recursive: true, force: true });
  const r = runPython(
    [
      ...["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "freezegate_pytest"],
      ...["--cov", "--cov-context=test", "--cov-report=", "--freezegate-today", "2026-10-18"],
      ...extra,
    ],
    { cwd: ledgerRepo.dir, env: { PYTHONPATH: PLUGIN } },
  );
  if (r.status !== 0) throw new Error(`pytest failed: ${r.stdout}\n${r.stderr}`);
}

function calibrateLedger(args: string[] = []) {
  const r = runCli(["calibrate", "--format", "json", ...args], { cwd: ledgerRepo.dir });
  if (r.status !== 0 && r.status !== 1) throw new Error(`calibrate failed: ${r.stderr}`);
  const report = JSON.parse(r.stdout);
  assertMatchesSchema("calibrate-report.schema.json", report);
  return { status: r.status, report, canaries: report.canaries as Canary[] };
}

describePython("calibrate on the data of a run of the freezegate pytest plugin", () => {
  beforeAll(() => {
    ledgerRepo = makeTempRepo();
    cpSync(join(LEDGER_EXAMPLE, "project"), ledgerRepo.dir, { recursive: true });
    cpSync(join(LEDGER_EXAMPLE, "stories/1-honest-freeze"), ledgerRepo.dir, { recursive: true });
    ledgerRepo.write(".gitignore", ".coverage\n.freezegate/\n");
    ledgerRepo.commit("the ledger service with story 1's honest freeze");
  });
  afterAll(() => ledgerRepo?.cleanup());

  it("calibrates check's gate with a ledger: a test an xfail muted counts as frozen, as check counts it", () => {
    ledgerRepo.git("switch", "-q", "-c", "xfail", "main");
    ledgerRepo.write(
      "tests/conftest.py",
      'import pytest\n\n\ndef pytest_collection_modifyitems(items):\n    for item in items:\n        if item.name == "test_statement_lists_entries":\n            item.add_marker(pytest.mark.xfail(reason="follow-up"))\n',
    );
    ledgerRepo.commit("mute the statement test");
    pytestWithPlugin();
    const { status, report, canaries } = calibrateLedger();
    expect(report.settings.gate).toBe("check");
    expect(report.settings.frozen).toMatchObject({ file: "freeze-ledger.json", muted: 1 });
    expect(report.appliedRecord).toEqual({
      file: ".freezegate/applied.json",
      agrees: true,
      message: null,
    });
    // statement() runs only under the muted test: check fails a change there, and so must
    // the calibration's shadow canaries.
    const muted = canaries.filter((c) => c.tests.includes(STATEMENT));
    expect(muted.length).toBeGreaterThan(0);
    for (const c of muted) {
      expect(c).toMatchObject({ kind: "shadow", path: "app/ledger.py", verdict: "shadowed" });
      expect(c.fired).toBe(true);
    }
    expect(status).toBe(0);

    // The same freeze as a quarantine list calibrates audit's gate, which counts the muted
    // test as live: those statements are controls there.
    const quarantine = join(ledgerRepo.dir, "quarantine.json");
    writeFileSync(quarantine, JSON.stringify({ frozen: [HONEST] }));
    try {
      const asAudit = calibrateLedger(["--frozen", quarantine]);
      expect(asAudit.report.settings.gate).toBe("audit");
      expect(asAudit.report.settings.frozen.muted).toBe(0);
      const live = asAudit.canaries.filter((c) => c.tests.includes(STATEMENT));
      expect(live.length).toBeGreaterThan(0);
      for (const c of live) expect(c).toMatchObject({ kind: "control", verdict: "defended" });
    } finally {
      rmSync(quarantine);
    }
  });

  it("exit 1 when the tests applied another ledger than the gate reads (given on pytest's command line)", () => {
    ledgerRepo.git("switch", "-q", "-c", "hidden-flag", "main");
    mkdirSync(ledgerRepo.path("ci"), { recursive: true });
    copyFileSync(
      join(LEDGER_EXAMPLE, "stories/3-shadowed-change/freeze-ledger.json"),
      ledgerRepo.path("ci/pytest-ledger.json"),
    );
    ledgerRepo.commit("a ledger for CI");
    pytestWithPlugin(["--freezegate-ledger", "ci/pytest-ledger.json"]);
    const message =
      "the tests ran with the ledger ci/pytest-ledger.json (the freezegate pytest plugin's applied record .freezegate/applied.json), but the check gate judges freeze-ledger.json";
    const { status, report } = calibrateLedger();
    expect(status).toBe(1);
    expect(report.appliedRecord).toMatchObject({ agrees: false });
    expect(report.appliedRecord.message).toContain(message);
    expect(report.failures[0]).toContain(
      `the tests did not apply the frozen list the gate reads: ${message}`,
    );
    // A quarantine list that freezes what the plugin froze: audit's gate fires on every
    // canary, yet it reads another list than the tests applied, and nothing else shows it.
    const quarantine = join(ledgerRepo.dir, "quarantine.json");
    writeFileSync(quarantine, JSON.stringify({ frozen: [HONEST, STATEMENT] }));
    try {
      const asAudit = calibrateLedger(["--frozen", quarantine]);
      expect(asAudit.canaries.some((c) => c.kind === "shadow")).toBe(true);
      expect(asAudit.canaries.every((c) => c.ok)).toBe(true);
      expect(asAudit.report.cannotFire).toBeNull();
      expect(asAudit.status).toBe(1);
      expect(asAudit.report.failures).toEqual([
        `the tests did not apply the frozen list the gate reads: ${asAudit.report.appliedRecord.message}`,
      ]);
      expect(asAudit.report.appliedRecord.message).toContain(
        "but the audit gate judges quarantine.json",
      );
      const text = runCli(["calibrate", "--frozen", quarantine], { cwd: ledgerRepo.dir });
      expect(text.status).toBe(1);
      expect(text.stdout).toMatch(
        /^FAIL: the tests did not apply the frozen list the gate reads$/m,
      );
      const sarif = JSON.parse(
        runCli(["calibrate", "--frozen", quarantine, "--format", "sarif"], { cwd: ledgerRepo.dir })
          .stdout,
      );
      validateSarif(sarif);
      expect(sarif.runs[0].results.map((r: { ruleId: string }) => r.ruleId)).toEqual([
        "frozen-list-not-applied",
      ]);
    } finally {
      rmSync(quarantine);
    }
  });

  it("exit 1 when the ledger changed after the tests ran", () => {
    ledgerRepo.git("switch", "-q", "-c", "edited", "main");
    pytestWithPlugin();
    expect(calibrateLedger().report.appliedRecord.agrees).toBe(true);
    // A freeze added after the run: the gate's canaries fire, on data of a run that did not
    // apply that ledger.
    copyFileSync(
      join(LEDGER_EXAMPLE, "stories/3-shadowed-change/freeze-ledger.json"),
      ledgerRepo.path("freeze-ledger.json"),
    );
    try {
      const { status, report, canaries } = calibrateLedger();
      expect(canaries.every((c) => c.ok)).toBe(true);
      expect(report.cannotFire).toBeNull();
      expect(status).toBe(1);
      expect(report.appliedRecord.message).toMatch(
        /^the tests ran with another version of freeze-ledger\.json than the check gate judges/,
      );
    } finally {
      ledgerRepo.git("checkout", "--", "freeze-ledger.json");
    }
  });
});
