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
import { refusal } from "../../core/refusals/index.js";
import { type GateContext, type GateRun, gateResult } from "./gate-run.js";
import { repoPath } from "./ledger-location.js";
import { patchLedger, policyNotes } from "./patch-policy.js";

/**
 * A generator file's bytes in the work tree. A symbolic link is refused: git stores a link as
 * its target's path, so the lock would pin that text, and a patch could change the generator
 * the link points to without moving the lock.
 */
function readGeneratorFile(root: string, path: string): Buffer {
  const full = join(root, path);
  if (!entryExists(full)) {
    throw refusal("generator-lock-file-missing", { path, where: "work tree" });
  }
  const link = linkTarget(full);
  if (link !== null) {
    throw refusal("generator-lock-file-is-link", { path, target: link });
  }
  return readFileBytes(full, `generator_lock file ${path}`);
}

/** The lock of these repository files as they are in the work tree. */
function lockOf(root: string, paths: readonly string[]): LockFile {
  return buildLock(new Map(paths.map((p) => [p, readGeneratorFile(root, p)])));
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
  const range = opts.base === undefined ? null : await changedFilesInRange(ctx.root, opts.base);
  const { ledger, own, notes } = await lockEntries(ctx, range?.mergeBase ?? null);
  const patterns = ledger.policy.generator_lock;
  const lockLabel = repoPath(ctx.root, opts.lockPath) ?? opts.lockPath;
  const stored = readLockFile(opts.lockPath, lockLabel);
  if (patterns.length === 0) {
    const none = nothingToLock(stored, lockLabel);
    notes.push(...none.notes);
    return { result: gateResult("lock", ledger, none.findings), notes };
  }
  const locked = lockedFiles(patterns, own, await listRepoFiles(ctx.root), lockLabel);
  notes.push(...locked.notes);
  const findings = locked.findings;
  if (locked.paths.length === 0) return { result: gateResult("lock", ledger, findings), notes };
  const current = lockOf(ctx.root, locked.paths);
  let since: { storedAtBase: LockFile | null; changedFiles: ReadonlySet<string> } | null = null;
  if (range !== null) {
    const atBase = await lockAtMergeBase(ctx.root, opts, range, current);
    notes.push(...atBase.notes, `checked against ${opts.base}...HEAD`);
    since = { storedAtBase: atBase.lock, changedFiles: range.changed };
  }
  notes.push(
    `${Object.keys(current.files).length} generator file(s), fingerprint ${current.fingerprint}`,
  );
  findings.push(...checkLock({ lockPath: lockLabel, current, stored, range: since }));
  return { result: gateResult("lock", ledger, findings), notes };
}

/**
 * The ledger the lock is judged with, and this patch's own generator_lock entries. With a
 * range, the policy is the patch's (patchLedger): the merge base's entries stay locked in this
 * patch, since a patch cannot unlock what it changes.
 */
async function lockEntries(
  ctx: GateContext,
  mergeBase: string | null,
): Promise<{ ledger: Ledger; own: readonly string[]; notes: string[] }> {
  if (mergeBase === null) {
    const ledger = readLedgerFile(ctx.ledgerPath);
    return { ledger, own: ledger.policy.generator_lock, notes: [] };
  }
  const patch = await patchLedger(ctx, mergeBase);
  return {
    ledger: patch.ledger,
    own: patch.own.generator_lock,
    notes: policyNotes(patch, "lock"),
  };
}

/** A policy that locks nothing: fine without a lock file; a lock file left behind has moved. */
function nothingToLock(
  stored: LockFile | null,
  lockLabel: string,
): { findings: Finding[]; notes: string[] } {
  if (stored === null) {
    return { findings: [], notes: ["policy.generator_lock lists no files: nothing to lock"] };
  }
  const pinned = Object.keys(stored.files);
  const finding: Finding = {
    gate: "lock",
    code: "lock-moved",
    severity: "error",
    path: lockLabel,
    message: `${lockLabel} pins ${pinned.join(", ")}, but policy.generator_lock lists no files any more`,
    details: { removed: pinned },
  };
  return { findings: [finding], notes: [] };
}

/**
 * The repository files the entries lock (sorted). This patch's own entries must name files (a
 * typo is an input error); an entry only the merge base lists that names nothing now was
 * removed together with its file: a finding.
 */
function lockedFiles(
  patterns: readonly string[],
  own: readonly string[],
  repoFiles: readonly string[],
  lockLabel: string,
): { paths: string[]; findings: Finding[]; notes: string[] } {
  const paths = new Set(own.length === 0 ? [] : resolveLockPaths(own, repoFiles));
  const findings: Finding[] = [];
  const notes: string[] = [];
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
    } else {
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
  return { paths: [...paths].sort(), findings, notes };
}

/**
 * The lock file at the merge base (null: none there, or unreadable, which counts as moved). The
 * range describes commits while the files are read from disk, so the lock and the locked files
 * must not differ from HEAD.
 */
async function lockAtMergeBase(
  root: string,
  opts: LockGateOptions,
  range: { mergeBase: string },
  current: LockFile,
): Promise<{ lock: LockFile | null; notes: string[] }> {
  const lockRel = repoPath(root, opts.lockPath);
  if (lockRel === null) {
    throw refusal("lock-file-outside-repo", { path: opts.lockPath });
  }
  const dirty = await dirtyPaths(root, [lockRel, ...Object.keys(current.files)]);
  if (dirty.length > 0) {
    throw refusal("lock-files-uncommitted", { files: dirty, base: String(opts.base) });
  }
  const atBase = await fileAtRevision(root, range.mergeBase, lockRel);
  if (atBase === null) return { lock: null, notes: [] };
  try {
    const lock = parseLock(
      parseJsonText(atBase.toString("utf8"), `lock file ${lockRel} at the merge base`),
      `${lockRel} at the merge base`,
    );
    return { lock, notes: [] };
  } catch (error) {
    if (!(error instanceof FreezegateError)) throw error;
    return {
      lock: null,
      notes: [`${lockRel} at the merge base could not be read: counted as moved`],
    };
  }
}
