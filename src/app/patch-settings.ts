// What a patch cannot choose for itself: the settings at the patch's base, read from git, for
// the audit to judge the patch by the stricter of its own and those. This module reads the
// base's config and the frozen list the base read.
//
// The frozen list: a patch that points the `frozen` or `ledger` key at another file, deletes
// the list so that discovery finds another one, or re-points a symbolic link, chooses which
// tests count as frozen while the list its run was muted by may still freeze them. So when the
// base read its frozen tests from another file than the one read now, the tests frozen in
// either count. An edit of the list in place is no such choice: a test it unfreezes runs live
// in the run that recorded the data (its failure fails that run), and is judged live.

import { isAbsolute, join, posix, resolve } from "node:path";
import { CONFIG_FILES, configFromTexts, loadConfig } from "../adapters/config-files.js";
import { readBlobs, treeFileAt } from "../adapters/git-history.js";
import { fileExists, isSymbolicLink, readTextOrNull, realPath } from "../adapters/repo-files.js";
import type { ConfigValues } from "../core/config.js";
import { FreezegateError } from "../core/errors.js";
import { type FrozenList, frozenListOf, parseFrozenList } from "../core/frozen.js";
import { parseJsonText } from "../core/json-text.js";
import { sampleOf } from "../core/listing.js";
import type { Patch } from "../core/model.js";
import { repoPath } from "./gates/ledger-location.js";

/**
 * Where a config (with the command's flags) puts the frozen list, before the files are asked:
 * one file, or the default files of which the one that exists is read.
 */
export type FrozenChoice = { file: string } | { oneOf: readonly string[] };

/** The config at a revision; a config that cannot be read there counts as none. */
export async function configValuesAt(root: string, rev: string): Promise<ConfigValues> {
  const texts = await readBlobs(
    root,
    CONFIG_FILES.map((path) => ({ rev, path })),
  );
  const [pyproject, packageJson] = texts.map((bytes) => bytes?.toString("utf8") ?? null);
  const at = rev === "HEAD" ? "HEAD" : rev.slice(0, 12);
  try {
    return configFromTexts({
      pyproject: { path: `pyproject.toml at ${at}`, text: pyproject ?? null },
      packageJson: { path: `package.json at ${at}`, text: packageJson ?? null },
    }).values;
  } catch (error) {
    if (error instanceof FreezegateError) return {};
    throw error;
  }
}

/** The frozen list the patch's base read, when it is another file than the one read now. */
export interface BaseFrozen {
  /** Its files, as shown to users: repository paths (absolute outside the repository). */
  files: string[];
  /** The file read now, shown the same way. */
  now: string;
  /** Every entry of those files. */
  list: FrozenList;
}

interface FileAtBase {
  /** The path it was read at: a repository path, or absolute outside the repository. */
  path: string;
  /** Where a symbolic link at `path` led, or null when none was followed. */
  target: string | null;
  text: string;
}

/** A path as messages show it, with the file a symbolic link there leads to. */
function shownPath(path: string, target: string | null): string {
  return target === null ? path : `${path} (a symbolic link to ${target})`;
}

/**
 * Where the file at `path` on disk really is when a symbolic link leads there (a repository
 * path, or absolute outside it); null when `path` is the file itself.
 */
function linkedOnDisk(root: string, path: string): string | null {
  try {
    const real = realPath(path);
    const here = repoPath(root, path);
    if (here === null) return isSymbolicLink(path) ? real : null;
    const rel = repoPath(realPath(root), real);
    return rel === here ? null : (rel ?? real);
  } catch {
    return null;
  }
}

/** A file on disk as fileAtBase describes it, or null when it cannot be read. */
function fileOnDisk(root: string, path: string, shown: string): FileAtBase | null {
  const text = readTextOrNull(path);
  return text === null ? null : { path: shown, target: linkedOnDisk(root, path), text };
}

/**
 * A file as the base had it: from the base's tree, following symbolic links (a link out of
 * the repository reads the disk); a path the base's tree lacks and the patch does not touch
 * is a file git does not track (a list CI writes before the tests run): the disk's.
 */
async function fileAtBase(
  root: string,
  base: string,
  patch: Patch,
  path: string,
): Promise<FileAtBase | null> {
  const start = repoPath(root, path);
  if (start === null) return fileOnDisk(root, path, path);
  let rel = start;
  for (let hop = 0; hop < 8; hop++) {
    const entry = await treeFileAt(root, base, rel);
    if (entry === null) {
      if (hop > 0 || patch.files.some((f) => f.path === rel || f.oldPath === rel)) return null;
      return fileExists(join(root, rel)) ? fileOnDisk(root, join(root, rel), rel) : null;
    }
    const text = entry.bytes.toString("utf8");
    if (!entry.link) return { path: start, target: hop === 0 ? null : rel, text };
    const next = posix.normalize(posix.join(posix.dirname(rel), text));
    if (isAbsolute(text) || next === ".." || next.startsWith("../")) {
      const outside = isAbsolute(text) ? text : join(root, next);
      const file = fileOnDisk(root, outside, outside);
      return file === null ? null : { path: start, target: outside, text: file.text };
    }
    rel = next;
  }
  return null;
}

const candidatesOf = (choice: FrozenChoice): readonly string[] =>
  "file" in choice ? [choice.file] : choice.oneOf;

/**
 * The frozen list the patch's base read (its config, the same flags, its files), when the
 * patch reads the frozen tests from another file, or through a symbolic link at either end.
 * Null when there is no base to compare with (a user's diff), the patch changes neither the
 * config nor a file that holds or could hold the list (what else differs is the caller's
 * choice, as a flag is), the base read the same file directly, or the base had no list that
 * parses (it judged no patch by it).
 */
export async function frozenAtBase(
  root: string,
  patch: Patch,
  base: string | null,
  /** The frozen-test file read now (absolute). */
  frozenFile: string,
  choiceFor: (values: ConfigValues) => FrozenChoice,
): Promise<BaseFrozen | null> {
  if (base === null) return null;
  const touched = new Set(patch.files.flatMap((f) => [f.path, ...(f.oldPath ? [f.oldPath] : [])]));
  const now = repoPath(root, frozenFile) ?? frozenFile;
  const nowTarget = linkedOnDisk(root, frozenFile);
  const inPatch = (paths: readonly (string | null)[]) =>
    paths.some((p) => p !== null && touched.has(repoPath(root, resolve(root, p)) ?? p));
  const configChanged = CONFIG_FILES.some((name) => touched.has(name));
  // Without a config change the base chose as the config now does: only the files can differ.
  if (
    !configChanged &&
    !inPatch([now, nowTarget, ...candidatesOf(choiceFor(loadConfig(root).values))])
  ) {
    return null;
  }
  const candidates = candidatesOf(choiceFor(await configValuesAt(root, base)));
  const found: FileAtBase[] = [];
  for (const path of candidates) {
    const file = await fileAtBase(root, base, patch, path);
    if (file !== null) found.push(file);
  }
  const only = found.length === 1 ? found[0] : undefined;
  if (only?.path === now && only.target === null && nowTarget === null) return null;
  if (!configChanged && !inPatch([...candidates, ...found.map((f) => f.target)])) return null;
  const patterns: string[] = [];
  const files: string[] = [];
  for (const file of found) {
    try {
      const label = `${file.path} at ${base === "HEAD" ? "HEAD" : base.slice(0, 12)}`;
      const list = parseFrozenList(parseJsonText(file.text, `frozen-test file ${label}`), label);
      patterns.push(...list.entries.map((e) => e.pattern));
      files.push(shownPath(file.path, file.target));
    } catch (error) {
      if (!(error instanceof FreezegateError)) throw error;
    }
  }
  if (files.length === 0) return null;
  return { files, now: shownPath(now, nowTarget), list: frozenListOf(patterns) };
}

/** The words for a patch that reads its frozen tests from another file than its base (`at`). */
export function frozenListMovedWords(
  frozen: { files: readonly string[]; now: string; tests: readonly string[] },
  at: string,
): string {
  const only =
    frozen.tests.length === 0 ? "" : ` (frozen only at ${at}: ${sampleOf(frozen.tests)})`;
  return `the patch takes the frozen tests from ${frozen.now}, where ${at} took them from ${frozen.files.join(" and ")}: it is judged by the tests frozen in either${only}`;
}
