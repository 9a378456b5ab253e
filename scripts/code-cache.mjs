// The code cache for audit.cjs (see bin-entry.cjs): the bytecode of everything a sample audit
// of the bundled example runs, written next to it by that run. Made by the Node.js running
// this script, the one V8 accepts it from (V8 refuses a cache of another version). Used by
// the build (scripts/bundle.mjs) and by the bench's variants of a build (bench/tricks.mjs).

import { spawnSync } from "node:child_process";
import { existsSync, rmSync } from "node:fs";
import { join } from "node:path";
import { demoGitEnv, makeDemoRepo } from "./demo-repo.mjs";

/**
 * Writes `binDir`/audit.cjs.v8cache, or throws with why not (the cache is then absent).
 * V8 accepts a cache only under the flags it was made with: the sample runs a plain `node`.
 */
export function writeCodeCache(binDir) {
  const cache = join(binDir, "audit.cjs.v8cache");
  rmSync(cache, { force: true });
  const env = { ...demoGitEnv, FREEZEGATE_WRITE_CODE_CACHE: "1" };
  delete env.NODE_OPTIONS;
  const repo = makeDemoRepo();
  try {
    const sample = spawnSync(
      process.execPath,
      [join(binDir, "freezegate.cjs"), "audit", "--base", "base", "--format", "json"],
      { cwd: repo, env, encoding: "utf8" },
    );
    if (sample.status !== 1 || !existsSync(cache)) {
      throw new Error(`the sample audit exited ${sample.status}: ${sample.stderr}`);
    }
  } catch (error) {
    rmSync(cache, { force: true });
    throw error;
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}
