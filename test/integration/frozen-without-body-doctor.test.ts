// A frozen test that never ran its body (skipped) is refused by audit and doctor;
// doctor refuses what the audit refuses (the patch against the files on disk); doctor's lines
// stay one line; a parametrized id holding "*" freezes that case only. Real pytest-cov data.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPython } from "../helpers/python.js";
import { assertMatchesSchema } from "../helpers/schema.js";

const BODILESS_FIX =
  "let frozen tests run with their failures ignored (the freezegate pytest plugin's --freezegate-mode run, or xfail instead of skip), re-run the tests, then audit; a test that cannot run on this platform (skipif) covers nothing here: leave it out of the frozen list (name the other cases instead of a glob)";

function bodiless(label: string, ids: string[]): string {
  return `${ids.length} frozen test(s) in ${label} ran no test body (the coverage data has their setup or teardown but no "|run" context: skipped, their setup failed, or their body ran no measured line), so the lines they would cover are unknown: ${ids.map((id) => JSON.stringify(id)).join(", ")}`;
}

// A JSON report cannot tell a skip from a body that ran no measured line.
const BODILESS_REPORT_FIX =
  "audit the .coverage data file of the same run (--coverage .coverage), which can show it (coverage.py 6.5 keeps such a test's empty \"|run\" context); a frozen test that was skipped must run with its failures ignored (the freezegate pytest plugin's --freezegate-mode run, or xfail instead of skip)";

function bodilessInReport(label: string, ids: string[]): string {
  return `${ids.length} frozen test(s) in ${label} have setup or teardown contexts but no "|run" context in the coverage json report, which lists only the contexts that ran a measured line: it cannot show whether a test whose body ran no measured line ran, so the lines they would cover are unknown: ${ids.map((id) => JSON.stringify(id)).join(", ")}`;
}

/** pytest-cov node-id contexts for the package `shop`. */
function record(repo: TempRepo): void {
  const args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=shop", "--cov-context=test"];
  const result = runPython([...args, "--cov-report="], { cwd: repo.dir });
  if (result.status !== 0) throw new Error(`pytest failed: ${result.stdout}\n${result.stderr}`);
}

function doctorLine(stdout: string, id: string): string {
  return stdout.split("\n").find((l) => l.slice(6).startsWith(`${id}:`)) ?? "";
}

describePython("a frozen test that ran no body", () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeTempRepo();
    repo.write("shop/__init__.py", "");
    repo.write(
      "shop/price.py",
      "def discount(amount, pct):\n    return amount - amount * pct / 100\n",
    );
    // Quarantined the common ways: a skip marker, and a skip in a fixture (after measured
    // code ran in setup), next to a test that runs.
    repo.write(
      "tests/conftest.py",
      "import pytest\nfrom shop.price import discount\n\n@pytest.fixture\ndef quarantined():\n    discount(1, 1)\n    pytest.skip('quarantined')\n",
    );
    repo.write(
      "tests/test_price.py",
      [
        "import pytest",
        "from shop.price import discount",
        "",
        "@pytest.mark.skip(reason='quarantined: flaky')",
        "def test_marked():",
        "    assert discount(100, 10) == 90",
        "",
        "def test_fixture_skip(quarantined):",
        "    assert discount(100, 10) == 90",
        "",
        "def test_other():",
        "    assert discount(100, 0) == 100",
        "",
      ].join("\n"),
    );
    repo.write(".gitignore", ".coverage\ncoverage.json\n__pycache__/\nquarantine.json\n");
    repo.commit("base");
    repo.git("checkout", "-q", "-b", "feat");
    repo.write(
      "shop/price.py",
      "def discount(amount, pct):\n    off = amount * pct / 100\n    return amount - off\n",
    );
    repo.commit("rewrite discount");
    record(repo);
    const json = runPython(["-m", "coverage", "json", "--show-contexts", "-o", "coverage.json"], {
      cwd: repo.dir,
    });
    if (json.status !== 0) throw new Error(`coverage json failed: ${json.stderr}`);
  });
  afterAll(() => repo.cleanup());

  const audit = (frozen: string[], ...extra: string[]) => {
    writeFileSync(join(repo.dir, "quarantine.json"), JSON.stringify({ frozen }));
    return runCli(["audit", "--base", "main", "-q", ...extra], { cwd: repo.dir });
  };

  it("refuses an exact frozen id that was skipped, --allow-unresolved or not", () => {
    const message = `${bodiless(join(repo.dir, "quarantine.json"), ["tests/test_price.py::test_marked"])} (fix: ${BODILESS_FIX})`;
    expect(expectRefusal(audit(["tests/test_price.py::test_marked"]), "frozen-tests-not-run")).toBe(
      message,
    );
    expect(
      expectRefusal(
        audit(["tests/test_price.py::test_marked"], "--allow-unresolved"),
        "frozen-tests-not-run",
      ),
    ).toBe(message);
  });

  it("refuses the skipped tests a glob matches, not the one that ran", () => {
    expect(expectRefusal(audit(["tests/test_price.py::*"]), "frozen-tests-not-run")).toBe(
      `${bodiless(join(repo.dir, "quarantine.json"), ["tests/test_price.py::test_fixture_skip", "tests/test_price.py::test_marked"])} (fix: ${BODILESS_FIX})`,
    );
  });

  it("refuses it in a JSON report too (every name read), which cannot tell a skip", () => {
    const result = audit(["tests/test_price.py::test_fixture_skip"], "--coverage", "coverage.json");
    expect(expectRefusal(result, "frozen-tests-not-run")).toBe(
      `${bodilessInReport(join(repo.dir, "quarantine.json"), ["tests/test_price.py::test_fixture_skip"])} (fix: ${BODILESS_REPORT_FIX})`,
    );
  });

  it("audits a frozen test that ran as before", () => {
    const result = audit(["tests/test_price.py::test_other"]);
    // Its lines are also run by test_fixture_skip's live setup: fixture-only, not shadowed.
    expect(result.stderr).toBe("");
    expect(result.stdout).toMatch(/^PASS/);
    expect(result.status).toBe(0);
  });

  it("fails doctor's frozen check the same way", () => {
    writeFileSync(
      join(repo.dir, "quarantine.json"),
      JSON.stringify({ frozen: ["tests/test_price.py::test_marked"] }),
    );
    const result = runCli(["doctor", "--base", "main", "--allow-unresolved"], { cwd: repo.dir });
    expect(result.status).toBe(2);
    expect(doctorLine(result.stdout, "frozen")).toBe(
      `FAIL  frozen: error[frozen-tests-not-run]: ${bodiless("quarantine.json", ["tests/test_price.py::test_marked"])} (fix: ${BODILESS_FIX})`,
    );
  });
});

describePython("a frozen test whose body ran no measured line", () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeTempRepo();
    repo.write("svc/__init__.py", "");
    repo.write(
      "svc/db.py",
      "class DB:\n    def __init__(self):\n        self.rows = []\n\n    def insert(self, r):\n        self.rows.append(r)\n",
    );
    // test_empty only checks the fixture's result: its body runs no line of svc.
    repo.write(
      "tests/test_db.py",
      [
        "import pytest",
        "",
        "from svc.db import DB",
        "",
        "",
        "@pytest.fixture",
        "def db():",
        "    return DB()",
        "",
        "",
        "def test_insert(db):",
        "    db.insert(1)",
        "    assert db.rows == [1]",
        "",
        "",
        "def test_empty(db):",
        "    assert db.rows == []",
        "",
      ].join("\n"),
    );
    repo.write(".gitignore", ".coverage\ncoverage.json\n__pycache__/\n");
    repo.write("quarantine.json", JSON.stringify({ frozen: ["tests/test_db.py::test_empty"] }));
    repo.commit("base");
    repo.git("checkout", "-q", "-b", "feat");
    repo.write(
      "svc/db.py",
      "class DB:\n    def __init__(self):\n        self.rows = list()\n\n    def insert(self, r):\n        self.rows.append(r)\n",
    );
    repo.commit("rows: list()");
    const args = [
      "-m",
      "pytest",
      "-q",
      "-p",
      "no:cacheprovider",
      "--cov=svc",
      "--cov-context=test",
    ];
    const result = runPython([...args, "--cov-report="], { cwd: repo.dir });
    if (result.status !== 0) throw new Error(`pytest failed: ${result.stdout}\n${result.stderr}`);
    const json = runPython(["-m", "coverage", "json", "--show-contexts", "-o", "coverage.json"], {
      cwd: repo.dir,
    });
    if (json.status !== 0) throw new Error(`coverage json failed: ${json.stderr}`);
  });
  afterAll(() => repo.cleanup());

  it("is audited from the .coverage data file, which has its empty |run context", () => {
    const result = runCli(["audit", "--base", "main", "--coverage", ".coverage"], {
      cwd: repo.dir,
    });
    expect(result.stderr).toBe("");
    expect(result.stdout).toContain(
      "FIXTURE-ONLY 3: run only in setup/teardown of tests/test_db.py::test_insert; frozen: tests/test_db.py::test_empty",
    );
    expect(result.stdout).toMatch(/^PASS: /m);
    expect(result.status).toBe(0);
  });

  it("is refused from the JSON report of the same run, which says why and names the data file", () => {
    const result = runCli(["audit", "--base", "main", "--coverage", "coverage.json"], {
      cwd: repo.dir,
    });
    expect(expectRefusal(result, "frozen-tests-not-run")).toBe(
      `${bodilessInReport(join(repo.dir, "quarantine.json"), ["tests/test_db.py::test_empty"])} (fix: ${BODILESS_REPORT_FIX})`,
    );
  });

  it("fails doctor's frozen check on the JSON report the same way, and passes it on the data file", () => {
    const fromReport = runCli(["doctor", "--base", "main", "--coverage", "coverage.json"], {
      cwd: repo.dir,
    });
    expect(fromReport.status).toBe(2);
    expect(doctorLine(fromReport.stdout, "frozen")).toBe(
      `FAIL  frozen: error[frozen-tests-not-run]: ${bodilessInReport("quarantine.json", ["tests/test_db.py::test_empty"])} (fix: ${BODILESS_REPORT_FIX})`,
    );
    const fromData = runCli(["doctor", "--base", "main", "--coverage", ".coverage"], {
      cwd: repo.dir,
    });
    expect(doctorLine(fromData.stdout, "frozen")).toMatch(/^ok {4}frozen: /);
  });
});

describePython("doctor refuses what the audit refuses", () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeTempRepo();
    repo.write("lib.py", "def f(k):\n    return k\n");
    repo.write("conftest.py", "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n");
    repo.write(
      "tests/test_f.py",
      'import pytest, lib\n@pytest.mark.parametrize("k", [1, 2])\ndef test_f(k):\n    assert lib.f(k) == k\n',
    );
    repo.write(".gitignore", ".coverage\n__pycache__/\n");
    repo.write("quarantine.json", JSON.stringify({ frozen: ["tests/test_f.py::test_f[2]"] }));
    repo.commit("base");
    repo.git("checkout", "-q", "-b", "feat");
    repo.write("lib.py", "def f(k):\n    if k == 2:\n        return 2\n    return k\n");
    repo.commit("change");
  });
  afterAll(() => repo.cleanup());

  const recordLib = () => {
    const args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=.", "--cov-context=test"];
    const result = runPython([...args, "--cov-report="], { cwd: repo.dir });
    if (result.status !== 0) throw new Error(`pytest failed: ${result.stdout}\n${result.stderr}`);
  };

  /** The audit's one-line refusal and doctor's freshness line say the same, code and all. */
  const expectSameRefusal = (...args: string[]) => {
    const error = expectOneLineError(runCli(["audit", ...args, "-q"], { cwd: repo.dir }));
    const doctor = runCli(["doctor", ...args], { cwd: repo.dir });
    expect(doctor.status).toBe(2);
    expect(doctorLine(doctor.stdout, "freshness")).toBe(
      `FAIL  freshness: ${error.replace(/^freezegate: /, "")}`,
    );
    return error;
  };

  it("passes doctor on inputs the audit takes", () => {
    recordLib();
    const doctor = runCli(["doctor", "--base", "main"], { cwd: repo.dir });
    expect(doctor.stdout).toContain("doctor: all checks passed");
    expect(doctor.status).toBe(0);
  });

  it("fails on a range over a changed file edited since", () => {
    repo.write("lib.py", "def f(k):\n    if k == 2:\n        return 2\n    return k + 0\n");
    recordLib();
    expect(expectSameRefusal("--base", "main")).toMatch(
      /^freezegate: error\[changed-files-differ-from-head\]: .* differ from HEAD: "lib.py"/,
    );
  });

  it("fails on --staged over unstaged edits", () => {
    repo.git("add", "lib.py");
    repo.write("lib.py", "def f(k):\n    if k == 2:\n        return 2\n    return k\n");
    expect(expectSameRefusal("--staged")).toMatch(
      /^freezegate: error\[unstaged-edits\]: .* unstaged edits: "lib.py"/,
    );
    repo.git("checkout", "-q", "HEAD", "lib.py");
    repo.git("reset", "-q");
  });

  it("fails on a --diff whose lines are not those on disk", () => {
    recordLib();
    const diff = repo.git("diff", "main", "HEAD").replace(/return 2\n/, "return 22\n");
    repo.write("other.diff", diff);
    expect(expectSameRefusal("--diff", "other.diff")).toMatch(
      /^freezegate: error\[diff-not-of-disk\]: .* does not describe lib.py on disk: its line 3 is " {8}return 22" in the diff/,
    );
  });

  it("fails on a --diff that calls a measured file binary", () => {
    repo.write(
      "bin.diff",
      "diff --git a/lib.py b/lib.py\nindex 1111111..2222222 100644\nBinary files a/lib.py and b/lib.py differ\n",
    );
    expect(expectSameRefusal("--diff", "bin.diff")).toMatch(/the diff shows "lib.py" as binary/);
  });

  it("fails on a carriage return that ends no line in a changed measured file", () => {
    repo.write("lib.py", "def f(k):  # a\r# b\n    if k == 2:\n        return 2\n    return k\n");
    repo.commit("cr");
    recordLib();
    expect(expectSameRefusal("--base", "main")).toMatch(
      /lib.py has a carriage return that ends no line on line 1/,
    );
    repo.git("reset", "-q", "--hard", "HEAD~1");
  });

  it("keeps a frozen id holding a newline on one line, in text and JSON", () => {
    recordLib();
    repo.write("quarantine.json", JSON.stringify({ frozen: ["tests/test_f.py::test_f[2]\n"] }));
    const text = runCli(["doctor", "--base", "main"], { cwd: repo.dir });
    expect(text.status).toBe(2);
    expect(
      text.stdout.split("\n").every((l) => l === "" || /^(ok {2}|WARN|FAIL|skip|doctor:)/.test(l)),
    ).toBe(true);
    expect(doctorLine(text.stdout, "frozen")).toMatch(/"tests\/test_f.py::test_f\[2\] " \(fix: /);
    const json = runCli(["doctor", "--base", "main", "--format", "json"], { cwd: repo.dir });
    assertMatchesSchema("doctor-report.schema.json", JSON.parse(json.stdout));
    repo.write("quarantine.json", JSON.stringify({ frozen: ["tests/test_f.py::test_f[2]"] }));
  });

  it("says a --test-root that does not exist does not exist, as the audit does", () => {
    const error = expectOneLineError(
      runCli(["audit", "--base", "main", "--test-root", "tset"], { cwd: repo.dir }),
    );
    expect(error).toMatch(
      /^freezegate: error\[bad-test-root\]: --test-root "tset" does not exist in the repository/,
    );
    const doctor = runCli(["doctor", "--base", "main", "--test-root", "tset"], { cwd: repo.dir });
    expect(doctor.status).toBe(2);
    expect(doctorLine(doctor.stdout, "contexts")).toBe(
      `FAIL  contexts: ${error.replace(/^freezegate: /, "")}`,
    );
  });

  it("fails a parametrized freeze over test_function data, --allow-unresolved or not", () => {
    repo.write(".coveragerc", "[run]\ndynamic_context = test_function\nsource = .\n");
    const run = runPython(
      ["-m", "coverage", "run", "-m", "pytest", "-q", "-p", "no:cacheprovider"],
      {
        cwd: repo.dir,
      },
    );
    expect(run.status).toBe(0);
    const doctor = runCli(["doctor", "--base", "main", "--allow-unresolved"], { cwd: repo.dir });
    expect(doctor.status).toBe(2);
    expect(doctorLine(doctor.stdout, "frozen")).toBe(
      'FAIL  frozen: error[frozen-case-with-test-function]: quarantine.json freezes the parametrized case "tests/test_f.py::test_f[2]", but the coverage data uses test_function contexts, which merge all cases of a test into one name and do not tell parametrized tests from others (fix: record node ids with pytest --cov --cov-context=test, or freeze every case of one test with "id[*]" (or the whole test))',
    );
    repo.remove(".coveragerc");
  });
});

describePython("a parametrized id holding *", () => {
  it("freezes that case only: its siblings still defend their lines", () => {
    const repo = makeTempRepo();
    try {
      repo.write(
        "lib.py",
        "import fnmatch\ndef match(pat, name):\n    return fnmatch.fnmatch(name, pat)\n",
      );
      repo.write("conftest.py", "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n");
      repo.write(
        "tests/test_glob.py",
        'import pytest, lib\n@pytest.mark.parametrize("pat", ["*.py", "a.py"])\ndef test_match(pat):\n    assert lib.match(pat, pat.replace("*", "x"))\n',
      );
      repo.write(".gitignore", ".coverage\n__pycache__/\n");
      repo.write(
        "quarantine.json",
        JSON.stringify({ frozen: ["tests/test_glob.py::test_match[*.py]"] }),
      );
      repo.commit("base");
      repo.git("checkout", "-q", "-b", "feat");
      repo.write(
        "lib.py",
        'import fnmatch\ndef match(pat, name):\n    if pat.startswith("*"):\n        return name.endswith(pat[1:])\n    if pat == "a.py":\n        return name == "a.py"\n    return fnmatch.fnmatch(name, pat)\n',
      );
      repo.commit("change");
      const args = [
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--cov=.",
        "--cov-context=test",
      ];
      expect(runPython([...args, "--cov-report="], { cwd: repo.dir }).status).toBe(0);
      const result = runCli(["audit", "--base", "main", "--format", "json"], { cwd: repo.dir });
      const report = JSON.parse(result.stdout);
      expect(report.frozen.tests).toEqual(["tests/test_glob.py::test_match[*.py]"]);
      const verdicts = Object.fromEntries(
        report.files[0].lines.map((l: { line: number; verdict: string }) => [l.line, l.verdict]),
      );
      expect(verdicts).toMatchObject({
        3: "defended",
        4: "shadowed",
        5: "defended",
        6: "defended",
      });
    } finally {
      repo.cleanup();
    }
  });
});
