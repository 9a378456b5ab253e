// The end-to-end example (examples/python-ledger, seed 003's ledger service) through its five
// stories: real git, real pytest + pytest-cov + Hypothesis with the freezegate pytest plugin
// (integrations/pytest, loaded with -p freezegate_pytest from PYTHONPATH), and the built CLI.
// The test builds the example's short history in a temporary repository: project/ is the
// base commit, and each stories/<n>-*/ folder is laid over its parent story's commit as a
// branch of its own, checked out in its own work tree.

import { createHash } from "node:crypto";
import { copyFileSync, cpSync, mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeTempRepo, runGit, type TempRepo } from "../helpers/git-repo.js";
import { describePython, makeTempDir, runPython } from "../helpers/python.js";

const EXAMPLE = join(REPO_ROOT, "examples/python-ledger");
const PLUGIN = join(REPO_ROOT, "integrations/pytest");
const TODAY = "2026-10-18";

const FLAKY = "tests/test_ledger.py::test_withdraw_more_than_balance";
const OVERDRAFT = "tests/test_ledger.py::test_overdraft_rejected";
const STATEMENT = "tests/test_ledger.py::test_statement_lists_entries";
const DEPOSIT = "tests/properties/test_ledger.py::test_withdrawal_beyond_balance_is_rejected";

/** Each story's folder and the branch its commit goes on top of. */
const STORIES = {
  1: { folder: "1-honest-freeze", parent: "base" },
  2: { folder: "2-last-witness", parent: "base" },
  3: { folder: "3-shadowed-change", parent: "story-1" },
  4: { folder: "4-one-input", parent: "base" },
  5: { folder: "5-queue-child", parent: "story-1" },
} as const;
type StoryNumber = keyof typeof STORIES;

let repo: TempRepo;
const worktrees = new Map<StoryNumber, string>();
const commits = new Map<StoryNumber, string>();

function tree(n: StoryNumber): string {
  const dir = worktrees.get(n);
  if (dir === undefined) throw new Error(`story ${n} has no work tree`);
  return dir;
}

interface PytestRun {
  status: number;
  output: string;
}

/** pytest with coverage contexts and the plugin, judging expiry on TODAY. */
function pytest(dir: string): PytestRun {
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
    ],
    { cwd: dir, env: { PYTHONPATH: PLUGIN } },
  );
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

function readJson(path: string): Record<string, unknown> {
  return JSON.parse(readFileSync(path, "utf8"));
}

function cli(n: StoryNumber, args: string[]) {
  const r = runCli(args, { cwd: tree(n) });
  expect(r.stderr).toBe("");
  return { status: r.status, body: JSON.parse(r.stdout) };
}

/** freezegate check on a story, with the samples artifact its pytest run wrote. */
function check(n: StoryNumber, base: string) {
  return cli(n, [
    "check",
    "--base",
    base,
    "--today",
    TODAY,
    "--samples",
    ".freezegate/samples.json",
    "--format",
    "json",
  ]);
}

type Gate = { gate: string; passed: boolean; findings: { severity: string }[] };
const errorsOf = (report: { gates: Gate[] }, gate: string) =>
  report.gates.find((g) => g.gate === gate)?.findings.filter((f) => f.severity === "error");

let story1: PytestRun;

/** The example's history in a temporary repository, and story 1's pytest run. */
function setUp(): void {
  repo = makeTempRepo();
  cpSync(join(EXAMPLE, "project"), repo.dir, { recursive: true });
  repo.commit("the ledger service, its tests and properties, and the freeze ledger");
  repo.git("branch", "base");
  const trees = makeTempDir("python-ledger");
  for (const n of [1, 2, 3, 4, 5] as const) {
    const { folder, parent } = STORIES[n];
    const dir = join(trees, `story-${n}`);
    repo.git("worktree", "add", "-q", "-b", `story-${n}`, dir, parent);
    cpSync(join(EXAMPLE, "stories", folder), dir, { recursive: true });
    runGit(dir, ["add", "-A"]);
    runGit(dir, ["commit", "-q", "-m", `story ${n}: ${folder}`]);
    worktrees.set(n, dir);
    commits.set(n, runGit(dir, ["rev-parse", "HEAD"]).trim());
  }
  // Story 1's run is also the parent entry's run in story 5's queue.
  story1 = pytest(tree(1));
}

describePython("examples/python-ledger: the five stories", () => {
  beforeAll(setUp);
  afterAll(() => repo?.cleanup());

  it("1. an honest freeze: the frozen test fails without failing pytest, and check passes", () => {
    // Without the freeze the flaky test fails the suite (base has the plugin, nothing frozen).
    const before = pytest(repo.dir);
    expect(before.status).toBe(1);
    expect(before.output).toContain(`FAILED ${FLAKY}`);

    expect(story1.status, story1.output).toBe(0);
    expect(story1.output).toContain("frozen-failed (these failures do not fail the session):");
    expect(story1.output).toMatch(
      new RegExp(
        `^ {2}${FLAKY.replace(/[.]/g, "\\.")} \\(owner finley, expires 2026-10-26\\)`,
        "m",
      ),
    );
    const record = readJson(join(tree(1), ".freezegate/applied.json"));
    const ledgerBytes = readFileSync(join(tree(1), "freeze-ledger.json"));
    expect(record).toEqual({
      version: 1,
      tool: "pytest-freezegate",
      commit: commits.get(1),
      ledger: {
        path: "freeze-ledger.json",
        sha256: createHash("sha256").update(ledgerBytes).digest("hex"),
      },
      mode: "run",
      applied: [FLAKY],
      expired: [],
      outcomes: { [FLAKY]: "failed" },
      muted: [],
      skipped: [],
      deselected_frozen: [],
    });
    const samples = readJson(join(tree(1), ".freezegate/samples.json")) as {
      properties: Record<string, { distinct: number }>;
    };
    expect(samples.properties[DEPOSIT]?.distinct).toBeGreaterThanOrEqual(8);

    const { status, body } = check(1, "base");
    expect(status).toBe(0);
    expect(body.failedGates).toEqual([]);
    expect(body.gates.map((g: Gate) => [g.gate, g.passed])).toEqual([
      ["shadow", true],
      ["shape", true],
      ["witness", true],
      ["deposit", true],
      ["lock", true],
      ["ledger-changes", true],
    ]);
    expect(body.gates.flatMap((g: Gate) => g.findings)).toMatchObject([
      { gate: "ledger-changes", code: "ledger-changed", severity: "info", testId: FLAKY },
    ]);
  });

  it("2. freezing the last witness of rejected_is_noop is blocked by the witness gate", () => {
    const { status, body } = cli(2, ["witness", "check", "--base", "base", "--format", "json"]);
    expect(status).toBe(1);
    expect(body.findings).toEqual([
      {
        gate: "witness",
        code: "orphaned-property",
        severity: "error",
        propertyId: "prop.ledger.rejected_is_noop",
        message: `property prop.ledger.rejected_is_noop has no live witness left: the freeze of ${OVERDRAFT} took its last witness`,
        details: { witnesses: [OVERDRAFT], takenBy: [OVERDRAFT] },
      },
    ]);
  });

  it("3. freezing a test and changing code only it covered: the shadowed lines, blocked", () => {
    const run = pytest(tree(3));
    // Both frozen tests fail (the statement test because of the change itself); neither gates.
    expect(run.status, run.output).toBe(0);
    expect(readJson(join(tree(3), ".freezegate/applied.json")).outcomes).toEqual({
      [STATEMENT]: "failed",
      [FLAKY]: "failed",
    });
    const { status, body } = check(3, "story-1");
    expect(status).toBe(1);
    expect(body.failedGates).toEqual(["shadow"]);
    const shadow = body.gates.find((g: Gate) => g.gate === "shadow");
    expect(shadow.findings).toEqual(
      [41, 42, 43, 44, 45].map((line) => ({
        gate: "shadow",
        code: "shadowed-line",
        severity: "error",
        path: "app/ledger.py",
        line,
        message: `app/ledger.py:${line} is shadowed: only frozen tests cover it: ${STATEMENT}`,
        details: { frozenTests: [STATEMENT] },
      })),
    );
  });

  it("4. a compensating property that runs one hard-coded input: deposit-too-few-inputs", () => {
    const run = pytest(tree(4));
    expect(run.status, run.output).toBe(0);
    const samples = readJson(join(tree(4), ".freezegate/samples.json")) as {
      properties: Record<string, { distinct: number }>;
    };
    expect(samples.properties[DEPOSIT]).toEqual({ distinct: 1 });
    const { status, body } = check(4, "base");
    expect(status).toBe(1);
    expect(body.failedGates).toEqual(["deposit"]);
    expect(errorsOf(body, "deposit")).toEqual([
      {
        gate: "deposit",
        code: "deposit-too-few-inputs",
        severity: "error",
        testId: FLAKY,
        propertyId: DEPOSIT,
        path: "tests/properties/test_ledger.py",
        message: `the freeze of ${FLAKY} deposits ${DEPOSIT}, but it ran on 1 distinct input (min_distinct is 8)`,
        details: { distinct: 1, minDistinct: 8 },
      },
    ]);
  });

  it("5. a child in the queue reusing its parent's applied record: inherited-skip", () => {
    const dir = tree(5);
    // The parent entry's artifact, as the child's CI job would download it.
    mkdirSync(join(dir, ".freezegate"), { recursive: true });
    copyFileSync(
      join(tree(1), ".freezegate/applied.json"),
      join(dir, ".freezegate/parent-applied.json"),
    );
    const reused = cli(5, [
      "queue",
      "check",
      "--today",
      TODAY,
      "--parent",
      ".freezegate/parent-applied.json",
      "--child",
      ".freezegate/parent-applied.json",
      "--format",
      "json",
    ]);
    expect(reused.status).toBe(1);
    const child = commits.get(5) as string;
    const parent = commits.get(1) as string;
    expect(
      reused.body.findings.map((f: { code: string; details: Record<string, unknown> }) => [
        f.code,
        f.details.problem ?? f.details.reason,
      ]),
    ).toEqual([
      ["stale-record", "commit"],
      ["stale-record", "ledger"],
      ["inherited-skip", "not-frozen"],
    ]);
    expect(reused.body.findings[2]).toEqual({
      gate: "queue",
      code: "inherited-skip",
      severity: "error",
      testId: FLAKY,
      message: `${FLAKY} was frozen in the child's run (ran without gating, failed), but freeze-ledger.json at ${child.slice(0, 12)} does not freeze it; the parent's record .freezegate/parent-applied.json (commit ${parent.slice(0, 12)}) applied the same freeze: the skip was inherited`,
      details: {
        reason: "not-frozen",
        inheritedFrom: { record: ".freezegate/parent-applied.json", commit: parent },
        outcome: "failed",
        mode: "run",
        allowed: false,
      },
    });

    // The child's own run derives its freezes from its own ledger (the test was fixed and
    // unfrozen): nothing inherited, nothing stale.
    const own = pytest(dir);
    expect(own.status, own.output).toBe(0);
    expect(readJson(join(dir, ".freezegate/applied.json"))).toMatchObject({
      commit: child,
      applied: [],
    });
    const honest = cli(5, [
      "queue",
      "check",
      "--today",
      TODAY,
      "--parent",
      ".freezegate/parent-applied.json",
      "--child",
      ".freezegate/applied.json",
      "--format",
      "json",
    ]);
    expect(honest.status).toBe(0);
    expect(honest.body.findings).toEqual([]);
  });
});
