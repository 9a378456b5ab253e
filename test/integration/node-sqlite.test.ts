// The built CLI on a Node.js that cannot give it node:sqlite (here: the module turned off with
// --no-experimental-sqlite; Node.js 20 has none at all): one line that names the driver and
// how to get it, never "re-run the tests", for the audit's bundle and the other commands
// alike. And on the Node.js running the tests, no warning of Node's about the module.

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectOneLineError, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import type { TempRepo } from "../helpers/git-repo.js";

let repo: TempRepo;
beforeAll(() => {
  repo = makeDemoRepo();
});
afterAll(() => repo.cleanup());

const FROZEN = "tests/test_billing.py::test_proration_rounds_half_up";

const TURNED_OFF = `freezegate: error[node-sqlite-turned-off]: this Node.js (${process.version}) cannot load its built-in SQLite module (node:sqlite), which freezegate reads coverage.py data files with: No such built-in module: node:sqlite (fix: run freezegate without --no-experimental-sqlite (on the node command line or in NODE_OPTIONS))`;

describe("node:sqlite turned off", () => {
  it.each([
    ["audit", ["audit", "--base", "base"]],
    ["impact", ["impact", FROZEN]],
  ])("%s says so in one line, with the fix", (_name, args) => {
    const line = expectOneLineError(
      runCli(args, { cwd: repo.dir, env: { NODE_OPTIONS: "--no-experimental-sqlite" } }),
    );
    expect(line).toBe(TURNED_OFF);
    expect(line).not.toContain("re-run");
  });

  it("doctor names it under the data check", () => {
    const r = runCli(["doctor", "--base", "base"], {
      cwd: repo.dir,
      env: { NODE_OPTIONS: "--no-experimental-sqlite" },
    });
    expect(r.status).toBe(2);
    expect(r.stdout).toContain("cannot load its built-in SQLite module (node:sqlite)");
    expect(r.stdout).not.toContain("re-run the tests with coverage");
  });
});

describe("node:sqlite on this Node.js", () => {
  it.each([
    ["audit", ["audit", "--base", "base"], 1],
    ["impact", ["impact", FROZEN], 0],
  ])("%s prints no warning of Node's about it", (_name, args, status) => {
    const r = runCli(args, { cwd: repo.dir });
    expect(r.stderr).toBe("");
    expect(r.status).toBe(status);
  });
});
