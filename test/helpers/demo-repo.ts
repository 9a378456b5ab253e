// The bundled example (examples/demo) as a real git repository: base/ overlaid on project/ is
// the base commit (branch "base"), project/ the patch commit, exactly as `npm run demo` does.

import { cpSync } from "node:fs";
import { join } from "node:path";
import { REPO_ROOT } from "./cli.js";
import { makeTempRepo, type TempRepo } from "./git-repo.js";

export const DEMO_DIR = join(REPO_ROOT, "examples/demo");

export function makeDemoRepo(): TempRepo {
  const repo = makeTempRepo();
  cpSync(join(DEMO_DIR, "project"), repo.dir, { recursive: true });
  cpSync(join(DEMO_DIR, "base"), repo.dir, { recursive: true });
  repo.commit("base");
  repo.git("branch", "base");
  cpSync(join(DEMO_DIR, "project"), repo.dir, { recursive: true });
  repo.commit("patch");
  return repo;
}
