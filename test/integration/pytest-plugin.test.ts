// Runs the pytest plugin's own test suite (integrations/pytest/tests, written with pytest's
// pytester) with Debian's python3, so that `npm test` covers the plugin: real pytest,
// Hypothesis and pytest-xdist sessions, the applied record and the samples artifact.
// Skipped loudly without the Python toolchain, failed under CI=true (describePython).

import { join } from "node:path";
import { expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/cli.js";
import { describePython, makeTempDir, runPython } from "../helpers/python.js";

const PLUGIN_DIR = join(REPO_ROOT, "integrations/pytest");

describePython("the pytest plugin's own suite (pytester)", () => {
  it("passes, with nothing skipped", { timeout: 300_000 }, () => {
    const basetemp = join(makeTempDir("pytest-plugin"), "basetemp");
    const result = runPython(
      [
        "-m",
        "pytest",
        "tests",
        "-p",
        "pytester",
        "-p",
        "no:cacheprovider",
        "-q",
        "-rs",
        `--basetemp=${basetemp}`,
      ],
      { cwd: PLUGIN_DIR, timeoutMs: 290_000 },
    );
    const output = `${result.stdout}\n${result.stderr}`;
    expect(result.status, output).toBe(0);
    // The suite skips its xdist and installation tests when pytest-xdist, pip or setuptools
    // are missing; the toolchain this project tests against has them, so a skip is a failure.
    expect(output, output).not.toMatch(/\bskipped\b/);
    const summary = /(\d+) passed/.exec(output);
    expect(Number(summary?.[1] ?? 0), output).toBeGreaterThanOrEqual(60);
  });
});
