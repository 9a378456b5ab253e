// Inputs that fit together badly, each of which once let the audit judge the wrong lines and
// pass: a staged patch over an edited file, a user's diff of another version, a copy, a file
// git calls binary, a lone carriage return, one file recorded under two roots, checkout
// filters. Every case runs the built binary on the bundled example (real git, real pytest-cov
// data committed with it); no Python needed.

import { copyFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterEach, describe, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import type { TempRepo } from "../helpers/git-repo.js";

const SOURCE = "src/billing/proration.py";
const FROZEN = "tests/test_billing.py::test_proration_rounds_half_up";

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

function demo(): TempRepo {
  const r = makeDemoRepo();
  repos.push(r);
  return r;
}

/** Write `files` (path -> content) and commit them. */
function commitFiles(r: TempRepo, files: Record<string, string>, message = "edit"): void {
  for (const [path, content] of Object.entries(files)) r.write(path, content);
  r.git("add", ...Object.keys(files));
  r.git("commit", "-q", "-m", message);
}

/** The example's source, changed by `edit`, and committed. */
function commitEdit(r: TempRepo, edit: (text: string) => string, message = "edit"): void {
  commitFiles(r, { [SOURCE]: edit(readFileSync(r.path(SOURCE), "utf8")) }, message);
}

interface JsonLine {
  line: number;
  verdict: string;
  frozenTests: string[];
}

function linesOf(stdout: string, path: string): JsonLine[] {
  const report = JSON.parse(stdout) as { files: { path: string; lines: JsonLine[] }[] };
  return report.files.find((f) => f.path === path)?.lines ?? [];
}

describe("a patch whose line numbers are not the measured files' lines is refused", () => {
  it("--staged with unstaged edits to a staged file", () => {
    const r = demo();
    const text = readFileSync(r.path(SOURCE), "utf8");
    r.write(SOURCE, text.replace('ROUND_DOWN = "down"', 'ROUND_DOWN = "floor"'));
    r.git("add", SOURCE);
    r.write(SOURCE, `import os\nimport sys\n${readFileSync(r.path(SOURCE), "utf8")}`);
    const line = expectRefusal(runCli(["audit", "--staged"], { cwd: r.dir }), "unstaged-edits");
    expect(line).toContain(`unstaged edits: "${SOURCE}"`);
    expect(line).toContain("or audit the work tree with --worktree");
  });

  it("--staged with a staged file deleted from disk says it is not on disk", () => {
    const r = demo();
    const text = readFileSync(r.path(SOURCE), "utf8");
    r.write(SOURCE, text.replace('ROUND_DOWN = "down"', 'ROUND_DOWN = "floor"'));
    r.git("add", SOURCE);
    r.remove(SOURCE);
    const line = expectRefusal(
      runCli(["audit", "--staged"], { cwd: r.dir }),
      "changed-file-not-on-disk",
    );
    expect(line).toContain(`changed file ${SOURCE} is not on disk`);
  });

  it("index flags that make git look away (skip-worktree, assume-unchanged) do not hide edits", () => {
    const r = demo();
    const text = readFileSync(r.path(SOURCE), "utf8");
    r.git("update-index", "--skip-worktree", SOURCE);
    r.write(SOURCE, `# moved down\n${text}`);
    expect(r.git("status", "--porcelain")).toBe("");
    const range = expectRefusal(
      runCli(["audit", "--base", "base"], { cwd: r.dir }),
      "changed-files-differ-from-head",
    );
    expect(range).toContain(`differ from HEAD: "${SOURCE}"`);
    r.git("update-index", "--no-skip-worktree", SOURCE);
    r.write(SOURCE, text.replace('ROUND_DOWN = "down"', 'ROUND_DOWN = "floor"'));
    r.git("add", SOURCE);
    r.git("update-index", "--assume-unchanged", SOURCE);
    r.write(SOURCE, `# moved down\n${readFileSync(r.path(SOURCE), "utf8")}`);
    const staged = expectRefusal(runCli(["audit", "--staged"], { cwd: r.dir }), "unstaged-edits");
    expect(staged).toContain(`unstaged edits: "${SOURCE}"`);
  });

  it("--diff of an earlier version of the file", () => {
    const r = demo();
    writeFileSync(join(r.dir, "old.diff"), r.git("diff", "base", "HEAD"));
    commitEdit(r, (t) => `# a header comment\n\n${t}`);
    const line = expectRefusal(
      runCli(["audit", "--diff", "old.diff"], { cwd: r.dir }),
      "diff-not-of-disk",
    );
    expect(line).toMatch(
      /^the diff \/\S+\/old\.diff does not describe src\/billing\/proration\.py on disk: its line \d+ is ".*" in the diff but ".*" on disk /,
    );
  });

  it("--diff of an earlier version whose shown lines did not move: its blob id is not the file's", () => {
    const r = demo();
    writeFileSync(join(r.dir, "old.diff"), r.git("diff", "base", "HEAD"));
    // An edit in place below every hunk: no line the diff shows moves or changes.
    commitEdit(r, (t) => `${t}# a closing comment\n`);
    const line = expectRefusal(
      runCli(["audit", "--diff", "old.diff"], { cwd: r.dir }),
      "diff-not-of-disk",
    );
    expect(line).toMatch(
      /does not describe src\/billing\/proration\.py on disk: its new side is blob [0-9a-f]{7,}, the file on disk is [0-9a-f]{7,}/,
    );
  });

  it("--diff that adds a file shorter than the file on disk", () => {
    const r = demo();
    commitFiles(r, { "src/billing/extra.py": "A = 1\nB = 2\n" });
    writeFileSync(join(r.dir, "new.diff"), r.git("diff", "HEAD~1", "HEAD"));
    commitFiles(r, { "src/billing/extra.py": "A = 1\nB = 2\nC = 3\n" });
    const line = expectRefusal(
      runCli(["audit", "--diff", "new.diff"], { cwd: r.dir }),
      "diff-not-of-disk",
    );
    expect(line).toContain(
      "does not describe src/billing/extra.py on disk: it adds the file with 2 line(s), the file on disk has 3",
    );
  });

  it("--diff is checked only on the files it audits (a changelog rewritten since is fine)", () => {
    const r = demo();
    commitFiles(r, { "CHANGELOG.md": "# changes\n\n- rounding\n" });
    writeFileSync(join(r.dir, "pr.diff"), r.git("diff", "base", "HEAD"));
    commitFiles(r, { "CHANGELOG.md": "# changes\n\n- rounding (1.2.0)\n" });
    const result = runCli(["audit", "--diff", "pr.diff", "-q"], { cwd: r.dir });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(1);
  });

  it("--diff whose context lines differ only in whitespace (diff -u -w) is accepted", () => {
    const r = demo();
    const diff = r.git("diff", "-U3", "base", "HEAD").split("\n");
    // A context line as the old side might have had it: other indentation and trailing blanks.
    const at = diff.findIndex((l) => l.startsWith(" ") && l.trim() !== "");
    expect(at).toBeGreaterThan(0);
    diff[at] = ` \t${(diff[at] as string).slice(1).trim()}  `;
    writeFileSync(join(r.dir, "w.diff"), diff.join("\n"));
    const result = runCli(["audit", "--diff", "w.diff", "-q"], { cwd: r.dir });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(1);
  });

  it("--diff that names another file of the same name (made with --relative)", () => {
    const r = demo();
    // billing/proration.py at the root: what `git diff --relative` run in src/ names.
    commitFiles(r, { "billing/proration.py": readFileSync(r.path(SOURCE), "utf8") });
    commitEdit(r, (t) => t.replace("return share // days_in_period", "return share // 1"));
    writeFileSync(join(r.dir, "rel.diff"), r.git("-C", "src", "diff", "--relative", "HEAD~1"));
    const line = expectRefusal(
      runCli(["audit", "--diff", "rel.diff"], { cwd: r.dir }),
      "diff-not-of-disk",
    );
    expect(line).toContain("does not describe billing/proration.py on disk: its line 14");
  });

  it("a file with a carriage return that ends no line", () => {
    const r = demo();
    commitEdit(r, (t) => t.replace('ROUND_DOWN = "down"', 'ROUND_DOWN = "down"  # a\rb'));
    const line = expectRefusal(
      runCli(["audit", "--base", "base"], { cwd: r.dir }),
      "python-lone-carriage-return",
    );
    expect(line).toMatch(`${SOURCE} has a carriage return that ends no line on line 3 `);
  });
});

describe("changed lines git would hide are audited or refused", () => {
  it("a measured source that .gitattributes marks -diff keeps its lines and its shadow", () => {
    const r = demo();
    commitFiles(r, { ".gitattributes": "*.py -diff\n" }, "generated sources");
    const result = runCli(["audit", "--base", "base", "--format", "json"], { cwd: r.dir });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(1);
    expect(linesOf(result.stdout, SOURCE).filter((l) => l.verdict === "shadowed")).toMatchObject([
      { line: 13, frozenTests: [FROZEN] },
    ]);
  });

  it("a user's diff that calls a measured file binary is refused", () => {
    const r = demo();
    writeFileSync(
      join(r.dir, "bin.diff"),
      `diff --git a/${SOURCE} b/${SOURCE}\nindex 1111111..2222222 100644\nBinary files a/${SOURCE} and b/${SOURCE} differ\n`,
    );
    const line = expectRefusal(
      runCli(["audit", "--diff", "bin.diff"], { cwd: r.dir }),
      "measured-file-binary-in-diff",
    );
    expect(line).toContain(`the diff shows "${SOURCE}" as binary`);
    expect(line).toContain("git diff --text");
  });

  it("a user's diff with copy detection: the copy counts as a new file, every line", () => {
    const r = demo();
    const text = readFileSync(r.path(SOURCE), "utf8");
    commitFiles(r, {
      "src/billing/copy.py": text.replace("return share // days_in_period", "return 0"),
    });
    writeFileSync(join(r.dir, "c.diff"), r.git("diff", "-C", "--find-copies-harder", "HEAD~1"));
    expect(readFileSync(join(r.dir, "c.diff"), "utf8")).toContain("copy from ");
    const result = runCli(["audit", "--diff", "c.diff", "--format", "json"], { cwd: r.dir });
    expect(result.stderr).toBe("");
    const lines = linesOf(result.stdout, "src/billing/copy.py");
    expect(lines.map((l) => l.line)).toEqual(
      Array.from({ length: text.split("\n").length - 1 }, (_, i) => i + 1),
    );
  });
});

describe("one file recorded under two roots", () => {
  /**
   * A copy of the example's data as two machines would record it: the frozen test's rows of
   * the source under /elsewhere/ (a CI container), every other row where they were.
   */
  function twoRoots(r: TempRepo): string {
    const data = join(r.dir, "two-roots.coverage");
    copyFileSync(join(r.dir, ".coverage"), data);
    const db = new DatabaseSync(data);
    try {
      const id = db
        .prepare("INSERT INTO file (path) VALUES (?)")
        .run(`/elsewhere/${SOURCE}`).lastInsertRowid;
      const moved = db
        .prepare(
          "UPDATE line_bits SET file_id = ? WHERE file_id = (SELECT id FROM file WHERE path = ?) AND context_id IN (SELECT id FROM context WHERE context LIKE ?)",
        )
        .run(id, SOURCE, `${FROZEN}|%`).changes;
      expect(moved).toBeGreaterThan(0);
    } finally {
      db.close();
    }
    return data;
  }

  it("unmapped: names the other root and the --path-map that maps it", () => {
    const r = demo();
    const data = twoRoots(r);
    const line = expectRefusal(
      runCli(["audit", "--base", "base", "--coverage", data], { cwd: r.dir }),
      "coverage-recording-unmapped",
    );
    expect(line).toContain(`also records ${SOURCE} as "/elsewhere/${SOURCE}"`);
    expect(line).toMatch(/\(fix: map it onto the repository with --path-map "\/elsewhere\/=\."\)$/);
    const doctor = runCli(["doctor", "--base", "base", "--coverage", data], { cwd: r.dir });
    expect(doctor.status).toBe(2);
    expect(doctor.stdout).toMatch(
      /^FAIL {2}freshness: error\[coverage-recording-unmapped\]: the coverage data also records/m,
    );
  });

  it("both mapped: the file's tests are those of both roots", () => {
    const r = demo();
    const data = twoRoots(r);
    const split = runCli(
      [
        "audit",
        "--base",
        "base",
        "--coverage",
        data,
        "--path-map",
        "/elsewhere/=.",
        "--format",
        "json",
      ],
      { cwd: r.dir },
    );
    const whole = runCli(["audit", "--base", "base", "--format", "json"], { cwd: r.dir });
    expect(split.stderr).toBe("");
    expect(split.status).toBe(1);
    expect(linesOf(split.stdout, SOURCE)).toEqual(linesOf(whole.stdout, SOURCE));
    expect(linesOf(split.stdout, SOURCE).find((l) => l.line === 13)).toMatchObject({
      verdict: "shadowed",
      frozenTests: [FROZEN],
    });
    // doctor counts data paths, not files: both recordings land on the one file.
    const doctor = runCli(
      ["doctor", "--base", "base", "--coverage", data, "--path-map", "/elsewhere/=."],
      { cwd: r.dir },
    );
    const measured = new DatabaseSync(data, { readOnly: true });
    const paths = measured.prepare("SELECT count(*) AS n FROM file").get()?.n;
    measured.close();
    expect(doctor.stdout).toContain(
      `ok    paths: all ${paths} data paths map onto repository files`,
    );
    expect(doctor.status).toBe(0);
  });
});

describe("checkout filters", () => {
  it("CRLF on disk (core.autocrlf): --head naming the checked-out branch audits like HEAD", () => {
    const r = demo();
    r.git("config", "core.autocrlf", "true");
    r.remove(SOURCE);
    r.git("checkout", "--", SOURCE);
    expect(readFileSync(r.path(SOURCE), "utf8")).toContain("\r\n");
    const branch = r.git("rev-parse", "--abbrev-ref", "HEAD").trim();
    for (const head of ["HEAD", branch, "@"]) {
      const result = runCli(["audit", "--base", "base", "--head", head, "-q"], { cwd: r.dir });
      expect(result.stderr, head).toBe("");
      expect(result.status, head).toBe(1);
    }
  });
});

describe("files as editors and checkouts leave them", () => {
  it("a changed file outside a sparse checkout: says so instead of 'not found'", () => {
    const r = demo();
    commitFiles(r, { "tools/extra.py": "VALUE = 1\n" });
    r.git("sparse-checkout", "set", "src", "tests");
    const line = expectRefusal(
      runCli(["audit", "--base", "base"], { cwd: r.dir }),
      "changed-file-not-on-disk",
    );
    expect(line).toContain("changed file tools/extra.py is not on disk");
    expect(line).toContain("git sparse-checkout add DIR");
    expect(line).not.toContain("not found");
  });

  it("changed files whose names start with a quote or hold a newline are audited in every mode", () => {
    const r = demo();
    // git's --stdin-paths would unquote the first and split the second at the newline.
    const names = ['"quoted".py', "new\nline.py", "tail\r.py", "back\\slash.py"];
    commitFiles(r, Object.fromEntries(names.map((n) => [n, "VALUE = 1\n"])));
    const unmeasured = (args: string[]): string[] => {
      const result = runCli(["audit", ...args, "--format", "json"], {
        cwd: r.dir,
      });
      expect(result.stderr).toBe("");
      const report = JSON.parse(result.stdout) as { files: { path: string; lines: JsonLine[] }[] };
      return report.files
        .filter((f) => f.lines.every((l) => l.verdict === "unmeasured"))
        .map((f) => f.path)
        .sort();
    };
    expect(unmeasured(["--base", "base"])).toEqual([...names].sort());
    writeFileSync(join(r.dir, "names.diff"), r.git("diff", "HEAD~1", "HEAD"));
    expect(unmeasured(["--diff", "names.diff"])).toEqual([...names].sort());
    r.git("reset", "-q", "--soft", "HEAD~1");
    expect(unmeasured(["--staged"])).toEqual([...names].sort());
    r.git("reset", "-q");
    expect(unmeasured(["--worktree"])).toEqual([...names].sort());
  });

  it("git settings in the environment that make pathspecs literal change nothing", () => {
    const r = demo();
    for (const variable of ["GIT_LITERAL_PATHSPECS", "GIT_NOGLOB_PATHSPECS"]) {
      const doctor = runCli(["doctor", "--base", "base", "--format", "json"], {
        cwd: r.dir,
        env: { [variable]: "1" },
      });
      const nodeIds = (
        JSON.parse(doctor.stdout) as { checks: { id: string; status: string }[] }
      ).checks.find((c) => c.id === "node-ids");
      expect(nodeIds?.status, variable).toBe("ok");
    }
  });

  it("a frozen-test file saved with a UTF-8 byte-order mark is read like any other", () => {
    const r = demo();
    const plain = readFileSync(r.path("quarantine.json"), "utf8");
    r.write("bom.json", `\uFEFF${plain}`);
    const result = runCli(["audit", "--base", "base", "--frozen", "bom.json", "-q"], {
      cwd: r.dir,
    });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(1);
  });
});

describe("symbolic links named like sources", () => {
  it("are not audited and never read through, whatever they point at", () => {
    const r = demo();
    const secret = join(r.dir, "..", `${r.dir.split("/").at(-1)}-secret.txt`);
    writeFileSync(secret, "API_TOKEN=hunter2\n");
    try {
      r.symlink(secret, "src/billing/leak.py");
      r.symlink("does_not_exist.py", "src/billing/dangling.py");
      r.symlink("../../tests", "src/billing/dirlink.py");
      r.git("add", "src");
      r.git("commit", "-q", "-m", "links");
      const json = runCli(["audit", "--base", "base", "--format", "json"], { cwd: r.dir });
      expect(json.stderr).toBe("");
      expect(json.status).toBe(1);
      const report = JSON.parse(json.stdout) as {
        files: { path: string }[];
        skipped: { path: string; reason: string }[];
      };
      expect(report.files.map((f) => f.path)).toEqual([SOURCE]);
      expect(report.skipped).toEqual([
        { path: "src/billing/dangling.py", reason: "not-source" },
        { path: "src/billing/dirlink.py", reason: "not-source" },
        { path: "src/billing/leak.py", reason: "not-source" },
      ]);
      const html = runCli(["audit", "--base", "base", "--format", "html"], { cwd: r.dir });
      expect(html.status).toBe(1);
      expect(html.stdout).not.toContain("hunter2");
    } finally {
      rmSync(secret, { force: true });
    }
  });
});

describe("data files coverage.py would not write", () => {
  it("rows in the table has_arcs does not name are refused, not ignored", () => {
    const r = demo();
    for (const [name, edit] of [
      ["flag-arcs.coverage", "UPDATE meta SET value = '1' WHERE key = 'has_arcs'"],
      [
        "stray-arc.coverage",
        "INSERT INTO arc (file_id, context_id, fromno, tono) VALUES (2, 12, 13, -7)",
      ],
    ] as const) {
      const data = join(r.dir, name);
      copyFileSync(join(r.dir, ".coverage"), data);
      const db = new DatabaseSync(data);
      db.prepare(edit).run();
      db.close();
      const line = expectOneLineError(
        runCli(["audit", "--base", "base", "--coverage", data], { cwd: r.dir }),
      );
      expect(line).toMatch(
        /^freezegate: error\[coverage-data-malformed\]: \S+ says has_arcs = [01] but holds rows in its (line_bits|arc) table: it was not written by coverage\.py as it is/,
      );
    }
  });
});

describe("coverage data that the patch itself commits", () => {
  // A patch can carry data recorded with a test it then deleted: not a record of this run.
  it("is refused, whether a config key names it or discovery merges it as a parallel file", () => {
    const r = demo();
    r.write("ci/keep.txt", "");
    copyFileSync(join(r.dir, ".coverage"), join(r.dir, "ci/baseline.coverage"));
    r.git("add", "-f", "ci/baseline.coverage", "ci/keep.txt");
    r.git("commit", "-q", "-m", "data");
    const committed = expectRefusal(
      runCli(["audit", "--base", "base", "--coverage", "ci/baseline.coverage"], { cwd: r.dir }),
      "coverage-data-in-patch",
    );
    expect(committed).toContain(
      "the coverage data ci/baseline.coverage is part of the patch (base...HEAD adds or changes it)",
    );
    // The file read as data is no fixture: the fix does not offer the fixtures directory.
    expect(committed).not.toContain("tests/fixtures/");

    const doctor = runCli(["doctor", "--base", "base", "--coverage", "ci/baseline.coverage"], {
      cwd: r.dir,
    });
    expect(doctor.stdout).toContain(
      "FAIL  freshness: error[coverage-data-in-patch]: the coverage data ci/baseline.coverage is part of the patch",
    );
    expect(doctor.status).toBe(2);

    // Found by default next to .coverage (a fresh clone of the patch plus CI's artifacts).
    const parallel = ".coverage.ci-runner-1.4242.XyZzy";
    copyFileSync(join(r.dir, ".coverage"), join(r.dir, parallel));
    r.git("add", "-f", parallel);
    r.git("commit", "-q", "-m", "parallel data");
    expect(
      expectRefusal(
        runCli(["audit", "--base", "base", "-q"], { cwd: r.dir }),
        "coverage-data-in-patch",
      ),
    ).toMatch(/^the coverage data \.coverage\.ci-runner-1\.4242\.XyZzy is part of the patch/);

    // Committed but not read (--cov-append would merge it into the run's .coverage): refused.
    expect(
      expectRefusal(
        runCli(["audit", "--base", "base", "--coverage", ".coverage", "-q"], { cwd: r.dir }),
        "coverage-data-in-patch",
      ),
    ).toMatch(/^the coverage data \.coverage\.ci-runner-1\.4242\.XyZzy is part/);

    // Already merged into .coverage and deleted (pytest --cov-append): still in the patch.
    rmSync(join(r.dir, parallel));
    expect(
      expectRefusal(
        runCli(["audit", "--base", "base", "--coverage", ".coverage", "-q"], { cwd: r.dir }),
        "coverage-data-in-patch",
      ),
    ).toMatch(/^the coverage data \.coverage\.ci-runner-1\.4242\.XyZzy is part/);
    copyFileSync(join(r.dir, ".coverage"), join(r.dir, parallel));

    // The same data, untracked, is this run's: the audit judges the patch.
    r.git("rm", "-q", "--cached", parallel, "ci/baseline.coverage");
    r.git("commit", "-q", "-m", "untrack");
    const audit = runCli(["audit", "--base", "base", "-q"], { cwd: r.dir });
    expect(audit.stderr).toBe("");
    expect(audit.status).toBe(1);

    // A data file kept as a test fixture, away from the root and the data read (a tool that
    // reads coverage data tests itself with one): nobody reads or merges it as this run's.
    mkdirSync(r.path("tests/fixtures"), { recursive: true });
    copyFileSync(join(r.dir, ".coverage"), r.path("tests/fixtures/.coverage"));
    r.git("add", "-f", "tests/fixtures/.coverage");
    r.git("commit", "-q", "-m", "fixture data");
    const fixture = runCli(["audit", "--base", "base", "-q"], { cwd: r.dir });
    expect(fixture.stderr).toBe("");
    expect(fixture.status).toBe(1);
    r.git("rm", "-q", "--cached", "tests/fixtures/.coverage");
    r.git("commit", "-q", "-m", "untrack the fixture");
    rmSync(r.path("tests/fixtures/.coverage"));
    // Anywhere else it may be merged: a CI's `coverage combine coverage-data/`,
    // or tests/ and tests/unit/, where pytest run there keeps its data, also
    // the tests of a service or package named data: refused, and the fix says
    // where a fixture may live.
    for (const shard of [
      "coverage-data/.coverage.shard-1",
      "tests/.coverage.shard-2",
      "tests/unit/.coverage.shard-3",
      "data/tests/.coverage.shard-4",
      "services/data/tests/.coverage.shard-5",
    ]) {
      mkdirSync(r.path(dirname(shard)), { recursive: true });
      copyFileSync(join(r.dir, ".coverage"), r.path(shard));
      r.git("add", "-f", shard);
      r.git("commit", "-q", "-m", "a shard");
      const line = expectRefusal(
        runCli(["audit", "--base", "base", "-q"], { cwd: r.dir }),
        "coverage-data-in-patch",
      );
      expect(line).toContain(`the coverage data ${shard} is part of the patch`);
      expect(line).toMatch(
        /belongs in a fixtures or testdata directory below the tests \(tests\/fixtures\/\)\)$/,
      );
      r.git("rm", "-q", "--cached", shard);
      r.git("commit", "-q", "-m", "untrack the shard");
      rmSync(r.path(shard));
    }

    // A work-tree patch lists untracked files, the run's own data among them: not refused.
    r.write(
      "src/billing/__init__.py",
      `${readFileSync(r.path("src/billing/__init__.py"), "utf8")}# x\n`,
    );
    const worktree = runCli(["audit", "--worktree", "-q"], { cwd: r.dir });
    expect(worktree.stderr).toBe("");
    expect(worktree.status).toBe(0);
  });
});

describe("production code in a file named like a test", () => {
  // app/ab_test.py, load_test.py: the default globs take them for tests, but the data measures
  // them as source and no test lives in them. Outside test directories they are audited.
  it("is audited when the data measures it and no test lives in it", () => {
    const r = demo();
    // The data recorded the module as src/billing/proration.py; the patch names it like a test.
    r.git("mv", "src/billing/proration.py", "src/billing/proration_test.py");
    r.git("commit", "-q", "-m", "rename");
    const map = ["--path-map", "src/billing/proration.py=src/billing/proration_test.py"];
    const named = runCli(["audit", "--base", "base", "-q", ...map], { cwd: r.dir });
    expect(named.stderr).toBe("");
    expect(named.stdout).toBe("FAIL: 1 changed line is covered only by frozen tests (shadowed)\n");
    expect(named.status).toBe(1);

    // Globs given explicitly are the user's word: not audited, as they say.
    const explicit = runCli(
      ["audit", "--base", "base", ...map, "--test-files", "tests/**", "--test-files", "*_test.py"],
      { cwd: r.dir },
    );
    expect(explicit.stdout).toMatch(
      /^not audited: src\/billing\/proration_test\.py \(test file\)/m,
    );
    expect(explicit.status).toBe(0);

    // In a test directory it stays a test file.
    r.git("mv", "src", "testing");
    r.git("commit", "-q", "-m", "move");
    const moved = runCli(
      [
        "audit",
        "--base",
        "base",
        "--path-map",
        "src/billing/proration.py=testing/billing/proration_test.py",
      ],
      { cwd: r.dir },
    );
    expect(moved.stdout).toMatch(
      /^not audited: .*testing\/billing\/proration_test\.py \(test file\)/m,
    );
  });
});

describe("a patch none of whose changed files is in the data", () => {
  function base2(r: TempRepo, files: Record<string, string>): void {
    commitFiles(r, files, "base2");
    r.git("branch", "base2");
  }

  it("is unmeasured where the data measures nothing (docs/conf.py, a release's setup.py)", () => {
    const r = demo();
    base2(r, { "docs/conf.py": 'release = "0.3.0"\n', "setup.py": "VERSION = '0.3.0'\n" });
    commitFiles(r, { "docs/conf.py": 'release = "0.3.1"\n', "setup.py": "VERSION = '0.3.1'\n" });
    const run = runCli(["audit", "--base", "base2"], { cwd: r.dir });
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/^docs\/conf\.py: 1 unmeasured$/m);
    expect(run.status).toBe(0);
    const doctor = runCli(["doctor", "--base", "base2"], { cwd: r.dir });
    expect(doctor.stdout).not.toMatch(/^FAIL/m);
  });

  it("is unmeasured beside measured files too: a module no test imports", () => {
    const r = demo();
    base2(r, { "src/billing/__main__.py": "RATE = 1\n" });
    commitFiles(r, { "src/billing/__main__.py": "RATE = 2\n" });
    const run = runCli(["audit", "--base", "base2"], { cwd: r.dir });
    expect(run.stderr).toBe("");
    expect(run.stdout).toMatch(/^src\/billing\/__main__\.py: 1 unmeasured$/m);
    expect(run.status).toBe(0);
  });

  it("is refused when the data measures another copy of a changed file (a build)", () => {
    const r = demo();
    const source = readFileSync(r.path(SOURCE), "utf8");
    // Another module of the same name, with its own text: simply unmeasured.
    base2(r, { "lib/billing/proration.py": "RATE = 1\n" });
    commitFiles(r, { "lib/billing/proration.py": "RATE = 2\n" });
    const other = runCli(["audit", "--base", "base2", "-q"], { cwd: r.dir });
    expect(other.stderr).toBe("");
    expect(other.status).toBe(0);
    // A copy of the measured file (a build of this checkout): the tests ran the copy.
    commitFiles(r, { "lib/billing/proration.py": source });
    const message = expectRefusal(
      runCli(["audit", "--base", "base2"], { cwd: r.dir }),
      "tests-ran-a-copy",
    );
    expect(message).toContain(
      "which measures src/billing/proration.py instead of lib/billing/proration.py",
    );
    const doctor = runCli(["doctor", "--base", "base2"], { cwd: r.dir });
    expect(doctor.stdout).toContain(
      `FAIL  freshness: error[tests-ran-a-copy]: ${message.split(" (fix: ")[0]}`,
    );
    expect(doctor.status).toBe(2);
  });

  it("is refused when the data measures a build git does not track, kept from before the patch", () => {
    const r = demo();
    // The data as a run of a build/lib copy made at the merge base writes it.
    const built = join(r.dir, "built.coverage");
    copyFileSync(join(r.dir, ".coverage"), built);
    const db = new DatabaseSync(built);
    db.prepare("UPDATE file SET path = replace(path, 'src/', 'build/lib/')").run();
    db.close();
    r.write(
      "build/lib/billing/__init__.py",
      readFileSync(r.path("src/billing/__init__.py"), "utf8"),
    );
    r.write("build/lib/billing/proration.py", r.git("show", `base:${SOURCE}`));
    expect(
      expectRefusal(
        runCli(["audit", "--base", "base", "--coverage", built], { cwd: r.dir }),
        "tests-ran-a-copy",
      ),
    ).toContain(`which measures build/lib/billing/proration.py instead of ${SOURCE}`);
  });
});
