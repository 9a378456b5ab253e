// What the reports say and where they go, end to end through the built CLI on real git and real
// coverage data: a patch that changes no file says so in every format; the text report folds a
// run of shadowed lines into one entry with its source; annotations escape what the repository
// put in names; the HTML report asked for on a terminal goes to a file; and --output never
// replaces a source file, a test, anything in .git or any other file the run read.

import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, expectOneLineError, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import { isolatedGitEnv, makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPytestCov } from "../helpers/python.js";
import { validateSarif } from "../helpers/sarif.js";
import { assertMatchesSchema } from "../helpers/schema.js";

/** The CLI on a real terminal (script(1) gives it a pty); stdout and stderr both land there. */
function onTerminal(args: string[], cwd: string): { status: number | null; output: string } {
  const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
  const command = [process.execPath, CLI, ...args].map(quote).join(" ");
  const r = spawnSync("script", ["-qfec", command, "/dev/null"], {
    cwd,
    env: isolatedGitEnv({ NO_COLOR: "1", FORCE_COLOR: undefined, FREEZEGATE_DEBUG: "" }),
    encoding: "utf8",
  });
  return { status: r.status, output: r.stdout.replace(/\r\n/g, "\n") };
}

describe("a patch that changes no file: nothing was audited, and every format says why", () => {
  let repo: TempRepo;
  let out: string;
  let head: string;
  beforeAll(() => {
    repo = makeDemoRepo();
    head = repo.git("rev-parse", "HEAD").trim();
    out = realpathSync(mkdtempSync(join(tmpdir(), "freezegate-empty-")));
  });
  afterAll(() => {
    repo.cleanup();
    rmSync(out, { recursive: true, force: true });
  });

  const FILES = {
    json: "json",
    markdown: "md",
    github: "github.txt",
    sarif: "sarif",
    junit: "junit.xml",
    html: "html",
  } as const;

  it("a base that is HEAD's own commit (a CI variable naming the commit under test)", () => {
    const outputs = Object.entries(FILES).flatMap(([f, ext]) => [
      "--output",
      `${f}=${join(out, `empty.${ext}`)}`,
    ]);
    const r = runCli(["audit", "--base", head, ...outputs], { cwd: repo.dir });
    expect(r.stderr).toBe("");
    // An empty patch is a pass; the reports say what it means.
    expect(r.status).toBe(0);
    const why = `the base ${head} is HEAD`;
    const holds = `so ${head}...HEAD holds no change`;
    expect(r.stdout.trimEnd().split("\n").at(-1)).toBe(
      `PASS: nothing was audited: ${why}'s own commit (${head.slice(0, 12)}), ${holds}; check that the base names the branch the patch is for (an unset or wrong CI variable?)`,
    );
    const read = (f: keyof typeof FILES) => readFileSync(join(out, `empty.${FILES[f]}`), "utf8");
    const json = JSON.parse(read("json"));
    assertMatchesSchema("audit-report.schema.json", json);
    expect(json.summary.emptyPatch.reason).toBe("base-is-head");
    expect(r.stdout).toContain(json.summary.emptyPatch.message);
    expect(read("markdown").split("\n")[0]).toMatch(
      /^### ✅ freezegate audit: PASS — nothing was audited: the base /,
    );
    expect(read("markdown")).toContain(holds);
    expect(read("github").split("\n")[0]).toBe(
      `::warning title=freezegate%3A nothing audited::${json.summary.emptyPatch.message}`,
    );
    const sarif = JSON.parse(read("sarif"));
    validateSarif(sarif);
    expect(sarif.runs[0].invocations[0].toolExecutionNotifications).toEqual([
      {
        descriptor: { id: "empty-patch" },
        level: "warning",
        message: { text: json.summary.emptyPatch.message },
      },
    ]);
    expect(read("junit")).toMatch(/<skipped message="nothing was audited: the base [^"]*holds/);
    expect(read("html")).toMatch(
      /<p class="verdict-line empty" role="status">PASS: nothing was audited: the base [^<]*holds no change/,
    );
  });

  it("a base ahead of HEAD (the merge base is HEAD itself)", () => {
    repo.git("branch", "-f", "ahead", "HEAD");
    repo.git("checkout", "-q", "base");
    try {
      const r = runCli(["audit", "--base", "ahead", "--format", "json"], { cwd: repo.dir });
      expect(r.status).toBe(0);
      const summary = JSON.parse(r.stdout).summary;
      expect(summary.emptyPatch.reason).toBe("merge-base-is-head");
      expect(summary.emptyPatch.message).toMatch(
        /^nothing was audited: HEAD \([0-9a-f]{12}\) is already in the history of the base ahead, so ahead\.\.\.HEAD holds no change/,
      );
    } finally {
      repo.git("checkout", "-q", "main");
    }
  });

  it("commits that add up to no change, and check's reports", () => {
    repo.write(
      "freeze-ledger.json",
      `${JSON.stringify({ version: 1, freezes: [], properties: [] }, null, 2)}\n`,
    );
    repo.remove("quarantine.json");
    repo.commit("the ledger");
    repo.git("commit", "-q", "--allow-empty", "-m", "nothing");
    const quiet = runCli(["audit", "--base", "HEAD~1", "-q"], { cwd: repo.dir });
    expect(quiet.stdout).toMatch(
      /^PASS: nothing was audited: HEAD~1\.\.\.HEAD changes no file \(the commits since the merge base [0-9a-f]{12} add up to no change\)\n$/,
    );
    const files = ["json", "markdown", "junit", "html"].flatMap((f) => [
      "--output",
      `${f}=${join(out, `check.${f}`)}`,
    ]);
    const check = runCli(["check", "--base", "HEAD~1", ...files], { cwd: repo.dir });
    expect(check.stderr).toBe("");
    expect(check.status).toBe(0);
    const json = JSON.parse(readFileSync(join(out, "check.json"), "utf8"));
    expect(json.audit.summary.emptyPatch.reason).toBe("no-changes");
    const message = json.audit.summary.emptyPatch.message as string;
    expect(check.stdout).toContain(`PASS: ${message}\n`);
    expect(readFileSync(join(out, "check.markdown"), "utf8")).toContain(
      "⚠️ nothing was audited: HEAD\\~1...HEAD changes no file",
    );
    expect(readFileSync(join(out, "check.junit"), "utf8")).toMatch(
      /name="shadow gate">\n\s*<skipped message="nothing was audited: HEAD~1\.\.\.HEAD changes no file/,
    );
    expect(readFileSync(join(out, "check.html"), "utf8")).toContain(
      '<p class="verdict-line empty" role="note">nothing was audited: HEAD~1...HEAD changes no file',
    );
  });
});

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

describe("the HTML report when stdout is a terminal", () => {
  let repo: TempRepo;
  const page = () => join(repo.dir, "freezegate-report.html");
  beforeAll(() => {
    repo = makeDemoRepo();
  });
  afterAll(() => repo.cleanup());

  it("goes to freezegate-report.html, and the terminal gets one line saying where", () => {
    const r = onTerminal(["audit", "--base", "base", "--format", "html"], repo.dir);
    expect(r.status).toBe(1);
    expect(r.output).toBe(
      "freezegate: wrote the HTML report to freezegate-report.html (stdout is a terminal; pipe it, or pass --output html=FILE, to put the page elsewhere)\n",
    );
    const html = readFileSync(page(), "utf8");
    expect(html.startsWith("<!DOCTYPE html>")).toBe(true);
    // The same page a pipe gets.
    const piped = runCli(["audit", "--base", "base", "--format", "html"], { cwd: repo.dir });
    expect(piped.status).toBe(1);
    expect(piped.stdout).toBe(html);
    // An earlier report there is replaced.
    writeFileSync(page(), html.replace("<h1>", "<h1>old "));
    expect(onTerminal(["audit", "--base", "base", "--format", "html"], repo.dir).status).toBe(1);
    expect(readFileSync(page(), "utf8")).toBe(html);
  });

  it("a pipe still gets the page, and a file there that is no report is left alone (exit 2)", () => {
    rmSync(page(), { force: true });
    const piped = runCli(["audit", "--base", "base", "--format", "html"], { cwd: repo.dir });
    expect(piped.stdout.startsWith("<!DOCTYPE html>")).toBe(true);
    expect(existsSync(page())).toBe(false);
    writeFileSync(page(), "<p>my own notes</p>\n");
    const r = onTerminal(["audit", "--base", "base", "--format", "html"], repo.dir);
    expect(r.status).toBe(2);
    expect(r.output).toMatch(
      /^freezegate: error: stdout is a terminal, so the HTML report goes to freezegate-report\.html, but that file is not a freezegate report \(fix: .*--output html=FILE.*\)\n$/,
    );
    expect(readFileSync(page(), "utf8")).toBe("<p>my own notes</p>\n");
    // Asked for by name, the page is printed on the terminal.
    const named = onTerminal(["audit", "--base", "base", "--output", "html=-"], repo.dir);
    expect(named.status).toBe(1);
    expect(named.output.startsWith("<!DOCTYPE html>")).toBe(true);
  });
});

describe("--output never replaces a file the repository or the run needs", () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeDemoRepo();
  });
  afterAll(() => repo.cleanup());

  /** Exit 2 with one line, and the file (and git's view of the repository) unchanged. */
  function refused(args: string[], file: string): string {
    const path = join(repo.dir, file);
    const before = existsSync(path) ? readFileSync(path) : null;
    const status = repo.git("status", "--porcelain");
    const line = expectOneLineError(runCli(args, { cwd: repo.dir }));
    expect(existsSync(path) ? readFileSync(path) : null).toEqual(before);
    expect(repo.git("status", "--porcelain")).toBe(status);
    return line;
  }

  it.each([
    ["src/billing/proration.py", "is the source file this run reads"],
    ["tests/test_billing.py", "is a file git tracks and not a freezegate report"],
    ["conftest.py", "is a file git tracks and not a freezegate report"],
    [".git/HEAD", "is inside the repository's .git directory"],
    [".git/refs/heads/report", "is inside the repository's .git directory"],
  ])("--output %s: %s", (file, why) => {
    const line = refused(["audit", "--base", "base", "--output", `json=${file}`], file);
    expect(line).toBe(
      `freezegate: error: --output ${file} ${why}${why.startsWith("is inside") ? ": a report there would break the repository (fix: write the report to a file outside .git)" : why.startsWith("is the") ? " (fix: write the report to another file)" : ": the report would replace it (fix: write the report to a file git does not track (an ignored or new one))"}`,
    );
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
