// The audit end to end on data recorded by the real tools: a git repository with a patch,
// its suite run under pytest-cov / coverage.py in every layout coverage.py can write, and the
// built CLI. Every layout must give the same verdicts (test/fixtures/scenarios/shop/README.md).

import {
  cpSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, makeTempDir, runPytestCov, runPython } from "../helpers/python.js";
import { assertMatchesSchema } from "../helpers/schema.js";

const SCENARIO = join(REPO_ROOT, "test/fixtures/scenarios/shop");
const FROZEN_DISCOUNT = "tests/test_pricing.py::test_discount_rounding";
const FROZEN_BULK = "tests/test_pricing.py::test_bulk_price";
const LIVE_FORMAT = "tests/test_pricing.py::test_format_price[big::one]";
const FROZEN_FORMAT = "tests/test_pricing.py::test_format_price[small|cents]";

interface Line {
  line: number;
  verdict: string;
  statement: number | null;
  tests: string[];
  frozenTests: string[];
  fixtureTests: string[];
  outsideTests: boolean;
}

let repo: TempRepo;
let scratch: string;

function audit(args: string[]) {
  const r = runCli(["audit", "--base", "base", "--format", "json", ...args], { cwd: repo.dir });
  if (r.status !== 0 && r.status !== 1) throw new Error(`audit failed: ${r.stderr}`);
  const report = JSON.parse(r.stdout);
  assertMatchesSchema("audit-report.schema.json", report);
  return { status: r.status, report };
}

function verdicts(report: { files: Array<{ path: string; lines: Line[] }> }) {
  const out: Record<string, string> = {};
  for (const f of report.files) for (const l of f.lines) out[`${f.path}:${l.line}`] = l.verdict;
  return out;
}

function line(report: { files: Array<{ path: string; lines: Line[] }> }, key: string): Line {
  const [path, n] = key.split(":");
  const found = report.files.find((f) => f.path === path)?.lines.find((l) => l.line === Number(n));
  if (!found) throw new Error(`no line ${key} in the report`);
  return found;
}

/** Records data with the given pytest arguments and moves it to scratch/<name>. */
function record(name: string, args: string[], env: Record<string, string> = {}): string {
  rmSync(join(repo.dir, ".coverage"), { force: true });
  runPytestCov(repo.dir, args, env);
  const target = join(scratch, name);
  renameSync(join(repo.dir, ".coverage"), target);
  return target;
}

// pricing.py and catalog.py in the patch, one verdict per changed line.
const EXPECTED: Record<string, string> = {
  "src/shop/catalog.py:5": "fixture-only",
  "src/shop/pricing.py:15": "shadowed",
  "src/shop/pricing.py:24": "shadowed",
  "src/shop/pricing.py:30": "not-code",
  "src/shop/pricing.py:31": "defended",
  "src/shop/pricing.py:32": "not-code",
  "src/shop/pricing.py:33": "not-code",
  "src/shop/pricing.py:34": "uncovered",
  "src/shop/pricing.py:35": "uncovered",
  "src/shop/pricing.py:36": "uncovered",
  "src/shop/pricing.py:37": "uncovered",
};

describePython("audit on data recorded by pytest-cov and coverage.py", () => {
  const data: Record<string, string> = {};

  beforeAll(() => {
    scratch = makeTempDir("shop-data");
    repo = makeTempRepo();
    cpSync(join(SCENARIO, "common"), repo.dir, { recursive: true });
    cpSync(join(SCENARIO, "base"), repo.dir, { recursive: true });
    repo.commit("base");
    repo.git("branch", "base");
    cpSync(join(SCENARIO, "patch"), repo.dir, { recursive: true });
    repo.commit("patch: floor discounts, 5% bulk, f-string prices, refunds");

    data.lines = record("lines.coverage", []);
    data.branch = record("branch.coverage", ["--cov-branch"]);
    const rel = join(scratch, "relative.coveragerc");
    writeFileSync(rel, "[run]\nsource = src\nrelative_files = True\n");
    data.relative = record("relative.coverage", [`--cov-config=${rel}`]);
    // Two CI shards, each writing a parallel data file; no combined file exists.
    const shards = join(scratch, "shards");
    mkdirSync(shards);
    for (const [suffix, expr] of [
      ["shardA", "discount or bulk"],
      ["shardB", "not discount and not bulk"],
    ] as const) {
      rmSync(join(repo.dir, ".coverage"), { force: true });
      runPytestCov(repo.dir, ["-k", expr]);
      renameSync(join(repo.dir, ".coverage"), join(shards, `.coverage.${suffix}`));
    }
    data.shards = shards;
    // The JSON report with contexts, from the line data.
    cpSync(data.lines, join(repo.dir, ".coverage"));
    const json = runPython(
      ["-m", "coverage", "json", "--show-contexts", "-o", join(scratch, "coverage.json")],
      { cwd: repo.dir },
    );
    if (json.status !== 0) throw new Error(json.stderr);
    data.json = join(scratch, "coverage.json");
    rmSync(join(repo.dir, ".coverage"));
    // coverage.py's own dynamic contexts: dotted test_function names, no phases.
    const tf = join(scratch, "test-function.coveragerc");
    writeFileSync(
      tf,
      `[run]\nsource = src\ndynamic_context = test_function\ndata_file = ${join(scratch, "test-function.coverage")}\n`,
    );
    const run = runPython(
      ["-m", "coverage", "run", `--rcfile=${tf}`, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
      {
        cwd: repo.dir,
      },
    );
    if (run.status !== 0) throw new Error(run.stdout + run.stderr);
    data.testFunction = join(scratch, "test-function.coverage");
  }, 170_000);

  afterAll(() => repo?.cleanup());

  it.each(["lines", "branch", "relative", "shards", "json"])(
    "%s data: every changed line gets the expected verdict",
    (kind) => {
      const { status, report } = audit(["--coverage", data[kind] as string]);
      expect(status).toBe(1);
      expect(verdicts(report)).toEqual(EXPECTED);
      expect(report.skipped).toEqual([]);
      expect(line(report, "src/shop/pricing.py:15")).toMatchObject({
        statement: 15,
        tests: [],
        frozenTests: [FROZEN_BULK, FROZEN_DISCOUNT],
      });
      // A continuation line takes its statement's verdict and tests.
      expect(line(report, "src/shop/pricing.py:24")).toMatchObject({
        statement: 22,
        frozenTests: [FROZEN_BULK],
      });
      // One parametrized case frozen, the other live: the line is defended, ids exact.
      expect(line(report, "src/shop/pricing.py:31")).toMatchObject({
        tests: [LIVE_FORMAT],
        frozenTests: [FROZEN_FORMAT],
      });
      expect(line(report, "src/shop/pricing.py:34")).toMatchObject({
        outsideTests: true,
        tests: [],
      });
      expect(line(report, "src/shop/catalog.py:5")).toMatchObject({
        fixtureTests: ["tests/test_pricing.py::test_catalog"],
        tests: [],
      });
      expect(report.summary.shadowRatio).toBeCloseTo(2 / 4);
      expect(report.coverage.branch).toBe(kind === "branch");
    },
  );

  it("the seed's matcher reports no shadow on the same data; freezegate reports the truth", () => {
    const seed = runPython(
      [
        join(SCENARIO, "../seed_rule.py"),
        data.json as string,
        join(repo.dir, "quarantine.json"),
        "src/shop/pricing.py:15",
        "src/shop/pricing.py:22",
      ],
      { cwd: repo.dir },
    );
    expect(seed.stderr).toBe("");
    expect(seed.stdout.trim()).toBe("0");
    const { report } = audit(["--coverage", data.json as string]);
    expect(report.summary.counts.shadowed).toBe(2);
  });

  it("test_function contexts: dotted names mapped to node ids; fixtures run outside tests", () => {
    writeFileSync(
      join(scratch, "frozen-whole-tests.json"),
      JSON.stringify({ frozen: [FROZEN_DISCOUNT, FROZEN_BULK] }),
    );
    const { report } = audit([
      "--coverage",
      data.testFunction as string,
      "--frozen",
      join(scratch, "frozen-whole-tests.json"),
    ]);
    expect(report.coverage.contextStyle).toBe("test-function");
    expect(verdicts(report)).toEqual({
      ...EXPECTED,
      // coverage.py runs fixtures in the empty context: no test is charged with them.
      "src/shop/catalog.py:5": "uncovered",
    });
    expect(line(report, "src/shop/pricing.py:31").tests).toEqual([
      "tests/test_pricing.py::test_format_price",
    ]);
    expect(line(report, "src/shop/catalog.py:5").outsideTests).toBe(true);
  });

  it("test_function contexts cannot express a frozen parametrized case: refused", () => {
    const r = runCli(["audit", "--base", "base", "--coverage", data.testFunction as string], {
      cwd: repo.dir,
    });
    expect(expectRefusal(r, "frozen-case-with-test-function")).toMatch(
      /freezes the parametrized case "tests\/test_pricing\.py::test_format_price\[small\|cents\]", but the coverage data uses test_function contexts/,
    );
  });

  it('test_function contexts: "id[*]" (every case) freezes the test, as its plain id does', () => {
    // The README's way to freeze every case works over both kinds of data.
    const lists = {
      star: [FROZEN_DISCOUNT, FROZEN_BULK, "tests/test_pricing.py::test_format_price[*]"],
      plain: [FROZEN_DISCOUNT, FROZEN_BULK, "tests/test_pricing.py::test_format_price"],
    };
    const reports = Object.entries(lists).map(([name, frozen]) => {
      writeFileSync(join(scratch, `tf-${name}.json`), JSON.stringify({ frozen }));
      return audit([
        "--coverage",
        data.testFunction as string,
        "--frozen",
        join(scratch, `tf-${name}.json`),
      ]).report;
    });
    const [star, plain] = reports;
    expect(star.frozen.tests).toContain("tests/test_pricing.py::test_format_price");
    expect({ ...star.frozen, file: "" }).toEqual({ ...plain.frozen, file: "" });
    expect(star.files).toEqual(plain.files);
    expect(star.summary).toEqual(plain.summary);
    expect(line(star, "src/shop/pricing.py:31")).toMatchObject({
      verdict: "shadowed",
      frozenTests: ["tests/test_pricing.py::test_format_price"],
    });
    // One case, or a glob over some, still cannot be told apart from the others; a glob
    // before "[*]" freezes the cases of every parametrized test it matches, and these names
    // cannot tell those tests from plain ones, which it would freeze too.
    for (const [name, entry] of [
      ["tf-some", "tests/test_pricing.py::test_format_price[s*]"],
      ["tf-glob", "tests/test_pricing.py::test_*[*]"],
    ]) {
      const list = join(scratch, `${name}.json`);
      writeFileSync(list, JSON.stringify({ frozen: [entry] }));
      const refused = runCli(
        ["audit", "--base", "base", "--coverage", data.testFunction as string, "--frozen", list],
        { cwd: repo.dir },
      );
      expect(expectRefusal(refused, "frozen-case-with-test-function")).toMatch(
        `${list} freezes parametrized cases "${entry}", but the coverage data uses test_function contexts`,
      );
    }
  });

  it("a parametrized test's own id is unresolved, and the fix says how to freeze its cases", () => {
    const list = join(scratch, "base-id.json");
    writeFileSync(list, '{"frozen": ["tests/test_pricing.py::test_format_price"]}\n');
    const r = runCli(
      ["audit", "--base", "base", "--coverage", data.lines as string, "--frozen", list],
      {
        cwd: repo.dir,
      },
    );
    const fix = `(fix: "tests/test_pricing.py::test_format_price" is a parametrized test: freeze all its cases with "tests/test_pricing.py::test_format_price[*]", or list them as \`pytest --collect-only -q\` prints them)`;
    expect(expectRefusal(r, "frozen-ids-unresolved")).toBe(
      `1 frozen id(s) in ${list} match no test in the coverage data: "tests/test_pricing.py::test_format_price" ${fix}`,
    );
    // doctor gives the same fix, not a general one.
    const doctor = runCli(
      ["doctor", "--base", "base", "--coverage", data.lines as string, "--frozen", list],
      { cwd: repo.dir },
    );
    expect(doctor.stdout).toContain(
      `FAIL  frozen: ${list}: 1 of 1 frozen id(s) match no test in the data: "tests/test_pricing.py::test_format_price" ${fix}\n`,
    );
    expect(doctor.status).toBe(2);
  });

  it("data without per-test contexts is refused, never read as 'nothing covered'", () => {
    rmSync(join(repo.dir, ".coverage"), { force: true });
    const plain = runPython(
      ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov", "--cov-report="],
      {
        cwd: repo.dir,
      },
    );
    expect(plain.status).toBe(0);
    const r = runCli(["audit", "--base", "base"], { cwd: repo.dir });
    expect(expectRefusal(r, "data-names-no-tests")).toMatch(
      /names no tests \(only ""\), .* \(fix: record per-test contexts/,
    );
    const doctor = runCli(["doctor"], { cwd: repo.dir });
    expect(doctor.status).toBe(2);
    expect(doctor.stdout).toMatch(
      /^FAIL {2}contexts: every line is recorded under the empty context ""/m,
    );
    const noContexts = runPython(["-m", "coverage", "json", "-o", join(scratch, "plain.json")], {
      cwd: repo.dir,
    });
    expect(noContexts.status).toBe(0);
    rmSync(join(repo.dir, ".coverage"));
    const r2 = runCli(["audit", "--base", "base", "--coverage", join(scratch, "plain.json")], {
      cwd: repo.dir,
    });
    expect(expectOneLineError(r2)).toMatch(/--show-contexts/);
  });

  it("doctor passes on good data and names each problem on bad data", () => {
    cpSync(data.lines as string, join(repo.dir, ".coverage"));
    try {
      const good = runCli(["doctor", "--base", "base"], { cwd: repo.dir });
      expect(good.stdout).toMatch(
        /^ok {4}contexts: 7 tests in \d+ contexts \(pytest-cov node ids\)/m,
      );
      expect(good.stdout).toMatch(
        /^ok {4}node-ids: every test id names a test file that exists \(7 tests\)$/m,
      );
      expect(good.stdout).toMatch(
        /^ok {4}frozen: .*quarantine\.json: 3 entries resolve to 3 test\(s\) in the data$/m,
      );
      expect(good.stdout).toMatch(
        /^ok {4}freshness: the data matches the 2 changed file\(s\) it measures$/m,
      );
      expect(good.status).toBe(0);

      // A changed file touched after the run: a warning, not a failure (a fresh checkout
      // looks newer too); the content check is what proves staleness.
      const later = new Date(Date.now() + 3600_000);
      utimesSync(join(repo.dir, "src/shop/catalog.py"), later, later);
      const touched = runCli(["doctor", "--base", "base"], { cwd: repo.dir });
      expect(touched.status).toBe(0);
      expect(touched.stdout).toMatch(
        /^WARN {2}freshness: 1 changed file\(s\) were modified after the data was recorded \(.*\): "src\/shop\/catalog\.py"/m,
      );

      writeFileSync(
        join(scratch, "typo.json"),
        JSON.stringify({ frozen: ["test_pricing.py::test_bulk_price"] }),
      );
      const bad = runCli(
        ["doctor", "--base", "base", "--frozen", join(scratch, "typo.json"), "--test-root", "src"],
        {
          cwd: repo.dir,
        },
      );
      expect(bad.status).toBe(2);
      expect(bad.stdout).toMatch(
        /^FAIL {2}node-ids: test ids name 1 file\(s\) that do not exist in the repository: "tests\/test_pricing\.py" \(fix: set --test-root/m,
      );
      expect(bad.stdout).toMatch(
        /^FAIL {2}frozen: .*typo\.json: 1 of 1 frozen id\(s\) match no test in the data/m,
      );
    } finally {
      rmSync(join(repo.dir, ".coverage"), { force: true });
    }
  });

  it("stale data: the patch moved lines after the tests ran", () => {
    const file = join(repo.dir, "src/shop/pricing.py");
    const before = readFileSync(file, "utf8");
    writeFileSync(
      file,
      before.replace('"""Prices and discounts, in integer cents."""\n', '"""Prices."""\n\n\n\n'),
    );
    repo.git("commit", "-q", "-a", "-m", "reflow the header");
    try {
      const r = runCli(["audit", "--base", "base", "--coverage", data.lines as string], {
        cwd: repo.dir,
      });
      expect(expectRefusal(r, "coverage-data-stale")).toMatch(
        /does not match src\/shop\/pricing\.py on disk/,
      );
      const doctor = runCli(["doctor", "--base", "base", "--coverage", data.lines as string], {
        cwd: repo.dir,
      });
      expect(doctor.stdout).toMatch(
        /^FAIL {2}freshness: the data does not match src\/shop\/pricing\.py on disk/m,
      );
    } finally {
      repo.git("reset", "-q", "--hard", "HEAD~1");
    }
  });
});

describePython("a JSON report's docstring lines (coverage.py 6.x lists them as executed)", () => {
  it("gets the verdicts the SQLite data gives: a changed docstring is not code", () => {
    const r = makeTempRepo();
    try {
      r.write("lib.py", "def make():\n    return 1\n");
      r.write("conftest.py", "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n");
      r.write("tests/test_x.py", "from lib import make\ndef test_frozen():\n    assert make()\n");
      r.write(".gitignore", ".coverage*\ncoverage.json\n__pycache__/\n");
      r.commit("base");
      r.git("branch", "base");
      r.write(
        "lib.py",
        'def make():\n    class K:\n        """Docstring of K,\n        two lines."""\n        x = 1\n    return K.x\n',
      );
      r.commit("change");
      r.write("quarantine.json", '{"frozen": ["tests/test_x.py::test_frozen"]}\n');
      runPytestCov(r.dir);
      const json = runPython(["-m", "coverage", "json", "--show-contexts", "-q"], { cwd: r.dir });
      expect(json.status, json.stderr).toBe(0);
      const byData = (coverage: string) => {
        const out = runCli(
          ["audit", "--base", "base", "--coverage", coverage, "--format", "json"],
          { cwd: r.dir },
        );
        expect(out.stderr).toBe("");
        const report = JSON.parse(out.stdout) as { files: { lines: Line[] }[] };
        return report.files[0]?.lines.map((l) => [l.line, l.verdict]);
      };
      const fromSqlite = byData(".coverage");
      expect(fromSqlite).toEqual([
        [2, "shadowed"],
        [3, "not-code"],
        [4, "not-code"],
        [5, "shadowed"],
        [6, "shadowed"],
      ]);
      expect(byData("coverage.json")).toEqual(fromSqlite);
    } finally {
      r.cleanup();
    }
  });
});
