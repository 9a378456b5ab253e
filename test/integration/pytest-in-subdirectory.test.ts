// pytest run from a subdirectory (`cd tests && pytest --cov --cov-context=test`) writes its
// data there, with node ids relative to its rootdir. freezegate must never read another run's
// data in its place without a word, and must say why frozen ids then match no test.

import { copyFileSync, linkSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPython } from "../helpers/python.js";

let repo: TempRepo;
afterAll(() => repo?.cleanup());

const OPS = "def add(a, b):\n    return a + b\n\n\ndef sub(a, b):\n    return a - b\n";
const TESTS = [
  "from calc.ops import add, sub",
  "",
  "",
  "def test_add():",
  "    assert add(1, 2) == 3",
  "",
  "",
  "def test_sub():",
  "    assert sub(3, 2) == 1",
  "",
].join("\n");

function pytest(where: "." | "tests"): void {
  const run = runPython(
    ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov-context=test", "--cov-report="].concat(
      where === "." ? ["--cov=calc"] : ["--cov=../calc"],
    ),
    { cwd: join(repo.dir, where) },
  );
  expect(run.status, run.stdout + run.stderr).toBe(0);
}

const audit = (cwd: string, ...args: string[]) =>
  runCli(["audit", "--base", "main", ...args], { cwd: join(repo.dir, cwd) });
const frozen = (...ids: string[]) =>
  writeFileSync(join(repo.dir, "quarantine.json"), JSON.stringify({ frozen: ids }));

describePython("pytest run in tests/ beside older data at the repository root", () => {
  beforeAll(() => {
    repo = makeTempRepo();
    repo.write(".gitignore", ".coverage\nq*.json\nledger.json\n");
    repo.write("calc/__init__.py", "");
    repo.write("calc/ops.py", OPS);
    // Makes calc importable when pytest runs in tests/ (its rootdir is then tests/).
    repo.write(
      "tests/conftest.py",
      "import os, sys\n\nsys.path.insert(0, os.path.dirname(os.path.dirname(__file__)))\n",
    );
    repo.write("tests/test_ops.py", TESTS);
    repo.commit("base");
    repo.git("checkout", "-q", "-b", "feature");
    repo.write("calc/ops.py", OPS.replace("    return a + b\n", "    c = a + b\n    return c\n"));
    repo.commit("add: through a local");
    frozen("tests/test_ops.py::test_add");
    // The older run, at the root; then the run of this patch, in tests/, after a test change
    // that makes test_sub cover add too.
    pytest(".");
    repo.write("tests/test_ops.py", TESTS.replace("sub(3, 2) == 1", "sub(add(1, 2), 2) == 1"));
    repo.commit("test_sub runs add");
    pytest("tests");
  });

  it("audit, doctor, impact and ledger check refuse to pick one of two runs' data (exit 2)", () => {
    // Before: the root's .coverage was read, and "coverage: .coverage" read as tests/'s own.
    const expected =
      "freezegate: error[data-of-two-runs]: coverage data is in the working directory (.coverage) and in the repository root (../.coverage), and the two differ, so which run to audit cannot be told (fix: name the data of the run to audit: --coverage .coverage or --coverage ../.coverage (and delete the stale data))";
    expect(expectOneLineError(audit("tests"))).toBe(expected);
    const impact = runCli(["impact", "tests/test_ops.py::test_add"], {
      cwd: join(repo.dir, "tests"),
    });
    expect(expectOneLineError(impact)).toBe(expected);
    writeFileSync(join(repo.dir, "ledger.json"), '{"version": 1, "freezes": []}\n');
    const ledger = runCli(["ledger", "check", "--ledger", "../ledger.json"], {
      cwd: join(repo.dir, "tests"),
    });
    expect(expectOneLineError(ledger)).toBe(expected);

    const doctor = runCli(["doctor", "--base", "main"], { cwd: join(repo.dir, "tests") });
    expect(doctor.status).toBe(2);
    expect(doctor.stdout).toContain(
      "FAIL  data: error[data-of-two-runs]: coverage data is in the working directory (.coverage) and in the repository root (../.coverage)",
    );
    // The test root is a place pytest writes its data too.
    expect(expectOneLineError(audit(".", "--test-root", "tests"))).toBe(
      "freezegate: error[data-of-two-runs]: coverage data is in the test root (tests/.coverage) and in the repository root (.coverage), and the two differ, so which run to audit cannot be told (fix: name the data of the run to audit: --coverage tests/.coverage or --coverage .coverage (and delete the stale data))",
    );
  });

  it("the data named: paths relative to where the user stands, in the header and in doctor", () => {
    const chosen = audit("tests", "--coverage", "../.coverage");
    expect(chosen.stderr).toBe("");
    expect(chosen.status).toBe(1);
    expect(chosen.stdout.split("\n")[1]).toMatch(
      /^coverage: \.\.\/\.coverage \(coverage\.py [\d.]+, line data, 2 tests\); frozen: \.\.\/quarantine\.json \(1 test\)$/,
    );
    // JSON keeps repository paths.
    const json = JSON.parse(
      audit("tests", "--coverage", "../.coverage", "--format", "json").stdout,
    );
    expect(json.coverage.dataFiles).toEqual([".coverage"]);
    const doctor = runCli(["doctor", "--base", "main", "--coverage", "../.coverage"], {
      cwd: join(repo.dir, "tests"),
    });
    expect(doctor.stdout).toMatch(/^ok {4}data: read \.\.\/\.coverage \(coverage\.py-sqlite, /m);
    // From the root, alone there: read as before.
    expect(audit(".").status).toBe(1);
  });

  it("the same run in both places (a hard link, a byte-for-byte copy) is read", () => {
    const own = join(repo.dir, "tests/.coverage");
    const kept = join(repo.dir, "tests.coverage.kept");
    linkSync(own, kept);
    try {
      for (const make of [
        () => linkSync(join(repo.dir, ".coverage"), own),
        () => copyFileSync(join(repo.dir, ".coverage"), own),
      ]) {
        rmSync(own);
        make();
        const run = audit("tests");
        expect(run.stderr).toBe("");
        expect(run.status).toBe(1);
        expect(run.stdout).toContain("coverage: .coverage (coverage.py");
      }
    } finally {
      rmSync(own);
      linkSync(kept, own);
      rmSync(kept);
    }
  });

  it("frozen ids written from the root, data from pytest in tests/: says so and names --test-root", () => {
    // Before: "1 frozen id(s) ... match no test in the coverage data" and the general advice.
    const refused = expectOneLineError(audit(".", "--coverage", "tests/.coverage"));
    expect(refused).toBe(
      `freezegate: error[frozen-ids-unresolved]: 1 frozen id(s) in ${repo.path("quarantine.json")} match no test in the coverage data: "tests/test_ops.py::test_add"; the data names this test without "tests/" ("test_ops.py::test_add" for "tests/test_ops.py::test_add"): pytest ran with its rootdir in tests/, and node ids are relative to it (fix: pass --test-root tests (pytest's rootdir) and write the frozen ids as the data names them ("test_ops.py::test_add"); or run pytest with its rootdir at the repository root, where its ids are the frozen ids)`,
    );
    // The tests exist and ran: --allow-unresolved (for tests that are gone) does not waive it.
    expect(
      expectOneLineError(audit(".", "--coverage", "tests/.coverage", "--allow-unresolved")),
    ).toBe(refused);
    const doctor = runCli(["doctor", "--base", "main", "--coverage", "tests/.coverage"], {
      cwd: repo.dir,
    });
    expect(doctor.stdout).toContain(
      'FAIL  frozen: quarantine.json: 1 of 1 frozen id(s) match no test in the data: "tests/test_ops.py::test_add"; the data names this test without "tests/"',
    );
    // The fix, followed, audits.
    writeFileSync(join(repo.dir, "q-tests.json"), '{"frozen": ["test_ops.py::test_add"]}');
    const followed = audit(
      ".",
      "--coverage",
      "tests/.coverage",
      "--test-root",
      "tests",
      "--frozen",
      "q-tests.json",
    );
    expect(followed.stderr).toBe("");
    expect(followed.status).toBe(0);
  });

  it("frozen ids written for tests/, data from the root: says so the other way round", () => {
    writeFileSync(join(repo.dir, "q-short.json"), '{"frozen": ["test_ops.py::test_add"]}');
    expect(
      expectRefusal(
        audit(".", "--coverage", ".coverage", "--frozen", "q-short.json"),
        "frozen-ids-unresolved",
      ),
    ).toBe(
      `1 frozen id(s) in ${repo.path("q-short.json")} match no test in the coverage data: "test_ops.py::test_add"; the data names this test with "tests/" in front ("tests/test_ops.py::test_add" for "test_ops.py::test_add"): node ids are relative to pytest's rootdir, the repository root (fix: write the frozen ids as the data names them ("tests/test_ops.py::test_add"); or run pytest with its rootdir in tests/ and pass --test-root tests)`,
    );
  });

  it("a frozen id one character from a test in the data: did you mean", () => {
    writeFileSync(join(repo.dir, "q-typo.json"), '{"frozen": ["tests/test_ops.py::test_ad"]}');
    expect(
      expectRefusal(
        audit(".", "--coverage", ".coverage", "--frozen", "q-typo.json"),
        "frozen-ids-unresolved",
      ),
    ).toBe(
      `1 frozen id(s) in ${repo.path("q-typo.json")} match no test in the coverage data: "tests/test_ops.py::test_ad" (fix: did you mean "tests/test_ops.py::test_add" (the data's test one character from "tests/test_ops.py::test_ad")? Frozen ids are exact pytest node ids (as in \`pytest --collect-only -q\`))`,
    );
  });
});
