// The shadow audit as an application service: each step below is a function in a module under
// src/app/audit/ named for what it decides; together they gather the values from git, the data
// and the frozen list, check that they fit together, then call the pure audit. Everything
// that could turn misread input into an empty result is checked in those steps and raised as
// an error instead. What is specific to a test runner is the Runner's (src/runners/runner.ts),
// chosen from the data found.

import type { FrozenList } from "../core/frozen.js";
import type { ContextIndex, CoverageMeta, Patch } from "../core/model.js";
import type { PathRule } from "../core/path-map.js";
import { auditShadow, type FailableVerdict, type ShadowAudit } from "../core/shadow-audit.js";
import { checkPatchAgainstData } from "./audit/changed-files.js";
import { openData, readTests } from "./audit/data.js";
import { dataPathsOnRepo, executedOfSource } from "./audit/data-paths.js";
import { readFileInputs } from "./audit/file-inputs.js";
import { frozenForPatch, loadFrozenList, resolveFrozenTests } from "./audit/frozen-tests.js";
import { type AuditHooks, betweenSteps } from "./audit/hooks.js";
import { type PatchRequest, readPatch } from "./audit/read-patch.js";
import type { SettingsChange, SettingsFor } from "./audit/stricter-settings.js";
import { type EmptyPatchReason, emptyPatchReason } from "./empty-patch.js";
import { mark } from "./timing.js";

export { AuditAbandoned, type AuditHooks } from "./audit/hooks.js";

export interface AuditRequest {
  /** Repository root (absolute), from findRepoRoot. */
  root: string;
  patch: PatchRequest;
  /**
   * The data path (absolute), or undefined to discover it: in the working directory, the test
   * root and the repository root (see RunnerData).
   */
  coverage?: string;
  /**
   * The directory the user runs in (absolute; default the root): the search for coverage data
   * starts there, and messages name data paths relative to it.
   */
  cwd?: string;
  /** Frozen-test file (absolute path). */
  frozen: string;
  /**
   * Tests that defend nothing for another reason than the frozen list (e.g. muted by pytest's
   * xfail, as the plugin's applied record says), judged as frozen: exact node ids. Ids that
   * name no test in the data are left out: a muted test that ran no measured line hides
   * nothing. `label` says where they come from.
   */
  alsoFrozen?: { ids: readonly string[]; label: string };
  pathMap: PathRule[];
  /** Changed files that are tests; undefined: the runner's defaults. */
  testGlobs?: string[] | undefined;
  /** Changed files that are audited; undefined: the runner's defaults. */
  sourceGlobs?: string[] | undefined;
  failOn: FailableVerdict[];
  allowUnresolved: boolean;
  /** The test root (pytest's rootdir), relative to the repository root ("" for the root). */
  testRoot: string;
  /**
   * The settings above that the config gives, as a config with `values` would give them (the
   * same flags applied). When the patch changes the root's config file, the audit then reads
   * the config at the patch's base too and judges by the stricter of both (see
   * stricterSettings): a patch cannot loosen the settings it is judged by. The frozen list
   * the base's config and files give counts too when it is another file (see frozenAtBase).
   * Undefined: the settings are taken as given.
   */
  settingsFor?: SettingsFor;
  /** Hooks about time only (what the run waits for, when to drop it): see AuditHooks. */
  hooks?: AuditHooks;
}

export interface AuditRun {
  root: string;
  patch: Patch;
  coverage: CoverageMeta;
  contextStyle: ContextIndex["style"];
  testCount: number;
  frozen: {
    file: string;
    format: FrozenList["format"];
    entries: number;
    frozenTests: string[];
    unresolved: string[];
    /** The request's alsoFrozen ids that name tests in the data (not in frozenTests). */
    also: { label: string; tests: string[] } | null;
  };
  audit: ShadowAudit;
  /** The text of each audited file as read for the audit (repository path -> text). */
  sources: Map<string, string>;
  /** When the patch changed the config's settings: judged by the stricter of both. */
  settingsChange: SettingsChange | null;
  /** Why nothing was audited when the patch changes no file, else null. */
  emptyPatch: EmptyPatchReason | null;
}

export async function runAudit(request: AuditRequest): Promise<AuditRun> {
  const { root } = request;
  const hooks = request.hooks ?? {};
  // git runs in other processes: start it, read the data meanwhile, then wait for it.
  const patchRead = readPatch(root, request.patch);
  patchRead.catch(() => {}); // its error is raised where it is awaited
  const frozenList = loadFrozenList(request.frozen);
  mark("start audit");
  const { runner, data } = openData(request, hooks);
  mark("open data");
  try {
    await betweenSteps(hooks);
    const tests = readTests(runner, root, request.testRoot, data);
    mark("contexts");
    await betweenSteps(hooks);
    const frozen = resolveFrozenTests(runner, tests, data, frozenList, request);
    const { measured, mapping } = dataPathsOnRepo(root, data, request.pathMap, request.testRoot);
    mark("frozen + paths");
    const reader = runner.sources.reader(root, tests.prefix);
    const patch = await patchRead;
    mark("git (waited)");
    const changed = await checkPatchAgainstData({
      root,
      runner,
      request: request.patch,
      patch,
      settings: request,
      tests,
      testRoot: request.testRoot,
      prefix: tests.prefix,
      measured,
      mapping,
      pathMap: request.pathMap,
      dataFiles: data.meta.dataFiles,
      executedOf: executedOfSource(data),
      data,
    });
    const { stricter } = changed;
    const judged = await frozenForPatch(runner, tests, data, frozen, request, patch, stricter);
    const files = readFileInputs({
      runner,
      reader,
      data,
      tests,
      audited: changed.audited,
      sources: changed.sources,
      mapping,
      facts: changed.facts,
      hooks,
    });
    const audit = auditShadow({
      files: files.inputs,
      skipped: changed.skipped,
      contexts: tests.index,
      frozen: judged.judged,
      failOn: (stricter?.settings ?? request).failOn,
    });
    if (files.longLoopsLeft) hooks.onLongLoopsDone?.();
    return {
      root,
      patch,
      coverage: data.meta,
      contextStyle: tests.index.style,
      testCount: tests.index.testCount,
      frozen: {
        file: request.frozen,
        format: frozenList.format,
        entries: frozenList.entries.length,
        frozenTests: [...frozen.resolution.frozenTests].sort(),
        unresolved: frozen.resolution.unresolved,
        also:
          request.alsoFrozen === undefined
            ? null
            : { label: request.alsoFrozen.label, tests: [...new Set(frozen.muted)].sort() },
      },
      audit,
      sources: files.texts,
      settingsChange: judged.settingsChange,
      emptyPatch: await emptyPatchReason(root, patch),
    };
  } finally {
    data.close();
  }
}
