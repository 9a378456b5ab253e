// pytest's files on disk as `freezegate init pytest` needs them: the configuration file pytest
// reads when started in a directory, and the plugin's source next to this freezegate.

import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { refusal } from "../core/refusals/index.js";
import {
  checkedConfigText,
  PLUGIN_MODULE,
  PYTEST_9_ONLY_CONFIGS,
  refusePytest9Config,
} from "../runners/pytest/plugin-wiring.js";
import { locatePytestConfig, PytestConfigFileUnreadable } from "../runners/pytest/pytest-config.js";
import { fileExists, readTextIfExists } from "./repo-files.js";

export interface FoundConfig {
  path: string;
  /** Its name, which says how pytest reads it (pytest.ini, pyproject.toml, ...). */
  name: string;
  text: string;
}

/**
 * The configuration file pytest 7 would use when started in `dir`, searching up to `stop`: in
 * the directory and then its parents, the first file that holds pytest settings
 * (locatePytestConfig). A file pytest cannot read, or pytest 9's TOML configuration on the
 * way, is refused (ConfigError): init cannot tell what pytest would then do.
 */
export function findPytestConfig(
  dir: string,
  stop: string,
  label: (p: string) => string,
): FoundConfig | null {
  let current = dir;
  for (;;) {
    // pytest 9 looks for these first, and takes their TOML dialect: not ours to edit.
    for (const name of PYTEST_9_ONLY_CONFIGS) {
      if (fileExists(join(current, name))) refusePytest9Config(label(join(current, name)));
    }
    let located: ReturnType<typeof locatePytestConfig>;
    try {
      located = locatePytestConfig([current], 7, (at, name) => {
        const path = join(at, name);
        const text = readTextIfExists(path, "pytest configuration");
        return text === null ? null : checkedConfigText(name, text, label(path));
      });
    } catch (error) {
      if (!(error instanceof PytestConfigFileUnreadable)) throw error;
      const shown = label(join(error.file.dir, error.file.name));
      throw refusal("pytest-config-unreadable", { file: shown, why: error.message });
    }
    if (located !== null) {
      return { path: join(current, located.name), name: located.name, text: located.text };
    }
    if (current === stop) return null;
    const parent = dirname(current);
    if (parent === current) return null;
    current = parent;
  }
}

/** integrations/pytest next to this freezegate (a checkout, or the installed npm package). */
export function pluginDirectory(): string | null {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let depth = 0; depth < 8; depth++) {
    const candidate = join(dir, "integrations", "pytest");
    if (
      fileExists(join(candidate, "pyproject.toml")) &&
      fileExists(join(candidate, PLUGIN_MODULE))
    ) {
      return candidate;
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  return null;
}
