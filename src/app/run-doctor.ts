// `freezegate doctor` as an application service: gather the same inputs the audit reads and
// run every check, turning each input error into a failed check instead of stopping, so the
// user sees all problems at once.

import { isAbsolute, join, relative } from "node:path";
import { pathFromUser } from "../adapters/coverage-discovery.js";
import { isRepoFile, modifiedTime, readTextFile } from "../adapters/repo-files.js";
import {
  type CheckStatus,
  checkFreshness,
  checkFrozenResolved,
  checkPathMapping,
  type DoctorCheck,
  type FreshnessInput,
  failedCheck,
} from "../core/doctor.js";
import { FreezegateError, InputError, reworded } from "../core/errors.js";
import { type FrozenList, resolveFrozen } from "../core/frozen.js";
import { sampleOf } from "../core/listing.js";
import type { ChangedFile, CoverageSource, Patch } from "../core/model.js";
import { baseRevisionOf } from "../core/patch-base.js";
import type { PathRule } from "../core/path-map.js";
import type { DataTests, PatchFacts, Runner } from "../runners/runner.js";
import { checkPatchAgainstData } from "./audit/changed-files.js";
import { dataRequestOf, openData } from "./audit/data.js";
import {
  ambiguousRun,
  executedOfSource,
  mapCoverageToRepo,
  recordedRootIn,
} from "./audit/data-paths.js";
import { frozenOnlyAtBase, loadFrozenList } from "./audit/frozen-tests.js";
import { type PatchRequest, readPatch } from "./audit/read-patch.js";
import type { SettingsFor } from "./audit/stricter-settings.js";
import { frozenAtBase, frozenListMovedWords } from "./patch-settings.js";

export interface DoctorRequest {
  root: string;
  /** The directory the command runs in (absolute; default the root). */
  cwd?: string;
  patch: PatchRequest | null;
  coverage?: string;
  /** The frozen-test file, or why there is none (the audit would refuse to run). */
  frozen: string | FreezegateError;
  pathMap: PathRule[];
  /** Which changed files the audit would judge (--test-files, --source-files). */
  testGlobs?: string[] | undefined;
  sourceGlobs?: string[] | undefined;
  testRoot: string;
  allowUnresolved: boolean;
  /** As in the audit: the settings a config gives, to judge a config the patch changes. */
  settingsFor?: SettingsFor;
}

function failed(id: string, error: unknown): DoctorCheck {
  if (error instanceof FreezegateError) return failedCheck(id, error);
  throw error;
}

function relativeToRoot(root: string, path: string): string {
  const rel = relative(root, path);
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? path : rel;
}

/**
 * The frozen list, read as the audit reads it. Its errors (not found, not valid JSON,
 * malformed) name the file as the check's other messages and the audit report do: by
 * `label`, relative to the repository root when it is inside it.
 */
function loadFrozenListAs(path: string, label: string): FrozenList {
  try {
    return loadFrozenList(path);
  } catch (error) {
    if (!(error instanceof InputError) || label === path) throw error;
    throw reworded(error, error.message.split(path).join(label));
  }
}

function skipped(id: string, because: string): DoctorCheck {
  return { id, status: "skip", message: `not checked: ${because}` };
}

export async function runDoctor(request: DoctorRequest): Promise<DoctorCheck[]> {
  return (await doctorChecks(request)).map(oneLine);
}

/**
 * A check as one line: a message may quote input that holds a line break (a frozen id with
 * "\n"), which would split the text output and break the JSON contract. As the audit's errors.
 */
function oneLine(check: DoctorCheck): DoctorCheck {
  const flat = (text: string) => text.replace(/\s*[\r\n]\s*/g, " ").trim();
  return {
    ...check,
    message: flat(check.message),
    ...(check.fix === undefined ? {} : { fix: flat(check.fix) }),
  };
}

/** The data as opened for the checks, when it could be. */
interface OpenedData {
  runner: Runner;
  coverage: CoverageSource;
}

/** The data's tests as read, and whether reading them failed. */
interface ReadContexts {
  contexts: DataTests | null;
  failed: boolean;
}

type MappedPaths = ReturnType<typeof mapCoverageToRepo>;

/** The six checks, in their order, each a step that adds its checks to the list. */
async function doctorChecks(request: DoctorRequest): Promise<DoctorCheck[]> {
  const checks: DoctorCheck[] = [];
  const opened = checkData(request, checks);
  try {
    const read = checkContexts(request, opened, checks);
    const mapped = checkPaths(request, opened, checks);
    const frozenNow = checkFrozen(request, opened, read.contexts, checks);
    await checkPatchFreshness(request, opened, mapped, read, frozenNow, checks);
  } finally {
    opened?.coverage.close();
  }
  return checks;
}

/** data: the coverage data is found and opened (opened even when describing it failed). */
function checkData(request: DoctorRequest, checks: DoctorCheck[]): OpenedData | null {
  let opened: OpenedData | null = null;
  try {
    const { places } = dataRequestOf(request);
    const { runner, data } = openData(request);
    opened = { runner, coverage: data };
    const read = data.meta.dataFiles.map((f) => pathFromUser(request.root, f, places));
    checks.push({
      id: "data",
      status: "ok",
      message: `read ${sampleOf(read)} (${runner.data.describe(data)})`,
    });
  } catch (error) {
    checks.push(failed("data", error));
  }
  return opened;
}

/**
 * contexts and node-ids: the runner's checks of the data's tests. Reading the lines reads the
 * contexts again: their error is said once, under contexts. Every check id is always present
 * (in this order), so that tools can look them up.
 */
function checkContexts(
  request: DoctorRequest,
  opened: OpenedData | null,
  checks: DoctorCheck[],
): ReadContexts {
  if (opened === null) {
    checks.push(skipped("contexts", "no readable coverage data"));
    checks.push(skipped("node-ids", "no readable coverage data"));
    return { contexts: null, failed: false };
  }
  const { runner, coverage } = opened;
  let contexts: DataTests | null = null;
  try {
    contexts = runner.tests.read(request.root, request.testRoot, coverage, { names: true });
    checks.push(...runner.tests.doctorChecks(contexts));
    return { contexts, failed: false };
  } catch (error) {
    checks.push(failed("contexts", error));
    checks.push(skipped("node-ids", "the contexts could not be read"));
    return { contexts, failed: true };
  }
}

/** paths: the data's paths map onto the repository; as in the audit, none is ambiguous. */
function checkPaths(
  request: DoctorRequest,
  opened: OpenedData | null,
  checks: DoctorCheck[],
): MappedPaths | null {
  if (opened === null) {
    checks.push(skipped("paths", "no readable coverage data"));
    return null;
  }
  const { runner, coverage } = opened;
  const mapped = mapCoverageToRepo(request.root, coverage, request.pathMap);
  // As in the audit: relative paths that two directories could hold are refused.
  const ambiguous = ambiguousRun(
    request.root,
    mapped.measured,
    request.pathMap,
    request.testRoot,
    coverage.meta.dataFiles,
  );
  checks.push(
    ambiguous === null
      ? checkPathMapping(
          mapped.measured,
          mapped.mapping,
          mapped.existing,
          mapped.existing.length === 0 ? recordedRootIn(request.root, mapped.measured) : null,
          runner.advice,
        )
      : failed("paths", ambiguous),
  );
  return mapped;
}

/** frozen: the frozen ids resolve against the data's tests and ran their body. */
function checkFrozen(
  request: DoctorRequest,
  opened: OpenedData | null,
  contexts: DataTests | null,
  checks: DoctorCheck[],
): ReadonlySet<string> | null {
  if (typeof request.frozen !== "string") {
    checks.push(failed("frozen", request.frozen));
    return null;
  }
  try {
    // As the audit's report shows it: relative to the repository root.
    const label = relativeToRoot(request.root, request.frozen);
    const written = loadFrozenListAs(request.frozen, label);
    if (opened === null || contexts === null || contexts.index.testIds.size === 0) {
      checks.push(skipped("frozen", "the data names no tests to resolve frozen ids against"));
      return null;
    }
    const { runner, coverage } = opened;
    const tests = contexts;
    const list = runner.tests.frozenList(written, label, tests);
    const resolution = resolveFrozen(list, tests.index);
    const check = checkFrozenResolved(
      label,
      list.entries.length,
      resolution,
      request.allowUnresolved,
      tests.index.testIds,
      runner.advice,
      () => runner.tests.unreadableIds(tests),
      {
        prefix: tests.prefix,
        repoFileExists: (p) => isRepoFile(request.root, p),
      },
    );
    const notRun =
      check.status === "fail"
        ? null
        : runner.tests.refuseNotRun(
            label,
            tests.testsWithoutRun([...resolution.frozenTests]),
            coverage,
          );
    checks.push(notRun === null ? check : failed("frozen", notRun));
    return resolution.frozenTests;
  } catch (error) {
    checks.push(failed("frozen", error));
    return null;
  }
}

/**
 * freshness: the audit's own checks that the patch describes the files on disk and fits the
 * data (and of what it changes about its own judgement), then whether the data matches the
 * changed files and was recorded after their last change. An error is the failed check.
 */
async function checkPatchFreshness(
  request: DoctorRequest,
  opened: OpenedData | null,
  mapped: MappedPaths | null,
  read: ReadContexts,
  frozenNow: ReadonlySet<string> | null,
  checks: DoctorCheck[],
): Promise<void> {
  if (request.patch === null) {
    checks.push(checkFreshness(null));
    return;
  }
  if (opened === null || mapped === null) {
    checks.push(skipped("freshness", "no readable coverage data"));
    return;
  }
  if (read.failed) {
    checks.push(skipped("freshness", "the contexts could not be read"));
    return;
  }
  try {
    const patch = await readPatch(request.root, request.patch);
    const { audited, facts } = await checkPatchAsAudit(request, request.patch, patch, {
      ...opened,
      mapped,
      tests: read.contexts,
      frozenNow,
      checks,
    });
    checks.push(checkFreshness(freshnessOf(request, patch, audited, facts, opened, mapped)));
  } catch (error) {
    checks.push(failed("freshness", error));
  }
}

/**
 * What the audit checks of the patch before it judges it: that it describes the files on
 * disk and fits the data, how it judges the frozen list (updating the frozen check in place),
 * and that no measured changed file has line breaks git and Python count apart.
 */
async function checkPatchAsAudit(
  request: DoctorRequest,
  patchRequest: PatchRequest,
  patch: Patch,
  {
    runner,
    coverage,
    mapped,
    tests,
    frozenNow,
    checks,
  }: OpenedData & {
    mapped: MappedPaths;
    tests: DataTests | null;
    frozenNow: ReadonlySet<string> | null;
    checks: DoctorCheck[];
  },
): Promise<{ audited: ChangedFile[]; facts: PatchFacts }> {
  const { audited, sources, stricter, facts } = await checkPatchAgainstData({
    root: request.root,
    runner,
    request: patchRequest,
    patch,
    settings: { ...request, failOn: [] },
    tests,
    testRoot: request.testRoot,
    prefix: tests?.prefix ?? "",
    measured: mapped.measured,
    mapping: mapped.mapping,
    pathMap: request.pathMap,
    dataFiles: coverage.meta.dataFiles,
    executedOf: executedOfSource(coverage),
    data: coverage,
  });
  await judgeFrozenAsAudit(checks, request, patch, stricter, {
    runner,
    tests,
    frozenNow,
    data: coverage,
  });
  const toData = mapped.mapping.toData;
  for (const file of audited) {
    const bytes = sources.get(file.path);
    if (bytes && toData.has(file.path)) {
      runner.sources.refuseLineBreaks(file.path, bytes.toString("utf8"));
    }
  }
  return { audited, facts };
}

/**
 * The freshness check's input: as in the audit, a changed module held without an executed
 * line that a test which ran imports means the tests ran an installed copy (refused); then
 * each measured changed file against the data, and against the time the data was recorded.
 */
function freshnessOf(
  request: DoctorRequest,
  patch: Patch,
  audited: readonly ChangedFile[],
  facts: PatchFacts,
  { runner, coverage }: OpenedData,
  mapped: MappedPaths,
): FreshnessInput {
  const toData = mapped.mapping.toData;
  const input: FreshnessInput = {
    contradicted: [],
    newerThanData: [],
    recordedAt: coverage.meta.recordedAt,
    checkedFiles: 0,
    auditedFiles: audited.length,
    unmeasured: audited.filter((f) => !toData.has(f.path)).map((f) => f.path),
    measureFiles: runner.advice.measureFiles,
  };
  const files = patch.files.filter(
    (f) => f.status !== "deleted" && !f.binary && !f.submodule && toData.has(f.path),
  );
  const dataPaths = files.map((f) => toData.get(f.path) as string);
  const executed = coverage.executedLines(dataPaths);
  const judged = new Set(audited.map((f) => f.path));
  runner.guards.refuseUnexecuted(
    facts,
    files
      .filter((f) => judged.has(f.path) && runner.sources.runsOnImport(f.path))
      .filter((f) => executed.get(toData.get(f.path) as string)?.size === 0)
      .map((f) => f.path),
  );
  for (const file of files) {
    const dataPath = toData.get(file.path) as string;
    const abs = join(request.root, file.path);
    const text = readTextFile(abs, `changed file ${file.path}`);
    input.checkedFiles++;
    const evidence = runner.sources.staleEvidence(
      file.path,
      text,
      executed.get(dataPath)?.keys() ?? [],
      { data: coverage, dataPath },
    );
    if (evidence) input.contradicted.push({ path: file.path, evidence });
    const mtime = modifiedTime(abs);
    // coverage.py records `when` to the second: allow that much.
    if (mtime && input.recordedAt && mtime.getTime() >= input.recordedAt.getTime() + 1000) {
      input.newerThanData.push(file.path);
    }
  }
  return input;
}

/**
 * The frozen check as the audit judges the patch's list (in place in `checks`): unresolved
 * ids are allowed only when the base's config allows them too, and the tests frozen in the
 * list the base read count when the patch reads another file (see frozenAtBase).
 */
async function judgeFrozenAsAudit(
  checks: DoctorCheck[],
  request: DoctorRequest,
  patch: Patch,
  stricter: { unresolvedWaived: boolean } | null,
  {
    runner,
    tests,
    frozenNow,
    data,
  }: {
    runner: Runner;
    tests: DataTests | null;
    frozenNow: ReadonlySet<string> | null;
    data: CoverageSource;
  },
): Promise<void> {
  const baseRev = baseRevisionOf(patch);
  const at = baseRev === null || baseRev === "HEAD" ? "HEAD" : baseRev.slice(0, 12);
  const index = checks.findIndex((c) => c.id === "frozen");
  const frozen = checks[index];
  if (stricter?.unresolvedWaived && frozen?.status === "warn") {
    checks[index] = {
      ...frozen,
      status: "fail",
      message: `${frozen.message}; the patch allows unresolved ids (allow-unresolved), the config at ${at} does not`,
      fix: `${frozen.fix ?? ""}; change allow-unresolved in a patch of its own, or pass --allow-unresolved`,
    };
  }
  const { settingsFor, frozen: file } = request;
  if (frozen?.status !== "ok" || frozenNow === null || tests === null) return;
  if (settingsFor === undefined || typeof file !== "string") return;
  const atBase = await frozenAtBase(
    request.root,
    patch,
    baseRev,
    file,
    (v) => settingsFor(v).frozen,
  );
  if (atBase === null) return;
  try {
    const only = frozenOnlyAtBase(runner, atBase, at, tests, frozenNow, data);
    const words = frozenListMovedWords({ ...atBase, tests: only }, at);
    checks[index] = { ...frozen, message: `${frozen.message}; ${words}` };
  } catch (error) {
    checks[index] = failed("frozen", error);
  }
}

export function doctorStatus(checks: readonly DoctorCheck[]): CheckStatus {
  if (checks.some((c) => c.status === "fail")) return "fail";
  if (checks.some((c) => c.status === "warn")) return "warn";
  return "ok";
}
