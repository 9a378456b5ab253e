// Compensation coverage on real data: real git, real pytest + pytest-cov + Hypothesis with the
// freezegate plugin. test_discount is the only test of discount's rate > 0 branch, so freezing
// it withdraws that branch's two lines; one property exercises them, the other never does.
// check, impact and stats show how much of what the freeze withdrew the property executes, and
// with min_compensation the deposit gate fails a freeze whose property covers too little, or
// whose figure the data cannot give.

import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPython } from "../helpers/python.js";

const PLUGIN = join(REPO_ROOT, "integrations/pytest");
const TODAY = "2026-10-14";
const FROZEN = "tests/test_prices.py::test_discount";
const COVERS_ALL = "tests/props/test_price_props.py::test_discount_never_raises_the_price";
const COVERS_NONE = "tests/props/test_price_props.py::test_clamp_stays_in_range";
/** The lines of app/prices.py only test_discount executes: the rate > 0 branch. */
const WITHDRAWN = [4, 5];

const PRICES = [
  "def discount(amount, rate):",
  "    if rate <= 0:",
  "        return amount",
  "    cut = amount * rate",
  "    return amount - cut",
  "",
  "",
  "def clamp(value, low, high):",
  "    if value < low:",
  "        return low",
  "    if value > high:",
  "        return high",
  "    return value",
  "",
].join("\n");

const TESTS = [
  "from app.prices import clamp, discount",
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
  "def test_clamp_low():",
  "    assert clamp(-1, 0, 10) == 0",
  "",
].join("\n");

const PROPS = [
  "from hypothesis import given, settings, strategies as st",
  "",
  "from app.prices import clamp, discount",
  "",
  "",
  "@settings(max_examples=20, derandomize=True, database=None)",
  "@given(st.integers(0, 1000), st.floats(0.01, 0.99))",
  "def test_discount_never_raises_the_price(amount, rate):",
  "    assert discount(amount, rate) <= amount",
  "",
  "",
  "@settings(max_examples=20, derandomize=True, database=None)",
  "@given(st.integers(-100, 100))",
  "def test_clamp_stays_in_range(value):",
  "    assert 0 <= clamp(value, 0, 10) <= 10",
  "",
].join("\n");

function ledger(testId: string, property: string, policy: object = {}): string {
  const freeze = {
    test_id: testId,
    reason: "flaky on the shared runner",
    owner: "finley",
    opened: "2026-10-12",
    expires: "2026-10-20",
    invariant: "a discount never raises the price",
    compensating_property: property,
    reused_property: true,
  };
  return `${JSON.stringify({ version: 1, policy, freezes: [freeze], properties: [] }, null, 2)}\n`;
}

interface Compensation {
  state: string;
  withdrawn: number | null;
  compensated: number | null;
  ratio: number | null;
  minCompensation: number | null;
  summary: string;
}
interface Finding {
  code: string;
  testId?: string;
  message: string;
  details?: Record<string, unknown>;
}
interface CheckJson {
  exitCode: number;
  failedGates: string[];
  ledger: { entries: { testId: string; compensation: Compensation | null }[] };
  gates: { gate: string; findings: Finding[]; notes: string[] }[];
}

describePython("compensation coverage (real pytest, pytest-cov, Hypothesis, plugin)", () => {
  let repo: TempRepo;
  /** Commit a ledger and run the suite at that commit, as CI does. */
  const freezeAndRun = (text: string, ...pytestArgs: string[]) => {
    repo.write("freeze-ledger.json", text);
    repo.commit("freeze");
    const r = runPython(
      [
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "freezegate_pytest",
        "--cov=app",
        "--cov-context=test",
        "--cov-report=",
        "--freezegate-today",
        TODAY,
        ...pytestArgs,
      ],
      { cwd: repo.dir, env: { PYTHONPATH: PLUGIN } },
    );
    expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
  };
  const cli = (args: string[]) => runCli(args, { cwd: repo.dir });
  const check = (format = "json", extra: string[] = []) =>
    cli([
      "check",
      "--base",
      "base",
      "--today",
      TODAY,
      "--samples",
      ".freezegate/samples.json",
      "--format",
      format,
      ...extra,
    ]);
  const checkJson = (extra: string[] = []) => {
    const r = check("json", extra);
    expect(r.stderr).toBe("");
    return { status: r.status, report: JSON.parse(r.stdout) as CheckJson };
  };
  const depositOf = (report: CheckJson) => report.gates.find((g) => g.gate === "deposit");
  const compensationFindings = (report: CheckJson) =>
    (depositOf(report)?.findings ?? []).filter((f) => f.code.startsWith("deposit-compensation"));

  beforeAll(() => {
    repo = makeTempRepo();
    repo.write(".gitignore", ".freezegate/\n.coverage\n__pycache__/\n");
    repo.write("app/__init__.py", "");
    repo.write("app/prices.py", PRICES);
    repo.write("tests/__init__.py", "");
    repo.write("tests/test_prices.py", TESTS);
    repo.write("tests/props/__init__.py", "");
    repo.write("tests/props/test_price_props.py", PROPS);
    repo.write(
      "freeze-ledger.json",
      `${JSON.stringify({ version: 1, freezes: [], properties: [] })}\n`,
    );
    repo.commit("base");
    repo.git("branch", "base");
  });
  afterAll(() => repo?.cleanup());

  it("a property that executes none of the withdrawn lines: shown, and not judged without min_compensation", {
    timeout: 120_000,
  }, () => {
    freezeAndRun(ledger(FROZEN, COVERS_NONE), "--deselect", COVERS_ALL);
    const { status, report } = checkJson();
    expect(status).toBe(0);
    expect(report.ledger.entries[0]?.compensation).toEqual({
      state: "measured",
      withdrawn: 2,
      compensated: 0,
      ratio: 0,
      minCompensation: null,
      summary: `${COVERS_NONE} executes 0 of the 2 lines it withdraws (0%)`,
    });
    expect(compensationFindings(report)).toEqual([]);
    expect(depositOf(report)?.notes).toContain(
      "min_compensation is not set: the compensation figures are shown, not judged",
    );
    const text = check("text");
    expect(text.stdout).toContain(
      `note: compensation of ${FROZEN}: ${COVERS_NONE} executes 0 of the 2 lines it withdraws (0%)`,
    );
  });

  it("the same freeze under min_compensation: deposit-compensation-low, and check exits 1", {
    timeout: 120_000,
  }, () => {
    freezeAndRun(ledger(FROZEN, COVERS_NONE, { min_compensation: 0.5 }), "--deselect", COVERS_ALL);
    const { status, report } = checkJson();
    expect(status).toBe(1);
    expect(report.failedGates).toEqual(["deposit"]);
    expect(compensationFindings(report)).toEqual([
      expect.objectContaining({
        code: "deposit-compensation-low",
        testId: FROZEN,
        message: `the freeze of ${FROZEN} deposits ${COVERS_NONE}, which executes 0 of the 2 lines the freeze withdraws (0%; min_compensation is 0.5)`,
        details: expect.objectContaining({
          withdrawn: 2,
          compensated: 0,
          minCompensation: 0.5,
          missed: [{ path: "app/prices.py", lines: WITHDRAWN }],
        }),
      }),
    ]);
    const sarif = JSON.parse(check("sarif").stdout);
    expect(sarif.runs[0].results.map((r: { ruleId: string }) => r.ruleId)).toContain(
      "deposit-compensation-low",
    );
  });

  it("a property that executes every withdrawn line passes min_compensation 1", {
    timeout: 120_000,
  }, () => {
    freezeAndRun(ledger(FROZEN, COVERS_ALL, { min_compensation: 1 }));
    const { status, report } = checkJson();
    expect(status).toBe(0);
    expect(report.ledger.entries[0]?.compensation).toMatchObject({
      state: "measured",
      withdrawn: 2,
      compensated: 2,
      ratio: 1,
      minCompensation: 1,
    });
    expect(compensationFindings(report)).toEqual([]);
  });

  it("impact --property and stats show the figure", { timeout: 120_000 }, () => {
    freezeAndRun(ledger(FROZEN, COVERS_NONE), "--deselect", COVERS_ALL);
    const impact = cli(["impact", FROZEN, "--property", COVERS_NONE, "--format", "json"]);
    expect(impact.stderr).toBe("");
    const figure = JSON.parse(impact.stdout).compensation;
    expect(figure).toEqual([
      expect.objectContaining({
        property: COVERS_NONE,
        state: "measured",
        withdrawn: 2,
        compensated: 0,
      }),
    ]);
    const text = cli(["impact", FROZEN, "--property", COVERS_NONE]);
    expect(text.stdout).toContain(
      `as compensating property: ${COVERS_NONE} executes 0 of the 2 lines it withdraws (0%)`,
    );
    const stats = cli([
      "stats",
      "--base",
      "base",
      "--today",
      TODAY,
      "--samples",
      ".freezegate/samples.json",
      "--format",
      "json",
    ]);
    expect(stats.stderr).toBe("");
    expect(JSON.parse(stats.stdout).compensation).toEqual([
      expect.objectContaining({
        testId: FROZEN,
        property: COVERS_NONE,
        withdrawn: 2,
        compensated: 0,
        ratio: 0,
      }),
    ]);
  });

  it("a frozen test the data does not show: the figure is unknown, never 0 of 0, and a finding under min_compensation", {
    timeout: 120_000,
  }, () => {
    // The plugin's run applied the freeze and counted the samples; the coverage data comes
    // from a job that ran only the properties, so it holds nothing of the frozen test.
    const propertiesOnly = () => {
      const r = runPython(
        [
          "-m",
          "pytest",
          "-q",
          "-p",
          "no:cacheprovider",
          "--cov=app",
          "--cov-context=test",
          "--cov-report=",
          "tests/props",
        ],
        { cwd: repo.dir },
      );
      expect(r.status, `${r.stdout}\n${r.stderr}`).toBe(0);
    };
    freezeAndRun(ledger(FROZEN, COVERS_ALL));
    propertiesOnly();
    // The shape gate fails the freeze of a test the data does not have (unknown-test); the
    // deposit gate only when min_compensation asks for the figure.
    const off = checkJson(["--allow-unresolved"]);
    expect(off.report.failedGates).toEqual(["shape"]);
    expect(compensationFindings(off.report)).toEqual([]);
    expect(off.report.ledger.entries[0]?.compensation).toMatchObject({
      state: "frozen-test-not-in-data",
      withdrawn: null,
      compensated: null,
      ratio: null,
    });
    freezeAndRun(ledger(FROZEN, COVERS_ALL, { min_compensation: 0 }));
    propertiesOnly();
    const on = checkJson(["--allow-unresolved"]);
    expect(on.status).toBe(1);
    expect(on.report.failedGates).toEqual(["shape", "deposit"]);
    expect(compensationFindings(on.report).map((f) => f.code)).toEqual([
      "deposit-compensation-unknown",
    ]);
  });
});
