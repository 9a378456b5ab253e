// When `freezegate audit` turns V8's optimizing compiler off (run-process.ts stopOptimizing):
// once what is left is short. That is when the changed files' rows are read, unless many
// files need the statement model (a changed statement no test ran: each is tokenized and
// parsed), and then once the verdicts are made. Real git, real pytest-cov data, the binary.

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPytestCov } from "../helpers/python.js";

const MODULES = 40; // more than the 32 files of statement model that still count as short

describePython("when the audit stops optimizing", () => {
  let repo: TempRepo;

  beforeAll(() => {
    repo = makeTempRepo();
    repo.write("pkg/__init__.py", "");
    const imports: string[] = [];
    for (let i = 0; i < MODULES; i++) {
      repo.write(`pkg/mod_${i}.py`, "def used():\n    return 1\n\n\ndef unused():\n    return 2\n");
      imports.push(`from pkg import mod_${i}`);
    }
    repo.write(
      "tests/test_all.py",
      `${imports.join("\n")}\n\n\ndef test_used():\n${Array.from(
        { length: MODULES },
        (_, i) => `    assert mod_${i}.used() == 1\n`,
      ).join("")}`,
    );
    writeFileSync(join(repo.dir, ".gitignore"), ".coverage\n");
    repo.write("quarantine.json", '{"frozen": []}\n');
    repo.commit("base");
    repo.git("branch", "base");
    // Two patches: a line no test runs changed in 2 modules, and in every module. The same
    // lines run in both (only a constant changes), so one recording serves both.
    repo.git("checkout", "-q", "-b", "every");
    for (let i = 0; i < MODULES; i++) {
      repo.write(`pkg/mod_${i}.py`, "def used():\n    return 1\n\n\ndef unused():\n    return 3\n");
    }
    repo.commit("every module");
    repo.git("checkout", "-q", "-b", "two", "base");
    for (const i of [0, 1]) {
      repo.write(`pkg/mod_${i}.py`, "def used():\n    return 1\n\n\ndef unused():\n    return 3\n");
    }
    repo.commit("two modules");
    runPytestCov(repo.dir, ["--cov=pkg"]);
  });
  afterAll(() => repo.cleanup());

  const phasesOf = (branch: string) => {
    repo.git("checkout", "-q", branch);
    const r = runCli(
      ["audit", "--base", "base", "--frozen", "quarantine.json", "--format", "json"],
      {
        cwd: repo.dir,
        env: { FREEZEGATE_TIMING: "1" },
      },
    );
    expect(r.status, r.stderr).toBe(0);
    const uncovered = (JSON.parse(r.stdout) as { summary: { counts: { uncovered: number } } })
      .summary.counts.uncovered;
    return { phases: [...r.stderr.matchAll(/^timing: (.+?) +\+/gm)].map((m) => m[1]), uncovered };
  };

  it("once the rows are read when few files need the statement model", () => {
    const { phases, uncovered } = phasesOf("two");
    expect(uncovered).toBe(2);
    expect(phases.indexOf("optimizing stopped")).toBe(phases.indexOf("executed lines") + 1);
  });

  it("once the verdicts are made when many do", () => {
    const { phases, uncovered } = phasesOf("every");
    expect(uncovered).toBe(MODULES);
    expect(phases.indexOf("optimizing stopped")).toBe(phases.indexOf("staleness") + 1);
    expect(phases.indexOf("staleness")).toBeGreaterThan(phases.indexOf("executed lines"));
  });
});
