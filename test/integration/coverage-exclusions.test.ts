// Lines coverage.py's report excludes (`# pragma: no cover`, with the suite or decorated
// definition it opens): excludedStatements is proved against coverage.py's own parser over
// every Debian Python file that holds the pragma, and the audit of a real pytest-cov run
// reads an excluded line that no test ran as not-code, as coverage.py's report does, while one that ran keeps the verdict its tests give it.

import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { afterEach, expect, it } from "vitest";
import { excludedStatements } from "../../src/languages/python/statements.js";
import { runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPython } from "../helpers/python.js";

// coverage.py's first-line view of the excluded statements, for each file on stdin.
const ORACLE = `
import json, sys
from coverage.parser import PythonParser
out = {}
for f in sys.stdin.read().split("\\n"):
    if not f:
        continue
    try:
        p = PythonParser(filename=f, exclude=r"#\\s*(pragma|PRAGMA)[:\\s]?\\s*(no|NO)\\s*(cover|COVER)")
        p.parse_source()
    except Exception:
        continue
    stmts = p.first_lines(p.raw_statements)
    out[f] = {"excluded": sorted(p.excluded & stmts), "statements": sorted(stmts)}
print(json.dumps(out))
`;

let repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos) r.cleanup();
  repos = [];
});

describePython("statements coverage.py excludes", () => {
  it("excludedStatements agrees with coverage.py on every Debian file that holds the pragma", () => {
    let listed = "";
    try {
      listed = execFileSync(
        "grep",
        ["-rlE", "--include=*.py", "pragma: ?no ?cover", "/usr/lib/python3/dist-packages"],
        { encoding: "utf8", maxBuffer: 64 * 1024 * 1024 },
      );
    } catch (error) {
      // grep exits 1 when nothing matches: the packages below hold the pragma, so that fails.
      listed = (error as { stdout?: string }).stdout ?? "";
    }
    const files = listed.trim().split("\n").filter(Boolean).sort();
    const run = runPython(["-c", ORACLE], { cwd: "/", input: files.join("\n") });
    expect(run.status, run.stderr).toBe(0);
    const oracle = JSON.parse(run.stdout) as Record<
      string,
      { excluded: number[]; statements: number[] }
    >;
    let compared = 0;
    let excluded = 0;
    const differing: string[] = [];
    for (const [file, answer] of Object.entries(oracle)) {
      const statements = new Set(answer.statements);
      const ours = [...excludedStatements(readFileSync(file, "utf8"))]
        .filter((l) => statements.has(l))
        .sort((a, b) => a - b);
      compared++;
      excluded += answer.excluded.length;
      if (JSON.stringify(ours) !== JSON.stringify(answer.excluded)) differing.push(file);
    }
    // python3-coverage, -pytest and -hypothesis alone hold well over these.
    expect(compared).toBeGreaterThanOrEqual(40);
    expect(excluded).toBeGreaterThanOrEqual(500);
    expect(differing).toEqual([]);
  });

  it("an excluded line no test ran is not code; one a frozen test ran is still shadowed", () => {
    const r = makeTempRepo();
    repos.push(r);
    r.write(".gitignore", ".coverage*\n__pycache__/\n");
    r.write("calc/__init__.py", "");
    r.write("calc/stats.py", "def mean(xs):\n    return sum(xs) / len(xs)\n");
    r.write(
      "tests/test_stats.py",
      "from calc.stats import mean, spread\n\n\ndef test_mean():\n    assert mean([1, 3]) == 2\n\n\ndef test_spread():\n    assert spread([1, 4]) == 3\n",
    );
    r.write("quarantine.json", JSON.stringify({ frozen: ["tests/test_stats.py::test_spread"] }));
    r.commit("base");
    r.git("branch", "base");
    r.write(
      "calc/stats.py",
      [
        "def mean(xs):",
        "    if not xs:  # pragma: no cover",
        '        raise ValueError("empty")',
        "    return sum(xs) / len(xs)",
        "",
        "",
        "def spread(xs):",
        "    lo = min(xs)  # pragma: no cover",
        "    if len(xs) > 100:",
        "        raise ValueError('too many')",
        "    return max(xs) - lo",
        "",
        'if __name__ == "__main__":  # pragma: no cover',
        "    print(mean([1]))",
        "",
      ].join("\n"),
    );
    r.commit("guard the empty case; spread");
    const pytest = runPython(
      ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=calc", "--cov-context=test"],
      { cwd: r.dir },
    );
    expect(pytest.status, pytest.stdout + pytest.stderr).toBe(0);
    const audit = runCli(
      ["audit", "--base", "base", "--fail-on", "uncovered", "--format", "json"],
      { cwd: r.dir },
    );
    expect(audit.stderr).toBe("");
    const report0 = JSON.parse(audit.stdout) as {
      files: { path: string; lines: { line: number; verdict: string }[] }[];
    };
    expect(report0.files.map((f) => [f.path, f.lines.map((l) => [l.line, l.verdict])])).toEqual([
      [
        "calc/stats.py",
        [
          // The guard ran (test_mean), so it keeps its verdict; its suite is excluded and no
          // test ran it: not code, as coverage.py's report (100 %) has it.
          [2, "defended"],
          [3, "not-code"],
          [5, "not-code"],
          [6, "not-code"],
          // A def runs at import time only.
          [7, "uncovered"],
          // Excluded but run, by the frozen test only: the pragma hides no shadow.
          [8, "shadowed"],
          [9, "shadowed"],
          [10, "uncovered"],
          [11, "shadowed"],
          [12, "not-code"],
          // Excluded, and run at import time only (no test): not code, as coverage.py's
          // report has it.
          [13, "not-code"],
          [14, "not-code"],
        ],
      ],
    ]);
    expect(audit.status).toBe(1);

    // A project whose exclude_lines replaces coverage.py's default list does not exclude the
    // pragma: coverage.py reports line 3 as missing, and so does the audit.
    r.write(".coveragerc", "[report]\nexclude_lines =\n    if TYPE_CHECKING:\n");
    const report = runPython(["-m", "coverage", "report", "-m"], { cwd: r.dir });
    expect(report.stdout).toMatch(/calc\/stats\.py +\d+ +\d+ +\d+% +3, 10, 14\n/);
    const own = runCli(["audit", "--base", "base", "--format", "json"], { cwd: r.dir });
    expect(own.stderr).toBe("");
    const verdicts = (JSON.parse(own.stdout) as typeof report0).files[0]?.lines.map((l) => [
      l.line,
      l.verdict,
    ]);
    expect(verdicts?.find(([line]) => line === 3)).toEqual([3, "uncovered"]);
    // A list that names the pragma again excludes it, as coverage.py does.
    r.write(
      ".coveragerc",
      "[report]\nexclude_lines =\n    pragma: no cover\n    if TYPE_CHECKING:\n",
    );
    const again = runCli(["audit", "--base", "base", "--format", "json"], { cwd: r.dir });
    expect(
      (JSON.parse(again.stdout) as typeof report0).files[0]?.lines.find((l) => l.line === 3)
        ?.verdict,
    ).toBe("not-code");
    // pytest-cov's --cov-config names the file coverage.py read, also in a TOML
    // list.
    r.remove(".coveragerc");
    r.write(
      "pyproject.toml",
      '[tool.pytest.ini_options]\naddopts = ["--cov-config", "ci/coverage.ini"]\n',
    );
    for (const [rc, verdict] of [
      ["[report]\nexclude_lines =\n    raise NotImplementedError\n", "uncovered"],
      ["[report]\nexclude_lines =\n    pragma: no cover\n", "not-code"],
    ] as const) {
      r.write("ci/coverage.ini", rc);
      const named = runCli(["audit", "--base", "base", "--format", "json"], { cwd: r.dir });
      expect(
        (JSON.parse(named.stdout) as typeof report0).files[0]?.lines.find((l) => l.line === 3)
          ?.verdict,
      ).toBe(verdict);
    }
  });
});

describePython("excluded lines from a JSON report", () => {
  it("reads them as the SQLite data does: not code where no test ran them, else their tests' verdict", () => {
    const r = makeTempRepo();
    repos.push(r);
    r.write(".gitignore", ".coverage*\ncoverage.json\n__pycache__/\n");
    // The project's own list: the pragma, and two lines of its own.
    r.write(
      ".coveragerc",
      "[report]\nexclude_lines =\n    pragma: no cover\n    raise NotImplementedError\n    if TYPE_CHECKING:\n",
    );
    r.write("calc/__init__.py", "");
    r.write("calc/stats.py", "def mean(xs):\n    return sum(xs) / len(xs)\n");
    r.write(
      "tests/test_stats.py",
      [
        "import pytest",
        "",
        "from calc.stats import mean, median, spread",
        "",
        "",
        "def test_mean():",
        "    assert mean([1, 3]) == 2",
        "",
        "",
        "def test_spread():",
        "    assert spread([1, 4]) == 3",
        "",
        "",
        "def test_median():",
        "    with pytest.raises(NotImplementedError):",
        "        median([1])",
        "",
      ].join("\n"),
    );
    r.write(
      "quarantine.json",
      JSON.stringify({
        frozen: ["tests/test_stats.py::test_spread", "tests/test_stats.py::test_median"],
      }),
    );
    r.commit("base");
    r.git("branch", "base");
    r.write(
      "calc/stats.py",
      [
        "from typing import TYPE_CHECKING",
        "",
        "if TYPE_CHECKING:",
        "    from collections.abc import Sequence",
        "",
        "",
        "def mean(xs):",
        "    if not xs:  # pragma: no cover",
        '        raise ValueError("empty")',
        "    return sum(xs) / len(xs)",
        "",
        "",
        'def spread(xs: "Sequence[int]"):',
        "    lo = min(xs)  # pragma: no cover",
        "    return max(xs) - lo",
        "",
        "",
        "def median(xs):",
        "    raise NotImplementedError",
        "",
        "",
        "def mode(xs):",
        "    raise NotImplementedError",
        "",
        "",
        "def debug_dump(xs):  # pragma: no cover",
        "    return repr(xs)",
        "",
      ].join("\n"),
    );
    r.commit("guard the empty case; spread, median, mode, debug_dump");
    const pytest = runPython(
      ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=calc", "--cov-context=test"],
      { cwd: r.dir },
    );
    expect(pytest.status, pytest.stdout + pytest.stderr).toBe(0);
    const json = runPython(
      ["-m", "coverage", "json", "-q", "--show-contexts", "-o", "coverage.json"],
      { cwd: r.dir },
    );
    expect(json.status, json.stderr).toBe(0);
    const excluded = (
      JSON.parse(readFileSync(`${r.dir}/coverage.json`, "utf8")) as {
        files: Record<string, { excluded_lines: number[] }>;
      }
    ).files["calc/stats.py"]?.excluded_lines;
    expect(excluded).toEqual([3, 4, 8, 9, 14, 19, 23, 26, 27]);
    const expected = [
      [1, "uncovered"],
      [2, "not-code"],
      // Excluded, run at import time only: not code.
      [3, "not-code"],
      [4, "not-code"],
      [5, "not-code"],
      [6, "not-code"],
      // Excluded, run by a live test: defended; its suite no test ran: not code.
      [8, "defended"],
      [9, "not-code"],
      [11, "not-code"],
      [12, "not-code"],
      [13, "uncovered"],
      // Excluded, run by a frozen test only: the exclusion hides no shadow.
      [14, "shadowed"],
      [15, "shadowed"],
      [16, "not-code"],
      [17, "not-code"],
      [18, "uncovered"],
      // The project's own pattern: run by a frozen test, shadowed; run by none, not code.
      [19, "shadowed"],
      [20, "not-code"],
      [21, "not-code"],
      [22, "uncovered"],
      [23, "not-code"],
      [24, "not-code"],
      [25, "not-code"],
      [26, "not-code"],
      [27, "not-code"],
    ];
    for (const coverage of [".coverage", "coverage.json"]) {
      const audit = runCli(
        [
          "audit",
          "--base",
          "base",
          "--coverage",
          coverage,
          "--frozen",
          "quarantine.json",
          "--fail-on",
          "uncovered",
          "--format",
          "json",
        ],
        { cwd: r.dir },
      );
      expect(audit.stderr, coverage).toBe("");
      const report = JSON.parse(audit.stdout) as {
        files: { path: string; lines: { line: number; verdict: string }[] }[];
      };
      expect(
        report.files.map((f) => [f.path, f.lines.map((l) => [l.line, l.verdict])]),
        coverage,
      ).toEqual([["calc/stats.py", expected]]);
      expect(audit.status, coverage).toBe(1);
    }
  });
});
