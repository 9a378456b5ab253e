// `freezegate init pytest`: the built CLI on temporary projects, one per kind of pytest
// configuration file. Every edit is then read back by real pytest (Debian's python3 with the
// plugin from integrations/pytest on PYTHONPATH): the plugin must load from the edited file
// and the project's own options must still apply.

import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { ShlexError, shlexSplit } from "../../src/core/shlex.js";
import { loadsPlugin, wireIni, wirePyproject } from "../../src/runners/pytest/plugin-wiring.js";
import { expectOneLineError, expectRefusal, REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeTempRepo, runGit, type TempRepo } from "../helpers/git-repo.js";
import { describePython, makeTempDir, runPython } from "../helpers/python.js";

const PLUGIN_DIR = join(REPO_ROOT, "integrations/pytest");
const INSTALL_LINE = `  pip install ${PLUGIN_DIR}`;

const repos: TempRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
});

function project(files: Record<string, string>): TempRepo {
  const repo = makeTempRepo();
  repos.push(repo);
  for (const [path, content] of Object.entries(files)) repo.write(path, content);
  return repo;
}

function init(repo: TempRepo, ...args: string[]) {
  return runCli(["init", "pytest", ...args], { cwd: repo.dir });
}

const read = (repo: TempRepo, path: string) => readFileSync(repo.path(path), "utf8");

/** Every file in the work tree (minus .git), with contents: what a dry run must not change. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (rel: string) => {
    for (const entry of readdirSync(join(dir, rel), { withFileTypes: true })) {
      const path = rel ? `${rel}/${entry.name}` : entry.name;
      if (entry.name === ".git") continue;
      if (entry.isDirectory()) walk(path);
      else out[path] = readFileSync(join(dir, path), "utf8");
    }
  };
  walk("");
  return out;
}

interface Case {
  name: string;
  files: Record<string, string>;
  /** The file init must change, and what it must contain afterwards. */
  file: string;
  expected: string;
  /** The lines the output shows ("path:N: text"). */
  shown: string[];
  /** An option of the project's own that pytest must still apply (checked with real pytest). */
  keeps?: string;
}

const CASES: Case[] = [
  {
    name: "no configuration: creates pytest.ini",
    files: { "tests/test_a.py": "def test_a():\n    pass\n" },
    file: "pytest.ini",
    expected: "[pytest]\naddopts = -p freezegate_pytest\n",
    shown: ["  [pytest]", "  addopts = -p freezegate_pytest"],
  },
  {
    name: "pytest.ini with a one-line addopts",
    files: {
      "pytest.ini":
        "# our settings\n[pytest]\naddopts = -ra --strict-markers\nmarkers =\n    slow: slow tests\n",
    },
    file: "pytest.ini",
    expected:
      "# our settings\n[pytest]\naddopts = -ra --strict-markers -p freezegate_pytest\nmarkers =\n    slow: slow tests\n",
    shown: ["  pytest.ini:3: addopts = -ra --strict-markers -p freezegate_pytest"],
    keeps: "--strict-markers",
  },
  {
    name: "pytest.ini with a multi-line addopts and CRLF line ends",
    files: {
      "pytest.ini":
        "[pytest]\r\naddopts =\r\n    -ra\r\n    --strict-markers\r\n\r\n[other]\r\nx = 1\r\n",
    },
    file: "pytest.ini",
    expected:
      "[pytest]\r\naddopts =\r\n    -ra\r\n    --strict-markers\r\n    -p freezegate_pytest\r\n\r\n[other]\r\nx = 1\r\n",
    shown: ["  pytest.ini:5:     -p freezegate_pytest"],
    keeps: "--strict-markers",
  },
  {
    name: "pytest.ini without a [pytest] section (pytest still uses it)",
    files: { "pytest.ini": "[other]\nx = 1" },
    file: "pytest.ini",
    expected: "[other]\nx = 1\n\n[pytest]\naddopts = -p freezegate_pytest\n",
    shown: ["  pytest.ini:5: addopts = -p freezegate_pytest"],
  },
  {
    name: "pyproject.toml with a string addopts",
    files: {
      "pyproject.toml":
        '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-ra --strict-markers"  # keep\ntestpaths = ["tests"]\n',
    },
    file: "pyproject.toml",
    expected:
      '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-ra --strict-markers -p freezegate_pytest"  # keep\ntestpaths = ["tests"]\n',
    shown: ['  pyproject.toml:5: addopts = "-ra --strict-markers -p freezegate_pytest"  # keep'],
    keeps: "--strict-markers",
  },
  {
    name: "pyproject.toml with a multi-line array addopts",
    files: {
      "pyproject.toml":
        '[tool.pytest.ini_options]\naddopts = [\n    "-ra",  # report all\n    "--strict-markers",\n]\n\n[tool.other]\nmatrix = [\n[1, 2]]\n',
    },
    file: "pyproject.toml",
    expected:
      '[tool.pytest.ini_options]\naddopts = [\n    "-ra",  # report all\n    "--strict-markers",\n    "-p", "freezegate_pytest",\n]\n\n[tool.other]\nmatrix = [\n[1, 2]]\n',
    shown: ['  pyproject.toml:5:     "-p", "freezegate_pytest",'],
    keeps: "--strict-markers",
  },
  {
    name: "pyproject.toml with a one-line array and no trailing comma",
    files: { "pyproject.toml": "[tool.pytest.ini_options]\naddopts = ['--strict-markers']\n" },
    file: "pyproject.toml",
    expected:
      '[tool.pytest.ini_options]\naddopts = [\'--strict-markers\', "-p", "freezegate_pytest"]\n',
    shown: ['  pyproject.toml:2: addopts = [\'--strict-markers\', "-p", "freezegate_pytest"]'],
    keeps: "--strict-markers",
  },
  {
    name: "pyproject.toml table without addopts",
    files: { "pyproject.toml": '[tool.pytest.ini_options]\nminversion = "7.0"\n' },
    file: "pyproject.toml",
    expected: '[tool.pytest.ini_options]\naddopts = "-p freezegate_pytest"\nminversion = "7.0"\n',
    shown: ['  pyproject.toml:2: addopts = "-p freezegate_pytest"'],
  },
  {
    name: "pyproject.toml without the pytest table: pytest does not use it, pytest.ini is created",
    files: { "pyproject.toml": '[project]\nname = "x"\n' },
    file: "pytest.ini",
    expected: "[pytest]\naddopts = -p freezegate_pytest\n",
    shown: ["  [pytest]"],
  },
  {
    name: "tox.ini with [pytest]",
    files: { "tox.ini": "[tox]\nenvlist = py311\n\n[pytest]\ntestpaths = tests\n" },
    file: "tox.ini",
    expected:
      "[tox]\nenvlist = py311\n\n[pytest]\naddopts = -p freezegate_pytest\ntestpaths = tests\n",
    shown: ["  tox.ini:5: addopts = -p freezegate_pytest"],
  },
  {
    name: "setup.cfg with [tool:pytest] (tox.ini without [pytest] is skipped, as pytest does)",
    files: {
      "tox.ini": "[tox]\nenvlist = py311\n",
      "setup.cfg": "[metadata]\nname = x\n\n[tool:pytest]\naddopts: --strict-markers\n",
    },
    file: "setup.cfg",
    expected:
      "[metadata]\nname = x\n\n[tool:pytest]\naddopts: --strict-markers -p freezegate_pytest\n",
    shown: ["  setup.cfg:5: addopts: --strict-markers -p freezegate_pytest"],
    keeps: "--strict-markers",
  },
  {
    name: "pytest.ini wins over pyproject.toml in the same directory",
    files: {
      "pytest.ini": "[pytest]\n",
      "pyproject.toml": '[tool.pytest.ini_options]\naddopts = "-ra"\n',
    },
    file: "pytest.ini",
    expected: "[pytest]\naddopts = -p freezegate_pytest\n",
    shown: ["  pytest.ini:2: addopts = -p freezegate_pytest"],
  },
];

describe("freezegate init pytest", () => {
  for (const c of CASES) {
    it(`${c.name}`, () => {
      const repo = project(c.files);
      const before = snapshot(repo.dir);
      const dry = init(repo, "--dry-run");
      expect(dry.status, dry.stderr).toBe(0);
      expect(dry.stdout).toContain("(dry run: nothing was written)");
      // The outputs are ignored, not the directory: the ledger may live in .freezegate/.
      expect(dry.stdout).toContain(
        "(add those two files to\n.gitignore, not the directory if the ledger lives there",
      );
      expect(snapshot(repo.dir)).toEqual(before);

      const result = init(repo);
      expect(result.status, result.stderr).toBe(0);
      expect(read(repo, c.file)).toBe(c.expected);
      const lines = result.stdout.split("\n");
      expect(lines[0]).toMatch(
        c.file === "pytest.ini" && !c.files["pytest.ini"]
          ? /^created pytest.ini \(pytest found no configuration here\):$/
          : new RegExp(
              `^added "-p freezegate_pytest" to \\[[^\\]]+\\] addopts in ${c.file.replace(".", "\\.")}:$`,
            ),
      );
      for (const shown of c.shown) expect(lines).toContain(shown);
      expect(lines).toContain(INSTALL_LINE);
      // Only the one file changed, and no temporary file was left next to it.
      const after = snapshot(repo.dir);
      const changed = Object.keys(after).filter((p) => after[p] !== before[p]);
      expect(changed).toEqual([c.file]);

      const again = init(repo);
      expect(again.status).toBe(0);
      expect(again.stdout.split("\n")[0]).toMatch(
        new RegExp(
          `^${c.file.replace(".", "\\.")} already loads the plugin \\(.+ addopts has -p freezegate_pytest\\); nothing changed$`,
        ),
      );
      expect(snapshot(repo.dir)).toEqual(after);
    });
  }

  it("edits the file pytest finds in a parent directory, within the repository", () => {
    const repo = project({
      "pytest.ini": "[pytest]\naddopts = -ra\n",
      "services/api/test_a.py": "",
    });
    const result = runCli(["init", "pytest", "-C", "services/api"], { cwd: repo.dir });
    expect(result.status, result.stderr).toBe(0);
    expect(read(repo, "pytest.ini")).toBe("[pytest]\naddopts = -ra -p freezegate_pytest\n");
    expect(existsSync(repo.path("services/api/pytest.ini"))).toBe(false);
    // Run from the subdirectory itself, the file is shown relative to it.
    const again = runCli(["init", "pytest"], { cwd: repo.path("services/api") });
    expect(again.stdout).toMatch(/^\.\.\/\.\.\/pytest\.ini already loads the plugin/);
  });

  it("does not edit a configuration above the repository: creates pytest.ini instead", () => {
    const outer = makeTempDir("init-outer");
    writeFileSync(join(outer, "pytest.ini"), "[pytest]\naddopts = -ra\n");
    const inner = join(outer, "repo");
    mkdirSync(inner);
    runGit(inner, ["init", "-q"]);
    const result = runCli(["init", "pytest"], { cwd: inner });
    expect(result.status, result.stderr).toBe(0);
    expect(readFileSync(join(inner, "pytest.ini"), "utf8")).toBe(
      "[pytest]\naddopts = -p freezegate_pytest\n",
    );
    expect(readFileSync(join(outer, "pytest.ini"), "utf8")).toBe("[pytest]\naddopts = -ra\n");
  });

  it("works outside a git work tree (only the directory is searched)", () => {
    const dir = makeTempDir("init-nogit");
    const result = runCli(["init", "pytest"], {
      cwd: dir,
      env: { GIT_CEILING_DIRECTORIES: join(dir, "..") },
    });
    expect(result.status, result.stderr).toBe(0);
    expect(readFileSync(join(dir, "pytest.ini"), "utf8")).toBe(
      "[pytest]\naddopts = -p freezegate_pytest\n",
    );
  });

  it.each([
    [
      { "pytest.ini": "[pytest]\naddopts = -p no:freezegate_pytest\n" },
      "plugin-switched-off",
      "[pytest] in pytest.ini switches the plugin off (its addopts has -p no:freezegate_pytest) (fix: remove -p no:freezegate_pytest from addopts first)",
    ],
    [
      { "pyproject.toml": "[tool.pytest.ini_options\naddopts = 1\n" },
      "pytest-config-unreadable",
      "pyproject.toml: not valid TOML",
    ],
    [
      { "pyproject.toml": "[tool.pytest.ini_options]\naddopts = 3\n" },
      "pytest-addopts-unreadable",
      "addopts is neither a string nor a list of strings",
    ],
    [
      { "pyproject.toml": '[tool.pytest]\nini_options = { addopts = "-ra" }\n' },
      "init-cannot-edit",
      "cannot edit pyproject.toml safely: its pytest settings are not written as a [tool.pytest.ini_options] table header; nothing was written (fix: add -p freezegate_pytest to addopts by hand)",
    ],
    [
      { "pytest.ini": "addopts = -ra\n" },
      "pytest-config-unreadable",
      "pytest.ini:1: no section header defined",
    ],
    [
      { "pytest.ini": "[pytest]\naddopts = -ra\naddopts = -q\n" },
      "pytest-config-unreadable",
      'pytest.ini:3: duplicate name "addopts"',
    ],
    [
      { "pytest.ini": '[pytest]\naddopts = "-ra\n' },
      "pytest-addopts-unreadable",
      "pytest.ini: addopts has no closing quotation",
    ],
    [
      { "setup.cfg": "[pytest]\naddopts = -ra\n" },
      "setup-cfg-pytest-section",
      "setup.cfg has a [pytest] section, which pytest refuses in setup.cfg",
    ],
    // pytest 9's TOML configuration: a new pytest.ini would have replaced it.
    [
      { "pyproject.toml": '[tool.pytest]\naddopts = ["-ra"]\ntestpaths = ["tests"]\n' },
      "init-pytest-toml",
      `pyproject.toml [tool.pytest] is pytest 9's TOML configuration, which freezegate init does not edit (a pytest.ini beside it would replace it) (fix: add "-p", "freezegate_pytest" to its addopts list yourself, then run pytest with the plugin installed)`,
    ],
    [
      { "pytest.toml": '[pytest]\naddopts = ["-ra"]\n' },
      "init-pytest-toml",
      "pytest.toml is pytest 9's TOML configuration, which freezegate init does not edit",
    ],
    [
      { ".pytest.toml": '[pytest]\naddopts = ["-ra"]\n', "tox.ini": "[pytest]\naddopts = -ra\n" },
      "init-pytest-toml",
      ".pytest.toml is pytest 9's TOML configuration",
    ],
  ])("refuses what it cannot edit safely, writing nothing (%#)", (files, code, message) => {
    const repo = project(files as Record<string, string>);
    const before = snapshot(repo.dir);
    const line = expectRefusal(init(repo), code);
    expect(line).toContain(message);
    expect(snapshot(repo.dir)).toEqual(before);
  });

  it("needs exactly the target pytest", () => {
    const repo = project({});
    expect(expectRefusal(runCli(["init"], { cwd: repo.dir }), "init-unknown-runner")).toMatch(
      /pytest or vitest/,
    );
    expect(
      expectRefusal(runCli(["init", "jest"], { cwd: repo.dir }), "init-unknown-runner"),
    ).toMatch(/not "jest"/);
    expect(expectOneLineError(runCli(["init", "pytest", "--force"], { cwd: repo.dir }))).toContain(
      "--force",
    );
  });
});

describe("the edit functions", () => {
  it("split addopts as Python's shlex.split does", () => {
    expect(shlexSplit(`-ra -k "a and b" -m 'not slow' x\\ y "q\\"t"`)).toEqual([
      "-ra",
      "-k",
      "a and b",
      "-m",
      "not slow",
      "x y",
      'q"t',
    ]);
    expect(shlexSplit('"a\\nb"')).toEqual(["a\\nb"]);
    expect(() => shlexSplit("'open")).toThrow(ShlexError);
  });

  it("recognise the plugin in every spelling pytest accepts", () => {
    expect(loadsPlugin(["-ra", "-p", "freezegate_pytest"])).toBe("loads");
    expect(loadsPlugin(["-pfreezegate_pytest"])).toBe("loads");
    expect(loadsPlugin(["-p", "freezegate_pytest", "-p", "no:freezegate_pytest"])).toBe("blocks");
    expect(loadsPlugin(["-p", "xdist", "freezegate_pytest"])).toBe("absent");
  });

  it("keep a multi-line basic string intact", () => {
    const text = '[tool.pytest.ini_options]\naddopts = """\n-ra\n"""\n';
    const result = wirePyproject(text, "pyproject.toml");
    expect(result.kind).toBe("edited");
    if (result.kind === "edited") {
      expect(result.text).toBe(
        '[tool.pytest.ini_options]\naddopts = """\n-ra\n -p freezegate_pytest"""\n',
      );
    }
  });

  it("leave every other section and key exactly as it was", () => {
    const text = "[a]\nk = v\n  continued\n[pytest]\n; comment\naddopts = -q\n[b]\nk: w\n";
    const result = wireIni(text, "pytest.ini", "pytest.ini");
    expect(result.kind === "edited" && result.text).toBe(
      "[a]\nk = v\n  continued\n[pytest]\n; comment\naddopts = -q -p freezegate_pytest\n[b]\nk: w\n",
    );
  });
});

describePython("the edited files, read by real pytest", () => {
  for (const c of CASES) {
    it(`${c.name}: pytest loads the plugin${c.keeps ? ` and keeps ${c.keeps}` : ""}`, () => {
      const repo = project({
        ...c.files,
        "tests/test_a.py": "import pytest\n\n@pytest.mark.unregistered\ndef test_a():\n    pass\n",
      });
      expect(init(repo).status).toBe(0);
      const result = runPython(["-m", "pytest", "-p", "no:cacheprovider", "tests"], {
        cwd: repo.dir,
        env: { PYTHONPATH: PLUGIN_DIR },
      });
      const output = result.stdout + result.stderr;
      expect(output).toContain("freezegate: inactive: no ledger at freeze-ledger.json");
      if (c.keeps === "--strict-markers") {
        // The project's own option still applies: the unregistered marker is an error.
        expect(result.status, output).not.toBe(0);
        expect(output).toContain("'unregistered' not found in `markers` configuration option");
      } else {
        expect(result.status, output).toBe(0);
      }
    });
  }

  it("without the plugin installed, pytest stops instead of ignoring the ledger", () => {
    const repo = project({ "tests/test_a.py": "def test_a():\n    pass\n" });
    expect(init(repo).status).toBe(0);
    const result = runPython(["-m", "pytest", "-p", "no:cacheprovider", "tests"], {
      cwd: repo.dir,
    });
    expect(result.status).not.toBe(0);
    expect(result.stdout + result.stderr).toContain('Error importing plugin "freezegate_pytest"');
  });
});
