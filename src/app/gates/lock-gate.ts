// The generator lock gate: the files that shape what properties generate are pinned by a
// committed fingerprint, so narrowing a strategy shows up as a lock change. This module reads
// the files and the lock; src/core/generator-lock.ts judges.

import { join } from "node:path";
import {
  changedFilesInRange,
  dirtyPaths,
  fileAtRevision,
  listRepoFiles,
} from "../../adapters/git-history.js";
import { readLedgerFile } from "../../adapters/ledger-file.js";
import {
  entryExists,
  fileExists,
  linkTarget,
  readFileBytes,
  readJsonFile,
} from "../../adapters/repo-files.js";
import { FreezegateError, InputError } from "../../core/errors.js";
import type { Finding } from "../../core/findings.js";
import {
  buildLock,
  checkLock,
  type LockFile,
  parseLock,
  resolveLockPaths,
} from "../../core/generator-lock.js";
import { parseJsonText } from "../../core/json-text.js";
import type { Ledger } from "../../core/ledger-model.js";
import { type GateContext, type GateRun, gateResult } from "./gate-run.js";
import { repoPath } from "./ledger-location.js";
import { patchLedger, policyNotes } from "./patch-policy.js";

/**
 * A generator file's bytes in the work tree. A symbolic link is refused: git stores a link as
 * its target's path, so the lock would pin that text, and a patch could change the generator
 * the link points to without moving the lock.
 */
function readRepoFile(root: string, path: string): Buffer {
  const full = join(root, path);
  if (!entryExists(full)) {
    throw new InputError(`generator_lock file "${path}" does not exist in the work tree`, {
      fix: "restore it, or remove it from policy.generator_lock",
    });
  }
  const link = linkTarget(full);
  if (link !== null) {
    throw new InputError(
      `generator_lock file "${path}" is a symbolic link (to ${link}): the lock would pin the link, not the generator's code`,
      {
        fix: "name the file it points to in policy.generator_lock; a glob must not match the link",
      },
    );
  }
  return readFileBytes(full, `generator_lock file ${path}`);
}

/** The lock of these repository files as they are in the work tree. */
function lockOf(root: string, paths: readonly string[]): LockFile {
  return buildLock(new Map(paths.map((p) => [p, readRepoFile(root, p)])));
}

/** The lock the configured generator files give now (work tree). */
export async function computeLock(root: string, patterns: readonly string[]): Promise<LockFile> {
  return lockOf(root, resolveLockPaths(patterns, await listRepoFiles(root)));
}

export function readLockFile(path: string, label: string): LockFile | null {
  if (!fileExists(path)) return null;
  return parseLock(readJsonFile(path, "lock file", "regenerate it with freezegate lock"), label);
}

export interface LockGateOptions {
  /** The lock file (absolute). */
  lockPath: string;
  /** With a base: the lock must move with the generator files in BASE...HEAD. */
  base?: string;
}

export async function runLockGate(ctx: GateContext, opts: LockGateOptions): Promise<GateRun> {
  const notes: string[] = [];
  let ledger: Ledger;
  let own: readonly string[];
  let rangeFiles: { changed: Set<string>; mergeBase: string } | null = null;
  if (opts.base !== undefined) {
    // The merge base's entries stay locked in this patch (a patch cannot unlock what it changes).
    rangeFiles = await changedFilesInRange(ctx.root, opts.base);
    const patch = await patchLedger(ctx, rangeFiles.mergeBase);
    ledger = patch.ledger;
    own = patch.own.generator_lock;
    notes.push(...policyNotes(patch, "lock"));
  } else {
    ledger = readLedgerFile(ctx.ledgerPath);
    own = ledger.policy.generator_lock;
  }
  const patterns = ledger.policy.generator_lock;
  const lockLabel = repoPath(ctx.root, opts.lockPath) ?? opts.lockPath;
  const stored = readLockFile(opts.lockPath, lockLabel);
  if (patterns.length === 0) {
    if (stored === null) {
      notes.push("policy.generator_lock lists no files: nothing to lock");
      return { result: gateResult("lock", ledger, []), notes };
    }
    const finding: Finding = {
      gate: "lock",
      code: "lock-moved",
      severity: "error",
      path: lockLabel,
      message: `${lockLabel} pins ${Object.keys(stored.files).join(", ")}, but policy.generator_lock lists no files any more`,
      details: { removed: Object.keys(stored.files) },
    };
    return { result: gateResult("lock", ledger, [finding]), notes };
  }
  // This patch's own entries must name files (a typo is an input error); an entry only the
  // merge base lists that names nothing now was removed together with its file: a finding.
  const repoFiles = await listRepoFiles(ctx.root);
  const paths = new Set(own.length === 0 ? [] : resolveLockPaths(own, repoFiles));
  const findings: Finding[] = [];
  for (const entry of patterns.filter((e) => !own.includes(e))) {
    let hits: string[] = [];
    try {
      hits = resolveLockPaths([entry], repoFiles);
    } catch (error) {
      if (!(error instanceof InputError)) throw error;
    }
    for (const h of hits) paths.add(h);
    if (hits.length > 0) {
      notes.push(
        `the merge base's policy.generator_lock still locks "${entry}" in this patch: keep its files in ${lockLabel} as the merge base had them (freezegate lock writes this patch's own entries only), and drop them in the next patch`,
      );
    }
    if (hits.length === 0) {
      findings.push({
        gate: "lock",
        code: "lock-moved",
        severity: "error",
        path: lockLabel,
        message: `the merge base's policy.generator_lock locks "${entry}", which names no file now: this patch removes a locked generator and its lock entry at once (remove the entry in one patch, the file in the next)`,
        details: { entry },
      });
    }
  }
  if (paths.size === 0) return { result: gateResult("lock", ledger, findings), notes };
  const current = lockOf(ctx.root, [...paths].sort());
  let range: { storedAtBase: LockFile | null; changedFiles: ReadonlySet<string> } | null = null;
  if (rangeFiles !== null) {
    const lockRel = repoPath(ctx.root, opts.lockPath);
    if (lockRel === null) {
      throw new InputError(`the lock file ${opts.lockPath} is outside the repository`, {
        fix: "keep the lock file in the repository (default property-lock.json at the root)",
      });
    }
    // The range describes commits; the files are read from disk: they must be the same.
    const dirty = await dirtyPaths(ctx.root, [lockRel, ...Object.keys(current.files)]);
    if (dirty.length > 0) {
      throw new InputError(
        `${dirty.join(", ")} differ${dirty.length === 1 ? "s" : ""} from HEAD, so the lock cannot be checked against ${opts.base}...HEAD`,
        {
          fix: "commit the changes first: with a base, the lock is checked against the range's commits",
        },
      );
    }
    const { changed, mergeBase } = rangeFiles;
    const atBase = await fileAtRevision(ctx.root, mergeBase, lockRel);
    let storedAtBase: LockFile | null = null;
    if (atBase !== null) {
      try {
        storedAtBase = parseLock(
          parseJsonText(atBase.toString("utf8"), `lock file ${lockRel} at the merge base`),
          `${lockRel} at the merge base`,
        );
      } catch (error) {
        if (!(error instanceof FreezegateError)) throw error;
        notes.push(`${lockRel} at the merge base could not be read: counted as moved`);
      }
    }
    range = { storedAtBase, changedFiles: changed };
    notes.push(`checked against ${opts.base}...HEAD`);
  }
  notes.push(
    `${Object.keys(current.files).length} generator file(s), fingerprint ${current.fingerprint}`,
  );
  findings.push(...checkLock({ lockPath: lockLabel, current, stored, range }));
  return { result: gateResult("lock", ledger, findings), notes };
}
