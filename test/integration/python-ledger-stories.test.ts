// The end-to-end example (examples/python-ledger, the ledger service) through its five stories:
// real git, real pytest + pytest-cov + Hypothesis with the freezegate pytest plugin
// (integrations/pytest, loaded with -p freezegate_pytest from PYTHONPATH), and the built CLI,
// on the example's history (test/helpers/ledger-stories.ts).

import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/cli.js";
import {
  checkStory,
  errorsOf,
  expectHonestFreezePasses,
  expectHonestFreezeRecord,
  expectLastWitnessBlocked,
  expectQueueChild,
  type Gate,
  makeStoryHistory,
  oneInputFinding,
  readJson,
  type StoryHistory,
  samplesOf,
  shadowedLines,
} from "../helpers/ledger-stories.js";
import { describePython, runPython } from "../helpers/python.js";

const EXAMPLE = join(REPO_ROOT, "examples/python-ledger");
const PLUGIN = join(REPO_ROOT, "integrations/pytest");
const TODAY = "2026-10-18";

const FLAKY = "tests/test_ledger.py::test_withdraw_more_than_balance";
const OVERDRAFT = "tests/test_ledger.py::test_overdraft_rejected";
const STATEMENT = "tests/test_ledger.py::test_statement_lists_entries";
const DEPOSIT = "tests/properties/test_ledger.py::test_withdrawal_beyond_balance_is_rejected";

let history: StoryHistory;

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

let story1: PytestRun;

/** The example's history, and story 1's pytest run. */
function setUp(): void {
  history = makeStoryHistory(EXAMPLE);
  // Story 1's run is also the parent entry's run in story 5's queue.
  story1 = pytest(history.tree(1));
}

describePython("examples/python-ledger: the five stories", () => {
  beforeAll(setUp);
  afterAll(() => history?.cleanup());

  it("1. an honest freeze: the frozen test fails without failing pytest, and check passes", () => {
    // Without the freeze the flaky test fails the suite (base has the plugin, nothing frozen).
    const before = pytest(history.repo.dir);
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
    const tree = history.tree(1);
    expectHonestFreezeRecord(history, "pytest-freezegate", FLAKY);
    expect(samplesOf(tree)[DEPOSIT]?.distinct).toBeGreaterThanOrEqual(8);

    expectHonestFreezePasses(checkStory(tree, "base", TODAY), FLAKY);
  });

  it("2. freezing the last witness of rejected_is_noop is blocked by the witness gate", () => {
    expectLastWitnessBlocked(history, OVERDRAFT);
  });

  it("3. freezing a test and changing code only it covered: the shadowed lines, blocked", () => {
    const run = pytest(history.tree(3));
    // Both frozen tests fail (the statement test because of the change itself); neither gates.
    expect(run.status, run.output).toBe(0);
    expect(readJson(join(history.tree(3), ".freezegate/applied.json")).outcomes).toEqual({
      [STATEMENT]: "failed",
      [FLAKY]: "failed",
    });
    const { status, body } = checkStory(history.tree(3), "story-1", TODAY);
    expect(status).toBe(1);
    expect(body.failedGates).toEqual(["shadow"]);
    expect(body.gates.find((g: Gate) => g.gate === "shadow").findings).toEqual(
      shadowedLines("app/ledger.py", [41, 42, 43, 44, 45], STATEMENT),
    );
  });

  it("4. a compensating property that runs one hard-coded input: deposit-too-few-inputs", () => {
    const run = pytest(history.tree(4));
    expect(run.status, run.output).toBe(0);
    expect(samplesOf(history.tree(4))[DEPOSIT]).toEqual({ distinct: 1 });
    const { status, body } = checkStory(history.tree(4), "base", TODAY);
    expect(status).toBe(1);
    expect(body.failedGates).toEqual(["deposit"]);
    expect(errorsOf(body, "deposit")).toEqual([
      oneInputFinding(FLAKY, DEPOSIT, "tests/properties/test_ledger.py"),
    ]);
  });

  it("5. a child in the queue reusing its parent's applied record: inherited-skip", () => {
    // The child's own run derives its freezes from its own ledger (the test was fixed and
    // unfrozen): nothing inherited, nothing stale.
    const own = pytest(history.tree(5));
    expect(own.status, own.output).toBe(0);
    expect(readJson(join(history.tree(5), ".freezegate/applied.json"))).toMatchObject({
      commit: history.commit(5),
      applied: [],
    });
    expectQueueChild(history, TODAY, FLAKY, ".freezegate/applied.json");
  });
});
