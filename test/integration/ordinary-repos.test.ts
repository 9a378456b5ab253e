// Ordinary, honest repositories that the audit once refused or misjudged: real
// git, real pytest + pytest-cov, and the verdicts a user of each layout expects.

import { afterEach, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPytestCov, runPython } from "../helpers/python.js";

let repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos) r.cleanup();
  repos = [];
});

function repo(): TempRepo {
  const r = makeTempRepo();
  repos.push(r);
  r.write(".gitignore", ".coverage*\n__pycache__/\n");
  return r;
}

interface Report {
  files: { path: string; lines: { line: number; verdict: string }[] }[];
  skipped: { path: string; reason: string }[];
}

function auditJson(r: TempRepo): { status: number; stderr: string; report: Report | null } {
  const run = runCli(["audit", "--base", "base", "--format", "json"], { cwd: r.dir });
  return {
    status: run.status,
    stderr: run.stderr,
    report: run.stdout === "" ? null : (JSON.parse(run.stdout) as Report),
  };
}

function pytestCovDot(r: TempRepo): void {
  const args = ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=.", "--cov-context=test"];
  const run = runPython(args, { cwd: r.dir });
  expect(run.status, run.stdout + run.stderr).toBe(0);
}

describePython("ordinary repositories", () => {
  it("a helper in a service's own tests/ directory is a test file, as a root tests/ is", () => {
    const r = repo();
    r.write("pyproject.toml", '[tool.pytest.ini_options]\npythonpath = ["services/billing"]\n');
    r.write("services/billing/billing/__init__.py", "");
    r.write(
      "services/billing/billing/invoice.py",
      "def total(lines):\n    return sum(q * p for q, p in lines)\n",
    );
    r.write("services/billing/tests/__init__.py", "");
    r.write(
      "services/billing/tests/factories.py",
      "def invoice_lines(n=2):\n    return [(1, 10.0)] * n\n",
    );
    r.write(
      "services/billing/tests/test_invoice.py",
      [
        "from billing.invoice import total",
        "",
        "from .factories import invoice_lines",
        "",
        "",
        "def test_total():",
        "    assert total([(2, 5.0)]) == 10.0",
        "",
        "",
        "def test_total_many():",
        "    assert total(invoice_lines(3)) == 30.0",
        "",
      ].join("\n"),
    );
    r.write(
      "quarantine.json",
      JSON.stringify({ frozen: ["services/billing/tests/test_invoice.py::test_total_many"] }),
    );
    r.commit("base");
    r.git("branch", "base");
    r.write(
      "services/billing/tests/factories.py",
      "def invoice_lines(n=2):\n    return [(1, 10.0) for _ in range(n)]\n",
    );
    r.commit("factories: a list comprehension");
    runPytestCov(r.dir, ["--cov=services/billing"]);
    // Before: "SHADOWED 2: only frozen tests cover it", exit 1, for a test helper.
    const { status, stderr, report } = auditJson(r);
    expect(stderr).toBe("");
    expect(report?.skipped).toEqual([
      { path: "services/billing/tests/factories.py", reason: "test-file" },
    ]);
    expect(report?.files).toEqual([]);
    expect(status).toBe(0);
  });

  it("editing pyproject's addopts beside its --cov options is no coverage change", () => {
    const r = repo();
    const pyproject = (addopts: string) =>
      `[tool.pytest.ini_options]\naddopts = "${addopts}"\n\n[tool.coverage.run]\nrelative_files = true\n`;
    r.write("pyproject.toml", pyproject("--cov=mdtools --cov-context=test"));
    r.write("mdtools/__init__.py", "");
    r.write(
      "mdtools/heading.py",
      "def level(line):\n    return len(line) - len(line.lstrip('#'))\n",
    );
    r.write("scripts/release.py", "def tag(v):\n    return 'v' + v\n");
    r.write(
      "tests/test_heading.py",
      "from mdtools.heading import level\n\n\ndef test_level():\n    assert level('## a') == 2\n",
    );
    r.write("quarantine.json", JSON.stringify({ frozen: [] }));
    r.commit("base");
    r.git("branch", "base");
    r.write(
      "pyproject.toml",
      pyproject("-ra --strict-markers --cov=mdtools --cov-context=test --cov-report=xml"),
    );
    r.write("scripts/release.py", "def tag(v):\n    return 'v' + v.strip()\n");
    r.commit("stricter pytest, an XML report, and a release script fix");
    runPytestCov(r.dir, ["--cov-report="]);
    // Before: exit 2, "the patch changes coverage.py's configuration ... the change may have
    // taken it out", for report options and a script no test ever measured.
    const { status, stderr, report } = auditJson(r);
    expect(stderr).toBe("");
    expect(report?.files.map((f) => [f.path, f.lines.map((l) => l.verdict)])).toEqual([
      ["scripts/release.py", ["unmeasured"]],
    ]);
    expect(status).toBe(0);
  });

  it("`import pkg` of an empty __init__.py does not import pkg's CLI module", () => {
    const r = repo();
    r.write("tool/__init__.py", "");
    r.write(
      "tool/cli.py",
      'import sys\n\n\ndef main():\n    print(" ".join(sys.argv[1:]).upper())\n\n\nif __name__ == "__main__":\n    main()\n',
    );
    r.write(
      "tests/test_cli.py",
      [
        "import os",
        "import subprocess",
        "import sys",
        "",
        "import tool",
        "",
        'CLI = os.path.join(os.path.dirname(tool.__file__), "cli.py")',
        "",
        "",
        "def test_cli():",
        '    env = {"PATH": os.environ["PATH"]}',
        '    run = subprocess.run([sys.executable, CLI, "a", "b"], capture_output=True, text=True, env=env)',
        '    assert run.stdout.strip() == "A B"',
        "",
      ].join("\n"),
    );
    r.write("quarantine.json", JSON.stringify({ frozen: [] }));
    r.commit("base");
    r.git("branch", "base");
    r.write(
      "tool/cli.py",
      'import sys\n\n\ndef main():\n    print(" ".join(a.upper() for a in sys.argv[1:]))\n\n\nif __name__ == "__main__":\n    main()\n',
    );
    r.commit("upper-case each word");
    // --cov=. with a terminal report: coverage.py adds the source files no line of which ran.
    pytestCovDot(r);
    // Before: exit 2, "holds tool/cli.py without a single executed line, though
    // tests/test_cli.py, which ran, imports it" (an installed copy), for honest data.
    const { status, stderr, report } = auditJson(r);
    expect(stderr).toBe("");
    expect(report?.files.map((f) => [f.path, f.lines])).toEqual([
      ["tool/cli.py", [expect.objectContaining({ line: 5, verdict: "uncovered" })]],
    ]);
    expect(status).toBe(0);

    // A package __init__.py with code that the coverage config omits (omit = */__init__.py)
    // says nothing either way: no refusal.
    // Its docstring names the CLI, which loads nothing.
    // Nor does a deprecation __getattr__ or pkgutil's namespace line.
    r.write(
      "tool/__init__.py",
      '"""The tool and its cli."""\nimport warnings\n\n__path__ = __import__("pkgutil").extend_path(__path__, __name__)\n__version__ = "1.0"\n\n\ndef __getattr__(name):\n    warnings.warn(f"{name} is gone", DeprecationWarning)\n    raise AttributeError(name)\n',
    );
    r.write(".coveragerc", "[run]\nomit = */__init__.py\n");
    r.commit("a version; the template's omit");
    r.git("branch", "-f", "base", "HEAD");
    r.write(
      "tool/cli.py",
      'import sys\n\n\ndef main():\n    print(" ".join(a.title() for a in sys.argv[1:]))\n\n\nif __name__ == "__main__":\n    main()\n',
    );
    r.commit("title-case each word");
    pytestCovDot(r);
    const omitted = auditJson(r);
    expect(omitted.stderr).toBe("");
    expect(omitted.report?.files.map((f) => [f.path, f.lines.map((l) => l.verdict)])).toEqual([
      ["tool/cli.py", ["uncovered"]],
    ]);
    expect(omitted.status).toBe(0);
    // (.gitignore's .coverage* keeps the rc file out of git: the run's own setting.)
    r.remove(".coveragerc");

    // An __init__.py that imports the module makes `import tool` load it: refused again.
    r.write("tool/__init__.py", "# the package\n");
    r.commit("a comment in the package");
    r.git("branch", "-f", "base", "HEAD~1");
    r.write("tool/__init__.py", "from . import cli\n");
    r.commit("the package imports its CLI");
    pytestCovDot(r);
    // tool/__init__.py ran now, so the package ran from the checkout: no refusal either.
    expect(auditJson(r).status).toBe(0);
  });

  it("a comment-only module or __init__.py a test imports is no sign of an installed copy", () => {
    // Coverage.py records a module without statements as line 0, which doctor read
    // as "held without a single executed line" and blamed an installed package; the audit
    // passed the same inputs.
    const r = repo();
    r.write("settings.py", "# Settings placeholder.\n# Nothing here yet.\n");
    r.write("quarantine.json", '{"frozen": []}\n');
    r.write("pkg/__init__.py", "");
    r.write("pkg/sub/__init__.py", "");
    r.write("pkg/sub/mod.py", "def f():\n    return 1\n");
    r.write(
      "tests/test_m.py",
      "import settings\nfrom pkg.sub.mod import f\n\n\ndef test_f():\n    assert f() == 1\n",
    );
    r.commit("base");
    r.git("branch", "base");
    r.write("settings.py", "# Settings placeholder.\n# Nothing here yet; see docs.\n");
    r.write("pkg/__init__.py", "# SPDX-License-Identifier: MIT\n");
    r.write("pkg/sub/__init__.py", '"""The sub-package."""\n');
    r.commit("licence headers and notes");
    pytestCovDot(r);
    const doctor = runCli(["doctor", "--base", "base"], { cwd: r.dir });
    expect(doctor.stderr).toBe("");
    expect(doctor.stdout).not.toContain("FAIL");
    expect(doctor.status).toBe(0);
    const audit = auditJson(r);
    expect(audit.stderr).toBe("");
    expect(audit.report?.files.map((f) => [f.path, f.lines.map((l) => l.verdict)])).toEqual([
      ["pkg/__init__.py", ["not-code"]],
      ["pkg/sub/__init__.py", ["not-code"]],
      ["settings.py", ["not-code"]],
    ]);
    expect(audit.status).toBe(0);
  });
});
