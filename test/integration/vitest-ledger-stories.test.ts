// The TypeScript end-to-end example (examples/vitest-ledger) through the same five stories as
// the Python one: real git, real Vitest + istanbul + fast-check with freezegate's runner and
// reporter wired in the example's vitest.config.ts (as `freezegate init vitest` wires them,
// resolved from node_modules/freezegate, linked to this checkout), and the built CLI.
// Vitest runs once per story that needs a run, and once on the base commit.

import { spawn } from "node:child_process";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../helpers/cli.js";
import { isolatedGitEnv } from "../helpers/git-repo.js";
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
  type StoryNumber,
  samplesOf,
  shadowedLines,
} from "../helpers/ledger-stories.js";
import { installFromRepository } from "../helpers/vitest-recording.js";

const EXAMPLE = join(REPO_ROOT, "examples/vitest-ledger");
const TODAY = "2026-10-18";
const RUN_TIMEOUT = 120_000;

const FLAKY = "tests/ledger.spec.ts::ledger > withdraw more than balance";
const OVERDRAFT = "tests/ledger.spec.ts::ledger > overdraft rejected";
const STATEMENT = "tests/ledger.spec.ts::ledger > statement lists entries";
const DEPOSIT =
  "tests/properties/ledger.spec.ts::properties > withdrawal beyond balance is rejected";

interface VitestRun {
  status: number | null;
  output: string;
}

/** `npx vitest run` in a work tree, the ledger judging expiry on TODAY. */
function vitest(dir: string): Promise<VitestRun> {
  const child = spawn(process.execPath, [join(dir, "node_modules/vitest/vitest.mjs"), "run"], {
    cwd: dir,
    env: isolatedGitEnv({
      FREEZEGATE_NOW: `${TODAY}T12:00:00Z`,
      FORCE_COLOR: "0",
      NO_COLOR: "1",
      CI: "1",
    }),
  });
  let output = "";
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => {
    output += chunk;
  });
  return new Promise((done, fail) => {
    child.on("error", fail);
    child.on("close", (status) => done({ status, output }));
  });
}

/** freezegate's summary after Vitest's, from its first line to its last ("record: ..."). */
function summary(run: VitestRun): string[] {
  const lines = run.output.split("\n");
  const first = lines.findIndex((l) => l.startsWith("freezegate: "));
  const last = lines.findIndex((l) => l.startsWith("record: "));
  return lines.slice(first, last + 1).filter((l) => l !== "");
}

let history: StoryHistory;
/** Each story's Vitest run (story 2 needs none), and the run of the base commit. */
const runs = new Map<StoryNumber | "base", VitestRun>();

function runOf(n: StoryNumber | "base"): VitestRun {
  const run = runs.get(n);
  if (run === undefined) throw new Error(`no Vitest run of ${n}`);
  return run;
}

/** The example's history, packages installed in every work tree, and every run. */
async function setUp(): Promise<void> {
  history = makeStoryHistory(EXAMPLE, installFromRepository);
  // The runs share nothing (one work tree each), so they run at once: most of a run's time
  // is Vitest starting up. Story 1's run is also the parent entry's run in story 5's queue.
  await Promise.all(
    (["base", 1, 3, 4, 5] as const).map(async (n) => {
      runs.set(n, await vitest(n === "base" ? history.repo.dir : history.tree(n)));
    }),
  );
}

describe("examples/vitest-ledger: the five stories", () => {
  beforeAll(setUp, RUN_TIMEOUT);
  afterAll(() => history?.cleanup());

  it("the example's vitest.config.ts is wired as freezegate init vitest wires it", () => {
    const init = runCli(["init", "vitest", "--dry-run"], { cwd: history.repo.dir });
    expect(init.stderr).toBe("");
    expect(init.status).toBe(0);
    expect(init.stdout).toMatch(
      /^vitest\.config\.ts already records with freezegate .*nothing changed\n/,
    );
  });

  it("1. an honest freeze: the frozen test fails without failing Vitest, and check passes", () => {
    // Without the freeze the flaky test fails the run (base is wired, nothing frozen).
    const base = runOf("base");
    expect(base.status, base.output).toBe(1);
    expect(base.output).toContain(
      "FAIL  tests/ledger.spec.ts > ledger > withdraw more than balance",
    );

    const story1 = runOf(1);
    expect(story1.status, story1.output).toBe(0);
    expect(summary(story1)).toEqual([
      `freezegate: ledger freeze-ledger.json, mode run, today ${TODAY}: 1 frozen test in this run, 0 expired freezes`,
      "frozen-failed (these failures do not fail the run):",
      `  ${FLAKY} (owner finley, expires 2026-10-26): expected function to throw an error, but it didn't`,
      "record: .freezegate/applied.json; samples: .freezegate/samples.json (3 tests with counted inputs)",
    ]);
    const tree = history.tree(1);
    expectHonestFreezeRecord(history, "vitest-freezegate", FLAKY);
    expect(samplesOf(tree)[DEPOSIT]?.distinct).toBeGreaterThanOrEqual(8);

    const check = checkStory(tree, "base", TODAY);
    expect(check.body.audit.coverage.format).toBe("freezegate-vitest-coverage");
    expectHonestFreezePasses(check, FLAKY);
  });

  it("2. freezing the last witness of rejected_is_noop is blocked by the witness gate", () => {
    expectLastWitnessBlocked(history, OVERDRAFT);
  });

  it("3. freezing a test and changing code only it covered: the shadowed lines, blocked", () => {
    const run = runOf(3);
    // Both frozen tests fail (the statement test because of the change itself); neither gates.
    expect(run.status, run.output).toBe(0);
    expect(readJson(join(history.tree(3), ".freezegate/applied.json")).outcomes).toEqual({
      [FLAKY]: "failed",
      [STATEMENT]: "failed",
    });
    const { status, body } = checkStory(history.tree(3), "story-1", TODAY);
    expect(status).toBe(1);
    expect(body.failedGates).toEqual(["shadow"]);
    // The six changed lines of Ledger.statement(); the loop's closing brace is part of the
    // loop statement, so it takes the loop's verdict.
    expect(body.gates.find((g: Gate) => g.gate === "shadow").findings).toEqual(
      shadowedLines("src/ledger.ts", [54, 55, 56, 57, 58, 59], STATEMENT),
    );
  });

  it("4. a compensating property that runs one hard-coded input: deposit-too-few-inputs", () => {
    const run = runOf(4);
    expect(run.status, run.output).toBe(0);
    expect(samplesOf(history.tree(4))[DEPOSIT]).toEqual({ distinct: 1 });
    const { status, body } = checkStory(history.tree(4), "base", TODAY);
    expect(status).toBe(1);
    expect(body.failedGates).toEqual(["deposit"]);
    expect(errorsOf(body, "deposit")).toEqual([
      oneInputFinding(FLAKY, DEPOSIT, "tests/properties/ledger.spec.ts"),
    ]);
  });

  it("5. a child in the queue reusing its parent's applied record: inherited-skip", () => {
    // The child's own run derives its freezes from its own ledger (the test was fixed and
    // unfrozen): nothing inherited, nothing stale.
    const own = runOf(5);
    expect(own.status, own.output).toBe(0);
    expect(readJson(join(history.tree(5), ".freezegate/applied.json"))).toMatchObject({
      commit: history.commit(5),
      applied: [],
    });
    expectQueueChild(history, TODAY, FLAKY, ".freezegate/applied.json");
  });
});
