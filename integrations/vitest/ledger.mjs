// The freeze ledger in Vitest's main process: read it with freezegate's own reader, hand the
// freezes in force to the workers (ledger-runner.mjs applies them), and at the end of the run
// gather what every worker reported, print the summary, and write the applied record
// (`.freezegate/applied.json`, docs/merge-queue.md) and the samples artifact
// (`.freezegate/samples.json`, docs/samples-artifact.md) with the pytest plugin's schemas, so
// that `freezegate queue check` and `freezegate check --samples` read them unchanged.
//
// Ledger parsing, day arithmetic and id matching are freezegate's (imported from the
// package); what is here is what a test runner adds: which freezes it applies, and what it did.

import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  existsSync,
  mkdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import {
  daysBetween,
  FreezegateError,
  frozenListOf,
  globToRegExp,
  isDay,
  lookupOf,
  parseAppliedRecord,
  parseSamples,
  readLedgerFile,
  resolveFrozen,
  todayUtc,
  utcDayOfInstant,
} from "freezegate";
import { LEDGER_META_KEY, PROVIDE_KEY } from "./keys.mjs";

export const TOOL = "vitest-freezegate";
const RECORD_VERSION = 1;
const SAMPLES_VERSION = 2;
export const DEFAULT_LEDGER = "freeze-ledger.json";
export const DEFAULT_RECORD = ".freezegate/applied.json";
export const DEFAULT_SAMPLES = ".freezegate/samples.json";
const MODES = ["run", "skip"];
const RANK = { passed: 0, skipped: 1, failed: 2 };

const posix = (p) => p.split("\\").join("/");

/** `path` relative to `base` when inside it (with "/"), else absolute. */
function display(path, base) {
  const rel = relative(base, path);
  return rel === "" || rel.startsWith("..") || isAbsolute(rel) ? posix(path) : posix(rel);
}

export class LedgerSetupError extends Error {
  constructor(message, fix) {
    super(`freezegate: ${message} (fix: ${fix})`);
    this.name = "FreezegateError";
    // The message says what to do; a stack would only hide it.
    this.stack = `${this.name}: ${this.message}`;
  }
}

function git(args, cwd) {
  try {
    const out = execFileSync("git", args, {
      cwd,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    }).trim();
    return out === "" ? null : out;
  } catch {
    return null;
  }
}

/** (work tree root, HEAD) of the repository `start` is in; nulls when unknown. */
function gitFacts(start) {
  const top = git(["rev-parse", "--show-toplevel"], start);
  if (top === null) return { top: null, commit: null };
  return { top, commit: git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], start) };
}

function describeFreeze(f) {
  const owner = f.owner ? `owner ${f.owner}` : "no owner";
  const expires = f.expires ? `expires ${f.expires}` : "no expiry";
  return `${owner}, ${expires}`;
}

/** A freeze applies through its expires day; one without a date never expires here. */
function expiredOn(freeze, today) {
  return freeze.expires !== "" && daysBetween(freeze.expires, today) > 0;
}

/** What a runner cannot apply without guessing, which the CLI leaves to its shape gate. */
function refuseUnapplicable(freezes, label) {
  const seen = new Map();
  freezes.forEach((f, i) => {
    const name = `ledger ${label}: freeze #${i + 1}`;
    if (f.test_id.trim() === "") {
      throw new LedgerSetupError(
        `${name} has no test_id, so it is unknown which test it freezes`,
        "write the frozen test's id (FILE::SUITE > TEST) in test_id, or remove the entry",
      );
    }
    if (f.test_id !== f.test_id.trim()) {
      throw new LedgerSetupError(
        `${name} has test_id "${f.test_id}" with leading or trailing spaces`,
        "write the test id exactly as freezegate names it: FILE::SUITE > TEST",
      );
    }
    for (const field of ["opened", "expires"]) {
      if (f[field] !== "" && !isDay(f[field])) {
        throw new LedgerSetupError(
          `${name} (${f.test_id}) has ${field} "${f[field]}", which is not a real YYYY-MM-DD day`,
          `write a real day such as 2026-10-26 in ${field}`,
        );
      }
    }
    const first = seen.get(f.test_id);
    if (first !== undefined) {
      throw new LedgerSetupError(
        `ledger ${label}: ${f.test_id} is frozen twice (freezes #${first + 1} and #${i + 1})`,
        "keep one entry per test",
      );
    }
    seen.set(f.test_id, i);
  });
}

function readJson(path) {
  try {
    return JSON.parse(readFileSync(path, "utf8"));
  } catch {
    return null;
  }
}

/** Writable at the end, and nothing of an earlier run left that could pass for this run's. */
function prepareOutput(path, what, label) {
  const fix = `give the reporter's "${what === "applied record" ? "record" : "samples"}" option a path in a writable directory`;
  if (statSync(path, { throwIfNoEntry: false })?.isDirectory()) {
    throw new LedgerSetupError(`the ${what} path ${label} is a directory`, fix);
  }
  try {
    mkdirSync(dirname(path), { recursive: true });
    const probe = join(dirname(path), `.${process.pid}.probe`);
    writeFileSync(probe, "");
    rmSync(probe);
    rmSync(path, { force: true });
  } catch (error) {
    throw new LedgerSetupError(`cannot write the ${what} ${label}: ${error.message}`, fix);
  }
}

function writeJsonAtomic(path, value) {
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(value, null, 2)}\n`);
  renameSync(temp, path);
}

/** The settings of one run: reporter options first, then the environment, then defaults. */
function settings(options, root) {
  const mode = options.mode ?? process.env.FREEZEGATE_VITEST_MODE ?? "run";
  if (!MODES.includes(mode)) {
    throw new LedgerSetupError(
      `unknown ledger mode "${mode}"`,
      'use "run" (frozen tests run, their failures do not fail the run) or "skip"',
    );
  }
  let today;
  if (options.today !== undefined) {
    if (!isDay(String(options.today))) {
      throw new LedgerSetupError(
        `the reporter's "today" option "${options.today}" is not a real day written YYYY-MM-DD`,
        'write e.g. today: "2026-10-18"',
      );
    }
    today = String(options.today);
  } else if (process.env.FREEZEGATE_NOW) {
    today = utcDayOfInstant(process.env.FREEZEGATE_NOW);
    if (today === null) {
      throw new LedgerSetupError(
        `FREEZEGATE_NOW "${process.env.FREEZEGATE_NOW}" is not a date and time`,
        "unset it, or write an ISO instant such as 2026-10-18T23:30:00Z",
      );
    }
  } else today = todayUtc();
  const given = options.ledger ?? process.env.FREEZEGATE_VITEST_LEDGER;
  const path = (value, fallback) => resolve(root, value ?? fallback);
  return {
    mode,
    today,
    ledger: path(given, DEFAULT_LEDGER),
    ledgerGiven: given !== undefined,
    record: path(options.record ?? process.env.FREEZEGATE_VITEST_RECORD, DEFAULT_RECORD),
    samples: path(options.samples ?? process.env.FREEZEGATE_VITEST_SAMPLES, DEFAULT_SAMPLES),
  };
}

export class LedgerSession {
  constructor(options = {}) {
    this.options = options;
    this.active = false;
  }

  /** Reads the ledger and hands the freezes in force to the workers. Throws on bad input. */
  init(ctx) {
    this.ctx = ctx;
    const root = ctx.config.root;
    this.root = root;
    const provide = (value) => (ctx.getRootProject?.()?.provide ?? ctx.provide)(PROVIDE_KEY, value);
    const s = settings(this.options, root);
    this.settings = s;
    const label = display(s.ledger, root);
    this.ledgerLabel = label;
    if (!existsSync(s.ledger)) {
      if (s.ledgerGiven) {
        throw new LedgerSetupError(
          `ledger not found: ${label}`,
          "check the reporter's ledger option (or FREEZEGATE_VITEST_LEDGER), or drop it to use freeze-ledger.json at the Vitest root",
        );
      }
      this.inactive = `no ledger at ${label}: frozen tests are not applied`;
      provide({ active: false });
      return;
    }
    const targets = new Set([s.ledger, s.record, s.samples]);
    if (targets.size < 3) {
      throw new LedgerSetupError(
        `the ledger, the applied record and the samples artifact must be three different files (ledger ${label}, record ${display(s.record, root)}, samples ${display(s.samples, root)})`,
        'give the reporter\'s "record" and "samples" options their own paths',
      );
    }
    try {
      this.sha256 = createHash("sha256").update(readFileSync(s.ledger)).digest("hex");
    } catch (error) {
      throw new LedgerSetupError(
        `cannot read the ledger ${label}: ${error.message}`,
        "check the path",
      );
    }
    // An earlier run's outputs are read (to add up with), then removed before anything else
    // can stop this run: a run that stops leaves no record that could pass for its own.
    this.readEarlier();
    prepareOutput(s.record, "applied record", display(s.record, root));
    prepareOutput(s.samples, "samples artifact", display(s.samples, root));
    let ledger;
    try {
      ledger = readLedgerFile(s.ledger);
    } catch (error) {
      if (error instanceof FreezegateError) {
        throw new LedgerSetupError(
          error.message.replace(s.ledger, label),
          error.fix ?? "fix the ledger",
        );
      }
      throw error;
    }
    refuseUnapplicable(ledger.freezes, label);
    this.freezes = ledger.freezes;
    this.expired = this.freezes.filter((f) => expiredOn(f, s.today));
    this.inForce = this.freezes.filter((f) => !expiredOn(f, s.today));
    this.properties = new Set(this.freezes.map((f) => f.compensating_property).filter(Boolean));
    this.active = true;
    provide({
      active: true,
      mode: s.mode,
      rules: this.freezes
        .map((f, index) => ({ f, index }))
        .filter(({ f }) => !expiredOn(f, s.today))
        .map(({ f, index }) => {
          const glob = f.test_id.includes("*") ? globToRegExp(f.test_id) : null;
          return {
            index,
            pattern: f.test_id,
            describe: describeFreeze(f),
            glob: glob ? { source: glob.source, flags: glob.flags } : null,
          };
        }),
    });
  }

  /**
   * The record and samples an earlier run left, read before they are removed: several
   * Vitest runs of one commit (shards run one after another, or unit tests then properties)
   * add up, as pytest runs do with the pytest plugin.
   */
  readEarlier() {
    const s = this.settings;
    const record = readJson(s.record);
    const samples = readJson(s.samples);
    this.earlier = null;
    if (record?.tool !== TOOL || samples?.tool !== TOOL) return;
    const { top, commit } = gitFacts(this.root);
    this.gitTop = top;
    const ledger = { path: this.ledgerRecordPath(top), sha256: this.sha256 };
    if (commit === null || record.commit !== commit || samples.commit !== commit) return;
    if (record.ledger?.path !== ledger.path || record.ledger?.sha256 !== ledger.sha256) return;
    if (record.mode !== s.mode) {
      const r = display(s.record, this.root);
      throw new LedgerSetupError(
        `an earlier run at this commit wrote ${r} in mode ${record.mode}, and this run is in mode ${s.mode}: the coverage data may hold both runs, and a record of one alone would hide what the other muted or skipped`,
        `run every Vitest run of a commit in one ledger mode, or remove ${r} and ${display(s.samples, this.root)} first`,
      );
    }
    this.earlier = { record, samples };
  }

  ledgerRecordPath(top) {
    return top !== null ? display(this.settings.ledger, top) : posix(this.settings.ledger);
  }

  /** At the end of the run: gathers the workers' reports, writes the outputs, prints the summary. */
  finish(modules, reason) {
    if (!this.active) {
      if (this.inactive) this.log(`freezegate: ${this.inactive}`);
      return;
    }
    const entries = [];
    const collectedFiles = new Set();
    const notes = new Set();
    for (const module of modules) {
      const data = module.task?.meta?.[LEDGER_META_KEY];
      if (!data) continue;
      if (data.collected) collectedFiles.add(data.file);
      for (const note of data.notes ?? []) notes.add(note);
      for (const t of data.tests) entries.push(t);
    }
    const lines = [];
    const say = (line) => lines.push(line);
    const s = this.settings;
    say(
      `freezegate: ledger ${this.ledgerLabel}, mode ${s.mode}, today ${s.today}: ${this.summaryCount(entries)}`,
    );
    const problem = this.unmatched(entries, collectedFiles) ?? this.disagreement(entries);
    if (problem !== null) {
      for (const line of lines) this.log(line);
      this.log(problem);
      this.log("no record written: the ledger could not be applied as written");
      process.exitCode = 1;
      return;
    }
    const result = this.result(entries, reason);
    this.summary(result, say);
    for (const note of notes) say(`note: ${note}`);
    try {
      this.write(result, say);
    } catch (error) {
      say(`no record written: ${error.message}`);
      process.exitCode = 1;
    }
    for (const line of lines) this.log(line);
  }

  log(line) {
    this.ctx.logger.log(line);
  }

  summaryCount(entries) {
    const applied = new Set(
      entries.filter((e) => e.frozen !== null && !e.filtered).map((e) => e.id),
    );
    const n = applied.size;
    const x = this.expired.length;
    return `${n} frozen test${n === 1 ? "" : "s"} in this run, ${x} expired freeze${x === 1 ? "" : "s"}`;
  }

  /** Ledger ids that match no test of a test file this run collected (or of no file at all). */
  unmatched(entries, collectedFiles) {
    const ids = [...new Set(entries.map((e) => e.id))];
    const { matches } = resolveFrozen(
      frozenListOf(this.freezes.map((f) => f.test_id)),
      lookupOf(ids),
    );
    const files = [...collectedFiles];
    const problems = [];
    for (const f of this.freezes) {
      if ((matches.get(f.test_id) ?? []).length > 0) continue;
      const cut = f.test_id.indexOf("::");
      const filePart = cut < 0 ? f.test_id : f.test_id.slice(0, cut);
      if (filePart.includes("*")) {
        const { frozenTests } = resolveFrozen(frozenListOf([filePart]), lookupOf(files));
        if (frozenTests.size === 0) continue;
      } else if (!collectedFiles.has(filePart) && existsSync(join(this.root, filePart))) {
        // A run of some of the files says nothing about the others.
        continue;
      }
      const gone = !filePart.includes("*") && !existsSync(join(this.root, filePart));
      problems.push(`${f.test_id}${gone ? ` (no file ${filePart})` : ""}`);
    }
    if (problems.length === 0) return null;
    const n = problems.length;
    return `freezegate: ledger ${this.ledgerLabel}: ${n} frozen test id${n === 1 ? "" : "s"} match${n === 1 ? "es" : ""} no test of this run: ${problems.join("; ")} (fix: correct the ids, FILE::SUITE > TEST with the file relative to the Vitest root, as in .freezegate/vitest-coverage.jsonl, or remove the freezes of tests that no longer exist)`;
  }

  /**
   * The workers matched ids file by file; freezegate's matcher over the whole run must agree
   * (a "*" entry that is a test id of another file names that test only). A test a worker
   * muted that the ledger does not freeze would be a failure hidden: never written.
   */
  disagreement(entries) {
    const ids = [...new Set(entries.map((e) => e.id))];
    const { frozenTests } = resolveFrozen(
      frozenListOf(this.inForce.map((f) => f.test_id)),
      lookupOf(ids),
    );
    const off = entries.filter((e) => (e.frozen !== null) !== frozenTests.has(e.id));
    if (off.length === 0) return null;
    return `freezegate: the ledger was applied to ${off[0].id} differently from freezegate's matching over the whole run (${off[0].frozen !== null ? "frozen by the runner only" : "not frozen by the runner"}) (fix: rename the test file whose name holds "*", or freeze its tests by their exact ids)`;
  }

  result(entries, reason) {
    const freezeOf = (e) => this.freezes[e.frozen];
    const applied = new Map(); // id -> freeze
    const outcomes = new Map();
    const failures = new Map();
    const deselectedFrozen = new Set();
    const muted = new Set();
    const skipped = new Set();
    const ran = new Set();
    const byId = new Map();
    for (const e of entries) {
      if (!byId.has(e.id)) byId.set(e.id, []);
      byId.get(e.id).push(e);
      if (!e.filtered) ran.add(e.id);
      if (e.frozen !== null) {
        if (e.filtered) {
          deselectedFrozen.add(e.id);
          continue;
        }
        applied.set(e.id, freezeOf(e));
        const outcome = frozenOutcome(e);
        if (outcome !== null) {
          const before = outcomes.get(e.id);
          if (before === undefined || RANK[outcome] > RANK[before]) outcomes.set(e.id, outcome);
        }
        if (e.failure && !failures.has(e.id)) failures.set(e.id, e.failure);
        continue;
      }
      // A test.fails test whose body failed passes: its failure cannot fail the run.
      if (e.fails && e.started && e.state === "pass") muted.add(e.id);
      else if (
        !e.filtered &&
        ((!e.started && e.declared !== "run") || (e.started && e.state === "skip"))
      ) {
        skipped.add(e.id);
      }
    }
    // A frozen test the run never reached (--bail, a failed beforeAll) left no coverage either.
    for (const id of applied.keys()) if (!outcomes.has(id)) deselectedFrozen.add(id);
    for (const id of muted) skipped.delete(id);
    const evidence = (id) =>
      (byId.get(id) ?? []).every(
        (e) => e.started && e.state === "pass" && e.frozen === null && !e.fails,
      ) && !applied.has(id);
    const counts = new Map();
    for (const [id, list] of byId) {
      if (!evidence(id)) continue;
      const explicit = list.some((e) => e.explicit !== null);
      const digests = new Set(list.flatMap((e) => (explicit ? e.explicit : e.auto) ?? []));
      if (explicit || list.some((e) => e.auto !== null)) counts.set(id, digests.size);
      else if (this.properties.has(id)) counts.set(id, 0);
    }
    const uncounted = [...byId.keys()].filter((id) => this.properties.has(id) && !evidence(id));
    return {
      reason,
      applied,
      outcomes,
      failures,
      deselectedFrozen,
      muted,
      skipped,
      ran,
      counts,
      uncounted,
    };
  }

  summary(r, say) {
    const s = this.settings;
    const groups = new Map();
    for (const id of [...r.applied.keys()].sort()) {
      const outcome = r.outcomes.get(id);
      const key =
        outcome === undefined
          ? "frozen-not-run"
          : s.mode === "skip" && outcome === "skipped"
            ? "frozen-skipped"
            : `frozen-${outcome}`;
      let line = `  ${id} (${describeFreeze(r.applied.get(id))})`;
      if (r.failures.has(id)) line += `: ${r.failures.get(id)}`;
      if (!groups.has(key)) groups.set(key, []);
      groups.get(key).push(line);
    }
    const titles = {
      "frozen-failed": "frozen-failed (these failures do not fail the run):",
      "frozen-passed": "frozen-passed:",
      "frozen-skipped": "frozen-skipped:",
      "frozen-not-run": "frozen-not-run:",
    };
    for (const [key, title] of Object.entries(titles)) {
      if (!groups.has(key)) continue;
      say(title);
      for (const line of groups.get(key)) say(line);
    }
    if (this.expired.length > 0) {
      say("expired (not applied: these tests gate again):");
      for (const f of [...this.expired].sort((a, b) => (a.test_id < b.test_id ? -1 : 1))) {
        const owner = f.owner ? `owner ${f.owner}, ` : "";
        say(`  ${f.test_id} (${owner}expired ${f.expires}, today is ${s.today})`);
      }
    }
    if (r.deselectedFrozen.size > 0) {
      say(
        "frozen but not run (left out by a filter, or not reached): they leave no coverage, so freezegate check refuses this run; let frozen tests run:",
      );
      for (const id of [...r.deselectedFrozen].sort()) say(`  ${id}`);
    }
    const list = (title, ids) => {
      if (ids.size === 0) return;
      const sorted = [...ids].sort();
      say(`${title} (${sorted.length}):`);
      for (const id of sorted.slice(0, 10)) say(`  ${id}`);
      if (sorted.length > 10) {
        say(`  ... and ${sorted.length - 10} more (see ${display(s.record, this.root)})`);
      }
    };
    list(
      "muted by test.fails outside the ledger: their failures cannot fail the run, so freezegate check counts them as frozen",
      r.muted,
    );
    list(
      "skipped outside the ledger (skip, todo, or a skip in the test): they witnessed nothing",
      r.skipped,
    );
  }

  write(r, say) {
    const s = this.settings;
    const { top, commit } = gitFacts(this.root);
    const sortedObject = (map) =>
      Object.fromEntries([...map.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
    let record = {
      version: RECORD_VERSION,
      tool: TOOL,
      commit,
      ledger: { path: this.ledgerRecordPath(top), sha256: this.sha256 },
      mode: s.mode,
      applied: [...r.applied.keys()].sort(),
      expired: [...new Set(this.expired.map((f) => f.test_id))].sort(),
      outcomes: sortedObject(r.outcomes),
      muted: [...r.muted].sort(),
      skipped: [...r.skipped].sort(),
      deselected_frozen: [...r.deselectedFrozen].sort(),
    };
    // Only ids freezegate reads as test ids (FILE::NAME, no surrounding spaces) are written:
    // the deposit gate refuses the whole file over one that is not.
    const counted = [...r.counts.entries()].filter(
      ([id]) => id.trim() === id && id.indexOf("::") > 0,
    );
    let samples = {
      version: SAMPLES_VERSION,
      tool: TOOL,
      commit,
      properties: sortedObject(new Map(counted.map(([id, n]) => [id, { distinct: n }]))),
    };
    let merged = false;
    if (this.earlier && commit !== null && this.earlier.record.commit === commit) {
      [record, samples] = mergeWithEarlier(this.earlier, record, samples, r.ran);
      merged = true;
    }
    // freezegate's own readers of these files must accept them.
    parseAppliedRecord(record, display(s.record, this.root));
    parseSamples(samples, display(s.samples, this.root));
    writeJsonAtomic(s.samples, samples);
    // The record last: its presence says the run's outputs were written.
    writeJsonAtomic(s.record, record);
    const n = Object.keys(samples.properties).length;
    say(
      `record: ${display(s.record, this.root)}; samples: ${display(s.samples, this.root)} (${n} test${n === 1 ? "" : "s"} with counted inputs)`,
    );
    if (merged) {
      say(
        "merged with the record and samples of an earlier run at this commit (same ledger and mode): what either run muted or froze is in the record",
      );
    }
    if (r.uncounted.length > 0) {
      say(
        "compensating properties without a count (failed, not run or frozen in this run; they cannot vouch for a freeze):",
      );
      for (const id of [...r.uncounted].sort()) say(`  ${id}`);
    }
  }
}

/** How a frozen test ended: failed (also a test.fails test), passed, skipped, or not run. */
function frozenOutcome(e) {
  if (!e.started) return e.ledgerSkipped || e.declared !== "run" ? "skipped" : null;
  if (e.state === "skip") return "skipped";
  if (e.fails || e.state === "fail") return "failed";
  return e.state === "pass" ? "passed" : null;
}

/**
 * This run's record and samples merged with an earlier run's of the same commit, ledger and
 * mode, as the pytest plugin merges them: lists are united, the earlier counts are kept for
 * the properties this run did not run, and a test the earlier run skipped that this run ran
 * is skipped no more.
 */
function mergeWithEarlier(earlier, record, samples, ran) {
  const before = earlier.record;
  const ids = (v) => new Set(Array.isArray(v) ? v.filter((x) => typeof x === "string") : []);
  const union = (a, b) => [...new Set([...ids(a), ...b])].sort();
  const outcomes = { ...(before.outcomes ?? {}), ...record.outcomes };
  const ranHere = new Set([...ran].filter((id) => !record.skipped.includes(id)));
  const skippedBefore = [...ids(before.skipped)].filter((id) => !ranHere.has(id));
  const merged = {
    ...record,
    applied: union(before.applied, record.applied),
    expired: union(before.expired, record.expired),
    outcomes: Object.fromEntries(
      Object.keys(outcomes)
        .sort()
        .map((k) => [k, outcomes[k]]),
    ),
    muted: union(before.muted, record.muted),
    skipped: [...new Set([...skippedBefore, ...record.skipped])].sort(),
    deselected_frozen: union(before.deselected_frozen, record.deselected_frozen),
  };
  const properties = Object.fromEntries(
    Object.entries(earlier.samples.properties ?? {}).filter(([id]) => !ran.has(id)),
  );
  Object.assign(properties, samples.properties);
  const mergedSamples = {
    ...samples,
    properties: Object.fromEntries(
      Object.keys(properties)
        .sort()
        .map((k) => [k, properties[k]]),
    ),
  };
  return [merged, mergedSamples];
}
