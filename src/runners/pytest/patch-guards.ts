// A guard on what a patch may change beside its code: coverage.py's configuration changed while
// the patch's own files are missing from the data could make a gate pass on evidence the patch
// itself arranged. (Data committed with the patch is every runner's case:
// src/app/audit/data-in-patch.ts.)

import { basename, join, posix } from "node:path";
import { readBlobs } from "../../adapters/git-history.js";
import { readTextOrNull } from "../../adapters/repo-files.js";
import { sample } from "../../core/listing.js";
import type { ChangedFile, Patch } from "../../core/model.js";
import { baseRevisionOf } from "../../core/patch-base.js";
import { refusal } from "../../core/refusals/index.js";
import { coverageSettingsIn, mayConfigureCoverage } from "./coverage-settings.js";

/**
 * A patch that changes coverage.py's configuration (an `omit`, a narrower `source` or
 * `--cov=`, another `--cov-config`) can take its own changed files out of the data, and an
 * unmeasured line fails no gate by default. So when a changed source file is unmeasured and
 * the patch also changes what a file says about coverage (compared with the patch's base; a
 * user's diff has none, so any such file it touches counts), the audit refuses.
 */
export async function refuseUnmeasuredAfterCoverageConfig(
  root: string,
  patch: Patch,
  unmeasured: readonly ChangedFile[],
  testRoot: string,
  measured: Iterable<string>,
): Promise<void> {
  // Every directory above a measured file (repository paths).
  const measuredDirs = new Set<string>();
  for (const p of measured) {
    for (let d = posix.dirname(p); d !== "." && !measuredDirs.has(d); d = posix.dirname(d)) {
      measuredDirs.add(d);
    }
  }
  const may = (p: string) => mayConfigureCoverage(p, testRoot, measuredDirs);
  const configs = patch.files.filter(
    (f) => !f.binary && (may(f.path) || (f.oldPath !== null && may(f.oldPath))),
  );
  if (configs.length === 0) return;
  const base = baseRevisionOf(patch);
  const before =
    base === null
      ? null
      : await readBlobs(
          root,
          configs.map((f) => ({ rev: base, path: f.oldPath ?? f.path })),
        );
  const changed = configs.filter((f, i) => {
    const now = coverageSettingsIn(
      basename(f.path),
      f.status === "deleted" ? null : readTextOrNull(join(root, f.path)),
    );
    if (before === null) return now !== null || f.status === "deleted";
    const then = coverageSettingsIn(
      basename(f.oldPath ?? f.path),
      before[i]?.toString("utf8") ?? null,
    );
    return now !== then;
  });
  if (changed.length === 0) return;
  throw refusal("patch-changes-coverage-config", {
    config: sample(changed.map((f) => f.path)),
    sources: sample(unmeasured.map((f) => f.path)),
  });
}
