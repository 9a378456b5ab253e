// A monorepo whose backend/ runs its own pytest with relative_files: the data names
// backend/app/core.py "app/core.py". Real git, real pytest-cov, the built CLI. When the patch
// also changes a root file that a backend path happens to spell (setup.py), that file maps and
// the "nothing maps" refusal cannot fire: the backend file must still not pass as unmeasured.
// Two services with the same package (app/main.py at the root and in services/worker/): the
// worker's relative paths name root files too, and nothing says which directory they are from.

import { readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { expectRefusal, runCli } from "../helpers/cli.js";
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
    // "setup.py" is a file at the root and in backend/: which one coverage measured is unclear.
    const ambiguous = (where: string) =>
      `the coverage data's relative path "setup.py" names both setup.py (read from the repository root) and backend/setup.py (read from backend, ${where}), and nothing says which directory coverage ran in (fix: if coverage ran in backend, read its paths there with --path-map =backend/; if it ran at the repository root, say so with --path-map =)`;
    expect(expectRefusal(runCli(args, { cwd: repo.dir }), "coverage-path-ambiguous")).toBe(
      ambiguous("the data file's directory"),
    );
    expect(
      expectRefusal(
        runCli([...args, "--test-root", "backend"], { cwd: repo.dir }),
        "coverage-path-ambiguous",
      ),
    ).toBe(ambiguous("the --test-root"));
    // The same data kept elsewhere: the backend's file is still not left unmeasured.
    repo.write("ci/.coverage", readFileSync(repo.path("backend/.coverage")));
    const elsewhere = ["audit", "--base", "base", "--coverage", "ci/.coverage", "-q"];
    expect(expectRefusal(runCli(elsewhere, { cwd: repo.dir }), "coverage-recording-unmapped")).toBe(
      `the coverage data also records backend/app/core.py as "app/core.py" (another root, or an installed copy) and no --path-map maps it there, so the tests recorded there would be lost (fix: map it onto the repository with --path-map "=backend/")`,
    );
    const mapped = runCli([...args, "--path-map", "=backend/", "--test-root", "backend"], {
      cwd: repo.dir,
    });
    expect(mapped.stderr).toBe("");
    expect(mapped.status).toBe(1);
    expect(mapped.stdout).toContain("FAIL: 2 changed lines are covered only by frozen tests");
  });
});

const ROOT_MAIN = 'def handle(x):\n    return "root:" + str(x)\n\n\ndef other(x):\n    return x\n';

/**
 * A root service and services/worker, both with the package app and relative_files; the
 * patch changes a line of each, and only the worker's frozen test runs the worker's line.
 */
function twoServices({ rootService = true } = {}): TempRepo {
  const repo = makeTempRepo();
  repos.push(repo);
  // --cov=. overrides the source (a run at the root measures both services).
  const coveragerc = "[run]\nrelative_files = true\nsource = app\n";
  if (rootService) {
    repo.write("app/__init__.py", "");
    // Shaped like the worker's file: reading one's data for the other is not seen as stale.
    repo.write("app/main.py", ROOT_MAIN);
    repo.write(
      "tests/test_main.py",
      'from app.main import handle\n\n\ndef test_handle():\n    assert handle(1) == "root:1"\n',
    );
  }
  repo.write(".coveragerc", coveragerc);
  repo.write("services/worker/.coveragerc", coveragerc);
  // pythonpath: the worker's tests import the worker's app wherever pytest runs.
  repo.write("services/worker/pytest.ini", "[pytest]\npythonpath = .\n");
  repo.write("services/worker/app/__init__.py", "");
  repo.write(
    "services/worker/app/main.py",
    'def handle(x):\n    return "worker:" + str(x)\n\n\ndef charge(x):\n    return x * 100\n',
  );
  repo.write(
    "services/worker/tests/test_main.py",
    'from app.main import charge, handle\n\n\ndef test_handle():\n    assert handle(1) == "worker:1"\n\n\ndef test_charge_flaky():\n    assert charge(2) == 200\n',
  );
  repo.write(".gitignore", ".coverage\n");
  repo.commit("base");
  repo.git("branch", "base");
  if (rootService) repo.write("app/main.py", ROOT_MAIN.replace("str(x)", "str(x).strip()"));
  const worker = readFileSync(repo.path("services/worker/app/main.py"), "utf8");
  repo.write("services/worker/app/main.py", worker.replace("x * 100", "round(x * 100)"));
  repo.write("quarantine.json", '{"frozen": ["tests/test_main.py::test_charge_flaky"]}\n');
  repo.commit("patch");
  return repo;
}

const PYTEST = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov-context=test"];

describePython("relative data that the root and a subdirectory both hold", () => {
  const audit = ["audit", "--base", "base", "--frozen", "quarantine.json"];

  it("is refused, audit and doctor, until --path-map says where coverage ran", () => {
    const repo = twoServices();
    const r = runPython([...PYTEST, "--cov", "--cov-report="], {
      cwd: repo.path("services/worker"),
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const data = ["--coverage", "services/worker/.coverage"];
    const refusal = (where: string) =>
      `the coverage data's relative path "app/__init__.py" names both app/__init__.py (read from the repository root) and services/worker/app/__init__.py (read from services/worker, ${where}), and nothing says which directory coverage ran in (fix: if coverage ran in services/worker, read its paths there with --path-map =services/worker/; if it ran at the repository root, say so with --path-map =)`;
    const withRoot = [...audit, ...data, "--test-root", "services/worker"];
    expect(expectRefusal(runCli(withRoot, { cwd: repo.dir }), "coverage-path-ambiguous")).toBe(
      `${refusal("the --test-root")}`,
    );
    expect(
      expectRefusal(runCli([...audit, ...data], { cwd: repo.dir }), "coverage-path-ambiguous"),
    ).toBe(`${refusal("the data file's directory")}`);
    const doctor = runCli(["doctor", ...withRoot.slice(1)], { cwd: repo.dir });
    expect(doctor.status).toBe(2);
    expect(doctor.stdout).toContain(
      `\nFAIL  paths: error[coverage-path-ambiguous]: ${refusal("the --test-root")}\n`,
    );

    // impact maps the data as the audit does.
    const impact = ["impact", "tests/test_main.py::test_handle", ...data];
    expect(
      expectRefusal(
        runCli([...impact, "--test-root", "services/worker"], { cwd: repo.dir }),
        "coverage-path-ambiguous",
      ),
    ).toBe(`${refusal("the --test-root")}`);
    // Read under the worker: its changed line is run only by the frozen test.
    const worker = runCli([...withRoot, "--path-map", "=services/worker/"], { cwd: repo.dir });
    expect(worker.stderr).toBe("");
    expect(worker.status).toBe(1);
    expect(worker.stdout).toContain("services/worker/app/main.py: 1 shadowed");
    expect(worker.stdout).toContain("app/main.py: 1 unmeasured");
    const doctorWorker = runCli(
      ["doctor", ...withRoot.slice(1), "--path-map", "=services/worker/"],
      {
        cwd: repo.dir,
      },
    );
    // The root's app/main.py is not in the worker's data: it reads unmeasured, said as a warning.
    expect(doctorWorker.stdout).toContain(
      '\nWARN  freshness: 1 of 2 changed source files are not in the coverage data: "app/main.py"; the audit reads their changed lines as unmeasured',
    );
    expect(doctorWorker.stdout).toContain("\ndoctor: usable, with warnings");
    expect(doctorWorker.status).toBe(0);
    // "=" reads them from the root, as before: the user said so.
    const fromRoot = runCli([...withRoot, "--path-map", "="], { cwd: repo.dir });
    expect(fromRoot.stderr).toBe("");
    expect(fromRoot.status).toBe(0);
    expect(fromRoot.stdout).toContain("\napp/main.py: 1 defended\n");
  });

  it("is read from the root when the data names the subdirectory's files from the root", () => {
    const repo = twoServices();
    // The worker's suite run at the root: --cov=. also records the root's app (never run).
    const r = runPython([...PYTEST, "--cov=.", "--cov-report=", "services/worker/tests"], {
      cwd: repo.dir,
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const args = [...audit, "--test-root", "services/worker"];
    const result = runCli(args, { cwd: repo.dir });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(1);
    expect(result.stdout).toContain("services/worker/app/main.py: 1 shadowed");
    expect(result.stdout).toContain("\napp/main.py: 1 uncovered\n");
    const doctor = runCli(["doctor", ...args.slice(1)], { cwd: repo.dir });
    expect(doctor.stdout).toContain("\ndoctor: all checks passed");
  });

  it("recorded in a subdirectory whose paths only it holds: refused as before", () => {
    const repo = twoServices({ rootService: false });
    const r = runPython([...PYTEST, "--cov", "--cov-report="], {
      cwd: repo.path("services/worker"),
    });
    expect(r.status, r.stdout + r.stderr).toBe(0);
    const args = [...audit, "--coverage", "services/worker/.coverage"];
    expect(
      expectRefusal(
        runCli([...args, "--test-root", "services/worker"], { cwd: repo.dir }),
        "coverage-paths-unmapped",
      ),
    ).toBe(
      `no file in the coverage data maps onto the repository ${repo.dir}: data has "app/__init__.py", "app/main.py" (fix: the data's paths are relative to the directory coverage ran in: give it with --path-map =DIR/ (e.g. --path-map =backend/))`,
    );
  });
});
