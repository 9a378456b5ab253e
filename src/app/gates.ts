// The ledger gates as application services: gather the values from git and the files
// (adapters), then call the pure gates. Each runner returns a GateResult plus notes for the
// report; the single-gate commands and `freezegate check` both call these, so a gate reads
// the same inputs whichever command runs it.

import { isAbsolute, join, posix, relative } from "node:path";
import { CONFIG_FILES, configFromTexts } from "../adapters/config-files.js";
import { readHeadCommit } from "../adapters/git.js";
import {
  changedFilesInRange,
  committingIdentities,
  dirtyPaths,
  fileAtRevision,
  freezeAuthors,
  listRepoFiles,
  readBlobs,
} from "../adapters/git-history.js";
import { readLedgerFile } from "../adapters/ledger-file.js";
import {
  entryExists,
  fileExists,
  isSymbolicLink,
  linkTarget,
  readFileBytes,
  readJsonFile,
  readTextOrNull,
  realPath,
  realPathOrNull,
} from "../adapters/repo-files.js";
import { checkDeposits, isCollected, nodeIdFile } from "../core/deposits.js";
import { FreezegateError, InputError } from "../core/errors.js";
import { type Finding, type GateResult, sortFindings } from "../core/findings.js";
import {
  buildLock,
  checkLock,
  type LockFile,
  parseLock,
  resolveLockPaths,
} from "../core/generator-lock.js";
import { outsideTestDirs } from "../core/globs.js";
import { parseJsonText } from "../core/json-text.js";
import { parseLedger, stricterPolicy } from "../core/ledger.js";
import { checkLedgerChanges, diffFreezes } from "../core/ledger-changes.js";
import {
  DEFAULT_LEDGER_PATH,
  DEFAULT_POLICY,
  type Freeze,
  type Gate,
  type Ledger,
  type LedgerPolicy,
} from "../core/ledger-model.js";
import { sampleOf } from "../core/listing.js";
import { parseSamples, type SamplesArtifact } from "../core/samples.js";
import { deletedUnits } from "../core/test-blocks.js";
import { checkWitnesses, frozenBy, frozenIds, withBaseProperties } from "../core/witness.js";
import { classHeaders } from "../languages/python/class-headers.js";
import { foreignEncoding, pythonCodeText } from "../languages/python/statements.js";
import { withoutParameters } from "../runners/pytest/node-ids.js";
import type { KnownTests } from "./known-tests.js";

export interface GateContext {
  /** Repository root (absolute). */
  root: string;
  /** The directory the command runs in (absolute): coverage data is also looked for there. */
  cwd?: string;
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

/**
 * The ledger's repository path, for reading it at commits; null when it is outside the
 * repository. A ledger reached through a symbolic link is refused: git records the link, not
 * the file it points to, so at the link's path the patch's edits of the real file are
 * invisible (the witness gate would see no change, the ledger-changes gate would read the
 * link's target text). Resolving the link instead would let a patch re-point it at another file.
 */
export function ledgerRepoPath(ctx: GateContext): string | null {
  const rel = repoPath(ctx.root, ctx.ledgerPath);
  if (rel === null) return null;
  const real = realPathOrNull(ctx.ledgerPath);
  if (real === null) return rel; // missing (or a dangling link): reading it says so
  const realRel = repoPath(realPath(ctx.root), real);
  if (realRel !== rel) {
    const target = realRel ?? real;
    const how = isSymbolicLink(ctx.ledgerPath)
      ? `is a symbolic link to ${target}`
      : `lies under a symbolic link (it is ${target})`;
    throw new InputError(
      `the ledger ${ctx.ledgerLabel} ${how}: git records the link, not the ledger, so the ledger's changes cannot be read from the commits`,
      { fix: `point --ledger (or the "ledger" config key) at the real file ${target}` },
    );
  }
  return rel;
}

export function parseLedgerText(text: string, label: string, fix?: string): Ledger {
  return parseLedger(parseJsonText(text, `ledger ${label}`, fix), label);
}

/** The ledger at a commit (BOM skipped, as on disk); null when absent; throws when unparsable. */
async function readLedgerAt(root: string, rev: string, path: string): Promise<Ledger | null> {
  const bytes = await fileAtRevision(root, rev, path);
  if (bytes === null) return null;
  return parseLedgerText(bytes.toString("utf8"), `${path} at ${rev.slice(0, 12)}`);
}

/** The ledger at a commit: parsed, null when absent, "unreadable" when it does not parse. */
async function ledgerAt(
  root: string,
  rev: string,
  path: string,
): Promise<Ledger | null | "unreadable"> {
  try {
    return await readLedgerAt(root, rev, path);
  } catch (error) {
    if (error instanceof FreezegateError) return "unreadable";
    throw error;
  }
}

/**
 * Where the merge base kept its ledger, for a ledger at `rel` now: `here` when the merge base
 * has a file at `rel`; `configured`, the path the merge base's own config puts its ledger at
 * (its "ledger" key, else the default path) when it is another path and a file is there. So a
 * patch that moves the ledger and re-points the key, even at a file the merge base already
 * had (an example ledger), is still judged by the ledger it replaces. "unknown": the merge
 * base's config does not parse.
 */
async function baseLedgerPaths(
  root: string,
  mergeBase: string,
  rel: string,
): Promise<{ here: boolean; configured: string | null | "unknown" }> {
  const [atRel, pyproject, packageJson] = await readBlobs(
    root,
    [rel, ...CONFIG_FILES].map((path) => ({ rev: mergeBase, path })),
  );
  const here = atRel !== null && atRel !== undefined;
  let configured: unknown;
  try {
    configured = configFromTexts({
      pyproject: { path: `pyproject.toml at ${mergeBase.slice(0, 12)}`, text: textOf(pyproject) },
      packageJson: { path: `package.json at ${mergeBase.slice(0, 12)}`, text: textOf(packageJson) },
    }).values.ledger;
  } catch (error) {
    if (error instanceof FreezegateError) return { here, configured: "unknown" };
    throw error;
  }
  const then =
    typeof configured !== "string"
      ? DEFAULT_LEDGER_PATH
      : isAbsolute(configured)
        ? repoPath(root, configured)
        : posix.normalize(configured.split("\\").join("/"));
  if (then === null || then === rel || then.startsWith("../") || then === "..") {
    return { here, configured: null };
  }
  const exists = (await fileAtRevision(root, mergeBase, then)) !== null;
  return { here, configured: exists ? then : null };
}

function textOf(bytes: Buffer | null | undefined): string | null {
  return bytes ? bytes.toString("utf8") : null;
}

/**
 * The ledger at the merge base that `rel` replaces (see baseLedgerPaths), and where it was:
 * the file at `rel` when there is one, judged with the stricter of its policy and that of the
 * ledger the merge base's config names; else the latter.
 */
async function baseLedger(
  root: string,
  mergeBase: string,
  rel: string,
): Promise<{ path: string; ledger: Ledger | null | "unreadable"; alsoPath: string | null }> {
  const { here, configured } = await baseLedgerPaths(root, mergeBase, rel);
  if (!here) {
    if (configured === "unknown") return { path: rel, ledger: "unreadable", alsoPath: null };
    if (configured === null) return { path: rel, ledger: null, alsoPath: null };
    return {
      path: configured,
      ledger: await ledgerAt(root, mergeBase, configured),
      alsoPath: null,
    };
  }
  const ledger = await ledgerAt(root, mergeBase, rel);
  if (configured === null || ledger === null || ledger === "unreadable") {
    return { path: rel, ledger, alsoPath: null };
  }
  const other =
    configured === "unknown" ? "unreadable" : await ledgerAt(root, mergeBase, configured);
  const floor = other === null ? null : other === "unreadable" ? DEFAULT_POLICY : other.policy;
  if (floor === null) return { path: rel, ledger, alsoPath: null };
  return {
    path: rel,
    ledger: { ...ledger, policy: stricterPolicy(floor, ledger.policy).policy },
    alsoPath: configured === "unknown" ? null : configured,
  };
}

/** Notes for a ledger compared with, or judged by, one at another path at the merge base. */
function movedNote(rel: string, base: { path: string; alsoPath: string | null }): string[] {
  if (base.path !== rel) {
    return [`the ledger moved: ${rel} is compared with ${base.path} at the merge base`];
  }
  return base.alsoPath === null
    ? []
    : [
        `the merge base's config names ${base.alsoPath} as its ledger: ${rel} is judged with the stricter of both policies at the merge base`,
      ];
}

// ---------------------------------------------------------------------------------------------
// The policy a patch is judged with.

export interface PatchLedger {
  /** The ledger on disk, with the policy the patch is judged by (see stricterPolicy). */
  ledger: Ledger;
  /** The disk ledger's own policy. */
  own: LedgerPolicy;
  /** The ledger's repository path (ledgerRepoPath); null when outside the repository. */
  path: string | null;
  /** The ledger at the merge base: null when absent there, "unreadable" when it does not parse. */
  base: Ledger | null | "unreadable";
  /** Where the merge base kept it (another path when the patch moves the ledger). */
  basePath: string | null;
}

/**
 * The policy a patch with policy `own` is judged by, given the ledger at the merge base: the
 * stricter of the two; a ledger the merge base lacks, its own (null: nothing to merge); one
 * that does not parse there, its own made no looser than the default policy.
 */
function judgedPolicy(
  base: Ledger | null | "unreadable",
  own: LedgerPolicy,
): ReturnType<typeof stricterPolicy> | null {
  if (base === null) return null;
  return stricterPolicy(base === "unreadable" ? DEFAULT_POLICY : base.policy, own);
}

/**
 * The ledger on disk judged with the stricter of its own policy and the merge base's: a patch
 * that edits the policy cannot disarm the gates that judge it. A ledger the merge base does not
 * have is judged by its own policy; one the merge base has but that does not parse there, by
 * its own made no looser than the default policy.
 */
export async function patchLedger(
  ctx: GateContext,
  mergeBase: string,
  ledger: Ledger = readLedgerFile(ctx.ledgerPath),
): Promise<PatchLedger> {
  const path = ledgerRepoPath(ctx);
  const atBase = path === null ? null : await baseLedger(ctx.root, mergeBase, path);
  const base = atBase?.ledger ?? null;
  const own = ledger.policy;
  const strict = judgedPolicy(base, own);
  return {
    ledger: strict ? { ...ledger, policy: strict.policy } : ledger,
    own,
    path,
    base,
    basePath: atBase?.path ?? null,
  };
}

/** What the report should say about the policy a gate was judged with, when not its own. */
export function policyNotes(patch: PatchLedger, gate: Gate): string[] {
  const notes: string[] = [];
  const { policy } = patch.ledger;
  const { own } = patch;
  const from =
    patch.base === "unreadable"
      ? "the default policy (the ledger at the merge base could not be read)"
      : "the merge base's policy";
  if (policy.blocking.includes(gate) && !own.blocking.includes(gate)) {
    notes.push(
      `blocking, as ${from} makes it: this patch's policy.blocking applies from the next patch on`,
    );
  }
  if (gate === "deposit" && policy.min_distinct !== own.min_distinct) {
    notes.push(
      `min_distinct ${policy.min_distinct}, from ${from}, not this patch's ${own.min_distinct}`,
    );
  }
  if (gate === "shape" && policy.max_window_days !== own.max_window_days) {
    notes.push(
      `max_window_days ${policy.max_window_days}, from ${from}, not this patch's ${own.max_window_days}`,
    );
  }
  if (gate === "lock") {
    const extra = policy.generator_lock.filter((e) => !own.generator_lock.includes(e));
    if (extra.length > 0) {
      notes.push(`also locked, as ${from} lists them: ${extra.join(", ")}`);
    }
  }
  return notes;
}

// ---------------------------------------------------------------------------------------------
// Witness gate.

export interface WitnessGateOptions {
  /** Judge only when the ledger changed in BASE...HEAD; undefined: always judge. */
  base?: string;
  /** Judge even when the ledger did not change. */
  always?: boolean;
  /**
   * The suite's test ids, asked only when a freeze's test_id holds "*": such an entry that is
   * a test of the suite freezes that test alone (see frozenBy). Null: not known.
   */
  knownTests?: () => ReadonlySet<string> | null;
  /**
   * Tests an xfail outside the ledger muted in the run (the applied record): they witness
   * nothing, as if frozen, and a muted witness or check is judged even when the ledger did
   * not change.
   */
  muted?: { ids: readonly string[]; label: string };
  /** Tests a skip stopped in the run (the applied record): as muted ones. */
  skipped?: { ids: readonly string[]; label: string };
}

/** class -> the names of its bases (a dotted base by its last name), from Python text. */
function classBases(text: string, into: Map<string, string[]>): void {
  for (const { name, bases } of classHeaders(text)) {
    into.set(name, [...(into.get(name) ?? []), ...bases]);
  }
}

/**
 * Whether deleting these defs and classes (qualified names, deletedUnits) leaves a name bound
 * to another body (reviews 38 to 40):
 * - a test of the file that is frozen or skipped keeps the deleted name;
 * - a method: a frozen or skipped test's class anywhere inherits from its class (`bases`, the
 *   class headers of the compared files and the quiet tests' files): whatever the method was
 *   (the test, or a helper it calls), a base class's body of that name now runs;
 * - a module-level def or class: the module still binds the name (an import at any depth, one
 *   in a parenthesised list, another def or class or an assignment at the top level): an
 *   earlier or imported one takes the deleted one's place.
 */
function rebound(
  deleted: readonly string[],
  now: string,
  quietHere: readonly string[],
  quietClasses: readonly string[],
  bases: ReadonlyMap<string, readonly string[]>,
): boolean {
  const names = quietHere.map((id) => withoutParameters(id).split("::").slice(1).join("::"));
  const inherits = (cls: string, from: string, seen = new Set<string>()): boolean => {
    if (cls === from) return true;
    if (seen.has(cls)) return false;
    seen.add(cls);
    return (bases.get(cls) ?? []).some((b) => inherits(b, from, seen));
  };
  const imported = new Set(
    [...now.matchAll(/^[ \t]*from[ \t]+\S+[ \t]+import[ \t]*\(([^)]*)\)/gm)].flatMap((m) =>
      [...(m[1] as string).replace(/#[^\n]*/g, "").matchAll(/\b(\w+)\b(?![ \t]+as\b)/g)].map(
        (w) => w[1] as string,
      ),
    ),
  );
  return deleted.some((d) => {
    const parts = d.split("::");
    const last = parts.at(-1) as string;
    if (names.some((n) => n === d || n.startsWith(`${d}::`))) return true;
    if (parts.length > 1) {
      const cls = parts.at(-2) as string;
      return quietClasses.some((k) => inherits(k, cls));
    }
    return (
      imported.has(last) ||
      new RegExp(
        `^(?:(?:async[ \\t]+)?def|class)[ \\t]+${last}\\b|^${last}[ \\t]*(?::[^=\\n]*)?=(?!=)|^[ \\t]*(?:from[ \\t]+\\S+[ \\t]+)?import\\b[^\\n(]*\\b${last}\\b`,
        "m",
      ).test(now)
    );
  });
}

/**
 * The suite's tests that may be a deleted property's witness renamed or moved (sorted): those
 * a freeze the base's ledger did not have freezes in a test file the patch changes (a freeze
 * added or re-pointed by the patch, matched as the audit matches), and the tests any freeze
 * freezes or the run skips or mutes
 * - in a test file the patch changes in more than deleting whole units (tests with their
 *   decorators, helpers, classes, imports, comments: deletedUnits), or where it deletes a def
 *   whose name one of them still has (its body now comes from a base class or an earlier
 *   def): a renamed witness, assertions folded into an old test or its helper, an import
 *   that puts another body in its place;
 * - anywhere in the suite, when the patch so changes another file of the tests (a
 *   conftest.py, tests/helpers.py, a test module of live tests, a data file under tests/: a
 *   data file only by deleting lines; a module without code never), which an old test may
 *   call or read (reviews 35, 37).
 * A file whose only change is deletions keeps its old skips and freezes out of it (a platform
 * skip beside the deleted witness). A node id's file is relative to pytest's rootdir: it
 * matches a changed repository path that is it or ends with it.
 */
async function witnessSuspects(
  root: string,
  mergeBase: string,
  ledger: Ledger,
  baseFreezes: readonly string[],
  silenced: ReadonlyMap<string, string>,
  changed: ReadonlySet<string>,
  known: ReadonlySet<string>,
): Promise<string[]> {
  const isFile = (path: string, file: string) => path === file || path.endsWith(`/${file}`);
  const everyId = new Set([...known, ...silenced.keys()]);
  const testFiles = new Set([...everyId].map((id) => nodeIdFile(id)));
  const pathOf = new Map<string, string>();
  for (const id of everyId) {
    const file = nodeIdFile(id);
    for (const path of changed) {
      if (isFile(path, file)) {
        pathOf.set(id, path);
        break;
      }
    }
  }
  const before = new Set(baseFreezes);
  const added = frozenIds(ledger).filter((id) => !before.has(id));
  const newlyFrozen = frozenBy(added, pathOf.keys(), known);
  const frozen = frozenBy(frozenIds(ledger), everyId, known);
  const quiet = [...everyId].filter(
    (id) => !newlyFrozen.has(id) && (frozen.has(id) || silenced.has(id)),
  );
  const paths = [...new Set(quiet.flatMap((id) => pathOf.get(id) ?? []))];
  // Every other changed file of the tests: a helper module, a conftest.py, a test module of
  // live tests whose helper an old test imports, a data file an old test reads (review 37).
  const helpers = [...changed].filter(
    (path) =>
      !paths.includes(path) &&
      (!outsideTestDirs(path) || [...testFiles].some((file) => isFile(path, file))),
  );
  const compared = [...paths, ...helpers];
  const blobs = await readBlobs(
    root,
    compared.map((path) => ({ rev: mergeBase, path })),
  );
  const changedMore = new Set<string>();
  const quietIn = (path: string) => quiet.filter((id) => pathOf.get(id) === path);
  // The classes of the quiet tests, and every class header they and the compared files hold.
  const quietClasses = [
    ...new Set(quiet.flatMap((id) => withoutParameters(id).split("::").slice(1, -1))),
  ];
  const texts = new Map<string, string | null>();
  const textOf = (path: string) => {
    if (!texts.has(path)) texts.set(path, readTextOrNull(join(root, path)));
    return texts.get(path) ?? null;
  };
  const bases = new Map<string, string[]>();
  for (const path of new Set([
    ...compared,
    ...quiet.map((id) => pathOf.get(id) ?? nodeIdFile(id)),
  ])) {
    const text = path.endsWith(".py") ? textOf(path) : null;
    if (text !== null) classBases(text, bases);
  }
  for (const [i, path] of compared.entries()) {
    // A file the patch deletes changed only by deletions.
    const now = textOf(path);
    if (now === null) continue;
    const text = blobs[i]?.toString("utf8") ?? null;
    if (!path.endsWith(".py")) {
      // Data: deleting lines may renumber cases or merge two records (review 38).
      if (text !== now) changedMore.add(path);
      continue;
    }
    // Text Python reads otherwise than freezegate (a lone CR ends a line, a foreign encoding
    // turns a comment into code) may hide anything (review 38).
    if (/\r(?!\n)/.test(now) || foreignEncoding(now) !== null) {
      changedMore.add(path);
      continue;
    }
    // A module without code (an empty __init__.py) holds no assertions.
    if (pythonCodeText(now) === "") continue;
    const helper = !paths.includes(path);
    if (text === null) {
      // A new module no old test imported; a new conftest.py is loaded for the tests below it.
      if (!helper || path === "conftest.py" || path.endsWith("/conftest.py")) {
        changedMore.add(path);
      }
      continue;
    }
    const deleted = deletedUnits(text, now, helper);
    if (deleted === null || rebound(deleted, now, quietIn(path), quietClasses, bases)) {
      changedMore.add(path);
    }
  }
  const anyHelper = helpers.some((path) => changedMore.has(path));
  const suspects = quiet.filter((id) => {
    const path = pathOf.get(id);
    return anyHelper || (path !== undefined && changedMore.has(path));
  });
  return [...newlyFrozen.keys(), ...suspects].sort();
}

/** The properties' checks and witnesses among `quiet`, sorted. */
function silencedWitnesses(ledger: Ledger, quiet: ReadonlyMap<string, string>): string[] {
  const named = ledger.properties.flatMap((p) => [p.check, ...p.witnessed_by]);
  return [...new Set(named.filter((id) => quiet.has(id)))].sort();
}

const SKIPPED = "was skipped in the run";
const MUTED = "is muted by an xfail outside the ledger";

export async function runWitnessGate(ctx: GateContext, opts: WitnessGateOptions): Promise<GateRun> {
  const notes: string[] = [];
  // Witnesses that witnessed nothing in the run although no freeze names them (muted or
  // skipped) -> why.
  const silenced = new Map<string, string>([
    ...(opts.skipped?.ids ?? []).map((id): [string, string] => [id, SKIPPED]),
    ...(opts.muted?.ids ?? []).map((id): [string, string] => [id, MUTED]),
  ]);
  let patch: PatchLedger | null = null;
  let changedPaths: ReadonlySet<string> = new Set();
  let baseRevision: string | null = null;
  if (opts.base !== undefined) {
    const rel = ledgerRepoPath(ctx);
    const { changed, mergeBase } = await changedFilesInRange(ctx.root, opts.base);
    changedPaths = changed;
    baseRevision = mergeBase;
    if (opts.always) {
      notes.push("--always: judged whether or not the ledger changed");
    } else if (rel === null) {
      notes.push(
        `the ledger ${ctx.ledgerLabel} is outside the repository, so whether it changed cannot be told: judged`,
      );
    } else {
      const dirty = (await dirtyPaths(ctx.root, [rel])).length > 0;
      const silencedHere =
        !changed.has(rel) && !dirty && silenced.size > 0
          ? silencedWitnesses(readLedgerFile(ctx.ledgerPath), silenced)
          : [];
      if (silencedHere.length > 0) {
        notes.push(
          `the ledger ${ctx.ledgerLabel} did not change in ${opts.base}...HEAD, but the run muted or skipped ${silencedHere.join(", ")}: judged`,
        );
      } else if (!changed.has(rel) && !dirty) {
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
      if (silencedHere.length === 0) {
        notes.push(
          dirty && !changed.has(rel)
            ? `the ledger ${ctx.ledgerLabel} has uncommitted changes: judged`
            : `the ledger ${ctx.ledgerLabel} changed in ${opts.base}...HEAD: judged`,
        );
      }
    }
    patch = await patchLedger(ctx, mergeBase);
    notes.push(...policyNotes(patch, "witness"));
  } else if (opts.always) {
    notes.push("--always: judged whether or not the ledger changed");
  } else {
    notes.push("no --base: judged without asking whether the ledger changed");
  }
  let ledger = patch?.ledger ?? readLedgerFile(ctx.ledgerPath);
  const deletedFindings: Finding[] = [];
  let restored = new Map<string, Set<string>>();
  let whole = new Set<string>();
  let baseFreezes: readonly string[] = [];
  if (patch !== null && patch.base !== null && patch.base !== "unreadable") {
    baseFreezes = frozenIds(patch.base);
    const judged = withBaseProperties(ledger, patch.base);
    restored = judged.restored;
    whole = judged.whole;
    if (judged.removed.length > 0) {
      notes.push(
        `the patch removes ${judged.removed.join(", ")}, or some of ${judged.removed.length === 1 ? "its" : "their"} witnesses or ${judged.removed.length === 1 ? "its check" : "their checks"}: judged with the merge base's as well (a removal takes effect from the next patch on)`,
      );
    }
    ledger = judged.ledger;
  }
  if (ledger.properties.length === 0) {
    notes.push(`the ledger ${ctx.ledgerLabel} records no properties, so no witness can be lost`);
  }
  // An entry with "*" that is a test's id names that test alone: the suite's tests decide.
  const named = [
    ...ledger.freezes.map((f) => f.test_id),
    ...ledger.properties.flatMap((p) => [p.check, ...p.witnessed_by]),
  ];
  const known =
    opts.knownTests !== undefined && (restored.size > 0 || named.some((id) => id.includes("*")))
      ? opts.knownTests()
      : null;
  // A witness the patch removes counts only while it is still a test of the suite: renamed,
  // or deleted with its property, it witnesses nothing under its old id, and is left out.
  if (restored.size > 0 && known === null) {
    notes.push(
      "witnesses this patch removes count as they were: without the suite's tests (--collected, or the coverage data) a renamed or deleted one cannot be told (check always knows them)",
    );
  } else if (known !== null && restored.size > 0) {
    // test_function data names a parametrized test once, without its parameters.
    const isTest = (w: string) => isCollected(w, known) || known.has(withoutParameters(w));
    const properties = ledger.properties.map((p) => {
      const back = restored.get(p.id);
      return back === undefined
        ? p
        : { ...p, witnessed_by: p.witnessed_by.filter((w) => !back.has(w) || isTest(w)) };
    });
    // A property the patch deletes together with all its witness tests guards nothing, unless
    // a renamed or moved witness may hide in a test file the patch changes (witnessSuspects).
    const gone = properties.filter((p) => whole.has(p.id) && p.witnessed_by.length === 0);
    const suspects =
      gone.length === 0 || baseRevision === null
        ? []
        : await witnessSuspects(
            ctx.root,
            baseRevision,
            ledger,
            baseFreezes,
            silenced,
            changedPaths,
            known,
          );
    for (const p of suspects.length === 0 ? [] : gone) {
      const deleted = [...(restored.get(p.id) ?? [])].sort();
      deletedFindings.push({
        gate: "witness",
        code: "orphaned-property",
        severity: "error",
        propertyId: p.id,
        message: `the patch deletes property ${p.id} and its witness tests (${deleted.join(", ")}), and the run freezes, skips or mutes ${sampleOf(suspects)} while the patch changes their test files or a test helper in more than deletions: one of them may be a witness renamed or moved, which leaves the property without a live witness; delete the property in a patch of its own, and its tests in a later one`,
        details: { witnesses: [], takenBy: suspects, deletedWitnesses: deleted },
      });
    }
    const goneIds = new Set(gone.map((p) => p.id));
    ledger = { ...ledger, properties: properties.filter((p) => !goneIds.has(p.id)) };
  }
  const quiet = silencedWitnesses(ledger, silenced);
  if (quiet.some((id) => silenced.get(id) === MUTED)) {
    notes.push(`tests an xfail outside the ledger muted (${opts.muted?.label}) count as frozen`);
  }
  if (quiet.some((id) => silenced.get(id) === SKIPPED)) {
    notes.push(`tests a skip stopped in the run (${opts.skipped?.label}) count as frozen`);
  }
  // A property judged under two checks (see withBaseProperties) says each finding once.
  const seen = new Set<string>();
  const findings = [
    ...deletedFindings,
    ...checkWitnesses(ledger, frozenIds(ledger), known, silenced),
  ].filter((f) => {
    const key = JSON.stringify([f.code, f.propertyId, f.testId, f.message]);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  return { result: result("witness", ledger, findings), notes };
}

// ---------------------------------------------------------------------------------------------
// Deposit gate.

export interface DepositGateOptions {
  base: string;
  /** The samples artifact (absolute), or undefined when none was given. */
  samplesPath?: string;
  /** The suite's tests (loadKnownTests); ids must not be null: the caller refuses that. */
  known: KnownTests & { ids: ReadonlySet<string> };
  /** pytest's rootdir, relative to the root ("" for the root). */
  testRoot: string;
  /** Tests an xfail outside the ledger muted in the run (check: the applied record). */
  muted?: readonly string[];
  /** HEAD's commit and the parsed samples artifact, when the caller has read them already. */
  headCommit?: string;
  samples?: SamplesArtifact;
}

export function readSamples(path: string): SamplesArtifact {
  if (!fileExists(path)) {
    // The usual cause: the pytest plugin ran inactive (it found no ledger), so it wrote none.
    throw new InputError(`samples artifact not found: ${path}`, {
      fix: "check the path; the freezegate pytest plugin writes it in every run in which it finds a ledger (pytest's freezegate_ledger setting, else freeze-ledger.json in pytest's rootdir): a ledger elsewhere needs freezegate_ledger = PATH in pytest's config",
    });
  }
  return parseSamples(
    readJsonFile(path, "samples artifact", "fix the JSON syntax of the samples artifact"),
    path,
  );
}

/** What a freeze deposits: its test, its compensating property and whether that is reused. */
function depositKey(f: Freeze): string {
  return JSON.stringify([f.test_id, f.compensating_property, f.reused_property]);
}

export async function runDepositGate(ctx: GateContext, opts: DepositGateOptions): Promise<GateRun> {
  const notes: string[] = [];
  const onDisk = readLedgerFile(ctx.ledgerPath);
  const samples =
    opts.samplesPath === undefined ? null : (opts.samples ?? readSamples(opts.samplesPath));
  const { changed, mergeBase } = await changedFilesInRange(ctx.root, opts.base);
  const patch = await patchLedger(ctx, mergeBase, onDisk);
  const { ledger } = patch;
  notes.push(...policyNotes(patch, "deposit"));
  // Only freezes whose deposit this patch makes owe it in this diff: a new frozen test, or
  // another compensating property. Extending a freeze, fixing its reason or adding its
  // approver deposits nothing new, and the property's samples are still judged below.
  const before = patch.path === null ? "unreadable" : patch.base;
  let due: Set<string> | null = null;
  if (before === "unreadable") {
    notes.push(
      `the ledger at the merge base could not be read: every freeze must show its deposit in this patch`,
    );
  } else {
    const old = new Set((before?.freezes ?? []).map(depositKey));
    due = new Set(ledger.freezes.filter((f) => !old.has(depositKey(f))).map((f) => f.test_id));
  }
  notes.push(`tests known: ${opts.known.description}`);
  if (samples === null) notes.push("no --samples artifact: no deposit can show its inputs");
  else if (samples.kind === "session") {
    notes.push(
      `the samples artifact is a single session count {"distinct": ${samples.distinct}}: it counts the whole session and is applied to every compensating property`,
    );
  }
  if (ledger.freezes.length === 0) notes.push(`the ledger ${ctx.ledgerLabel} has no freezes`);
  const findings = checkDeposits(ledger, {
    collected: opts.known.ids,
    changedFiles: changed,
    samples,
    headCommit: opts.headCommit ?? (await readHeadCommit(ctx.root)),
    depositDue: due,
    testRoot: opts.testRoot,
    ...(opts.muted === undefined ? {} : { muted: new Set(opts.muted) }),
  });
  return { result: result("deposit", ledger, findings), notes };
}

// ---------------------------------------------------------------------------------------------
// Generator lock.

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
  if (paths.size === 0) return { result: result("lock", ledger, findings), notes };
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
  return { result: result("lock", ledger, findings), notes };
}

// ---------------------------------------------------------------------------------------------
// Ledger changes.

export interface LedgerChangesOptions {
  base: string;
  /** YYYY-MM-DD (UTC). */
  today: string;
  /**
   * Judge the work tree's ledger when it has uncommitted changes, charging them to whoever
   * would commit them now (a try-out before committing); otherwise they are refused.
   */
  uncommitted?: boolean;
  /** The command that runs the same check with `uncommitted`, for the refusal's fix. */
  uncommittedCommand?: string;
}

/**
 * The ledger at the merge base against the ledger at HEAD (the committed one: who changed an
 * entry is only known for commits, so an uncommitted ledger change is refused, unless the
 * caller asks to charge it to the user who would commit it).
 */
export async function runLedgerChangesGate(
  ctx: GateContext,
  opts: LedgerChangesOptions,
): Promise<GateRun> {
  const rel = ledgerRepoPath(ctx);
  if (rel === null) {
    throw new InputError(`the ledger ${ctx.ledgerPath} is outside the repository`, {
      fix: "keep the ledger in the repository, so that its changes are reviewed",
    });
  }
  const uncommitted = (await dirtyPaths(ctx.root, [rel])).length > 0;
  if (uncommitted && opts.uncommitted !== true) {
    throw new InputError(
      `the ledger ${rel} has uncommitted changes, and who changed a freeze is read from the commits`,
      {
        fix: `commit them; to try the check on them before committing, run ${opts.uncommittedCommand ?? `freezegate check --base ${opts.base} --uncommitted`}`,
      },
    );
  }
  const { changed, mergeBase } = await changedFilesInRange(ctx.root, opts.base);
  const notes: string[] = [];
  if (uncommitted) {
    notes.push(
      `the ledger ${rel} has uncommitted changes: judged as the work tree has them, as if you committed them now (--uncommitted); the check of the commits is the one that counts`,
    );
  } else if (!changed.has(rel)) {
    notes.push(`the ledger ${rel} did not change in ${opts.base}...HEAD`);
  }
  const atBase = await baseLedger(ctx.root, mergeBase, rel);
  const base = atBase.ledger;
  notes.push(...movedNote(rel, atBase));
  // HEAD's ledger is the one judged: one that does not parse is an input error, never read as
  // a deleted ledger (which would judge no approval at all).
  const committed = await readLedgerAt(ctx.root, "HEAD", rel);
  const head = !uncommitted
    ? committed
    : fileExists(ctx.ledgerPath)
      ? readLedgerFile(ctx.ledgerPath)
      : null;
  if (base === "unreadable") {
    notes.push(`the ledger at the merge base could not be read: every entry counts as added`);
  }
  // Authors are read (and a shallow clone's edge refused) only when they are judged: approval
  // is required by either policy and a freeze is added or changed.
  const baseLedgerRead = base === "unreadable" ? null : base;
  const approvalJudged =
    ((baseLedgerRead?.policy.require_approval ?? false) ||
      (head?.policy.require_approval ?? false)) &&
    diffFreezes(baseLedgerRead?.freezes ?? [], head?.freezes ?? [], opts.today).some(
      (change) => change.after !== null,
    );
  const authors = approvalJudged
    ? await freezeAuthors(ctx.root, {
        mergeBase,
        head: "HEAD",
        ledgerPath: rel,
        parse: parseLedgerText,
        ...(uncommitted
          ? {
              uncommitted: {
                identities: await committingIdentities(ctx.root),
                ledger: head,
                parents: [committed],
              },
            }
          : {}),
      })
    : { byTestId: new Map(), anyEntry: [] };
  const findings = checkLedgerChanges({
    base: baseLedgerRead,
    head,
    today: opts.today,
    authors,
    ledgerPath: rel,
  });
  // Judged with the stricter of both policies (a deleted ledger: the merge base's), as in
  // patchLedger.
  let judged = head;
  const own = head?.policy ?? (base !== null && base !== "unreadable" ? base.policy : null);
  const strict = own === null ? null : judgedPolicy(base, own);
  if (strict !== null) {
    judged = { ...((head ?? base) as Ledger), policy: strict.policy };
    if (base !== "unreadable" && strict.loosened.length > 0) {
      findings.push({
        gate: "ledger-changes",
        code: "ledger-changed",
        severity: "warning",
        path: rel,
        message: `this patch loosens the policy (${strict.loosened.join("; ")}): the patch itself is judged with the merge base's stricter policy; the loosening applies from the next patch on`,
        details: { change: "policy-loosened", loosened: strict.loosened },
      });
    }
  }
  return { result: result("ledger-changes", judged, findings), notes };
}
