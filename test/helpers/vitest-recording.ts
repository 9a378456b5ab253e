// Records per-test coverage with freezegate's Vitest runner and reporter: the repository's own
// Vitest run on a fixture project under test/fixtures/vitest/, writing its data where the test
// says (FREEZEGATE_VITEST_DATA); or a project of its own, given a node_modules from this
// repository's installed packages.

import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./cli.js";

export const VITEST = join(REPO_ROOT, "node_modules/vitest/vitest.mjs");

export interface Recording {
  status: number | null;
  output: string;
  /** The data file the run was told to write. */
  data: string;
}

/** `vitest run` in `fixture` (its root) with `args`, writing the data to `data`. */
export function recordVitest(fixture: string, data: string, ...args: string[]): Recording {
  const res = spawnSync(process.execPath, [VITEST, "run", "--root", fixture, ...args], {
    cwd: fixture,
    encoding: "utf8",
    env: { ...process.env, FREEZEGATE_VITEST_DATA: data, FORCE_COLOR: "0", CI: "1" },
  });
  return { status: res.status, output: `${res.stdout}${res.stderr}`, data };
}

/**
 * Gives the project in `dir` a node_modules as a user's has it after
 * `npm i -D vitest @vitest/coverage-istanbul fast-check freezegate`: links to the packages
 * installed in `packages` (this repository's, unless told), and freezegate linked to this
 * checkout (its dist/ and integrations/).
 */
export function installFromRepository(
  dir: string,
  packages = join(REPO_ROOT, "node_modules"),
): void {
  mkdirSync(join(dir, "node_modules"), { recursive: true });
  for (const name of readdirSync(packages)) {
    if (!name.startsWith(".") && name !== "freezegate") {
      symlinkSync(join(packages, name), join(dir, "node_modules", name));
    }
  }
  symlinkSync(REPO_ROOT, join(dir, "node_modules/freezegate"));
}
