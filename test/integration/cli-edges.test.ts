// The edges of the audit/doctor command line: values that are empty or
// repeated, report files that are not plain files, pipes closed early, defaults that must not
// fail open. Real git, the bundled example's real coverage data, the built binary.

import { execFileSync, spawn } from "node:child_process";
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { guessRepoRoot } from "../../src/adapters/git.js";
import { AuditAbandoned, runAudit } from "../../src/app/run-audit.js";
import { prepareAudit } from "../../src/cli/commands/audit.js";
import { DEFAULT_TEST_GLOBS } from "../../src/core/globs.js";
import { CLI, expectOneLineError, expectRefusal, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import { isolatedGitEnv, type TempRepo } from "../helpers/git-repo.js";
import { assertMatchesSchema } from "../helpers/schema.js";

let repo: TempRepo;

beforeAll(() => {
  repo = makeDemoRepo();
  writeFileSync(join(repo.dir, "empty.json"), '{"frozen": []}\n');
});
afterAll(() => repo.cleanup());

describe("an empty value is a usage error, never an empty patch or a dropped default", () => {
  it('--base "" is exit 2 (it would audit HEAD...HEAD and pass)', () => {
    const line = expectOneLineError(runCli(["audit", "--base", "", "-q"], { cwd: repo.dir }));
    expect(line).toContain("--base has an empty value; it needs REF");
    // Also when the config file names a base: the empty flag must not override it quietly.
    writeFileSync(join(repo.dir, "pyproject.toml"), '[tool.freezegate]\nbase = "base"\n');
    try {
      expectOneLineError(runCli(["audit", "--base", "", "-q"], { cwd: repo.dir }));
      expectOneLineError(runCli(["doctor", "--base", ""], { cwd: repo.dir }));
    } finally {
      rmSync(join(repo.dir, "pyproject.toml"), { force: true });
    }
  });

  it.each([
    ["--frozen", "FILE"],
    ["--diff", "FILE|-"],
    ["--coverage", "PATH"],
    ["--test-root", "DIR"],
    ["--test-files", "GLOB"],
    ["--fail-on", "VERDICTS"],
    ["--history", "FILE"],
  ])('%s "" says the flag needs a value', (flag, what) => {
    const args =
      flag === "--diff" ? ["audit", flag, "", "-q"] : ["audit", "--base", "base", flag, "", "-q"];
    const line = expectOneLineError(runCli(args, { cwd: repo.dir }));
    expect(line).toContain(`${flag} has an empty value; it needs ${what}`);
    expect(line).toContain("(fix: ");
  });

  it('--fail-on with an empty list item, and fail-on = [""] in the config, are exit 2', () => {
    expect(
      expectRefusal(
        runCli(["audit", "--base", "base", "-q", "--fail-on", "uncovered,"], { cwd: repo.dir }),
        "bad-fail-on",
      ),
    ).toContain('--fail-on "uncovered," has an empty item');
    expectRefusal(
      runCli(["audit", "--base", "base", "-q", "--fail-on", ",uncovered"], { cwd: repo.dir }),
      "bad-fail-on",
    );
    writeFileSync(join(repo.dir, "pyproject.toml"), '[tool.freezegate]\nfail-on = [""]\n');
    try {
      const line = expectOneLineError(runCli(["audit", "--base", "base", "-q"], { cwd: repo.dir }));
      expect(line).toContain('"fail-on" has an empty value');
      writeFileSync(
        join(repo.dir, "pyproject.toml"),
        '[tool.freezegate]\nfail-on = ["uncovered,"]\n',
      );
      // A config value is named as the config's, not as a flag the user did not pass.
      expect(
        expectRefusal(runCli(["audit", "--base", "base", "-q"], { cwd: repo.dir }), "bad-fail-on"),
      ).toContain('the config file\'s "fail-on" "uncovered," has an empty item');
    } finally {
      rmSync(join(repo.dir, "pyproject.toml"), { force: true });
    }
  });
});

describe("--diff reads files and stdin by one rule, in audit and doctor", () => {
  it.each([
    ["an empty file", ""],
    ["a blank file", "\n\n  \n"],
  ])("%s is exit 2, like empty stdin (a failed git diff > patch.diff)", (_name, text) => {
    writeFileSync(join(repo.dir, "patch.diff"), text);
    try {
      for (const cmd of ["audit", "doctor"]) {
        const line = expectRefusal(
          runCli([cmd, "--diff", "patch.diff", "--frozen", "empty.json"], { cwd: repo.dir }),
          "diff-empty",
        );
        expect(line).toContain("patch.diff is empty");
      }
    } finally {
      rmSync(join(repo.dir, "patch.diff"));
    }
  });

  it("/dev/null is an empty diff too", () => {
    expect(
      expectRefusal(
        runCli(["audit", "--diff", "/dev/null", "-q"], { cwd: repo.dir }),
        "diff-empty",
      ),
    ).toContain("/dev/null is empty");
  });

  it("doctor --diff - reads the diff from stdin, as audit does", () => {
    const diff = repo.git("diff", "base...HEAD");
    const r = runCli(["doctor", "--diff", "-", "--format", "json"], {
      cwd: repo.dir,
      input: diff,
    });
    expect(r.stderr).toBe("");
    assertMatchesSchema("doctor-report.schema.json", JSON.parse(r.stdout));
    const freshness = JSON.parse(r.stdout).checks.find((c: { id: string }) => c.id === "freshness");
    // Compared (ok, or warn: a fresh checkout is newer than the committed data), not skipped.
    expect(["ok", "warn"]).toContain(freshness.status);
    expect(freshness.message).toMatch(
      /matches the 1 changed file|1 changed file\(s\) were modified/,
    );
    expect(r.status).toBe(0);
    expect(
      expectRefusal(runCli(["doctor", "--diff", "-"], { cwd: repo.dir, input: "" }), "diff-empty"),
    ).toContain("stdin is empty");
  });
});

describe("--output writes through what is not a regular file, and never over an input", () => {
  const audit = ["audit", "--base", "base", "--format", "json"];

  it("a symlink to a regular file: the link stays, the file it names gets the report", () => {
    const dir = mkdtempSync(join(tmpdir(), "fg-out-"));
    try {
      writeFileSync(join(dir, "real.json"), "keep");
      symlinkSync("real.json", join(dir, "report.json"));
      const r = runCli([...audit, "--output", join(dir, "report.json")], { cwd: repo.dir });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(1);
      expect(lstatSync(join(dir, "report.json")).isSymbolicLink()).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, "real.json"), "utf8")).schema).toBe(
        "freezegate/audit",
      );
      expect(readdirSync(dir).sort()).toEqual(["real.json", "report.json"]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a link to the process's stdout (the /dev/stdout idiom) writes to stdout", () => {
    const dir = mkdtempSync(join(tmpdir(), "fg-out-"));
    try {
      symlinkSync("/proc/self/fd/1", join(dir, "mystdout"));
      const r = runCli(["audit", "--base", "base", "-q", "--output", `json=${dir}/mystdout`], {
        cwd: repo.dir,
      });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(1);
      expect(r.stdout).toContain('"schema": "freezegate/audit"');
      expect(lstatSync(join(dir, "mystdout")).isSymbolicLink()).toBe(true);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a FIFO is written to, not replaced", async () => {
    const dir = mkdtempSync(join(tmpdir(), "fg-out-"));
    try {
      execFileSync("mkfifo", [join(dir, "fifo")]);
      // The reader runs in its own process: the CLI below blocks this one until it exits.
      const reader = spawn("sh", ["-c", `cat "${dir}/fifo" > "${dir}/got.json"`]);
      const done = new Promise((resolve) => reader.on("exit", resolve));
      const r = runCli([...audit, "--output", join(dir, "fifo")], { cwd: repo.dir });
      await done;
      expect(r.stderr).toBe("");
      expect(r.status).toBe(1);
      expect(lstatSync(join(dir, "fifo")).isFIFO()).toBe(true);
      expect(JSON.parse(readFileSync(join(dir, "got.json"), "utf8")).schema).toBe(
        "freezegate/audit",
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("- is stdout, with or without a format; no file named - is made", () => {
    const plain = runCli([...audit, "--output", "-"], { cwd: repo.dir });
    expect(plain.status).toBe(1);
    expect(JSON.parse(plain.stdout).schema).toBe("freezegate/audit");
    const json = runCli(["audit", "--base", "base", "--output", "json=-"], { cwd: repo.dir });
    expect(JSON.parse(json.stdout).schema).toBe("freezegate/audit");
    expect(existsSync(join(repo.dir, "-"))).toBe(false);
    expect(
      expectOneLineError(
        runCli(["audit", "--base", "base", "--format", "text", "--output", "json=-"], {
          cwd: repo.dir,
        }),
      ),
    ).toContain("both want stdout");
    expectOneLineError(runCli([...audit, "--output", "=x.json"], { cwd: repo.dir }));
    expect(existsSync(join(repo.dir, "=x.json"))).toBe(false);
  });

  it.each([
    ["quarantine.json", "frozen-test file"],
    [".coverage", "coverage data"],
    ["./src/../quarantine.json", "frozen-test file"],
  ])("--output %s (one of the run's inputs) is exit 2 and leaves it alone", (file, what) => {
    const before = readFileSync(join(repo.dir, file));
    const line = expectOneLineError(runCli([...audit, "--output", file], { cwd: repo.dir }));
    expect(line).toContain(`is the ${what} this run reads`);
    expect(readFileSync(join(repo.dir, file))).toEqual(before);
  });

  it("--output over the diff file or the config file is exit 2", () => {
    writeFileSync(join(repo.dir, "patch.diff"), repo.git("diff", "base...HEAD"));
    writeFileSync(join(repo.dir, "pyproject.toml"), '[tool.freezegate]\nbase = "base"\n');
    try {
      expect(
        expectOneLineError(
          runCli(["audit", "--diff", "patch.diff", "--output", "json=patch.diff"], {
            cwd: repo.dir,
          }),
        ),
      ).toContain("is the diff file");
      expect(
        expectOneLineError(runCli(["audit", "--output", "json=pyproject.toml"], { cwd: repo.dir })),
      ).toContain("is the config file");
    } finally {
      rmSync(join(repo.dir, "patch.diff"));
      rmSync(join(repo.dir, "pyproject.toml"));
    }
  });
});

describe("a reader that closes stdout early (| head)", () => {
  it.each([
    ["json", []],
    ["text", []],
    ["json", ["--fail-on", "uncovered"]],
  ])("--format %s %j: no stack trace, and the gate's own exit code", (format, extra) => {
    const big = makeDemoRepo();
    try {
      // 3000 new uncovered lines: a report far beyond the 64 KB a pipe holds.
      const lines = Array.from({ length: 3000 }, (_, i) => `VALUE_${i} = ${i}\n`).join("");
      writeFileSync(join(big.dir, "big_module.py"), lines);
      writeFileSync(join(big.dir, "empty.json"), '{"frozen": []}\n');
      big.git("add", "big_module.py");
      big.git("commit", "-q", "-m", "a big new module");
      const cmd = [
        process.execPath,
        CLI,
        "audit",
        "--base",
        "base",
        "--frozen",
        "empty.json",
        "--format",
        format,
        ...extra,
      ]
        .map((a) => `'${a}'`)
        .join(" ");
      // A real pipe, closed by its reader after one byte.
      const out = execFileSync(
        "bash",
        ["-c", `${cmd} 2>"$ERR" | head -c1 >/dev/null; echo "rc=\${PIPESTATUS[0]}"`],
        {
          cwd: big.dir,
          env: isolatedGitEnv({ NO_COLOR: "1", ERR: join(big.dir, "stderr.txt") }),
          encoding: "utf8",
        },
      );
      const passes = extra.length === 0;
      expect(out.trim()).toBe(passes ? "rc=0" : "rc=1");
      expect(readFileSync(join(big.dir, "stderr.txt"), "utf8")).toBe("");
    } finally {
      big.cleanup();
    }
  });
});

const LEDGER = {
  version: 1,
  freezes: [
    {
      test_id: "tests/test_billing.py::test_proration_rounds_half_up",
      reason: "r",
      owner: "o",
      opened: "2026-11-20",
      expires: "2026-12-01",
      invariant: "i",
      compensating_property: "tests/test_billing.py::test_refund_of_unused_days",
      reused_property: false,
    },
  ],
  properties: [],
};

describe("the frozen list when --frozen is not given", () => {
  function withoutQuarantine(body: () => void) {
    const kept = readFileSync(join(repo.dir, "quarantine.json"));
    rmSync(join(repo.dir, "quarantine.json"));
    try {
      body();
    } finally {
      writeFileSync(join(repo.dir, "quarantine.json"), kept);
      rmSync(join(repo.dir, "freeze-ledger.json"), { force: true });
      rmSync(join(repo.dir, "gate"), { recursive: true, force: true });
      rmSync(join(repo.dir, "pyproject.toml"), { force: true });
    }
  }

  it("is the freeze ledger in the root when there is no quarantine.json", () => {
    withoutQuarantine(() => {
      writeFileSync(join(repo.dir, "freeze-ledger.json"), JSON.stringify(LEDGER));
      const r = runCli(["audit", "--base", "base", "--format", "json"], { cwd: repo.dir });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(1);
      expect(JSON.parse(r.stdout).frozen.file).toBe("freeze-ledger.json");
    });
  });

  it("is the ledger the config's ledger key names", () => {
    withoutQuarantine(() => {
      mkdirSync(join(repo.dir, "gate"));
      writeFileSync(join(repo.dir, "gate/ledger.json"), JSON.stringify(LEDGER));
      writeFileSync(
        join(repo.dir, "pyproject.toml"),
        '[tool.freezegate]\nledger = "gate/ledger.json"\n',
      );
      const r = runCli(["audit", "--base", "base", "--format", "json"], { cwd: repo.dir });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(1);
      expect(JSON.parse(r.stdout).summary.counts.shadowed).toBe(1);
    });
  });

  it("is exit 2 when both quarantine.json and the ledger are in the root (ledger migrate keeps the list)", () => {
    try {
      // The ledger freezes a test the quarantine list does not: reading one would drop the other.
      writeFileSync(join(repo.dir, "freeze-ledger.json"), JSON.stringify(LEDGER));
      const line = expectRefusal(
        runCli(["audit", "--base", "base", "-q"], { cwd: repo.dir }),
        "frozen-list-ambiguous",
      );
      expect(line).toContain("both quarantine.json and freeze-ledger.json");
      const doctor = runCli(["doctor", "--base", "base"], { cwd: repo.dir });
      expect(doctor.status).toBe(2);
      expect(doctor.stdout).toMatch(
        /^FAIL {2}frozen: error\[frozen-list-ambiguous\]: both quarantine\.json and freeze-ledger\.json/m,
      );
      const named = runCli(["audit", "--base", "base", "-q", "--frozen", "freeze-ledger.json"], {
        cwd: repo.dir,
      });
      expect(named.stderr).toBe("");
      expect(named.status).toBe(1);
    } finally {
      rmSync(join(repo.dir, "freeze-ledger.json"), { force: true });
    }
  });

  it('is exit 2 in audit and a FAIL in doctor when there is none, and the fix says what {"frozen": []} means', () => {
    withoutQuarantine(() => {
      const line = expectOneLineError(runCli(["audit", "--base", "base", "-q"], { cwd: repo.dir }));
      expect(line).toContain("no frozen-test list");
      expect(line).toContain('{"frozen": []}, which declares exactly that');
      const doctor = runCli(["doctor", "--base", "base"], { cwd: repo.dir });
      expect(doctor.status).toBe(2);
      expect(doctor.stdout).toMatch(
        /^FAIL {2}frozen: error\[no-frozen-list\]: no frozen-test list/m,
      );
    });
  });
});

describe("doctor fails where the audit would refuse to run", () => {
  it("changed source files that the path map sends to no data", () => {
    const args = ["--base", "base", "--path-map", "src/billing/proration.py=gone.py"];
    expectOneLineError(runCli(["audit", ...args, "-q"], { cwd: repo.dir }));
    const r = runCli(["doctor", ...args], { cwd: repo.dir });
    expect(r.status).toBe(2);
    expect(r.stdout).toContain(
      `FAIL  freshness: error[path-map-sends-away]: the path-map rule "src/billing/proration.py=gone.py" sends the coverage data's "src/billing/proration.py", the recording of the changed file src/billing/proration.py, to "gone.py" (no file here), so src/billing/proration.py would pass as unmeasured`,
    );
  });
});

describe("-C DIR: every relative path resolves against DIR", () => {
  it("--output and --history too", () => {
    const elsewhere = mkdtempSync(join(tmpdir(), "fg-cwd-"));
    try {
      writeFileSync(join(repo.dir, "history.jsonl"), "");
      const r = runCli(
        [
          "audit",
          "-C",
          repo.dir,
          "--base",
          "base",
          "-q",
          "--output",
          "json=report.json",
          "--output",
          "html=report.html",
          "--history",
          "history.jsonl",
        ],
        { cwd: elsewhere },
      );
      expect(r.stderr).toBe("");
      expect(r.status).toBe(1);
      expect(JSON.parse(readFileSync(join(repo.dir, "report.json"), "utf8")).schema).toBe(
        "freezegate/audit",
      );
      expect(existsSync(join(repo.dir, "report.html"))).toBe(true);
      expect(readdirSync(elsewhere)).toEqual([]);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
      for (const f of ["report.json", "report.html", "history.jsonl"]) {
        rmSync(join(repo.dir, f), { force: true });
      }
    }
  });

  it("-C naming a file says so", () => {
    const line = expectRefusal(
      runCli(["audit", "-C", "src/billing/proration.py", "--base", "base"], { cwd: repo.dir }),
      "directory-is-file",
    );
    expect(line).toContain("src/billing/proration.py is a file, not a directory");
  });
});

// With --base the audit starts from the directory holding the nearest .git while git's
// rev-parse is still on its way, and keeps that work only when git names the same root.
describe("the root the audit starts from before git names it", () => {
  const args = ["audit", "--base", "base", "--format", "json"];

  it("is the nearest directory holding .git, unless GIT_DIR or GIT_WORK_TREE say otherwise", () => {
    const sub = join(repo.dir, "src");
    const real = realpathSync(repo.dir);
    expect(guessRepoRoot(sub, {})).toBe(real);
    expect(guessRepoRoot(repo.dir, {})).toBe(real);
    expect(guessRepoRoot(sub, { GIT_DIR: join(repo.dir, ".git") })).toBeNull();
    expect(guessRepoRoot(sub, { GIT_WORK_TREE: repo.dir })).toBeNull();
    const outside = mkdtempSync(join(tmpdir(), "fg-noroot-"));
    try {
      // Only if no directory above the temporary one holds a .git (true on CI machines).
      if (!existsSync("/.git") && !existsSync(join(tmpdir(), ".git"))) {
        expect(guessRepoRoot(outside, {})).toBeNull();
      }
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });

  it("gives way to git's root when a .git below it is not a repository", () => {
    const want = runCli(args, { cwd: repo.dir });
    expect(want.status).toBe(1);
    const sub = join(repo.dir, "src", "billing");
    mkdirSync(join(sub, ".git"));
    try {
      expect(guessRepoRoot(sub, {})).toBe(realpathSync(sub));
      const got = runCli(args, { cwd: sub });
      expect(got.stderr).toBe("");
      expect(got.status).toBe(1);
      expect(got.stdout).toBe(want.stdout);
    } finally {
      rmSync(join(sub, ".git"), { recursive: true, force: true });
    }
  });

  it("is the directory behind a symbolic link, as git names it", () => {
    const want = runCli(args, { cwd: repo.dir });
    const holder = mkdtempSync(join(tmpdir(), "fg-link-"));
    try {
      const link = join(holder, "repo");
      symlinkSync(repo.dir, link);
      expect(guessRepoRoot(link, {})).toBe(realpathSync(repo.dir));
      const got = runCli(["audit", "-C", link, ...args.slice(1)], { cwd: holder });
      expect(got.stderr).toBe("");
      expect(got.status).toBe(1);
      expect(got.stdout).toBe(want.stdout);
    } finally {
      rmSync(holder, { recursive: true, force: true });
    }
  });

  // A start git's answer overturns ends at the audit's next step, and the
  // data files are announced (on a terminal) once, not once per start.
  it("announces the data once when git's answer overturns the start (an unknown base)", async () => {
    const announced: string[][] = [];
    const io = {
      stdout: process.stdout,
      stderr: process.stderr,
      stdin: process.stdin,
      cwd: repo.dir,
      env: process.env,
    };
    await expect(
      prepareAudit({ values: { base: "no-such-ref" }, positionals: [] }, io, {
        onDataFiles: (files) => announced.push([...files]),
      }),
    ).rejects.toThrow(/no-such-ref/);
    expect(announced).toEqual([[join(realpathSync(repo.dir), ".coverage")]]);
  });

  it("a run asked to stop between steps rejects with AuditAbandoned", async () => {
    await expect(
      runAudit({
        root: realpathSync(repo.dir),
        patch: { kind: "range", base: "base" },
        frozen: join(repo.dir, "quarantine.json"),
        pathMap: [],
        testGlobs: [...DEFAULT_TEST_GLOBS],
        sourceGlobs: [],
        failOn: ["shadowed"],
        allowUnresolved: false,
        testRoot: "",
        hooks: { abandonIf: () => true },
      }),
    ).rejects.toBeInstanceOf(AuditAbandoned);
  });
});

describe("a single-value flag given twice", () => {
  it("with different values is exit 2 naming the flag; the same value twice is fine", () => {
    const line = expectOneLineError(
      runCli(["audit", "--base", "base", "--base", "HEAD", "-q"], { cwd: repo.dir }),
    );
    expect(line).toContain('--base is given twice, as "base" and as "HEAD"');
    expect(
      expectOneLineError(
        runCli(["audit", "--base", "base", "--format", "json", "--format=text"], {
          cwd: repo.dir,
        }),
      ),
    ).toContain("--format is given twice");
    expect(
      runCli(["audit", "--base", "base", "--base", "base", "-q"], { cwd: repo.dir }).status,
    ).toBe(1);
    // Repeatable flags stay repeatable.
    const r = runCli(
      ["audit", "--base", "base", "-q", "--fail-on", "uncovered", "--fail-on", "fixture-only"],
      { cwd: repo.dir },
    );
    expect(r.stderr).toBe("");
  });

  it("is refused by every command, not only audit and doctor (the Action appends its args)", () => {
    for (const args of [
      ["check", "--base", "base", "--base", "HEAD"],
      ["freeze", "tests/test_billing.py::test_x", "--owner", "a@x", "--owner", "b@x"],
      ["ledger", "check", "--today", "2026-01-01", "--today", "2026-02-01"],
      ["stats", "--today", "2026-01-01", "--today", "2026-02-01"],
    ]) {
      const line = expectOneLineError(runCli(args, { cwd: repo.dir }));
      expect(line, args.join(" ")).toMatch(/--(base|owner|today) is given twice, as "/);
    }
  });
});

describe("config files with a UTF-8 byte-order mark", () => {
  it.each([
    ["package.json", '{"freezegate": {"frozen": "empty.json"}}'],
    ["pyproject.toml", '[tool.freezegate]\nfrozen = "empty.json"\n'],
  ])("%s is read as if it had none", (name, text) => {
    writeFileSync(join(repo.dir, name), `\uFEFF${text}`);
    try {
      // empty.json freezes nothing: the shadowed line is defended, the gate passes.
      const r = runCli(["audit", "--base", "base", "-q"], { cwd: repo.dir });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(0);
    } finally {
      rmSync(join(repo.dir, name));
    }
  });
});

describe("messages that say what is wrong, on one line, with a fix", () => {
  it.each([
    [["audit", "--base", "base..HEAD"], "ref-is-range", "is a range", "--head B"],
    [["audit", "--base=-p"], "ref-starts-with-dash", "starts with", "pass a branch"],
    [
      ["audit", "--base", "a\nb"],
      "ref-has-control-character",
      "control character",
      "pass a branch",
    ],
    [["audit", "--base", "-x"], "bad-arguments", "argument is ambiguous", "--base=-XYZ"],
    [
      ["--base", "base", "audit"],
      "option-before-command",
      'unknown option "--base" before the command',
      "options go after the command",
    ],
  ])("%j", (args, code, message, fix) => {
    const line = expectRefusal(runCli(args, { cwd: repo.dir }), code);
    expect(line).toContain(message);
    expect(line.slice(line.indexOf("(fix: "))).toContain(fix);
  });

  it("a config path-map without = names the config key, not a flag", () => {
    writeFileSync(join(repo.dir, "pyproject.toml"), '[tool.freezegate]\npath-map = ["/app/"]\n');
    try {
      const line = expectRefusal(
        runCli(["audit", "--base", "base"], { cwd: repo.dir }),
        "path-map-no-equals",
      );
      expect(line).toContain('the config file\'s "path-map" entry "/app/" has no "="');
      expect(line).not.toContain("--path-map");
    } finally {
      rmSync(join(repo.dir, "pyproject.toml"));
    }
  });

  it("freezegate without a command is exit 2, with the help on stderr", () => {
    const r = runCli([], { cwd: repo.dir });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^Usage: freezegate <command>/);
  });
});

describe("doctor's wording", () => {
  it("one frozen entry resolves (singular verb), and the file is shown relative to the root", () => {
    const r = runCli(["doctor", "--base", "base"], { cwd: repo.dir });
    expect(r.stdout).toMatch(/^ok {4}frozen: quarantine\.json: 1 entry resolves to 1 test\(s\)/m);
  });
});

describe("--test-root", () => {
  it("naming no directory in the repository is exit 2 in audit", () => {
    expect(
      expectRefusal(
        runCli(["audit", "--base", "base", "-q", "--test-root", "nosuch"], { cwd: repo.dir }),
        "bad-test-root",
      ),
    ).toContain('--test-root "nosuch" does not exist in the repository');
  });
});

describe("doctor --format json", () => {
  it("has the same six check ids when the data is unreadable", () => {
    const r = runCli(["doctor", "--coverage", "quarantine.json", "--format", "json"], {
      cwd: repo.dir,
    });
    expect(r.status).toBe(2);
    const report = JSON.parse(r.stdout);
    assertMatchesSchema("doctor-report.schema.json", report);
    expect(report.status).toBe("fail");
    expect(report.checks.map((c: { id: string }) => c.id)).toEqual([
      "data",
      "contexts",
      "node-ids",
      "paths",
      "frozen",
      "freshness",
    ]);
  });
});

describe("settings in a subdirectory's config file", () => {
  it("are refused, not ignored, when a command runs there (a monorepo's backend/)", () => {
    const sub = join(repo.dir, "backend");
    mkdirSync(join(sub, "api"), { recursive: true });
    try {
      writeFileSync(join(sub, "pyproject.toml"), '[tool.freezegate]\nfail-on = ["uncovered"]\n');
      const message = `backend/pyproject.toml has [tool.freezegate], but freezegate reads its settings only from the repository root's pyproject.toml or package.json (fix: move the settings to the repository root's file (their paths are relative to the root) and delete them here: flags do not make freezegate pass over them)`;
      for (const [args, cwd] of [
        [["audit", "--base", "base", "-q"], join(sub, "api")],
        [["audit", "-C", "backend", "--base", "base", "-q"], repo.dir],
        [["ledger", "check"], sub],
        [["doctor", "--base", "base"], sub],
        // From the root, with the subdirectory as the directory pytest ran in.
        [["audit", "--base", "base", "--test-root", "backend", "-q"], repo.dir],
      ] as const) {
        expect(expectRefusal(runCli([...args], { cwd }), "config-not-at-root")).toBe(message);
      }
      // Doctor names it as the reason the contexts cannot be read.
      const doctor = runCli(["doctor", "--base", "base", "--test-root", "backend"], {
        cwd: repo.dir,
      });
      expect(doctor.stdout).toContain(`FAIL  contexts: error[config-not-at-root]: ${message}\n`);
      expect(doctor.status).toBe(2);
      // A package.json that only depends on freezegate holds no settings.
      rmSync(join(sub, "pyproject.toml"));
      writeFileSync(
        join(sub, "package.json"),
        JSON.stringify({ name: "backend", devDependencies: { freezegate: "^0.1.0" } }),
      );
      const r = runCli(["audit", "--base", "base", "-q"], { cwd: sub });
      expect(r.stderr).toBe("");
      expect(r.status).toBe(1);
      writeFileSync(join(sub, "package.json"), JSON.stringify({ freezegate: { base: "base" } }));
      expect(expectRefusal(runCli(["audit", "-q"], { cwd: sub }), "config-not-at-root")).toMatch(
        /^backend\/package\.json has a "freezegate" key, but /,
      );
    } finally {
      rmSync(sub, { recursive: true, force: true });
    }
  });
});
