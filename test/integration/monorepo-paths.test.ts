// A monorepo whose backend/ runs its own pytest with relative_files: the data names
// backend/app/core.py "app/core.py". Real git, real pytest-cov, the built CLI. When the patch
// also changes a root file that a backend path happens to spell (setup.py), that file maps and
// the "nothing maps" refusal cannot fire: the backend file must still not pass as unmeasured.

import { afterEach, expect, it } from "vitest";
import { expectOneLineError, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPython } from "../helpers/python.js";

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

function monorepo(): TempRepo {
  const repo = makeTempRepo();
  repos.push(repo);
  repo.write("setup.py", 'from setuptools import setup\nsetup(name="root")\n');
  repo.write("backend/setup.py", 'from setuptools import setup\nsetup(name="backend")\n');
  repo.write("backend/app/__init__.py", "");
  repo.write("backend/app/core.py", "def a(x):\n    return x\n");
  repo.write(
    "backend/tests/test_flaky.py",
    "from app.core import a\n\n\ndef test_flaky():\n    assert a(2)\n",
  );
  repo.write("backend/pytest.ini", "[pytest]\npythonpath = .\n");
  repo.write("backend/.coveragerc", "[run]\nrelative_files = True\n");
  repo.write(".gitignore", ".coverage\n");
  repo.commit("base");
  repo.git("branch", "base");
  repo.write("backend/app/core.py", "def a(x):\n    if x == 2:\n        return 2\n    return x\n");
  repo.write("setup.py", 'from setuptools import setup\nsetup(name="root", version="2")\n');
  repo.commit("patch");
  // --cov=. also records backend/setup.py (never run) as "setup.py".
  const pytest = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=.", "--cov-context=test"];
  const r = runPython([...pytest, "--cov-report="], { cwd: repo.path("backend") });
  expect(r.status, r.stdout + r.stderr).toBe(0);
  repo.write("quarantine.json", '{"frozen": ["tests/test_flaky.py::test_flaky"]}\n');
  return repo;
}

describePython("relative data recorded in a subdirectory", () => {
  it("is refused with the --path-map that maps it, though a root file spells one of its paths", () => {
    const repo = monorepo();
    const args = ["audit", "--base", "base", "--coverage", "backend/.coverage", "-q"];
    const fix = `(fix: map it onto the repository with --path-map "=backend/")`;
    for (const extra of [[], ["--test-root", "backend"]]) {
      expect(expectOneLineError(runCli([...args, ...extra], { cwd: repo.dir }))).toBe(
        `freezegate: error: the coverage data also records backend/app/core.py as "app/core.py" (another root, or an installed copy) and no --path-map maps it there, so the tests recorded there would be lost ${fix}`,
      );
    }
    const mapped = runCli([...args, "--path-map", "=backend/", "--test-root", "backend"], {
      cwd: repo.dir,
    });
    expect(mapped.stderr).toBe("");
    expect(mapped.status).toBe(1);
    expect(mapped.stdout).toContain("FAIL: 2 changed lines are covered only by frozen tests");
  });
});
