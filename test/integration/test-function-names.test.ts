// coverage.py's own `dynamic_context = test_function` names (module.Class.function, no phase)
// mapped to node ids, on data that real coverage.py records for small suites: each case is a
// way the name does not say which collected test ran (an inherited method, a decorator
// without functools.wraps, custom python_files, a library runner), which must be refused,
// or a reading that must keep working (unittest, a real helper, a Django stub tests.py).

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { expectRefusal, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, makeTempDir, runPython } from "../helpers/python.js";

const RC = "[run]\ndynamic_context = test_function\nsource = .\n";
const LIB = "def f(k):\n    return k\n";
/** The change every case audits: line 3 runs only for k == 4. */
const LIB_CHANGED = "def f(k):\n    if k == 4:\n        return 4\n    return k\n";
const SYS_PATH = "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n";
const RECORD_NODE_IDS =
  "(fix: record node ids instead: run pytest --cov --cov-context=test (pytest-cov))";

const repos: TempRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
});

/**
 * A repository whose `lib` (at `libPath`) changes on top of branch "base", with the data
 * coverage.py records for its suite under `dir` (test_function contexts).
 */
function recorded(
  files: Record<string, string>,
  libPath = "lib.py",
  dir = "",
  runner = ["coverage", "run", "-m", "pytest"],
): TempRepo {
  const repo = makeTempRepo();
  repos.push(repo);
  repo.write(".gitignore", ".coverage*\n__pycache__/\n");
  repo.write(join(dir, ".coveragerc"), RC);
  repo.write(libPath, LIB);
  for (const [path, text] of Object.entries(files)) repo.write(path, text);
  repo.commit("base");
  repo.git("branch", "base");
  repo.write(libPath, LIB_CHANGED);
  repo.commit("change");
  const run = runPython(["-m", ...runner, "-q", "-p", "no:cacheprovider"], {
    cwd: repo.path(dir),
  });
  if (run.status !== 0) throw new Error(run.stdout + run.stderr);
  return repo;
}

/** coverage.py's own answer: the contexts that ran each line of `file`. */
function truth(repo: TempRepo, file: string, dir = ""): Record<string, string[]> {
  const script = [
    "import sys, json, coverage",
    "d = coverage.CoverageData(sys.argv[1]); d.read()",
    "f = [p for p in d.measured_files() if p.endswith('/' + sys.argv[2])][0]",
    "print(json.dumps({k: sorted(v) for k, v in d.contexts_by_lineno(f).items()}))",
  ].join("\n");
  const r = runPython(["-c", script, repo.path(join(dir, ".coverage")), file], { cwd: repo.dir });
  if (r.status !== 0) throw new Error(r.stderr);
  return JSON.parse(r.stdout);
}

function audit(repo: TempRepo, frozen: string[], extra: string[] = []) {
  const list = join(makeTempDir("tf-frozen"), "frozen.json");
  writeFileSync(list, JSON.stringify({ frozen }));
  return runCli(["audit", "--base", "base", "--frozen", list, ...extra], { cwd: repo.dir });
}

describePython("test_function names mapped to node ids", () => {
  it("refuses a test method a Test* subclass inherits: its runs are recorded under the base's name", () => {
    const repo = recorded({
      "conftest.py": SYS_PATH,
      "tests/test_shapes.py":
        "import lib\nclass TestShape:\n    k = 1\n    def test_area(self):\n        assert lib.f(self.k)\nclass TestSquare(TestShape):\n    k = 4\n    def test_name(self):\n        assert self.k == 4\n",
    });
    // Both classes' runs of test_area, under one name.
    expect(truth(repo, "lib.py")["3"]).toEqual(["test_shapes.TestShape.test_area"]);
    const r = audit(repo, ["tests/test_shapes.py::TestSquare::*"]);
    expect(expectRefusal(r, "test-function-inherited")).toBe(
      `class TestSquare (tests/test_shapes.py) inherits from TestShape, and test_function names an inherited test method after the class that defines it, so "test_shapes.TestShape.test_area" stands for runs of both classes that cannot be told apart ${RECORD_NODE_IDS}`,
    );
  });

  it("refuses it when the subclass sits in another test file", () => {
    const repo = recorded({
      "conftest.py": SYS_PATH,
      "tests/test_shapes.py":
        "import lib\nclass TestShape:\n    k = 1\n    def test_area(self):\n        assert lib.f(self.k)\n",
      "tests/test_square.py":
        "from test_shapes import TestShape\nclass TestSquare(TestShape):\n    k = 4\n",
    });
    expect(
      expectRefusal(
        audit(repo, ["tests/test_shapes.py::TestShape::test_area"]),
        "test-function-inherited",
      ),
    ).toMatch(/^class TestSquare \(tests\/test_square\.py\) inherits from TestShape, /);
  });

  it("maps test classes whose base class holds no test method (setUp only)", () => {
    const repo = recorded({
      "conftest.py": SYS_PATH,
      "tests/base.py":
        "import unittest\nclass BaseCase(unittest.TestCase):\n    def setUp(self):\n        self.k = 4\n",
      "tests/test_four.py":
        "import lib\nfrom base import BaseCase\nclass TestFour(BaseCase):\n    def test_four(self):\n        assert lib.f(self.k) == 4\n",
    });
    expect(truth(repo, "lib.py")["3"]).toEqual(["test_four.TestFour.test_four"]);
    const r = audit(repo, ["tests/test_four.py::TestFour::test_four"]);
    expect(r.stdout).toMatch(
      /SHADOWED 2-3: only frozen tests cover it: tests\/test_four\.py::TestFour::test_four/,
    );
    expect(r.status).toBe(1);
  });

  it("refuses a test a decorator without functools.wraps names after the decorator's module", () => {
    const repo = recorded(
      {
        "mypkg/__init__.py": "",
        "mypkg/utils.py":
          "def retry(fn):\n    def wrapper(*a, **k):\n        return fn(*a, **k)\n    return wrapper\n",
        "tests/test_flaky.py":
          "from mypkg import lib\nfrom mypkg.utils import retry\n@retry\ndef test_retry():\n    assert lib.f(4) == 4\ndef test_one():\n    assert lib.f(1) == 1\n",
      },
      "mypkg/lib.py",
    );
    expect(truth(repo, "mypkg/lib.py")["3"]).toEqual(["mypkg.utils.test_retry"]);
    expect(
      expectRefusal(audit(repo, ["tests/test_flaky.py::*"]), "test-function-names-unclear"),
    ).toBe(
      `1 test_function context name(s) in source modules may name a test, not a helper that ran outside tests, e.g. "mypkg.utils.test_retry" -> mypkg/utils.py::test_retry (mypkg/utils.py defines no module-level function test_retry: a decorator without functools.wraps gives a test its own module's name) ${RECORD_NODE_IDS}`,
    );
  });

  it("refuses a test named after a decorator without functools.wraps in a test module", () => {
    const deco =
      "def retry(fn):\n    def wrapper(*a, **k):\n        return fn(*a, **k)\n    return wrapper\n";
    const repo = recorded({
      "conftest.py": SYS_PATH,
      "tests/test_utils.py": `${deco}def test_util():\n    pass\n`,
      "tests/test_api.py":
        "import lib\nfrom test_utils import retry\n@retry\ndef test_flaky():\n    assert lib.f(4) == 4\ndef test_one():\n    assert lib.f(1) == 1\n",
    });
    expect(truth(repo, "lib.py")["3"]).toEqual(["test_utils.test_flaky"]);
    expect(
      expectRefusal(audit(repo, ["tests/test_api.py::*"]), "test-function-names-unclear"),
    ).toBe(
      `1 test_function context name(s) name a test that their file does not define, e.g. "test_utils.test_flaky" -> tests/test_utils.py::test_flaky (tests/test_utils.py defines no function test_flaky: a decorator without functools.wraps gives a test its own module's name), so the test that ran cannot be told ${RECORD_NODE_IDS}`,
    );
    // On a method, coverage.py names the wrapper itself.
    const method = recorded({
      "conftest.py": SYS_PATH,
      "tests/test_utils.py": `${deco}def test_util():\n    pass\n`,
      "tests/test_api.py":
        "import lib\nfrom test_utils import retry\nclass TestApi:\n    @retry\n    def test_flaky(self):\n        assert lib.f(4) == 4\n",
    });
    expect(truth(method, "lib.py")["3"]).toEqual(["test_utils.retry.<locals>.wrapper"]);
    expect(
      expectRefusal(
        audit(method, ["tests/test_api.py::TestApi::*"]),
        "test-function-names-unclear",
      ),
    ).toContain(
      '"test_utils.retry.<locals>.wrapper" (a function defined inside another: a decorator without functools.wraps gives a test method its wrapper\'s name)',
    );
  });

  it("refuses tests in modules that a configured python_files collects", () => {
    const repo = recorded(
      {
        "mypkg/__init__.py": "",
        "pytest.ini": "[pytest]\npython_files = check_*.py test_*.py\n",
        "checks/check_api.py": "from mypkg import lib\ndef test_api():\n    assert lib.f(4) == 4\n",
        "tests/test_live.py": "from mypkg import lib\ndef test_live():\n    assert lib.f(1) == 1\n",
      },
      "mypkg/lib.py",
    );
    expect(truth(repo, "mypkg/lib.py")["3"]).toEqual(["check_api.test_api"]);
    expect(
      expectRefusal(audit(repo, ["checks/check_api.py::test_api"]), "test-function-names-unclear"),
    ).toContain(
      `e.g. "check_api.test_api" -> checks/check_api.py::test_api (the python_files that pytest's configuration sets may collect checks/check_api.py) ${RECORD_NODE_IDS}`,
    );
  });

  it("still reads a helper named test* that its source module defines as outside tests", () => {
    const repo = recorded(
      {
        "mypkg/__init__.py": "",
        "mypkg/data.py": "from mypkg import lib\ndef testdata():\n    return lib.f(4)\n",
        "tests/conftest.py":
          "import pytest\nfrom mypkg.data import testdata\n@pytest.fixture\ndef four():\n    return testdata()\n",
        "tests/test_uses.py": "def test_uses(four):\n    assert four == 4\n",
      },
      "mypkg/lib.py",
    );
    expect(truth(repo, "mypkg/lib.py")["3"]).toEqual(["mypkg.data.testdata"]);
    const r = audit(repo, ["tests/test_uses.py::test_uses"]);
    expect(r.stdout).toMatch(/UNCOVERED 2-3: ran only outside tests \(import time\)/);
  });

  it("reads a fixture named test* as outside tests: pytest does not collect it, it ran for the frozen test", () => {
    const repo = recorded({
      "conftest.py": SYS_PATH,
      "tests/test_api.py": [
        "import pytest",
        "import lib",
        "",
        "@pytest.fixture(",
        "    scope='function',  # (a call over two lines)",
        ")",
        "def test_value():",
        "    return lib.f(4)",
        "",
        "def test_four(test_value):",
        "    assert test_value == 4",
        "",
        "def test_one():",
        "    assert lib.f(1) == 1",
        "",
        "class TestMore:",
        "    @pytest.fixture",
        "    # a comment between",
        "    def test_other(self):",
        "        return lib.f(4)",
        "",
        "    def test_other_four(self, test_other):",
        "        assert test_other == 4",
        "",
      ].join("\n"),
    });
    // coverage.py names the fixtures' runs after them, not after the tests that asked for them.
    expect(truth(repo, "lib.py")["3"]).toEqual([
      "test_api.TestMore.test_other",
      "test_api.test_value",
    ]);
    // Before: both fixtures counted as live tests, and line 3 read "defended" (exit 0).
    const r = audit(
      repo,
      ["tests/test_api.py::test_four", "tests/test_api.py::TestMore::*"],
      ["--fail-on", "uncovered"],
    );
    expect(r.stdout).toContain("line data, 3 tests)");
    expect(r.stdout).toContain("lib.py: 1 defended, 1 uncovered\n");
    expect(r.stdout).toContain("UNCOVERED 3: ran only outside tests (import time)");
    expect(r.status).toBe(1);
  });

  it("judges the def the name points at: a fixture beside a test method of that name, and an aliased fixture decorator", () => {
    const repo = recorded({
      "conftest.py": SYS_PATH,
      "tests/test_api.py": [
        "import pytest",
        "import lib",
        "",
        "module_fixture = pytest.fixture(scope='module')",
        "",
        "@pytest.fixture",
        "def test_value():",
        "    return lib.f(4)",
        "",
        "@module_fixture",
        "def test_other():",
        "    return lib.f(4)",
        "",
        "def test_four(test_value, test_other):",
        "    assert test_value == test_other == 4",
        "",
        "class TestOther:",
        "    def test_value(self):",
        "        assert lib.f(1) == 1",
        "",
      ].join("\n"),
    });
    expect(truth(repo, "lib.py")["3"]).toEqual(["test_api.test_other", "test_api.test_value"]);
    // Before: both read as live tests (the class's test_value made every def of the name a
    // test; the alias was no fixture decorator), and line 3 read "defended".
    const r = audit(repo, ["tests/test_api.py::test_four"], ["--fail-on", "uncovered"]);
    expect(r.stdout).toContain("line data, 2 tests)");
    expect(r.stdout).toContain("UNCOVERED 3: ran only outside tests (import time)");
    expect(r.status).toBe(1);
  });

  it("reads a fixture defined under try, or through `fixture as fx` (in brackets), as outside tests", () => {
    // A module-level fixture under try/if (no unindented def) and an imported
    // alias of the decorator read as live tests, and line 3 as "defended".
    const repo = recorded({
      "conftest.py": SYS_PATH,
      "tests/test_api.py": [
        "import pytest",
        "from pytest import (",
        "    mark,",
        "    fixture as fx,",
        ")",
        "import lib",
        "",
        "try:",
        "    import json",
        "",
        "    @pytest.fixture",
        "    def test_value():",
        "        return lib.f(4)",
        "except ImportError:",
        "    pass",
        "",
        "@fx",
        "def test_other():",
        "    return lib.f(4)",
        "",
        "def test_four(test_value, test_other):",
        "    assert test_value == test_other == 4",
        "",
      ].join("\n"),
    });
    expect(truth(repo, "lib.py")["3"]).toEqual(["test_api.test_other", "test_api.test_value"]);
    const r = audit(repo, ["tests/test_api.py::test_four"], ["--fail-on", "uncovered"]);
    expect(r.stdout).toContain("line data, 1 test)");
    expect(r.stdout).toContain("UNCOVERED 2-3: ran only outside tests (import time)");
    expect(r.stdout).toContain("summary: 0 defended, 0 shadowed");
    expect(r.status).toBe(1);
  });

  it("reads a test* fixture of a pytest_plugins module or a base class as outside tests", () => {
    // Both were refused as "an inherited test method" (exit 2).
    for (const [files, frozen] of [
      [
        {
          "tests/conftest.py": `${SYS_PATH}pytest_plugins = ["fixtures_lib"]\n`,
          "tests/fixtures_lib.py":
            "import pytest\nimport lib\n\n\n@pytest.fixture\ndef test_value():\n    return lib.f(4)\n",
          "tests/test_api.py":
            "import lib\n\n\ndef test_four(test_value):\n    assert test_value == 4\n\n\ndef test_one():\n    assert lib.f(1) == 1\n",
        },
        "tests/test_api.py::test_four",
      ],
      [
        {
          "tests/conftest.py": SYS_PATH,
          "tests/base.py":
            "import pytest\nimport lib\n\n\nclass Base:\n    @pytest.fixture\n    def test_value(self):\n        return lib.f(4)\n",
          "tests/test_api.py":
            "import lib\nfrom base import Base\n\n\nclass TestApi(Base):\n    def test_four(self, test_value):\n        assert test_value == 4\n\n\ndef test_one():\n    assert lib.f(1) == 1\n",
        },
        "tests/test_api.py::TestApi::test_four",
      ],
    ] as const) {
      const repo = recorded({ "conftest.py": SYS_PATH, ...files });
      const r = audit(repo, [frozen], ["--fail-on", "uncovered"]);
      expect(r.stderr).toBe("");
      expect(r.stdout).toContain("UNCOVERED 3: ran only outside tests (import time)");
      expect(r.status).toBe(1);
    }
  });

  it("refuses a method name its file defines in classes both as a fixture and as a test", () => {
    const repo = recorded({
      "conftest.py": SYS_PATH,
      "tests/test_api.py": [
        "import pytest",
        "import lib",
        "",
        "class TestCreate:",
        "    class TestValid:",
        "        @pytest.fixture",
        "        def test_value(self):",
        "            return lib.f(4)",
        "",
        "        def test_four(self, test_value):",
        "            assert test_value == 4",
        "",
        "class TestUpdate:",
        "    class TestValid:",
        "        def test_value(self):",
        "            assert lib.f(4) == 4",
        "",
      ].join("\n"),
    });
    expect(truth(repo, "lib.py")["3"]).toEqual([
      "test_api.TestCreate.TestValid.test_value",
      "test_api.TestUpdate.TestValid.test_value",
    ]);
    // The first class of that name decided, and the real test read as a fixture.
    expect(
      expectRefusal(
        audit(repo, ["tests/test_api.py::TestCreate::*"]),
        "test-function-names-unclear",
      ),
    ).toMatch(
      /^2 test_function context name\(s\) name a method that its file defines in classes both as a pytest fixture and as a test, e\.g\. "test_api\.TestCreate\.TestValid\.test_value" -> /,
    );
  });

  it("still maps a test whose name a fixture of another file shares", () => {
    const repo = recorded({
      "conftest.py": `${SYS_PATH}import pytest\n@pytest.fixture\ndef test_four():\n    return 4\n`,
      "tests/test_api.py": "import lib\n\ndef test_four():\n    assert lib.f(4) == 4\n",
    });
    expect(truth(repo, "lib.py")["3"]).toEqual(["test_api.test_four"]);
    const r = audit(repo, ["tests/test_api.py::test_four"]);
    expect(r.stdout).toMatch(
      /SHADOWED 2-3: only frozen tests cover it: tests\/test_api\.py::test_four/,
    );
    expect(r.status).toBe(1);
  });

  it("maps unittest tests: unittest's testPartExecutor context runs no test body", () => {
    const repo = recorded({
      "conftest.py": SYS_PATH,
      "tests/test_ut.py":
        "import lib, unittest\nclass TestU(unittest.TestCase):\n    def setUp(self):\n        lib.f(0)\n    def test_u(self):\n        self.assertEqual(lib.f(4), 4)\n",
      "tests/test_plain.py": "import lib\ndef test_plain():\n    assert lib.f(1) == 1\n",
    });
    // coverage.py's truth: the executor's context holds no line of the repository.
    for (const file of ["lib.py", "tests/test_ut.py", "tests/test_plain.py", "conftest.py"]) {
      const lines = Object.values(truth(repo, file)).flat();
      expect(lines).not.toContain("unittest.case._Outcome.testPartExecutor");
    }
    expect(truth(repo, "lib.py")["3"]).toEqual(["test_ut.TestU.test_u"]);
    const r = audit(repo, ["tests/test_ut.py::TestU::test_u"]);
    expect(r.stdout).toMatch(
      /SHADOWED 3: only frozen tests cover it: tests\/test_ut\.py::TestU::test_u/,
    );
    expect(r.status).toBe(1);
  });

  it("maps tests that pytest-cov runs under test_function: its testsfailed property is no test", () => {
    const repo = recorded(
      {
        "conftest.py": SYS_PATH,
        "tests/test_plain.py": "import lib\ndef test_plain():\n    assert lib.f(4) == 4\n",
      },
      "lib.py",
      "",
      ["pytest", "--cov=.", "--cov-report="],
    );
    const contexts = runPython(
      [
        "-c",
        "import coverage; d = coverage.CoverageData('.coverage'); d.read(); print(sorted(d.measured_contexts()))",
      ],
      { cwd: repo.dir },
    );
    expect(contexts.stdout).toContain("pytest_cov.compat.SessionWrapper.testsfailed");
    const r = audit(repo, ["tests/test_plain.py::test_plain"]);
    expect(r.stdout).toMatch(
      /SHADOWED 2-3: only frozen tests cover it: tests\/test_plain\.py::test_plain/,
    );
    expect(r.status).toBe(1);
  });

  it("refuses a Hypothesis @given test: its body ran under the library's test_function", () => {
    const repo = recorded({
      "conftest.py": SYS_PATH,
      "tests/test_h.py":
        "import lib\nfrom hypothesis import given, settings, strategies as st\n@settings(max_examples=2, database=None)\n@given(st.just(4))\ndef test_h(v):\n    assert lib.f(v) == 4\n",
      "tests/test_plain.py": "import lib\ndef test_plain():\n    assert lib.f(1) == 1\n",
    });
    const runner = "hypothesis.internal.conjecture.engine.ConjectureRunner.test_function";
    expect(truth(repo, "lib.py")["3"]).toEqual([runner]);
    expect(
      expectRefusal(audit(repo, ["tests/test_h.py::test_h"]), "test-function-names-unclear"),
    ).toBe(
      `1 test_function context name(s) name a module outside the repository, e.g. "${runner}": a library function named test* (such as Hypothesis's @given runner) started the context, so the test that ran under it cannot be told ${RECORD_NODE_IDS}`,
    );
  });

  it("a stub tests.py inside a package does not make a tests/ package's names ambiguous", () => {
    const repo = recorded(
      {
        "myapp/__init__.py": "",
        "myapp/tests.py": "# Create your tests here.\n",
        "tests/__init__.py": "",
        "tests/test_x.py": "from myapp import lib\ndef test_d():\n    assert lib.f(4)\n",
      },
      "myapp/lib.py",
    );
    const r = audit(repo, ["tests/test_x.py::test_d"]);
    expect(r.stdout).toMatch(/SHADOWED 2-3: only frozen tests cover it: tests\/test_x\.py::test_d/);
    expect(r.status).toBe(1);
  });

  it("names --test-root when names fit the tests of two services", () => {
    const files: Record<string, string> = {};
    for (const svc of ["svc_a", "svc_b"]) {
      files[`${svc}/conftest.py`] = SYS_PATH;
      files[`${svc}/tests/test_api.py`] = "import lib\ndef test_api():\n    assert lib.f(4) == 4\n";
    }
    files["svc_b/lib.py"] = LIB;
    const repo = recorded(files, "svc_a/lib.py", "svc_a");
    const args = ["--coverage", "svc_a/.coverage"];
    expect(
      expectRefusal(
        audit(repo, ["tests/test_api.py::test_api"], args),
        "test-function-names-unclear",
      ),
    ).toMatch(
      /fit more than one test file, .* \(fix: if pytest ran in a subdirectory, give it as --test-root \(names are relative to it\); else record node ids instead: run pytest --cov --cov-context=test \(pytest-cov\)\)$/,
    );
    const r = audit(repo, ["tests/test_api.py::test_api"], [...args, "--test-root", "svc_a"]);
    expect(r.status).toBe(1);
  });
});
