// `impact --mutants` on real projects: real git, real pytest + pytest-cov + Hypothesis, the
// mutator and the outcomes recorder of integrations/pytest, the built CLI. test_discount is the
// test to freeze: it alone checks discount's cut (its mutants are the freeze's to withdraw), a
// live test reaches cents() only through a fixture (its mutants are still killed live), the
// property recovers the mutants that raise a price, and a dead assignment's mutants survive.
// Another target's loop turns endless under a mutant (a timeout). The runs never write the
// work tree or .git, remove every copy when interrupted, and refuse tests that import an
// installed copy of the code.

import { spawn } from "node:child_process";
import { cpSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { CLI, expectOneLineError, REPO_ROOT, runCli } from "../helpers/cli.js";
import { isolatedGitEnv, makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, makeTempDir, pythonEnv, runPytestCov } from "../helpers/python.js";
import { treeState } from "../helpers/tree-state.js";

const TARGET = "tests/test_prices.py::test_discount";
const PROPERTY = "tests/test_props.py::test_discount_never_raises_the_price";
const FIXTURE_TEST = "tests/test_units.py::test_price_in_cents";
const LOOP_TARGET = "tests/test_loop.py::test_count_up";

const PRICES = [
  "def discount(amount, rate):",
  "    if rate <= 0:",
  "        return amount",
  "    cut = amount * rate",
  "    return amount - cut",
  "",
  "",
  "def describe(amount):",
  "    digits = 2",
  "    return str(amount)",
  "",
].join("\n");

const UNITS = ["def cents(amount):", "    return round(amount * 100)", ""].join("\n");

const LOOP = [
  "def count_up(n):",
  "    i = 0",
  "    while i < n:",
  "        i += 1",
  "    return i",
  "",
].join("\n");

// With MUTANT_TEST_PIDS, each pytest session notes its pid there, and the third (the first
// mutant's run, after the baseline and the probe) hangs: an interrupt must end it.
const CONFTEST = [
  "import os",
  "import time",
  "",
  "import pytest",
  "",
  "from app.units import cents",
  "",
  "",
  "def pytest_sessionstart(session):",
  '    pids = os.environ.get("MUTANT_TEST_PIDS")',
  "    if pids:",
  '        with open(pids, "a") as f:',
  '            f.write(f"{os.getpid()}\\n")',
  "        with open(pids) as f:",
  "            if len(f.read().split()) >= 3:",
  "                time.sleep(600)",
  "",
  "",
  "@pytest.fixture",
  "def price_in_cents():",
  "    return cents(12.5)",
  "",
].join("\n");

const TEST_PRICES = [
  "from app.prices import describe, discount",
  "from app.units import cents",
  "",
  "",
  "def test_discount():",
  "    assert discount(100, 0.25) == 75",
  "    assert cents(0.75) == 75",
  "    assert describe(75)",
  "",
  "",
  "def test_no_discount():",
  "    assert discount(100, 0) == 100",
  "",
].join("\n");

const TEST_UNITS = [
  "def test_price_in_cents(price_in_cents):",
  "    assert price_in_cents == 1250",
  "",
].join("\n");

const TEST_PROPS = [
  "from hypothesis import given, settings, strategies as st",
  "",
  "from app.prices import discount",
  "",
  "",
  "@settings(max_examples=25, derandomize=True, database=None)",
  "@given(st.integers(1, 1000), st.floats(0.01, 0.99))",
  "def test_discount_never_raises_the_price(amount, rate):",
  "    assert discount(amount, rate) <= amount",
  "",
].join("\n");

const TEST_LOOP = [
  "from app.loop import count_up",
  "",
  "",
  "def test_count_up():",
  "    assert count_up(3) == 3",
  "",
].join("\n");

interface MutantsJson {
  command: string;
  summary: string;
  counts: Record<string, number | null>;
  timeoutSeconds: number | null;
  leftOut: { testId: string; role: string; outcome: string | null }[];
  mutants: {
    path: string;
    line: number;
    kind: string;
    description: string;
    class: string;
    killedBy: string[];
  }[];
  notes: string[];
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

const python = () => pythonEnv?.exe ?? "python3";
/** The command a user gives: pytest on the Python that has it. */
const pytestCommand = () => `${python()} -m pytest`;

/** impact --mutants on freezing test_discount with its property, over app/prices.py. */
const discountMutants = () => [
  TARGET,
  "--property",
  PROPERTY,
  "--mutants",
  "--run",
  pytestCommand(),
  "--source-files",
  "app/prices.py",
];

describePython("impact --mutants (real pytest, pytest-cov, Hypothesis)", () => {
  let repo: TempRepo;

  const impact = (args: string[], env: NodeJS.ProcessEnv = {}) =>
    runCli(["impact", ...args, "--python", python()], { cwd: repo.dir, env });
  const mutantsOf = (args: string[], env: NodeJS.ProcessEnv = {}) => {
    const r = impact([...args, "--format", "json"], env);
    expect(r.status, r.stderr).toBe(0);
    return JSON.parse(r.stdout).mutants as MutantsJson;
  };
  const onLine = (m: MutantsJson, path: string, line: number) =>
    m.mutants.filter((x) => x.path === path && x.line === line);

  beforeAll(() => {
    repo = makeTempRepo();
    repo.write(".gitignore", ".coverage\n__pycache__/\n.hypothesis/\n");
    repo.write("app/__init__.py", "");
    repo.write("app/prices.py", PRICES);
    repo.write("app/units.py", UNITS);
    repo.write("app/loop.py", LOOP);
    repo.write("tests/__init__.py", "");
    repo.write("tests/conftest.py", CONFTEST);
    repo.write("tests/test_prices.py", TEST_PRICES);
    repo.write("tests/test_units.py", TEST_UNITS);
    repo.write("tests/test_props.py", TEST_PROPS);
    repo.write("tests/test_loop.py", TEST_LOOP);
    repo.commit("base");
    runPytestCov(repo.dir);
  });
  afterAll(() => repo?.cleanup());

  it("says which kills the freeze withdraws and the property recovers, and writes nothing of the work tree or .git", {
    timeout: 240_000,
  }, () => {
    const before = treeState(repo.dir);
    const m = mutantsOf([...discountMutants(), "--source-files", "app/units.py"]);
    expect(treeState(repo.dir)).toEqual(before);

    // Only test_discount checks the cut: freezing it withdraws those kills.
    const cut = onLine(m, "app/prices.py", 4);
    expect(cut.length).toBeGreaterThan(0);
    for (const x of cut) expect(x).toMatchObject({ class: "frozen", killedBy: [TARGET] });
    // A price raised is what the property checks: it recovers those.
    const price = onLine(m, "app/prices.py", 5);
    expect(price.length).toBeGreaterThan(0);
    for (const x of price) {
      expect(x.class).toBe("property");
      expect(x.killedBy).toEqual(expect.arrayContaining([TARGET, PROPERTY]));
    }
    // A test that reaches cents() only through its fixture still kills its mutants.
    const units = onLine(m, "app/units.py", 2);
    expect(units.length).toBeGreaterThan(0);
    for (const x of units) expect(x.class).toBe("live");
    for (const x of units) expect(x.killedBy).toContain(FIXTURE_TEST);
    // Nothing reads digits.
    const digits = onLine(m, "app/prices.py", 9);
    expect(digits.length).toBeGreaterThan(0);
    for (const x of digits) expect(x).toMatchObject({ class: "survived", killedBy: [] });
    const described = onLine(m, "app/prices.py", 10);
    for (const x of described) expect(x).toMatchObject({ class: "frozen", killedBy: [TARGET] });

    const killed = m.mutants.filter((x) => x.killedBy.length > 0).length;
    const frozen = cut.length + described.length;
    const withdrawn = frozen + price.length;
    expect(m.mutants.length).toBe(killed + digits.length);
    expect(m.counts).toMatchObject({
      killed,
      withdrawn,
      recovered: price.length,
      frozen,
      property: price.length,
      live: units.length,
      survived: digits.length,
      timeout: 0,
    });
    expect(m.summary).toBe(
      `freezing ${TARGET} withdraws ${withdrawn} of ${killed} mutant kills; its property recovers ${price.length}`,
    );
    expect(m.leftOut).toEqual([]);

    const text = impact([...discountMutants(), "--max", "2"]);
    expect(text.status, text.stderr).toBe(0);
    expect(text.stdout).toContain(`  in killed mutants: freezing ${TARGET} withdraws`);
    expect(text.stdout).toMatch(/^ {4}app\/prices\.py:\d+ \w+ .+: (frozen|property|survived)/m);
    expect(text.stdout).toMatch(/^note: 2 of the \d+ mutants ran \(--max 2/m);
    // Progress goes to stderr, never into the report.
    expect(text.stdout).not.toContain("freezegate:");
  });

  it("gives the same report with two jobs as with one", { timeout: 240_000 }, () => {
    const args = [...discountMutants(), "--timeout", "60"];
    const one = impact([...args, "--format", "json"]);
    const two = impact([...args, "--jobs", "2", "--format", "json"]);
    expect(one.status, one.stderr).toBe(0);
    expect(two.status, two.stderr).toBe(0);
    expect(two.stdout).toBe(one.stdout);
    expect((JSON.parse(one.stdout).mutants as MutantsJson).mutants.length).toBeGreaterThan(1);
  });

  it("counts a mutant whose run does not end in time as a timeout", { timeout: 240_000 }, () => {
    const m = mutantsOf([
      LOOP_TARGET,
      "--mutants",
      "--run",
      pytestCommand(),
      "--timeout",
      "2",
      "--source-files",
      "app/loop.py",
    ]);
    expect(m.timeoutSeconds).toBe(2);
    // `i += 1` made `i -= 1` never reaches n.
    const endless = m.mutants.filter((x) => x.class === "timeout");
    expect(m.mutants.find((x) => x.line === 4 && x.kind === "operator")?.class).toBe("timeout");
    expect(m.counts.timeout).toBe(endless.length);
    for (const x of endless) expect(x.killedBy).toEqual([]);
    expect(m.notes.join("\n")).toMatch(/timed out after 2 s/);
  });

  it("on SIGINT, kills the runs, removes every copy and exits 130", {
    timeout: 240_000,
  }, async () => {
    const tmp = makeTempDir("mutants-tmp");
    const pids = join(makeTempDir("mutants-pids"), "pids");
    const child = spawn(
      process.execPath,
      [
        CLI,
        "impact",
        LOOP_TARGET,
        "--mutants",
        "--run",
        pytestCommand(),
        "--timeout",
        "600",
        "--source-files",
        "app/loop.py",
        "--python",
        python(),
      ],
      {
        cwd: repo.dir,
        env: isolatedGitEnv({ NO_COLOR: "1", TMPDIR: tmp, MUTANT_TEST_PIDS: pids }),
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let stderr = "";
    child.stderr.on("data", (b: Buffer) => {
      stderr += b.toString();
    });
    const exited = new Promise<number | null>((resolve) =>
      child.on("exit", (code) => resolve(code)),
    );
    const started = () => {
      try {
        return readFileSync(pids, "utf8").trim().split("\n");
      } catch {
        return [];
      }
    };
    // The baseline, the probe and a mutant's run have started; that run hangs in a copy.
    while (started().length < 3 && child.exitCode === null) {
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(started().length, stderr).toBeGreaterThanOrEqual(3);
    expect(readdirSync(tmp).some((n) => n.startsWith("freezegate-mutants-"))).toBe(true);
    child.kill("SIGINT");
    const late = new Promise<"still running">((r) => {
      setTimeout(() => r("still running"), 30_000).unref();
    });
    const code = await Promise.race([exited, late]);
    if (code === "still running") child.kill("SIGKILL");
    expect(code).toBe(130);
    expect(stderr).toContain("interrupted");
    expect(readdirSync(tmp)).toEqual([]);
    // A killed process is gone once its new parent has reaped it.
    const alive = () => started().filter((pid) => isAlive(Number(pid)));
    for (let i = 0; i < 50 && alive().length > 0; i++) await new Promise((r) => setTimeout(r, 100));
    expect(alive()).toEqual([]);
  });

  it("refuses tests that import an installed copy of the code", { timeout: 240_000 }, () => {
    const other = makeTempRepo();
    try {
      other.write(".gitignore", ".coverage\n__pycache__/\n");
      other.write("src/shop/__init__.py", "");
      other.write("src/shop/tax.py", "def with_tax(amount):\n    return amount * 2\n");
      other.write(
        "tests/test_tax.py",
        "from shop.tax import with_tax\n\n\ndef test_with_tax():\n    assert with_tax(10) == 20\n",
      );
      other.commit("base");
      runPytestCov(other.dir, [], { PYTHONPATH: "src" });
      // The package "installed" elsewhere, first on the tests' path.
      const site = makeTempDir("site");
      cpSync(other.path("src/shop"), join(site, "shop"), { recursive: true });
      const tmp = makeTempDir("mutants-tmp");
      const run = (path: string) =>
        runCli(
          [
            "impact",
            "tests/test_tax.py::test_with_tax",
            "--mutants",
            "--run",
            `env PYTHONPATH="${path}:$PYTHONPATH" ${pytestCommand()}`,
            "--python",
            python(),
          ],
          { cwd: other.dir, env: { TMPDIR: tmp } },
        );
      const line = expectOneLineError(run(site));
      expect(line).toMatch(
        /^freezegate: error\[mutants-other-copy\]: the tests that execute src\/shop\/tax\.py do not run it/,
      );
      expect(line).toContain('tests/test_tax.py::test_with_tax" still passed');
      expect(readdirSync(tmp)).toEqual([]);
      // With the repository's source first, as the fix says, the mutants run.
      const fixed = run("src");
      expect(fixed.status, fixed.stderr).toBe(0);
      expect(fixed.stdout).toContain(
        "in killed mutants: freezing tests/test_tax.py::test_with_tax withdraws",
      );
    } finally {
      other.cleanup();
    }
  });

  it("refuses a command that does not run the tests, with its output", { timeout: 120_000 }, () => {
    const r = impact([TARGET, "--mutants", "--run", `${python()} -m pytest --no-such-flag`]);
    const line = expectOneLineError(r);
    expect(line).toMatch(
      /^freezegate: error\[mutants-baseline-failed\]: the tests did not run unchanged: `.+ -m pytest --no-such-flag -p no:freezegate_pytest .+` exited with code 4; its output ends: .*--no-such-flag/,
    );
  });

  it("lists its options in --help", () => {
    const r = runCli(["impact", "--help"], { cwd: REPO_ROOT });
    expect(r.status).toBe(0);
    for (const flag of [
      "--mutants",
      "--run CMD",
      "--jobs N",
      "--timeout SECONDS",
      "--max N",
      "--python PATH",
    ]) {
      expect(r.stdout).toContain(flag);
    }
  });
});
