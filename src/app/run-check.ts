// `freezegate check` as an application service: the shadow audit and every ledger gate, in one
// pass over the same inputs, as one result. Which gates block comes from the ledger's policy,
// the stricter of the merge base's and the patch's own (a patch cannot disarm its own gates);
// an input error in any of them stops the whole check (exit 2): a gate that could not run must
// never count as a gate that passed.

import { readHeadCommit } from "../adapters/git.js";
import { changedFilesInRange } from "../adapters/git-history.js";
import {
  type LedgerAgreement,
  type RecordAgreement,
  refuseDeselectedFrozen,
  refuseForeignAppliedRecord,
  refuseForeignPluginLedger,
  show,
  type ThisRunsRecord,
} from "../adapters/pytest-ledger.js";
import { fileExists } from "../adapters/repo-files.js";
import { type Compensation, compensationWords } from "../core/compensation.js";
import type { Finding, GateResult } from "../core/findings.js";
import { gateFailed, sortFindings } from "../core/findings.js";
import type { Ledger } from "../core/ledger-model.js";
import { checkShape } from "../core/ledger-shape.js";
import { sampleOf } from "../core/listing.js";
import { refusal } from "../core/refusals/index.js";
import type { SamplesArtifact } from "../core/samples.js";
import type { ShadowAudit } from "../core/shadow-audit.js";
import { RUNNERS } from "../runners/registry.js";
import type { RunnerLedger } from "../runners/runner.js";
import { compensationFindings, ledgerCompensation } from "./compensation.js";
import { readSamples, runDepositGate } from "./gates/deposit-gate.js";
import type { GateContext, GateRun } from "./gates/gate-run.js";
import { runLedgerChangesGate } from "./gates/ledger-changes-gate.js";
import { runLockGate } from "./gates/lock-gate.js";
import { type PatchLedger, patchLedger, policyNotes } from "./gates/patch-policy.js";
import { judgeSweepRecord } from "./gates/sweep.js";
import { runWitnessGate } from "./gates/witness-gate.js";
import { type KnownTests, loadKnownTests } from "./known-tests.js";
import { frozenListMovedWords } from "./patch-settings.js";
import { type AuditRequest, type AuditRun, runAudit } from "./run-audit.js";

export interface CheckRequest {
  gate: GateContext;
  base: string;
  today: string;
  audit: Omit<AuditRequest, "root" | "patch" | "frozen">;
  /** The collected-ids file (absolute), when given; else known tests come from the data. */
  collected?: string;
  samplesPath?: string;
  /** --sweep FILE (absolute); else the sweep record at its default place, when there is one. */
  sweepPath?: string;
  lockPath: string;
  /** Judge the witness gate even when the ledger did not change. */
  alwaysWitness: boolean;
  /** Judge a ledger with uncommitted changes as the work tree has it (a try-out). */
  uncommitted?: boolean;
  /** The command that runs this check with `uncommitted`, for the refusal's fix. */
  uncommittedCommand?: string;
}

export interface CheckGate extends GateResult {
  notes: string[];
}

export interface CheckRun {
  ledger: Ledger;
  audit: AuditRun;
  knownTests: KnownTests;
  gates: CheckGate[];
  /** Per freeze, in ledger order: what it withdraws and what its property executes of it. */
  compensation: Compensation[];
  passed: boolean;
}

const VERDICT_CODES = {
  shadowed: "shadowed-line",
  "fixture-only": "fixture-only-line",
  uncovered: "uncovered-line",
  unmeasured: "unmeasured-line",
} as const;

/** The audit's failing lines as findings of the "shadow" gate. */
export function shadowGate(audit: ShadowAudit, blocking: boolean): CheckGate {
  const findings: Finding[] = [];
  const failOn = new Set<string>(audit.gate.failOn);
  for (const file of audit.files) {
    for (const line of file.lines) {
      if (!failOn.has(line.verdict)) continue;
      const code = VERDICT_CODES[line.verdict as keyof typeof VERDICT_CODES];
      const who =
        line.verdict === "shadowed"
          ? `only frozen tests cover it: ${line.frozenTests.join(", ")}`
          : line.verdict === "fixture-only"
            ? `only the setup/teardown of ${line.fixtureTests.join(", ")} runs it`
            : line.verdict === "uncovered"
              ? "no test executes it"
              : "the file is not in the coverage data";
      findings.push({
        gate: "shadow",
        code,
        severity: "error",
        path: file.path,
        line: line.line,
        message: `${file.path}:${line.line} is ${line.verdict}: ${who}`,
        ...(line.frozenTests.length > 0 ? { details: { frozenTests: line.frozenTests } } : {}),
      });
    }
  }
  return {
    gate: "shadow",
    blocking,
    ran: true,
    findings: sortFindings(findings),
    notes: audit.gate.reasons,
  };
}

/**
 * Where a run's applied record may be: every runner's ledger integration's places, in the
 * registry's order (the first found of this commit's run is that run's).
 */
export function appliedRecordCandidates(
  root: string,
  testRoot: string,
  samplesPath: string | undefined,
): string[] {
  return [
    ...new Set(
      RUNNERS.flatMap((runner) => runner.ledger.recordPlaces(root, testRoot, samplesPath)),
    ),
  ];
}

/** The ledger integration that names itself `tool` in its files, or undefined. */
function writerOf(tool: string | undefined): RunnerLedger | undefined {
  return RUNNERS.find((runner) => runner.ledger.tool === tool)?.ledger;
}

/** What mutes a test outside the ledger in the run that wrote the record ("an xfail"). */
function mutedBy(thisRun: ThisRunsRecord): string {
  return writerOf(thisRun.record.tool)?.mutedBy ?? "an xfail";
}

/** What the applied record says about tests an xfail muted, for the shadow gate's notes. */
export function mutedNotes(thisRun: ThisRunsRecord | null): string[] {
  if (thisRun === null) return [];
  const { label, record } = thisRun;
  if (record.muted === undefined) {
    return [
      `the applied record ${label} does not say which tests an xfail muted (an older pytest plugin): such tests count as live; update the plugin`,
    ];
  }
  if (record.muted.length === 0) return [];
  return [
    `${record.muted.length} test(s) muted by ${mutedBy(thisRun)} outside the ledger count as frozen (their failures cannot fail the run; the applied record ${label}): ${sampleOf(record.muted, 5)}`,
  ];
}

function asCheckGate(run: GateRun): CheckGate {
  return { ...run.result, notes: run.notes };
}

export async function runCheck(request: CheckRequest): Promise<CheckRun> {
  const { gate: ctx } = request;
  // The gate judges this ledger's freezes; the tests must have applied the same ones.
  const agreement: LedgerAgreement = {
    root: ctx.root,
    testRoot: request.audit.testRoot,
    ledgerPath: ctx.ledgerPath,
    judge: "check",
    ledgerKey: 'the "ledger" key of [tool.freezegate] (or --ledger)',
  };
  refuseForeignPluginLedger(agreement);
  const { mergeBase } = await changedFilesInRange(ctx.root, request.base);
  const patch = await patchLedger(ctx, mergeBase);
  const { ledger } = patch;
  const headCommit = await readHeadCommit(ctx.root);
  const candidates = appliedRecordCandidates(ctx.root, request.audit.testRoot, request.samplesPath);
  const thisRun = thisRunsRecord(candidates, { ...agreement, headCommit, ledger });
  const samples =
    thisRun === null ? samplesWithoutRecord(request, candidates, headCommit) : NO_SAMPLES_READ;
  // The data's tests, read once: for deselected frozen tests, and as the known tests when no
  // collected list is given.
  const coverage = {
    ...(request.audit.coverage === undefined ? {} : { coverage: request.audit.coverage }),
    cwd: request.audit.cwd ?? ctx.cwd,
  };
  let dataTests: KnownTests | null = null;
  if (thisRun?.record.deselectedFrozen?.length) {
    // Tests another job ran are in the combined data: only those nobody ran are refused.
    dataTests = loadKnownTests({ root: ctx.root, ...coverage, testRoot: request.audit.testRoot });
    const inData = dataTests.ids;
    refuseDeselectedFrozen(thisRun, ctx.ledgerLabel, (id) => inData?.has(id) ?? false);
  }
  const audit = await runAudit({
    ...auditOfTheLedger(
      { audit: request.audit, root: ctx.root, ledgerPath: ctx.ledgerPath },
      thisRun,
      coverage.cwd,
    ),
    patch: { kind: "range", base: request.base },
  });
  const knownTests =
    request.collected === undefined && dataTests !== null
      ? dataTests
      : loadKnownTests({
          root: ctx.root,
          ...(request.collected === undefined ? {} : { collected: request.collected }),
          ...coverage,
          testRoot: request.audit.testRoot,
        });
  const gates: CheckGate[] = [
    shadowCheckGate(audit, patch, thisRun, samples.unnamedNote),
    shapeCheckGate(patch, request.today, knownTests),
    await witnessCheckGate(request, knownTests, thisRun),
    await depositCheckGate(request, knownTests, thisRun, { headCommit, samples: samples.read }),
    asCheckGate(await runLockGate(ctx, { lockPath: request.lockPath, base: request.base })),
    asCheckGate(
      await runLedgerChangesGate(ctx, {
        base: request.base,
        today: request.today,
        uncommitted: request.uncommitted === true,
        ...(request.uncommittedCommand === undefined
          ? {}
          : { uncommittedCommand: request.uncommittedCommand }),
      }),
    ),
  ];
  await judgeSweepRecord(gates, { ...ctx, ...request, ledger, known: knownTests.ids, headCommit });
  const compensation = ledgerCompensation({
    ...request.audit,
    cwd: coverage.cwd,
    root: ctx.root,
    ledger,
    ...(thisRun?.record.muted ? { muted: thisRun.record.muted } : {}),
  });
  judgeCompensationIn(gates, compensation, ledger);
  return { ledger, audit, knownTests, gates, compensation, passed: !gates.some(gateFailed) };
}

/** The deposit gate's compensation findings, and one note per freeze with its figure. */
function judgeCompensationIn(
  gates: CheckGate[],
  compensation: readonly Compensation[],
  ledger: Ledger,
): void {
  const deposit = gates.find((g) => g.gate === "deposit");
  if (deposit === undefined) return;
  const min = ledger.policy.min_compensation;
  deposit.findings = sortFindings([
    ...deposit.findings,
    ...compensationFindings(compensation, ledger, deposit.findings),
  ]);
  for (const c of compensation) {
    deposit.notes.push(`compensation of ${c.testId}: ${compensationWords(c)}`);
  }
  if (compensation.length > 0) {
    deposit.notes.push(
      min === undefined
        ? "min_compensation is not set: the compensation figures are shown, not judged"
        : `min_compensation ${min}: a freeze's property must execute that share of the lines the freeze withdraws`,
    );
  }
}

/**
 * The applied record of this commit's run: the first found among the places the plugin may
 * have put it (also without --samples: what the run muted counts whether or not deposits are
 * judged). A record of another ledger is refused; null: none found.
 */
function thisRunsRecord(
  candidates: readonly string[],
  agreement: Omit<RecordAgreement, "recordPath">,
): ThisRunsRecord | null {
  for (const recordPath of candidates) {
    if (!fileExists(recordPath)) continue;
    const thisRun = refuseForeignAppliedRecord({ ...agreement, recordPath });
    if (thisRun !== null) return thisRun;
  }
  return null;
}

/** Where check reads its frozen tests: the ledger, in the repository at `root`. */
export interface LedgerAuditSettings {
  audit: Omit<AuditRequest, "root" | "patch" | "frozen">;
  root: string;
  ledgerPath: string;
}

/**
 * The shadow audit's request with the ledger as the frozen list, the patch left to the caller.
 * A test an xfail mutes defends nothing, whoever put the marker there (a conftest.py of the
 * patch): judged as frozen.
 */
export function auditOfTheLedger(
  settings: LedgerAuditSettings,
  thisRun: ThisRunsRecord | null,
  cwd: string | undefined,
): Omit<AuditRequest, "patch"> {
  return {
    ...settings.audit,
    cwd,
    root: settings.root,
    frozen: settings.ledgerPath,
    ...(thisRun?.record.muted?.length
      ? {
          alsoFrozen: {
            ids: thisRun.record.muted,
            label: `muted by ${mutedBy(thisRun)} outside the ledger (the applied record ${thisRun.label})`,
          },
        }
      : {}),
  };
}

interface SamplesRead {
  /** The samples artifact, when read here; the deposit gate then uses it as read. */
  read: SamplesArtifact | undefined;
  /**
   * Samples that do not name their writer, of this commit's run with no record of it: said in
   * the shadow gate's notes (the checks of the record did not run).
   */
  unnamedNote: string | null;
}

const NO_SAMPLES_READ: SamplesRead = { read: undefined, unnamedNote: null };

/**
 * The samples artifact when no record of this commit's run was found. The ledger integrations
 * (the pytest plugin, the Vitest reporter) write their record with their samples in every run:
 * their samples of this commit's run without a record of it means the record was moved out of
 * sight (a flag on pytest's command line, an environment variable of the Vitest run), which
 * would switch off the checks of what the run muted, deselected and applied: refused.
 */
function samplesWithoutRecord(
  request: CheckRequest,
  candidates: readonly string[],
  headCommit: string,
): SamplesRead {
  const { root } = request.gate;
  if (request.samplesPath === undefined) return NO_SAMPLES_READ;
  const read = readSamples(request.samplesPath);
  const ofThisRun = read.kind !== "session" && read.commit === headCommit;
  const tool = read.kind === "session" ? undefined : read.tool;
  const writer = writerOf(tool);
  if (ofThisRun && writer !== undefined) {
    throw refusal("applied-record-missing", {
      samples: show(root, request.samplesPath),
      writer: writer.writer,
      places: candidates.map((c) => show(root, c)).join(" or "),
      keepRecord: writer.keepRecord,
    });
  }
  return {
    read,
    unnamedNote:
      ofThisRun && tool === undefined
        ? `the samples artifact ${show(root, request.samplesPath)} names no writer ("tool") and no applied record of this commit's run was found, so what the run muted and deselected is not checked: update the freezegate pytest plugin (samples from another writer may name it in "tool")`
        : null,
  };
}

/** The shadow gate, with what the report says about the policy, the run and the settings. */
function shadowCheckGate(
  audit: AuditRun,
  patch: PatchLedger,
  thisRun: ThisRunsRecord | null,
  unnamedSamples: string | null,
): CheckGate {
  const shadow = shadowGate(audit.audit, patch.ledger.policy.blocking.includes("shadow"));
  const settings = audit.settingsChange;
  return {
    ...shadow,
    notes: [
      ...shadow.notes,
      ...policyNotes(patch, "shadow"),
      ...mutedNotes(thisRun),
      ...(unnamedSamples === null ? [] : [unnamedSamples]),
      ...(settings === null || settings.changed.length === 0
        ? []
        : [
            `the patch changes ${settings.changed.join(", ")} in the repository's config: judged by the stricter of its settings and those at the merge base`,
          ]),
      ...(settings?.frozen === undefined
        ? []
        : [frozenListMovedWords(settings.frozen, "the merge base")]),
    ],
  };
}

function shapeCheckGate(patch: PatchLedger, today: string, knownTests: KnownTests): CheckGate {
  const { ledger } = patch;
  return {
    gate: "shape",
    blocking: ledger.policy.blocking.includes("shape"),
    ran: true,
    findings: sortFindings(checkShape(ledger, { today, knownTests: knownTests.ids })),
    notes: [
      ...policyNotes(patch, "shape"),
      `judged on ${today} (UTC)`,
      knownTests.ids === null
        ? `unknown-test not judged: ${knownTests.description}`
        : `known tests: ${knownTests.description}`,
    ],
  };
}

/** The witness gate, with the tests the run muted or skipped as the applied record lists them. */
async function witnessCheckGate(
  request: CheckRequest,
  knownTests: KnownTests,
  thisRun: ThisRunsRecord | null,
): Promise<CheckGate> {
  const recordLabel = `the applied record ${thisRun?.label}`;
  const witness = asCheckGate(
    await runWitnessGate(request.gate, {
      base: request.base,
      always: request.alwaysWitness,
      knownTests: () => knownTests.ids,
      ...(thisRun?.record.muted?.length
        ? { muted: { ids: thisRun.record.muted, label: recordLabel } }
        : {}),
      ...(thisRun?.record.skipped?.length
        ? { skipped: { ids: thisRun.record.skipped, label: recordLabel } }
        : {}),
    }),
  );
  if (thisRun !== null && thisRun.record.skipped === undefined) {
    // An older plugin: a skipped witness cannot be seen, and would pass unnoticed.
    witness.notes.push(
      `the applied record ${thisRun.label} does not list skipped tests (a plugin older than this freezegate), so a skipped witness is not judged: update the freezegate pytest plugin`,
    );
  }
  return witness;
}

/** The deposit gate, which must know the suite's tests: never let it pass unjudged. */
async function depositCheckGate(
  request: CheckRequest,
  knownTests: KnownTests,
  thisRun: ThisRunsRecord | null,
  read: { headCommit: string; samples: SamplesArtifact | undefined },
): Promise<CheckGate> {
  if (knownTests.ids === null) {
    // The audit read the data, so this cannot happen unless the data names no tests, which
    // the audit refuses.
    throw refusal("deposits-not-judged", { why: knownTests.description });
  }
  return asCheckGate(
    await runDepositGate(request.gate, {
      base: request.base,
      ...(request.samplesPath === undefined ? {} : { samplesPath: request.samplesPath }),
      known: { ...knownTests, ids: knownTests.ids },
      testRoot: request.audit.testRoot,
      ...(thisRun?.record.muted ? { muted: thisRun.record.muted } : {}),
      headCommit: read.headCommit,
      ...(read.samples === undefined ? {} : { samples: read.samples }),
    }),
  );
}
