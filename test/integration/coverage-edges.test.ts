// Edges of reading coverage.py data: test_function names that
// are no collected test (a helper named test*, an inherited method), parallel shards recorded
// without per-test contexts, and data files that cannot be read for a reason worth naming.
// Every case records real data with Debian's coverage.py / pytest at test time, in a real git
// repository, and runs the built binary.

import { spawn } from "node:child_process";
import { mkdirSync, renameSync, rmSync } from "node:fs";
import { afterAll, expect, it } from "vitest";
import { type CliResult, expectOneLineError, expectRefusal, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, pythonEnv, runPython } from "../helpers/python.js";

const repos: TempRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
});

/**
 * A repository on branch "feat" whose last commit changes `head` files (written over
 * `base`), with `.coverage*` ignored. Data is recorded afterwards by the caller.
 */
function project(base: Record<string, string>, head: Record<string, string>): TempRepo {
  const repo = makeTempRepo({ branch: "main" });
  repos.push(repo);
  repo.write(".gitignore", ".coverage*\ncoverage.json\n__pycache__/\nquarantine.json\n");
  repo.write("conftest.py", "import sys, os\nsys.path.insert(0, os.path.dirname(__file__))\n");
  for (const [path, text] of Object.entries(base)) repo.write(path, text);
  repo.commit("base");
  repo.git("checkout", "-q", "-b", "feat");
  for (const [path, text] of Object.entries(head)) repo.write(path, text);
  repo.commit("change");
  return repo;
}

/** Runs Python in the repository; throws with its output when it fails. */
function python(repo: TempRepo, args: string[], env: Record<string, string> = {}): void {
  const result = runPython(args, { cwd: repo.dir, env });
  if (result.status !== 0) {
    throw new Error(`python ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
  }
}

const PYTEST = ["-m", "pytest", "-q", "-p", "no:cacheprovider"];

/** `coverage run -m pytest` with `dynamic_context = test_function`. */
function recordTestFunction(repo: TempRepo): void {
  repo.write(".coveragerc", "[run]\ndynamic_context = test_function\nsource = .\n");
  python(repo, ["-m", "coverage", "run", ...PYTEST]);
}

/** pytest-cov per-test data of package pkg, as .coverage and as coverage.json. */
function recordBothFormats(repo: TempRepo): void {
  python(repo, [...PYTEST, "--cov=pkg", "--cov-context=test"]);
  python(repo, ["-m", "coverage", "json", "--show-contexts", "-q", "-o", "coverage.json"]);
}

function audit(repo: TempRepo, frozen: string[], extra: string[] = []): CliResult {
  repo.write("quarantine.json", JSON.stringify({ frozen }));
  return runCli(["audit", "--base", "main", "--frozen", "quarantine.json", ...extra], {
    cwd: repo.dir,
  });
}

interface Line {
  line: number;
  verdict: string;
  tests: string[];
  frozenTests: string[];
  outsideTests?: boolean;
}

function lines(result: CliResult, path: string): Line[] {
  if (result.status !== 0 && result.status !== 1) {
    throw new Error(`audit failed (exit ${result.status}): ${result.stderr}`);
  }
  const report = JSON.parse(result.stdout) as { files: { path: string; lines: Line[] }[] };
  return report.files.find((f) => f.path === path)?.lines ?? [];
}

describePython("test_function names that are no collected test", () => {
  it("a source helper named test* that a fixture called ran outside tests, not in a live test", () => {
    const repo = project(
      {
        "lib.py": "def a(n):\n    return n\ndef testdata():\n    return 5\n",
        "tests/test_x.py":
          "import pytest\nimport lib\n@pytest.fixture\ndef fx():\n    return lib.testdata()\ndef test_a(fx):\n    assert lib.a(fx)\n",
      },
      { "lib.py": "def a(n):\n    return n\ndef testdata():\n    v = 5\n    return v\n" },
    );
    recordTestFunction(repo);
    const result = audit(repo, ["tests/test_x.py::test_a"], ["--format", "json"]);
    const changed = lines(result, "lib.py").filter((l) => l.verdict !== "not-code");
    // coverage.py charged the helper's body to a context named after the helper itself.
    expect(changed.map((l) => [l.line, l.verdict, l.tests, l.outsideTests])).toEqual([
      [4, "uncovered", [], true],
      [5, "uncovered", [], true],
    ]);
    // With --fail-on uncovered the gate now fails; before, "lib.py::testdata" defended it.
    expect(
      audit(repo, ["tests/test_x.py::test_a"], ["-q", "--fail-on", "uncovered,shadowed"]).status,
    ).toBe(1);
  });

  it("an inherited test method (recorded under its base class in another file) is refused", () => {
    const repo = project(
      {
        "lib.py": "def a():\n    return 1\n",
        "tests/__init__.py": "",
        "tests/base.py":
          "import lib\nclass Base:\n    def test_common(self):\n        assert lib.a() == 1\n",
        "tests/test_impl.py":
          "from tests.base import Base\nclass TestImpl(Base):\n    def test_own(self):\n        pass\n",
      },
      { "lib.py": "def a():\n    x = 1\n    return x\n" },
    );
    recordTestFunction(repo);
    const line = expectRefusal(
      audit(repo, ["tests/test_impl.py::*"]),
      "test-function-names-unclear",
    );
    expect(line).toContain('"tests.base.Base.test_common" -> tests/base.py::Base::test_common');
    expect(line).toContain("inherited test method");
    expect(line).toContain("--cov-context=test");
    const doctor = runCli(["doctor", "--base", "main", "--frozen", "quarantine.json"], {
      cwd: repo.dir,
    });
    expect(doctor.status).toBe(2);
    expect(doctor.stdout).toMatch(/FAIL +contexts: .*inherited test method/);
  });

  it("a base class in the same test module, not named Test*, is refused too", () => {
    const repo = project(
      {
        "lib.py": "def a():\n    return 1\n",
        "tests/test_impl.py":
          "import lib\nclass Base:\n    def test_common(self):\n        assert lib.a() == 1\nclass TestImpl(Base):\n    def test_own(self):\n        pass\n",
      },
      { "lib.py": "def a():\n    x = 1\n    return x\n" },
    );
    recordTestFunction(repo);
    expect(expectOneLineError(audit(repo, ["tests/test_impl.py::TestImpl::test_own"]))).toContain(
      "class Base is not named Test*",
    );
  });
});

describePython("parallel data files", () => {
  /** Two shards: A with per-test contexts, B recorded without (--cov-context forgotten). */
  function shards(): TempRepo {
    const repo = project(
      {
        "lib.py": "def a():\n    return 1\n",
        "tests/test_a.py": "import lib\ndef test_flaky():\n    assert lib.a()\n",
        "tests/test_b.py": "import lib\ndef test_live():\n    assert lib.a()\n",
      },
      { "lib.py": "def a():\n    x = 1\n    return x\n" },
    );
    const cov = [...PYTEST, "--cov=.", "--cov-report="];
    python(repo, [...cov, "--cov-context=test", "tests/test_a.py"], {
      COVERAGE_FILE: ".coverage.shardA",
    });
    python(repo, [...cov, "tests/test_b.py"], { COVERAGE_FILE: ".coverage.shardB" });
    return repo;
  }

  it("a shard without per-test contexts is refused, as it is on its own", () => {
    const repo = shards();
    const line = expectOneLineError(audit(repo, ["tests/test_a.py::test_flaky"]));
    expect(line).toContain(`${repo.path(".coverage.shardB")} has no per-test contexts (only "")`);
    expect(line).toContain(`unlike ${repo.path(".coverage.shardA")}`);
    expect(line).toContain("--cov-context=test");
    const doctor = runCli(["doctor", "--base", "main", "--frozen", "quarantine.json"], {
      cwd: repo.dir,
    });
    expect(doctor.status).toBe(2);
    expect(doctor.stdout).toContain(".coverage.shardB has no per-test contexts");
    // Said once, under contexts; freshness (which would read the contexts again) is skipped.
    expect(doctor.stdout.match(/has no per-test contexts/g)).toHaveLength(1);
    expect(doctor.stdout).toMatch(
      /^skip {2}freshness: not checked: the contexts could not be read$/m,
    );
  });
});

describePython("data files that cannot be used, said precisely", () => {
  /** One pytest-cov run on a change that the frozen test alone executes (exit 1). */
  function recorded(): TempRepo {
    const repo = project(
      {
        "lib.py": "def a():\n    return 1\n",
        "tests/test_a.py": "import lib\ndef test_flaky():\n    assert lib.a()\n",
      },
      { "lib.py": "def a():\n    x = 1\n    return x\n" },
    );
    python(repo, [...PYTEST, "--cov=.", "--cov-report=", "--cov-context=test"]);
    repo.write("quarantine.json", JSON.stringify({ frozen: ["tests/test_a.py::test_flaky"] }));
    return repo;
  }
  const run = (repo: TempRepo, extra: string[] = []) =>
    runCli(["audit", "--base", "main", "--frozen", "quarantine.json", "-q", ...extra], {
      cwd: repo.dir,
    });

  it("--coverage .coverage with only parallel files uses them, as the search without it does", () => {
    const repo = recorded();
    renameSync(repo.path(".coverage"), repo.path(".coverage.shard1"));
    const found = run(repo, ["--format", "json"]);
    expect(found.status).toBe(1);
    const explicit = run(repo, ["--format", "json", "--coverage", ".coverage"]);
    expect(explicit.stderr).toBe("");
    expect(explicit.status).toBe(1);
    const report = (r: CliResult) => {
      const { files, gate } = JSON.parse(r.stdout) as { files: unknown; gate: unknown };
      return { files, gate };
    };
    expect(report(explicit)).toEqual(report(found));
  });

  it("a .coverage directory is named as such, searched for or given", () => {
    const repo = recorded();
    rmSync(repo.path(".coverage"));
    mkdirSync(repo.path(".coverage"));
    for (const extra of [[], ["--coverage", ".coverage"]]) {
      expect(expectRefusal(run(repo, extra), "file-is-directory")).toContain(
        `the coverage.py data file is a directory, not a file: ${repo.path(".coverage")}`,
      );
    }
  });

  it("a hot journal left by a crashed writer is named, not 'attempt to write a readonly database'", () => {
    const repo = recorded();
    // A writer that dies inside a transaction whose pages spilled to the file: SQLite leaves
    // a hot journal that only a writable connection may roll back.
    python(repo, [
      "-c",
      [
        "import sqlite3, os",
        "c = sqlite3.connect('.coverage', isolation_level=None)",
        "c.execute('pragma cache_size=1'); c.execute('begin exclusive')",
        "c.execute('delete from line_bits'); c.execute('delete from context')",
        "c.execute(\"insert into context(context) select 'x'||id from file\")",
        "os._exit(0)",
      ].join("\n"),
    ]);
    const line = expectOneLineError(run(repo));
    expect(line).toContain(`has a leftover rollback journal ${repo.path(".coverage-journal")}`);
    expect(line).toContain("crashed while writing it");
    expect(line).not.toContain("readonly database");
  });

  it("a database locked by a running writer is named as such", async () => {
    const repo = recorded();
    const writer = spawn(
      pythonEnv?.exe ?? "python3",
      [
        "-c",
        "import sqlite3, time\nc = sqlite3.connect('.coverage', isolation_level=None)\nc.execute('begin exclusive')\nc.execute('delete from line_bits')\nprint('locked', flush=True)\ntime.sleep(30)",
      ],
      { cwd: repo.dir, stdio: ["ignore", "pipe", "inherit"] },
    );
    try {
      await new Promise<void>((resolve, reject) => {
        writer.stdout.on("data", () => resolve());
        writer.on("exit", (code) => reject(new Error(`the writer exited (${code})`)));
      });
      const line = expectOneLineError(run(repo));
      expect(line).toContain(`${repo.path(".coverage")} is locked by another process`);
      expect(line).toContain("wait for the test run to finish");
    } finally {
      writer.kill();
    }
  }, 30_000);
});

describePython("a Python script without .py, measured when a test runs it", () => {
  // bin/tool is run by its test through runpy; coverage.py measures it like any module.
  const TOOL_BASE = [
    "#!/usr/bin/env python3",
    "def total(items):",
    "    return sum(items)",
    "",
    "",
    "def main(argv):",
    "    return total([int(a) for a in argv])",
    "",
  ].join("\n");
  const TOOL_HEAD = TOOL_BASE.replace(
    "    return sum(items)\n",
    "    # every item counts once\n\n    return sum(\n        items,\n        0,\n    )\n",
  );
  const TEST = [
    "import runpy",
    "",
    "def test_main():",
    "    tool = runpy.run_path('bin/tool')",
    "    assert tool['main'](['1', '2']) == 3",
    "",
  ].join("\n");

  it("gets the statement model: comments and blanks are not code, continuations share their statement's verdict", () => {
    const repo = project(
      { "bin/tool": TOOL_BASE, "tests/test_tool.py": TEST },
      { "bin/tool": TOOL_HEAD },
    );
    python(repo, [...PYTEST, "--cov=.", "--cov-context=test"]);
    const result = audit(repo, ["tests/test_tool.py::test_main"], ["--format", "json"]);
    expect(result.status).toBe(1);
    const verdicts = lines(result, "bin/tool").map((l) => [l.line, l.verdict]);
    expect(verdicts).toEqual([
      [3, "not-code"],
      [4, "not-code"],
      [5, "shadowed"],
      [6, "shadowed"],
      [7, "shadowed"],
      [8, "shadowed"],
    ]);
  });
});

describePython("a JSON report of a file with a line break only Python sees", () => {
  // coverage.py 6.x numbers a report's executed/missing lines with str.splitlines(), which
  // also ends a line at U+2028 (and \v, \x1c-\x1e, U+0085, U+2029); the tracer, git and the
  // contexts do not. The lists after one are shifted: the audit must not trust them.
  const BASE = "def f(a):\n    return a + 1\n";
  const HEAD =
    "def f(a):\n    # a line separator \u2028 inside a comment\n    x = (a +\n         1)\n    return x\n";
  const TEST = "from pkg import m\n\n\ndef test_f():\n    assert m.f(1) == 2\n";

  it("gets the verdicts the SQLite data of the same run gives", () => {
    const repo = project(
      { "pkg/__init__.py": "", "pkg/m.py": BASE, "tests/test_m.py": TEST },
      { "pkg/m.py": HEAD },
    );
    recordBothFormats(repo);
    const verdicts = (data: string) =>
      lines(
        audit(repo, ["tests/test_m.py::test_f"], ["--format", "json", "--coverage", data]),
        "pkg/m.py",
      ).map((l) => `${l.line} ${l.verdict}`);
    const expected = ["2 not-code", "3 shadowed", "4 shadowed", "5 shadowed"];
    expect(verdicts(".coverage")).toEqual(expected);
    expect(verdicts("coverage.json")).toEqual(expected);
  });
});

describePython("a recorded line of a multi-line f-string that starts with #", () => {
  // Python 3.11 records the line of each expression of a multi-line f-string: "# {title}"
  // is such a line, not a comment that proves the data stale.
  const SOURCE = 'def heading(title):\n    return f"""\n# {title}\n\nSome text.\n"""\n';
  const TEST = 'from pkg import m\n\n\ndef test_heading():\n    assert "# T" in m.heading("T")\n';

  it("is audited with its statement in audit, doctor and both data formats", () => {
    const repo = project(
      { "pkg/__init__.py": "", "pkg/m.py": "def heading(title):\n    return title\n" },
      { "pkg/m.py": SOURCE, "tests/test_m.py": TEST },
    );
    recordBothFormats(repo);
    for (const data of [".coverage", "coverage.json"]) {
      const verdicts = lines(audit(repo, [], ["--format", "json", "--coverage", data]), "pkg/m.py");
      expect(
        verdicts.map((l) => `${l.line} ${l.verdict}`),
        data,
      ).toEqual(["2 defended", "3 defended", "4 defended", "5 defended", "6 defended"]);
      const doctor = runCli(["doctor", "--base", "main", "--coverage", data, "--format", "json"], {
        cwd: repo.dir,
      });
      const freshness = (
        JSON.parse(doctor.stdout) as { checks: { id: string; status: string }[] }
      ).checks.find((c) => c.id === "freshness");
      expect(freshness?.status, data).not.toBe("fail");
    }
  });
});

describePython("an expression that starts with a string, first in a block", () => {
  // coverage.py 6.5 takes any string first in a block for a docstring; this one runs code,
  // and the tracer records it: only a frozen test runs it, so it is shadowed.
  const SOURCE = 'def f(a):\n    if a:\n        ",".join(["x", "y"]).encode()\n    return a + 1\n';
  const TEST = "from pkg import m\n\n\ndef test_f():\n    assert m.f(1) == 2\n";

  it("is code in both data formats", () => {
    const repo = project(
      {
        "pkg/__init__.py": "",
        "pkg/m.py": "def f(a):\n    return a + 1\n",
        "tests/test_m.py": TEST,
      },
      { "pkg/m.py": SOURCE },
    );
    recordBothFormats(repo);
    for (const data of [".coverage", "coverage.json"]) {
      const result = audit(
        repo,
        ["tests/test_m.py::test_f"],
        ["--format", "json", "--coverage", data],
      );
      expect(
        lines(result, "pkg/m.py").map((l) => `${l.line} ${l.verdict}`),
        data,
      ).toEqual(["2 shadowed", "3 shadowed"]);
      expect(result.status, data).toBe(1);
    }
  });
});

describePython("a string statement with an f-string part, first in a function", () => {
  // coverage.py 6.5 reads an f-string first in a body as a docstring (one STRING token in
  // 3.11); Python does not: it runs code, and the tracer records it. Only a frozen test runs
  // these, so they are shadowed, and a real docstring beside them stays not code.
  const BASE = [
    "EVENTS = []",
    "",
    "",
    "def record(kind):",
    "    EVENTS.append(kind)",
    "    return kind",
    "",
    "",
    "def close(acct):",
    '    acct["open"] = False',
    "    return acct",
    "",
  ].join("\n");
  const HEAD = [
    "EVENTS = []",
    "",
    "",
    "def record(kind):",
    "    EVENTS.append(kind)",
    "    return kind",
    "",
    "",
    "def close(acct):",
    "    f\"{record('closed')}\"",
    '    acct["open"] = False',
    "    return acct",
    "",
    "",
    "def note(acct):",
    '    rf"""{record(\'note\')}',
    '    \\d"""',
    "    return acct",
    "",
    "",
    "def tag(acct):",
    '    "plain" F\'{record("tag")}\'',
    "    return acct",
    "",
    "",
    "def plain(acct):",
    '    """Doc {acct}."""',
    "    return acct",
    "",
  ].join("\n");
  const TEST = [
    "from pkg import m",
    "",
    "",
    "def test_record():",
    '    assert m.record("x") == "x"',
    "",
    "",
    "def test_close():",
    "    acct = m.plain(m.tag(m.note(m.close({}))))",
    '    assert m.EVENTS[-3:] == ["closed", "note", "tag"] and not acct["open"]',
    "",
  ].join("\n");

  it("is code in both data formats: shadowed, exit 1", () => {
    const repo = project(
      { "pkg/__init__.py": "", "pkg/m.py": BASE, "tests/test_m.py": TEST },
      { "pkg/m.py": HEAD },
    );
    recordBothFormats(repo);
    for (const data of [".coverage", "coverage.json"]) {
      const result = audit(
        repo,
        ["tests/test_m.py::test_close"],
        ["--format", "json", "--coverage", data],
      );
      expect(
        lines(result, "pkg/m.py").map((l) => `${l.line} ${l.verdict}`),
        data,
      ).toEqual([
        "10 shadowed",
        "13 not-code",
        "14 not-code",
        "15 uncovered", // the def runs on import, outside any test
        "16 shadowed",
        "17 shadowed",
        "18 shadowed",
        "19 not-code",
        "20 not-code",
        "21 uncovered",
        "22 shadowed",
        "23 shadowed",
        "24 not-code",
        "25 not-code",
        "26 uncovered",
        "27 not-code",
        "28 shadowed",
      ]);
      expect(result.status, data).toBe(1);
    }
  });

  it("is shadowed where the patch changes only that line (the file is not all docstrings)", () => {
    const before = HEAD.replace("record('closed')", "record('close')");
    const repo = project(
      { "pkg/__init__.py": "", "pkg/m.py": before, "tests/test_m.py": TEST },
      { "pkg/m.py": HEAD },
    );
    python(repo, [...PYTEST, "--cov=pkg", "--cov-context=test"]);
    const result = audit(repo, ["tests/test_m.py::test_close"], ["--format", "json"]);
    expect(lines(result, "pkg/m.py").map((l) => `${l.line} ${l.verdict}`)).toEqual(["10 shadowed"]);
    expect(result.status).toBe(1);
  });
});

describePython("excluded lines in a JSON report", () => {
  // coverage.py's exclusion pattern matches any physical line: it lists a comment, or a line
  // inside a docstring, in excluded_lines. Those are neither statements nor stale data.
  const BASE = "def f(a):\n    return a + 1\n";
  const HEAD = [
    "def f(a):",
    '    """Add one.',
    "",
    "    Example: f(1)  # pragma: no cover",
    '    """',
    "    # pragma: no cover (a comment-only line)",
    "    x = (a +",
    "         1)  # pragma: no cover",
    "    return x",
    "",
  ].join("\n");
  const TEST = "from pkg import m\n\n\ndef test_f():\n    assert m.f(1) == 2\n";

  it("are judged as in the SQLite data of the same run, not refused as stale", () => {
    const repo = project(
      { "pkg/__init__.py": "", "pkg/m.py": BASE, "tests/test_m.py": TEST },
      { "pkg/m.py": HEAD },
    );
    recordBothFormats(repo);
    const verdicts = (data: string) =>
      lines(audit(repo, [], ["--format", "json", "--coverage", data]), "pkg/m.py").map(
        (l) => `${l.line} ${l.verdict}`,
      );
    const expected = [
      "2 not-code",
      "3 not-code",
      "4 not-code",
      "5 not-code",
      "6 not-code",
      "7 defended",
      "8 defended",
      "9 defended",
    ];
    expect(verdicts(".coverage")).toEqual(expected);
    expect(verdicts("coverage.json")).toEqual(expected);
  });

  it("an excluded else: or finally: has no statement in either format", () => {
    const source = [
      "def f(a):",
      "    if a:",
      "        return 1",
      "    else:  # pragma: no cover",
      "        return 2",
      "",
      "",
      "def g(a):",
      "    try:  # pragma: no cover",
      "        return a",
      "    finally:  # pragma: no cover",
      "        pass",
      "",
    ].join("\n");
    const test = "from pkg import m\n\n\ndef test_f():\n    assert m.f(1) == 1\n";
    const repo = project(
      { "pkg/__init__.py": "", "pkg/m.py": "def f(a):\n    return 1\n", "tests/test_m.py": test },
      { "pkg/m.py": source },
    );
    recordBothFormats(repo);
    const verdicts = (data: string) =>
      lines(audit(repo, [], ["--format", "json", "--coverage", data]), "pkg/m.py")
        .filter((l) => l.line === 4 || l.line === 11)
        .map((l) => `${l.line} ${l.verdict}`);
    expect(verdicts(".coverage")).toEqual(["4 not-code", "11 not-code"]);
    expect(verdicts("coverage.json")).toEqual(["4 not-code", "11 not-code"]);
  });
});
