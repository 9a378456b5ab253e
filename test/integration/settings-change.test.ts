// A patch cannot loosen the settings it is judged by: when it changes the repository's config,
// the audit reads the config at the patch's base too and judges by the stricter of both (every
// fail-on verdict of either; a test file only when both say so; a source file when either
// does), and says so on stderr. The built CLI on the bundled example (real git, real
// pytest-cov data committed with it).

import { appendFileSync, copyFileSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import type { TempRepo } from "../helpers/git-repo.js";

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

function demo(): TempRepo {
  const r = makeDemoRepo();
  repos.push(r);
  writeFileSync(join(r.dir, "empty.json"), '{"frozen": []}\n');
  return r;
}

function commitConfig(r: TempRepo, text: string | null, message = "config"): void {
  if (text === null) r.git("rm", "-q", "pyproject.toml");
  else {
    r.write("pyproject.toml", text);
    r.git("add", "pyproject.toml");
  }
  r.git("commit", "-q", "-m", message);
}

const noteFor = (keys: string, at: string) =>
  `freezegate: note: the patch changes ${keys} in the repository's config; it is judged by the stricter of its settings and those at ${at}\n`;

describe("a patch that changes the config it is judged by", () => {
  it("cannot make its own source files test files (test-files)", () => {
    const r = demo();
    const before = runCli(["audit", "--base", "base", "-q"], { cwd: r.dir });
    expect(before.status).toBe(1);
    commitConfig(r, '[tool.freezegate]\ntest-files = ["tests/**", "src/**"]\n');
    const after = runCli(["audit", "--base", "base", "-q"], { cwd: r.dir });
    const base = r.git("merge-base", "base", "HEAD").trim().slice(0, 12);
    expect(after.stderr).toBe(noteFor("test-files", base));
    expect(after.stdout).toBe(before.stdout);
    expect(after.status).toBe(1);
  });

  it("cannot drop a fail-on verdict its base's config sets, unless a flag decides", () => {
    const r = demo();
    r.git("switch", "-q", "-c", "strict", "base");
    commitConfig(r, '[tool.freezegate]\nfail-on = ["uncovered"]\n', "strict base");
    r.git("switch", "-q", "-c", "loose", "main");
    r.git("merge", "-q", "--no-edit", "strict");
    const strict = runCli(["audit", "--base", "strict", "--frozen", "empty.json", "-q"], {
      cwd: r.dir,
    });
    expect(strict.stderr).toBe("");
    expect(strict.status).toBe(1);

    commitConfig(r, null, "drop the config");
    const loose = runCli(["audit", "--base", "strict", "--frozen", "empty.json"], {
      cwd: r.dir,
    });
    const base = r.git("merge-base", "strict", "HEAD").trim().slice(0, 12);
    expect(loose.stderr).toBe(noteFor("fail-on", base));
    expect(loose.stdout).toMatch(/^FAIL: 7 changed lines are executed by no test \(uncovered\)$/m);
    expect(loose.status).toBe(1);

    // The flag wins over both configs: nothing is loosened, nothing to note.
    const flagged = runCli(
      ["audit", "--base", "strict", "--frozen", "empty.json", "--fail-on", "uncovered", "-q"],
      { cwd: r.dir },
    );
    expect(flagged.stderr).toBe("");
    expect(flagged.status).toBe(1);
  });

  it("cannot drop its base's settings by moving the config file away", () => {
    const r = demo();
    r.git("switch", "-q", "-c", "strict", "base");
    commitConfig(r, '[tool.freezegate]\nfail-on = ["uncovered"]\n', "strict base");
    r.git("switch", "-q", "-c", "moved", "main");
    r.git("merge", "-q", "--no-edit", "strict");
    r.git("mv", "pyproject.toml", "tools.toml");
    r.git("commit", "-q", "-m", "move the config away");
    const run = runCli(["audit", "--base", "strict", "--frozen", "empty.json", "-q"], {
      cwd: r.dir,
    });
    const base = r.git("merge-base", "strict", "HEAD").trim().slice(0, 12);
    expect(run.stderr).toBe(noteFor("fail-on", base));
    expect(run.status).toBe(1);
  });

  it("cannot give a changed file another file's recording with a path-map rule", () => {
    const r = demo();
    const rule = "src/billing/__init__.py=src/billing/proration.py";
    commitConfig(r, `[tool.freezegate]\npath-map = ["${rule}"]\n`);
    expect(expectOneLineError(runCli(["audit", "--base", "base", "-q"], { cwd: r.dir }))).toBe(
      `freezegate: error[patch-changes-path-map]: the patch changes path-map (now ${rule}), and the new rules give the changed file src/billing/proration.py the data recorded as "src/billing/__init__.py" instead of "src/billing/proration.py" (fix: change path-map in a patch that changes no measured source file, or pass --path-map)`,
    );
    const doctor = runCli(["doctor", "--base", "base"], { cwd: r.dir });
    expect(doctor.stdout).toMatch(
      /^FAIL {2}freshness: error\[patch-changes-path-map\]: the patch changes path-map/m,
    );
    expect(doctor.status).toBe(2);
    // Given as a flag, the rule is the CI's word, and the base's rules do not count.
    const flag = runCli(["audit", "--base", "base", "-q", "--path-map", rule], { cwd: r.dir });
    expect(flag.stderr).toBe("");
    expect(flag.status).toBe(1);
  });

  it("a config change that loosens nothing the audit reads is judged as written, without a note", () => {
    const r = demo();
    commitConfig(r, '[tool.freezegate]\nfrozen = "quarantine.json"\n');
    const run = runCli(["audit", "--base", "base", "-q"], { cwd: r.dir });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(1);
  });
});

describe("a patch that changes coverage.py's configuration", () => {
  // Data as coverage.py writes it once an omit takes the changed file out: no rows for it.
  function withoutProration(r: TempRepo): void {
    copyFileSync(join(r.dir, ".coverage"), join(r.dir, "omitted.coverage"));
    const db = new DatabaseSync(join(r.dir, "omitted.coverage"));
    db.exec(
      "DELETE FROM line_bits WHERE file_id = 2; DELETE FROM arc WHERE file_id = 2; DELETE FROM tracer WHERE file_id = 2; DELETE FROM file WHERE id = 2;",
    );
    db.close();
  }

  it("is refused when a changed source file is then missing from the data", () => {
    const r = demo();
    withoutProration(r);
    // Another measured file changes too, so "no changed file is in the data" cannot fire.
    appendFileSync(join(r.dir, "src/billing/__init__.py"), "# billing\n");
    r.git("add", "src/billing/__init__.py");
    r.git("commit", "-q", "-m", "touch");
    const args = ["audit", "--base", "base", "--coverage", "omitted.coverage"];
    const unchanged = runCli(args, { cwd: r.dir });
    expect(unchanged.stdout).toMatch(/^src\/billing\/proration\.py: 9 unmeasured, 3 not-code$/m);
    expect(unchanged.status).toBe(0);

    const rc = readFileSync(join(r.dir, ".coveragerc"), "utf8");
    r.write(".coveragerc", `${rc}omit = src/billing/proration.py\n`);
    r.git("add", ".coveragerc");
    r.git("commit", "-q", "-m", "omit");
    const doctor = runCli(["doctor", "--base", "base", "--coverage", "omitted.coverage"], {
      cwd: r.dir,
    });
    expect(doctor.stdout).toMatch(
      /^FAIL {2}freshness: error\[patch-changes-coverage-config\]: the patch changes coverage\.py's configuration/m,
    );
    expect(doctor.status).toBe(2);
    expect(expectRefusal(runCli(args, { cwd: r.dir }), "patch-changes-coverage-config")).toBe(
      'the patch changes coverage.py\'s configuration (".coveragerc") and its changed source "src/billing/proration.py" is not in the coverage data: the change may have taken it out (fix: land the coverage configuration change in a patch of its own, or make the tests measure these files)',
    );
  });

  it("a coverage config under another name, or --cov options in pytest's addopts, count too", () => {
    const r = demo();
    withoutProration(r);
    appendFileSync(join(r.dir, "src/billing/__init__.py"), "# billing\n");
    r.write("ci/coverage.cfg", "[run]\nsource = src\nomit = src/billing/proration.py\n");
    r.write("pytest.ini", "[pytest]\naddopts = --cov-config=ci/coverage.cfg\n");
    r.git("add", "ci/coverage.cfg", "pytest.ini", "src/billing/__init__.py");
    r.git("commit", "-q", "-m", "coverage config elsewhere");
    expect(
      expectRefusal(
        runCli(["audit", "--base", "base", "--coverage", "omitted.coverage", "-q"], { cwd: r.dir }),
        "patch-changes-coverage-config",
      ),
    ).toBe(
      `the patch changes coverage.py's configuration ("ci/coverage.cfg", "pytest.ini") and its changed source "src/billing/proration.py" is not in the coverage data: the change may have taken it out (fix: land the coverage configuration change in a patch of its own, or make the tests measure these files)`,
    );
  });

  it("however the selecting setting is spelled or wherever its rc file lies", () => {
    for (const [path, text] of [
      [
        ".coveragerc",
        "[run]\nsource = src\nrelative_files = True\nOMIT = src/billing/proration.py\n",
      ],
      [".coveragerc", "[DEFAULT]\nomit = src/billing/proration.py\n[run]\nsource = src\n"],
      ["ci/.coveragerc", "[run]\nomit = src/billing/proration.py\n"],
      [".coveragerc-ci", "[run]\nomit = src/billing/proration.py\n"],
      ["src/setup.cfg", "[coverage:run]\nomit = src/billing/proration.py\n"],
    ] as const) {
      const r = demo();
      withoutProration(r);
      appendFileSync(join(r.dir, "src/billing/__init__.py"), "# billing\n");
      r.write(path, text);
      r.git("add", path, "src/billing/__init__.py");
      r.git("commit", "-q", "-m", `omit in ${path}`);
      expect(
        expectRefusal(
          runCli(["audit", "--base", "base", "--coverage", "omitted.coverage", "-q"], {
            cwd: r.dir,
          }),
          "patch-changes-coverage-config",
        ),
        path,
      ).toMatch(/^the patch changes coverage\.py's configuration/);
    }
  });

  it("report settings, and an example project's own config, are not such a change", () => {
    const r = demo();
    withoutProration(r);
    appendFileSync(join(r.dir, "src/billing/__init__.py"), "# billing\n");
    const rc = readFileSync(join(r.dir, ".coveragerc"), "utf8");
    r.write(".coveragerc", `${rc}\n[report]\nexclude_lines =\n    if TYPE_CHECKING:\n`);
    r.write("examples/demo/pyproject.toml", '[tool.coverage.run]\nomit = ["src/*"]\n');
    r.git("add", ".coveragerc", "examples/demo/pyproject.toml", "src/billing/__init__.py");
    r.git("commit", "-q", "-m", "report settings");
    const run = runCli(["audit", "--base", "base", "--coverage", "omitted.coverage", "-q"], {
      cwd: r.dir,
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);

    // An omit given on a continuation line of the run section is one.
    r.write(".coveragerc", `${rc}omit =\n    docs/*\n    src/billing/proration.py\n`);
    r.git("add", ".coveragerc");
    r.git("commit", "-q", "-m", "omit");
    expect(
      expectRefusal(
        runCli(["audit", "--base", "base", "--coverage", "omitted.coverage", "-q"], { cwd: r.dir }),
        "patch-changes-coverage-config",
      ),
    ).toMatch(/^the patch changes coverage\.py's configuration \("\.coveragerc"\)/);
  });

  it("another option on pytest-cov's addopts line, or an application ini's [DEFAULT], is not such a change", () => {
    const r = demo();
    withoutProration(r);
    r.git("switch", "-q", "-c", "b2", "base");
    r.write("pytest.ini", "[pytest]\naddopts = --cov=src\n");
    r.git("add", "pytest.ini");
    r.git("commit", "-q", "-m", "pytest-cov in addopts");
    r.git("switch", "-q", "main");
    r.git("merge", "-q", "--no-edit", "b2");
    appendFileSync(join(r.dir, "src/billing/__init__.py"), "# billing\n");
    r.write("pytest.ini", "[pytest]\naddopts = --cov=src --strict-markers\n");
    r.write("app.ini", "[DEFAULT]\nsource = billing-api\n[server]\nport = 8080\n");
    r.git("add", "pytest.ini", "app.ini", "src/billing/__init__.py");
    r.git("commit", "-q", "-m", "strict markers; an app config");
    const run = runCli(["audit", "--base", "b2", "--coverage", "omitted.coverage", "-q"], {
      cwd: r.dir,
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);
  });

  it("a pyproject.toml or setup.cfg change outside coverage's sections is not such a change", () => {
    const r = demo();
    withoutProration(r);
    appendFileSync(join(r.dir, "src/billing/__init__.py"), "# billing\n");
    r.write("setup.cfg", "[metadata]\nname = billing\n");
    r.write("pyproject.toml", '[project]\nname = "billing"\n');
    r.git("add", "setup.cfg", "pyproject.toml", "src/billing/__init__.py");
    r.git("commit", "-q", "-m", "packaging");
    const run = runCli(["audit", "--base", "base", "--coverage", "omitted.coverage", "-q"], {
      cwd: r.dir,
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(0);

    r.write(
      "setup.cfg",
      "[metadata]\nname = billing\n\n[coverage:run]\nomit = src/billing/proration.py\n",
    );
    r.git("add", "setup.cfg");
    r.git("commit", "-q", "-m", "omit in setup.cfg");
    expect(
      expectRefusal(
        runCli(["audit", "--base", "base", "--coverage", "omitted.coverage", "-q"], { cwd: r.dir }),
        "patch-changes-coverage-config",
      ),
    ).toMatch(/^the patch changes coverage\.py's configuration \("setup\.cfg"\)/);
  });
});
