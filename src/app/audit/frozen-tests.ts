// The frozen tests the audit judges: the frozen list resolved against the data's tests (a typo
// would hide shadow, so an id that matches no test is refused unless allowed), the tests muted
// outside the list, and, when the patch reads its list from another file than its base did,
// the tests frozen in either.

import { isRepoFile, readJsonFile } from "../../adapters/repo-files.js";
import type { FreezegateError } from "../../core/errors.js";
import {
  type FrozenList,
  type FrozenResolution,
  type IdWords,
  parseFrozenList,
  resolveFrozen,
  testRootMismatch,
  unresolvedFix,
} from "../../core/frozen.js";
import { sample } from "../../core/listing.js";
import type { CoverageSource, Patch } from "../../core/model.js";
import { baseRevisionOf } from "../../core/patch-base.js";
import { refusal } from "../../core/refusals/index.js";
import type { DataTests, Runner } from "../../runners/runner.js";
import { type BaseFrozen, frozenAtBase } from "../patch-settings.js";
import type { SettingsChange, SettingsFor, StricterSettings } from "./stricter-settings.js";

/** The frozen-test file as a parsed list (a quarantine list or a freeze ledger). */
export function loadFrozenList(path: string): FrozenList {
  return parseFrozenList(readJsonFile(path, "frozen-test file"), path);
}

/** What the audit asks of the frozen tests. */
export interface FrozenRequest {
  root: string;
  /** The frozen-test file (absolute): the list's label in messages. */
  frozen: string;
  allowUnresolved: boolean;
  /** Tests muted outside the list (see AuditRequest.alsoFrozen). */
  alsoFrozen?: { ids: readonly string[]; label: string } | undefined;
}

export interface FrozenTests {
  resolution: FrozenResolution;
  /** The muted tests the data has that the list does not freeze. */
  muted: string[];
  /** The list's tests and the muted ones. */
  tests: ReadonlySet<string>;
}

/**
 * The list's tests in the data, and the muted ones. Frozen ids must name tests in the data;
 * ids that cannot be read, or that name the data's tests from another directory, are refused
 * even with --allow-unresolved (which is for tests that no longer exist: these exist and ran),
 * and so are frozen tests that never ran their body (the lines they would cover are unknown).
 */
export function resolveFrozenTests(
  runner: Runner,
  tests: DataTests,
  data: CoverageSource,
  list: FrozenList,
  request: FrozenRequest,
): FrozenTests {
  const { index } = tests;
  const resolution = resolveFrozen(runner.tests.frozenList(list, request.frozen, tests), index);
  if (resolution.unresolved.length > 0) {
    const unreadable = runner.tests.unreadableIds(tests);
    const words = runner.advice;
    if (unreadable !== null) {
      throw unresolvedError(request.frozen, resolution, index, words, unreadable);
    }
    const offRoot = testRootMismatch(
      resolution.unresolved,
      index.testIds,
      tests.prefix,
      (p) => isRepoFile(request.root, p),
      words,
    );
    if (offRoot !== null) throw unresolvedError(request.frozen, resolution, index, words, offRoot);
    if (!request.allowUnresolved) throw unresolvedError(request.frozen, resolution, index, words);
  }
  const notRun = runner.tests.refuseNotRun(
    request.frozen,
    tests.testsWithoutRun([...resolution.frozenTests]),
    data,
  );
  if (notRun !== null) throw notRun;
  // After that check: an xfail(run=False) test is muted without running, and harmless.
  const mutedIds = runner.tests.mutedIds(request.alsoFrozen?.ids ?? [], tests);
  if (mutedIds.length > 0) index.preloadTests?.(mutedIds);
  const muted = mutedIds.filter((id) => !resolution.frozenTests.has(id) && index.hasTest(id));
  return {
    resolution,
    muted,
    tests:
      muted.length === 0 ? resolution.frozenTests : new Set([...resolution.frozenTests, ...muted]),
  };
}

/**
 * Frozen ids that match no test: `cause` says why when it is known, else the fix says how to
 * freeze a parametrized test's or a class's tests.
 */
function unresolvedError(
  label: string,
  { unresolved }: FrozenResolution,
  index: DataTests["index"],
  words: IdWords,
  cause?: { message: string; fix: string },
  also?: { message: string; fix: string },
): FreezegateError {
  const head = { count: unresolved.length, label, sample: sample(unresolved) };
  if (cause !== undefined) {
    return refusal("frozen-ids-unresolved", { ...head, why: cause.message, fix: cause.fix });
  }
  return refusal("frozen-ids-unresolved", {
    ...head,
    why: also?.message ?? null,
    fix: `${unresolvedFix(unresolved, index.testIds, words)}${also?.fix ?? ""}`,
  });
}

/** What the frozen tests become once the patch and its base's settings are known. */
export interface FrozenForPatch {
  /** The tests judged as frozen. */
  judged: ReadonlySet<string>;
  /** The settings the patch changed, including where it reads its frozen tests from. */
  settingsChange: SettingsChange | null;
}

/**
 * The frozen tests the patch is judged by: unresolved ids are allowed only when the base's
 * config allows them too, and the tests frozen in the list the base read count when the patch
 * reads another file (see frozenAtBase); an id of a test the data lacks freezes nothing.
 */
export async function frozenForPatch(
  runner: Runner,
  tests: DataTests,
  data: CoverageSource,
  frozen: FrozenTests,
  request: FrozenRequest & { settingsFor?: SettingsFor | undefined },
  patch: Patch,
  stricter: StricterSettings | null,
): Promise<FrozenForPatch> {
  const baseRev = baseRevisionOf(patch);
  const at = baseRev === "HEAD" || baseRev === null ? "HEAD" : baseRev.slice(0, 12);
  if (stricter?.unresolvedWaived && frozen.resolution.unresolved.length > 0) {
    throw unresolvedError(
      request.frozen,
      frozen.resolution,
      tests.index,
      runner.advice,
      undefined,
      {
        message: `the patch allows unresolved ids (allow-unresolved), the config at ${at} does not`,
        fix: "; change allow-unresolved in a patch of its own, or pass --allow-unresolved",
      },
    );
  }
  const { settingsFor } = request;
  const atBase =
    settingsFor === undefined
      ? null
      : await frozenAtBase(
          request.root,
          patch,
          baseRev,
          request.frozen,
          (v) => settingsFor(v).frozen,
        );
  const keysChanged = stricter !== null && stricter.change.changed.length > 0;
  if (atBase === null) {
    return { judged: frozen.tests, settingsChange: keysChanged ? stricter.change : null };
  }
  const onlyAtBase = frozenOnlyAtBase(runner, atBase, at, tests, frozen.tests, data);
  return {
    judged: new Set([...frozen.tests, ...onlyAtBase]),
    settingsChange: {
      base: baseRev ?? "HEAD",
      changed: keysChanged ? stricter.change.changed : [],
      frozen: { files: atBase.files, now: atBase.now, tests: onlyAtBase },
    },
  };
}

/**
 * The tests only the base's list freezes, judged as the audit judges its own list's (see
 * RunnerTests.frozenList and refuseNotRun). An id that names no test in the data (a test the
 * patch deletes) freezes nothing. Throws the refusal.
 */
export function frozenOnlyAtBase(
  runner: Runner,
  atBase: BaseFrozen,
  /** The base as messages name it. */
  at: string,
  tests: DataTests,
  /** The tests frozen now. */
  frozenNow: ReadonlySet<string>,
  data: CoverageSource,
): string[] {
  const label = atBase.files.map((file) => `${file} at ${at}`).join(" and ");
  const list = runner.tests.frozenList(atBase.list, label, tests);
  const only = [...resolveFrozen(list, tests.index).frozenTests].filter((id) => !frozenNow.has(id));
  const notRun = runner.tests.refuseNotRun(label, tests.testsWithoutRun(only), data);
  if (notRun !== null) throw notRun;
  return only.sort();
}
