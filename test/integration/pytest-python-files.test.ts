// A `python_files` setting in the test root's pytest configuration names the modules pytest
// collects tests from (pytest-django's per-app tests.py, a suite's check_*.py): they are test
// files, not audited, as the default globs' test_*.py are. Real git,
// real pytest + pytest-cov.

import { afterEach, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPytestCov } from "../helpers/python.js";

let repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos) r.cleanup();
  repos = [];
});

const MODELS = "class Question:\n    def __init__(self, text):\n        self.text = text\n";
const TESTS = [
  "from polls.models import Question",
  "",
  "",
  "def test_text():",
  '    assert Question("x").text == "x"',
  "",
  "",
  "def test_flaky():",
  '    assert Question("y").text == "y"',
  "",
].join("\n");

/**
 * A Django-like app: polls/tests.py holds the tests (one frozen), pytest.ini's python_files
 * collects it. The patch rewrites the frozen test's body and a line of polls/models.py.
 */
function djangoLike(pytestIni: string, patchedIni = pytestIni): TempRepo {
  const r = makeTempRepo();
  repos.push(r);
  r.write(".gitignore", ".coverage*\n__pycache__/\n");
  r.write("polls/__init__.py", "");
  r.write("polls/models.py", MODELS);
  r.write("polls/tests.py", TESTS);
  r.write("pytest.ini", pytestIni);
  r.write("quarantine.json", JSON.stringify({ frozen: ["polls/tests.py::test_flaky"] }));
  r.commit("base");
  r.git("branch", "base");
  r.write("pytest.ini", patchedIni);
  r.write("polls/models.py", MODELS.replace("self.text = text", "self.text = str(text)"));
  r.write(
    "polls/tests.py",
    TESTS.replace(
      '    assert Question("y").text == "y"',
      '    q = Question("y")\n    assert q.text == "y"',
    ),
  );
  r.commit("patch");
  runPytestCov(r.dir, ["--cov=polls"]);
  return r;
}

function audit(r: TempRepo, ...args: string[]) {
  const run = runCli(["audit", "--base", "base", ...args], { cwd: r.dir });
  const head = r.git("rev-parse", "base").trim();
  return {
    ...run,
    stdout: run.stdout.replaceAll(head, "BASE").replace(/\(merge base \w+\)/, "(merge base B)"),
  };
}

const PASSED = [
  "freezegate audit of base...HEAD (merge base B): 1 file, 1 changed line",
  "coverage: .coverage (coverage.py 6.5.0, line data, 2 tests); frozen: quarantine.json (1 test)",
  "",
  "polls/models.py: 1 defended",
  "",
  "not audited: polls/tests.py (test file)",
  "",
  "summary: 1 defended, 0 shadowed, 0 fixture-only, 0 uncovered, 0 unmeasured, 0 not code; shadow ratio 0.0% (0 of 1 executed lines)",
  "PASS: no changed line fails the gate (fail on: shadowed)",
  "",
].join("\n");

/** The same patch with polls/tests.py audited (`notAudited`: the other files left out). */
function shadowedTests(notAudited: string[]): string {
  return [
    "freezegate audit of base...HEAD (merge base B): 2 files, 3 changed lines",
    "coverage: .coverage (coverage.py 6.5.0, line data, 2 tests); frozen: quarantine.json (1 test)",
    "",
    "polls/models.py: 1 defended",
    "",
    "polls/tests.py: 2 shadowed",
    "  SHADOWED 9-10: only frozen tests cover it: polls/tests.py::test_flaky",
    '     9 |     q = Question("y")',
    '    10 |     assert q.text == "y"',
    "",
    ...(notAudited.length === 0 ? [] : [`not audited: ${notAudited.join(", ")}`, ""]),
    "summary: 1 defended, 2 shadowed, 0 fixture-only, 0 uncovered, 0 unmeasured, 0 not code; shadow ratio 66.7% (2 of 3 executed lines)",
    "FAIL: 2 changed lines are covered only by frozen tests (shadowed)",
    "",
  ].join("\n");
}

describePython("python_files of pytest's configuration", () => {
  it("pytest-django's per-app tests.py is a test file: the frozen test's own edit is not audited", () => {
    const r = djangoLike("[pytest]\npython_files = tests.py test_*.py *_tests.py\n");
    const run = audit(r);
    // Before: "polls/tests.py: 2 shadowed ... FAIL", exit 1.
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(PASSED);
    expect(run.status).toBe(0);
  });

  it("a python_files that matches every module leaves the measured modules without tests audited", () => {
    const r = djangoLike("[pytest]\npython_files = *.py\n");
    const run = audit(r);
    // polls/models.py is named like a test module now, but the data measures it and no test
    // lives in it: library code, audited (defended), as a default-named app/ab_test.py is.
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(PASSED);
    expect(run.status).toBe(0);
  });

  it("the python_files of the test root's own configuration count (--test-root)", () => {
    const r = makeTempRepo();
    repos.push(r);
    r.write(".gitignore", ".coverage*\n__pycache__/\n");
    r.write("backend/polls/__init__.py", "");
    r.write("backend/polls/models.py", MODELS);
    r.write("backend/polls/tests.py", TESTS);
    r.write("backend/pytest.ini", "[pytest]\npython_files = tests.py\n");
    r.write("quarantine.json", JSON.stringify({ frozen: ["polls/tests.py::test_flaky"] }));
    r.commit("base");
    r.git("branch", "base");
    r.write("backend/polls/tests.py", TESTS.replace('Question("y")', 'Question(text="y")'));
    r.commit("patch");
    runPytestCov(r.path("backend"), ["--cov=polls"]);
    const run = audit(r, "--test-root", "backend", "--coverage", "backend/.coverage");
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(
      [
        "freezegate audit of base...HEAD (merge base B): 0 files, 0 changed lines",
        "coverage: backend/.coverage (coverage.py 6.5.0, line data, 2 tests); frozen: quarantine.json (1 test)",
        "",
        "not audited: backend/polls/tests.py (test file)",
        "",
        "summary: 0 defended, 0 shadowed, 0 fixture-only, 0 uncovered, 0 unmeasured, 0 not code; shadow ratio n/a (no changed line was executed by a test)",
        "PASS: no changed line fails the gate (fail on: shadowed)",
        "",
      ].join("\n"),
    );
    expect(run.status).toBe(0);
  });

  it("test-files the user sets win: python_files adds nothing to them", () => {
    const r = djangoLike("[pytest]\npython_files = tests.py test_*.py\n");
    const run = audit(r, "--test-files", "test_*.py");
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(shadowedTests([]));
    expect(run.status).toBe(1);
  });

  it("a patch that adds the python_files is judged by its base's too: tests.py stays audited", () => {
    const r = djangoLike("[pytest]\n", "[pytest]\npython_files = tests.py test_*.py\n");
    const run = audit(r);
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(shadowedTests(["pytest.ini (not source)"]));
    expect(run.status).toBe(1);
  });

  it("a pyproject's python_files list collects testing/check_*.py: a test file", () => {
    const r = makeTempRepo();
    repos.push(r);
    r.write(".gitignore", ".coverage*\n__pycache__/\n");
    r.write(
      "pyproject.toml",
      '[tool.pytest.ini_options]\npython_files = ["check_*.py"]\ntestpaths = ["testing"]\n',
    );
    r.write("calc/__init__.py", "");
    r.write("calc/ops.py", "def add(a, b):\n    return a + b\n");
    r.write(
      "testing/check_ops.py",
      [
        "from calc.ops import add",
        "",
        "",
        "def check_numbers():",
        "    return [(1, 2, 3), (2, 2, 4)]",
        "",
        "",
        "def test_add():",
        "    for a, b, c in check_numbers():",
        "        assert add(a, b) == c",
        "",
      ].join("\n"),
    );
    r.write("quarantine.json", JSON.stringify({ frozen: ["testing/check_ops.py::test_add"] }));
    r.commit("base");
    r.git("branch", "base");
    r.write(
      "testing/check_ops.py",
      r.git("show", "HEAD:testing/check_ops.py").replace("(2, 2, 4)]", "(2, 2, 4), (0, 0, 0)]"),
    );
    r.commit("one more case");
    runPytestCov(r.dir, ["--cov=."]);
    const run = audit(r);
    // Before: "SHADOWED 5: only frozen tests cover it", exit 1.
    expect(run.stderr).toBe("");
    expect(run.stdout).toBe(
      [
        "freezegate audit of base...HEAD (merge base B): 0 files, 0 changed lines",
        "coverage: .coverage (coverage.py 6.5.0, line data, 1 test); frozen: quarantine.json (1 test)",
        "",
        "not audited: testing/check_ops.py (test file)",
        "",
        "summary: 0 defended, 0 shadowed, 0 fixture-only, 0 uncovered, 0 unmeasured, 0 not code; shadow ratio n/a (no changed line was executed by a test)",
        "PASS: no changed line fails the gate (fail on: shadowed)",
        "",
      ].join("\n"),
    );
    expect(run.status).toBe(0);
  });

  it("a module only python_files names is a test file only when a test of the data lives in it", () => {
    // python_files = *.py: a library module the patch takes out of the data (an omit) is no
    // test file; the coverage-config guard refuses the patch, as without python_files.
    const r = makeTempRepo();
    repos.push(r);
    r.write(".gitignore", ".coverage*\n__pycache__/\n");
    r.write("pytest.ini", "[pytest]\npython_files = *.py\ntestpaths = tests\n");
    r.write("pyproject.toml", '[tool.coverage.run]\nsource = ["app"]\n');
    r.write("app/__init__.py", "");
    r.write("app/calc.py", "def add(a, b):\n    return a + b\n");
    r.write(
      "tests/test_calc.py",
      "from app.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
    );
    r.write("quarantine.json", JSON.stringify({ frozen: ["tests/test_calc.py::test_add"] }));
    r.commit("base");
    r.git("branch", "base");
    r.write("app/calc.py", "def add(a, b):\n    return b + a\n");
    r.write("pyproject.toml", '[tool.coverage.run]\nsource = ["app"]\nomit = ["app/calc.py"]\n');
    r.commit("change add; omit it");
    runPytestCov(r.dir);
    const omitted = audit(r);
    expect(omitted.stdout).toBe("");
    expect(omitted.stderr).toMatch(
      /^freezegate: error\[patch-changes-coverage-config\]: the patch changes coverage\.py's configuration \("pyproject\.toml"\) and its changed source "app\/calc\.py" is not in the coverage data/,
    );
    expect(omitted.status).toBe(2);

    // check_*.py with --doctest-modules: a library module holding only a doctest is library
    // code, audited; the frozen test alone runs its changed line.
    const d = makeTempRepo();
    repos.push(d);
    d.write(".gitignore", ".coverage*\n__pycache__/\n");
    d.write("pytest.ini", "[pytest]\npython_files = check_*.py\naddopts = --doctest-modules\n");
    d.write("app/__init__.py", "");
    const limits = '"""Limits.\n\n>>> 2 + 2\n4\n"""\n\n\ndef within(x):\n    return x < 10\n';
    d.write("app/check_limits.py", limits);
    d.write(
      "checks/check_app.py",
      "from app.check_limits import within\n\n\ndef test_within():\n    assert within(1)\n",
    );
    d.write("quarantine.json", JSON.stringify({ frozen: ["checks/check_app.py::test_within"] }));
    d.commit("base");
    d.git("branch", "base");
    d.write("app/check_limits.py", limits.replace("x < 10", "x < 100"));
    d.commit("a wider limit");
    runPytestCov(d.dir, ["--cov=app"]);
    const doctest = audit(d);
    expect(doctest.stderr).toBe("");
    expect(doctest.stdout).toContain(
      "app/check_limits.py: 1 shadowed\n  SHADOWED 9: only frozen tests cover it: checks/check_app.py::test_within\n",
    );
    expect(doctest.status).toBe(1);
  });
});
