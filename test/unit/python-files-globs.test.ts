import { describe, expect, it } from "vitest";
import {
  compileGlobs,
  DEFAULT_TEST_GLOBS,
  pythonFilesTestGlob,
  withPythonFiles,
} from "../../src/core/globs.js";
import { pytestPythonFiles, pythonFilesSetting } from "../../src/runners/pytest/pytest-config.js";

/** A reader of a directory holding `files`. */
const dir =
  (files: Record<string, string>) =>
  (name: string): string | null =>
    files[name] ?? null;

describe("python_files of the test root's pytest configuration", () => {
  it.each([
    // pytest.ini: the [pytest] section, the value split as shlex does, continuation lines too
    [
      { "pytest.ini": "[pytest]\npython_files = tests.py test_*.py *_tests.py\n" },
      ["tests.py", "test_*.py", "*_tests.py"],
    ],
    [
      { "pytest.ini": "[pytest]\npython_files =\n    tests.py\n    check_*.py\n" },
      ["tests.py", "check_*.py"],
    ],
    // pyproject: a TOML list as it is, a string split
    [
      { "pyproject.toml": '[tool.pytest.ini_options]\npython_files = ["check_*.py"]\n' },
      ["check_*.py"],
    ],
    [
      { "pyproject.toml": '[tool.pytest.ini_options]\npython_files = "tests.py test_*.py"\n' },
      ["tests.py", "test_*.py"],
    ],
    // setup.cfg and tox.ini: only their pytest sections
    [{ "setup.cfg": "[tool:pytest]\npython_files = tests.py\n" }, ["tests.py"]],
    [
      { "tox.ini": "[testenv]\ncommands = pytest -o python_files=*.py\n" },
      ["test_*.py", "*_test.py"],
    ],
    // addopts' -o wins over the ini value
    [
      { "pytest.ini": "[pytest]\naddopts = -o python_files=tests.py\npython_files = check_*.py\n" },
      ["tests.py"],
    ],
    // pytest.ini comes first, even without the setting
    [
      { "pytest.ini": "[pytest]\n", "setup.cfg": "[tool:pytest]\npython_files = tests.py\n" },
      ["test_*.py", "*_test.py"],
    ],
    // none: pytest's default
    [{}, ["test_*.py", "*_test.py"]],
    // only pytest 9 reads pytest.toml: the globs both read
    [{ "pytest.toml": '[pytest]\npython_files = ["tests.py", "test_*.py"]\n' }, ["test_*.py"]],
  ])("%j -> %j", (files, expected) => {
    expect(pytestPythonFiles(dir(files), "both")).toEqual(expected);
  });

  it("is null for a config file that cannot be read here", () => {
    expect(
      pytestPythonFiles(
        dir({ "pytest.ini": "[pytest]\npython_files = a\npython_files = b\n" }),
        "both",
      ),
    ).toBeNull();
    expect(
      pytestPythonFiles(dir({ "pyproject.toml": "[tool.pytest.ini_options\n" }), "both"),
    ).toBeNull();
    expect(() => pythonFilesSetting({ python_files: 3 })).toThrow();
    expect(() => pythonFilesSetting({ addopts: "-o 'python_files=a" })).toThrow();
  });

  it.each([
    ["tests.py", "tests.py"],
    ["check_*.py", "check_*.py"],
    ["test_**.py", "test_*.py"],
    ["testing/check_*.py", "**/testing/check_**.py"],
    ["*/tests.py", "**/**[/]tests.py"],
    // not read here: add no test file
    ["test_[ab].py", null],
    ["/abs/tests.py", null],
    ["", null],
  ])("python_files glob %s -> test glob %s", (glob, expected) => {
    expect(pythonFilesTestGlob(glob)).toBe(expected);
  });

  it("matches what pytest collects: a basename anywhere, a path's tail with * across directories", () => {
    const m = compileGlobs(
      ["tests.py", "check_*.py", "testing/check_*.py", "*/it.py"].map(
        (g) => pythonFilesTestGlob(g) as string,
      ),
    );
    expect(m("polls/tests.py")).toBe(true);
    expect(m("tests.py")).toBe(true);
    expect(m("a/b/check_x.py")).toBe(true);
    expect(m("x/testing/a/check_b.py")).toBe(true);
    expect(m("app/it.py")).toBe(true);
    expect(m("it.py")).toBe(false);
    expect(m("polls/mytests.py")).toBe(false);
    expect(m("polls/tests.pyc")).toBe(false);
  });

  it("adds the globs to the defaults only, and nothing for a configuration not read", () => {
    expect(withPythonFiles(DEFAULT_TEST_GLOBS, ["tests.py", "test_*.py", "[x].py"])).toEqual([
      ...DEFAULT_TEST_GLOBS,
      "tests.py",
    ]);
    expect(withPythonFiles(["test_*.py"], ["tests.py"])).toEqual(["test_*.py"]);
    expect(withPythonFiles(DEFAULT_TEST_GLOBS, null)).toEqual([...DEFAULT_TEST_GLOBS]);
  });
});
