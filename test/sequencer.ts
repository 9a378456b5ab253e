// The order Vitest starts the test files in. With two workers, a long file started last runs
// alone while the other worker sits idle: on a fresh clone Vitest knows no durations and
// starts the largest files first, which put the pytest plugin's whole suite (a short file
// that runs for about a minute) at the very end. So the files of test/durations.json (each
// file's seconds in a full run; `node scripts/test-durations.mjs` rewrites it from Vitest's
// own record of the last run) start longest first, and files it does not list after them.
// Where Vitest has its own record of every file, its order stands.

import { readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

/** test/durations.json: repository path -> seconds. */
function recordedDurations(root: string): Map<string, number> {
  const text = readFileSync(join(root, "test", "durations.json"), "utf8");
  return new Map(Object.entries(JSON.parse(text) as Record<string, number>));
}

export class LongestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const root = this.ctx.config.root;
    const path = (spec: TestSpecification) => relative(root, spec.moduleId);
    const known = files.every(
      (spec) =>
        this.ctx.cache.getFileTestResults(`${spec.project.name}:${path(spec)}`) !== undefined,
    );
    if (known) return super.sort(files);
    const seconds = recordedDurations(root);
    return [...files].sort((a, b) => (seconds.get(path(b)) ?? 0) - (seconds.get(path(a)) ?? 0));
  }
}
