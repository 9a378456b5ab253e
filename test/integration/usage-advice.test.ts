// The fix a usage or setup error suggests must work when followed: a subcommand's usage
// error names the subcommand's help, a missing remote is named instead of a ref that cannot
// exist (origin/origin/main), and outside a repository no flag the user already gave (or
// the command does not have) is offered.

import { mkdtempSync, realpathSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import { makeTempRepo, runGit, type TempRepo } from "../helpers/git-repo.js";

const repos: TempRepo[] = [];
const dirs: string[] = [];
afterAll(() => {
  for (const r of repos) r.cleanup();
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

function repo(): TempRepo {
  const r = makeTempRepo();
  repos.push(r);
  r.write("a.py", "x = 1\n");
  r.write("freeze-ledger.json", '{"version": 1, "freezes": []}\n');
  r.commit("one");
  return r;
}

describe("usage errors of subcommands", () => {
  it.each([
    [
      ["ledger", "check", "--bogus"],
      "ledger check: Unknown option '--bogus' (fix: see freezegate ledger check --help)",
    ],
    [
      ["ledger", "migrate", "--bogus"],
      "ledger migrate: Unknown option '--bogus' (fix: see freezegate ledger migrate --help)",
    ],
    [
      ["witness", "check", "-x"],
      "witness check: Unknown option '-x' (fix: see freezegate witness check --help)",
    ],
    [
      ["deposit", "check", "--bogus"],
      "deposit check: Unknown option '--bogus' (fix: see freezegate deposit check --help)",
    ],
    [
      ["queue", "check", "--parent"],
      "queue check: Option '--parent <value>' argument missing (fix: see freezegate queue check --help)",
    ],
    [
      ["queue", "check", "stray"],
      "queue check: Unexpected argument 'stray'. This command does not take positional arguments (fix: see freezegate queue check --help)",
    ],
    [["audit", "--bogus"], "audit: Unknown option '--bogus' (fix: see freezegate audit --help)"],
  ])("%j names the full command and its help", (args, message) => {
    expect(expectRefusal(runCli(args, { cwd: tmpdir() }), "bad-arguments")).toBe(message);
  });

  it("--version refuses a stray argument like every command", () => {
    for (const flag of ["--version", "-V"]) {
      expect(
        expectRefusal(runCli([flag, "extra"], { cwd: tmpdir() }), "version-takes-no-arguments"),
      ).toMatch(new RegExp(`^${flag} takes no arguments, got "extra" `));
    }
    expect(runCli(["--version"], { cwd: tmpdir() }).status).toBe(0);
  });
});

describe("a base that is not in the clone", () => {
  it("no remote 'origin': names the missing remote, never origin/origin/main", () => {
    const r = repo();
    expect(
      expectRefusal(
        runCli(["witness", "check", "--base", "origin/main"], { cwd: r.dir }),
        "base-not-found",
      ),
    ).toBe(
      "base ref 'origin/main' does not exist in this clone (or is not a commit); nearest refs here: main (fix: there is no remote \"origin\" in this clone: add it (`git remote add origin URL`, then `git fetch origin main`), or pass a local branch that exists (`git branch` lists them))",
    );
    expect(
      expectRefusal(
        runCli(["witness", "check", "--base", "release"], { cwd: r.dir }),
        "base-not-found",
      ),
    ).toBe(
      "base ref 'release' does not exist in this clone (or is not a commit); nearest refs here: main (fix: there is no remote \"origin\" in this clone: add it (`git remote add origin URL`, then `git fetch origin release` and pass --base origin/release), or pass a local branch that exists (`git branch` lists them))",
    );
  });

  it("with an origin: how to fetch the branch from it, as before", () => {
    const r = repo();
    r.git("remote", "add", "origin", r.dir);
    expect(
      expectRefusal(
        runCli(["witness", "check", "--base", "origin/main"], { cwd: r.dir }),
        "base-not-found",
      ),
    ).toBe(
      "base ref 'origin/main' does not exist in this clone (or is not a commit); nearest refs here: main (fix: fetch it first (`git fetch origin main:refs/remotes/origin/main`); in GitHub Actions use actions/checkout with fetch-depth: 0)",
    );
  });
});

describe("a base missing from a shallow clone: the suggested fetch works", () => {
  // main: c1 c2 c3; feature forks at c2: f1 f2. The clone is what CI checks out: one
  // commit of one branch (git clone --depth 1 --branch feature).
  let upstream: TempRepo;
  const sha: Record<string, string> = {};
  function upstreamRepo(): TempRepo {
    if (upstream) return upstream;
    upstream = makeTempRepo();
    repos.push(upstream);
    upstream.write("freeze-ledger.json", '{"version": 1, "freezes": []}\n');
    for (const c of ["c1", "c2"]) {
      upstream.write("a.py", `x = "${c}"\n`);
      sha[c] = upstream.commit(c);
    }
    upstream.git("checkout", "-q", "-b", "feature");
    for (const c of ["f1", "f2"]) {
      upstream.write("f.py", `y = "${c}"\n`);
      sha[c] = upstream.commit(c);
    }
    upstream.git("checkout", "-q", "main");
    upstream.write("a.py", 'x = "c3"\n');
    sha.c3 = upstream.commit("c3");
    return upstream;
  }
  function shallowClone(): string {
    const parent = realpathSync(mkdtempSync(join(tmpdir(), "freezegate-shallow-")));
    dirs.push(parent);
    const up = upstreamRepo();
    runGit(parent, ["clone", "-q", "--depth", "1", "--branch", "feature", `file://${up.dir}`, "c"]);
    return join(parent, "c");
  }
  /** The first `git fetch ...` the message suggests, as arguments (single quotes dropped). */
  function suggestedFetch(message: string): string[] {
    const command = /`(git fetch [^`]+)`/.exec(message)?.[1];
    if (command === undefined) throw new Error(`no git fetch suggested: ${message}`);
    return command
      .split(" ")
      .slice(1)
      .map((arg) => arg.replace(/^'(.*)'$/, "$1"));
  }
  const check = (base: string, cwd: string) =>
    runCli(["witness", "check", "--base", base], { cwd });

  // Before: every one of these suggested `git fetch origin <the base>`, which git refuses for
  // an expression ("invalid refspec") or a short id ("couldn't find remote ref"), and which
  // for a branch or full id left the merge base (or, in a single-branch clone, origin/main)
  // missing.
  it.each([
    ["a revision expression at the clone's edge (HEAD~1)", () => "HEAD~1", "--deepen=1"],
    ["an abbreviated id and a parent (<f2>^)", () => `${sha.f2?.slice(0, 7)}^`, "--deepen=1"],
    ["an abbreviated id not in the clone", () => sha.c3?.slice(0, 7) as string, "--unshallow"],
    ["a full id not in the clone", () => sha.c3 as string, "--unshallow"],
    ["a remote branch not in the clone", () => "origin/main", "--unshallow"],
  ])("%s", (_what, base, expected) => {
    const dir = shallowClone();
    const refused = expectOneLineError(check(base(), dir));
    expect(refused).toContain("does not exist in this shallow clone");
    const fetch = suggestedFetch(refused);
    expect(fetch).toContain(expected);
    runGit(dir, fetch);
    const after = check(base(), dir);
    expect(after.stderr).toBe("");
    expect(after.status).toBe(0);
  });

  it("a local branch name: the fetch, then the remote-tracking name it says to pass", () => {
    const dir = shallowClone();
    const refused = expectOneLineError(check("main", dir));
    expect(refused).toContain("then pass --base origin/main");
    runGit(dir, suggestedFetch(refused));
    expect(check("origin/main", dir).status).toBe(0);
  });
});

describe("a base name that no ref has", () => {
  it("names the refs nearest it: where the default branch is master, origin/master and master", () => {
    const up = makeTempRepo({ branch: "master" });
    repos.push(up);
    up.write("freeze-ledger.json", '{"version": 1, "freezes": []}\n');
    up.commit("one");
    for (const tag of ["v1", "v2", "v3", "v4", "v5", "v6", "release-1"]) up.git("tag", tag);
    const parent = realpathSync(mkdtempSync(join(tmpdir(), "freezegate-master-")));
    dirs.push(parent);
    runGit(parent, ["clone", "-q", up.dir, "c"]);
    const message = expectOneLineError(
      runCli(["witness", "check", "--base", "origin/main"], { cwd: join(parent, "c") }),
    );
    // Five at most, nearest first; origin/HEAD only repeats origin/master.
    expect(message).toContain(
      "base ref 'origin/main' does not exist in this clone (or is not a commit); nearest refs here: origin/master, master, v1, v2, v3 (fix:",
    );
  });
});

describe("an error that quotes its input", () => {
  it("stays one line: control characters in the input are escaped", () => {
    const r = repo();
    const r2 = runCli(["ledger", "check", "--ledger", "x\r::error::forged\u001b[2J"], {
      cwd: r.dir,
    });
    expect(expectOneLineError(r2)).toBe(
      `freezegate: error[file-not-found]: ledger not found: ${r.dir}/x\\r::error::forged\\u001b[2J (fix: check --ledger (or the ledger config key), or create it with freezegate freeze or freezegate ledger migrate)`,
    );
  });
});

describe("outside a git repository", () => {
  it("does not offer --diff, which was given or which the command does not have", () => {
    const dir = realpathSync(mkdtempSync(join(tmpdir(), "freezegate-nogit-")));
    dirs.push(dir);
    writeFileSync(join(dir, "p.diff"), "--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x = 1\n+x = 2\n");
    const env = { GIT_CEILING_DIRECTORIES: tmpdir() };
    for (const args of [["audit", "--diff", "p.diff"], ["ledger", "check"], ["doctor"]]) {
      expect(
        expectRefusal(runCli(args, { cwd: dir, env }), "not-a-repository"),
        args.join(" "),
      ).toMatch(`${dir} is not inside a git repository (fix: run freezegate inside`);
    }
  });
});

describe("ledger check and doctor text output", () => {
  it("show control characters in ledger fields visibly: no line can start a workflow command", () => {
    const r = repo();
    const forged = "tests/test_a.py::test_x\n::error file=README.md,line=1::forged";
    r.write(
      "freeze-ledger.json",
      JSON.stringify({
        version: 1,
        freezes: [
          {
            test_id: forged,
            reason: "r",
            owner: "o",
            opened: "2020-01-01",
            expires: "2020-01-02",
            invariant: "i",
            compensating_property: "tests/test_a.py::test_y",
            reused_property: true,
          },
        ],
        properties: [],
      }),
    );
    r.commit("a hostile ledger");
    const check = runCli(["ledger", "check", "--today", "2026-11-25"], { cwd: r.dir });
    expect(check.status).toBe(1);
    expect(check.stdout).toContain("tests/test_a.py::test_x\\n::error file=README.md");
    // doctor quotes the frozen ids that resolve to no test of the example's data.
    const demo = makeDemoRepo();
    writeFileSync(join(demo.dir, "quarantine.json"), JSON.stringify({ frozen: [forged] }));
    const doctor = runCli(["doctor", "--base", "base"], { cwd: demo.dir });
    demo.cleanup();
    expect(doctor.stdout).toContain('"tests/test_a.py::test_x ::error file=README.md');
    for (const out of [check.stdout, doctor.stdout, doctor.stderr]) {
      expect(out.split("\n").filter((line) => line.startsWith("::"))).toEqual([]);
    }
  });
});

describe("queue check text output", () => {
  it("shows control characters in a record's fields visibly", () => {
    const r = repo();
    r.write("freeze-ledger.json", '{"version": 1, "freezes": [], "properties": []}\n');
    const head = r.commit("a ledger");
    const record = (path: string, sha256: string) =>
      JSON.stringify({
        version: 1,
        tool: "pytest-freezegate",
        commit: head,
        ledger: { path, sha256 },
        mode: "run",
        applied: [],
        expired: [],
        outcomes: {},
      });
    writeFileSync(join(r.dir, "parent.json"), record("freeze-ledger.json", "0".repeat(64)));
    writeFileSync(
      join(r.dir, "child.json"),
      record("x\n::error title=forged::all gates passed\nx", "0".repeat(64)),
    );
    const q = runCli(["queue", "check", "--parent", "parent.json", "--child", "child.json"], {
      cwd: r.dir,
    });
    expect(q.stdout).toContain("x\\n::error title=forged");
    expect(q.stdout.split("\n").filter((line) => line.startsWith("::"))).toEqual([]);
  });
});
