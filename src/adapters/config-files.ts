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
    return readFileSync(path, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw new ConfigError(`cannot read ${path}: ${(error as Error).message}`, { cause: error });
  }
}

/**
 * A UTF-8 byte-order mark (Windows editors, PowerShell's Out-File) is no part of the text: npm
 * strips it from package.json too.
 */
function withoutBom(text: string | null): string | null {
  return text === null ? null : text.replace(/^\uFEFF/, "");
}

interface Found {
  source: string;
  path: string;
  raw: unknown;
}

function fromPyproject(path: string, text: string | null): Found | null {
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

function fromPackageJson(path: string, text: string | null): Found | null {
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

/** The repository root's config files: the texts (null: no such file), and their paths. */
export interface ConfigTexts {
  pyproject: { path: string; text: string | null };
  packageJson: { path: string; text: string | null };
}

/** The config file names, at the repository root. */
export const CONFIG_FILES = ["pyproject.toml", "package.json"] as const;

export function loadConfig(root: string): LoadedConfig {
  const [py, pkg] = CONFIG_FILES.map((name) => join(root, name)) as [string, string];
  return configFromTexts({
    pyproject: { path: py, text: readIfExists(py) },
    packageJson: { path: pkg, text: readIfExists(pkg) },
  });
}

/** The config that the given texts hold (read from disk, or from a commit). */
export function configFromTexts(texts: ConfigTexts): LoadedConfig {
  const py = fromPyproject(texts.pyproject.path, withoutBom(texts.pyproject.text));
  const pkg = fromPackageJson(texts.packageJson.path, withoutBom(texts.packageJson.text));
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
