// The deposit gate's evidence, end to end: "every freeze deposits a
// compensating property that really ran". A property that is itself frozen (the withdrawn
// test, or another frozen test) compensates nothing; a samples artifact recorded at another
// commit (a cache restore, an old file, a hand edit), or one that cannot say its commit, is no
// evidence of this commit's run. First on hand-made repositories through the built CLI, then
// with real pytest + Hypothesis + the plugin on examples/python-ledger, and last on a property
// whose generated values all print the same, which must count every example Hypothesis ran.

import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  type CliResult,
  expectOneLineError,
  expectRefusal,
  REPO_ROOT,
  runCli,
} from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, makeTempDir, runPython } from "../helpers/python.js";

const FROZEN = "tests/test_billing.py::test_proration_rounding";
const SLOW = "tests/props/test_slow.py::test_slow_monotonic";
const PROP = "tests/props/test_proration_props.py::test_monotonic_in_period";

function freeze(testId: string, property: string) {
  return {
    test_id: testId,
    reason: "order-dependent failure in full suite; passes in isolation",
    owner: "finley",
    opened: "2026-10-12",
    expires: "2026-10-26",
    invariant: "proration amount never decreases when the period lengthens",
    compensating_property: property,
    reused_property: true,
  };
}

const ledgerText = (freezes: object[]) =>
  `${JSON.stringify({ version: 1, policy: {}, freezes, properties: [] }, null, 2)}\n`;

interface DepositFinding {
  code: string;
  testId: string;
  message: string;
  details?: Record<string, unknown>;
}

const findingsOf = (r: CliResult) => {
  expect(r.stderr).toBe("");
  return (JSON.parse(r.stdout) as { findings: DepositFinding[] }).findings;
};

describe("deposit check: the evidence must come from a live property, at HEAD", () => {
  let repo: TempRepo;
  let collected: string;
  let head: string;
  let scratch: string;
  const samples = (name: string, value: object) => {
    const path = join(scratch, name);
    writeFileSync(path, JSON.stringify(value));
    return path;
  };
  const atHead = (counts: Record<string, number>) =>
    samples("samples.json", {
      version: 2,
      commit: head,
      properties: Object.fromEntries(
        Object.entries(counts).map(([id, n]) => [id, { distinct: n }]),
      ),
    });
  const deposit = (samplesPath: string, format: string[] = ["--format", "json"]) =>
    runCli(
      [
        "deposit",
        "check",
        "--base",
        "main",
        "--collected",
        collected,
        "--samples",
        samplesPath,
        ...format,
      ],
      { cwd: repo.dir },
    );
  const commitLedger = (freezes: object[]) => {
    repo.write("freeze-ledger.json", ledgerText(freezes));
    head = repo.commit("the freezes");
  };

  beforeAll(() => {
    repo = makeTempRepo();
    repo.write("tests/test_billing.py", "def test_proration_rounding():\n    pass\n");
    repo.write("tests/props/test_slow.py", "def test_slow_monotonic():\n    pass\n");
    repo.write(
      "tests/props/test_proration_props.py",
      "def test_monotonic_in_period():\n    pass\n",
    );
    repo.write("freeze-ledger.json", ledgerText([]));
    repo.commit("base");
    repo.git("checkout", "-q", "-b", "patch");
    scratch = makeTempDir("deposit-evidence");
    collected = join(scratch, "collected.txt");
    writeFileSync(collected, `${[FROZEN, SLOW, PROP].join("\n")}\n`);
  });
  afterAll(() => repo.cleanup());

  it("refuses the frozen test deposited as its own compensation, however many inputs it ran on", () => {
    commitLedger([freeze(FROZEN, FROZEN)]);
    const r = deposit(atHead({ [FROZEN]: 73 }));
    expect(r.status).toBe(1);
    expect(findingsOf(r)).toEqual([
      expect.objectContaining({
        code: "deposit-not-collected",
        testId: FROZEN,
        message: `the freeze of ${FROZEN} deposits ${FROZEN}, which is the frozen test itself: a frozen test's failures do not gate, so it compensates nothing`,
        details: { frozenBy: [FROZEN] },
      }),
    ]);
    const text = deposit(atHead({ [FROZEN]: 73 }), []);
    expect(text.status).toBe(1);
    expect(text.stdout).toContain("which is the frozen test itself");
  });

  it("refuses a property frozen by another freeze, exact or glob (the audit's matching)", () => {
    commitLedger([freeze(FROZEN, SLOW), freeze(SLOW, PROP)]);
    const exact = deposit(atHead({ [SLOW]: 50, [PROP]: 50 }));
    expect(exact.status).toBe(1);
    expect(findingsOf(exact).map((f) => [f.code, f.testId, f.message])).toEqual([
      [
        "deposit-not-collected",
        FROZEN,
        `the freeze of ${FROZEN} deposits ${SLOW}, which is frozen too (by ${SLOW}): a frozen test's failures do not gate, so it compensates nothing`,
      ],
    ]);

    commitLedger([freeze(FROZEN, SLOW), freeze("tests/props/test_slow.py::test_slow_*", PROP)]);
    const glob = deposit(atHead({ [SLOW]: 50, [PROP]: 50 }));
    expect(glob.status).toBe(1);
    expect(findingsOf(glob).map((f) => [f.code, f.testId, f.details])).toEqual([
      ["deposit-not-collected", FROZEN, { frozenBy: ["tests/props/test_slow.py::test_slow_*"] }],
    ]);

    // The same freezes with a live property pass.
    commitLedger([freeze(FROZEN, PROP), freeze(SLOW, PROP)]);
    expect(deposit(atHead({ [PROP]: 50 })).status).toBe(0);
  });

  it("refuses (exit 2) a samples artifact recorded at another commit", () => {
    commitLedger([freeze(FROZEN, PROP)]);
    const before = head;
    const old = atHead({ [PROP]: 50 });
    expect(deposit(old).status).toBe(0);
    repo.write("tests/props/test_proration_props.py", "def test_monotonic_in_period():\n    1\n");
    head = repo.commit("narrow the property");
    expect(expectRefusal(deposit(old), "samples-other-commit")).toMatch(
      `samples artifact ${old} was recorded at commit ${before.slice(0, 12)}, not at HEAD (${head.slice(0, 12)})`,
    );
  });

  it("refuses (exit 2) an artifact that cannot name its commit: version 1, null, none", () => {
    // HEAD is the previous test's commit: one live deposit, which an artifact at HEAD passes.
    expect(deposit(atHead({ [PROP]: 50 })).status).toBe(0);
    const v1 = samples("v1.json", { version: 1, properties: { [PROP]: { distinct: 50 } } });
    expect(expectRefusal(deposit(v1), "samples-version-1")).toMatch(
      `samples artifact ${v1}: "version" is 1`,
    );
    const nul = samples("null.json", { version: 2, commit: null, properties: {} });
    expect(expectRefusal(deposit(nul), "samples-no-commit")).toMatch(
      `samples artifact ${nul}: "commit" is null (the run could not tell its commit), so its counts cannot be tied to HEAD (${head.slice(0, 12)})`,
    );
    const none = samples("none.json", { version: 2, properties: {} });
    expect(expectOneLineError(deposit(none))).toContain(
      `samples artifact ${none}: the top level lacks "commit"`,
    );
  });
});

// ---------------------------------------------------------------------------------------------

const EXAMPLE = join(REPO_ROOT, "examples/python-ledger");
const PLUGIN = join(REPO_ROOT, "integrations/pytest");
const TODAY = "2026-10-18";
const DEPOSIT = "tests/properties/test_ledger.py::test_withdrawal_beyond_balance_is_rejected";

describePython("with real pytest and the plugin (examples/python-ledger)", () => {
  let repo: TempRepo;
  const pytest = () => {
    const r = runPython(
      [
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--cov",
        "--cov-context=test",
        "--cov-report=",
        "--freezegate-today",
        TODAY,
      ],
      { cwd: repo.dir, env: { PYTHONPATH: PLUGIN } },
    );
    return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
  };
  const cli = (args: string[]) => runCli(args, { cwd: repo.dir });
  const check = (samplesPath: string) =>
    cli([
      "check",
      "--base",
      "base",
      "--today",
      TODAY,
      "--samples",
      samplesPath,
      "--format",
      "json",
    ]);
  const samplesOf = () =>
    JSON.parse(readFileSync(join(repo.dir, ".freezegate/samples.json"), "utf8")) as {
      version: number;
      commit: string;
      properties: Record<string, { distinct: number }>;
    };

  beforeAll(() => {
    repo = makeTempRepo();
    cpSync(join(EXAMPLE, "project"), repo.dir, { recursive: true });
    repo.commit("the ledger service");
    repo.git("branch", "base");
    cpSync(join(EXAMPLE, "stories/1-honest-freeze"), repo.dir, { recursive: true });
    repo.commit("story 1: an honest freeze");
  });
  afterAll(() => repo?.cleanup());

  it("the frozen property deposited as its own compensation: muted, not counted, refused", {
    timeout: 120_000,
  }, () => {
    const story1 = pytest();
    expect(story1.status, story1.output).toBe(0);
    const honest = samplesOf();
    expect(honest.version).toBe(2);
    expect(honest.commit).toBe(repo.git("rev-parse", "HEAD").trim());
    expect(honest.properties[DEPOSIT]?.distinct).toBeGreaterThanOrEqual(8);
    const stale = join(makeTempDir("deposit-evidence"), "story1-samples.json");
    writeFileSync(stale, JSON.stringify(honest));
    expect(check(".freezegate/samples.json").status).toBe(0);

    // Freeze the property with itself as its deposit, and make it fail
    // on half its inputs. Run mode mutes the failure, so pytest passes.
    const ledgerPath = join(repo.dir, "freeze-ledger.json");
    const ledger = JSON.parse(readFileSync(ledgerPath, "utf8"));
    ledger.freezes.push({ ...ledger.freezes[0], test_id: DEPOSIT, reused_property: true });
    writeFileSync(ledgerPath, `${JSON.stringify(ledger, null, 2)}\n`);
    const props = join(repo.dir, "tests/properties/test_ledger.py");
    const text = readFileSync(props, "utf8");
    const failing = text.replace(
      "    assert ledger.balance == initial\n",
      "    assert ledger.balance == initial and excess < 5000\n",
    );
    expect(failing).not.toBe(text);
    writeFileSync(props, failing);
    repo.commit("freeze the property with itself as its deposit");

    const run = pytest();
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain(
      `compensating properties without a count (failed, not run or frozen in this run; they cannot vouch for a freeze):\n  ${DEPOSIT}\n`,
    );
    expect(samplesOf().properties[DEPOSIT]).toBeUndefined();

    const r = check(".freezegate/samples.json");
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout) as {
      failedGates: string[];
      gates: { gate: string; findings: DepositFinding[] }[];
    };
    expect(report.failedGates).toEqual(["deposit"]);
    const deposit = report.gates.find((g) => g.gate === "deposit")?.findings ?? [];
    expect(deposit.map((f) => [f.code, f.testId])).toEqual([
      ["deposit-not-collected", DEPOSIT],
      ["deposit-not-collected", "tests/test_ledger.py::test_withdraw_more_than_balance"],
      ["deposit-too-few-inputs", DEPOSIT],
      ["deposit-too-few-inputs", "tests/test_ledger.py::test_withdraw_more_than_balance"],
    ]);
    expect(deposit.map((f) => f.message)).toContain(
      `the freeze of ${DEPOSIT} deposits ${DEPOSIT}, which is the frozen test itself: a frozen test's failures do not gate, so it compensates nothing`,
    );

    // Story 1's samples, from the commit before, vouch for nothing here.
    const staleCheck = expectOneLineError(check(stale));
    expect(staleCheck).toContain(
      `was recorded at commit ${honest.commit.slice(0, 12)}, not at HEAD`,
    );
    expect(staleCheck).toContain("(fix: re-run the tests on this commit");
  });
});

// ---------------------------------------------------------------------------------------------

const SHAPE_PROP = "tests/props/test_shape_props.py::test_scaling_keeps_the_area_ratio";
const SHAPE_FROZEN = "tests/test_shapes.py::test_area";
const EXAMPLES = 40;

// attrs' test strategies build classes that all print as "HypClass": a property over them ran
// on a hundred different inputs with one repr. Here the values are shapes whose __repr__ is a
// constant; the count must be the examples Hypothesis ran, which the deposit gate then accepts.
describePython("generated inputs that all print the same (real pytest, Hypothesis, plugin)", () => {
  let repo: TempRepo;
  const pytest = (...args: string[]) =>
    runPython(
      ["-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "freezegate_pytest", ...args],
      { cwd: repo.dir, env: { PYTHONPATH: PLUGIN } },
    );

  beforeAll(() => {
    repo = makeTempRepo();
    repo.write(".gitignore", ".freezegate/\nran.txt\ncollected.txt\n");
    repo.write("tests/test_shapes.py", "def test_area():\n    assert 2 * 3 == 6\n");
    repo.write("freeze-ledger.json", ledgerText([]));
    repo.commit("base");
    repo.git("branch", "base");
    repo.write(
      "tests/props/test_shape_props.py",
      [
        "from hypothesis import given, settings, strategies as st",
        "",
        "class Shape:",
        "    def __init__(self, width, height):",
        "        self.width, self.height = width, height",
        "",
        "    def __repr__(self):",
        '        return "Shape"',
        "",
        `@settings(max_examples=${EXAMPLES}, derandomize=True, database=None)`,
        "@given(st.builds(Shape, st.integers(1, 10**6), st.integers(1, 10**6)))",
        "def test_scaling_keeps_the_area_ratio(shape):",
        '    with open("ran.txt", "a") as out:',
        '        out.write("ran\\n")',
        "    assert (2 * shape.width) * (2 * shape.height) == 4 * shape.width * shape.height",
        "",
      ].join("\n"),
    );
    repo.write(
      "freeze-ledger.json",
      ledgerText([{ ...freeze(SHAPE_FROZEN, SHAPE_PROP), reused_property: false }]),
    );
    repo.commit("freeze test_area; deposit a property over shapes");
  });
  afterAll(() => repo?.cleanup());

  it("counts every example Hypothesis ran, and the deposit gate passes", {
    timeout: 120_000,
  }, () => {
    const run = pytest("--hypothesis-show-statistics", "--freezegate-today", TODAY);
    const output = `${run.stdout}\n${run.stderr}`;
    expect(run.status, output).toBe(0);
    // What Hypothesis says it ran (its statistics), and what the body saw.
    const passing = [...output.matchAll(/- (\d+) passing\b/g)].map((m) => Number(m[1]));
    expect(passing, output).toEqual([EXAMPLES]);
    const ran = readFileSync(join(repo.dir, "ran.txt"), "utf8").split("\n").filter(Boolean);
    expect(ran.length).toBe(EXAMPLES);
    const samples = JSON.parse(readFileSync(join(repo.dir, ".freezegate/samples.json"), "utf8"));
    expect(samples.commit).toBe(repo.git("rev-parse", "HEAD").trim());
    expect(samples.properties).toEqual({ [SHAPE_PROP]: { distinct: EXAMPLES } });

    const collect = pytest("--collect-only");
    expect(collect.status, collect.stderr).toBe(0);
    writeFileSync(join(repo.dir, "collected.txt"), collect.stdout);
    const deposit = runCli(
      [
        "deposit",
        "check",
        "--base",
        "base",
        "--collected",
        "collected.txt",
        "--samples",
        ".freezegate/samples.json",
        "--format",
        "json",
      ],
      { cwd: repo.dir },
    );
    expect(deposit.stderr).toBe("");
    expect(JSON.parse(deposit.stdout).findings).toEqual([]);
    expect(deposit.status).toBe(0);
  });
});
