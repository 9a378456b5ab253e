// Reads freezegate defaults from the repository: `[tool.freezegate]` in pyproject.toml or the
// "freezegate" key of package.json. Both present is an error (which one wins would be a
// guess). Malformed files are errors, never "no config".

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { parse as parseToml } from "smol-toml";
import { type LoadedConfig, validateConfig } from "../core/config.js";
import { ConfigError } from "../core/errors.js";
import { findDuplicateKey } from "../core/json-text.js";

function readIfExists(path: string): string | null {
  try {
    // A UTF-8 byte-order mark (Windows editors, PowerShell's Out-File) is no part of the
    // text: npm strips it from package.json too.
    return readFileSync(path, "utf8").replace(/^\uFEFF/, "");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new ConfigError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

interface Found {
  source: string;
  path: string;
  raw: unknown;
}

function fromPyproject(root: string): Found | null {
  const path = join(root, "pyproject.toml");
  const text = readIfExists(path);
  if (text === null) return null;
  let doc: Record<string, unknown>;
  try {
    doc = parseToml(text) as Record<string, unknown>;
  } catch (error) {
    const first = String((error as Error).message).split("\n")[0];
    throw new ConfigError(`pyproject.toml is not valid TOML: ${first}`, {
      fix: "fix the TOML syntax (freezegate reads [tool.freezegate] from it)",
      cause: error,
    });
  }
  const tool = doc.tool as Record<string, unknown> | undefined;
  if (!tool || typeof tool !== "object" || !("freezegate" in tool)) return null;
  return { source: "pyproject.toml [tool.freezegate]", path, raw: tool.freezegate };
}

function fromPackageJson(root: string): Found | null {
  const path = join(root, "package.json");
  const text = readIfExists(path);
  if (text === null) return null;
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (error) {
    throw new ConfigError(`package.json is not valid JSON: ${(error as Error).message}`, {
      fix: 'fix the JSON syntax (freezegate reads its "freezegate" key)',
      cause: error,
    });
  }
  if (typeof doc !== "object" || doc === null || !("freezegate" in doc)) return null;
  // JSON.parse keeps the last of two equal keys; a reader of the file sees the first.
  const repeat = findDuplicateKey(text, ({ key, path }) =>
    path === "$" ? key === "freezegate" : /^\$\.freezegate(?:$|[.[])/.test(path),
  );
  if (repeat !== null) {
    throw new ConfigError(
      `package.json has the key ${JSON.stringify(repeat.key)} twice in ${repeat.path}: JSON readers keep only the last one, a person reading the file sees the first`,
      { fix: `keep one ${JSON.stringify(repeat.key)} in ${repeat.path}` },
    );
  }
  return {
    source: 'package.json "freezegate"',
    path,
    raw: (doc as Record<string, unknown>).freezegate,
  };
}

export function loadConfig(root: string): LoadedConfig {
  const py = fromPyproject(root);
  const pkg = fromPackageJson(root);
  if (py && pkg) {
    throw new ConfigError(
      'freezegate settings are in both pyproject.toml [tool.freezegate] and package.json "freezegate"',
      { fix: "keep them in one place" },
    );
  }
  const found = py ?? pkg;
  if (!found) return { source: null, path: null, values: {} };
  return {
    source: found.source,
    path: found.path,
    values: validateConfig(found.raw, found.source),
  };
}
