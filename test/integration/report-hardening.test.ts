// Reports through the built CLI on a real git repository with real pytest-cov
// data: a file name that reads as a workflow command stays inert in `impact`'s text and in
// stderr, and a run that exits 2 removes the reports an earlier run left at its --output
// paths (a later step must not read the last PASS as this run's result).

import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectOneLineError, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPytestCov } from "../helpers/python.js";

const FORGED = "::warning title=forged::all gates passed.py";

let repo: TempRepo;

beforeAll(() => {
  repo = makeTempRepo();
  repo.write(".gitignore", ".coverage\n.coverage.*\n");
  repo.write(".coveragerc", "[run]\nrelative_files = true\n");
  repo.write("tests/__init__.py", "");
  repo.write("mod.py", "def base():\n    return 1\n");
  repo.write("quarantine.json", '{"frozen": []}\n');
  repo.commit("base");
  repo.git("branch", "base");
  repo.write("mod.py", "def base():\n    return 1\n\n\ndef double(x):\n    return x * 2\n");
  // A module whose file name is a workflow command, loaded by path so coverage measures it.
  repo.write(FORGED, "def inj(x):\n    return x + 1\n");
  repo.write(
    "tests/test_m.py",
    [
      "import importlib.util",
      "from mod import base, double",
      "",
      "def test_base():",
      "    assert base() == 1",
      "",
      "def test_double():",
      "    assert double(1) == 2",
      "",
      "def test_forged():",
      `    spec = importlib.util.spec_from_file_location("forged", ${JSON.stringify(FORGED)})`,
      "    m = importlib.util.module_from_spec(spec)",
      "    spec.loader.exec_module(m)",
      "    assert m.inj(1) == 2",
      "",
    ].join("\n"),
  );
  repo.commit("patch");
});

afterAll(() => repo?.cleanup());

describePython("workflow commands in repository strings (real pytest-cov data)", () => {
  beforeAll(() => runPytestCov(repo.dir));

  it("impact's text never starts a line with a file name's ::", () => {
    const r = runCli(["impact", "tests/test_m.py::test_forged"], { cwd: repo.dir });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toContain(`\n    \\${FORGED}: 1-2\n`);
    for (const l of r.stdout.split("\n")) expect(l, l).not.toMatch(/^\s*::|##\[/);
  });

  it("an error line quoting a path breaks its ##[", () => {
    const line = expectOneLineError(
      runCli(["audit", "--base", "base", "--frozen", "##[warning title=x]y.json"], {
        cwd: repo.dir,
      }),
    );
    expect(line).toContain("##\\[warning title=x]y.json");
    expect(line).not.toContain("##[");
  });
});

describePython("an exit-2 run leaves no earlier report behind (real pytest-cov data)", () => {
  it("removes the reports at --output, says so on its one line, and keeps other files", () => {
    runPytestCov(repo.dir);
    const args = [
      "audit",
      "--base",
      "base",
      "--frozen",
      "quarantine.json",
      "-o",
      "json=freezegate.json",
      "-o",
      "junit=freezegate.xml",
      "-o",
      "markdown=notes.md",
    ];
    writeFileSync(repo.path("notes.md"), "my own notes\n");
    // notes.md is not a report freezegate wrote, and the run that passes replaces it: written
    // again after the passing run, it must survive the failing one.
    const pass = runCli(args, { cwd: repo.dir });
    expect(pass.stderr).toBe("");
    expect(pass.status).toBe(0);
    expect(JSON.parse(readFileSync(repo.path("freezegate.json"), "utf8")).gate.passed).toBe(true);
    writeFileSync(repo.path("notes.md"), "my own notes\n");
    // The data breaks: the audit cannot run.
    writeFileSync(repo.path(".coverage"), "garbage\n");
    const line = expectOneLineError(runCli(args, { cwd: repo.dir }));
    expect(line).toBe(
      `freezegate: error[coverage-data-not-sqlite]: ${repo.path(".coverage")} is not a SQLite database, so not a coverage.py data file (fix: re-run the tests with coverage (pytest --cov --cov-context=test)); removed the earlier reports freezegate.json, freezegate.xml, so that they are not read as this run's`,
    );
    expect(existsSync(repo.path("freezegate.json"))).toBe(false);
    expect(existsSync(repo.path("freezegate.xml"))).toBe(false);
    expect(readFileSync(repo.path("notes.md"), "utf8")).toBe("my own notes\n");
    // Nothing left to remove: the line is the plain error.
    expect(expectOneLineError(runCli(args, { cwd: repo.dir }))).not.toContain("removed");
  });
});
