// The JSON and the help as docs/json-contract.md and the README say.
// check's ledger.format is the layout id ledger check writes; doctor names an unreadable frozen
// file relative to the repository root; the ledger's structural errors give each key its own
// fix; a command group without a subcommand prints its help on stderr and exits 2.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import type { TempRepo } from "../helpers/git-repo.js";
import { assertMatchesSchema } from "../helpers/schema.js";

const FROZEN = "tests/test_billing.py::test_proration_rounds_half_up";

let repo: TempRepo;
beforeAll(() => {
  repo = makeDemoRepo();
});
afterAll(() => repo.cleanup());

describe("check's ledger.format is the layout id of ledger check", () => {
  const layouts: Array<[string, object]> = [
    ["freezegate", { version: 1, freezes: [{ test_id: FROZEN }], properties: [] }],
    ["seed-004-ledger", { schema: 1, freezes: [{ test_id: FROZEN }] }],
    ["seed-003-properties", { properties: [], frozen: [FROZEN] }],
    ["seed-000-quarantine", { frozen: [FROZEN] }],
  ];
  it.each(layouts)("%s", (layout, value) => {
    repo.write("layout-ledger.json", `${JSON.stringify(value)}\n`);
    repo.commit(`ledger as ${layout}`);
    const args = ["--ledger", "layout-ledger.json", "--today", "2026-11-25", "--format", "json"];
    const check = runCli(["check", "--base", "base", ...args], { cwd: repo.dir });
    expect(check.stderr).toBe("");
    const report = JSON.parse(check.stdout);
    assertMatchesSchema("check-report.schema.json", report);
    const ledgerCheck = runCli(["ledger", "check", ...args], { cwd: repo.dir });
    expect(JSON.parse(ledgerCheck.stdout).ledger.format).toBe(layout);
    expect(report.ledger.format).toBe(layout);
    // The text keeps its words for the layout.
    const text = runCli(["check", "--base", "base", ...args.slice(0, 4)], { cwd: repo.dir });
    if (layout === "freezegate") {
      expect(text.stdout).toMatch(/^ledger: layout-ledger\.json \(freezegate ledger; /m);
    }
    if (layout === "seed-000-quarantine") {
      expect(text.stdout).toMatch(/^ledger: layout-ledger\.json \(quarantine list; /m);
    }
  });
});

describe("doctor names an unreadable frozen file relative to the repository root", () => {
  const frozenCheck = (file: string) => {
    const r = runCli(["doctor", "--base", "base", "--frozen", file, "--format", "json"], {
      cwd: repo.dir,
    });
    expect(r.status).toBe(2);
    const report = JSON.parse(r.stdout);
    assertMatchesSchema("doctor-report.schema.json", report);
    return report.checks.find((c: { id: string }) => c.id === "frozen");
  };

  it("not valid JSON", () => {
    repo.write("q-bad.json", '{"frozen": [\n');
    const check = frozenCheck("q-bad.json");
    expect(check.status).toBe("fail");
    expect(check.code).toBe("json-invalid");
    expect(check.message).toMatch(/^frozen-test file q-bad\.json is not valid JSON: /);
    expect(check.message).not.toContain(repo.dir);
  });

  it("not found, also given from a subdirectory", () => {
    // The message names the file as the user does; the refusal keeps its code.
    expect(frozenCheck("q-typo.json")).toMatchObject({
      status: "fail",
      code: "file-not-found",
      message: "frozen-test file not found: q-typo.json",
      fix: "check the path",
    });
    const r = runCli(
      ["doctor", "--base", "base", "--frozen", "../q-typo.json", "--format", "json"],
      {
        cwd: repo.path("src"),
      },
    );
    const check = JSON.parse(r.stdout).checks.find((c: { id: string }) => c.id === "frozen");
    expect(check.message).toBe("frozen-test file not found: q-typo.json");
    expect(check.code).toBe("file-not-found");
    const text = runCli(["doctor", "--base", "base", "--frozen", "q-typo.json"], {
      cwd: repo.dir,
    });
    expect(text.stdout).toMatch(
      /^FAIL {2}frozen: error\[file-not-found\]: frozen-test file not found: q-typo\.json \(fix: check the path\)$/m,
    );
  });

  it("malformed", () => {
    repo.write("q-list.json", "[]\n");
    const check = frozenCheck("q-list.json");
    expect(check.code).toBe("frozen-list-malformed");
    expect(check.message).toBe(
      "frozen-test file q-list.json is malformed: the top level is not a JSON object",
    );
  });
});

describe("structural ledger errors give each key its own fix", () => {
  const refusal = (policy: object) => {
    repo.write("bad-ledger.json", `${JSON.stringify({ version: 1, policy })}\n`);
    const r = runCli(["ledger", "check", "--ledger", "bad-ledger.json"], { cwd: repo.dir });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    // The file as --ledger resolves it (absolute), then the JSON path and the fix.
    return r.stderr.trim().replace(repo.path("bad-ledger.json"), "bad-ledger.json");
  };

  it("an empty generator_lock entry asks for a path or glob, not a test id", () => {
    expect(refusal({ generator_lock: [""] })).toMatch(
      /^freezegate: error\[ledger-empty-value\]: ledger bad-ledger\.json: \$\.policy\.generator_lock\[0\] is empty \(fix: write a file path or glob /,
    );
  });

  it("min_distinct suggests its own default (8), max_window_days its own (14)", () => {
    expect(refusal({ min_distinct: 0 })).toMatch(
      /^freezegate: error\[ledger-not-positive\]: ledger bad-ledger\.json: \$\.policy\.min_distinct is 0, .*\(fix: write e\.g\. 8, the default\)$/,
    );
    expect(refusal({ max_window_days: 1.5 })).toMatch(
      /^freezegate: error\[ledger-not-positive\]: ledger bad-ledger\.json: \$\.policy\.max_window_days is 1\.5, .*\(fix: write e\.g\. 14, the default\)$/,
    );
  });
});

describe("a command group without a subcommand", () => {
  it("prints the group's help on stderr and exits 2, as bare freezegate does", () => {
    const r = runCli(["ledger"], { cwd: repo.dir });
    expect(r.status).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(/^Usage: freezegate ledger <subcommand> \[options\]\n/);
    expect(r.stderr).toMatch(/^ {2}check /m);
  });

  it("--help still prints it on stdout and exits 0", () => {
    const r = runCli(["ledger", "--help"], { cwd: repo.dir });
    expect(r.status).toBe(0);
    expect(r.stderr).toBe("");
    expect(r.stdout).toMatch(/^Usage: freezegate ledger <subcommand> \[options\]\n/);
  });
});
