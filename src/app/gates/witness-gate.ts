// The witness gate: a test may be frozen only if every property it witnesses keeps a live
// witness. This module gathers what src/core/witness.ts judges: the ledger with the merge
// base's properties, the tests the run muted or skipped, and the tests that may be a deleted
// property's witness renamed or moved.

import { join } from "node:path";
import { changedFilesInRange, dirtyPaths, readBlobs } from "../../adapters/git-history.js";
import { readLedgerFile } from "../../adapters/ledger-file.js";
import { readTextOrNull } from "../../adapters/repo-files.js";
import { isCollected, nodeIdFile } from "../../core/deposits.js";
import type { Finding } from "../../core/findings.js";
import { outsideTestDirs } from "../../core/globs.js";
import type { Ledger } from "../../core/ledger-model.js";
import { sampleOf } from "../../core/listing.js";
import { foreignEncoding, pythonCodeText } from "../../core/python-statements.js";
import { deletedUnits } from "../../core/test-blocks.js";
import { checkWitnesses, frozenBy, frozenIds, withBaseProperties } from "../../core/witness.js";
import { classHeaders } from "../../languages/python/class-headers.js";
import { withoutParameters } from "../../runners/pytest/node-ids.js";
import { type GateContext, type GateRun, gateResult } from "./gate-run.js";
import { ledgerRepoPath } from "./ledger-location.js";
import { type PatchLedger, patchLedger, policyNotes } from "./patch-policy.js";

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
          result: gateResult(
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
  return { result: gateResult("witness", ledger, findings), notes };
}
