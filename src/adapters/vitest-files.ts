// Vitest's files on disk as `freezegate init vitest` needs them: the configuration file Vitest
// reads when started in a directory, a Vitest 3 workspace file next to it, and the packages
// installed where Vitest loads them from (node_modules, searched upwards as Node does).

import { dirname, join } from "node:path";
import { parseJsonText } from "../core/json-text.js";
import {
  type InstalledPackage,
  VITEST_CONFIG_FILES,
  VITEST_WORKSPACE_FILES,
} from "../runners/vitest/prerequisites.js";
import { fileExists, readTextIfExists } from "./repo-files.js";

export interface FoundVitestConfig {
  path: string;
  /** Its file name (vitest.config.ts, vite.config.mjs, ...). */
  name: string;
}

/**
 * The configuration file Vitest uses when started in `dir`: the first of VITEST_CONFIG_FILES
 * in the directory, then in its parents up to `stop` (Vitest searches on to the file system's
 * root; above the repository nothing is ours to edit).
 */
export function findVitestConfig(dir: string, stop: string): FoundVitestConfig | null {
  let current = dir;
  for (;;) {
    for (const name of VITEST_CONFIG_FILES) {
      if (fileExists(join(current, name))) return { path: join(current, name), name };
    }
    if (current === stop) return null;
    const parent = dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

/** The Vitest 3 workspace file in `dir` (where Vitest 3 looks, next to the config), if any. */
export function workspaceFileIn(dir: string): string | null {
  return VITEST_WORKSPACE_FILES.find((name) => fileExists(join(dir, name))) ?? null;
}

/**
 * The package `name` as Node finds it from `from` (node_modules in the directory and its
 * parents), from its package.json; null when it is not installed.
 */
export function installedPackage(
  from: string,
  name: string,
  show: (path: string) => string,
): InstalledPackage | null {
  let current = from;
  for (;;) {
    const path = join(current, "node_modules", name, "package.json");
    const text = readTextIfExists(path, `${name}'s package.json`);
    if (text !== null) {
      const pkg = parseJsonText(text, show(path), `reinstall ${name}`) as {
        version?: unknown;
        engines?: { node?: unknown };
        exports?: unknown;
      };
      const exports =
        pkg.exports !== null && typeof pkg.exports === "object" ? Object.keys(pkg.exports) : [];
      return {
        shown: show(join(current, "node_modules", name)),
        version: typeof pkg.version === "string" ? pkg.version : "(no version)",
        engines: typeof pkg.engines?.node === "string" ? pkg.engines.node : null,
        exports,
      };
    }
    const parent = dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}
