// Coverage data nobody named, left in the work tree by a developer's plain `pytest --cov`
// (no per-test contexts), must not make a command that needs no coverage fail: the pre-commit
// hook runs `ledger check`. Data given with --coverage that
// names no tests stays an error.

import { afterAll, expect, it } from "vitest";
import { expectOneLineError, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPython } from "../helpers/python.js";

let repo: TempRepo | undefined;
afterAll(() => repo?.cleanup());

const LEDGER = {
  version: 1,
  freezes: [
    {
      test_id: "tests/test_x.py::test_a",
      reason: "flaky",
      owner: "finley",
      opened: "2026-10-12",
      expires: "2026-10-26",
      invariant: "x stays x",
      compensating_property: "tests/test_x.py::test_b",
      reused_property: true,
    },
  ],
};

describePython("ledger check beside data without per-test contexts", () => {
  it("found data: unknown-test not judged (exit 0); given data: exit 2", () => {
    repo = makeTempRepo();
    repo.write(".gitignore", ".coverage\n");
    repo.write("tests/test_x.py", "def test_a():\n    pass\n\ndef test_b():\n    pass\n");
    repo.write("freeze-ledger.json", `${JSON.stringify(LEDGER, null, 2)}\n`);
    repo.commit("base");
    const run = runPython(["-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov=tests"], {
      cwd: repo.dir,
    });
    expect(run.status, run.stdout + run.stderr).toBe(0);

    // Before: exit 2, "the coverage data .../.coverage names no tests".
    const found = runCli(["ledger", "check", "--today", "2026-10-18"], { cwd: repo.dir });
    expect(found.stderr).toBe("");
    expect(found.stdout).toContain(
      "known tests: none (the coverage data found (.coverage) names no tests (only non-test contexts)): unknown-test was not judged",
    );
    expect(found.status).toBe(0);

    const given = runCli(["ledger", "check", "--today", "2026-10-18", "--coverage", ".coverage"], {
      cwd: repo.dir,
    });
    expect(expectOneLineError(given)).toMatch(
      /^freezegate: error\[coverage-names-no-tests\]: the coverage data .*\.coverage names no tests \(only non-test contexts\), so it cannot say which tests exist/,
    );
  });
});
