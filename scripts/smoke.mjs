#!/usr/bin/env node
// A smoke run of the built CLI (dist/) on the Node.js that runs this script: `audit` (text
// and JSON), `check` with an HTML report, on the bundled example (scripts/demo-repo.mjs).
// .ci/run runs it on each supported Node.js major that the whole test suite does not run
// on. Exit 0 when every answer is the expected one and nothing else was printed on stderr
// (a warning of Node's would land in users' CI logs); 1 otherwise, with what differed.
//
//   /path/to/node scripts/smoke.mjs

import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, rmSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { demoGitEnv, makeDemoRepo } from "./demo-repo.mjs";

const cli = resolve(dirname(fileURLToPath(import.meta.url)), "../dist/bin/freezegate.cjs");
const repo = makeDemoRepo();
const problems = [];

function freezegate(args, status) {
  const r = spawnSync(process.execPath, [cli, ...args], {
    cwd: repo,
    env: { ...demoGitEnv, NO_COLOR: "1" },
    encoding: "utf8",
  });
  const what = `freezegate ${args.join(" ")}`;
  if (r.status !== status) problems.push(`${what}: exit ${r.status}, expected ${status}`);
  if (r.stderr !== "") problems.push(`${what}: stderr: ${r.stderr.trim()}`);
  return r.stdout;
}

function expect(what, ok) {
  if (!ok) problems.push(what);
}

try {
  const text = freezegate(["audit", "--base", "base"], 1);
  expect("audit: the shadowed line 13", text.includes("SHADOWED 13: only frozen tests cover it"));

  const json = JSON.parse(freezegate(["audit", "--base", "base", "--format", "json"], 1) || "{}");
  const counts = json.summary?.counts ?? {};
  expect(
    `audit --format json: counts ${JSON.stringify(counts)}`,
    counts.defended === 1 && counts.shadowed === 1 && counts.uncovered === 7,
  );

  freezegate(["ledger", "migrate"], 0);
  // check reads who changed a freeze from the commits: the ledger must be committed.
  execFileSync("git", ["add", "freeze-ledger.json"], { cwd: repo, env: demoGitEnv });
  execFileSync(
    "git",
    ["-c", "user.name=smoke", "-c", "user.email=smoke@example.invalid", "commit", "-qm", "ledger"],
    { cwd: repo, env: demoGitEnv },
  );
  const check = JSON.parse(
    freezegate(["check", "--base", "base", "--format", "json", "-o", "html=report.html"], 1) ||
      "{}",
  );
  expect(
    `check: failed gates ${JSON.stringify(check.failedGates)}`,
    Array.isArray(check.failedGates) && check.failedGates.includes("shadow"),
  );
  const html = readFileSync(join(repo, "report.html"), "utf8");
  expect("check -o html=report.html: an HTML report", /^<!DOCTYPE html>/i.test(html));
} catch (error) {
  problems.push(String(error));
} finally {
  rmSync(repo, { recursive: true, force: true });
}

if (problems.length > 0) {
  process.stderr.write(`smoke (Node.js ${process.version}): FAILED\n  ${problems.join("\n  ")}\n`);
  process.exitCode = 1;
} else {
  process.stdout.write(`smoke (Node.js ${process.version}): audit, check, HTML report: ok\n`);
}
