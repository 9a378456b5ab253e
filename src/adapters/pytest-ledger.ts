// Does the freezegate pytest plugin apply the ledger a command judges? The plugin finds its
// ledger in pytest's configuration (--freezegate-ledger, ini freezegate_ledger, else
// freeze-ledger.json in pytest's rootdir); the CLI in its own ([tool.freezegate] ledger, else
// freeze-ledger.json at the repository root). When they are two files, a freeze that only
// pytest applies mutes a test the gate counts as live, and nothing shows it: refused (exit 2).
// Two sources: the pytest configuration in the work tree (before anything runs), and the
// plugin's applied record of the run (what it really applied).

import { createHash } from "node:crypto";
import { existsSync, realpathSync, statSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { FreezegateError } from "../core/errors.js";
import { frozenListOf, lookupOf, resolveFrozen } from "../core/frozen.js";
import type { Ledger } from "../core/ledger-model.js";
import { sampleOf } from "../core/listing.js";
import { type AppliedRecord, parseAppliedRecord } from "../core/queue.js";
import { refusal } from "../core/refusals/index.js";
import {
  LEDGER_OPTION,
  type LedgerSetting,
  type LocatedPytestConfig,
  ledgerSetting,
  locatePytestConfig,
  type PluginPathOption,
  PytestConfigFileUnreadable,
  PytestConfigUnreadable,
  type PytestDialect,
  pytestRootdir,
  RECORD_OPTION,
  SAMPLES_OPTION,
} from "../runners/pytest/pytest-config.js";
import { readFileBytes, readJsonFile, readTextFile } from "./repo-files.js";

/** The plugin's default ledger name in pytest's rootdir (integrations/pytest ledger.py). */
const PLUGIN_DEFAULT_LEDGER = "freeze-ledger.json";

/** The ledger the plugin would read, as pytest would set it up in one dialect. */
export interface PluginLedger {
  /** Absolute path. */
  path: string;
  /** Where it comes from, for messages (e.g. "pytest.ini freezegate_ledger"). */
  given: string;
  /** false: the rootdir default, which the plugin reads only when the file exists. */
  explicit: boolean;
}

function isFile(path: string): boolean {
  return statSync(path, { throwIfNoEntry: false })?.isFile() === true;
}

/** `path` relative to `root` when inside it (with /), else as given. */
export function show(root: string, path: string): string {
  const rel = relative(root, path);
  if (rel === "") return ".";
  return rel.startsWith("..") || isAbsolute(rel) ? path : rel.split("\\").join("/");
}

/** The directories from `start` up to `root` (pytest looks further; outside is not the repo's). */
function upTo(root: string, start: string): string[] {
  const dirs: string[] = [];
  for (let dir = start; ; dir = dirname(dir)) {
    dirs.push(dir);
    if (dir === root || dirname(dir) === dir || relative(root, dir).startsWith("..")) break;
  }
  return dirs;
}

/**
 * The plugin's ledger when pytest runs in `start` (no path arguments, as the CI recipes run
 * it), by the rules of one pytest dialect: the first directory upwards with a config file
 * pytest reads is the rootdir; the file's settings name the ledger, else the rootdir's
 * freeze-ledger.json. null: pytest could not read its configuration, so it runs no test.
 */
export function pluginLedger(
  root: string,
  start: string,
  dialect: PytestDialect,
): PluginLedger | null {
  return pluginPath(root, start, dialect, LEDGER_OPTION, PLUGIN_DEFAULT_LEDGER);
}

/**
 * Where the plugin's applied record of a run may be, in order: where pytest's settings put it
 * (the freezegate_record ini key or a flag in addopts, by pytest 7's and 9's rules), beside
 * the samples artifact (the CI recipes' place), and its default place in pytest's rootdir
 * (`.freezegate/applied.json`, also when the samples were moved or not given). Absolute paths,
 * no repeats.
 */
export function recordCandidates(
  root: string,
  testRoot: string,
  samplesPath: string | undefined,
): string[] {
  const { explicit, defaults } = pluginPlaces(
    root,
    testRoot,
    RECORD_OPTION,
    ".freezegate/applied.json",
  );
  const beside = samplesPath === undefined ? [] : [appliedRecordBeside(samplesPath)];
  return [...new Set([...explicit, ...beside, ...defaults])];
}

/** Where the plugin puts one of its files by pytest 7's and 9's rules, set and default apart. */
function pluginPlaces(
  root: string,
  testRoot: string,
  option: PluginPathOption,
  defaultPath: string,
): { explicit: string[]; defaults: string[] } {
  const start = resolve(root, testRoot);
  const explicit: string[] = [];
  const defaults: string[] = [];
  if (statSync(start, { throwIfNoEntry: false })?.isDirectory()) {
    for (const dialect of [7, 9] as const) {
      try {
        const found = pluginPath(root, start, dialect, option, defaultPath);
        if (found !== null) (found.explicit ? explicit : defaults).push(found.path);
      } catch (error) {
        if (!(error instanceof FreezegateError)) throw error;
      }
    }
  }
  return { explicit, defaults };
}

/**
 * Where the plugin writes the samples artifact of a run, in order: where pytest's settings put
 * it (the freezegate_samples ini key or a flag in addopts), else `.freezegate/samples.json` in
 * pytest's rootdir. Absolute paths, no repeats; empty when pytest could not read its settings.
 */
export function samplesCandidates(root: string, testRoot: string): string[] {
  const { explicit, defaults } = pluginPlaces(
    root,
    testRoot,
    SAMPLES_OPTION,
    ".freezegate/samples.json",
  );
  return [...new Set([...explicit, ...defaults])];
}

function pluginPath(
  root: string,
  start: string,
  dialect: PytestDialect,
  option: PluginPathOption,
  defaultPath: string,
): PluginLedger | null {
  const dirs = upTo(root, start);
  let located: LocatedPytestConfig | null;
  let setting: LedgerSetting | null = null;
  try {
    located = locatePytestConfig(dirs, dialect, (dir, name) =>
      isFile(join(dir, name)) ? readTextFile(join(dir, name), "pytest configuration") : null,
    );
  } catch (error) {
    if (!(error instanceof PytestConfigFileUnreadable)) throw error;
    return unreadableConfig(root, error.file, error.message);
  }
  if (located !== null) {
    try {
      setting = ledgerSetting(located.values, option);
    } catch (error) {
      if (!(error instanceof PytestConfigUnreadable)) throw error;
      return unreadableConfig(root, located, error.message);
    }
  }
  if (setting === null) {
    const rootdir = pytestRootdir(dirs, dialect, located, (dir, name) => isFile(join(dir, name)));
    return {
      path: join(rootdir, defaultPath),
      given: `${defaultPath} in pytest's rootdir, ${show(root, rootdir)}`,
      explicit: false,
    };
  }
  const config = located as LocatedPytestConfig;
  const label = show(root, join(config.dir, config.name));
  const section = label.slice(0, label.length - config.name.length) + config.section;
  return {
    path: resolve(setting.base === "ini" ? config.dir : start, setting.value),
    given: `${section} ${setting.given}`,
    explicit: true,
  };
}

/**
 * pytest stops on a config it cannot parse, and then runs nothing (null). Only where the file
 * mentions the plugin could the two parsers' difference hide a ledger: refused.
 */
function unreadableConfig(
  root: string,
  file: { dir: string; name: string; text: string },
  why: string,
): null {
  if (!/freezegate/i.test(file.text)) return null;
  const label = show(root, join(file.dir, file.name));
  throw refusal("plugin-config-unreadable", { file: label, why });
}

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

export interface LedgerAgreement {
  /** Repository root (absolute). */
  root: string;
  /** The directory pytest runs in, relative to the root ("" for the root). */
  testRoot: string;
  /** The ledger (or frozen list) the command judges (absolute). */
  ledgerPath: string;
  /** Who judges it, for the message: "check" or "the audit". */
  judge: string;
  /** How the user names the command's ledger, for the fix. */
  ledgerKey: string;
}

/**
 * Refuse (ConfigError) when pytest's configuration makes the plugin read another ledger than
 * `ledgerPath`: a setting that names another file, or a rootdir default that exists and is
 * another file. A missing test root is left to the command's own check.
 */
export function refuseForeignPluginLedger(a: LedgerAgreement): void {
  const start = resolve(a.root, a.testRoot);
  if (relative(a.root, start).startsWith("..")) return;
  if (!statSync(start, { throwIfNoEntry: false })?.isDirectory()) return;
  const judged = real(a.ledgerPath);
  for (const dialect of [9, 7] as const) {
    const plugin = pluginLedger(a.root, start, dialect);
    if (plugin === null || real(plugin.path) === judged) continue;
    if (!plugin.explicit && !existsSync(plugin.path)) continue;
    throw refusal("plugin-ledger-differs", {
      plugin: show(a.root, plugin.path),
      given: plugin.given,
      judge: a.judge,
      ledger: show(a.root, a.ledgerPath),
      ledgerKey: a.ledgerKey,
    });
  }
}

/** The applied record's place by the CI recipes: next to the samples artifact. */
export function appliedRecordBeside(samplesPath: string): string {
  return join(dirname(samplesPath), "applied.json");
}

export interface RecordAgreement extends LedgerAgreement {
  recordPath: string;
  /** The commit being judged: a record of another commit's run is not this run's. */
  headCommit: string;
  /** The judged ledger as parsed. */
  ledger: Ledger;
}

/** An applied record of the commit being judged, as read. */
export interface ThisRunsRecord {
  /** The record file as shown to users. */
  label: string;
  record: AppliedRecord;
}

/** An applied record of this commit's run, and how it disagrees with the judged list. */
export interface RecordComparison {
  thisRun: ThisRunsRecord;
  /** The run applied another list than the one judged (path, bytes, or a test it froze); null: it agrees. */
  disagreement: FreezegateError | null;
}

/** What compareAppliedRecord compares the record with: the judged list's ids. */
export type RecordQuestion = Omit<RecordAgreement, "ledger"> & { frozenIds: readonly string[] };

/**
 * The plugin's applied record of this commit's run against the list a command judges: does
 * the run say it applied another file (path or bytes) than that list, or froze a test the list
 * does not freeze? No record, or one made at another commit, is nothing to compare: null.
 */
export function compareAppliedRecord(a: RecordQuestion): RecordComparison | null {
  if (!isFile(a.recordPath)) return null;
  const label = show(a.root, a.recordPath);
  const record = parseAppliedRecord(
    readJsonFile(a.recordPath, "applied record", "regenerate it: run the tests again"),
    label,
  );
  if (record.commit !== a.headCommit) return null;
  const thisRun = { label, record };
  const disagree = (disagreement: FreezegateError) => ({ thisRun, disagreement });
  const judged = show(a.root, a.ledgerPath);
  const ran = isAbsolute(record.ledger.path)
    ? record.ledger.path
    : join(a.root, record.ledger.path);
  if (real(ran) !== real(a.ledgerPath)) {
    return disagree(
      refusal("tests-ran-other-ledger", {
        ran: record.ledger.path,
        record: label,
        judge: a.judge,
        ledger: judged,
        ledgerKey: a.ledgerKey,
      }),
    );
  }
  const sha = createHash("sha256").update(readFileBytes(a.ledgerPath, "ledger")).digest("hex");
  if (sha !== record.ledger.sha256) {
    return disagree(
      refusal("tests-ran-other-ledger-version", {
        ledger: judged,
        judge: a.judge,
        record: label,
        recorded: record.ledger.sha256,
        actual: sha,
      }),
    );
  }
  const { frozenTests } = resolveFrozen(frozenListOf(a.frozenIds), lookupOf(record.applied));
  const extra = record.applied.filter((id) => !frozenTests.has(id));
  if (extra.length > 0) {
    return disagree(
      refusal("tests-froze-more", {
        count: extra.length,
        ledger: judged,
        example: extra[0] as string,
        record: label,
        ledgerKey: a.ledgerKey,
      }),
    );
  }
  return { thisRun, disagreement: null };
}

/**
 * Refuse (InputError) when the plugin's applied record of this commit's run says it applied
 * another ledger (path or bytes) than the one judged, or froze a test that ledger does not
 * freeze (compareAppliedRecord). No record, or one made at another commit, is nothing to
 * compare: null. Else the record, for what else it says (see refuseDeselectedFrozen).
 */
export function refuseForeignAppliedRecord(a: RecordAgreement): ThisRunsRecord | null {
  const compared = compareAppliedRecord({
    ...a,
    frozenIds: a.ledger.freezes.map((f) => f.test_id),
  });
  if (compared?.disagreement) {
    throw compared.disagreement;
  }
  return compared?.thisRun ?? null;
}

/**
 * The applied record of this commit's run: the first found among `candidates` (see
 * recordCandidates), compared with the judged list. null: none found.
 */
export function recordOfThisRun(
  candidates: readonly string[],
  question: Omit<RecordQuestion, "recordPath">,
): RecordComparison | null {
  for (const recordPath of candidates) {
    const compared = compareAppliedRecord({ ...question, recordPath });
    if (compared !== null) return compared;
  }
  return null;
}

/**
 * Refuse (InputError) when the run did not run tests the ledger freezes (deselected: such a
 * test leaves no coverage context, so the lines only it runs would read "uncovered", not
 * "shadowed"), unless the coverage data has them all the same (`inData`: a CI that splits the
 * suite across jobs and combines their data ran them in another job).
 */
export function refuseDeselectedFrozen(
  thisRun: ThisRunsRecord,
  judged: string,
  inData: (id: string) => boolean,
): void {
  const deselected = (thisRun.record.deselectedFrozen ?? []).filter((id) => !inData(id));
  if (deselected.length === 0) return;
  throw refusal("frozen-tests-deselected", {
    count: deselected.length,
    ledger: judged,
    sample: sampleOf(deselected),
    record: thisRun.label,
  });
}
