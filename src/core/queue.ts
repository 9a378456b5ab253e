// The merge-queue check: refuse inherited skips. Every test run that
// applies the freeze ledger writes an applied record: which tests it froze, at which commit,
// from which ledger bytes. In a queue, a child entry's gate must re-derive its freezes from
// the ledger at its own commit; a skip that the child's ledger does not justify rode in from
// somewhere else (typically the parent entry's record) and is refused. This module parses
// records strictly and judges them; reading files and git is the command's business.
//
// The findings are reported under the gate name "queue". That name is deliberately not one of
// the ledger policy's GATES: no ledger policy can switch this check off, and adding it there
// would change every ledger freezegate writes.

import { daysBetween, isDay } from "./dates.js";
import type { Finding, FindingCode, GateResult } from "./findings.js";
import { lookupOf, resolveFrozen } from "./frozen.js";
import { jsonValueText } from "./json-text.js";
import type { Freeze, Ledger } from "./ledger-model.js";
import { refusal } from "./refusals/index.js";

/** The applied-record format version this build reads and the plugin writes. */
export const APPLIED_RECORD_VERSION = 1;

export const QUEUE_FINDING_CODES = [
  "inherited-skip",
  "stale-record",
] as const satisfies readonly FindingCode[];
export type QueueFindingCode = (typeof QUEUE_FINDING_CODES)[number];

/** A finding of the queue check: a gate finding whose gate is "queue". */
export interface QueueFinding extends Omit<Finding, "gate" | "code"> {
  gate: "queue";
  code: QueueFindingCode;
}

/** The queue check's result, shaped like every other gate result. */
export interface QueueResult extends Omit<GateResult, "gate" | "findings"> {
  gate: "queue";
  findings: QueueFinding[];
}

export type TestOutcome = "passed" | "failed" | "skipped";
export type ApplyMode = "run" | "skip";

/** What one test run did with the ledger (written by the pytest plugin at the end of a run). */
export interface AppliedRecord {
  version: typeof APPLIED_RECORD_VERSION;
  /** Who wrote it, e.g. "pytest-freezegate". */
  tool: string;
  /** The commit the run tested (git HEAD), or null when the runner could not tell. */
  commit: string | null;
  ledger: {
    /** The ledger file the run read, as the runner names it. */
    path: string;
    /** sha256 of the ledger file's bytes, lowercase hex. */
    sha256: string;
  };
  /** run: frozen tests ran without gating; skip: they were skipped. */
  mode: ApplyMode;
  /** Node ids the run applied freezes to (unique, in the file's order). */
  applied: string[];
  /** Node ids frozen by the ledger but not applied because the freeze had expired. */
  expired: string[];
  /** Node id -> how the test ended in the run. */
  outcomes: Record<string, TestOutcome>;
  /**
   * Node ids an xfail the run did not apply (a marker from anywhere, or pytest.xfail())
   * turned into xfailed or xpassed: their failures cannot fail the run either. Absent: the
   * record does not say (plugins before it wrote no such key).
   */
  muted?: string[];
  /**
   * Node ids the ledger freezes that the run collected but did not run (deselected, or
   * dropped by a hook): they leave no coverage context. Absent: the record does not say.
   */
  deselectedFrozen?: string[];
  /**
   * Node ids the run did not freeze that a skip stopped (a marker, or pytest.skip() in the
   * body): they witnessed nothing. Absent: the record does not say.
   */
  skipped?: string[];
}

const RECORD_KEYS = [
  "version",
  "tool",
  "commit",
  "ledger",
  "mode",
  "applied",
  "expired",
  "outcomes",
] as const;
/** Keys a record may leave out (older plugins wrote none of them). */
const OPTIONAL_RECORD_KEYS = ["muted", "deselected_frozen", "skipped"] as const;
const ALL_RECORD_KEYS: readonly string[] = [...RECORD_KEYS, ...OPTIONAL_RECORD_KEYS];
const SHA1_OR_256 = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;
const SHA256 = /^[0-9a-f]{64}$/;
const OUTCOMES: readonly string[] = ["passed", "failed", "skipped"];

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function show(value: unknown): string {
  if (value === undefined) return "missing";
  if (value === null) return "null";
  if (Array.isArray(value)) return "a list";
  if (typeof value === "object") return "an object";
  const text = jsonValueText(value);
  return text.length > 50 ? `${text.slice(0, 50)}...` : text;
}

/**
 * Parse an applied record (already JSON-decoded). Strict: a missing or unknown key, a wrong
 * type, an unknown version or mode, or an id listed as both applied and expired is an
 * InputError naming the file and the JSON path. A misread record would wave skips through.
 */
export function parseAppliedRecord(value: unknown, label: string): AppliedRecord {
  const fail = (at: string, problem: string): never => {
    throw refusal("applied-record-malformed", { label, at, problem });
  };
  if (!isObject(value)) return fail("$", `is ${show(value)}, not a JSON object`);
  const version = value.version;
  if (typeof version === "number" && version > APPLIED_RECORD_VERSION) {
    throw refusal("applied-record-too-new", {
      label,
      version: show(version),
      readable: APPLIED_RECORD_VERSION,
    });
  }
  if (version !== APPLIED_RECORD_VERSION) {
    fail(
      "$.version",
      `is ${show(version)}; this freezegate reads applied records of version ${APPLIED_RECORD_VERSION}`,
    );
  }
  for (const key of RECORD_KEYS) {
    if (!(key in value)) fail("$", `has no "${key}"`);
  }
  for (const key of Object.keys(value)) {
    if (!ALL_RECORD_KEYS.includes(key)) {
      fail("$", `has an unknown key "${key}" (allowed: ${ALL_RECORD_KEYS.join(", ")})`);
    }
  }
  const tool = value.tool;
  if (typeof tool !== "string" || tool.trim() === "") {
    fail("$.tool", `is ${show(tool)}, not the name of the tool that wrote the record`);
  }
  const commit = value.commit;
  if (commit !== null && (typeof commit !== "string" || !SHA1_OR_256.test(commit))) {
    fail("$.commit", `is ${show(commit)}, not a full lowercase commit id or null`);
  }
  const ledger = value.ledger;
  if (!isObject(ledger)) return fail("$.ledger", `is ${show(ledger)}, not an object`);
  for (const key of Object.keys(ledger)) {
    if (key !== "path" && key !== "sha256") {
      fail("$.ledger", `has an unknown key "${key}" (allowed: path, sha256)`);
    }
  }
  if (typeof ledger.path !== "string" || ledger.path.trim() === "") {
    fail("$.ledger.path", `is ${show(ledger.path)}, not a file path`);
  }
  if (typeof ledger.sha256 !== "string" || !SHA256.test(ledger.sha256)) {
    fail("$.ledger.sha256", `is ${show(ledger.sha256)}, not a lowercase hex sha256`);
  }
  const mode = value.mode;
  if (mode !== "run" && mode !== "skip") fail("$.mode", `is ${show(mode)}, not "run" or "skip"`);
  const ids = (key: "applied" | "expired" | (typeof OPTIONAL_RECORD_KEYS)[number]): string[] => {
    const list = value[key];
    if (!Array.isArray(list)) return fail(`$.${key}`, `is ${show(list)}, not a list of test ids`);
    return [
      ...new Set(
        list.map((item, i) => {
          if (typeof item !== "string" || item.trim() === "") {
            fail(`$.${key}[${i}]`, `is ${show(item)}, not a test id`);
          }
          return item as string;
        }),
      ),
    ];
  };
  const applied = ids("applied");
  const expired = ids("expired");
  const both = applied.find((id) => expired.includes(id));
  if (both !== undefined) {
    fail("$", `lists "${both}" as both applied and expired; a freeze is one or the other`);
  }
  const outcomesValue = value.outcomes;
  if (!isObject(outcomesValue)) {
    return fail("$.outcomes", `is ${show(outcomesValue)}, not an object of test id -> outcome`);
  }
  const outcomes: Record<string, TestOutcome> = {};
  for (const [id, outcome] of Object.entries(outcomesValue)) {
    if (typeof outcome !== "string" || !OUTCOMES.includes(outcome)) {
      fail(
        `$.outcomes[${JSON.stringify(id)}]`,
        `is ${show(outcome)}, not "passed", "failed" or "skipped"`,
      );
    }
    outcomes[id] = outcome as TestOutcome;
  }
  return {
    version: APPLIED_RECORD_VERSION,
    tool: tool as string,
    commit: commit as string | null,
    ledger: { path: ledger.path as string, sha256: ledger.sha256 as string },
    mode: mode as ApplyMode,
    applied,
    expired,
    outcomes,
    ...("muted" in value ? { muted: ids("muted") } : {}),
    ...("deselected_frozen" in value ? { deselectedFrozen: ids("deselected_frozen") } : {}),
    ...("skipped" in value ? { skipped: ids("skipped") } : {}),
  };
}

// ---------------------------------------------------------------------------------------------
// The check.

export interface QueueRecord {
  /** The record file as shown to users. */
  label: string;
  record: AppliedRecord;
}

export interface QueueCheckInput {
  /** The previous queue entry's record. */
  parent: QueueRecord & {
    /**
     * sha256 of the ledger checked in at the parent record's commit (null: no ledger there).
     * Ignored when the parent record names no commit.
     */
    checkedInSha256: string | null;
  };
  /** The record of the entry being gated. */
  child: QueueRecord;
  /** The commit being gated (full id). */
  gatedCommit: string;
  /** The ledger's repository path. */
  ledgerPath: string;
  /** The ledger checked in at the gated commit: its bytes' sha256 and its parse; null: none. */
  childLedger: { sha256: string; ledger: Ledger } | null;
  /** Ids exempted by --allow (a release-branch freeze with a named approver, say). */
  allow: readonly string[];
  /** YYYY-MM-DD (UTC): freezes that expired before this day justify nothing. */
  today: string;
}

export interface QueueCheck {
  result: QueueResult;
  /** What the report should say about the inputs. */
  notes: string[];
}

const short = (sha: string) => sha.slice(0, 12);

/** The record's commit as shown: its short id, or a phrase when it names none. */
function commitText(record: AppliedRecord): string {
  return record.commit === null ? "no commit" : `commit ${short(record.commit)}`;
}

/** Why a freeze of `id` in the child's ledger does or does not justify applying it. */
type Justification =
  | { ok: true; freezes: Freeze[] }
  | { ok: false; reason: "not-frozen" }
  | { ok: false; reason: "expired"; expires: string }
  | { ok: false; reason: "bad-expiry"; expires: string };

/** For each applied id: whether an unexpired freeze in `ledger` covers it (exactly or by glob). */
function justify(
  ledger: Ledger | null,
  ids: readonly string[],
  today: string,
): Map<string, Justification> {
  const out = new Map<string, Justification>();
  const byPattern = new Map<string, Freeze[]>();
  for (const freeze of ledger?.freezes ?? []) {
    if (freeze.test_id.trim() === "") continue;
    byPattern.set(freeze.test_id, [...(byPattern.get(freeze.test_id) ?? []), freeze]);
  }
  // The audit's own matching (exact ids, "*" globs), so the two can never disagree.
  const { matches } = resolveFrozen(
    {
      format: "ledger",
      entries: [...byPattern.keys()].map((pattern) => ({
        pattern,
        isGlob: pattern.includes("*"),
      })),
    },
    lookupOf(ids),
  );
  const covering = new Map<string, Freeze[]>();
  for (const [pattern, matched] of matches) {
    for (const id of matched) {
      covering.set(id, [...(covering.get(id) ?? []), ...(byPattern.get(pattern) ?? [])]);
    }
  }
  for (const id of ids) {
    const freezes = covering.get(id) ?? [];
    if (freezes.length === 0) {
      out.set(id, { ok: false, reason: "not-frozen" });
      continue;
    }
    // Only a freeze whose expiry can be read justifies a skip: an expiry that is not a real
    // YYYY-MM-DD day (full-width digits, "soon", a blank) could hide a freeze that ended long
    // ago, so it justifies nothing here even when the runner applied it. A quarantine list and a
    // properties file carry no dates at all: their freezes stand until removed, as the runner
    // reads them.
    const undated =
      ledger?.source === "seed-000-quarantine" || ledger?.source === "seed-003-properties";
    const live = freezes.filter((f) =>
      isDay(f.expires) ? daysBetween(f.expires, today) <= 0 : undated && f.expires === "",
    );
    const dated = freezes.filter((f) => isDay(f.expires));
    if (live.length > 0) out.set(id, { ok: true, freezes: live });
    else if (dated.length > 0) {
      const last = dated.map((f) => f.expires).sort();
      out.set(id, { ok: false, reason: "expired", expires: last[last.length - 1] as string });
    } else {
      out.set(id, { ok: false, reason: "bad-expiry", expires: (freezes[0] as Freeze).expires });
    }
  }
  return out;
}

function byText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Stable order: stale records first (child, then parent), then skips by test id. */
function sortQueueFindings(findings: QueueFinding[]): QueueFinding[] {
  const key = (f: QueueFinding) =>
    `${f.code === "stale-record" ? 0 : 1}\u0000${String(f.details?.record ?? "")}\u0000${String(f.details?.problem ?? "")}\u0000${f.testId ?? ""}`;
  return [...findings].sort((a, b) => byText(key(a), key(b)));
}

/**
 * Judge the child's applied record against the ledger at the gated commit, with the parent's
 * record for naming inheritance. Throws UsageError when an --allow id is in no record.
 */
export function checkQueue(input: QueueCheckInput): QueueCheck {
  refuseUnknownAllow(input);
  const skips = inheritedSkips(input);
  const findings = [...staleChildRecord(input), ...staleParentRecord(input), ...skips.findings];
  return {
    result: {
      gate: "queue",
      blocking: true,
      ran: true,
      findings: sortQueueFindings(findings),
    },
    notes: inputNotes(input, skips.allowNotes),
  };
}

/** An --allow id that neither record applied is a typo, or allows nothing: refused. */
function refuseUnknownAllow({ parent, child, allow }: QueueCheckInput): void {
  const inRecords = new Set([...parent.record.applied, ...child.record.applied]);
  const unknownAllow = [...new Set(allow)].filter((id) => !inRecords.has(id));
  if (unknownAllow.length > 0) {
    throw refusal("allow-not-in-records", {
      ids: unknownAllow.map((id) => `"${id}"`).join(", "),
      parent: parent.label,
      child: child.label,
    });
  }
}

function staleRecord(message: string, details: Record<string, unknown>): QueueFinding {
  return { gate: "queue", code: "stale-record", severity: "error", message, details };
}

/** The child's record must come from the gated commit and the ledger checked in there. */
function staleChildRecord(input: QueueCheckInput): QueueFinding[] {
  const { child, gatedCommit, ledgerPath, childLedger } = input;
  const c = child.record;
  const findings: QueueFinding[] = [];
  if (c.commit === null) {
    findings.push(
      staleRecord(
        `the child's record ${child.label} does not say which commit it was made at, so it cannot vouch for ${short(gatedCommit)}`,
        { record: "child", problem: "commit", recordCommit: null, gatedCommit },
      ),
    );
  } else if (c.commit !== gatedCommit) {
    findings.push(
      staleRecord(
        `the child's record ${child.label} was made at commit ${short(c.commit)}, not at the commit being gated (${short(gatedCommit)})`,
        { record: "child", problem: "commit", recordCommit: c.commit, gatedCommit },
      ),
    );
  }
  if (childLedger === null) {
    findings.push(
      staleRecord(
        `the child's record ${child.label} was made with a ledger (sha256 ${short(c.ledger.sha256)}), but commit ${short(gatedCommit)} has no ${ledgerPath}`,
        {
          record: "child",
          problem: "ledger",
          recordSha256: c.ledger.sha256,
          checkedInSha256: null,
        },
      ),
    );
  } else if (childLedger.sha256 !== c.ledger.sha256) {
    findings.push(
      staleRecord(
        `the child's record ${child.label} was made with a different ledger (${c.ledger.path}, sha256 ${short(c.ledger.sha256)}) than the ${ledgerPath} checked in at ${short(gatedCommit)} (sha256 ${short(childLedger.sha256)})`,
        {
          record: "child",
          problem: "ledger",
          recordSha256: c.ledger.sha256,
          checkedInSha256: childLedger.sha256,
        },
      ),
    );
  }
  return findings;
}

/** The parent's record must name its commit, and the ledger checked in there. */
function staleParentRecord({ parent, ledgerPath }: QueueCheckInput): QueueFinding[] {
  const p = parent.record;
  if (p.commit === null) {
    return [
      staleRecord(
        `the parent's record ${parent.label} does not say which commit it was made at, so its ledger cannot be checked`,
        { record: "parent", problem: "commit", recordCommit: null },
      ),
    ];
  }
  if (parent.checkedInSha256 === p.ledger.sha256) return [];
  return [
    staleRecord(
      parent.checkedInSha256 === null
        ? `the parent's record ${parent.label} was made with a ledger (sha256 ${short(p.ledger.sha256)}), but its commit ${short(p.commit)} has no ${ledgerPath}`
        : `the parent's record ${parent.label} was made with a different ledger (sha256 ${short(p.ledger.sha256)}) than the ${ledgerPath} checked in at its commit ${short(p.commit)} (sha256 ${short(parent.checkedInSha256)})`,
      {
        record: "parent",
        problem: "ledger",
        recordCommit: p.commit,
        recordSha256: p.ledger.sha256,
        checkedInSha256: parent.checkedInSha256,
      },
    ),
  ];
}

/**
 * Every freeze the child applied must be one its own ledger makes today; one it does not is an
 * inherited skip (an error, or information when --allow names it). Also what the report says
 * about an --allow that was not needed.
 */
function inheritedSkips(input: QueueCheckInput): {
  findings: QueueFinding[];
  allowNotes: string[];
} {
  const { parent, child, gatedCommit, childLedger, today } = input;
  const allow = new Set(input.allow);
  const c = child.record;
  const p = parent.record;
  const parentApplied = new Set(p.applied);
  const verdicts = justify(childLedger?.ledger ?? null, c.applied, today);
  const findings: QueueFinding[] = [];
  const allowNotes: string[] = [];
  for (const id of [...c.applied].sort(byText)) {
    const verdict = verdicts.get(id);
    if (verdict === undefined || verdict.ok) {
      if (allow.has(id)) {
        allowNotes.push(
          `--allow ${id}: not needed, the ledger at ${short(gatedCommit)} freezes it`,
        );
      }
      continue;
    }
    const why = notJustifiedBecause(input, verdict);
    const inherited = parentApplied.has(id);
    const source = inherited
      ? `the parent's record ${parent.label} (${commitText(p)}) applied the same freeze: the skip was inherited`
      : "the parent's record did not apply it either: the skip came from outside the ledger";
    const outcome = c.outcomes[id];
    const details: Record<string, unknown> = {
      reason: verdict.reason,
      ...(verdict.reason === "expired" || verdict.reason === "bad-expiry"
        ? { expires: verdict.expires, today }
        : {}),
      inheritedFrom: inherited ? { record: parent.label, commit: p.commit } : null,
      outcome: outcome ?? null,
      mode: c.mode,
    };
    if (allow.has(id)) {
      findings.push({
        gate: "queue",
        code: "inherited-skip",
        severity: "info",
        message: `${id} was frozen in the child's run although ${why}; allowed by --allow`,
        testId: id,
        details: { ...details, allowed: true },
      });
      continue;
    }
    findings.push({
      gate: "queue",
      code: "inherited-skip",
      severity: "error",
      message: `${id} was frozen in the child's run (${c.mode === "skip" ? "skipped" : `ran without gating${outcome ? `, ${outcome}` : ""}`}), but ${why}; ${source}`,
      testId: id,
      details: { ...details, allowed: false },
    });
  }
  for (const id of [...allow].sort(byText)) {
    if (!c.applied.includes(id)) {
      allowNotes.push(`--allow ${id}: only the parent's record applied it; the child ran it`);
    }
  }
  return { findings, allowNotes };
}

/** Why the child's ledger does not justify a freeze the child applied. */
function notJustifiedBecause(
  { gatedCommit, ledgerPath, childLedger, today }: QueueCheckInput,
  verdict: Extract<Justification, { ok: false }>,
): string {
  switch (verdict.reason) {
    case "expired":
      return `its freeze in ${ledgerPath} at ${short(gatedCommit)} expired on ${verdict.expires} (today is ${today})`;
    case "bad-expiry":
      return `its freeze in ${ledgerPath} at ${short(gatedCommit)} has expires ${JSON.stringify(verdict.expires)}, which is not a real YYYY-MM-DD day, so it justifies nothing`;
    case "not-frozen":
      return childLedger === null
        ? `commit ${short(gatedCommit)} has no ${ledgerPath}`
        : `${ledgerPath} at ${short(gatedCommit)} does not freeze it`;
  }
}

/** What the report says about the records and the ledger the check read. */
function inputNotes(input: QueueCheckInput, allowNotes: readonly string[]): string[] {
  const { parent, child, gatedCommit, ledgerPath, childLedger, today } = input;
  const c = child.record;
  const p = parent.record;
  const notes = [
    `child record ${child.label}: ${commitText(c)}, mode ${c.mode}, ${c.applied.length} applied, ${c.expired.length} expired (written by ${c.tool})`,
    `parent record ${parent.label}: ${commitText(p)}, mode ${p.mode}, ${p.applied.length} applied, ${p.expired.length} expired (written by ${p.tool})`,
    childLedger === null
      ? `gated commit ${short(gatedCommit)} has no ${ledgerPath}: it freezes nothing`
      : `gated commit ${short(gatedCommit)}: ${ledgerPath} (sha256 ${short(childLedger.sha256)}) freezes ${childLedger.ledger.freezes.length} test${childLedger.ledger.freezes.length === 1 ? "" : "s"}; expiry judged on ${today}`,
    ...allowNotes,
  ];
  if (JSON.stringify(p) === JSON.stringify(c)) {
    notes.push("the child's record has the same content as the parent's: it was reused");
  }
  if (c.ledger.path !== ledgerPath) {
    notes.push(
      `the child's record names the ledger ${c.ledger.path}; the ledger checked here is ${ledgerPath} (their contents are compared)`,
    );
  }
  return notes;
}

/** 1 when the check has an error finding, else 0. */
export function queueExitCode(result: QueueResult): number {
  return result.findings.some((f) => f.severity === "error") ? 1 : 0;
}
