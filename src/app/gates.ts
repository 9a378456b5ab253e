// The ledger gates as application services: gather the values from git and the files
// (adapters), then call the pure gates. Each runner returns a GateResult plus notes for the
// report; the single-gate commands and `freezegate check` both call these, so a gate reads
// the same inputs whichever command runs it.

import { lstatSync, readlinkSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import {
  changedFilesInRange,
  dirtyPaths,
  fileAtRevision,
  freezeAuthors,
  listRepoFiles,
} from "../adapters/git-history.js";
import { readLedgerFile } from "../adapters/ledger-file.js";
import { fileExists, readFileBytes, readJsonFile } from "../adapters/repo-files.js";
import { checkDeposits } from "../core/deposits.js";
import { FreezegateError, InputError } from "../core/errors.js";
import { type Finding, type GateResult, sortFindings } from "../core/findings.js";
import {
  buildLock,
  checkLock,
  type LockFile,
  parseLock,
  resolveLockPaths,
} from "../core/generator-lock.js";
import { parseLedger } from "../core/ledger.js";
import { checkLedgerChanges, freezeKey } from "../core/ledger-changes.js";
import type { Gate, Ledger } from "../core/ledger-model.js";
import { parseSamples, type SamplesArtifact } from "../core/samples.js";
import { checkWitnesses } from "../core/witness.js";
import type { KnownTests } from "./known-tests.js";

export interface GateContext {
  /** Repository root (absolute). */
  root: string;
  /** The ledger file (absolute). */
  ledgerPath: string;
  /** The ledger path as shown to users. */
  ledgerLabel: string;
}

export interface GateRun {
  result: GateResult;
  /** What the report should say about how the gate ran (inputs used, why it was skipped). */
  notes: string[];
}

function result(gate: Gate, ledger: Ledger | null, findings: Finding[], skipped?: string) {
  return {
    gate,
    blocking: ledger === null ? true : ledger.policy.blocking.includes(gate),
    ran: skipped === undefined,
    ...(skipped === undefined ? {} : { skippedBecause: skipped }),
    findings: sortFindings(findings),
  } satisfies GateResult;
}

/** The repository path of a file, or null when it is outside the repository. */
export function repoPath(root: string, path: string): string | null {
  const rel = relative(root, path);
  if (rel === "" || rel.startsWith("..") || isAbsolute(rel)) return null;
  return rel.split("\\").join("/");
}

function parseLedgerText(text: string, label: string): Ledger {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError(`ledger ${label} is not valid JSON: ${(error as Error).message}`, {
      fix: "fix the JSON syntax",
      cause: error,
    });
  }
  return parseLedger(value, label);
}

/** The ledger at a commit: parsed, null when absent, "unreadable" when it does not parse. */
async function ledgerAt(
  root: string,
  rev: string,
  path: string,
): Promise<Ledger | null | "unreadable"> {
  const bytes = await fileAtRevision(root, rev, path);
  if (bytes === null) return null;
  try {
    return parseLedgerText(bytes.toString("utf8"), `${path} at ${rev.slice(0, 12)}`);
  } catch (error) {
    if (error instanceof FreezegateError) return "unreadable";
    throw error;
  }
}

// ---------------------------------------------------------------------------------------------
// Witness gate.

export interface WitnessGateOptions {
  /** Judge only when the ledger changed in BASE...HEAD; undefined: always judge. */
  base?: string;
  /** Judge even when the ledger did not change. */
  always?: boolean;
}

export async function runWitnessGate(ctx: GateContext, opts: WitnessGateOptions): Promise<GateRun> {
  const notes: string[] = [];
  if (opts.base !== undefined && !opts.always) {
    const rel = repoPath(ctx.root, ctx.ledgerPath);
    if (rel === null) {
      notes.push(
        `the ledger ${ctx.ledgerLabel} is outside the repository, so whether it changed cannot be told: judged`,
      );
    } else {
      const { changed } = await changedFilesInRange(ctx.root, opts.base);
      const dirty = (await dirtyPaths(ctx.root, [rel])).length > 0;
      if (!changed.has(rel) && !dirty) {
        return {
          result: result(
            "witness",
            null,
            [],
            `the ledger ${ctx.ledgerLabel} did not change in ${opts.base}...HEAD (--always runs it anyway)`,
          ),
          notes,
        };
      }
      notes.push(
        dirty && !changed.has(rel)
          ? `the ledger ${ctx.ledgerLabel} has uncommitted changes: judged`
          : `the ledger ${ctx.ledgerLabel} changed in ${opts.base}...HEAD: judged`,
      );
    }
  } else if (opts.always) {
    notes.push("--always: judged whether or not the ledger changed");
  } else {
    notes.push("no --base: judged without asking whether the ledger changed");
  }
  const ledger = readLedgerFile(ctx.ledgerPath);
  if (ledger.properties.length === 0) {
    notes.push(`the ledger ${ctx.ledgerLabel} records no properties, so no witness can be lost`);
  }
  return { result: result("witness", ledger, checkWitnesses(ledger)), notes };
}

// ---------------------------------------------------------------------------------------------
// Deposit gate.

export interface DepositGateOptions {
  base: string;
  /** The samples artifact (absolute), or undefined when none was given. */
  samplesPath?: string;
  /** The suite's tests (loadKnownTests); ids must not be null: the caller refuses that. */
  known: KnownTests & { ids: ReadonlySet<string> };
  /** Directory pytest ran in, relative to the root ("" for the root). */
  testRoot: string;
}

export function readSamples(path: string): SamplesArtifact {
  return parseSamples(
    readJsonFile(path, "samples artifact", "fix the JSON syntax of the samples artifact"),
    path,
  );
}

export async function runDepositGate(ctx: GateContext, opts: DepositGateOptions): Promise<GateRun> {
  const notes: string[] = [];
  const ledger = readLedgerFile(ctx.ledgerPath);
  const samples = opts.samplesPath === undefined ? null : readSamples(opts.samplesPath);
  const { changed, mergeBase } = await changedFilesInRange(ctx.root, opts.base);
  // Only freezes this patch adds or changes owe their deposit in this diff.
  const rel = repoPath(ctx.root, ctx.ledgerPath);
  const before = rel === null ? "unreadable" : await ledgerAt(ctx.root, mergeBase, rel);
  let due: Set<string> | null = null;
  if (before === "unreadable") {
    notes.push(
      `the ledger at the merge base could not be read: every freeze must show its deposit in this patch`,
    );
  } else {
    const old = new Set((before?.freezes ?? []).map(freezeKey));
    due = new Set(ledger.freezes.filter((f) => !old.has(freezeKey(f))).map((f) => f.test_id));
  }
  notes.push(`tests known: ${opts.known.description}`);
  if (samples === null) notes.push("no --samples artifact: no deposit can show its inputs");
  else if (samples.kind === "session") {
    notes.push(
      `the samples artifact is seed 004's single {"distinct": ${samples.distinct}}: it counts the whole session and is applied to every compensating property`,
    );
  }
  if (ledger.freezes.length === 0) notes.push(`the ledger ${ctx.ledgerLabel} has no freezes`);
  const findings = checkDeposits(ledger, {
    collected: opts.known.ids,
    changedFiles: changed,
    samples,
    depositDue: due,
    testRoot: opts.testRoot,
  });
  return { result: result("deposit", ledger, findings), notes };
}

// ---------------------------------------------------------------------------------------------
// Generator lock.

/**
 * A work-tree file's bytes as git would store them: a symbolic link is its target path (git
 * does not follow links), so the lock written here matches one computed from a commit.
 */
function readRepoFile(root: string, path: string): Buffer {
  const full = join(root, path);
  try {
    if (lstatSync(full).isSymbolicLink()) return Buffer.from(readlinkSync(full), "utf8");
  } catch (error) {
    throw new InputError(`generator_lock file "${path}" does not exist in the work tree`, {
      fix: "restore it, or remove it from policy.generator_lock",
      cause: error,
    });
  }
  return readFileBytes(full, `generator_lock file ${path}`);
}

/** The lock the configured generator files give now (work tree). */
export async function computeLock(root: string, patterns: readonly string[]): Promise<LockFile> {
  const paths = resolveLockPaths(patterns, await listRepoFiles(root));
  return buildLock(new Map(paths.map((p) => [p, readRepoFile(root, p)])));
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
  const ledger = readLedgerFile(ctx.ledgerPath);
  const patterns = ledger.policy.generator_lock;
  const lockLabel = repoPath(ctx.root, opts.lockPath) ?? opts.lockPath;
  const stored = readLockFile(opts.lockPath, lockLabel);
  if (patterns.length === 0) {
    if (stored === null) {
      notes.push("policy.generator_lock lists no files: nothing to lock");
      return { result: result("lock", ledger, []), notes };
    }
    const finding: Finding = {
      gate: "lock",
      code: "lock-moved",
      severity: "error",
      path: lockLabel,
      message: `${lockLabel} pins ${Object.keys(stored.files).join(", ")}, but policy.generator_lock lists no files any more`,
      details: { removed: Object.keys(stored.files) },
    };
    return { result: result("lock", ledger, [finding]), notes };
  }
  const current = await computeLock(ctx.root, patterns);
  let range: { storedAtBase: LockFile | null; changedFiles: ReadonlySet<string> } | null = null;
  if (opts.base !== undefined) {
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
        { fix: "commit the changes (or run freezegate lock --check without --base)" },
      );
    }
    const { changed, mergeBase } = await changedFilesInRange(ctx.root, opts.base);
    const atBase = await fileAtRevision(ctx.root, mergeBase, lockRel);
    let storedAtBase: LockFile | null = null;
    if (atBase !== null) {
      try {
        storedAtBase = parseLock(
          JSON.parse(atBase.toString("utf8")),
          `${lockRel} at the merge base`,
        );
      } catch {
        notes.push(`${lockRel} at the merge base could not be read: counted as moved`);
      }
    }
    range = { storedAtBase, changedFiles: changed };
    notes.push(`checked against ${opts.base}...HEAD`);
  }
  notes.push(
    `${Object.keys(current.files).length} generator file(s), fingerprint ${current.fingerprint}`,
  );
  const findings = checkLock({ lockPath: lockLabel, current, stored, range });
  return { result: result("lock", ledger, findings), notes };
}

// ---------------------------------------------------------------------------------------------
// Ledger changes.

export interface LedgerChangesOptions {
  base: string;
  /** YYYY-MM-DD (UTC). */
  today: string;
}

/**
 * The ledger at the merge base against the ledger at HEAD (the committed one: who changed an
 * entry is only known for commits, so an uncommitted ledger change is refused).
 */
export async function runLedgerChangesGate(
  ctx: GateContext,
  opts: LedgerChangesOptions,
): Promise<GateRun> {
  const rel = repoPath(ctx.root, ctx.ledgerPath);
  if (rel === null) {
    throw new InputError(`the ledger ${ctx.ledgerPath} is outside the repository`, {
      fix: "keep the ledger in the repository, so that its changes are reviewed",
    });
  }
  if ((await dirtyPaths(ctx.root, [rel])).length > 0) {
    throw new InputError(`the ledger ${rel} has uncommitted changes`, {
      fix: "commit them: who changed a freeze is read from the commits",
    });
  }
  const { changed, mergeBase } = await changedFilesInRange(ctx.root, opts.base);
  const notes: string[] = [];
  if (!changed.has(rel)) {
    notes.push(`the ledger ${rel} did not change in ${opts.base}...HEAD`);
  }
  const base = await ledgerAt(ctx.root, mergeBase, rel);
  const head = await ledgerAt(ctx.root, "HEAD", rel);
  if (head === "unreadable") {
    // Read it from disk (identical, not dirty) for the precise parse error.
    readLedgerFile(ctx.ledgerPath);
  }
  if (base === "unreadable") {
    notes.push(`the ledger at the merge base could not be read: every entry counts as added`);
  }
  const authors = await freezeAuthors(ctx.root, {
    mergeBase,
    head: "HEAD",
    ledgerPath: rel,
    parse: parseLedgerText,
  });
  const headLedger = head === "unreadable" ? null : head;
  const findings = checkLedgerChanges({
    base: base === "unreadable" ? null : base,
    head: headLedger,
    today: opts.today,
    authors,
    ledgerPath: rel,
  });
  return { result: result("ledger-changes", headLedger, findings), notes };
}
