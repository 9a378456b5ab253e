// `freezegate calibrate` end to end on data recorded by real pytest-cov: a healthy setup (every
// shadow canary fails the gate, no control does), setups where the gate cannot fire (nothing
// frozen; frozen tests that execute nothing only they execute) and setups where a setting
// breaks the gate (a test-files glob that takes a source file for a test; a frozen list the
// data does not match, let through by allow-unresolved). The scenario: test/fixtures/scenarios/shop.

import { cpSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, makeTempDir, runPytestCov } from "../helpers/python.js";
import { assertMatchesSchema } from "../helpers/schema.js";
import { treeState } from "../helpers/tree-state.js";

const SCENARIO = join(REPO_ROOT, "test/fixtures/scenarios/shop");

interface Canary {
  kind: string;
  path: string;
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
    expect(refused.stderr).toMatch(/match no test in the coverage data/);
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
