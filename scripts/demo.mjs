#!/usr/bin/env node
// `npm run demo`: audit the bundled example patch (examples/demo) in a throw-away git
// repository. Needs git and the built CLI (npm run build), not Python: the example carries
// real coverage data recorded by pytest-cov.

import { spawnSync } from "node:child_process";
import { rmSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { makeDemoRepo } from "./demo-repo.mjs";

const cli = resolve(dirname(fileURLToPath(import.meta.url)), "../dist/bin/freezegate.cjs");
const repo = makeDemoRepo();

try {
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
