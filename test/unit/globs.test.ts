import { describe, expect, it } from "vitest";
import {
  compileGlob,
  compileGlobs,
  compilePythonFilesGlob,
  DEFAULT_TEST_GLOBS,
} from "../../src/core/globs.js";

describe("path globs", () => {
  const isTest = compileGlobs(DEFAULT_TEST_GLOBS);

  it.each([
    ["tests/test_a.py", true],
    ["tests/helpers/data.py", true],
    ["src/pkg/test_util.py", true],
    ["src/pkg/util_test.py", true],
    ["conftest.py", true],
    ["src/conftest.py", true],
    ["src/app/tests.py", false],
    ["src/app/latest_results.py", false],
    ["src/tests_helper/x.py", false],
    ["src/app/contest.py", false],
    // A tests/ directory at any depth holds test helpers (a service's, or one in the package).
    ["services/billing/tests/factories.py", true],
    ["geo/tests/helpers.py", true],
    ["test/helpers.py", true],
    // Library code for other projects' tests: numpy.testing, django.test.
    ["numpy/testing/utils.py", false],
    ["django/test/client.py", false],
  ])("default test globs: %s -> %s", (path, expected) => {
    expect(isTest(path)).toBe(expected);
  });

  it("supports ** across directories and character classes", () => {
    const m = compileGlobs(["src/**/gen_[0-9].py", "docs/*.md"]);
    expect(m("src/gen_1.py")).toBe(true);
    expect(m("src/a/b/gen_7.py")).toBe(true);
    expect(m("src/a/gen_x.py")).toBe(false);
    expect(m("docs/a.md")).toBe(true);
    expect(m("docs/sub/a.md")).toBe(false);
  });
});

describe("python_files globs, as pytest's fnmatch_ex matches them", () => {
  it("without '/': the basename, '*' and '?' within it, sets and negated sets", () => {
    const m = compileGlobs(
      ["check_*.py", "t?.py", "spec_[ab].py", "x_[!0-9].py"],
      compilePythonFilesGlob,
    );
    expect(m("a/b/check_api.py")).toBe(true);
    expect(m("a/check_api.pyc")).toBe(false);
    expect(m("t1.py")).toBe(true);
    expect(m("pkg/spec_b.py")).toBe(true);
    expect(m("pkg/spec_c.py")).toBe(false);
    expect(m("x_y.py")).toBe(true);
    expect(m("x_1.py")).toBe(false);
  });

  it("with '/': the end of the path, '*' spanning directories (unlike a path glob)", () => {
    const m = compilePythonFilesGlob("testing/check_*.py");
    expect(m("x/testing/check_a/b.py")).toBe(true);
    expect(m("testing/check_b.py")).toBe(true);
    expect(m("x/testing/a/check_b.py")).toBe(false);
    expect(m("mytesting/check_b.py")).toBe(false);
    expect(compileGlob("testing/check_*.py")("testing/check_a/b.py")).toBe(false);
  });
});
