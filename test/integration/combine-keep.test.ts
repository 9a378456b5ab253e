// Data recorded at another root (a CI container), combined on the host by coverage.py itself
// with [paths] and `coverage combine --keep`: the combined .coverage maps onto the checkout,
// and the kept parallel files beside it still carry the container's paths. freezegate reads
// .coverage with every .coverage.* beside it, so it refuses (the container's recording would
// be lost); the fix must name the way out that fits this case: delete the kept files.

import { cpSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterAll, expect, it } from "vitest";
import { expectRefusal, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, makeTempDir, runPython } from "../helpers/python.js";

const CALC = "def add(a, b):\n    return a + b\n\n\ndef half_up(x):\n    return int(x + 0.5)\n";
const TESTS =
  "from pkg.calc import add, half_up\n\ndef test_add():\n    assert add(1, 2) == 3\n\ndef test_half_up():\n    assert half_up(1.5) == 2\n";

let repo: TempRepo | undefined;
afterAll(() => repo?.cleanup());

describePython("coverage combine --keep after remapping with [paths]", () => {
  it("is refused with a fix that names the kept parallel files; without them the audit runs", () => {
    repo = makeTempRepo();
    repo.write(".gitignore", ".coverage*\n.coveragerc\n");
    repo.write("pkg/__init__.py", "");
    repo.write("pkg/calc.py", CALC);
    repo.write("tests/test_calc.py", TESTS);
    repo.write("quarantine.json", JSON.stringify({ frozen: ["tests/test_calc.py::test_half_up"] }));
    repo.commit("base");
    repo.git("branch", "base");
    repo.write("pkg/calc.py", CALC.replace("int(x + 0.5)", "int(x + 0.5) if x >= 0 else 0"));
    repo.commit("half_up of a negative number");

    // The "container": a copy of the checkout at another root, recording parallel files
    // (coverage run; pytest-cov would combine them itself).
    const container = join(makeTempDir("container"), "app");
    cpSync(repo.dir, container, { recursive: true });
    const rc = "[run]\nsource = pkg\nparallel = true\ndynamic_context = test_function\n";
    repo.write(".coveragerc", rc);
    cpSync(join(repo.dir, ".coveragerc"), join(container, ".coveragerc"));
    const recorded = runPython(
      ["-m", "coverage", "run", "-m", "pytest", "-q", "-p", "no:cacheprovider"],
      {
        cwd: container,
      },
    );
    expect(recorded.status, recorded.stdout + recorded.stderr).toBe(0);
    const parallel = readdirSync(container).filter((f) => f.startsWith(".coverage."));
    expect(parallel.length).toBeGreaterThan(0);
    for (const f of parallel) cpSync(join(container, f), join(repo.dir, f));

    // On the host: coverage.py's own remapping, keeping the parallel files.
    repo.write(".coveragerc", `${rc}[paths]\nsource =\n    pkg/\n    ${container}/pkg/\n`);
    const combined = runPython(["-m", "coverage", "combine", "--keep"], { cwd: repo.dir });
    expect(combined.status, combined.stdout + combined.stderr).toBe(0);

    const refused = expectRefusal(
      runCli(["audit", "--base", "base"], { cwd: repo.dir }),
      "coverage-recording-unmapped",
    );
    expect(refused).toContain(
      `the coverage data also records pkg/calc.py as "${container}/pkg/calc.py"`,
    );
    expect(refused).toMatch(
      /; or, if `coverage combine --keep` already merged the parallel data files into the combined one \(freezegate reads both\), delete the parallel files\)$/,
    );

    for (const f of parallel) rmSync(join(repo.dir, f));
    const r = runCli(["audit", "--base", "base"], { cwd: repo.dir });
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(
      "SHADOWED 6: only frozen tests cover it: tests/test_calc.py::test_half_up",
    );
    expect(r.status).toBe(1);
  });
});
