// Test files by pytest's own setting: a `python_files` of the test root's pytest configuration
// (pytest-django's `tests.py`, a suite's `check_*.py`) names modules pytest collects tests
// from, which the audit then leaves out like the default test files. Widening the test files
// takes lines out of the audit, so only a setting read at both ends of the patch widens it.

import { join } from "node:path";
import { readBlobs } from "../../adapters/git-history.js";
import { readTextIfExists } from "../../adapters/repo-files.js";
import { withPythonFiles } from "../../core/globs.js";
import type { Patch } from "../../core/model.js";
import { baseRevisionOf } from "../../core/patch-base.js";
import { normalizePath } from "../../core/path-map.js";
import { pytestConfigNames, pytestPythonFiles } from "./pytest-config.js";

/** "" or "dir/" for the test root; null for one outside the repository. */
function testRootPrefix(testRoot: string): string | null {
  const normalized = normalizePath(testRoot);
  if (normalized.startsWith("/") || normalized.startsWith("..")) return null;
  return normalized === "" ? "" : `${normalized}/`;
}

/** The test root's config files as on disk (null for a missing one). */
function diskReader(root: string, prefix: string): (name: string) => string | null {
  return (name) => readTextIfExists(join(root, prefix, name), "pytest configuration");
}

/** The test globs with the test root's `python_files` on disk added (see withPythonFiles). */
export function testGlobsOnDisk(
  root: string,
  testRoot: string,
  testGlobs: readonly string[],
): string[] {
  const prefix = testRootPrefix(testRoot);
  if (prefix === null) return [...testGlobs];
  return withPythonFiles(testGlobs, pytestPythonFiles(diskReader(root, prefix), "both"));
}

/**
 * The audit's test globs with the test root's `python_files` added (when they are the
 * defaults). When the patch changes a pytest config file of the test root, the base's
 * `python_files` are read too and a test file must match both (baseTestGlobs): a patch cannot
 * make its own files tests. Without a base to read (a user's diff) nothing is added then.
 */
export async function testGlobsWithPythonFiles(
  root: string,
  patch: Patch,
  testRoot: string,
  globs: { testGlobs: readonly string[]; baseTestGlobs?: readonly string[] },
): Promise<{ testGlobs: string[]; baseTestGlobs?: string[] }> {
  const given = {
    testGlobs: [...globs.testGlobs],
    ...(globs.baseTestGlobs === undefined ? {} : { baseTestGlobs: [...globs.baseTestGlobs] }),
  };
  const prefix = testRootPrefix(testRoot);
  if (prefix === null) return given;
  const names = [...new Set([...pytestConfigNames(7), ...pytestConfigNames(9)])].map(
    (name) => `${prefix}${name}`,
  );
  const touched = patch.files.some(
    (f) => names.includes(f.path) || (f.oldPath !== null && names.includes(f.oldPath)),
  );
  const testGlobs = testGlobsOnDisk(root, testRoot, globs.testGlobs);
  if (!touched) {
    return globs.baseTestGlobs === undefined
      ? { testGlobs }
      : { testGlobs, baseTestGlobs: testGlobsOnDisk(root, testRoot, globs.baseTestGlobs) };
  }
  const base = baseRevisionOf(patch);
  if (base === null) return given;
  const blobs = await readBlobs(
    root,
    names.map((path) => ({ rev: base, path })),
  );
  const atBase = new Map(names.map((path, i) => [path.slice(prefix.length), blobs[i] ?? null]));
  const baseFiles = pytestPythonFiles((name) => atBase.get(name)?.toString("utf8") ?? null, "both");
  return {
    testGlobs,
    baseTestGlobs: withPythonFiles(globs.baseTestGlobs ?? globs.testGlobs, baseFiles),
  };
}
