// The CLI end to end on the bundled example: real git, real coverage data recorded by
// pytest-cov (committed with the example), the built binary. Needs no Python.

import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import type { TempRepo } from "../helpers/git-repo.js";
import { expectGolden, normalize } from "../helpers/golden.js";
import { assertMatchesSchema } from "../helpers/schema.js";

let repo: TempRepo;

beforeAll(() => {
  repo = makeDemoRepo();
  writeFileSync(join(repo.dir, "empty.json"), '{"frozen": []}\n');
});
afterAll(() => repo.cleanup());

describe("freezegate audit on the bundled example", () => {
  it("reports the shadowed line with its frozen test and fails the gate (text golden)", () => {
    const r = runCli(["audit", "--base", "base"], { cwd: repo.dir });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    expectGolden("demo-audit.txt", normalize(r.stdout, { [repo.dir]: "<repo>" }));
  });

  it("writes the JSON contract (golden) and the same verdicts as the text", () => {
    const r = runCli(["audit", "--base", "base", "--format", "json"], { cwd: repo.dir });
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout);
    assertMatchesSchema("audit-report.schema.json", report);
    expect(report.schema).toBe("freezegate/audit");
    expect(report.schemaVersion).toBe(1);
    expect(report.summary.counts).toEqual({
      defended: 1,
      shadowed: 1,
      "fixture-only": 0,
      uncovered: 7,
      unmeasured: 0,
      "not-code": 3,
    });
    const shadowed = report.files[0].lines.filter(
      (l: { verdict: string }) => l.verdict === "shadowed",
    );
    expect(shadowed).toEqual([
      {
        line: 13,
        verdict: "shadowed",
        statement: 13,
        tests: [],
        frozenTests: ["tests/test_billing.py::test_proration_rounds_half_up"],
        fixtureTests: [],
        outsideTests: false,
      },
    ]);
    expectGolden("demo-audit.json", normalize(r.stdout, { [repo.dir]: "<repo>" }));
  });

  it("ends right after answering, with every byte of a report larger than a pipe holds", () => {
    // The audit ends the process as soon as it has answered (no wind-down of Node's event
    // loop): a report bigger than the 64 KB a pipe buffers must still arrive whole.
    const big = makeDemoRepo();
    try {
      const lines = Array.from({ length: 800 }, (_, i) => `VALUE_${i} = ${i}\n`).join("");
      writeFileSync(join(big.dir, "big_module.py"), lines);
      big.git("add", "big_module.py");
      big.git("commit", "-q", "-m", "a big new module");
      const r = runCli(["audit", "--base", "base", "--format", "json"], { cwd: big.dir });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(1);
      expect(Buffer.byteLength(r.stdout)).toBeGreaterThan(64 * 1024);
      const report = JSON.parse(r.stdout);
      expect(report.summary.counts.unmeasured).toBe(800);
    } finally {
      big.cleanup();
    }
  });

  it("--output writes the report to a file and nothing to stdout", () => {
    const r = runCli(["audit", "--base", "base", "--format", "json", "-o", "out.json"], {
      cwd: repo.dir,
    });
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(JSON.parse(readFileSync(join(repo.dir, "out.json"), "utf8")).gate.passed).toBe(false);
  });

  it("passes once the frozen test is back (exit 0)", () => {
    // A missing frozen file is an input error, not "nothing frozen".
    const r = runCli(["audit", "--base", "base", "--frozen", "missing.json"], { cwd: repo.dir });
    expect(expectOneLineError(r)).toMatch(
      /^freezegate: error\[file-not-found\]: frozen-test file not found: .*missing\.json/,
    );
    const ok = runCli(["audit", "--base", "base", "--frozen", "empty.json"], { cwd: repo.dir });
    expect(ok.status).toBe(0);
    expect(ok.stdout).toMatch(/summary: 2 defended, 0 shadowed/);
    expect(ok.stdout).toMatch(/^PASS: /m);
  });

  it("--fail-on uncovered adds uncovered lines to the gate", () => {
    const r = runCli(
      ["audit", "--base", "base", "--frozen", "empty.json", "--fail-on", "uncovered"],
      {
        cwd: repo.dir,
      },
    );
    expect(r.status).toBe(1);
    expect(r.stdout).toMatch(/^FAIL: 7 changed lines are executed by no test \(uncovered\)$/m);
  });

  it("audits a user-supplied diff from stdin the same way as --base", () => {
    const diff = repo.git("diff", "base...HEAD");
    const viaDiff = runCli(["audit", "--diff", "-", "--format", "json"], {
      cwd: repo.dir,
      input: diff,
    });
    const viaBase = runCli(["audit", "--base", "base", "--format", "json"], { cwd: repo.dir });
    expect(viaDiff.status).toBe(1);
    expect(JSON.parse(viaDiff.stdout).files).toEqual(JSON.parse(viaBase.stdout).files);
    expect(JSON.parse(viaDiff.stdout).patch).toEqual({ source: "diff", file: "-" });
  });
});

describe("usage", () => {
  it.each(["audit", "doctor"])("%s --help prints usage and exits 0", (cmd) => {
    const r = runCli([cmd, "--help"], { cwd: repo.dir });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Usage: freezegate ${cmd} `));
    expect(r.stdout).toMatch(/--help/);
  });

  it("audit runs from its own bundle and says what the full CLI says about it", () => {
    // `freezegate audit ...` loads dist/bin/audit.cjs, `freezegate help audit` the full CLI.
    const own = runCli(["audit", "--help"], { cwd: repo.dir });
    const full = runCli(["help", "audit"], { cwd: repo.dir });
    expect(own.status).toBe(0);
    expect(full.status).toBe(0);
    expect(own.stdout).toBe(full.stdout);
    expect(own.stdout).toMatch(/^Usage: freezegate audit /);
  });

  it("--help and --version", () => {
    const help = runCli(["--help"], { cwd: repo.dir });
    expect(help.status).toBe(0);
    expect(help.stdout).toMatch(/^Usage: freezegate <command>/);
    const version = runCli(["--version"], { cwd: repo.dir });
    const pkg = JSON.parse(readFileSync(join(__dirname, "../../package.json"), "utf8"));
    expect(version.stdout).toBe(`${pkg.version}\n`);
  });

  it.each([
    [["frobnicate"], "unknown-command", /"frobnicate"/],
    [["audit"], "nothing-to-audit", /\(fix: pass --base REF/],
    [["audit", "--base", "base", "--staged"], "patch-sources-combined", /--base and --staged/],
    [["audit", "--bsae", "base"], "bad-arguments", /audit: Unknown option '--bsae'/],
    [["audit", "--base", "base", "--format", "xml"], "unknown-format", /"xml"/],
    [["audit", "--base", "base", "--fail-on", "shadowy"], "bad-fail-on", /--fail-on: .*"shadowy"/],
    [["audit", "--base", "base", "--path-map", "/app"], "path-map-no-equals", /"\/app"/],
  ])("%j is a one-line usage error", (args, code, field) => {
    expect(expectRefusal(runCli(args, { cwd: repo.dir }), code)).toMatch(field);
  });
});

describe("bad input is exit 2 with one line, never a pass", () => {
  it("not a git repository", () => {
    const r = runCli(["audit", "--base", "main"], { cwd: "/" });
    expect(expectOneLineError(r)).toMatch(/not .*git repository/i);
  });

  it("unknown base", () => {
    expect(
      expectOneLineError(runCli(["audit", "--base", "origin/nope"], { cwd: repo.dir })),
    ).toMatch(/origin\/nope/);
  });

  it("coverage data that is not SQLite", () => {
    writeFileSync(join(repo.dir, "bogus.coverage"), "this is not a database\n");
    const r = runCli(["audit", "--base", "base", "--coverage", "bogus.coverage"], {
      cwd: repo.dir,
    });
    expect(expectOneLineError(r)).toMatch(/bogus\.coverage/);
  });

  it("a malformed frozen file", () => {
    writeFileSync(join(repo.dir, "bad.json"), '{"frozen": "tests/test_billing.py::x"}');
    const r = runCli(["audit", "--base", "base", "--frozen", "bad.json"], { cwd: repo.dir });
    expect(expectRefusal(r, "frozen-list-malformed")).toMatch(
      /bad\.json is malformed: "frozen" is not an array/,
    );
    writeFileSync(join(repo.dir, "bad.json"), '{"frozen": [');
    const r2 = runCli(["audit", "--base", "base", "--frozen", "bad.json"], { cwd: repo.dir });
    expect(expectOneLineError(r2)).toMatch(/bad\.json is not valid JSON/);
  });

  it("a frozen id that matches no test (suffix matching would have hidden it)", () => {
    writeFileSync(
      join(repo.dir, "typo.json"),
      '{"frozen": ["test_billing.py::test_proration_rounds_half_up"]}',
    );
    const r = runCli(["audit", "--base", "base", "--frozen", "typo.json"], { cwd: repo.dir });
    expect(expectRefusal(r, "frozen-ids-unresolved")).toMatch(
      /1 frozen id\(s\) in .*typo\.json .*"test_billing\.py::test_proration_rounds_half_up"; the data names this test with "tests\/" in front/,
    );
    // The test exists and ran under that name: --allow-unresolved, for tests that are gone,
    // does not waive it.
    const waived = runCli(
      ["audit", "--base", "base", "--frozen", "typo.json", "--allow-unresolved"],
      { cwd: repo.dir },
    );
    expect(expectOneLineError(waived)).toBe(r.stderr.trimEnd());
  });

  it("a frozen id of a test that is gone: the fix names deselection; --allow-unresolved waives it", () => {
    writeFileSync(
      join(repo.dir, "gone.json"),
      '{"frozen": ["tests/test_billing.py::test_removed_long_ago"]}',
    );
    const r = runCli(["audit", "--base", "base", "--frozen", "gone.json"], { cwd: repo.dir });
    expect(expectRefusal(r, "frozen-ids-unresolved")).toMatch(
      /1 frozen id\(s\) in .*gone\.json .*: "tests\/test_billing\.py::test_removed_long_ago"/,
    );
    // The fix names deselection too: --allow-unresolved is only for tests that are gone.
    expect(r.stderr).toContain(
      "(fix: use exact pytest node ids (as in `pytest --collect-only -q`); a frozen test that exists but did not run (deselected with -k, -m or --deselect) must run, its lines are unknown otherwise; pass --allow-unresolved only for tests that no longer exist)",
    );
    const allowed = runCli(
      ["audit", "--base", "base", "--frozen", "gone.json", "--allow-unresolved"],
      {
        cwd: repo.dir,
      },
    );
    expect(allowed.status).toBe(0);
    expect(allowed.stdout).toMatch(/warning: frozen ids matching no test \(allowed\)/);
  });

  it("stale data: the file changed after the tests ran", () => {
    const file = join(repo.dir, "src/billing/proration.py");
    const original = readFileSync(file, "utf8");
    try {
      writeFileSync(file, `# a new header line\n\n${original}`);
      // commit only the tracked change (git add -A would sweep in the untracked test files)
      repo.git("commit", "-q", "-a", "-m", "shift every line by two");
      const r = runCli(["audit", "--base", "base"], { cwd: repo.dir });
      expect(expectRefusal(r, "coverage-data-stale")).toMatch(
        /the coverage data does not match src\/billing\/proration\.py on disk \(line \d+ is recorded as executed, but it is (blank|a comment)\)/,
      );
    } finally {
      repo.git("reset", "-q", "--hard", "HEAD~1");
    }
  });

  it("uncommitted edits to a changed file when auditing a range", () => {
    const file = join(repo.dir, "src/billing/proration.py");
    const original = readFileSync(file, "utf8");
    try {
      writeFileSync(file, `${original}\n# local edit\n`);
      const r = runCli(["audit", "--base", "base"], { cwd: repo.dir });
      expect(expectRefusal(r, "changed-files-differ-from-head")).toMatch(
        /differ from HEAD: "src\/billing\/proration\.py"/,
      );
      // An explicit head that is the checked-out commit: the same check, and the same advice
      // (it is checked out already).
      const other = runCli(["audit", "--base", "base", "--head", "main"], { cwd: repo.dir });
      expect(expectRefusal(other, "changed-files-differ-from-head")).toMatch(
        /on disk differ from main: "src\/billing\/proration\.py".*\(fix: commit or stash the changes/,
      );
      // A head that is not checked out (a commit on top of HEAD, same files): the bytes on
      // disk must be that commit's.
      const ahead = repo.git("commit-tree", "HEAD^{tree}", "-p", "HEAD", "-m", "ahead").trim();
      repo.git("branch", "-f", "ahead", ahead);
      const other2 = runCli(["audit", "--base", "base", "--head", "ahead"], { cwd: repo.dir });
      expect(expectRefusal(other2, "changed-files-differ-from-head")).toMatch(
        /on disk differ from ahead: "src\/billing\/proration\.py".*\(fix: check out ahead, run the tests/,
      );
      writeFileSync(file, original);
      expect(runCli(["audit", "--base", "base", "--head", "main"], { cwd: repo.dir }).status).toBe(
        1,
      );
    } finally {
      writeFileSync(file, original);
    }
  });

  it("data whose paths map nowhere, and the --path-map that fixes it", () => {
    // The same data as recorded in a container under /app: absolute paths from elsewhere.
    copyFileSync(join(repo.dir, ".coverage"), join(repo.dir, "moved.coverage"));
    const db = new DatabaseSync(join(repo.dir, "moved.coverage"));
    db.prepare("UPDATE file SET path = '/app/' || path").run();
    db.close();
    const r = runCli(["audit", "--base", "base", "--coverage", "moved.coverage"], {
      cwd: repo.dir,
    });
    // The fix names the root the data was recorded under, found by a file of the repository.
    const line = expectRefusal(r, "coverage-paths-unmapped");
    expect(line).toMatch(/ maps onto the repository .*: data has "\/app\/src\/billing\//);
    const recorded =
      /\(fix: the data records (\S+) as "\/app\/(\S+)": map that root onto the repository with --path-map "\/app\/=\.", or record with relative_files = true\)$/.exec(
        line,
      );
    expect(recorded, line).not.toBeNull();
    expect(recorded?.[1]).toBe(recorded?.[2]);
    expect(existsSync(join(repo.dir, recorded?.[1] ?? "missing"))).toBe(true);
    const doctor = runCli(["doctor", "--base", "base", "--coverage", "moved.coverage"], {
      cwd: repo.dir,
    });
    expect(doctor.stdout).toContain('map that root onto the repository with --path-map "/app/=."');
    const mapped = runCli(
      ["audit", "--base", "base", "--coverage", "moved.coverage", "--path-map", "/app/=."],
      { cwd: repo.dir },
    );
    expect(mapped.status).toBe(1);
    expect(mapped.stdout).toMatch(/SHADOWED 13: only frozen tests cover it/);
  });

  it("an unknown key in pyproject.toml", () => {
    writeFileSync(join(repo.dir, "pyproject.toml"), '[tool.freezegate]\nfail_on = ["uncovered"]\n');
    try {
      const r = runCli(["audit", "--base", "base"], { cwd: repo.dir });
      expect(expectOneLineError(r)).toMatch(
        /pyproject\.toml \[tool\.freezegate\]: unknown key "fail_on" \(fix: did you mean "fail-on"\?\)/,
      );
    } finally {
      repo.remove("pyproject.toml");
    }
  });

  it("defaults from package.json apply; settings in both files are refused", () => {
    writeFileSync(
      join(repo.dir, "package.json"),
      JSON.stringify({ name: "shop", freezegate: { base: "base", frozen: "empty.json" } }),
    );
    try {
      const r = runCli(["audit"], { cwd: repo.dir });
      expect(r.status).toBe(0);
      expect(r.stdout).toMatch(/frozen: empty\.json \(0 tests\)/);
      writeFileSync(join(repo.dir, "pyproject.toml"), '[tool.freezegate]\nbase = "base"\n');
      expect(expectOneLineError(runCli(["audit"], { cwd: repo.dir }))).toMatch(
        /settings are in both pyproject\.toml \[tool\.freezegate\] and package\.json "freezegate" \(fix: keep them in one place\)/,
      );
    } finally {
      repo.remove("package.json");
      repo.remove("pyproject.toml");
    }
  });

  it("a key repeated in package.json's freezegate settings is refused; one elsewhere is npm's", () => {
    const settings = '{"base": "base", "frozen": "quarantine.json", "frozen": "empty.json"}';
    try {
      writeFileSync(join(repo.dir, "package.json"), `{"name": "shop", "freezegate": ${settings}}`);
      expect(expectOneLineError(runCli(["audit", "-q"], { cwd: repo.dir }))).toBe(
        'freezegate: error[json-duplicate-key]: package.json has the key "frozen" twice in $.freezegate: JSON readers keep only the last one, a person reading the file sees the first (fix: keep one "frozen" in $.freezegate)',
      );
      const twice = '{"name": "shop", "freezegate": {"base": "x"}, "freezegate": {"base": "base"}}';
      writeFileSync(join(repo.dir, "package.json"), twice);
      expect(expectOneLineError(runCli(["audit", "-q"], { cwd: repo.dir }))).toContain(
        'package.json has the key "freezegate" twice in $',
      );
      const elsewhere =
        '{"name": "shop", "scripts": {"t": "a", "t": "b"}, "freezegate": {"base": "base", "frozen": "empty.json"}}';
      writeFileSync(join(repo.dir, "package.json"), elsewhere);
      expect(runCli(["audit", "-q"], { cwd: repo.dir }).status).toBe(0);
    } finally {
      repo.remove("package.json");
    }
  });

  it("reads the freeze ledger's freezes[].test_id as the frozen list", () => {
    writeFileSync(
      join(repo.dir, "ledger.json"),
      JSON.stringify({
        schema: 1,
        freezes: [
          {
            test_id: "tests/test_billing.py::test_proration_rounds_half_up",
            owner: "finley",
            opened: "2026-11-20",
            expires: "2026-12-04",
          },
        ],
      }),
    );
    const r = runCli(["audit", "--base", "base", "--frozen", "ledger.json", "--format", "json"], {
      cwd: repo.dir,
    });
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(report.frozen).toMatchObject({ file: "ledger.json", format: "ledger", entries: 1 });
    expect(report.summary.counts.shadowed).toBe(1);
  });

  it("no coverage data in the repository", () => {
    repo.git("mv", ".coverage", "kept.coverage");
    try {
      expect(expectOneLineError(runCli(["audit", "--base", "base"], { cwd: repo.dir }))).toMatch(
        /no coverage data found in /,
      );
    } finally {
      repo.git("mv", "kept.coverage", ".coverage");
    }
  });

  it("--worktree audits uncommitted edits, including new files", () => {
    writeFileSync(join(repo.dir, "src/billing/extra.py"), "def unused():\n    return 1\n");
    try {
      const r = runCli(["audit", "--worktree", "--format", "json"], { cwd: repo.dir });
      expect(r.status).toBe(0);
      const report = JSON.parse(r.stdout);
      expect(report.patch).toEqual({ source: "worktree" });
      expect(report.files.map((f: { path: string; status: string }) => [f.path, f.status])).toEqual(
        [["src/billing/extra.py", "added"]],
      );
      expect(report.files[0].lines.map((l: { verdict: string }) => l.verdict)).toEqual([
        "unmeasured",
        "unmeasured",
      ]);
    } finally {
      repo.remove("src/billing/extra.py");
    }
  });

  it("defaults from pyproject.toml apply, and flags win", () => {
    writeFileSync(
      join(repo.dir, "pyproject.toml"),
      '[tool.freezegate]\nbase = "base"\nfail-on = ["uncovered"]\n',
    );
    try {
      const fromConfig = runCli(["audit", "--frozen", "empty.json"], { cwd: repo.dir });
      expect(fromConfig.stdout).toMatch(/FAIL: 7 changed lines are executed by no test/);
      const flagWins = runCli(["audit", "--frozen", "empty.json", "--staged"], { cwd: repo.dir });
      expect(flagWins.stdout).toMatch(/audit of staged changes: 0 files/);
      expect(flagWins.status).toBe(0);
    } finally {
      repo.remove("pyproject.toml");
    }
  });
});

describe("what an audit loads", () => {
  it("no node:crypto for an audit of a range: its blob ids are hashed in WebAssembly", () => {
    // node:crypto costs more to load than all the hashing (docs/performance.md).
    const dir = mkdtempSync(join(tmpdir(), "freezegate-loaded-"));
    try {
      const preload = join(dir, "loaded.cjs");
      writeFileSync(
        preload,
        'process.on("exit", () => process.stderr.write("loaded: " + process.moduleLoadList + "\\n"));\n',
      );
      const r = runCli(["audit", "--base", "base", "--format", "json"], {
        cwd: repo.dir,
        env: { NODE_OPTIONS: `--require ${preload}` },
      });
      expect(r.status).toBe(1);
      const loaded = /^loaded: (.*)$/m.exec(r.stderr)?.[1]?.split(",") ?? [];
      expect(loaded).toContain("NativeModule child_process");
      expect(loaded).not.toContain("NativeModule crypto");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("audit's code cache", () => {
  const args = ["audit", "--base", "base", "--format", "json"];
  const timing = { FREEZEGATE_TIMING: "1" };
  const cacheState = (stderr: string) => /^timing: code cache (\w+)$/m.exec(stderr)?.[1];

  it("the build leaves one that the binary uses", () => {
    const r = runCli(args, { cwd: repo.dir, env: timing });
    expect(r.status).toBe(1);
    expect(cacheState(r.stderr)).toBe("used");
    // V8 stops optimizing once the data is read (run-process.ts); the build's sample run,
    // which writes the cache, must not (V8 would refuse a cache made under other flags).
    const phases = [...r.stderr.matchAll(/^timing: (.+?) +\+/gm)].map((m) => m[1]);
    expect(phases.indexOf("optimizing stopped")).toBe(phases.indexOf("executed lines") + 1);
  });

  it("is skipped when missing, made for another audit.cjs, or refused by V8; same report", () => {
    const reference = runCli(args, { cwd: repo.dir });
    expect(reference.status).toBe(1);
    // A copy of dist/bin inside dist/, so that package.json resolves the same.
    const bin = mkdtempSync(join(REPO_ROOT, "dist", "bin-test-"));
    try {
      cpSync(join(REPO_ROOT, "dist/bin"), bin, { recursive: true });
      const cache = join(bin, "audit.cjs.v8cache");
      const original = readFileSync(cache);
      const source = readFileSync(join(bin, "audit.cjs"));
      const header = Buffer.from(`freezegate code cache 1\n${source.length}\n`);
      const v8data = original.subarray(header.length + source.length);
      expect(original.subarray(0, header.length + source.length)).toEqual(
        Buffer.concat([header, source]),
      );
      // The same length, one byte changed: V8's own check (the length) would take it.
      const edited = Buffer.from(source);
      edited.writeUInt8(edited.readUInt8(edited.length - 2) ^ 1, edited.length - 2);
      const cases: [string, Buffer | null][] = [
        ["used", original],
        ["none", null],
        ["stale", Buffer.concat([header, edited, v8data])],
        [
          "stale",
          Buffer.concat([
            Buffer.from(`freezegate code cache 0\n${source.length}\n`),
            source,
            v8data,
          ]),
        ],
        ["stale", Buffer.concat([header, source])],
        ["stale", header],
        ["stale", Buffer.alloc(0)],
        ["rejected", Buffer.concat([header, source, Buffer.alloc(4096, 7)])],
      ];
      for (const [state, bytes] of cases) {
        rmSync(cache, { force: true });
        if (bytes !== null) writeFileSync(cache, bytes);
        const r = runCli(args, { cwd: repo.dir, env: timing, bin: join(bin, "freezegate.cjs") });
        expect(cacheState(r.stderr), state).toBe(state);
        expect(r.status, state).toBe(1);
        expect(r.stdout, state).toBe(reference.stdout);
      }
      // A cache that cannot be written (here: a directory in its place) changes no exit code.
      rmSync(cache, { force: true });
      mkdirSync(cache);
      const unwritable = runCli(args, {
        cwd: repo.dir,
        env: { FREEZEGATE_WRITE_CODE_CACHE: "1" },
        bin: join(bin, "freezegate.cjs"),
      });
      expect(unwritable.status).toBe(1);
      expect(unwritable.stdout).toBe(reference.stdout);
      expect(unwritable.stderr).toMatch(/^freezegate: no code cache written: .*EISDIR/);
      // A bundle that cannot load is freezegate's bug: exit 2, never 1 (a failed gate).
      writeFileSync(join(bin, "audit.cjs"), 'throw new Error("broken bundle");\n');
      const broken = runCli(args, { cwd: repo.dir, bin: join(bin, "freezegate.cjs") });
      expect(broken.status).toBe(2);
      expect(broken.stderr).toBe("freezegate: internal error: Error: broken bundle\n");
      expect(broken.stdout).toBe("");
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  });
});
