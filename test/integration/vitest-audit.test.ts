// The audit and every command after it on a TypeScript patch: the fixture project
// test/fixtures/vitest/audit copied into a git repository (freezegate linked into its
// node_modules), its per-test coverage recorded by real Vitest with freezegate's recorder,
// and the built CLI run on it as a user runs it. Fails closed as for pytest's data.

import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  cpSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, REPO_ROOT, runCli } from "../helpers/cli.js";
import { isolatedGitEnv, makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { validateSarif } from "../helpers/sarif.js";
import { assertMatchesSchema } from "../helpers/schema.js";

const FIXTURE = join(REPO_ROOT, "test/fixtures/vitest/audit");
const NO_BODY = join(REPO_ROOT, "test/fixtures/vitest/no-body");
const DATA = ".freezegate/vitest-coverage.jsonl";

const SUITE = "tests/pricing.spec.ts::pricing > ";
const WRAPS = `${SUITE}wraps gifts`;
const FREE = `${SUITE}ships big orders free`;
const ADDS = `${SUITE}adds the items`;

const work = mkdtempSync(join(tmpdir(), "fg-vitest-audit-"));
const repos: TempRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
  rmSync(work, { recursive: true, force: true });
});

/** A user's TypeScript project: `files` from fixture directories, freezegate installed. */
function project(...fixtures: string[]): TempRepo {
  const repo = makeTempRepo();
  repos.push(repo);
  for (const fixture of fixtures) cpSync(fixture, repo.dir, { recursive: true });
  repo.write(".gitignore", "node_modules\n.freezegate\n");
  for (const name of readdirSync(join(REPO_ROOT, "node_modules"))) {
    if (!name.startsWith(".")) {
      repo.symlink(join(REPO_ROOT, "node_modules", name), `node_modules/${name}`);
    }
  }
  repo.symlink(REPO_ROOT, "node_modules/freezegate");
  repo.commit("base");
  repo.git("checkout", "-q", "-b", "patch");
  return repo;
}

/** `npx vitest run` in the project: the recorder writes its data (or to FREEZEGATE_VITEST_DATA). */
function vitest(repo: TempRepo, env: NodeJS.ProcessEnv = {}, ...args: string[]) {
  const res = spawnSync(
    process.execPath,
    [repo.path("node_modules/vitest/vitest.mjs"), "run", ...args],
    {
      cwd: repo.dir,
      encoding: "utf8",
      env: isolatedGitEnv({ FORCE_COLOR: "0", NO_COLOR: "1", CI: "1", ...env }),
    },
  );
  return { status: res.status, output: `${res.stdout}${res.stderr}` };
}

function edit(repo: TempRepo, path: string, from: string, to: string): void {
  const text = readFileSync(repo.path(path), "utf8");
  if (!text.includes(from)) throw new Error(`${from} not in ${path}`);
  repo.write(path, text.replace(from, to));
}

function lineOf(repo: TempRepo, path: string, text: string): number {
  const at = readFileSync(repo.path(path), "utf8")
    .split("\n")
    .findIndex((l) => l.includes(text));
  if (at < 0) throw new Error(`${text} not in ${path}`);
  return at + 1;
}

const cli = (repo: TempRepo, ...args: string[]) => runCli(args, { cwd: repo.dir });

interface Line {
  line: number;
  verdict: string;
  tests: string[];
  frozenTests: string[];
}
interface Report {
  coverage: { format: string; contextStyle: string; tests: number; coverageVersion: string };
  files: { path: string; lines: Line[] }[];
  skipped: { path: string; reason: string }[];
}

function auditJson(repo: TempRepo, ...args: string[]): { status: number; report: Report } {
  const res = cli(repo, "audit", "--base", "main", "--format", "json", ...args);
  expect(res.stderr).toBe("");
  const report = JSON.parse(res.stdout) as Report;
  assertMatchesSchema("audit-report.schema.json", report);
  return { status: res.status, report };
}

function verdicts(report: Report, path: string): Record<number, string> {
  const file = report.files.find((f) => f.path === path);
  return Object.fromEntries((file?.lines ?? []).map((l) => [l.line, l.verdict]));
}

/**
 * The patch: a comment, a type, a line a live test runs, a line only a frozen test runs, a
 * module no test imports; the test file changes too. Recorded on the patch, as CI would.
 */
let repo: TempRepo;
const PRICING = "src/pricing.ts";
beforeAll(() => {
  repo = project(FIXTURE);
  edit(repo, PRICING, "// Prices in cents.", "// Prices in whole cents.");
  edit(
    repo,
    PRICING,
    "export type Cents = number;",
    "export type Cents = number; // never fractional",
  );
  edit(repo, PRICING, "(sum, item) => sum + item, 0)", "(total, item) => total + item, 0)");
  edit(repo, PRICING, "return count * each;", "return each * count;");
  edit(repo, "src/unused.ts", "return 1;", "return 2;");
  edit(repo, "tests/pricing.spec.ts", "[100, 250]", "[100, 250, 0]");
  repo.commit("the patch");
  const run = vitest(repo);
  expect(run.status, run.output).toBe(0);
}, 120_000);

describe("audit of a TypeScript patch", () => {
  it("fails on a line only a frozen test runs, and judges the other lines by the data", () => {
    const { status, report } = auditJson(repo);
    expect(status).toBe(1);
    expect(report.coverage).toMatchObject({
      format: "freezegate-vitest-coverage",
      contextStyle: "vitest",
      tests: 4,
    });
    expect(report.coverage.coverageVersion).toMatch(/^\d+\.\d+\.\d+/);
    const pricing = verdicts(report, PRICING);
    expect(pricing).toEqual({
      [lineOf(repo, PRICING, "// Prices in whole cents.")]: "not-code",
      [lineOf(repo, PRICING, "export type Cents")]: "not-code",
      [lineOf(repo, PRICING, "(total, item) => total + item")]: "defended",
      [lineOf(repo, PRICING, "return each * count;")]: "shadowed",
    });
    const lines = report.files.find((f) => f.path === PRICING)?.lines ?? [];
    const shadowed = lines.find((l) => l.verdict === "shadowed");
    expect(shadowed?.frozenTests).toEqual([WRAPS]);
    expect(lines.find((l) => l.verdict === "defended")?.tests).toEqual([ADDS]);
    // A module no test imported has no section in the data.
    expect(verdicts(report, "src/unused.ts")).toEqual({ 3: "unmeasured" });
    // The test file is a test file because Vitest's include matched it, not by its name.
    expect(report.skipped).toContainEqual({ path: "tests/pricing.spec.ts", reason: "test-file" });
  });

  it("renders every report format from the same audit", () => {
    const out = (name: string) => join(work, `report.${name}`);
    const formats = ["text", "json", "markdown", "sarif", "github", "junit", "html"];
    const res = cli(
      repo,
      "audit",
      "--base",
      "main",
      "--quiet",
      ...formats.flatMap((f) => ["--output", `${f}=${out(f)}`]),
    );
    expect(res.status, res.stderr).toBe(1);
    const read = (name: string) => readFileSync(out(name), "utf8");
    assertMatchesSchema("audit-report.schema.json", JSON.parse(read("json")));
    validateSarif(JSON.parse(read("sarif")));
    expect(read("sarif")).toContain(WRAPS);
    expect(read("text")).toMatch(/\(Vitest \d+\.\d+\.\d+, line data, 4 tests\)/);
    expect(read("markdown")).toMatch(/Vitest \d+\.\d+\.\d+, line data/);
    expect(read("html")).toMatch(/Vitest \d+\.\d+\.\d+, line data/);
    expect(read("github")).toMatch(/^::error file=src\/pricing\.ts,line=18/m);
    expect(read("junit")).toContain("<failure");
  });

  it("refuses a frozen id that matches no test", () => {
    const list = join(work, "typo.json");
    writeFileSync(list, JSON.stringify({ frozen: [`${SUITE}wraps gift`] }));
    const line = expectOneLineError(cli(repo, "audit", "--base", "main", "--frozen", list));
    expect(line).toContain(`frozen id(s) in ${list} match no test`);
    // The fix speaks Vitest: its ids, its suites, what leaves a test out of its run.
    expect(line).toContain(
      `(fix: did you mean "${WRAPS}" (the data's test one character from "${SUITE}wraps gift")? Frozen ids are exact Vitest test ids (FILE::SUITE > TEST:`,
    );
    writeFileSync(list, JSON.stringify({ frozen: ["tests/pricing.spec.ts::pricing"] }));
    const suite = expectOneLineError(cli(repo, "audit", "--base", "main", "--frozen", list));
    expect(suite).toContain(
      '(fix: "tests/pricing.spec.ts::pricing" is a suite, not a test: freeze all its tests with "tests/pricing.spec.ts::pricing > *"',
    );
    writeFileSync(list, JSON.stringify({ frozen: ["tests/gone.spec.ts::gone"] }));
    const gone = expectOneLineError(cli(repo, "audit", "--base", "main", "--frozen", list));
    expect(gone).toContain("(fix: use exact Vitest test ids");
    const doctor = cli(repo, "doctor", "--base", "main", "--frozen", list);
    expect(doctor.stdout).toMatch(/^FAIL\s+frozen: .* \(fix: use exact Vitest test ids/m);
    for (const said of [line, suite, gone, doctor.stdout]) {
      expect(said).not.toMatch(/pytest|node id/);
    }
  });

  it("refuses the data when a changed file was edited after the run", () => {
    repo.git("checkout", "-q", "-b", "stale");
    try {
      const text = readFileSync(repo.path(PRICING), "utf8");
      repo.write(PRICING, text.slice(0, text.indexOf("export function giftWrap")));
      repo.commit("shorter, after the run");
      const line = expectOneLineError(cli(repo, "audit", "--base", "main"));
      expect(line).toMatch(
        /the coverage data does not match src\/pricing\.ts on disk \(a statement is recorded at lines \d+-\d+, but the file has \d+ lines\)/,
      );
      const doctor = cli(repo, "doctor", "--base", "main");
      expect(doctor.status).toBe(2);
      expect(doctor.stdout).toMatch(/^FAIL\s+freshness: .*src\/pricing\.ts/m);
    } finally {
      repo.git("checkout", "-q", "patch");
    }
  });

  it("refuses when both pytest's and Vitest's data are there, and names the fix", () => {
    writeFileSync(repo.path(".coverage"), "");
    try {
      const line = expectRefusal(cli(repo, "audit", "--base", "main"), "data-of-two-runners");
      expect(line).toContain("data of 2 test runners is here (pytest and Vitest)");
      // Naming the data chooses the run.
      expect(cli(repo, "audit", "--base", "main", "--coverage", DATA).status).toBe(1);
    } finally {
      rmSync(repo.path(".coverage"));
    }
  });

  it("refuses Vitest data that the patch commits, named with --coverage or found", () => {
    const data = readFileSync(repo.path(DATA));
    repo.git("checkout", "-q", "-b", "committed-data");
    try {
      copyFileSync(repo.path(DATA), repo.path("ci-run.jsonl"));
      repo.git("add", "-f", "ci-run.jsonl");
      repo.commit("a recording of another run");
      const named = expectRefusal(
        cli(repo, "audit", "--base", "main", "--coverage", "ci-run.jsonl"),
        "coverage-data-in-patch",
      );
      expect(named).toBe(
        "the Vitest coverage data ci-run.jsonl is part of the patch (main...HEAD adds or changes it): data committed with a patch is not a record of this run (fix: remove ci-run.jsonl from the patch (and add it to .gitignore); record the data in CI with npx vitest run)",
      );
      rmSync(repo.path("ci-run.jsonl"));
      repo.git("add", "-f", DATA);
      repo.commit("the data where the search finds it");
      const found = expectRefusal(cli(repo, "audit", "--base", "main"), "coverage-data-in-patch");
      expect(found).toContain(`the Vitest coverage data ${DATA} is part of the patch`);
      // Untracked again, it is this run's data.
      repo.git("rm", "-q", "--cached", DATA);
      repo.commit("untracked");
      expect(cli(repo, "audit", "--base", "main", "-q").status).toBe(1);
    } finally {
      repo.git("checkout", "-q", "-f", "patch");
      // The run's data stays where the other tests read it, whatever failed above.
      writeFileSync(repo.path(DATA), data);
    }
  });

  it("refuses data whose tests overlapped", () => {
    const copy = join(work, "overlap.jsonl");
    const [header, ...rest] = readFileSync(repo.path(DATA), "utf8").split("\n");
    const parsed = JSON.parse(header as string);
    parsed.concurrentOverlap = true;
    parsed.tests[0].concurrent = true;
    writeFileSync(copy, [JSON.stringify(parsed), ...rest].join("\n"));
    const line = expectOneLineError(cli(repo, "audit", "--base", "main", "--coverage", copy));
    expect(line).toContain("mixes the lines of tests that ran at the same time");
  });

  it("refuses the data of a run filtered by test name", () => {
    const filtered = join(work, "filtered", DATA);
    const run = vitest(repo, { FREEZEGATE_VITEST_DATA: filtered }, "-t", "adds");
    expect(run.status, run.output).toBe(0);
    const line = expectOneLineError(cli(repo, "audit", "--base", "main", "--coverage", filtered));
    expect(line).toContain("is from a filtered run (-t /adds/)");
    const doctor = cli(repo, "doctor", "--base", "main", "--coverage", filtered);
    expect(doctor.status).toBe(2);
    expect(doctor.stdout).toMatch(
      /^FAIL\s+contexts: error\[vitest-run-filtered\]: the Vitest data is from a filtered run/m,
    );
  }, 60_000);
});

describe("doctor and impact on Vitest data", () => {
  it("doctor passes on the data of the patch", () => {
    const res = cli(repo, "doctor", "--base", "main");
    expect(res.status, res.stdout).toBe(0);
    expect(res.stdout).toMatch(
      /^ok\s+data: read \.freezegate\/vitest-coverage\.jsonl \(freezegate-vitest-coverage, Vitest/m,
    );
    expect(res.stdout).toMatch(/^ok\s+frozen: quarantine\.json: 2 entries resolve to 2 test\(s\)/m);
    // src/unused.ts is imported by no test: how to measure it, in Vitest's settings.
    expect(res.stdout).toMatch(
      /^WARN\s+freshness: 1 of 2 changed source files are not in the coverage data: "src\/unused\.ts"/m,
    );
    expect(res.stdout).toContain(
      "Vitest's coverage measuring them (coverage.include and coverage.exclude",
    );
    expect(res.stdout).not.toMatch(/pytest|coverage\.py|node id/);
  });

  it("impact lists the lines a test alone runs", () => {
    const res = cli(repo, "impact", WRAPS, "--format", "json");
    expect(res.status, res.stderr).toBe(0);
    const report = JSON.parse(res.stdout);
    expect(JSON.stringify(report)).toContain(PRICING);
    const free = cli(repo, "impact", FREE);
    expect(free.stdout).toMatch(/src\/pricing\.ts: 11\b/);
  });

  it("impact --mutants refuses Vitest data: only Python is mutated so far", () => {
    const line = expectOneLineError(
      cli(repo, "impact", WRAPS, "--mutants", "--run", "npx vitest run"),
    );
    expect(line).toMatch(
      /^freezegate: error\[mutants-language-unsupported\]: --mutants mutates Python only so far, and this coverage data is Vitest's/,
    );
  });

  it("calibrate --mutants refuses Vitest data with the same code, before any canary", () => {
    const line = expectOneLineError(
      cli(repo, "calibrate", "--mutants", "--run", "npx vitest run", "--format", "json"),
    );
    expect(line).toMatch(
      /^freezegate: error\[mutants-language-unsupported\]: --mutants mutates Python only so far, and this coverage data is Vitest's \(fix: run calibrate without --mutants: the canaries are audited all the same\)/,
    );
  });
});

describe("without usable data", () => {
  it("refuses a TypeScript patch with no data", () => {
    const bare = project(FIXTURE);
    edit(bare, PRICING, "return count * each;", "return each * count;");
    bare.commit("the patch");
    const line = expectOneLineError(cli(bare, "audit", "--base", "main"));
    // What each runner looked for: the project may be either's.
    expect(line).toContain("no coverage data found in");
    expect(line).toContain(
      `no Vitest coverage data found in ${bare.dir} (looked for ${DATA} and the shard files`,
    );
    expect(line).toContain("npx freezegate init vitest");
  });

  it("refuses a frozen test whose beforeEach threw, so its body never ran", () => {
    const cart = project(NO_BODY, FIXTURE);
    rmSync(cart.path("tests/pricing.spec.ts"));
    rmSync(cart.path("quarantine.json"));
    cart.write(
      "quarantine.json",
      JSON.stringify({ frozen: ["tests/cart.spec.ts::setup fails > totals the cart"] }),
    );
    edit(cart, "src/cart.ts", "sum + price, 0", "price + sum, 0");
    cart.commit("the patch");
    // The run fails (the hook throws) and still records its data.
    expect(vitest(cart).status).toBe(1);
    const line = expectOneLineError(cli(cart, "audit", "--base", "main"));
    expect(line).toMatch(/1 frozen test\(s\) in \S*quarantine\.json did not run their body/);
    expect(line).toContain("tests/cart.spec.ts::setup fails > totals the cart");
  }, 60_000);
});

describe("a test file that failed to import", () => {
  let broken: TempRepo;
  beforeAll(() => {
    broken = project(join(REPO_ROOT, "test/fixtures/vitest/import-error"), FIXTURE);
    edit(broken, "src/unused.ts", "return 1;", "return 2;");
    edit(broken, "tests/broken.spec.ts", "multiplies", "multiplies two numbers");
    broken.commit("the patch");
    expect(vitest(broken).status).toBe(1);
  }, 60_000);

  it("refuses a patch that changes it: its tests recorded nothing", () => {
    const line = expectOneLineError(cli(broken, "audit", "--base", "main"));
    expect(line).toContain(
      "the test file tests/broken.spec.ts, which the patch changes, recorded no tests in the Vitest run",
    );
  });

  it("refuses a changed file the data lacks, which only that file may import", () => {
    broken.git("checkout", "-q", "-b", "source-only", "main");
    try {
      edit(broken, "src/unused.ts", "return 1;", "return 2;");
      broken.commit("a source file only");
      const line = expectOneLineError(cli(broken, "audit", "--base", "main"));
      expect(line).toContain(
        "the changed file src/unused.ts is not in the Vitest data, and 1 test file(s) recorded no tests (tests/broken.spec.ts:",
      );
    } finally {
      broken.git("checkout", "-q", "patch");
    }
  });
});

describe("check with a freeze ledger", () => {
  it("fails its shadow gate when a frozen Vitest test is the only one covering the change", () => {
    const ledger = project(FIXTURE);
    rmSync(ledger.path("quarantine.json"));
    ledger.write(
      "freeze-ledger.json",
      `${JSON.stringify(
        {
          version: 1,
          freezes: [
            {
              test_id: WRAPS,
              reason: "gift wrap prices change",
              owner: "alice",
              opened: "2026-01-10",
              expires: "2099-12-31",
              invariant: "a price is never negative",
              compensating_property: ADDS,
              reused_property: true,
            },
          ],
        },
        null,
        2,
      )}\n`,
    );
    ledger.git("add", "-A");
    ledger.git("commit", "-q", "-m", "ledger");
    ledger.git("branch", "-f", "main");
    edit(ledger, PRICING, "return count * each;", "return each * count;");
    ledger.commit("the patch");
    const run = vitest(ledger);
    expect(run.status, run.output).toBe(0);
    // The ledger runs the frozen test and lists it as frozen-passed.
    expect(run.output).toContain(`${WRAPS} (owner alice, expires 2099-12-31)`);
    const res = cli(ledger, "check", "--base", "main", "--format", "json");
    expect(res.stderr).toBe("");
    const report = JSON.parse(res.stdout);
    assertMatchesSchema("check-report.schema.json", report);
    expect(res.status).toBe(1);
    expect(report.failedGates).toContain("shadow");
    expect(report.audit.coverage.format).toBe("freezegate-vitest-coverage");
    const shadowed = report.audit.files[0].lines.filter((l: Line) => l.verdict === "shadowed");
    expect(shadowed).toEqual([expect.objectContaining({ frozenTests: [WRAPS], tests: [] })]);
  }, 60_000);
});

// A data file copied into another clone (a CI artifact) is read as that clone's run.
it("reads a run's data recorded in another clone", () => {
  const other = project(FIXTURE);
  edit(other, PRICING, "return count * each;", "return each * count;");
  other.commit("the patch");
  other.write(DATA, "");
  copyFileSync(repo.path(DATA), other.path(DATA));
  const { status, report } = auditJson(other);
  expect(status).toBe(1);
  expect(verdicts(report, PRICING)).toEqual({
    [lineOf(other, PRICING, "return each * count;")]: "shadowed",
  });
});
