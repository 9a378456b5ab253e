// Tests that ran an installed copy of the package instead of the checkout (`pip install .`
// in CI, tox's default): coverage.py leaves site-packages out unless `--cov` names the
// package, so the data measures the test files only, or no line at all. The changed module
// must then not read "unmeasured" (which passes), and the error must name the real cause.
// The copy goes into a user site-packages (PYTHONUSERBASE), which coverage.py treats as
// third-party code just like a virtualenv's.

import { cpSync, mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectRefusal, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, makeTempDir, runPython } from "../helpers/python.js";

const CALC = "def add(a, b):\n    return a + b\n\n\ndef half_up(x):\n    return int(x + 0.5)\n";
// Tests in test/ (singular) with a helper module there: both measured, neither production.
const TESTS = [
  "import json",
  "from unittest import mock",
  "",
  "from helpers import twice",
  "from pkg.calc import add, half_up",
  "",
  "def test_twice():",
  "    assert twice(2) == 4",
  "",
  "def test_add():",
  "    assert add(1, 2) == 3",
  "",
  "def test_half_up():",
  "    assert half_up(1.5) == 2",
  "",
].join("\n");

let repo: TempRepo;
let userBase: string;

/** Runs the suite with the installed copy first on the path; returns pytest's output. */
function pytest(...cov: string[]): string {
  const run = runPython(
    ["-m", "pytest", "-q", "-p", "no:cacheprovider", ...cov, "--cov-context=test", "--cov-report="],
    // The user site is where the copy is; the checkout's src/ is not on the path.
    { cwd: repo.dir, env: { PYTHONUSERBASE: userBase, PYTHONNOUSERSITE: "" } },
  );
  expect(run.status, run.stdout + run.stderr).toBe(0);
  return run.stdout + run.stderr;
}

function where(): string {
  const r = runPython(["-c", "import pkg.calc; print(pkg.calc.__file__)"], {
    cwd: repo.dir,
    env: { PYTHONUSERBASE: userBase, PYTHONNOUSERSITE: "" },
  });
  return r.stdout.trim();
}

beforeAll(() => {
  repo = makeTempRepo();
  repo.write(".gitignore", ".coverage*\n");
  repo.write("src/pkg/__init__.py", "");
  repo.write("src/pkg/calc.py", CALC);
  repo.write("test/test_calc.py", TESTS);
  repo.write("test/helpers.py", "def twice(n):\n    return 2 * n\n");
  repo.write(
    "conftest.py",
    "import os, sys\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), 'test'))\n",
  );
  repo.write("quarantine.json", JSON.stringify({ frozen: ["test/test_calc.py::test_half_up"] }));
  repo.commit("base");
  repo.git("branch", "base");
  repo.write("src/pkg/calc.py", CALC.replace("int(x + 0.5)", "int(x + 0.5) if x >= 0 else 0"));
  repo.commit("half_up of a negative number");
  // The "installed" package: a copy of the base's code in the user site-packages.
  userBase = makeTempDir("installed");
  const site = runPython(
    ["-c", "import sysconfig; print(sysconfig.get_paths('posix_user')['purelib'])"],
    { cwd: repo.dir, env: { PYTHONUSERBASE: userBase, PYTHONNOUSERSITE: "" } },
  ).stdout.trim();
  expect(site.startsWith(userBase)).toBe(true);
  mkdirSync(site, { recursive: true });
  cpSync(repo.path("src/pkg"), join(site, "pkg"), { recursive: true });
});

afterAll(() => repo?.cleanup());

describePython("tests that ran an installed copy of the package", () => {
  it("--cov without a source measures the tests only: exit 2, not an unmeasured pass", () => {
    pytest("--cov");
    expect(where().startsWith(userBase)).toBe(true);
    // Before: "src/pkg/calc.py: 1 unmeasured", PASS, exit 0 (doctor: usable).
    const error =
      "the coverage data measures test files only (3, e.g. test/test_calc.py), not src/pkg/calc.py, which test/test_calc.py imports: the tests ran a copy of the code that coverage.py did not measure (an installed package) (fix: run the tests against the checkout (pip install -e ., or PYTHONPATH=src), or measure the package (--cov=PKG) and map its installed copy onto the checkout with --path-map FROM=TO)";
    expect(
      expectRefusal(runCli(["audit", "--base", "base"], { cwd: repo.dir }), "tests-ran-a-copy"),
    ).toBe(error);
    const doctor = runCli(["doctor", "--base", "base"], { cwd: repo.dir });
    expect(doctor.stdout).toContain(
      "the coverage data measures test files only (3, e.g. test/test_calc.py), not src/pkg/calc.py",
    );
    expect(doctor.status).toBe(2);
  });

  it("also for the package's __init__.py and a src-layout single module", () => {
    pytest("--cov");
    repo.git("switch", "-q", "-c", "init-change", "base");
    // Importing pkg.calc runs pkg/__init__.py: a change there ran in the installed copy too.
    repo.write("src/pkg/__init__.py", "VERSION = '1'\n");
    repo.commit("a version in the package");
    expect(
      expectRefusal(runCli(["audit", "--base", "base"], { cwd: repo.dir }), "tests-ran-a-copy"),
    ).toContain("not src/pkg/__init__.py, which test/test_calc.py imports");
    repo.git("switch", "-q", "-c", "single-module", "base");
    // A test that imports a top-level module of the src layout (py-modules = ["helpers"]) by its
    // own name: test/helpers.py is the one on the path here, src/tools.py is not imported.
    repo.write("src/tools.py", "def tool():\n    return 1\n");
    repo.commit("a module nobody imports");
    const r = runCli(["audit", "--base", "base"], { cwd: repo.dir });
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("src/tools.py: 2 unmeasured");
    repo.git("switch", "-q", "main");
  });

  it("the same data passes a patch that changes no module a test imports (unmeasured)", () => {
    pytest("--cov");
    repo.git("switch", "-q", "-c", "docs-only", "base");
    repo.write("docs/conf.py", "project = 'pkg'\n");
    // A mock server CI starts as a process: `from unittest import mock` is not an import of it.
    repo.write("mock/server.py", "PORT = 8080\n");
    // `from helpers import twice` in test/test_calc.py imports test/helpers.py, the helpers
    // beside it, not this top-level module of the src layout.
    repo.write("src/helpers.py", "def twice(n):\n    return n + n\n");
    repo.commit("docs, a mock server and a module named like the tests' helpers");
    const r = runCli(["audit", "--base", "base"], { cwd: repo.dir });
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("docs/conf.py: 1 unmeasured");
    expect(r.stdout).toContain("mock/server.py: 1 unmeasured");
    expect(r.stdout).toContain("src/helpers.py: 2 unmeasured");
    expect(r.status).toBe(0);
    repo.git("switch", "-q", "main");
  });

  it("--cov=src records no line at all: the error says so, not that contexts are missing", () => {
    pytest("--cov=src");
    // Before: "the coverage data names no tests (no contexts at all)", fix: --cov-context=test,
    // which the run already had.
    const error =
      "the coverage data records no executed line at all (no contexts): the tests ran none of the code coverage.py was told to measure (an installed copy of the package, or a --cov source the tests do not import from) (fix: run the tests against the checkout (pip install -e ., or PYTHONPATH=src) and record per-test contexts: pytest --cov --cov-context=test)";
    expect(
      expectRefusal(
        runCli(["audit", "--base", "base"], { cwd: repo.dir }),
        "coverage-data-no-lines",
      ),
    ).toBe(error);
    const doctor = runCli(["doctor", "--base", "base"], { cwd: repo.dir });
    expect(doctor.stdout).toContain(
      "the coverage data records no executed line at all (no contexts)",
    );
    expect(doctor.status).toBe(2);
  });

  it("--cov=src --cov=test holds the module without a line; the fix names its source root", () => {
    pytest("--cov=src", "--cov=test");
    expect(where().startsWith(userBase)).toBe(true);
    // Before: the fix said "python -m pytest from the root", which leaves the copy first on
    // the path (or, with it removed, cannot import pkg from src/).
    expect(
      expectRefusal(runCli(["audit", "--base", "base"], { cwd: repo.dir }), "tests-ran-a-copy"),
    ).toBe(
      "the coverage data holds src/pkg/calc.py without a single executed line, though test/test_calc.py, which ran, imports it: the tests ran another copy of the code (an installed package) that coverage.py did not measure (fix: run the tests against the checkout (pip install -e ., or PYTHONPATH=src), or measure the package (--cov=PKG) and map its installed copy onto the checkout with --path-map FROM=TO)",
    );
  });

  /**
   * The installed copy and the checkout both get `init` as pkg/__init__.py and the tests
   * `test` (plus `files`, e.g. a .coveragerc); pytest runs with --cov=src --cov=test; the audit
   * must refuse it as an installed copy. Everything is put back afterwards.
   */
  function refusedWithInit(init: string, test: string, files: Record<string, string> = {}) {
    const siteInit = join(where().slice(0, -"calc.py".length), "__init__.py");
    writeFileSync(siteInit, init);
    repo.write("src/pkg/__init__.py", init);
    for (const [path, text] of Object.entries(files)) repo.write(path, text);
    repo.write("test/test_calc.py", test);
    try {
      pytest("--cov=src", "--cov=test");
      expect(
        expectRefusal(runCli(["audit", "--base", "base"], { cwd: repo.dir }), "tests-ran-a-copy"),
      ).toMatch(
        /^the coverage data holds src\/pkg\/calc\.py without a single executed line, though test\/test_calc\.py, which ran, imports it/,
      );
    } finally {
      writeFileSync(siteInit, "");
      repo.write("src/pkg/__init__.py", "");
      for (const path of Object.keys(files)) repo.remove(path);
      repo.write("test/test_calc.py", TESTS);
    }
  }

  it("`from pkg import *` through __all__ loads the installed pkg.calc: still refused", () => {
    // An __init__.py without the word "import" was read as loading no submodule,
    // though `from pkg import *` imports what its __all__ names.
    refusedWithInit(
      '"""The package."""\n__all__ = ["calc"]\n',
      "from pkg import *\n\n\ndef test_half_up():\n    assert calc.half_up(1.5) == 2\n",
    );
  });

  it("an __init__.py the config omits that imports the module: `import pkg` still counts", () => {
    // With the __init__.py out of the data, `import pkg` read as no evidence,
    // though its `from . import calc` loads the installed copy's module.
    refusedWithInit(
      "from . import calc\n",
      "import pkg\n\n\ndef test_half_up():\n    assert pkg.calc.half_up(1.5) == 2\n",
      { ".coveragerc": "[run]\nomit = */__init__.py\n" },
    );
  });

  it("an omitted __init__.py that loads the module by a string, or past a quote in a string or comment, still counts", () => {
    // Stripping every string hid `import_module(".calc", ...)`, and a triple quote
    // inside a one-quote string or a comment paired with the next docstring and hid the code
    // between them.
    const omit = { ".coveragerc": "[run]\nomit = */__init__.py\n" };
    const test = "import pkg\n\n\ndef test_half_up():\n    assert pkg.calc.half_up(1.5) == 2\n";
    for (const init of [
      'import importlib\n\nimportlib.import_module(".calc", __name__)\n',
      `FENCE = '"""'\nfrom . import calc\n\n\ndef version():\n    """The version."""\n    return "1"\n`,
      `# we write ''' for docstrings, never """\nfrom . import calc\n\n\ndef version():\n    '''The version.'''\n    return "1"\n`,
      // A name computed at run time loads any submodule.
      'import importlib\n\n\ndef __getattr__(name):\n    return importlib.import_module(f".{name}", __name__)\n',
      'import importlib\nimport pkgutil\n\nfor _m in pkgutil.iter_modules(__path__):\n    importlib.import_module(f".{_m.name}", __name__)\n',
    ]) {
      refusedWithInit(init, test, omit);
    }
  });

  it("with the package measured and mapped, the frozen test's line is shadowed", () => {
    pytest("--cov=pkg");
    const site = where().slice(0, -"pkg/calc.py".length);
    const r = runCli(["audit", "--base", "base", "--path-map", `${site}=src/`], {
      cwd: repo.dir,
    });
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(
      "SHADOWED 6: only frozen tests cover it: test/test_calc.py::test_half_up",
    );
    expect(r.status).toBe(1);
  });
});

describePython("a flat layout measured with --cov=. while the tests ran an installed copy", () => {
  it("holds the changed module without an executed line: exit 2, not an uncovered pass", () => {
    const flat = makeTempRepo();
    try {
      flat.write(".gitignore", ".coverage*\n");
      flat.write("pkg/__init__.py", "");
      flat.write("pkg/calc.py", CALC);
      flat.write(
        "test/test_calc.py",
        "from pkg.calc import add, half_up\n\ndef test_add():\n    assert add(1, 2) == 3\n\ndef test_half_up():\n    assert half_up(1.5) == 2\n",
      );
      flat.write(
        "quarantine.json",
        JSON.stringify({ frozen: ["test/test_calc.py::test_half_up"] }),
      );
      flat.commit("base");
      flat.git("branch", "base");
      flat.write("pkg/calc.py", CALC.replace("int(x + 0.5)", "int(x + 0.5) if x >= 0 else 0"));
      flat.commit("half_up of a negative number");
      const base = makeTempDir("installed-flat");
      const env = { PYTHONUSERBASE: base, PYTHONNOUSERSITE: "" };
      const site = runPython(
        ["-c", "import sysconfig; print(sysconfig.get_paths('posix_user')['purelib'])"],
        { cwd: flat.dir, env },
      ).stdout.trim();
      mkdirSync(site, { recursive: true });
      cpSync(flat.path("pkg"), join(site, "pkg"), { recursive: true });
      // `pytest` (not `python -m pytest`): the checkout's root is not on sys.path.
      const run = runPython(
        [
          "-c",
          "import sys; sys.path.remove(''); import pytest; sys.exit(pytest.main(['-q', '-p', 'no:cacheprovider', '--cov=.', '--cov-context=test', '--cov-report=']))",
        ],
        { cwd: flat.dir, env },
      );
      expect(run.status, run.stdout + run.stderr).toBe(0);
      // Before: "UNCOVERED 6: no test executed it", PASS, exit 0.
      expect(
        expectRefusal(runCli(["audit", "--base", "base"], { cwd: flat.dir }), "tests-ran-a-copy"),
      ).toBe(
        "the coverage data holds pkg/calc.py without a single executed line, though test/test_calc.py, which ran, imports it: the tests ran another copy of the code (an installed package) that coverage.py did not measure (fix: run the tests against the checkout (pip install -e ., or python -m pytest from the root), or measure the package (--cov=PKG) and map its installed copy onto the checkout with --path-map FROM=TO)",
      );
    } finally {
      flat.cleanup();
    }
  });
});

describePython("a monorepo whose services each have an app/main.py", () => {
  it("a test imports its own service's module: only a change there is refused", () => {
    // The orders tests ran an installed copy of orders' app, and a patch to the
    // users service (which no test imports) was refused, naming users' file as imported.
    const mono = makeTempRepo();
    try {
      mono.write(".gitignore", ".coverage*\n");
      for (const service of ["users", "orders"]) {
        mono.write(`services/${service}/app/__init__.py`, "");
        mono.write(`services/${service}/app/main.py`, `def api():\n    return "${service}"\n`);
      }
      mono.write(
        "services/orders/tests/test_orders.py",
        'from app.main import api\n\n\ndef test_api():\n    assert api() == "orders"\n',
      );
      mono.write("quarantine.json", JSON.stringify({ frozen: [] }));
      mono.commit("base");
      mono.git("branch", "base");
      const base = makeTempDir("installed-orders");
      const env = { PYTHONUSERBASE: base, PYTHONNOUSERSITE: "" };
      const site = runPython(
        ["-c", "import sysconfig; print(sysconfig.get_paths('posix_user')['purelib'])"],
        { cwd: mono.dir, env },
      ).stdout.trim();
      mkdirSync(site, { recursive: true });
      cpSync(mono.path("services/orders/app"), join(site, "app"), { recursive: true });
      const run = runPython(
        [
          "-m",
          "pytest",
          "-q",
          "-p",
          "no:cacheprovider",
          "--cov",
          "--cov-context=test",
          "--cov-report=",
          "services/orders/tests",
        ],
        { cwd: mono.dir, env },
      );
      expect(run.status, run.stdout + run.stderr).toBe(0);

      mono.git("switch", "-q", "-c", "users", "base");
      mono.write("services/users/app/main.py", 'def api():\n    return "users v2"\n');
      mono.commit("users: v2");
      const users = runCli(["audit", "--base", "base"], { cwd: mono.dir });
      expect(users.stderr).toBe("");
      expect(users.stdout).toContain("services/users/app/main.py: 1 unmeasured");
      expect(users.status).toBe(0);

      mono.git("switch", "-q", "-c", "orders", "base");
      mono.write("services/orders/app/main.py", 'def api():\n    return "orders v2"\n');
      mono.commit("orders: v2");
      expect(
        expectRefusal(runCli(["audit", "--base", "base"], { cwd: mono.dir }), "tests-ran-a-copy"),
      ).toContain(
        "the coverage data measures test files only (1, e.g. services/orders/tests/test_orders.py), not services/orders/app/main.py, which services/orders/tests/test_orders.py imports",
      );
    } finally {
      mono.cleanup();
    }
  });
});

/**
 * A repository at `files` (base), then a patch writing `patch`; `install` copies a package
 * directory into a user site-packages (a non-editable install); pytest runs as `args` say,
 * from the root, with the checkout off sys.path unless `honest`. Returns the repository.
 */
function scenario(opts: {
  files: Record<string, string>;
  patch: Record<string, string>;
  install?: { from: string; name: string };
  cov: string[];
  honest?: boolean;
}): TempRepo {
  const r = makeTempRepo();
  r.write(".gitignore", ".coverage*\n");
  for (const [path, text] of Object.entries(opts.files)) r.write(path, text);
  r.write("quarantine.json", JSON.stringify({ frozen: [] }));
  r.commit("base");
  r.git("branch", "base");
  for (const [path, text] of Object.entries(opts.patch)) r.write(path, text);
  r.commit("the patch");
  const userBase = makeTempDir("installed-scenario");
  const env = { PYTHONUSERBASE: userBase, PYTHONNOUSERSITE: "" };
  if (opts.install) {
    const site = runPython(
      ["-c", "import sysconfig; print(sysconfig.get_paths('posix_user')['purelib'])"],
      { cwd: r.dir, env },
    ).stdout.trim();
    mkdirSync(site, { recursive: true });
    cpSync(r.path(opts.install.from), join(site, opts.install.name), { recursive: true });
  }
  const args = ["-q", "-p", "no:cacheprovider", ...opts.cov, "--cov-context=test", "--cov-report="];
  const run = opts.honest
    ? runPython(["-m", "pytest", ...args], { cwd: r.dir, env })
    : runPython(
        [
          "-c",
          `import sys; sys.path.remove(''); import pytest; sys.exit(pytest.main(${JSON.stringify(args)}))`,
        ],
        { cwd: r.dir, env },
      );
  expect(run.status, run.stdout + run.stderr).toBe(0);
  return r;
}

const PKG_TEST = "from pkg.calc import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n";
const CALC_CHANGED = CALC.replace("return a + b", "return b + a");

/** `scenario(opts)`, then `check` on it, then the repository is removed. */
function inScenario(opts: Parameters<typeof scenario>[0], check: (r: TempRepo) => void): void {
  const r = scenario(opts);
  try {
    check(r);
  } finally {
    r.cleanup();
  }
}

describePython("installed-copy refusals: what the data says ran", () => {
  it("an honest run whose tests import the package passes an untested module of it", () => {
    // `from pkg import add` imports pkg, not pkg/cli.py: the checkout's pkg/__init__.py ran,
    // so an unexecuted cli.py was never imported (78c0dcc refused it, naming the fix that
    // had been followed).
    inScenario(
      {
        files: {
          "pkg/__init__.py": "from pkg.calc import add\n",
          "pkg/calc.py": CALC,
          "pkg/cli.py": "def main():\n    return 0\n",
          "tests/test_calc.py":
            "from pkg import add\n\n\ndef test_add():\n    assert add(1, 2) == 3\n",
        },
        patch: { "pkg/cli.py": "def main():\n    return 1\n" },
        cov: ["--cov=."],
        honest: true,
      },
      (r) => {
        const audit = runCli(["audit", "--base", "base"], { cwd: r.dir });
        expect(audit.stderr).toBe("");
        expect(audit.stdout).toContain("pkg/cli.py: 1 uncovered");
        expect(audit.status).toBe(0);
      },
    );
  });

  it("an honest run passes untested modules beside an empty __init__.py or in a subpackage", () => {
    // A sibling or a package above that ran shows the checkout's package was
    // imported, also where __init__.py is empty (nothing of it can run).
    inScenario(
      {
        files: {
          "pkg/__init__.py": "",
          "pkg/calc.py": CALC,
          "pkg/cli.py": "def main():\n    return 0\n",
          "pkg/sub/__init__.py": "",
          "pkg/sub/tool.py": "def tool():\n    return 0\n",
          "tests/test_calc.py":
            "from pkg import calc\n\n\ndef test_add():\n    assert calc.add(1, 2) == 3\n",
        },
        patch: {
          "pkg/cli.py": "def main():\n    return 1\n",
          "pkg/sub/tool.py": "def tool():\n    return 1\n",
        },
        cov: ["--cov=."],
        honest: true,
      },
      (r) => {
        const audit = runCli(["audit", "--base", "base"], { cwd: r.dir });
        expect(audit.stderr).toBe("");
        expect(audit.stdout).toContain("pkg/cli.py: 1 uncovered");
        expect(audit.stdout).toContain("pkg/sub/tool.py: 1 uncovered");
        expect(audit.status).toBe(0);
        expect(runCli(["doctor", "--base", "base"], { cwd: r.dir }).status).toBe(0);
      },
    );
  });

  it("tests in a directory named like the package still show the installed copy ran", () => {
    // Tests/pkg/ was taken for the package the test imports (regressions):
    // a bare directory (flat layout), and a package of a tests package (src layout), which
    // pytest imports as tests.pkg.
    for (const [src, inits] of [
      ["", {}],
      ["src/", { "tests/__init__.py": "", "tests/pkg/__init__.py": "" }],
    ] as const) {
      inScenario(
        {
          files: {
            [`${src}pkg/__init__.py`]: "",
            [`${src}pkg/calc.py`]: CALC,
            "tests/pkg/test_calc.py": PKG_TEST,
            ...inits,
          },
          patch: { [`${src}pkg/calc.py`]: CALC_CHANGED },
          install: { from: `${src}pkg`, name: "pkg" },
          cov: ["--cov=."],
        },
        (r) => {
          expect(
            expectRefusal(runCli(["audit", "--base", "base"], { cwd: r.dir }), "tests-ran-a-copy"),
          ).toMatch(
            new RegExp(
              `not ${src}pkg/calc\\.py, which tests/pkg/test_calc\\.py imports|holds pkg/calc\\.py without a single executed line, though tests/pkg/test_calc\\.py`,
            ),
          );
        },
      );
    }
  });

  it("an import in a conftest fixture that ran counts, and doctor fails as the audit does", () => {
    inScenario(
      {
        files: {
          "pkg/__init__.py": "",
          "pkg/calc.py": CALC,
          "tests/conftest.py":
            "import pytest\n\n\n@pytest.fixture\ndef calc():\n    from pkg import calc\n    return calc\n",
          "tests/test_calc.py": "def test_add(calc):\n    assert calc.add(1, 2) == 3\n",
        },
        patch: { "pkg/calc.py": CALC_CHANGED },
        install: { from: "pkg", name: "pkg" },
        cov: ["--cov=."],
      },
      (r) => {
        const error =
          "the coverage data holds pkg/calc.py without a single executed line, though tests/conftest.py, which ran, imports it: the tests ran another copy of the code (an installed package) that coverage.py did not measure (fix: run the tests against the checkout (pip install -e ., or python -m pytest from the root), or measure the package (--cov=PKG) and map its installed copy onto the checkout with --path-map FROM=TO)";
        expect(
          expectRefusal(runCli(["audit", "--base", "base"], { cwd: r.dir }), "tests-ran-a-copy"),
        ).toBe(error);
        const doctor = runCli(["doctor", "--base", "base"], { cwd: r.dir });
        expect(doctor.stdout).toContain(
          "FAIL  freshness: error[tests-ran-a-copy]: the coverage data holds pkg/calc.py without a single executed line",
        );
        expect(doctor.status).toBe(2);
      },
    );
  });

  it("a root setup.py the data holds without a line does not hide an installed src package", () => {
    inScenario(
      {
        files: {
          "setup.py": "from setuptools import setup\n\nsetup()\n",
          "src/pkg/__init__.py": "",
          "src/pkg/calc.py": CALC,
          "tests/test_calc.py": PKG_TEST,
        },
        patch: { "src/pkg/calc.py": CALC_CHANGED },
        install: { from: "src/pkg", name: "pkg" },
        cov: ["--cov=."],
      },
      (r) => {
        expect(
          expectRefusal(runCli(["audit", "--base", "base"], { cwd: r.dir }), "tests-ran-a-copy"),
        ).toContain(
          "the coverage data has executed lines in test files only (1, e.g. tests/test_calc.py), not src/pkg/calc.py, which tests/test_calc.py imports",
        );
      },
    );
  });

  it("a project directory named calc-lib still gives its package a module name", () => {
    inScenario(
      {
        files: {
          "libs/calc-lib/src/pkg/__init__.py": "",
          "libs/calc-lib/src/pkg/calc.py": CALC,
          "libs/calc-lib/tests/test_calc.py": PKG_TEST,
        },
        patch: { "libs/calc-lib/src/pkg/calc.py": CALC_CHANGED },
        install: { from: "libs/calc-lib/src/pkg", name: "pkg" },
        cov: ["--cov"],
      },
      (r) => {
        expect(
          expectRefusal(runCli(["audit", "--base", "base"], { cwd: r.dir }), "tests-ran-a-copy"),
        ).toContain(
          "not libs/calc-lib/src/pkg/calc.py, which libs/calc-lib/tests/test_calc.py imports",
        );
      },
    );
  });
});
