// Every report format from one real scenario, end to end through the built CLI: the bundled
// example (real git, the example's real pytest-cov data) with a freeze ledger whose second
// freeze names a test that does not exist and is written to break markup
// (`<script>`, `|`, `*`, `@`). `audit` and `check` each write all six formats in one run with
// --output FORMAT=FILE; each file must equal its golden file (test/golden/report-*), the JSON
// must match its schema and the SARIF the official SARIF 2.1.0 schema. Then the plumbing's
// failure modes: unknown format, unwritable output, a history that is not JSON lines.

import { spawnSync } from "node:child_process";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CLI, expectOneLineError, expectRefusal, REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import { isolatedGitEnv, type TempRepo } from "../helpers/git-repo.js";
import { expectGolden } from "../helpers/golden.js";
import { describePython, runPython } from "../helpers/python.js";
import { validateSarif } from "../helpers/sarif.js";
import { assertMatchesSchema } from "../helpers/schema.js";

const TODAY = "2026-11-25";
const FROZEN = "tests/test_billing.py::test_proration_rounds_half_up";
const EVIL = "tests/test_billing.py::test_gone[<script>alert(1)</script>|*x*@admin]";
const PROPERTY = "tests/test_billing.py::test_full_period_charges_everything";

const LEDGER = {
  version: 1,
  // deposit is not blocking: its failure is reported, not fatal.
  policy: {
    max_window_days: 14,
    min_distinct: 8,
    blocking: ["shadow", "shape", "witness", "lock", "ledger-changes"],
  },
  freezes: [
    {
      test_id: FROZEN,
      reason: "order-dependent failure in the full suite",
      owner: "finley",
      opened: "2026-11-20",
      expires: "2026-12-01",
      invariant: "half-up rounding never charges more than the exact share plus half a cent",
      compensating_property: PROPERTY,
      reused_property: true,
    },
    {
      test_id: EVIL,
      reason: "flaky | `timing` & <b>load</b>",
      owner: "robin",
      opened: "2026-11-01",
      expires: "2026-11-10",
      invariant: "refunds never exceed the charge",
      compensating_property: PROPERTY,
      reused_property: true,
    },
  ],
  properties: [
    {
      id: "prop.billing.refund",
      check: "tests/test_billing.py::test_refund_of_unused_days",
      witnessed_by: [PROPERTY],
    },
  ],
};

/** Golden file suffix per format. */
const FILES = {
  text: "txt",
  json: "json",
  markdown: "md",
  github: "github.txt",
  sarif: "sarif",
  junit: "junit.xml",
} as const;
type Format = keyof typeof FILES;
const FORMAT_NAMES = Object.keys(FILES) as Format[];

let repo: TempRepo;
let out: string;
let mergeBase: string;
const version = JSON.parse(readFileSync(join(REPO_ROOT, "package.json"), "utf8")).version as string;

const AUDIT_ARGS = [
  "audit",
  "--base",
  "base",
  "--frozen",
  "freeze-ledger.json",
  "--allow-unresolved",
];
const CHECK_ARGS = [
  "check",
  ...["--base", "base", "--today", TODAY, "--samples", "samples.json", "--allow-unresolved"],
];

beforeAll(() => {
  repo = makeDemoRepo();
  repo.write("freeze-ledger.json", `${JSON.stringify(LEDGER, null, 2)}\n`);
  // Committed (the goldens list it as a changed file), then rewritten as the run at that
  // commit writes it: the deposit gate refuses a samples artifact from another commit.
  const samples = (commit: string | null) =>
    JSON.stringify({ version: 2, commit, properties: { [PROPERTY]: { distinct: 3 } } });
  repo.write("samples.json", samples(null));
  repo.write("samples.json", samples(repo.commit("ledger")));
  mergeBase = repo.git("merge-base", "base", "HEAD").trim();
  out = realpathSync(mkdtempSync(join(tmpdir(), "freezegate-reports-")));
});
afterAll(() => {
  repo.cleanup();
  rmSync(out, { recursive: true, force: true });
});

/** Run-specific values (temp dir, merge base, version, data timestamp) as stable tokens. */
function normalize(text: string): string {
  const escaped = version.replace(/\./g, "\\.");
  return text
    .split(repo.dir)
    .join("<repo>")
    .split(mergeBase)
    .join("<sha>")
    .split(mergeBase.slice(0, 12))
    .join("<sha>")
    .replace(new RegExp(`(?<![\\d.])${escaped}(?![\\d.])`, "g"), "<version>")
    .replace(/"recordedAt": "[^"]*"/g, '"recordedAt": "<time>"');
}

/**
 * The built CLI in the repository, as CI runs it (no colour: runCli sets NO_COLOR), with an
 * ambient FORCE_COLOR (which wins over NO_COLOR) taken out so it cannot colour the goldens.
 */
function cli(args: string[], env: NodeJS.ProcessEnv = {}) {
  return runCli(args, { cwd: repo.dir, env: { FORCE_COLOR: undefined, ...env } });
}

function outputs(kind: string): string[] {
  return FORMAT_NAMES.flatMap((f) => ["--output", `${f}=${join(out, `${kind}.${FILES[f]}`)}`]);
}

function readOutput(kind: string, format: Format): string {
  return readFileSync(join(out, `${kind}.${FILES[format]}`), "utf8");
}

describe.each([
  ["audit", AUDIT_ARGS],
  ["check", CHECK_ARGS],
])("freezegate %s in every format", (kind, args) => {
  it("writes all six reports in one run, each as its golden file", () => {
    const r = cli([...args, ...outputs(kind)]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    // stdout keeps the default text report; the files do not change it.
    expect(r.stdout).toBe(readOutput(kind, "text"));
    for (const format of FORMAT_NAMES) {
      expectGolden(`report-${kind}.${FILES[format]}`, normalize(readOutput(kind, format)));
    }
    expect(readdirSync(out).filter((f) => f.endsWith(".tmp") || f.endsWith(".bak"))).toEqual([]);
  });

  it("the JSON matches its schema and the SARIF the official SARIF 2.1.0 schema", () => {
    const json = JSON.parse(readOutput(kind, "json"));
    assertMatchesSchema(`${kind}-report.schema.json`, json);
    validateSarif(JSON.parse(readOutput(kind, "sarif")));
  });

  it("--format FORMAT prints on stdout exactly what --output FORMAT=FILE wrote", () => {
    for (const format of ["markdown", "github", "sarif"] as const) {
      const r = cli([...args, "--format", format]);
      expect(r.status).toBe(1);
      expect(r.stdout).toBe(readOutput(kind, format));
    }
  });
});

/** calibrate's goldens: every format, html too (audit's and check's pages have their own test). */
const CALIBRATE_FILES = { ...FILES, html: "html" } as const;
type CalibrateFormat = keyof typeof CALIBRATE_FILES;
const CALIBRATE_FORMATS = Object.keys(CALIBRATE_FILES) as CalibrateFormat[];
// A test-files glob that takes the billing code for a test: the frozen test's line is a shadow
// canary the gate skips, so every format shows a misjudged canary beside ones judged right.
const CALIBRATE_ARGS = [
  "calibrate",
  ...["--frozen", "freeze-ledger.json", "--allow-unresolved"],
  ...["--test-files", "tests/**", "--test-files", "src/billing/proration.py"],
];

function calibrateOutputs(dir: string): string[] {
  return CALIBRATE_FORMATS.flatMap((f) => [
    "--output",
    `${f}=${join(dir, `calibrate.${CALIBRATE_FILES[f]}`)}`,
  ]);
}

function readCalibrate(format: CalibrateFormat, dir = out): string {
  return readFileSync(join(dir, `calibrate.${CALIBRATE_FILES[format]}`), "utf8");
}

describe("freezegate calibrate in every format", () => {
  it("writes all seven reports in one run, each as its golden file", () => {
    const r = cli([...CALIBRATE_ARGS, ...calibrateOutputs(out)]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(1);
    expect(r.stdout).toBe(readCalibrate("text"));
    for (const format of CALIBRATE_FORMATS) {
      expectGolden(`report-calibrate.${CALIBRATE_FILES[format]}`, normalize(readCalibrate(format)));
    }
  });

  it("the JSON matches its schema; the SARIF is valid 2.1.0, a result per misjudged canary", () => {
    const json = JSON.parse(readCalibrate("json"));
    assertMatchesSchema("calibrate-report.schema.json", json);
    const sarif = JSON.parse(readCalibrate("sarif"));
    validateSarif(sarif);
    const run = sarif.runs[0];
    const missed = json.canaries.filter((c: { ok: boolean }) => !c.ok);
    expect(missed.length).toBeGreaterThan(0);
    expect(
      run.results.map(
        (x: {
          ruleId: string;
          ruleIndex: number;
          locations: Array<{
            physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } };
          }>;
        }) => [
          x.ruleId,
          run.tool.driver.rules[x.ruleIndex].id,
          `${x.locations[0]?.physicalLocation.artifactLocation.uri}:${x.locations[0]?.physicalLocation.region.startLine}`,
        ],
      ),
    ).toEqual(
      missed.map((c: { code: string; path: string; line: number }) => [
        c.code,
        c.code,
        `${c.path}:${c.line}`,
      ]),
    );
    expect(missed[0].code).toBe("skipped-test-file");
    expect(run.invocations[0].exitCode).toBe(1);
  });

  it("--format FORMAT prints on stdout exactly what --output FORMAT=FILE wrote", () => {
    for (const format of ["json", "markdown", "github", "sarif", "junit", "html"] as const) {
      const r = cli([...CALIBRATE_ARGS, "--format", format]);
      expect(r.status, format).toBe(1);
      expect(r.stdout, format).toBe(readCalibrate(format));
    }
    expect(cli([...CALIBRATE_ARGS, "--quiet"]).stdout).toBe(
      "FAIL: 1 of 1 shadow canary passed the gate\n",
    );
  });

  it("replaces its own reports where git tracks them, and refuses any other tracked file", () => {
    const dir = join(repo.dir, "reports");
    mkdirSync(dir);
    try {
      expect(cli([...CALIBRATE_ARGS, ...calibrateOutputs(dir)]).status).toBe(1);
      repo.git("add", "reports");
      // A report kept in the repository is replaced as any report is, in every format.
      const again = cli([...CALIBRATE_ARGS, ...calibrateOutputs(dir)]);
      expect(again.stderr).toBe("");
      expect(again.status).toBe(1);
      expect(
        expectOneLineError(cli([...CALIBRATE_ARGS, "-o", "json=src/billing/proration.py"])),
      ).toMatch(
        /--output src\/billing\/proration\.py is the source file this run reads|is a file git tracks/,
      );
    } finally {
      repo.git("rm", "-rq", "--cached", "reports");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("the formats agree (one result object)", () => {
  it("SARIF, annotations and JUnit show the check's failing lines and failed gates", () => {
    const check = JSON.parse(readOutput("check", "json"));
    const shadow = check.gates.find((g: { gate: string }) => g.gate === "shadow");
    const sarif = JSON.parse(readOutput("check", "sarif"));
    const sarifErrors = sarif.runs[0].results
      .filter(
        (r: { level: string; properties: { gate: string } }) =>
          r.level === "error" && r.properties.gate === "shadow",
      )
      .map(
        (r: {
          locations: Array<{
            physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } };
          }>;
        }) =>
          `${r.locations[0]?.physicalLocation.artifactLocation.uri}:${r.locations[0]?.physicalLocation.region.startLine}`,
      );
    expect(sarifErrors).toEqual(
      shadow.findings
        .filter((f: { severity: string }) => f.severity === "error")
        .map((f: { path: string; line: number }) => `${f.path}:${f.line}`),
    );
    expect(sarifErrors).toEqual(["src/billing/proration.py:13"]);
    expect(readOutput("check", "github")).toMatch(
      /^::error file=src\/billing\/proration\.py,line=13,title=freezegate%3A shadowed line::/m,
    );
    const junit = readOutput("check", "junit");
    const failed = [...junit.matchAll(/name="([^"]+) gate">\n\s*<failure/g)].map((m) => m[1]);
    expect(failed).toEqual(check.failedGates);
    expect(readOutput("check", "markdown").split("\n")[0]).toBe(
      `### ❌ freezegate check: FAIL — blocking gates failed: ${check.failedGates.join(", ")}`,
    );
  });
});

describePython("JUnit XML as a real XML parser reads it", () => {
  it("is well-formed, with one testcase per gate and the test name intact", () => {
    const script = [
      "import json, sys, xml.dom.minidom as m",
      "doc = m.parse(sys.argv[1])",
      "cases = doc.getElementsByTagName('testcase')",
      "print(json.dumps([[c.getAttribute('name'), [n.tagName for n in c.childNodes if n.nodeType == 1], ''.join(t.data for f in c.getElementsByTagName('failure') for t in f.childNodes)] for c in cases]))",
    ].join("\n");
    const r = runPython(["-c", script, join(out, "check.junit.xml")], { cwd: out });
    expect(r.stderr).toBe("");
    const cases = JSON.parse(r.stdout) as Array<[string, string[], string]>;
    expect(cases.map(([name, children]) => [name, children])).toEqual([
      ["shadow gate", ["failure", "system-out"]],
      ["shape gate", ["failure", "system-out"]],
      ["witness gate", ["system-out"]],
      ["deposit gate", ["system-out"]],
      ["lock gate", ["system-out"]],
      ["ledger-changes gate", ["system-out"]],
    ]);
    expect(cases[1]?.[2]).toContain(EVIL);
  });
});

describe("output plumbing", () => {
  it("--quiet prints only the verdict line", () => {
    const r = cli([...CHECK_ARGS, "--quiet"]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("check: FAIL (blocking gates failed: shadow, shape)\n");
    const a = cli([...AUDIT_ARGS, "-q"]);
    expect(a.stdout).toBe("FAIL: 1 changed line is covered only by frozen tests (shadowed)\n");
  });

  it("--output FILE alone writes the --format report there and nothing on stdout", () => {
    const file = join(out, "plain.sarif");
    const r = cli([...AUDIT_ARGS, "--format", "sarif", "-o", file]);
    expect(r.status).toBe(1);
    expect(r.stdout).toBe("");
    expect(readFileSync(file, "utf8")).toBe(readOutput("audit", "sarif"));
  });

  it("an unknown format is exit 2 with one line, before anything runs", () => {
    expect(expectRefusal(cli([...AUDIT_ARGS, "--format", "pdf"]), "unknown-format")).toMatch(
      /^unknown --format "pdf" \(fix: use one of: text, json, markdown, github, sarif, junit/,
    );
    expect(
      expectRefusal(cli([...CHECK_ARGS, "--output", "pdf=x.pdf"]), "output-unknown-format"),
    ).toMatch(/--output "pdf=x\.pdf": unknown format "pdf"/);
  });

  it("an output that cannot be written is exit 2 with one line, and no report is left", () => {
    const dir = join(out, "unwritable");
    mkdirSync(dir);
    writeFileSync(join(dir, "kept.md"), "the old summary\n");
    // A directory that does not exist: refused before the audit runs.
    const missing = cli([
      ...AUDIT_ARGS,
      "--output",
      `markdown=${join(dir, "new.md")}`,
      "--output",
      `sarif=${join(dir, "no", "x.sarif")}`,
    ]);
    expect(expectOneLineError(missing)).toMatch(
      /cannot write .*no\/x\.sarif: the directory .* does not exist/,
    );
    // A name the file system refuses (too long): found while writing; the other report, already
    // written to its temporary file, is removed, and the old file is untouched.
    const tooLong = cli([
      ...CHECK_ARGS,
      ...["--output", `markdown=${join(dir, "kept.md")}`],
      ...["--output", `sarif=${join(dir, `${"x".repeat(300)}.sarif`)}`],
    ]);
    expect(expectOneLineError(tooLong)).toMatch(
      /cannot write .*x{300}\.sarif: .*no report file was written/,
    );
    expect(readdirSync(dir)).toEqual(["kept.md"]);
    expect(readFileSync(join(dir, "kept.md"), "utf8")).toBe("the old summary\n");
  });

  it("--history must be JSON lines: anything else is exit 2 with one line", () => {
    const bad = join(out, "history.csv");
    writeFileSync(bad, "date,shadow\n2026-11-01,0.5\n");
    expect(expectOneLineError(cli([...CHECK_ARGS, "--history", bad]))).toMatch(
      /history\.csv line 1 is not JSON: the history must be JSON lines/,
    );
    expect(expectOneLineError(cli([...AUDIT_ARGS, "--history", join(out, "none.jsonl")]))).toMatch(
      /the history file .*none\.jsonl does not exist/,
    );
    const good = join(out, "history.jsonl");
    writeFileSync(
      good,
      `${JSON.stringify({ date: "2026-11-24", commit: null, openFreezes: 1, medianAgeDays: 4, expired: 0, depositFailures: 0, orphanedProperties: 0, shadowRatio: 0.5 })}\n`,
    );
    const ok = cli([...CHECK_ARGS, "--history", good, "--quiet"]);
    expect(ok.stderr).toBe("");
    expect(ok.status).toBe(1);
  });
});

describe("colour", () => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for SGR codes
  const SGR = /\u001b\[[0-9;]*m/;

  it("is off in a pipe, forced on by FORCE_COLOR, and never changes the words", () => {
    const plain = cli(AUDIT_ARGS, { NO_COLOR: "" });
    expect(plain.stdout).not.toMatch(SGR);
    const forced = cli(AUDIT_ARGS, { NO_COLOR: "", FORCE_COLOR: "1" });
    expect(forced.stdout).toContain("\u001b[31mSHADOWED\u001b[39m");
    expect(forced.stdout.replace(new RegExp(SGR, "g"), "")).toBe(plain.stdout);
    const off = cli(AUDIT_ARGS, { NO_COLOR: "", FORCE_COLOR: "0" });
    expect(off.stdout).toBe(plain.stdout);
  });

  it("is on when stdout is a terminal, unless NO_COLOR is set (real pty via script(1))", () => {
    const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
    const command = [process.execPath, CLI, ...AUDIT_ARGS].map(quote).join(" ");
    const onTty = (env: NodeJS.ProcessEnv) =>
      spawnSync("script", ["-qec", command, "/dev/null"], {
        cwd: repo.dir,
        env: isolatedGitEnv({
          FREEZEGATE_DEBUG: "",
          FORCE_COLOR: undefined,
          TERM: "xterm",
          ...env,
        }),
        encoding: "utf8",
      });
    const tty = onTty({ NO_COLOR: undefined });
    expect(tty.status).toBe(1);
    expect(tty.stdout).toContain("\u001b[31mSHADOWED\u001b[39m");
    // Nothing but the report: no progress line for data this small.
    expect(tty.stdout.replace(new RegExp(SGR, "g"), "").replace(/\r\n/g, "\n")).toBe(
      cli(AUDIT_ARGS).stdout,
    );
    const noColor = onTty({ NO_COLOR: "1" });
    expect(noColor.stdout).not.toMatch(SGR);
  });
});

describe("progress while large data is read", () => {
  it("one stderr line on a terminal, nothing in a pipe", () => {
    // The example's real data, padded past the threshold with a meta row coverage.py ignores.
    const data = join(out, "big", ".coverage");
    mkdirSync(join(out, "big"));
    copyFileSync(join(repo.dir, ".coverage"), data);
    const db = new DatabaseSync(data);
    db.prepare("INSERT INTO meta (key, value) VALUES (?, ?)").run("padding", "x".repeat(9_000_000));
    db.close();
    const args = [...AUDIT_ARGS, "--coverage", data];
    const piped = cli(args);
    expect(piped.status).toBe(1);
    expect(piped.stderr).toBe("");
    const quote = (s: string) => `'${s.replace(/'/g, "'\\''")}'`;
    const command = [process.execPath, CLI, ...args, "--quiet"].map(quote).join(" ");
    const tty = spawnSync("script", ["-qec", command, "/dev/null"], {
      cwd: repo.dir,
      env: isolatedGitEnv({ FREEZEGATE_DEBUG: "", NO_COLOR: "1", FORCE_COLOR: undefined }),
      encoding: "utf8",
    });
    expect(tty.stdout.replace(/\r\n/g, "\n")).toMatch(
      /^freezegate: reading coverage data \(9\.\d MB\)…\nFAIL: 1 changed line is covered only by frozen tests \(shadowed\)\n$/,
    );
  });
});
