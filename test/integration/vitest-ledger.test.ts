// The freeze ledger inside Vitest (integrations/vitest), on the fixture project
// test/fixtures/vitest/ledger copied into a git repository with freezegate installed in its
// node_modules (linked to this checkout, whose dist/ the global setup builds). One real Vitest
// run per scenario; the assertions of a scenario share its run.

import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { cpSync, existsSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../helpers/cli.js";
import { isolatedGitEnv, makeTempRepo, type TempRepo } from "../helpers/git-repo.js";

const FIXTURE = join(REPO_ROOT, "test/fixtures/vitest/ledger");
const RUN_TIMEOUT = 180_000;

const ROUNDS = "tests/billing.spec.ts::billing > rounds half up";
const TAX = "tests/billing.spec.ts::billing > adds tax";
const LEGACY = "tests/billing.spec.ts::legacy total";
const TIMES_OUT = "tests/flaky.spec.ts::network > times out";
const RETRIES = "tests/flaky.spec.ts::network > retries";
const GLOB = "tests/flaky.spec.ts::network > *";
const PROPS = "tests/props.spec.ts::totals > ";

interface Run {
  status: number | null;
  output: string;
  record: Record<string, unknown> | null;
  samples: { properties: Record<string, { distinct: number }> } & Record<string, unknown>;
  tests: { id: string; state: string }[];
  overlap: boolean;
}

let repo: TempRepo;
let head: string;

/** The fixture as a user's project: base commit, then the commit that adds tests and ledger. */
beforeAll(() => {
  repo = makeTempRepo();
  repo.write("README.md", "billing\n");
  repo.commit("base");
  cpSync(FIXTURE, repo.dir, { recursive: true });
  repo.write(".gitignore", "node_modules\n.freezegate\n");
  for (const name of readdirSync(join(REPO_ROOT, "node_modules"))) {
    if (!name.startsWith("."))
      repo.symlink(join(REPO_ROOT, "node_modules", name), `node_modules/${name}`);
  }
  repo.symlink(REPO_ROOT, "node_modules/freezegate");
  head = repo.commit("freeze two billing tests and the network tests");
});
afterAll(() => repo?.cleanup());

function vitest(env: NodeJS.ProcessEnv = {}, ...args: string[]): Run {
  if (env.KEEP_OUTPUTS === undefined) {
    rmSync(repo.path(".freezegate"), { recursive: true, force: true });
  }
  const res = spawnSync(
    process.execPath,
    [repo.path("node_modules/vitest/vitest.mjs"), "run", ...args],
    {
      cwd: repo.dir,
      encoding: "utf8",
      env: isolatedGitEnv({ FORCE_COLOR: "0", NO_COLOR: "1", CI: "1", ...env }),
    },
  );
  const json = (rel: string) =>
    existsSync(repo.path(rel)) ? JSON.parse(readFileSync(repo.path(rel), "utf8")) : null;
  const data = repo.path(".freezegate/vitest-coverage.jsonl");
  const header = existsSync(data)
    ? JSON.parse(readFileSync(data, "utf8").split("\n")[0] as string)
    : { tests: [], concurrentOverlap: null };
  return {
    status: res.status,
    output: `${res.stdout}${res.stderr}`,
    record: json(".freezegate/applied.json"),
    samples: json(".freezegate/samples.json"),
    tests: header.tests,
    overlap: header.concurrentOverlap,
  };
}

/** The lines of freezegate's summary, from its first line on. */
function summary(run: Run): string[] {
  const lines = run.output.split("\n");
  return lines.slice(lines.findIndex((l) => l.startsWith("freezegate: "))).filter((l) => l !== "");
}

const sha256 = (path: string) => createHash("sha256").update(readFileSync(path)).digest("hex");

describe("Vitest ledger, mode run", () => {
  let run: Run;
  beforeAll(() => {
    run = vitest();
  }, RUN_TIMEOUT);

  it("keeps frozen tests running without failing the run, and lists them with owner and expiry", () => {
    expect(run.status, run.output).toBe(0);
    expect(summary(run)).toEqual([
      expect.stringMatching(
        /^freezegate: ledger freeze-ledger\.json, mode run, today \d{4}-\d\d-\d\d: 4 frozen tests in this run, 1 expired freeze$/,
      ),
      "frozen-failed (these failures do not fail the run):",
      `  ${ROUNDS} (owner alice, expires 2099-12-31): expected 1 to be 1.01 // Object.is equality`,
      `  ${TIMES_OUT} (owner dave, expires 2099-12-31): connect ETIMEDOUT 10.0.0.1:443`,
      "frozen-passed:",
      `  ${TAX} (owner bob, expires 2099-12-31)`,
      `  ${RETRIES} (owner dave, expires 2099-12-31)`,
      "expired (not applied: these tests gate again):",
      expect.stringMatching(
        /^ {2}tests\/billing\.spec\.ts::legacy total \(owner carol, expired 2020-01-01, today is .*\)$/,
      ),
      "muted by test.fails outside the ledger: their failures cannot fail the run, so freezegate check counts them as frozen (1):",
      "  tests/billing.spec.ts::known bug in rounding",
      "skipped outside the ledger (skip, todo, or a skip in the test): they witnessed nothing (3):",
      "  tests/billing.spec.ts::handles refunds",
      "  tests/billing.spec.ts::not written yet",
      "  tests/billing.spec.ts::skips itself",
      "record: .freezegate/applied.json; samples: .freezegate/samples.json (6 tests with counted inputs)",
    ]);
    // The data says what really ran: the frozen failures failed, and a test that skipped
    // itself closed its window (no overlap).
    const state = (id: string) => run.tests.find((t) => t.id === id)?.state;
    expect([state(ROUNDS), state(TIMES_OUT), state("tests/billing.spec.ts::skips itself")]).toEqual(
      ["fail", "fail", "skip"],
    );
    expect(run.overlap).toBe(false);
  });

  it("writes the applied record of the pytest plugin's schema", () => {
    expect(run.record).toEqual({
      version: 1,
      tool: "vitest-freezegate",
      commit: head,
      ledger: { path: "freeze-ledger.json", sha256: sha256(repo.path("freeze-ledger.json")) },
      mode: "run",
      applied: [TAX, ROUNDS, RETRIES, TIMES_OUT],
      expired: [LEGACY],
      outcomes: { [TAX]: "passed", [ROUNDS]: "failed", [RETRIES]: "passed", [TIMES_OUT]: "failed" },
      muted: ["tests/billing.spec.ts::known bug in rounding"],
      skipped: [
        "tests/billing.spec.ts::handles refunds",
        "tests/billing.spec.ts::not written yet",
        "tests/billing.spec.ts::skips itself",
      ],
      deselected_frozen: [],
    });
  });

  it("counts distinct inputs: fast-check runs that passed, by fc.stringify, and record() by how values print", () => {
    // The property's runs, as fast-check generates them for that seed.
    const generated = fc.sample(
      fc.tuple(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 0, max: 1000 })),
      { seed: 42, numRuns: 40 },
    );
    const distinct = new Set(generated.map((v) => fc.stringify(v))).size;
    expect(run.samples).toEqual({
      version: 2,
      tool: "vitest-freezegate",
      commit: head,
      properties: {
        // @fast-check/vitest names its test with the seed.
        [`${PROPS}booleans (with seed=3)`]: { distinct: 2 },
        [`${PROPS}never negative`]: { distinct },
        [`${PROPS}one constant`]: { distinct: 1 },
        [`${PROPS}records and generates`]: { distinct: 1 },
        [`${PROPS}records by hand`]: { distinct: 3 },
        // 3 is rejected by fc.pre in every run it is drawn.
        [`${PROPS}skips rejected runs`]: { distinct: 4 },
      },
    });
    // The frozen test that recorded an input vouches for nothing.
    expect(Object.keys(run.samples.properties)).not.toContain(TAX);
  });

  it("writes files that freezegate queue check and deposit check accept", () => {
    const record = repo.path(".freezegate/applied.json");
    const queue = runCli(["queue", "check", "--parent", record, "--child", record], {
      cwd: repo.dir,
    });
    expect(queue.stdout).toContain("queue gate: passed");
    expect(queue.status, queue.stderr).toBe(0);
    repo.write("collected.txt", `${run.tests.map((t) => t.id).join("\n")}\n`);
    const deposit = runCli(
      [
        "deposit",
        "check",
        "--base",
        "HEAD~1",
        "--samples",
        ".freezegate/samples.json",
        "--collected",
        "collected.txt",
      ],
      { cwd: repo.dir },
    );
    expect(deposit.stdout).toContain("deposit gate: passed");
    expect(deposit.status, deposit.stderr).toBe(0);
  });
});

describe("Vitest ledger, other runs", () => {
  it(
    "does not apply expired freezes: the frozen failures fail the run again",
    () => {
      const run = vitest({ FREEZEGATE_NOW: "2100-01-01T12:00:00Z" });
      expect(run.status).toBe(1);
      expect(run.output).toMatch(/Tests {2}2 failed/);
      expect(summary(run).slice(0, 6)).toEqual([
        "freezegate: ledger freeze-ledger.json, mode run, today 2100-01-01: 0 frozen tests in this run, 4 expired freezes",
        "expired (not applied: these tests gate again):",
        `  ${TAX} (owner bob, expired 2099-12-31, today is 2100-01-01)`,
        `  ${ROUNDS} (owner alice, expired 2099-12-31, today is 2100-01-01)`,
        `  ${LEGACY} (owner carol, expired 2020-01-01, today is 2100-01-01)`,
        `  ${GLOB} (owner dave, expired 2099-12-31, today is 2100-01-01)`,
      ]);
      expect(run.record).toMatchObject({
        applied: [],
        expired: [TAX, ROUNDS, LEGACY, GLOB],
        outcomes: {},
      });
      // The live test that recorded an input now counts.
      expect(run.samples.properties[TAX]).toEqual({ distinct: 1 });
    },
    RUN_TIMEOUT,
  );

  it(
    "skips frozen tests in mode skip",
    () => {
      const run = vitest({ FREEZEGATE_VITEST_MODE: "skip" });
      expect(run.status, run.output).toBe(0);
      expect(summary(run).slice(0, 6)).toEqual([
        expect.stringMatching(/ mode skip, .*: 4 frozen tests in this run, 1 expired freeze$/),
        "frozen-skipped:",
        `  ${TAX} (owner bob, expires 2099-12-31)`,
        `  ${ROUNDS} (owner alice, expires 2099-12-31)`,
        `  ${RETRIES} (owner dave, expires 2099-12-31)`,
        `  ${TIMES_OUT} (owner dave, expires 2099-12-31)`,
      ]);
      expect(run.record).toMatchObject({
        mode: "skip",
        outcomes: {
          [TAX]: "skipped",
          [ROUNDS]: "skipped",
          [RETRIES]: "skipped",
          [TIMES_OUT]: "skipped",
        },
      });
      // Their bodies did not run: the data says so, and the audit refuses such data.
      expect(run.tests.filter((t) => t.state === "skip").map((t) => t.id)).toEqual(
        expect.arrayContaining([TAX, ROUNDS, RETRIES, TIMES_OUT]),
      );
    },
    RUN_TIMEOUT,
  );

  it(
    "records frozen tests a name filter left out as not run, and no other test as skipped",
    () => {
      const run = vitest({}, "-t", "adds tax");
      expect(run.status, run.output).toBe(0);
      expect(run.record).toMatchObject({
        applied: [TAX],
        outcomes: { [TAX]: "passed" },
        muted: [],
        deselected_frozen: [ROUNDS, RETRIES, TIMES_OUT],
      });
      // Declared skips stay skips; tests the filter left out are not "skipped".
      expect(run.record?.skipped).toEqual([
        "tests/billing.spec.ts::handles refunds",
        "tests/billing.spec.ts::not written yet",
      ]);
      expect(summary(run)).toContain(
        "frozen but not run (left out by a filter, or not reached): they leave no coverage, so freezegate check refuses this run; let frozen tests run:",
      );
    },
    RUN_TIMEOUT,
  );

  it(
    "fails the run on a ledger id that matches no test of a file it ran, and writes no record",
    () => {
      const typo = JSON.parse(readFileSync(repo.path("freeze-ledger.json"), "utf8"));
      typo.freezes[0].test_id = "tests/billing.spec.ts::billing > rounds half-up";
      repo.write("typo-ledger.json", JSON.stringify(typo));
      // Only the billing file runs: the network freeze's file did not, so it is not judged.
      const run = vitest({ FREEZEGATE_VITEST_LEDGER: "typo-ledger.json" }, "tests/billing.spec.ts");
      expect(run.status).toBe(1);
      expect(run.output).toContain(
        "freezegate: ledger typo-ledger.json: 1 frozen test id matches no test of this run: tests/billing.spec.ts::billing > rounds half-up (fix: ",
      );
      expect(run.record).toBeNull();
      expect(run.samples).toBeNull();
    },
    RUN_TIMEOUT,
  );

  it(
    "stops before any test on a ledger it cannot apply, and leaves no earlier record behind",
    () => {
      repo.write(".freezegate/applied.json", "{}\n");
      repo.write(
        "soon-ledger.json",
        JSON.stringify({ version: 1, freezes: [{ test_id: ROUNDS, expires: "soon" }] }),
      );
      const run = vitest({ FREEZEGATE_VITEST_LEDGER: "soon-ledger.json", KEEP_OUTPUTS: "1" });
      expect(run.status).toBe(1);
      expect(run.output).toContain(
        `freezegate: ledger soon-ledger.json: freeze #1 (${ROUNDS}) has expires "soon", which is not a real YYYY-MM-DD day (fix: write a real day such as 2026-10-26 in expires)`,
      );
      // No test ran, and the stale record is gone.
      expect(run.tests).toEqual([]);
      expect(run.record).toBeNull();
    },
    RUN_TIMEOUT,
  );
});
