#!/usr/bin/env node
// `npm run demo`: audit the bundled example patch (examples/demo) in a throw-away git
// repository. Needs git and the built CLI (npm run build), not Python: the example carries
// real coverage data recorded by pytest-cov.

import { execFileSync, spawnSync } from "node:child_process";
import { cpSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const demo = resolve(here, "../examples/demo");
const cli = resolve(here, "../dist/bin/freezegate.cjs");
const repo = mkdtempSync(join(tmpdir(), "freezegate-demo-"));

const gitEnv = { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null", GIT_CONFIG_NOSYSTEM: "1" };
const git = (...args) =>
  execFileSync("git", ["-c", "user.name=demo", "-c", "user.email=demo@example.invalid", ...args], {
    cwd: repo,
    env: gitEnv,
    stdio: ["ignore", "pipe", "pipe"],
  });

try {
  cpSync(join(demo, "project"), repo, { recursive: true });
  cpSync(join(demo, "base"), repo, { recursive: true });
  git("init", "-q", "-b", "main");
  git("add", "-A", ".");
  git("commit", "-q", "-m", "base");
  git("branch", "base");
  cpSync(join(demo, "project"), repo, { recursive: true });
  git("add", "-A", ".");
  git("commit", "-q", "-m", "patch: half-up rounding, credit notes");

  console.log(`$ freezegate audit --base base    (in ${repo})\n`);
  const result = spawnSync(process.execPath, [cli, "audit", "--base", "base"], {
    cwd: repo,
    stdio: "inherit",
    env: { ...process.env, GIT_CONFIG_GLOBAL: "/dev/null" },
  });
  const code = result.status ?? 2;
  const meaning = { 0: "the gate passes", 1: "the gate fails: a changed line is shadowed" };
  console.log(`\nexit code ${code}: ${meaning[code] ?? "error"}`);
  // The demo succeeds when freezegate answered (0 or 1); 2 means something is broken.
  process.exitCode = code === 0 || code === 1 ? 0 : 1;
} finally {
  rmSync(repo, { recursive: true, force: true });
}
