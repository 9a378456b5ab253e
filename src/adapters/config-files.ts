// Reads freezegate defaults from the repository: `[tool.freezegate]` in pyproject.toml or the
// "freezegate" key of package.json. Both present is an error (which one wins would be a
// guess). Malformed files are errors, never "no config".

import { realpathSync } from "node:fs";
import { dirname, isAbsolute, join, relative } from "node:path";
import { parse as parseToml } from "smol-toml";
import { type LoadedConfig, validateConfig } from "../core/config.js";
import { findDuplicateKey } from "../core/json-text.js";
import { refusal } from "../core/refusals/index.js";
import { readTextIfExists } from "./repo-files.js";

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
    throw refusal("pyproject-not-toml", { why: first ?? "" }, { cause: error });
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
    throw refusal("package-json-not-json", { why: (error as Error).message }, { cause: error });
  }
  if (typeof doc !== "object" || doc === null || !("freezegate" in doc)) return null;
  // JSON.parse keeps the last of two equal keys; a reader of the file sees the first.
  const repeat = findDuplicateKey(text, ({ key, path }) =>
    path === "$" ? key === "freezegate" : /^\$\.freezegate(?:$|[.[])/.test(path),
  );
  if (repeat !== null) {
    throw refusal("json-duplicate-key", {
      source: "package.json",
      key: repeat.key,
      at: repeat.path,
    });
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

/**
 * The repository root's settings. `cwd` (the directory the command runs in): settings in a
 * config file between it and the root are refused, not ignored: a monorepo's backend/ with its
 * own `[tool.freezegate]` would otherwise lose its `fail-on` without a word.
 */
export function loadConfig(root: string, cwd: string = root): LoadedConfig {
  if (cwd !== root) refuseNestedConfig(root, cwd);
  const [py, pkg] = CONFIG_FILES.map((name) => join(root, name)) as [string, string];
  return configFromTexts({
    pyproject: { path: py, text: readTextIfExists(py, "config file") },
    packageJson: { path: pkg, text: readTextIfExists(pkg, "config file") },
  });
}

/** The config that the given texts hold (read from disk, or from a commit). */
export function configFromTexts(texts: ConfigTexts): LoadedConfig {
  const py = fromPyproject(texts.pyproject.path, withoutBom(texts.pyproject.text));
  const pkg = fromPackageJson(texts.packageJson.path, withoutBom(texts.packageJson.text));
  if (py && pkg) {
    throw refusal("config-in-two-places", undefined);
  }
  const found = py ?? pkg;
  if (!found) return { source: null, path: null, values: {} };
  return {
    source: found.source,
    path: found.path,
    values: validateConfig(found.raw, found.source),
  };
}

/** Directories from `cwd` up to, not including, `root` (none when cwd is not inside it). */
function directoriesBelowRoot(root: string, cwd: string): string[] {
  let rel = relative(root, cwd);
  if (rel.startsWith("..") || isAbsolute(rel)) {
    // Another spelling of the same place (a symbolic link in the path).
    try {
      rel = relative(realpathSync(root), realpathSync(cwd));
    } catch {
      return [];
    }
    if (rel.startsWith("..") || isAbsolute(rel)) return [];
  }
  const dirs: string[] = [];
  for (let dir = rel; dir !== "" && dir !== "."; dir = dirname(dir)) dirs.push(dir);
  return dirs;
}

/** Does this config file text hold freezegate settings? */
function holdsSettings(name: (typeof CONFIG_FILES)[number], text: string): boolean {
  if (!text.includes("freezegate")) return false;
  try {
    if (name === "package.json") {
      const doc: unknown = JSON.parse(withoutBom(text) as string);
      return typeof doc === "object" && doc !== null && "freezegate" in doc;
    }
    const tool = (parseToml(withoutBom(text) as string) as Record<string, unknown>).tool;
    return typeof tool === "object" && tool !== null && "freezegate" in tool;
  } catch {
    // Unreadable: settings are there if a reader would see them.
    return name === "package.json"
      ? /"freezegate"\s*:/.test(text)
      : /\[\s*tool\.freezegate/.test(text);
  }
}

/**
 * Settings in a config file between `dir` and the root (a monorepo's backend/pyproject.toml)
 * would be ignored, so they are refused: for the working directory (loadConfig) and for the
 * directory pytest ran in (--test-root), which may hold the suite's own config.
 */
export function refuseNestedConfig(root: string, cwd: string): void {
  for (const dir of directoriesBelowRoot(root, cwd)) {
    for (const name of CONFIG_FILES) {
      const text = readTextIfExists(join(root, dir, name), "config file");
      if (text === null || !holdsSettings(name, text)) continue;
      const where = `${dir.split("\\").join("/")}/${name}`;
      const what = name === "package.json" ? 'a "freezegate" key' : "[tool.freezegate]";
      throw refusal("config-not-at-root", { where, what });
    }
  }
}
