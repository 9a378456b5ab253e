// The sweep record: what the randomized sweep (the pytest plugin's --freezegate-sweep, a
// nightly job off the merge path) found failing, at which seed, and the command that
// reproduces it. A property with a failure that came back when re-run at its seed is a
// reproduced defect: freezing it, or depositing it as a freeze's compensating property, turns
// a known bug into an unowned one. Such a failure stands until a sweep passes the property at
// that seed (the plugin then drops it from the record). Parsed strictly: a misread record
// would hide a defect.

import { withoutParameters } from "../runners/pytest/node-ids.js";
import { depositFindingOf } from "./deposits.js";
import type { Finding } from "./findings.js";
import { jsonValueText } from "./json-text.js";
import type { Ledger } from "./ledger-model.js";
import { refusal } from "./refusals/index.js";
import { frozenBy, frozenIds } from "./witness.js";

export const SWEEP_VERSION = 1;

/** Where the plugin writes the sweep record, relative to pytest's rootdir. */
export const DEFAULT_SWEEP_PATH = ".freezegate/sweep.json";

const COMMIT = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

export interface SweepFailure {
  testId: string;
  /** The Hypothesis seed it failed at; null for a test Hypothesis does not drive. */
  seed: number | null;
  examples: number | null;
  /** The pytest command (run in pytest's rootdir) that runs it again as the sweep did. */
  command: string;
  /** Hypothesis's own `@reproduce_failure(...)` line, when it printed one. */
  reproduceFailure: string | null;
  message: string;
  /** Failed again at its seed in a fresh pytest (true), passed there (false), unknown (null). */
  reproduced: boolean | null;
  /** The commit and time of the sweep that last saw it fail. */
  commit: string | null;
  foundAt: string;
}

export interface SweepRecord {
  label: string;
  commit: string | null;
  ledger: { path: string; sha256: string };
  sweptAt: string;
  failures: SweepFailure[];
}

const TOP_KEYS = [
  "version",
  "tool",
  "kind",
  "commit",
  "ledger",
  "swept_at",
  "hypothesis",
  "examples",
  "properties",
  "failures",
];
const FAILURE_KEYS = [
  "test_id",
  "seed",
  "examples",
  "command",
  "reproduce_failure",
  "message",
  "reproduced",
  "commit",
  "found_at",
];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function fail(label: string, at: string, problem: string): never {
  throw refusal("sweep-record-malformed", { label, at, problem });
}

function onlyKeys(value: Record<string, unknown>, allowed: string[], label: string, where: string) {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) fail(label, where, `has unknown key "${key}"`);
  }
  for (const key of allowed) {
    if (!(key in value)) fail(label, where, `lacks "${key}"`);
  }
}

function text(value: unknown, label: string, where: string, nullable = false): string | null {
  if (value === null && nullable) return null;
  if (typeof value !== "string" || value.trim() === "") {
    fail(label, where, `is ${jsonValueText(value)}, not a text`);
  }
  return value;
}

function commitOf(value: unknown, label: string, where: string): string | null {
  if (value !== null && (typeof value !== "string" || !COMMIT.test(value))) {
    fail(label, where, `is ${jsonValueText(value)}, not a full lowercase commit id or null`);
  }
  return value as string | null;
}

function wholeOrNull(value: unknown, label: string, where: string): number | null {
  if (value === null) return null;
  if (typeof value !== "number" || !Number.isSafeInteger(value) || value < 0) {
    fail(label, where, `is ${jsonValueText(value)}, not a whole number >= 0 or null`);
  }
  return value;
}

/** Parse a sweep record (already JSON-decoded). Throws InputError on anything unexpected. */
export function parseSweepRecord(value: unknown, label: string): SweepRecord {
  if (!isObject(value)) fail(label, "the top level", "must be a JSON object");
  if (value.kind !== "sweep") {
    fail(label, "the top level", `is not a sweep record ("kind" is ${jsonValueText(value.kind)})`);
  }
  if (value.version !== SWEEP_VERSION) {
    fail(
      label,
      '"version"',
      `is ${jsonValueText(value.version)}; this freezegate reads version ${SWEEP_VERSION}`,
    );
  }
  onlyKeys(value, TOP_KEYS, label, "the top level");
  const ledger = value.ledger;
  if (!isObject(ledger)) fail(label, '"ledger"', "must be {path, sha256}");
  onlyKeys(ledger, ["path", "sha256"], label, '"ledger"');
  if (!Array.isArray(value.failures)) fail(label, '"failures"', "must be a list");
  const failures = value.failures.map((raw: unknown, i: number): SweepFailure => {
    const at = `failures[${i}]`;
    if (!isObject(raw)) fail(label, at, "must be an object");
    onlyKeys(raw, FAILURE_KEYS, label, at);
    const reproduced = raw.reproduced;
    if (reproduced !== null && typeof reproduced !== "boolean") {
      fail(label, `${at}.reproduced`, `is ${jsonValueText(reproduced)}, not true, false or null`);
    }
    return {
      testId: text(raw.test_id, label, `${at}.test_id`) as string,
      seed: wholeOrNull(raw.seed, label, `${at}.seed`),
      examples: wholeOrNull(raw.examples, label, `${at}.examples`),
      command: text(raw.command, label, `${at}.command`) as string,
      reproduceFailure: text(raw.reproduce_failure, label, `${at}.reproduce_failure`, true),
      message: text(raw.message, label, `${at}.message`) as string,
      reproduced,
      commit: commitOf(raw.commit, label, `${at}.commit`),
      foundAt: text(raw.found_at, label, `${at}.found_at`) as string,
    };
  });
  return {
    label,
    commit: commitOf(value.commit, label, '"commit"'),
    ledger: {
      path: text(ledger.path, label, '"ledger.path"') as string,
      sha256: text(ledger.sha256, label, '"ledger.sha256"') as string,
    },
    sweptAt: text(value.swept_at, label, '"swept_at"') as string,
    failures,
  };
}

/**
 * The failures that stand against a property: every one except those that passed when re-run
 * at their seed (flaky, not reproduced). One the plugin could not re-run counts (fail closed).
 */
export function standingFailures(record: SweepRecord): SweepFailure[] {
  return record.failures.filter((f) => f.reproduced !== false);
}

/** The failure of a property test, or of one of its cases (`test_y[a]` for `test_y`). */
export function failureOf(id: string, failures: readonly SweepFailure[]): SweepFailure | null {
  return failures.find((f) => f.testId === id || withoutParameters(f.testId) === id) ?? null;
}

/** How a failure is named in a message: the seed, when and where, and the command. */
export function failureWords(f: SweepFailure): string {
  const seed = f.seed === null ? "" : ` at seed ${f.seed}`;
  const where = f.commit === null ? "" : ` of commit ${f.commit.slice(0, 12)}`;
  const again =
    f.reproduced === true ? "and again when re-run at that seed" : "(not re-run to confirm)";
  return `failed in the randomized sweep${seed} (${f.foundAt}, sweep${where}) ${again}: ${f.message}; reproduce: ${f.command}`;
}

function details(f: SweepFailure): Record<string, unknown> {
  return {
    failedTest: f.testId,
    seed: f.seed,
    command: f.command,
    reproduceFailure: f.reproduceFailure,
    commit: f.commit,
    foundAt: f.foundAt,
  };
}

/**
 * The deposit gate's findings from a sweep record: `frozen-sweep-failure` for a freeze whose
 * test (exact id, a glob, or a parametrized test one of whose cases failed) is a property the
 * sweep found failing, `deposit-sweep-failure` for a freeze whose compensating property is.
 * `known`: the suite's test ids, for freezes written as globs.
 */
export function sweepFindings(
  ledger: Ledger,
  failures: readonly SweepFailure[],
  known: ReadonlySet<string> | null,
): Finding[] {
  const findings: Finding[] = [];
  if (failures.length === 0) return findings;
  const frozenAs = frozenBy(
    frozenIds(ledger),
    failures.map((f) => f.testId),
    known,
  );
  for (const freeze of ledger.freezes) {
    const frozen =
      failures.find((f) => frozenAs.get(f.testId) === freeze.test_id) ??
      failureOf(freeze.test_id, failures);
    if (frozen !== null) {
      findings.push({
        ...depositFindingOf(freeze),
        code: "frozen-sweep-failure",
        message: `the freeze of ${freeze.test_id} freezes the property ${frozen.testId}, which ${failureWords(frozen)}: fix it instead of freezing it`,
        details: details(frozen),
      });
    }
    const property = freeze.compensating_property.trim();
    const deposited = property === "" ? null : failureOf(property, failures);
    if (deposited !== null) {
      findings.push({
        ...depositFindingOf(freeze),
        code: "deposit-sweep-failure",
        message: `the freeze of ${freeze.test_id} deposits ${property}, which ${failureWords(deposited)}: a broken property compensates nothing`,
        details: details(deposited),
      });
    }
  }
  return findings;
}
