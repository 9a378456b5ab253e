import { existsSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPytestCov } from "../helpers/python.js";

describePython("shadowed runs and names with control characters, from real pytest-cov data", () => {
  // A module and a test file whose names hold ESC, TAB and GitHub's property separators; the
  // patch rewrites a function into eight statements that only the frozen test runs, one of
  // them a string literal with raw ESC and TAB bytes.
  const MODULE = "calc/m\u001b[31m\t,x:y%.py";
  const TESTS = "tests/test_c\u001b[2m\tx.py";
  const FROZEN = `${TESTS}::test_total`;
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeTempRepo();
    repo.write("calc/__init__.py", "");
    repo.write(MODULE, "def total(items):\n    return sum(items)\n");
    repo.write(
      TESTS,
      [
        "import importlib",
        "",
        `mod = importlib.import_module(${JSON.stringify(MODULE.slice(0, -3).replace("/", "."))})`,
        "",
        "",
        "def test_total():",
        "    assert mod.total([1, 2]) == 3",
        "",
        "",
        "def test_other():",
        "    assert mod is not None",
        "",
      ].join("\n"),
    );
    repo.write("quarantine.json", `${JSON.stringify({ frozen: [FROZEN] })}\n`);
    repo.write(".gitignore", ".coverage\n");
    repo.commit("base");
    repo.git("branch", "base");
    repo.write(
      MODULE,
      [
        "def total(items):",
        "    result = 0",
        '    label = "sum\u001b[1m\tof"',
        "    count = 0",
        "    for item in items:",
        "        result += item",
        "        count += 1",
        "    check = result >= 0 and count >= 0 and label != ''",
        "    return result if check else 0",
        "",
      ].join("\n"),
    );
    repo.commit("patch");
    runPytestCov(repo.dir);
  });
  afterAll(() => repo.cleanup());

  it("text: one entry for the run of shadowed statements, with its source, escaped and cut", () => {
    const r = runCli(["audit", "--base", "base"], { cwd: repo.dir });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    const section = r.stdout.split("\n\n")[1];
    expect(section).toBe(
      [
        "calc/m\\u001b[31m\\t,x:y%.py: 8 shadowed",
        "  SHADOWED 2-9: only frozen tests cover it: tests/test_c\\u001b[2m\\tx.py::test_total",
        "    2 |     result = 0",
        '    3 |     label = "sum\\u001b[1m\\tof"',
        "    4 |     count = 0",
        "    5 |     for item in items:",
        "    6 |         result += item",
        "        … 3 more lines (7-9)",
      ].join("\n"),
    );
  });

  it("github: ESC and TAB escaped in the annotation's file and message, GitHub's own escapes kept", () => {
    const r = runCli(["audit", "--base", "base", "--format", "github"], { cwd: repo.dir });
    expect(r.status).toBe(1);
    // biome-ignore lint/suspicious/noControlCharactersInRegex: none may be left
    expect(r.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/);
    expect(r.stdout.split("\n")).toEqual([
      "::error file=calc/m\\u001b[31m\\t%2Cx%3Ay%25.py,line=2,endLine=9,title=freezegate%3A shadowed line::changed lines 2-9 are shadowed: only frozen tests execute them (tests/test_c\\u001b[2m\\tx.py::test_total)",
      "freezegate audit: FAIL: 8 changed lines are covered only by frozen tests (shadowed)",
      "  error   shadowed-line: calc/m\\u001b[31m\\t,x:y%.py:2-9: changed lines 2-9 are shadowed: only frozen tests execute them (tests/test_c\\u001b[2m\\tx.py::test_total)",
      "",
    ]);
  });
});

describe("--output never replaces a file the repository or the run needs", () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeDemoRepo();
  });
  afterAll(() => repo.cleanup());

  /** Exit 2 with one line, and the file (and git's view of the repository) unchanged. */
  function refused(args: string[], file: string, code?: string): string {
    const path = join(repo.dir, file);
    const before = existsSync(path) ? readFileSync(path) : null;
    const status = repo.git("status", "--porcelain");
    const result = runCli(args, { cwd: repo.dir });
    const line = code === undefined ? expectOneLineError(result) : expectRefusal(result, code);
    expect(existsSync(path) ? readFileSync(path) : null).toEqual(before);
    expect(repo.git("status", "--porcelain")).toBe(status);
    return line;
  }

  it.each([
    ["src/billing/proration.py", "output-is-input", "is the source file this run reads"],
    ["tests/test_billing.py", "output-tracked-file", "is a file git tracks and not a freezegate"],
    ["conftest.py", "output-tracked-file", "is a file git tracks and not a freezegate report"],
    [".git/HEAD", "output-in-git-directory", "is inside the repository's .git directory"],
    [".git/refs/heads/report", "output-in-git-directory", "is inside the repository's .git"],
  ])("--output %s: %s", (file, code, why) => {
    const line = refused(["audit", "--base", "base", "--output", `json=${file}`], file, code);
    expect(line.startsWith(`--output ${file} ${why}`)).toBe(true);
    expect(repo.git("fsck", "--no-progress")).toBe("");
  });

  it("a link to a tracked file is refused too; a tracked freezegate report is replaced", () => {
    symlinkSync("tests/test_billing.py", join(repo.dir, "report.json"));
    try {
      expect(
        refused(
          ["audit", "--base", "base", "--output", "json=report.json"],
          "tests/test_billing.py",
        ),
      ).toContain("--output report.json is a file git tracks and not a freezegate report");
    } finally {
      rmSync(join(repo.dir, "report.json"));
    }
    expect(
      runCli(["audit", "--base", "base", "-o", "json=report.json"], { cwd: repo.dir }).status,
    ).toBe(1);
    repo.git("add", "report.json");
    repo.git("commit", "-q", "-m", "keep a report");
    writeFileSync(join(repo.dir, "report.json"), "");
    const again = runCli(["audit", "--base", "base", "-o", "json=report.json"], { cwd: repo.dir });
    // An empty tracked file is not a report either.
    expect(expectOneLineError(again)).toContain("is a file git tracks and not a freezegate report");
    repo.git("checkout", "--", "report.json");
    const replaced = runCli(["audit", "--base", "base", "-o", "json=report.json"], {
      cwd: repo.dir,
    });
    expect(replaced.stderr).toBe("");
    expect(replaced.status).toBe(1);
  });

  it("check: the samples artifact and the applied record it reads are inputs too", () => {
    const ledger = {
      version: 1,
      policy: { blocking: ["shadow"] },
      freezes: [],
      properties: [],
    };
    repo.write("freeze-ledger.json", `${JSON.stringify(ledger, null, 2)}\n`);
    repo.remove("quarantine.json");
    repo.commit("a ledger");
    const commit = repo.git("rev-parse", "HEAD").trim();
    repo.write("samples.json", JSON.stringify({ version: 2, commit, properties: {} }));
    const check = ["check", "--base", "base", "--samples", "samples.json"];
    expect(refused([...check, "--output", "json=samples.json"], "samples.json")).toContain(
      "--output samples.json is the samples artifact this run reads",
    );
  });
});
