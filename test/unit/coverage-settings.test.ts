import { describe, expect, it } from "vitest";
import {
  coverageExclusion,
  coverageSettingsIn,
  mayConfigureCoverage,
} from "../../src/runners/pytest/coverage-settings.js";

describe("coverageSettingsIn: the text that selects what coverage.py measures", () => {
  it("keeps a run section's selecting keys and the paths section of an ini file", () => {
    const text = [
      "[run]",
      "source = pkg",
      "branch = true",
      "omit =",
      "    pkg/generated/*",
      "[report]",
      "fail_under = 90",
      "[paths]",
      "source =",
      "    src/",
    ].join("\n");
    expect(coverageSettingsIn(".coveragerc", text)).toBe(
      [
        "[run] source = pkg",
        "[run] omit =",
        "[run] pkg/generated/*",
        "[paths] source =",
        "[paths] src/",
      ].join("\n"),
    );
  });

  it("says nothing for report-only settings, so editing them is no coverage change", () => {
    expect(coverageSettingsIn("setup.cfg", "[coverage:report]\nfail_under = 80\n")).toBeNull();
    expect(coverageSettingsIn("setup.cfg", null)).toBeNull();
  });

  it("reads pytest-cov's --cov options out of addopts, with their values", () => {
    const text = "[pytest]\naddopts = -q --cov pkg --cov-context=test -x\n";
    expect(coverageSettingsIn("pytest.ini", text)).toBe("[pytest] --cov pkg");
  });

  it("leaves out pytest-cov's report options, which take no file out of the data", () => {
    const reportOnly =
      "[pytest]\naddopts = -q --cov-report=xml --cov-report term --cov-fail-under=80 --cov-branch --cov-context=test --no-cov-on-fail\n";
    expect(coverageSettingsIn("pytest.ini", reportOnly)).toBeNull();
    const selecting = "[pytest]\naddopts = --cov-config=ci/cov.rc --no-cov --cov-report=xml\n";
    expect(coverageSettingsIn("pytest.ini", selecting)).toBe(
      "[pytest] --cov-config=ci/cov.rc --no-cov",
    );
  });

  it("reads only the --cov options of a TOML addopts, as a string, a list or pytest 9's table", () => {
    const of = (addopts: string, table = "tool.pytest.ini_options") =>
      coverageSettingsIn("pyproject.toml", `[${table}]\naddopts = ${addopts}\n`);
    const before = of('"--cov=mdtools --cov-context=test"');
    expect(before).toBe(JSON.stringify({ run: null, paths: null, addopts: "--cov=mdtools" }));
    expect(of('"-ra --strict-markers --cov=mdtools --cov-context=test --cov-report=xml"')).toBe(
      before,
    );
    expect(of('["--cov", "mdtools", "-ra"]')).toBe(
      JSON.stringify({ run: null, paths: null, addopts: "--cov mdtools" }),
    );
    expect(of('["--cov=mdtools"]', "tool.pytest")).toBe(before);
    expect(of('"--cov=other"')).not.toBe(before);
    expect(of('"-ra --cov-report=xml"')).toBeNull();
  });

  it("reads --cov wherever a TOML file holds it: pytest.toml, tox.toml, legacy_tox_ini", () => {
    const narrowed = (from: string, to: string) => [
      coverageSettingsIn("pytest.toml", from),
      coverageSettingsIn("pytest.toml", to),
    ];
    const [a, b] = narrowed(
      '[pytest]\naddopts = ["--cov=app", "-ra"]\n',
      '[pytest]\naddopts = ["--cov=app.core", "-ra"]\n',
    );
    expect(a).not.toBeNull();
    expect(a).not.toBe(b);
    const tox = (cov: string) =>
      coverageSettingsIn("tox.toml", `[env_run_base]\ncommands = [["pytest", "${cov}"]]\n`);
    expect(tox("--cov=app")).not.toBe(tox("--cov=app.core"));
    const legacy = (cov: string) =>
      coverageSettingsIn(
        "pyproject.toml",
        `[tool.tox]\nlegacy_tox_ini = """\n[testenv]\ncommands = pytest ${cov}\n"""\n`,
      );
    expect(legacy("--cov=app")).not.toBe(legacy("--cov=app.core"));
    expect(legacy("-q")).toBeNull();
  });

  it("reads command lines only, once each: a task runner's or a description's --cov is none", () => {
    const base = '[tool.pytest.ini_options]\naddopts = "--cov=app --cov-context=test"\n';
    const before = coverageSettingsIn("pyproject.toml", base);
    const withTask = `${base}\n[tool.poe.tasks]\ncov = "pytest --cov=app --cov-report=html"\n\n[project]\ndescription = "run it with --cov=app"\n`;
    expect(coverageSettingsIn("pyproject.toml", withTask)).toBe(before);
    const repeated = '[tool.pytest.ini_options]\naddopts = "--cov=app --cov=app"\n';
    expect(coverageSettingsIn("pyproject.toml", repeated)).toBe(before);
    // A hatch script that runs the tests is read: dropping its --cov is a change.
    const hatch = (cmd: string) =>
      coverageSettingsIn("pyproject.toml", `[tool.hatch.envs.default.scripts]\ntest = "${cmd}"\n`);
    expect(hatch("pytest --cov=billing")).not.toBe(hatch("pytest"));
  });

  it("joins an ini value's continuation lines: --cov on one line, its value on the next", () => {
    const ini = (source: string) =>
      coverageSettingsIn("pytest.ini", `[pytest]\naddopts =\n    --cov\n    ${source}\n    -ra\n`);
    expect(ini("app")).toBe("[pytest] --cov app");
    expect(ini("app.core")).toBe("[pytest] --cov app.core");
  });

  it("reads TOML as data: formatting alone does not change the result", () => {
    const a = '[tool.coverage.run]\nsource = ["pkg"]\nbranch = true\n';
    const b = '[tool.coverage.run]\nbranch=true\nsource=[ "pkg" ]\n';
    expect(coverageSettingsIn("pyproject.toml", a)).toBe(coverageSettingsIn("pyproject.toml", b));
    expect(coverageSettingsIn("pyproject.toml", a)).not.toBeNull();
    expect(
      coverageSettingsIn("pyproject.toml", "[tool.coverage.report]\nshow_missing = true\n"),
    ).toBeNull();
  });

  it("takes [DEFAULT] keys only from a file coverage.py reads as its own", () => {
    expect(coverageSettingsIn("app.ini", "[DEFAULT]\nsource = db\n")).toBeNull();
    expect(coverageSettingsIn("cov.ini", "[DEFAULT]\nsource = db\n[run]\nbranch = true\n")).toBe(
      "[DEFAULT] source = db",
    );
  });
});

describe("mayConfigureCoverage", () => {
  const measured = new Set(["services/api"]);

  it.each([
    ["setup.cfg", true],
    ["services/api/setup.cfg", true],
    ["docs/example/setup.cfg", false],
    ["ci/coverage-ci.rc", true],
    ["conf/settings.toml", true],
    ["src/pkg/data.json", false],
  ])("%s -> %s", (path, expected) => {
    expect(mayConfigureCoverage(path, "", measured)).toBe(expected);
  });
});

describe("coverageExclusion: what coverage.py's report excludes", () => {
  const files = (map: Record<string, string>) => (name: string) => map[name] ?? null;
  it("is the default pragma without a configuration that sets exclude_lines", () => {
    const re = coverageExclusion(files({ "setup.cfg": "[metadata]\nname = x\n" }));
    expect(re?.test("x = 1  # pragma: no cover")).toBe(true);
    expect(re?.test("if TYPE_CHECKING:")).toBe(false);
  });

  it("is the configured list, which replaces the default (ini, indented comments aside, and TOML)", () => {
    const ini = coverageExclusion(
      files({
        ".coveragerc":
          "[report]\nexclude_lines =\n    # the default, kept:\n    pragma: no cover\n    if TYPE_CHECKING:\n",
      }),
    );
    expect(ini?.test("x = 1  # pragma: no cover")).toBe(true);
    expect(ini?.test("if TYPE_CHECKING:")).toBe(true);
    const without = coverageExclusion(
      files({ "tox.ini": "[coverage:report]\nexclude_lines =\n    raise NotImplementedError\n" }),
    );
    expect(without?.test("x = 1  # pragma: no cover")).toBe(false);
    const toml = coverageExclusion(
      files({
        "pyproject.toml":
          '[tool.coverage.report]\nexclude_lines = ["^\\\\s*raise NotImplementedError"]\n',
      }),
    );
    expect(toml?.test("    raise NotImplementedError")).toBe(true);
    expect(toml?.test("x  # pragma: no cover")).toBe(false);
  });

  it("is null for a pattern JavaScript cannot read: nothing is excluded then", () => {
    expect(
      coverageExclusion(files({ ".coveragerc": "[report]\nexclude_lines =\n    (?P<x>a\n" })),
    ).toBeNull();
  });
});
