// What a new user meets first with the ledger commands, on real git repositories with the
// built CLI: the older formats' names in migrate.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";

const repos: TempRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.cleanup();
});
function track(repo: TempRepo): TempRepo {
  repos.push(repo);
  return repo;
}

describe("ledger migrate names the formats by what they are", () => {
  const FIXTURES = join(REPO_ROOT, "test/fixtures/ledger");
  let repo: TempRepo;
  beforeAll(() => {
    repo = track(makeTempRepo());
    repo.write("quarantine.json", readFileSync(join(FIXTURES, "seed-000-quarantine.json")));
    repo.write("properties.json", readFileSync(join(FIXTURES, "seed-003-properties.json")));
    repo.write(
      "gate/freeze_ledger.json",
      readFileSync(join(FIXTURES, "seed-004-freeze_ledger.json")),
    );
    repo.commit("older formats");
  });

  it("in its output and in the ledger commands' help", () => {
    const r = runCli(["ledger", "migrate"], { cwd: repo.dir });
    expect(r.status).toBe(0);
    expect(r.stdout.split("\n")[0]).toBe(
      "migrated 2 freezes and 2 properties from quarantine.json (quarantine list), properties.json (properties file), gate/freeze_ledger.json (freeze ledger (schema 1)) into freeze-ledger.json",
    );
    const texts = [
      r.stdout,
      runCli(["ledger", "--help"], { cwd: repo.dir }).stdout,
      runCli(["ledger", "migrate", "--help"], { cwd: repo.dir }).stdout,
      runCli(["deposit", "check", "--help"], { cwd: repo.dir }).stdout,
      runCli(["ledger", "check", "--ledger", "gate/freeze_ledger.json"], { cwd: repo.dir }).stdout,
    ];
    for (const text of texts) expect(text).not.toMatch(/seed/i);
    expect(texts[2]).toContain('quarantine list             {"frozen": [...]}');
  });

  it("the JSON reports keep their format ids", () => {
    const r = runCli(
      ["ledger", "check", "--ledger", "gate/freeze_ledger.json", "--format", "json"],
      { cwd: repo.dir },
    );
    expect(JSON.parse(r.stdout).ledger.format).toBe("seed-004-ledger");
  });
});
