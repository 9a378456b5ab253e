// Which changed files a Vitest audit judges: test files are those Vitest's own `include`
// matched (the data's testFiles), not names guessed from a pattern; source files are
// JavaScript and TypeScript modules that are not tests. Declaration files (.d.ts) hold types
// only, which run nothing: no line of theirs can be defended or shadowed.

import { normalizePath } from "../../core/path-map.js";

export const VITEST_SOURCE_EXTENSIONS = [
  ".ts",
  ".tsx",
  ".mts",
  ".cts",
  ".js",
  ".jsx",
  ".mjs",
  ".cjs",
] as const;

/** The source globs of a Vitest audit, as the path globs (src/core/globs.ts) read them. */
export const VITEST_SOURCE_GLOBS = VITEST_SOURCE_EXTENSIONS.map((ext) => `**/*${ext}`);

const DECLARATION_FILE = /\.d\.[mc]?ts$/;

/** Is this a JavaScript or TypeScript module (a declaration file is none)? */
export function isJsTsModule(path: string): boolean {
  return VITEST_SOURCE_EXTENSIONS.some((ext) => path.endsWith(ext)) && !DECLARATION_FILE.test(path);
}

/**
 * A path of the data (relative to the Vitest root) as a repository path, given the Vitest root
 * as a prefix of repository paths ("" or "dir/"); null when it leads out of the repository (a
 * package imported from above it).
 */
export function repoPathOf(prefix: string, dataPath: string): string | null {
  const path = normalizePath(`${prefix}${dataPath}`);
  return path.startsWith("../") || path === ".." || path.startsWith("/") ? null : path;
}

/** The data's test files as repository paths. */
export function vitestTestFiles(testFiles: readonly string[], prefix: string): Set<string> {
  const out = new Set<string>();
  for (const file of testFiles) {
    const path = repoPathOf(prefix, file);
    if (path !== null) out.add(path);
  }
  return out;
}

/** Is this changed file (a repository path) audited source: a module that is no test file? */
export function isVitestSource(path: string, testFiles: ReadonlySet<string>): boolean {
  return isJsTsModule(path) && !testFiles.has(path);
}
