// Paths in coverage data -> paths in the repository. coverage.py stores absolute paths unless
// `relative_files = true`; data recorded in a CI container carries that container's paths.
// Getting this wrong is the classic silent zero (nothing in the data "matches" the patch), so
// the mapping is explicit: user rules first (--path-map FROM=TO, first match wins), then
// absolute paths under the repository root, then relative paths taken from the root.

import { UsageError } from "./errors.js";

export interface PathRule {
  from: string;
  to: string;
}

export function parsePathRule(spec: string): PathRule {
  const eq = spec.indexOf("=");
  if (eq < 0) {
    throw new UsageError(`--path-map "${spec}" has no "="`, {
      fix: "write --path-map FROM=TO, e.g. --path-map /app/=. to map /app/src/x.py to src/x.py",
    });
  }
  return { from: spec.slice(0, eq), to: spec.slice(eq + 1) };
}

/** Normalise a POSIX-ish path: backslashes to "/", collapse "." and "..", no trailing "/". */
export function normalizePath(path: string): string {
  const abs = path.startsWith("/");
  const out: string[] = [];
  for (const seg of path.replace(/\\/g, "/").split("/")) {
    if (seg === "" || seg === ".") continue;
    if (seg === "..") {
      if (out.length > 0 && out[out.length - 1] !== "..") out.pop();
      else if (!abs) out.push("..");
      continue;
    }
    out.push(seg);
  }
  return (abs ? "/" : "") + out.join("/");
}

/**
 * Map one data path to a repository-relative path, or null when it lies outside the
 * repository. `roots` are the repository root's absolute spellings (e.g. as given and as
 * realpath), normalised.
 */
export function mapDataPath(
  dataPath: string,
  roots: readonly string[],
  rules: readonly PathRule[],
): string | null {
  let path = dataPath.replace(/\\/g, "/");
  for (const rule of rules) {
    const from = rule.from.replace(/\\/g, "/");
    const next = path.charAt(from.length);
    // Match whole segments only: "/app" must not rewrite "/application/x.py".
    const boundary = from.endsWith("/") || next === "" || next === "/";
    // An empty FROM prefixes relative paths only (data recorded in a subdirectory).
    const applies = from === "" ? !path.startsWith("/") : path.startsWith(from) && boundary;
    if (!applies) continue;
    const rest = path.slice(from.length);
    const to = rule.to.replace(/\\/g, "/");
    const glue = to !== "" && !to.endsWith("/") && rest !== "" && !rest.startsWith("/") ? "/" : "";
    path = `${to}${glue}${rest}`;
    break;
  }
  path = normalizePath(path);
  if (path.startsWith("/")) {
    for (const root of roots) {
      if (path === root) return null;
      if (path.startsWith(`${root}/`)) return path.slice(root.length + 1);
    }
    return null;
  }
  if (path === "" || path.startsWith("../") || path === "..") return null;
  return path;
}

export interface PathMapping {
  /** repository path -> data path (first data path wins when two map to the same file). */
  toData: Map<string, string>;
  /** Data paths that map outside the repository. */
  outside: string[];
}

export function mapDataPaths(
  dataPaths: readonly string[],
  roots: readonly string[],
  rules: readonly PathRule[],
): PathMapping {
  const toData = new Map<string, string>();
  const outside: string[] = [];
  for (const dataPath of dataPaths) {
    const repoPath = mapDataPath(dataPath, roots, rules);
    if (repoPath === null) outside.push(dataPath);
    else if (!toData.has(repoPath)) toData.set(repoPath, dataPath);
  }
  return { toData, outside };
}
