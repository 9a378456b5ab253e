// A patch cannot loosen the settings it is judged by: when it changes the repository's config,
// the audit reads the config at the patch's base too and judges by the stricter of both (every
// fail-on verdict of either; a test file only when both say so; a source file when either
// does), and says so on stderr. The built CLI on the bundled example (real git, real
// pytest-cov data committed with it).

import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import type { TempRepo } from "../helpers/git-repo.js";

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

function demo(): TempRepo {
  const r = makeDemoRepo();
  repos.push(r);
  writeFileSync(join(r.dir, "empty.json"), '{"frozen": []}\n');
  return r;
}

function commitConfig(r: TempRepo, text: string | null, message = "config"): void {
  if (text === null) r.git("rm", "-q", "pyproject.toml");
  else {
    r.write("pyproject.toml", text);
    r.git("add", "pyproject.toml");
  }
  r.git("commit", "-q", "-m", message);
}

const noteFor = (keys: string, at: string) =>
  `freezegate: note: the patch changes ${keys} in the repository's config; it is judged by the stricter of its settings and those at ${at}\n`;

describe("a patch that changes the config it is judged by", () => {
  it("cannot make its own source files test files (test-files)", () => {
    const r = demo();
    const before = runCli(["audit", "--base", "base", "-q"], { cwd: r.dir });
    expect(before.status).toBe(1);
    commitConfig(r, '[tool.freezegate]\ntest-files = ["tests/**", "src/**"]\n');
    const after = runCli(["audit", "--base", "base", "-q"], { cwd: r.dir });
    const base = r.git("merge-base", "base", "HEAD").trim().slice(0, 12);
    expect(after.stderr).toBe(noteFor("test-files", base));
    expect(after.stdout).toBe(before.stdout);
    expect(after.status).toBe(1);
  });

  it("cannot drop a fail-on verdict its base's config sets, unless a flag decides", () => {
    const r = demo();
    r.git("switch", "-q", "-c", "strict", "base");
    commitConfig(r, '[tool.freezegate]\nfail-on = ["uncovered"]\n', "strict base");
    r.git("switch", "-q", "-c", "loose", "main");
    r.git("merge", "-q", "--no-edit", "strict");
    const strict = runCli(["audit", "--base", "strict", "--frozen", "empty.json", "-q"], {
      cwd: r.dir,
    });
    expect(strict.stderr).toBe("");
    expect(strict.status).toBe(1);

    commitConfig(r, null, "drop the config");
    const loose = runCli(["audit", "--base", "strict", "--frozen", "empty.json"], {
      cwd: r.dir,
    });
    const base = r.git("merge-base", "strict", "HEAD").trim().slice(0, 12);
    expect(loose.stderr).toBe(noteFor("fail-on", base));
    expect(loose.stdout).toMatch(/^FAIL: 7 changed lines are executed by no test \(uncovered\)$/m);
    expect(loose.status).toBe(1);

    // The flag wins over both configs: nothing is loosened, nothing to note.
    const flagged = runCli(
      ["audit", "--base", "strict", "--frozen", "empty.json", "--fail-on", "uncovered", "-q"],
      { cwd: r.dir },
    );
    expect(flagged.stderr).toBe("");
    expect(flagged.status).toBe(1);
  });

  it("a config change that loosens nothing the audit reads is judged as written, without a note", () => {
    const r = demo();
    commitConfig(r, '[tool.freezegate]\nfrozen = "quarantine.json"\n');
    const run = runCli(["audit", "--base", "base", "-q"], { cwd: r.dir });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(1);
  });
});
