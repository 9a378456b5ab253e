// The data's tests as pytest names them: the context names read (contexts.ts) against the
// test root, pytest's rootdir, whose files tell a static context from a path and map
// test_function names to node ids.

import { join } from "node:path";
import { refuseNestedConfig } from "../../adapters/config-files.js";
import {
  fileExists,
  isDirectory,
  listPythonFiles,
  readTextIfExists,
} from "../../adapters/repo-files.js";
import type { ContextIndex, CoverageSource } from "../../core/model.js";
import { normalizePath } from "../../core/path-map.js";
import { refusal } from "../../core/refusals/index.js";
import type { DataTests } from "../runner.js";
import { indexContextOverview, indexContexts } from "./contexts.js";
import { buildModuleIndex, lazyTestFileExists, moduleIndexOnFirstUse } from "./test-root-files.js";

/**
 * The data's tests (see RunnerTests.read). Without `names`, from the data's overview when it
 * has one and its tests all have plain pytest-cov names (no name list read), else from every
 * name; with `names`, from every name, which are kept.
 */
export function readPytestTests(
  root: string,
  testRoot: string,
  coverage: CoverageSource,
  { names: keepNames = false } = {},
): DataTests {
  const { prefix, modules, testFileExists } = testRootOf(root, testRoot);
  const overview = keepNames ? null : (coverage.contextOverview?.() ?? null);
  const fast = overview === null ? null : indexContextOverview(overview, modules);
  if (fast !== null && overview !== null) {
    return {
      index: fast,
      prefix,
      testsWithoutRun: (ids) => overview.testsWithoutRun(ids),
      testFileExists,
    };
  }
  const names = coverage.contextNames();
  const index = indexContexts(names, modules);
  return {
    index,
    prefix,
    testsWithoutRun: (ids) => testsWithoutRunIn(names, index, ids),
    testFileExists,
    ...(keepNames ? { names } : {}),
  };
}

/**
 * `--test-root` as a path prefix, and the Python files under it (listed on first use), also as
 * a module index (built on first use).
 */
function testRootOf(root: string, testRoot: string) {
  const normalized = normalizePath(testRoot);
  if (normalized.startsWith("/") || normalized.startsWith("..")) {
    throw refusal("bad-test-root", { testRoot, problem: "outside" });
  }
  // A mistyped test root would only show as node ids naming missing files, or not at all.
  if (normalized !== "" && !fileExists(join(root, normalized))) {
    throw refusal("bad-test-root", { testRoot, problem: "missing" });
  }
  if (normalized !== "" && !isDirectory(join(root, normalized))) {
    throw refusal("bad-test-root", { testRoot, problem: "file" });
  }
  if (normalized !== "") refuseNestedConfig(root, join(root, normalized));
  const prefix = normalized === "" ? "" : `${normalized}/`;
  let files: Set<string> | null = null;
  const testRootFiles = () => {
    files ??= new Set(
      listPythonFiles(root)
        .filter((p) => p.startsWith(prefix))
        .map((p) => p.slice(prefix.length)),
    );
    return files;
  };
  // test_function names are checked against the test root's source (contexts.ts).
  // A name too long for the file system (a long static context before a path) is none.
  const read = (file: string): string | null =>
    readTextIfExists(join(root, prefix, file), "test file");
  const modules = moduleIndexOnFirstUse(() => buildModuleIndex(testRootFiles(), read));
  return { prefix, testRootFiles, modules, testFileExists: lazyTestFileExists(modules) };
}

/**
 * Of `ids` (tests in the data), those with no "|run" context among `names`: pytest-cov names
 * a test's contexts by phase, and a test with only setup or teardown never ran its body.
 * Other styles name no phases (a test_function context is the test function itself).
 */
function testsWithoutRunIn(
  names: readonly string[],
  index: ContextIndex,
  ids: readonly string[],
): string[] {
  if (index.style !== "pytest-cov" || ids.length === 0) return [];
  const waiting = new Set(ids);
  for (const name of names) {
    if (!name.endsWith("|run")) continue;
    // As the index reads it (a "|" before the first "::": a static context, or the path's).
    const id = index.get(name).testId;
    if (id !== null && waiting.delete(id) && waiting.size === 0) break;
  }
  return ids.filter((id) => waiting.has(id));
}
