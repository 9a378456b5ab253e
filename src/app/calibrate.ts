// `calibrate` as an application service: does the gate fire on this repository, with this data
// and these settings? Statements are chosen from the data (only frozen tests execute them,
// a live test does, no test does), each changed in meaning (src/core/canaries.ts), and the
// canaries go to the real audit (runAudit) as one diff, with the request the gate itself
// makes: audit's, or check's (the ledger's freezes and the tests an xfail muted, as the pytest
// plugin's applied record of the run lists them). That record, when there is one, is also
// compared with the frozen list the gate reads: a run that applied another list makes the
// gate untrustworthy whatever the canaries say. Nothing is written: the diff's new side is
// the files on disk. With mutants asked for, the shadow and control canaries' statements are
// also mutated and run by the tests that execute each (src/app/mutants.ts): which mutants the
// live tests kill on the lines the gate calls defended, and which only frozen tests kill.

import { join } from "node:path";
import { readHeadCommit } from "../adapters/git.js";
import {
  type RecordComparison,
  recordCandidates,
  recordOfThisRun,
} from "../adapters/pytest-ledger.js";
import { isRepoFile, readTextFile } from "../adapters/repo-files.js";
import {
  CANARY_KINDS,
  type Canary,
  type CanaryCandidate,
  type CanaryKind,
  type CanaryLine,
  type CanaryResult,
  canaryCandidates,
  canaryDiff,
  canaryLanguage,
  canaryQuotas,
  judgeCanaries,
  mutateLine,
  seededRandom,
  seededShuffle,
} from "../core/canaries.js";
import { testFileMatcher } from "../core/globs.js";
import type { ChangedFile, ContextIndex, CoverageSource, StatementMap } from "../core/model.js";
import type { MutationSite } from "../core/mutants.js";
import type { PathMapping } from "../core/path-map.js";
import { refusal } from "../core/refusals/index.js";
import type { FailableVerdict } from "../core/shadow-audit.js";
import { splitLines } from "../core/stale.js";
import { mutationOf } from "../runners/mutations.js";
import type { ChangedSourceReader, DataTests, Runner } from "../runners/runner.js";
import { openData, readTests } from "./audit/data.js";
import { mapCoverageToRepo } from "./audit/data-paths.js";
import { linesOfFile } from "./audit/file-inputs.js";
import { loadFrozenList, resolveFrozenTests } from "./audit/frozen-tests.js";
import { type MutantsRequest, type MutantsRun, runMutants } from "./mutants.js";
import { type AuditRequest, type AuditRun, runAudit } from "./run-audit.js";
import { auditOfTheLedger } from "./run-check.js";
import { mark } from "./timing.js";

/**
 * The gate calibrated: `audit` (its frozen list as the list says), or `check` (the ledger's
 * freezes and the tests the run muted with an xfail, as the applied record lists them).
 */
export type CalibratedGate = "audit" | "check";

export interface CalibrateRequest {
  /**
   * The gate's own request, as `audit` builds it from the flags and the config, less the patch;
   * for `check`, `frozen` is the ledger.
   */
  audit: Omit<AuditRequest, "patch">;
  gate: CalibratedGate;
  /** How the user names the frozen list, for the fix of a disagreeing applied record. */
  frozenKey: string;
  /** At most this many canaries in all (see canaryQuotas). */
  max: number;
  /** The sample's seed: the same seed and data, the same canaries. */
  seed: number;
  /**
   * The mutant run of the shadow and control canaries' statements (at most `max` mutants,
   * drawn with `seed`), or null for none.
   */
  mutants: CalibrateMutantsRequest | null;
}

export type CalibrateMutantsRequest = Pick<
  MutantsRequest,
  "cwd" | "command" | "python" | "env" | "jobs" | "timeoutSeconds" | "signal" | "onProgress"
>;

/**
 * The mutants of the shadow and control canaries' statements, judged: each result's `group`
 * is its canary's kind. A shadow statement's mutants run against the frozen tests that execute
 * it (role `target`: a kill is one the freezes withdraw), a control's against the live tests
 * that execute it in their body (role `live`: a survivor is executed, not defended).
 */
export interface CalibrationMutants {
  /** The command that ran the tests. */
  command: string;
  run: MutantsRun;
}

/**
 * Why no shadow canary could be made, when none could: `nothing-frozen` (the frozen list
 * freezes no test of the data), `no-shadow` (frozen tests ran, but every statement they
 * execute outside test files a live test executes too), `not-mutable` (the statements only
 * frozen tests execute hold nothing the canary edit can change).
 */
export type CannotFire = "nothing-frozen" | "no-shadow" | "not-mutable";

export interface Calibration {
  root: string;
  seed: number;
  max: number;
  gate: CalibratedGate;
  /** `muted`: the tests of the data an xfail muted outside the list, judged as frozen (check). */
  frozen: { file: string; entries: number; tests: number; muted: number };
  /** The pytest plugin's applied record of this commit's run (as shown), when there is one. */
  record: { file: string; disagreement: RecordComparison["disagreement"] } | null;
  /** How many statements qualified for each kind, before the sample. */
  qualified: Record<CanaryKind, number>;
  failOn: FailableVerdict[];
  canaries: CanaryResult[];
  /** Why the gate cannot be shown to fire (then it proves nothing), or null. */
  cannotFire: CannotFire | null;
  /** The audit of the canaries; null when there was no canary to audit. */
  run: AuditRun | null;
  /** The coverage data files read (absolute). */
  dataFiles: string[];
  /** The mutant run, when one was asked for. */
  mutants: CalibrationMutants | null;
}

/** A source file of the data, as the choice of canaries reads it. */
interface SourceFile {
  text: string;
  lines: string[];
  statements: StatementMap;
  /** Statement first line -> the candidate it is. */
  candidates: Map<number, CanaryCandidate>;
}

/** Files whose statements a kind may read per canary it still needs, to keep a large suite fast. */
const FILES_PER_CANARY = 4;

export async function runCalibration(request: CalibrateRequest): Promise<Calibration> {
  const { root } = request.audit;
  const list = loadFrozenList(request.audit.frozen);
  const compared = recordOfThisRun(recordCandidates(root, request.audit.testRoot, undefined), {
    root,
    testRoot: request.audit.testRoot,
    ledgerPath: request.audit.frozen,
    judge: `the ${request.gate} gate`,
    ledgerKey: request.frozenKey,
    headCommit: await readHeadCommit(root),
    frozenIds: list.entries.map((e) => e.pattern),
  });
  const audit =
    request.gate === "check"
      ? auditOfTheLedger(
          { audit: request.audit, root, ledgerPath: request.audit.frozen },
          compared?.thisRun ?? null,
          request.audit.cwd,
        )
      : request.audit;
  const { runner, data } = openData(audit);
  let chosen: CanaryLine[];
  let qualified: Record<CanaryKind, number>;
  let frozenCount: number;
  let mutedCount: number;
  let cannotFire: CannotFire | null = null;
  let prefix = "";
  const dataFiles = [...data.meta.dataFiles];
  // Refused before any canary is chosen: the run would end without its mutants.
  const loadMutation = request.mutants === null ? null : mutationOf(runner);
  if (request.mutants !== null && loadMutation === null) {
    data.close();
    throw refusal("mutants-language-unsupported", { runner: runner.name, command: "calibrate" });
  }
  try {
    const tests = readTests(runner, root, audit.testRoot, data);
    prefix = tests.prefix;
    // The frozen tests as the audit reads them (the same refusals), muted ones included.
    const resolved = resolveFrozenTests(runner, tests, data, list, audit);
    const frozen = resolved.tests;
    frozenCount = resolved.resolution.frozenTests.size;
    mutedCount = resolved.muted.length;
    const picked = pickCanaries(runner, data, tests, frozen, audit, request);
    chosen = picked.canaries;
    qualified = picked.qualified;
    if (frozen.size === 0) cannotFire = "nothing-frozen";
    else if (qualified.shadow === 0) cannotFire = "no-shadow";
    else if (!chosen.some((c) => c.kind === "shadow")) cannotFire = "not-mutable";
  } finally {
    data.close();
  }
  const base = {
    root,
    seed: request.seed,
    max: request.max,
    gate: request.gate,
    frozen: {
      file: request.audit.frozen,
      entries: list.entries.length,
      tests: frozenCount,
      muted: mutedCount,
    },
    record:
      compared === null
        ? null
        : {
            file: compared.thisRun.label,
            disagreement: compared.disagreement,
          },
    qualified,
    dataFiles,
  };
  const mutate = async (): Promise<CalibrationMutants | null> =>
    request.mutants === null || loadMutation === null
      ? null
      : {
          command: request.mutants.command,
          run: await runMutants({
            ...request.mutants,
            root,
            mutation: await loadMutation(),
            prefix,
            sites: canarySites(chosen),
            max: request.max,
            seed: request.seed,
          }),
        };
  if (chosen.length === 0) {
    return {
      ...base,
      failOn: audit.failOn,
      canaries: [],
      cannotFire,
      run: null,
      mutants: await mutate(),
    };
  }
  const run = await runAudit({
    ...audit,
    patch: { kind: "diff", label: CANARY_DIFF_LABEL, text: canaryDiff(chosen) },
  });
  return {
    ...base,
    failOn: run.audit.gate.failOn,
    canaries: judgeCanaries(
      chosen.map(({ lineBreak: _, ...c }): Canary => c),
      run.audit,
    ),
    cannotFire,
    run,
    mutants: await mutate(),
  };
}

/**
 * The mutation sites of the shadow and control canaries, grouped by kind so that the sample
 * keeps both: a shadow statement with the frozen tests that execute it, a control with the
 * live tests that execute it in their body (the tests that make the gate call it defended).
 */
function canarySites(canaries: readonly CanaryCandidate[]): MutationSite[] {
  return canaries
    .filter((c) => c.kind !== "uncovered")
    .map((c) => ({
      path: c.path,
      line: c.line,
      group: c.kind,
      tests: c.tests.map((id) => ({ id, role: c.kind === "shadow" ? "target" : "live" })),
    }));
}

/** How messages name the canaries' diff (it is no file). */
export const CANARY_DIFF_LABEL = "<calibration canaries>";

/**
 * The seeded sample: for each kind, statements drawn at random until its quota is met, each
 * edited by mutateLine (one it cannot change is passed over). Shadow and control canaries are
 * drawn from the data's lines, so a file's statements are read only when one of its lines is
 * drawn; uncovered ones from the files read, then others in a seeded order.
 */
function pickCanaries(
  runner: Runner,
  data: CoverageSource,
  tests: DataTests,
  frozen: ReadonlySet<string>,
  audit: Omit<AuditRequest, "patch">,
  request: CalibrateRequest,
): { canaries: CanaryLine[]; qualified: Record<CanaryKind, number> } {
  const { root, testRoot, pathMap } = audit;
  const random = seededRandom(request.seed);
  const { mapping } = mapCoverageToRepo(root, data, pathMap);
  // Not the test-files setting: a production file that setting takes for a test is exactly
  // what a canary should find. The data's own test files and the runner's defaults are tests.
  const dataTestFiles = runner.tests.testFiles(tests, testRoot);
  const isTest = testFileMatcher(runner.files.defaultTestGlobs, tests.prefix);
  const paths = [...mapping.toData.keys()]
    .filter((p) => !dataTestFiles.has(p) && !isTest(p) && canaryLanguage(p) !== null)
    .filter((p) => isRepoFile(root, p))
    .sort();
  const executed = data.executedLines(paths.flatMap((p) => dataPathsOf(mapping, p)));
  const executedOf = (path: string) =>
    linesOfFile(dataPathsOf(mapping, path), executed) ?? new Map<number, string[]>();
  mark("calibrate: executed lines");

  // Lines by the kind the data alone suggests; a file's statements confirm it when drawn.
  const pools: Record<"shadow" | "control", Array<[string, number]>> = { shadow: [], control: [] };
  // Each context name is judged once: a large suite's lines carry millions of them.
  const judged = new Map<string, "frozen" | "live" | null>();
  const judge = (name: string) => {
    let j = judged.get(name);
    if (j === undefined) {
      const id = tests.index.get(name).testId;
      j = id === null ? null : frozen.has(id) ? "frozen" : "live";
      judged.set(name, j);
    }
    return j;
  };
  for (const path of paths) {
    for (const [line, names] of executedOf(path)) {
      let frozenHit = false;
      let live = false;
      for (const name of names) {
        const j = judge(name);
        if (j === "live") {
          live = true;
          break;
        }
        if (j === "frozen") frozenHit = true;
      }
      if (live) pools.control.push([path, line]);
      else if (frozenHit) pools.shadow.push([path, line]);
    }
  }

  mark("calibrate: pools");
  const reader = runner.sources.reader(root, tests.prefix);
  const files = new Map<string, SourceFile>();
  const fileOf = (path: string): SourceFile => {
    let file = files.get(path);
    if (file === undefined) {
      file = readSource(
        root,
        path,
        reader,
        data,
        dataPathsOf(mapping, path),
        executedOf(path),
        tests.index,
      );
      file.candidates = new Map(
        canaryCandidates(
          { path, lineCount: file.lines.length, executed: executedOf(path), ...file },
          tests.index,
          frozen,
        ).map((c) => [c.line, c]),
      );
      files.set(path, file);
    }
    return file;
  };
  const quotas = canaryQuotas(request.max);
  const out: CanaryLine[] = [];
  const take = (path: string, file: SourceFile, c: CanaryCandidate | undefined): boolean => {
    if (c === undefined || out.some((o) => o.path === path && o.line === c.line)) return false;
    const text = file.lines[c.line - 1];
    const language = canaryLanguage(path);
    const edit = text === undefined || language === null ? null : mutateLine(text, language);
    if (text === undefined || edit === null) return false;
    out.push({ ...c, text, ...edit, lineBreak: lineBreakAfter(file.text, c.line) });
    return true;
  };

  for (const kind of ["shadow", "control"] as const) {
    let count = 0;
    const order = seededShuffle(pools[kind], random);
    const budget = quotas[kind] * FILES_PER_CANARY;
    const tried = new Set<string>();
    // A second pass ignores the budget, for a shadow canary only: without one the run
    // proves nothing, so it is worth reading every file that may hold one.
    for (const unbounded of kind === "shadow" ? [false, true] : [false]) {
      for (const [path, line] of order) {
        if (count >= quotas[kind]) break;
        if (unbounded && count > 0) break;
        if (!files.has(path) && tried.size >= budget && !unbounded) continue;
        tried.add(path);
        const file = fileOf(path);
        const stmt = file.statements.statementOf(line);
        const c = stmt === null ? undefined : file.candidates.get(stmt);
        if (c?.kind === kind && take(path, file, c)) count++;
      }
    }
  }
  mark("calibrate: shadow + control");
  // Uncovered statements: from the files already read first, then others in a seeded order;
  // one a file in each round, so that they spread over the files.
  const others = seededShuffle(
    paths.filter((p) => !files.has(p)),
    random,
  ).slice(0, quotas.uncovered * FILES_PER_CANARY);
  const rounds = [...files.keys(), ...others].map((path) => {
    const file = fileOf(path);
    const pool = [...file.candidates.values()].filter((c) => c.kind === "uncovered");
    return { path, file, pool: seededShuffle(pool, random) };
  });
  let uncovered = 0;
  while (uncovered < quotas.uncovered && rounds.some((r) => r.pool.length > 0)) {
    for (const { path, file, pool } of rounds) {
      if (uncovered >= quotas.uncovered) break;
      for (let c = pool.shift(); c !== undefined; c = pool.shift()) {
        if (take(path, file, c)) {
          uncovered++;
          break;
        }
      }
    }
  }

  mark("calibrate: uncovered");
  // What qualified in the files read (a shadow pool is read whole when no canary came of it).
  const qualified = { shadow: 0, control: 0, uncovered: 0 };
  for (const file of files.values()) for (const c of file.candidates.values()) qualified[c.kind]++;
  const order = (c: CanaryLine) => CANARY_KINDS.indexOf(c.kind);
  out.sort(
    (a, b) => order(a) - order(b) || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.line - b.line),
  );
  return { canaries: out, qualified };
}

function dataPathsOf(mapping: PathMapping, path: string): string[] {
  const first = mapping.toData.get(path);
  return first === undefined ? [] : (mapping.shared.get(path) ?? [first]);
}

/** A file's text, lines and statements, as the runner reads them (candidates left to fill). */
function readSource(
  root: string,
  path: string,
  reader: ChangedSourceReader,
  data: CoverageSource,
  dataPaths: string[],
  executed: ReadonlyMap<number, readonly string[]>,
  contexts: ContextIndex,
): SourceFile {
  const text = readTextFile(join(root, path), `source file ${path}`);
  const lines = splitLines(text);
  const change: ChangedFile = {
    path,
    oldPath: null,
    status: "modified",
    binary: false,
    submodule: false,
    addedLines: lines.map((_, i) => i + 1),
  };
  const source = reader.read({ change, text, lines, dataPaths, data });
  return { text, lines, statements: source.statements(executed, contexts), candidates: new Map() };
}

/** The line break that ends `line` (1-based) in `text`; "" for a last line without one. */
function lineBreakAfter(text: string, line: number): CanaryLine["lineBreak"] {
  const breaks = /\r\n|\n|\r/g;
  let n = 0;
  for (let m = breaks.exec(text); m !== null; m = breaks.exec(text)) {
    if (++n === line) return m[0] === "\r\n" ? "\r\n" : "\n";
  }
  return "";
}
