// A path-map rule that sends a changed file's own data elsewhere: the data (relative_files)
// records app/ledger.py under exactly that path, and a rule maps it to a file that does not
// exist or to an unchanged test file. The changed file would pass as "unmeasured" while one
// more measured file keeps the audit from finding nothing mapped. Real git, real pytest-cov,
// the built CLI.

import { afterEach, expect, it } from "vitest";
import { expectOneLineError, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPython } from "../helpers/python.js";

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

/** The ledger project; the patch changes a line only the frozen test runs, and app/__init__. */
function ledgerRepo(config = ""): TempRepo {
  const repo = makeTempRepo();
  repos.push(repo);
  repo.write("app/__init__.py", '__version__ = "1.0"\n');
  repo.write("app/ledger.py", "def statement(entries):\n    return list(entries)\n");
  repo.write(
    "tests/test_ledger.py",
    "from app.ledger import statement\n\n\ndef test_statement():\n    assert statement([1]) == [1]\n",
  );
  repo.write("pytest.ini", "[pytest]\npythonpath = .\n");
  repo.write(".coveragerc", "[run]\nrelative_files = True\nsource = app\n");
  repo.write(".gitignore", ".coverage\n");
  repo.write("quarantine.json", '{"frozen": ["tests/test_ledger.py::test_statement"]}\n');
  if (config !== "") repo.write("pyproject.toml", config);
  repo.commit("base");
  repo.git("branch", "base");
  repo.write("app/ledger.py", "def statement(entries):\n    return sorted(entries)\n");
  repo.write("app/__init__.py", '__version__ = "1.0"\n__all__ = ["ledger"]\n');
  repo.commit("patch");
  const pytest = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov", "--cov-context=test"];
  const r = runPython([...pytest, "--cov-report="], { cwd: repo.dir });
  expect(r.status, r.stdout + r.stderr).toBe(0);
  return repo;
}

const FIX =
  '(fix: drop the rule (--path-map or the config\'s path-map), or narrow it so that it no longer matches "app/ledger.py")';

describePython("a path-map rule that sends a changed file's own data elsewhere", () => {
  it("is refused by the audit and failed by doctor, naming the rule, the data and the file", () => {
    const repo = ledgerRepo();
    const audit = ["audit", "--base", "base", "-q"];
    // Without the rule: the frozen test alone runs the changed line.
    const control = runCli(audit, { cwd: repo.dir });
    expect(control.stderr).toBe("");
    expect(control.status).toBe(1);
    const cases: [string, string][] = [
      ["app/ledger.py=app/ledger_v1.py", 'to "app/ledger_v1.py" (no file here)'],
      ["app/ledger.py=tests/test_ledger.py", 'to "tests/test_ledger.py"'],
    ];
    for (const [rule, target] of cases) {
      const message = `the path-map rule "${rule}" sends the coverage data's "app/ledger.py", the recording of the changed file app/ledger.py, ${target}, so app/ledger.py would pass as unmeasured`;
      expect(expectOneLineError(runCli([...audit, "--path-map", rule], { cwd: repo.dir }))).toBe(
        `freezegate: error[path-map-sends-away]: ${message} ${FIX}`,
      );
      const doctor = runCli(["doctor", "--base", "base", "--path-map", rule], { cwd: repo.dir });
      expect(doctor.status).toBe(2);
      expect(doctor.stdout).toContain(
        `FAIL  freshness: error[path-map-sends-away]: ${message} ${FIX}`,
      );
      expect(doctor.stdout).not.toMatch(/usable|all checks passed/);
    }
    // doctor's paths check names where the rule sent the data, not the file that exists.
    const doctor = runCli(
      ["doctor", "--base", "base", "--path-map", "app/ledger.py=app/ledger_v1.py"],
      { cwd: repo.dir },
    );
    expect(doctor.stdout).toContain(
      'not found: "app/ledger.py" (mapped to "app/ledger_v1.py") (fix: ',
    );
  });

  it("is refused when the rule comes from [tool.freezegate] path-map", () => {
    const repo = ledgerRepo('[tool.freezegate]\npath-map = ["app/ledger.py=app/ledger_v1.py"]\n');
    expect(expectOneLineError(runCli(["audit", "--base", "base"], { cwd: repo.dir }))).toBe(
      `freezegate: error[path-map-sends-away]: the path-map rule "app/ledger.py=app/ledger_v1.py" sends the coverage data's "app/ledger.py", the recording of the changed file app/ledger.py, to "app/ledger_v1.py" (no file here), so app/ledger.py would pass as unmeasured ${FIX}`,
    );
    expect(runCli(["doctor", "--base", "base"], { cwd: repo.dir }).status).toBe(2);
  });

  it("keeps a rule that maps the file's data onto itself, and one that matches other data", () => {
    const repo = ledgerRepo();
    for (const rule of [`${repo.dir}/=.`, "/app/=.", "app/ledger.pyc=x.py"]) {
      const r = runCli(["audit", "--base", "base", "-q", "--path-map", rule], { cwd: repo.dir });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(1);
    }
  });
});
