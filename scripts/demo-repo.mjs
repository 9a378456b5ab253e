// The bundled example patch (examples/demo) as a throw-away git repository: the base commit on
// branch `base`, the patch on `main`, with the real pytest-cov data the example carries.
// Used by `npm run demo` and by the build's sample audit (scripts/bundle.mjs).

import { execFileSync } from "node:child_process";
import { cpSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const demo = resolve(dirname(fileURLToPath(import.meta.url)), "../examples/demo");

/** git's environment for the example: no user or system configuration. */
export const demoGitEnv = {
  ...process.env,
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_CONFIG_NOSYSTEM: "1",
};

/** Makes the repository in a new temporary directory and returns its path (caller removes it). */
export function makeDemoRepo() {
  const repo = mkdtempSync(join(tmpdir(), "freezegate-demo-"));
  const git = (...args) =>
    execFileSync(
      "git",
      ["-c", "user.name=demo", "-c", "user.email=demo@example.invalid", ...args],
      { cwd: repo, env: demoGitEnv, stdio: ["ignore", "pipe", "pipe"] },
    );
  cpSync(join(demo, "project"), repo, { recursive: true });
  cpSync(join(demo, "base"), repo, { recursive: true });
  git("init", "-q", "-b", "main");
  git("add", "-A", ".");
  git("commit", "-q", "-m", "base");
  git("branch", "base");
  cpSync(join(demo, "project"), repo, { recursive: true });
  git("add", "-A", ".");
  git("commit", "-q", "-m", "patch: half-up rounding, credit notes");
  return repo;
}
