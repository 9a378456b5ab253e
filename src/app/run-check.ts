// `freezegate check` as an application service: the shadow audit and every ledger gate, in one
// pass over the same inputs, as one result. Which gates block comes from the ledger's policy,
// the stricter of the merge base's and the patch's own (a patch cannot disarm its own gates);
// an input error in any of them stops the whole check (exit 2): a gate that could not run must
// never count as a gate that passed.

import { readHeadCommit } from "../adapters/git.js";
import { changedFilesInRange } from "../adapters/git-history.js";
import {
  recordCandidates,
  refuseDeselectedFrozen,
  refuseForeignAppliedRecord,
  refuseForeignPluginLedger,
  show,
  type ThisRunsRecord,
} from "../adapters/pytest-ledger.js";
import { fileExists } from "../adapters/repo-files.js";
import { InputError } from "../core/errors.js";
import type { Finding, GateResult } from "../core/findings.js";
import { gateFailed, sortFindings } from "../core/findings.js";
import type { Gate, Ledger } from "../core/ledger-model.js";
import { checkShape } from "../core/ledger-shape.js";
import { sampleOf } from "../core/listing.js";
import { PLUGIN_TOOL, type SamplesArtifact } from "../core/samples.js";
import type { ShadowAudit } from "../core/shadow-audit.js";
import { judgeSweepRecord } from "./gates/sweep.js";
import {
  type GateContext,
  type GateRun,
  patchLedger,
  policyNotes,
  readSamples,
  runDepositGate,
  runLedgerChangesGate,
  runLockGate,
  runWitnessGate,
} from "./gates.js";
import { KNOWN_TESTS_FIX, type KnownTests, loadKnownTests } from "./known-tests.js";
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
    `${record.muted.length} test(s) muted by an xfail outside the ledger count as frozen (their failures cannot fail the run; the applied record ${label}): ${sampleOf(record.muted, 5)}`,
  ];
}

function asCheckGate(run: GateRun): CheckGate {
  return { ...run.result, notes: run.notes };
}

export async function runCheck(request: CheckRequest): Promise<CheckRun> {
  const { gate: ctx } = request;
  // The gate judges this ledger's freezes; the tests must have applied the same ones.
  const agreement = {
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
  let thisRun: ThisRunsRecord | null = null;
  const headCommit = await readHeadCommit(ctx.root);
  // The first record of this commit's run among the places the plugin may have put it (also
  // without --samples: what the run muted counts whether or not deposits are judged).
  const candidates = recordCandidates(ctx.root, request.audit.testRoot, request.samplesPath);
  for (const recordPath of candidates) {
    if (!fileExists(recordPath)) continue;
    thisRun = refuseForeignAppliedRecord({ ...agreement, recordPath, headCommit, ledger });
    if (thisRun !== null) break;
  }
  // Samples that do not name their writer, of this commit's run with no record of it: said in
  // the shadow gate's notes (the checks of the record did not run).
  let unnamedSamples: string | null = null;
  // Read here when no record was found; the deposit gate then uses them as read.
  let samplesRead: SamplesArtifact | undefined;
  if (thisRun === null && request.samplesPath !== undefined) {
    samplesRead = readSamples(request.samplesPath);
    const ofThisRun = samplesRead.kind !== "session" && samplesRead.commit === headCommit;
    const tool = samplesRead.kind === "session" ? undefined : samplesRead.tool;
    if (ofThisRun && tool === undefined) {
      unnamedSamples = `the samples artifact ${show(ctx.root, request.samplesPath)} names no writer ("tool") and no applied record of this commit's run was found, so what the run muted and deselected is not checked: update the freezegate pytest plugin (samples from another writer may name it in "tool")`;
    }
    // The pytest plugin writes its record with its samples in every run: its samples of this
    // commit's run without a record of it means the record was moved out of sight (a flag on
    // pytest's command line), which would switch off the checks of what the run muted,
    // deselected and applied.
    if (ofThisRun && tool === PLUGIN_TOOL) {
      throw new InputError(
        `the samples artifact ${show(ctx.root, request.samplesPath)} is from the freezegate pytest plugin's run at this commit, but no applied record of that run is at ${candidates.map((c) => show(ctx.root, c)).join(" or ")}: what the run froze, muted and deselected cannot be checked`,
        {
          fix: "keep the plugin's record at its default place, or set freezegate_record in pytest's config (not --freezegate-record on pytest's command line)",
        },
      );
    }
  }
  // The data's tests, read once: for deselected frozen tests, and as the known tests when no
  // collected list is given.
  const coverage = {
    ...(request.audit.coverage === undefined ? {} : { coverage: request.audit.coverage }),
    cwd: request.audit.cwd ?? ctx.cwd,
  };
  let dataTests: ReturnType<typeof loadKnownTests> | null = null;
  if (thisRun?.record.deselectedFrozen?.length) {
    // Tests another job ran are in the combined data: only those nobody ran are refused.
    dataTests = loadKnownTests({ root: ctx.root, ...coverage, testRoot: request.audit.testRoot });
    const inData = dataTests.ids;
    refuseDeselectedFrozen(thisRun, ctx.ledgerLabel, (id) => inData?.has(id) ?? false);
  }
  const blocking = (g: Gate) => ledger.policy.blocking.includes(g);

  const audit = await runAudit({
    ...request.audit,
    cwd: coverage.cwd,
    root: ctx.root,
    patch: { kind: "range", base: request.base },
    frozen: ctx.ledgerPath,
    // A test an xfail mutes defends nothing, whoever put the marker there (a conftest.py
    // of the patch): judged as frozen.
    ...(thisRun?.record.muted?.length
      ? {
          alsoFrozen: {
            ids: thisRun.record.muted,
            label: `muted by an xfail outside the ledger (the applied record ${thisRun.label})`,
          },
        }
      : {}),
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

  const shadow = shadowGate(audit.audit, blocking("shadow"));
  const gates: CheckGate[] = [
    {
      ...shadow,
      notes: [
        ...shadow.notes,
        ...policyNotes(patch, "shadow"),
        ...mutedNotes(thisRun),
        ...(unnamedSamples === null ? [] : [unnamedSamples]),
        ...(audit.settingsChange === null || audit.settingsChange.changed.length === 0
          ? []
          : [
              `the patch changes ${audit.settingsChange.changed.join(", ")} in the repository's config: judged by the stricter of its settings and those at the merge base`,
            ]),
        ...(audit.settingsChange?.frozen === undefined
          ? []
          : [frozenListMovedWords(audit.settingsChange.frozen, "the merge base")]),
      ],
    },
  ];
  gates.push({
    gate: "shape",
    blocking: blocking("shape"),
    ran: true,
    findings: sortFindings(
      checkShape(ledger, { today: request.today, knownTests: knownTests.ids }),
    ),
    notes: [
      ...policyNotes(patch, "shape"),
      `judged on ${request.today} (UTC)`,
      knownTests.ids === null
        ? `unknown-test not judged: ${knownTests.description}`
        : `known tests: ${knownTests.description}`,
    ],
  });
  const witness = asCheckGate(
    await runWitnessGate(ctx, {
      base: request.base,
      always: request.alwaysWitness,
      knownTests: () => knownTests.ids,
      ...(thisRun?.record.muted?.length
        ? { muted: { ids: thisRun.record.muted, label: `the applied record ${thisRun.label}` } }
        : {}),
      ...(thisRun?.record.skipped?.length
        ? {
            skipped: {
              ids: thisRun.record.skipped,
              label: `the applied record ${thisRun.label}`,
            },
          }
        : {}),
    }),
  );
  if (thisRun !== null && thisRun.record.skipped === undefined) {
    // An older plugin: a skipped witness cannot be seen, and would pass unnoticed.
    witness.notes.push(
      `the applied record ${thisRun.label} does not list skipped tests (a plugin older than this freezegate), so a skipped witness is not judged: update the freezegate pytest plugin`,
    );
  }
  gates.push(witness);
  if (knownTests.ids === null) {
    // The audit read the data, so this cannot happen unless the data names no tests, which
    // the audit refuses; still, never let the deposit gate pass unjudged.
    throw new InputError(`cannot judge the deposits: ${knownTests.description}`, {
      fix: KNOWN_TESTS_FIX,
    });
  }
  gates.push(
    asCheckGate(
      await runDepositGate(ctx, {
        base: request.base,
        ...(request.samplesPath === undefined ? {} : { samplesPath: request.samplesPath }),
        known: { ...knownTests, ids: knownTests.ids },
        testRoot: request.audit.testRoot,
        ...(thisRun?.record.muted ? { muted: thisRun.record.muted } : {}),
        headCommit,
        ...(samplesRead === undefined ? {} : { samples: samplesRead }),
      }),
    ),
  );
  gates.push(
    asCheckGate(await runLockGate(ctx, { lockPath: request.lockPath, base: request.base })),
  );
  gates.push(
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
  );
  await judgeSweepRecord(gates, { ...ctx, ...request, ledger, known: knownTests.ids, headCommit });
  return { ledger, audit, knownTests, gates, passed: !gates.some(gateFailed) };
}
