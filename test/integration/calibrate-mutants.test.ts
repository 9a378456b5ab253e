// `calibrate --mutants` on a real project: real git, real pytest + pytest-cov, the mutator and
// the outcomes recorder of integrations/pytest, the built CLI. test_discount is frozen: it alone
// checks discount's cut, so `return amount - cut` is a shadow canary whose mutants only it
// kills. with_tax is a control a live test defends (its mutants are killed live); label's
// `digits = 2` is a control a live test executes without checking anything (its mutant survives:
// executed, not defended). The mutants are a report: they never change the exit code, and every
// calibrate format shows them.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectRefusal, REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, makeTempDir, pythonEnv, runPytestCov } from "../helpers/python.js";
import { validateSarif } from "../helpers/sarif.js";
import { assertMatchesSchema } from "../helpers/schema.js";
import { treeState } from "../helpers/tree-state.js";

const FROZEN = "tests/test_prices.py::test_discount";
const NO_DISCOUNT = "tests/test_prices.py::test_no_discount";
const WITH_TAX = "tests/test_prices.py::test_with_tax";

const PRICES = [
  "def discount(amount, rate):",
  "    if rate <= 0:",
  "        return amount",
  "    cut = amount * rate",
  "    return amount - cut",
  "",
  "",
  "def with_tax(amount):",
  "    return amount * 2",
  "",
  "",
  "def label(amount):",
  "    digits = 2",
  "    return str(amount)",
  "",
].join("\n");

const TEST_PRICES = [
  "from app.prices import discount, label, with_tax",
  "",
  "",
  "def test_discount():",
  "    assert discount(100, 0.25) == 75",
  "",
  "",
  "def test_no_discount():",
  "    assert discount(100, 0) == 100",
  "",
  "",
  "def test_with_tax():",
  "    assert with_tax(10) == 20",
  "",
  "",
  "def test_label():",
  "    assert label(5)",
  "",
].join("\n");

interface MutantRow {
  canary: string;
  path: string;
  line: number;
  kind: string;
  description: string;
  class: string;
  killedBy: string[];
}

const python = () => pythonEnv?.exe ?? "python3";
const mutantFlags = () => ["--mutants", "--run", `${python()} -m pytest`, "--python", python()];

describePython("calibrate --mutants (real pytest, pytest-cov)", () => {
  let repo: TempRepo;
  let out: string;

  const calibrate = (args: string[]) => runCli(["calibrate", ...args], { cwd: repo.dir });

  beforeAll(() => {
    repo = makeTempRepo();
    repo.write(".gitignore", ".coverage\n__pycache__/\n");
    repo.write("app/__init__.py", "");
    repo.write("app/prices.py", PRICES);
    repo.write("tests/__init__.py", "");
    repo.write("tests/test_prices.py", TEST_PRICES);
    repo.write("quarantine.json", JSON.stringify({ frozen: [FROZEN] }));
    repo.commit("base");
    runPytestCov(repo.dir);
    out = makeTempDir("calibrate-mutants-out");
  });
  afterAll(() => repo?.cleanup());

  it("says which mutants the live tests kill and which only frozen tests kill, in every format, without changing the exit code", {
    timeout: 240_000,
  }, () => {
    const before = treeState(repo.dir);
    const file = (format: string) => join(out, `report.${format}`);
    const formats = ["text", "markdown", "github", "junit", "sarif", "html"];
    const r = calibrate([
      ...mutantFlags(),
      "--max",
      "40",
      "--format",
      "json",
      ...formats.flatMap((f) => ["--output", `${f}=${file(f)}`]),
    ]);
    expect(treeState(repo.dir)).toEqual(before);
    // Survivors on defended lines are a report, not a failure of the gate.
    expect(r.status, r.stderr).toBe(0);
    const report = JSON.parse(r.stdout);
    assertMatchesSchema("calibrate-report.schema.json", report);
    expect(report.passed).toBe(true);
    const m = report.mutants;
    const on = (line: number) =>
      (m.mutants as MutantRow[]).filter((x) => x.path === "app/prices.py" && x.line === line);

    // The cut: only the frozen test checks it, so only it kills the mutants.
    expect(on(5).length).toBeGreaterThan(0);
    for (const x of on(5)) {
      expect(x).toMatchObject({ canary: "shadow", class: "frozen", killedBy: [FROZEN] });
    }
    // with_tax: a live test checks the result, and kills every mutant.
    expect(on(9).length).toBeGreaterThan(0);
    for (const x of on(9)) {
      expect(x).toMatchObject({ canary: "control", class: "live", killedBy: [WITH_TAX] });
    }
    // digits: a live test executes it and checks nothing it computes.
    expect(on(13).length).toBeGreaterThan(0);
    for (const x of on(13)) {
      expect(x).toMatchObject({ canary: "control", class: "survived", killedBy: [] });
    }
    // Only live tests run against a control: the frozen test, which executes `rate <= 0` too
    // and would kill its flipped condition, does not; test_no_discount does not see it.
    const condition = on(2).find((x) => x.kind === "condition");
    expect(condition).toMatchObject({ canary: "control", class: "survived", killedBy: [] });
    expect(on(3)).toEqual([expect.objectContaining({ class: "live", killedBy: [NO_DISCOUNT] })]);

    const rows = m.mutants as MutantRow[];
    const count = (canary: string, cls: string) =>
      rows.filter((x) => x.canary === canary && x.class === cls).length;
    const shadow = rows.filter((x) => x.canary === "shadow").length;
    const control = rows.filter((x) => x.canary === "control").length;
    expect(m.counts).toEqual({
      made: rows.length,
      judged: rows.length,
      shadow: {
        mutants: shadow,
        killed: count("shadow", "frozen"),
        survived: 0,
        timeout: 0,
        unjudged: 0,
      },
      control: {
        mutants: control,
        killed: count("control", "live"),
        survived: count("control", "survived"),
        timeout: 0,
        unjudged: 0,
      },
    });
    const summary = `of ${control} mutants of control statements, live tests kill ${count("control", "live")} and ${count("control", "survived")} survive (executed, not defended); of ${shadow} mutants of shadow statements, only frozen tests kill ${shadow} (the kills the freezes withdraw)`;
    expect(m.summary).toBe(summary);
    expect(m.leftOut).toEqual([]);

    const read = (format: string) => readFileSync(file(format), "utf8");
    const text = read("text");
    expect(text).toContain(`mutants (run by ${python()} -m pytest): ${summary}`);
    expect(text).toMatch(/^ {2}control app\/prices\.py:13 constant .+: survived$/m);
    expect(text).toMatch(/^PASS: the gate fired on/m);
    expect(read("markdown")).toContain(summary);
    expect(read("markdown")).toMatch(
      /\| control \| `app\/prices\.py:13` \| constant: .+ \| \*\*survived\*\* \| {2}\|/,
    );
    const github = read("github");
    expect(github).toContain(`::notice title=freezegate%3A mutants::${summary}`);
    expect(github).toMatch(
      /^::warning file=app\/prices\.py,line=13,title=freezegate%3A a mutant of a line live tests execute survived::a live test executes app\/prices\.py:13, but none kills its mutant/m,
    );
    expect(github).not.toMatch(/^::warning file=app\/prices\.py,line=9,/m);
    const junit = read("junit");
    expect(junit).toContain('<testsuite name="freezegate calibrate mutants"');
    expect(junit).toMatch(/<testsuites name="freezegate" tests="\d+" failures="0"/);
    expect(read("html")).toContain('<h2 id="mutants-h">Mutants</h2>');
    expect(read("html")).toContain(summary);
    const sarif = JSON.parse(read("sarif"));
    validateSarif(sarif);
    const results = sarif.runs[0].results as {
      ruleId: string;
      level: string;
      locations: { physicalLocation: { region: { startLine: number } } }[];
    }[];
    const lines = (rule: string) =>
      results
        .filter((x) => x.ruleId === rule)
        .map((x) => x.locations[0]?.physicalLocation.region.startLine);
    expect(new Set(lines("mutant-survived-live-tests"))).toContain(13);
    expect(lines("mutant-survived-live-tests")).not.toContain(9);
    expect(new Set(lines("kill-withdrawn-by-freeze"))).toEqual(new Set([5]));
    expect(results.every((x) => x.level !== "error")).toBe(true);
  });

  it("keeps both kinds in a small sample, and a failing calibration still exits 1", {
    timeout: 240_000,
  }, () => {
    // Seed 24 draws `return amount - cut` (2 mutants) and `return amount * 2` (3): a sample of
    // 2 keeps one of each (the same draw without the kinds' shares takes two of the latter).
    const small = calibrate([...mutantFlags(), "--max", "2", "--seed", "24", "--format", "json"]);
    expect(small.status, small.stderr).toBe(0);
    const m = JSON.parse(small.stdout).mutants;
    expect(m.counts.made).toBe(5);
    expect(m.counts.judged).toBe(2);
    expect(m.counts.shadow.mutants).toBe(1);
    expect(m.counts.control.mutants).toBe(1);
    expect(m.notes).toContain(
      "2 of the 5 mutants ran (--max 2 --seed 24: a seeded sample, the same for the same seed)",
    );

    // A test-files glob takes the source file out of the gate: the shadow canaries pass it,
    // and the calibration fails, however the mutants fare.
    repo.write("pyproject.toml", '[tool.freezegate]\ntest-files = ["tests/**", "app/prices.py"]\n');
    try {
      const broken = calibrate([...mutantFlags(), "--max", "6", "--format", "json"]);
      expect(broken.status, broken.stderr).toBe(1);
      const report = JSON.parse(broken.stdout);
      expect(report.passed).toBe(false);
      expect(report.mutants.counts.shadow.killed).toBeGreaterThan(0);
    } finally {
      repo.remove("pyproject.toml");
    }
  });

  it("refuses its flags without --mutants, but not --max", () => {
    expectRefusal(calibrate(["--run", "pytest"]), "mutants-option-alone");
    expectRefusal(calibrate(["--jobs", "2"]), "mutants-option-alone");
    expectRefusal(calibrate(["--mutants"]), "mutants-need-run");
    const plain = calibrate(["--max", "4", "--format", "json"]);
    expect(plain.status, plain.stderr).toBe(0);
    expect(JSON.parse(plain.stdout)).not.toHaveProperty("mutants");
  });

  it("lists its options in --help", () => {
    const r = runCli(["calibrate", "--help"], { cwd: REPO_ROOT });
    expect(r.status).toBe(0);
    for (const flag of [
      "--mutants",
      "--run CMD",
      "--jobs N",
      "--timeout SECONDS",
      "--python PATH",
    ]) {
      expect(r.stdout).toContain(flag);
    }
    expect(r.stdout).toContain("130  interrupted");
  });
});
