// Records per-test coverage with freezegate's Vitest runner and reporter: the repository's own
// Vitest run on a fixture project under test/fixtures/vitest/, writing its data where the test
// says (FREEZEGATE_VITEST_DATA).

import { spawnSync } from "node:child_process";
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
