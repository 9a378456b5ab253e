// docs/json-contract.md documents `ledger check --format json` field by field: this holds the
// built binary to that list (its gate carries passed and notes, as check's gates do).

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import type { TempRepo } from "../helpers/git-repo.js";

describe("ledger check --format json as docs/json-contract.md describes it", () => {
  let repo: TempRepo;
  beforeAll(() => {
    repo = makeDemoRepo();
    repo.remove("quarantine.json");
    repo.write("freeze-ledger.json", JSON.stringify({ version: 1, freezes: [{ test_id: "t" }] }));
    repo.write("collected.txt", "tests/test_billing.py::test_refund_of_unused_days\n");
  });
  afterAll(() => repo.cleanup());

  const run = (...args: string[]) =>
    runCli(["ledger", "check", "--today", "2026-10-18", "--format", "json", ...args], {
      cwd: repo.dir,
    });

  it("has the documented fields; knownTests is {from, count, files}", () => {
    const r = run("--collected", "collected.txt");
    expect(r.status).toBe(1);
    const report = JSON.parse(r.stdout);
    expect(Object.keys(report)).toEqual([
      "schema",
      "schemaVersion",
      "ledger",
      "today",
      "knownTests",
      "gate",
      "passed",
      "exitCode",
    ]);
    expect(report.ledger).toEqual({
      path: "freeze-ledger.json",
      format: "freezegate",
      freezes: 1,
      properties: 0,
    });
    expect(report.today).toBe("2026-10-18");
    expect(report.knownTests).toEqual({
      from: "collected",
      count: 1,
      files: [`${repo.dir}/collected.txt`],
    });
    expect(Object.keys(report.gate)).toEqual([
      "gate",
      "blocking",
      "ran",
      "passed",
      "notes",
      "findings",
    ]);
    expect(report.gate).toMatchObject({ gate: "shape", blocking: true, ran: true, passed: false });
    expect(report.gate.notes[0]).toBe("judged on 2026-10-18 (UTC)");
    expect(report.gate.findings.map((f: { code: string }) => f.code)).toEqual([
      "missing-field",
      "unknown-test",
    ]);
    expect([report.passed, report.exitCode]).toEqual([false, 1]);
  });

  it("knownTests is the coverage data, or null when there is none", () => {
    expect(JSON.parse(run().stdout).knownTests).toEqual({
      from: "coverage",
      count: 4,
      files: [`${repo.dir}/.coverage`],
    });
    repo.remove(".coverage");
    expect(JSON.parse(run().stdout).knownTests).toBeNull();
  });
});
