// freeze and check on a TypeScript project, as a Vitest user runs them: the fixture project
// test/fixtures/vitest/audit copied into a git repository (freezegate linked into its
// node_modules), a fast-check property added as the compensating property, the freeze made
// with `freezegate freeze` against the tests of the Vitest data, the ledger applied by real
// Vitest, and `freezegate check` finding the applied record where the Vitest reporter writes it.

import { spawnSync } from "node:child_process";
import { cpSync, readdirSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectOneLineError, REPO_ROOT, runCli } from "../helpers/cli.js";
import { isolatedGitEnv, makeTempRepo, type TempRepo } from "../helpers/git-repo.js";

const FIXTURE = join(REPO_ROOT, "test/fixtures/vitest/audit");
const WRAPS = "tests/pricing.spec.ts::pricing > wraps gifts";
const PROPERTY = "tests/wrapping.spec.ts::gift wrapping > never negative";
const RECORD = ".freezegate/applied.json";
const SAMPLES = ".freezegate/samples.json";
const TODAY = "2026-03-02";

let repo: TempRepo;
afterAll(() => repo?.cleanup());

function vitest(): { status: number | null; output: string } {
  const res = spawnSync(process.execPath, [repo.path("node_modules/vitest/vitest.mjs"), "run"], {
    cwd: repo.dir,
    encoding: "utf8",
    env: isolatedGitEnv({
      FORCE_COLOR: "0",
      NO_COLOR: "1",
      CI: "1",
      FREEZEGATE_NOW: `${TODAY}T12:00:00Z`,
    }),
  });
  return { status: res.status, output: `${res.stdout}${res.stderr}` };
}

const cli = (...args: string[]) => runCli(args, { cwd: repo.dir });

const FREEZE = [
  "freeze",
  WRAPS,
  "--owner",
  "alice",
  "--reason",
  "gift wrap prices change",
  "--invariant",
  "a price is never negative",
  "--property",
  PROPERTY,
  "--today",
  TODAY,
];

/**
 * The patch: a compensating fast-check property and the freeze of the only test of gift
 * wrapping, made with `freezegate freeze` on the data of a run without a ledger.
 */
beforeAll(() => {
  repo = makeTempRepo();
  cpSync(FIXTURE, repo.dir, { recursive: true });
  rmSync(repo.path("quarantine.json"));
  repo.write(".gitignore", "node_modules\n.freezegate\n");
  for (const name of readdirSync(join(REPO_ROOT, "node_modules"))) {
    if (!name.startsWith(".")) {
      repo.symlink(join(REPO_ROOT, "node_modules", name), `node_modules/${name}`);
    }
  }
  repo.symlink(REPO_ROOT, "node_modules/freezegate");
  repo.commit("base");
  repo.git("checkout", "-q", "-b", "patch");
  repo.write(
    "tests/wrapping.spec.ts",
    `import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { giftWrap } from "../src/pricing.js";

describe("gift wrapping", () => {
  test("never negative", () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), (count) => {
        expect(giftWrap(count)).toBeGreaterThanOrEqual(0);
      }),
      { seed: 42, numRuns: 50 },
    );
  });

  // Muted outside the ledger: check counts it as frozen, as the applied record lists it.
  test.fails("rounds up to whole boxes", () => {
    expect(giftWrap(1)).toBe(300);
  });
});
`,
  );
  repo.commit("a property of gift wrapping");
  const run = vitest();
  expect(run.status, run.output).toBe(0);
}, 120_000);

describe("freeze on Vitest test ids", () => {
  it("refuses an id that is not one of the Vitest data's tests, in Vitest's words", () => {
    const typo = `${WRAPS}!`;
    const res = cli(...FREEZE.map((a) => (a === WRAPS ? typo : a)));
    expect(res.status, res.stderr).toBe(1);
    expect(res.stderr).toContain(
      `freezegate: refused to freeze ${typo}: the test ${typo} is not a test the suite has`,
    );
    expect(res.stderr).toContain("fix: check the ids (use exact Vitest test ids");
    expect(res.stderr).not.toMatch(/pytest|node id/);
  });

  it("freezes a test the Vitest data knows, with a property the data knows", () => {
    const res = cli(...FREEZE, "--base", "main");
    expect(res.status, res.stderr).toBe(0);
    expect(res.stdout).toContain(`froze ${WRAPS} until 2026-03-16 (owner alice`);
    // The run that made the data had no ledger, so it left no samples: said in Vitest's words.
    expect(res.stderr).toContain(
      "(none at .freezegate/samples.json, where freezegate's Vitest reporter writes one in every test run once the ledger exists)",
    );
    expect(res.stderr).toContain("a fast-check property (fc.assert, test.prop)");
    expect(res.stderr).not.toMatch(/pytest|Hypothesis|node id/);
    const ledger = JSON.parse(readFileSync(repo.path("freeze-ledger.json"), "utf8"));
    expect(ledger.freezes).toEqual([
      expect.objectContaining({ test_id: WRAPS, compensating_property: PROPERTY }),
    ]);
    repo.commit("freeze the gift wrap test");
  });
});

describe("check with the Vitest reporter's record and samples", () => {
  beforeAll(() => {
    const run = vitest();
    expect(run.status, run.output).toBe(0);
    expect(run.output).toContain(`${WRAPS} (owner alice, expires 2026-03-16)`);
  }, 120_000);

  it("passes, with the applied record found where the reporter writes it", () => {
    const res = cli("check", "--base", "main", "--samples", SAMPLES, "--today", TODAY);
    expect(res.stderr).toBe("");
    expect(res.stdout).toMatch(/deposit gate: passed/);
    expect(res.status, res.stdout).toBe(0);
    // The record is this run's: what test.fails muted counts as frozen.
    expect(res.stdout).toContain(
      `1 test(s) muted by test.fails outside the ledger count as frozen (their failures cannot fail the run; the applied record ${RECORD}): tests/wrapping.spec.ts::gift wrapping > rounds up to whole boxes`,
    );
  });

  it("refuses the reporter's samples of this commit without the record of that run", () => {
    const record = readFileSync(repo.path(RECORD));
    rmSync(repo.path(RECORD));
    try {
      const line = expectOneLineError(
        cli("check", "--base", "main", "--samples", SAMPLES, "--today", TODAY),
      );
      expect(line).toContain(
        `the samples artifact ${SAMPLES} is from freezegate's Vitest reporter's run at this commit, but no applied record of that run is at`,
      );
      expect(line).toContain(".freezegate/applied.json");
      expect(line).not.toMatch(/pytest/);
    } finally {
      repo.write(RECORD, record.toString("utf8"));
    }
  });
});
