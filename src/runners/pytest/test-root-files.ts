// The test root's Python files as the context readers need them: grouped by module name (for
// dotted test_function names) with a reader for their text, and whether the test root holds a
// file a node id names. Built on first use: listing the files costs a git call, and most data
// (plain pytest-cov names) never asks.

import type { TestFileExists } from "../../core/model.js";

/**
 * Reads a file of the test root (a path relative to it, as in the index): its text, or null
 * when there is no such file.
 */
export type TestRootReader = (file: string) => string | null;

/**
 * Python files grouped by module name (basename without ".py"), for dotted-name lookups, and
 * a reader for their text: test_function names can only be checked against the source (which
 * classes inherit tests, which functions a module defines). Without a reader such names are
 * refused.
 */
export type ModuleIndex = Map<string, string[]> & { read?: TestRootReader };

export function buildModuleIndex(
  pythonFiles: Iterable<string>,
  read?: TestRootReader,
): ModuleIndex {
  const index: ModuleIndex = new Map();
  for (const file of pythonFiles) {
    if (!file.endsWith(".py")) continue;
    const stem = file.slice(file.lastIndexOf("/") + 1, -3);
    const list = index.get(stem);
    if (list) list.push(file);
    else index.set(stem, [file]);
  }
  if (read) index.read = read;
  return index;
}

/** A module index given as it is, or as the function that builds it: built once, on first use. */
export function moduleIndexOnFirstUse(
  modules: ModuleIndex | (() => ModuleIndex),
): () => ModuleIndex {
  let built: ModuleIndex | null = null;
  return () => {
    built ??= typeof modules === "function" ? modules() : modules;
    return built;
  };
}

/** testFileExistsIn over a module index built on first use. */
export function lazyTestFileExists(modules: () => ModuleIndex): TestFileExists {
  let exists: TestFileExists | null = null;
  return (file) => {
    exists ??= testFileExistsIn(modules());
    return exists(file);
  };
}

/**
 * Does the test root hold `file`? Python files by the index (the test root's files as git
 * lists them), else, as any other file (a YAML test a plugin collects, a doctest text file,
 * a test module generated into an ignored directory, which git does not list), by reading
 * it, when the index has a reader. Answers are remembered.
 */
export function testFileExistsIn(modules: ModuleIndex): TestFileExists {
  const known = new Map<string, boolean>();
  return (file) => {
    let found = known.get(file);
    if (found === undefined) {
      found =
        (file.endsWith(".py") &&
          (modules.get(file.slice(file.lastIndexOf("/") + 1, -3))?.includes(file) ?? false)) ||
        (file !== "" && (modules.read?.(file) ?? null) !== null);
      known.set(file, found);
    }
    return found;
  };
}
