// What the reports say and where they go, end to end through the built CLI on real git and real
// coverage data: a patch that changes no file says so in every format, and the HTML report
// asked for on a terminal goes to a file. Hostile names and --output targets are in
// test/bad-inputs/output.test.ts.

import { spawnSync } from "node:child_process";
import {
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import { isolatedGitEnv, type TempRepo } from "../helpers/git-repo.js";
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
      /^freezegate: error\[html-fallback-not-a-report\]: stdout is a terminal, so the HTML report goes to freezegate-report\.html, but .*\(fix: .*--output html=FILE.*\)\n$/,
    );
    expect(readFileSync(page(), "utf8")).toBe("<p>my own notes</p>\n");
    // Asked for by name, the page is printed on the terminal.
    const named = onTerminal(["audit", "--base", "base", "--output", "html=-"], repo.dir);
    expect(named.status).toBe(1);
    expect(named.output.startsWith("<!DOCTYPE html>")).toBe(true);
  });
});
