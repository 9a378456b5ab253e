// A "|" before a node id's first "::". coverage.py writes a
// static context before pytest-cov's node id ("shard-1|tests/x.py::t|run"), and a test file's
// path may hold "|" itself (Linux and macOS allow it; pytest runs such a file under
// --import-mode=importlib): "tests/legacy|v1/test_old.py::test_one|run". Read as a static
// context, that test became "v1/test_old.py::test_one": a glob freeze missed it, its lines
// read defended and the gate passed. A static context holding "::" makes every node id
// unreadable: the audit and doctor name it. Real data from Debian's pytest-cov, in a real
// git repository, read by the built binary.

import { afterAll, expect, it } from "vitest";
import { type CliResult, expectRefusal, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPytestCov, runPython } from "../helpers/python.js";

const repos: TempRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
});

const LEGACY = "tests/legacy|v1/test_old.py";

/**
 * app/m.py's one() is run only by LEGACY's test_one, two() by tests/unit/test_u.py and the
 * live tests/test_live.py; the branch "feat" adds a line to each. `rc`: a .coveragerc.
 */
function project(rc = "[run]\nsource = app\n", extra: Record<string, string> = {}): TempRepo {
  const repo = makeTempRepo({ branch: "main" });
  repos.push(repo);
  repo.write(".gitignore", ".coverage*\ncoverage.json\n__pycache__/\nquarantine.json\n");
  repo.write("pytest.ini", "[pytest]\naddopts = --import-mode=importlib\n");
  repo.write(".coveragerc", rc);
  repo.write("app/__init__.py", "");
  repo.write("app/m.py", "def one(x):\n    return x\n\n\ndef two(x):\n    return x\n");
  repo.write(LEGACY, "from app.m import one\n\n\ndef test_one():\n    assert one(1) == 1\n");
  repo.write(
    "tests/unit/test_u.py",
    "from app.m import two\n\n\ndef test_two():\n    assert two(1) == 1\n",
  );
  repo.write(
    "tests/test_live.py",
    "from app.m import two\n\n\ndef test_live():\n    assert two(2) == 2\n",
  );
  for (const [path, text] of Object.entries(extra)) repo.write(path, text);
  repo.commit("base");
  repo.git("checkout", "-q", "-b", "feat");
  repo.write(
    "app/m.py",
    "def one(x):\n    x = int(x)\n    return x\n\n\ndef two(x):\n    x = int(x)\n    return x\n",
  );
  repo.commit("change");
  runPytestCov(repo.dir);
  return repo;
}

function audit(repo: TempRepo, frozen: string[], extra: string[] = []): CliResult {
  repo.write("quarantine.json", JSON.stringify({ frozen }));
  return runCli(["audit", "--base", "main", "--frozen", "quarantine.json", ...extra], {
    cwd: repo.dir,
  });
}

function doctor(repo: TempRepo, extra: string[] = []): CliResult {
  return runCli(["doctor", "--base", "main", "--frozen", "quarantine.json", ...extra], {
    cwd: repo.dir,
  });
}

interface Line {
  line: number;
  verdict: string;
  tests: string[];
  frozenTests: string[];
}

/** app/m.py's changed lines as [line, verdict, frozen tests], from a JSON report. */
function verdicts(result: CliResult): [number, string, string[]][] {
  if (result.status !== 0 && result.status !== 1) {
    throw new Error(`audit failed (exit ${result.status}): ${result.stderr}`);
  }
  const report = JSON.parse(result.stdout) as { files: { path: string; lines: Line[] }[] };
  const lines = report.files.find((f) => f.path === "app/m.py")?.lines ?? [];
  return lines.map((l) => [l.line, l.verdict, l.frozenTests]);
}

/** Names in the data file, read with coverage.py itself. */
function contextNames(repo: TempRepo): string[] {
  const result = runPython(
    [
      "-c",
      "import coverage,json;d=coverage.CoverageData();d.read();print(json.dumps(sorted(d.measured_contexts())))",
    ],
    { cwd: repo.dir },
  );
  return JSON.parse(result.stdout) as string[];
}

/** The verdicts when the glob freezes LEGACY's and tests/unit's tests. */
const GLOBBED = [
  [2, "shadowed", [`${LEGACY}::test_one`]],
  [7, "defended", ["tests/unit/test_u.py::test_two"]],
];

describePython('a test file whose path holds "|"', () => {
  it("is its own test, not a static context and a file that does not exist", () => {
    const repo = project();
    expect(contextNames(repo)).toContain(`${LEGACY}::test_one|run`);
    // A glob over tests/*/ freezes it (and tests/unit's); tests/test_live.py stays live.
    const glob = audit(repo, ["tests/*/test_*.py::*"], ["--format", "json"]);
    expect(verdicts(glob)).toEqual(GLOBBED);
    expect(glob.status).toBe(1);
    expect(audit(repo, ["tests/*/test_*.py::*"], ["-q"]).status).toBe(1);
    // Its exact id names the test that ran.
    const exact = audit(repo, [`${LEGACY}::test_one`], ["--format", "json"]);
    expect(verdicts(exact)).toEqual([
      [2, "shadowed", [`${LEGACY}::test_one`]],
      [7, "defended", []],
    ]);
    expect(exact.status).toBe(1);
    // doctor agrees: every id names a file that exists, the entry resolves.
    const checked = doctor(repo);
    expect(checked.stdout).toMatch(
      /^ok {4}node-ids: every test id names a test file that exists \(3 tests\)$/m,
    );
    expect(checked.stdout).toMatch(
      /^ok {4}frozen: quarantine\.json: 1 entry resolves to 1 test\(s\) in the data$/m,
    );
    expect(checked.status).toBe(0);
  });

  it("reads the same from a coverage json report", () => {
    const repo = project();
    const json = runPython(["-m", "coverage", "json", "--show-contexts", "-q"], { cwd: repo.dir });
    expect(json.status).toBe(0);
    const result = audit(
      repo,
      ["tests/*/test_*.py::*"],
      ["--coverage", "coverage.json", "--format", "json"],
    );
    expect(verdicts(result)).toEqual(GLOBBED);
    expect(result.status).toBe(1);
  });

  it("after a static context, the path keeps its bar and the static context goes", () => {
    const repo = project("[run]\nsource = app\ncontext = shard-1\n");
    expect(contextNames(repo)).toContain(`shard-1|${LEGACY}::test_one|run`);
    const result = audit(repo, ["tests/*/test_*.py::*"], ["--format", "json"]);
    expect(verdicts(result)).toEqual(GLOBBED);
    expect(result.status).toBe(1);
    expect(doctor(repo).status).toBe(0);
  });

  it("two readings whose files both exist cannot be told: exit 2", () => {
    // v1/test_old.py too: "tests/legacy|v1/test_old.py::test_one|run" may be that file's
    // test after a static context "tests/legacy". The data's empty name does not settle it:
    // data combined from runs with and without a static context holds it too.
    const repo = project(undefined, {
      "v1/test_old.py": "from app.m import two\n\n\ndef test_one():\n    assert two(3) == 3\n",
    });
    const line = expectRefusal(audit(repo, ["tests/*/test_*.py::*"]), "context-pipe-two-files");
    // The name of one of the test's phases.
    expect(line.replace(/\|(setup|teardown)" names/, '|run" names')).toContain(
      `context name "${LEGACY}::test_one|run" names two test files that both exist: "${LEGACY}", and "v1/test_old.py" after a static context "tests/legacy"`,
    );
    const checked = doctor(repo);
    expect(checked.stdout).toMatch(
      /^FAIL {2}contexts: error\[context-pipe-two-files\]: the coverage data's context name .* names two test files that both exist/m,
    );
    expect(checked.status).toBe(2);
  });

  it("whose file is not under the test root: refused, not cut at the bar", () => {
    // The data was recorded with the file; the patch deletes it. Read as a static context
    // and "v1/test_old.py", its test escaped the glob and the gate passed.
    const repo = project();
    repo.git("rm", "-q", "-r", "tests/legacy|v1");
    repo.commit("drop the legacy tests");
    const line = expectRefusal(audit(repo, ["tests/*/test_*.py::*"]), "context-pipe-unresolved");
    expect(line.replace(/\|(setup|teardown)" has/, '|run" has')).toContain(
      `context name "${LEGACY}::test_one|run" has a "|" before its first "::"`,
    );
    expect(line).toContain(`("${LEGACY}", "v1/test_old.py" after a static context "tests/legacy")`);
    expect(doctor(repo).status).toBe(2);
  });
});

describePython("a static context", () => {
  it("with a test module git does not list (generated, ignored): read from the disk", () => {
    // Imports inside the tests: no code runs outside them, so the data holds no bare
    // "shard-1" name to tell where the static context ends; the generated module's file
    // decides, though git does not list it.
    const repo = makeTempRepo({ branch: "main" });
    repos.push(repo);
    repo.write(".gitignore", ".coverage*\n__pycache__/\nquarantine.json\ntests/gen/\n");
    repo.write(".coveragerc", "[run]\nsource = app\ncontext = shard-1\n");
    repo.write("app/__init__.py", "");
    repo.write("app/m.py", "def one(x):\n    return x\n\n\ndef two(x):\n    return x\n");
    repo.write(
      "tests/test_u.py",
      "def test_two():\n    from app.m import two\n\n    assert two(1) == 1\n",
    );
    repo.commit("base");
    repo.git("checkout", "-q", "-b", "feat");
    repo.write(
      "app/m.py",
      "def one(x):\n    x = int(x)\n    return x\n\n\ndef two(x):\n    x = int(x)\n    return x\n",
    );
    repo.commit("change");
    repo.write(
      "tests/gen/test_g.py",
      "def test_one():\n    from app.m import one\n\n    assert one(1) == 1\n",
    );
    runPytestCov(repo.dir);
    expect(contextNames(repo)).not.toContain("shard-1");
    const result = audit(repo, ["tests/gen/test_g.py::test_one"], ["--format", "json"]);
    expect(verdicts(result)).toEqual([
      [2, "shadowed", ["tests/gen/test_g.py::test_one"]],
      [7, "defended", []],
    ]);
    expect(result.status).toBe(1);
  });

  it('without "::" is still read as one (shard-1)', () => {
    const repo = project("[run]\nsource = app\ncontext = shard-1\n");
    expect(contextNames(repo)).toContain("shard-1|tests/unit/test_u.py::test_two|run");
    const result = audit(
      repo,
      ["tests/unit/test_u.py::test_two", `${LEGACY}::test_one`],
      ["--format", "json"],
    );
    expect(verdicts(result)).toEqual([
      [2, "shadowed", [`${LEGACY}::test_one`]],
      [7, "defended", ["tests/unit/test_u.py::test_two"]],
    ]);
    expect(result.status).toBe(1);
  });

  it('holding "::" is named as the cause, by the audit and by doctor', () => {
    const repo = project("[run]\nsource = app\ncontext = py3.11::linux\n");
    expect(contextNames(repo)).toContain("py3.11::linux|tests/unit/test_u.py::test_two|run");
    const cause =
      'the data\'s test ids start with the static context "py3.11::linux" (e.g. "py3.11::linux|';
    const why =
      'coverage.py puts the static context ([run] context) before each node id, and one holding "::" cannot be told from the node id, so the tests cannot be named (fix: record the data with a static context without "::" (e.g. [run] context = py3.11-linux), or none, and run the tests again)';
    const frozen = ["tests/unit/test_u.py::test_two"];
    for (const extra of [[], ["--allow-unresolved"]]) {
      // --allow-unresolved is for tests that no longer exist: these ran.
      const line = expectRefusal(audit(repo, frozen, extra), "frozen-ids-unresolved");
      expect(line).toContain(
        `1 frozen id(s) in ${repo.path("quarantine.json")} match no test in the coverage data: "tests/unit/test_u.py::test_two"; ${cause}`,
      );
      expect(line).toContain(why);
      const checked = doctor(repo, extra);
      expect(checked.stdout).toMatch(
        /^FAIL {2}node-ids: test ids name 1 file\(s\) that do not exist in the repository: "py3\.11"; the data's test ids start with the static context "py3\.11::linux"/m,
      );
      expect(checked.stdout).toMatch(
        /^FAIL {2}frozen: quarantine\.json: 1 of 1 frozen id\(s\) match no test in the data: "tests\/unit\/test_u\.py::test_two"; the data's test ids start with the static context "py3\.11::linux"/m,
      );
      expect(checked.status).toBe(2);
    }
  });
});
