// `freezegate stats`: the ledger's numbers (open freezes, median age, expired, deposit
// failures, orphaned properties, shadow ratio), optionally appended to a history file whose
// trend is shown, with a warning when the shadow ratio never moves.

import { appendFileSync } from "node:fs";
import { resolve } from "node:path";
import { readHeadCommit } from "../../adapters/git.js";
import { readLedgerFile } from "../../adapters/ledger-file.js";
import { readTextIfExists } from "../../adapters/repo-files.js";
import { ledgerCompensation } from "../../app/compensation.js";
import { runDepositGate } from "../../app/gates/deposit-gate.js";
import { loadKnownTests } from "../../app/known-tests.js";
import { runAudit } from "../../app/run-audit.js";
import {
  type Compensation,
  compensationFigure,
  compensationWords,
} from "../../core/compensation.js";
import type { Ledger } from "../../core/ledger-model.js";
import { refusal } from "../../core/refusals/index.js";
import {
  freezeAges,
  median,
  parseHistory,
  pct,
  type Stats,
  serializeStats,
  stagnation,
} from "../../core/stats.js";
import { checkWitnesses } from "../../core/witness.js";
import { visible } from "../../reporters/words.js";
import { auditSettings, DATA_OPTIONS, resolveDataOptions } from "../audit-options.js";
import { type CommandSpec, type OptionValues, stringOpt } from "../command.js";
import { BASE_OPTION, FORMAT_OPTION, resolveBase, resolveFormat } from "../gate-output.js";
import {
  COLLECTED_OPTION,
  DIRECTORY_OPTION,
  LEDGER_OPTION,
  type LedgerContext,
  refuseOtherFrozenKey,
  resolveLedgerContext,
  resolveToday,
  TODAY_OPTION,
} from "../ledger-options.js";

function readHistory(path: string): Stats[] {
  const text = readTextIfExists(path, "history");
  return text === null ? [] : parseHistory(text, path);
}

export const statsCommand: CommandSpec = {
  name: "stats",
  summary:
    "Ledger metrics: open freezes, median age, expired freezes, deposit failures, orphaned properties and the patch's shadow ratio, with a history trend.",
  usage: "freezegate stats [--base REF] [--history FILE] [options]",
  options: [
    LEDGER_OPTION,
    TODAY_OPTION,
    {
      ...BASE_OPTION,
      description: `${BASE_OPTION.description}; needed for the shadow ratio and deposit failures`,
    },
    ...DATA_OPTIONS.filter((o) => o.name !== "frozen"),
    COLLECTED_OPTION,
    {
      name: "samples",
      type: "string",
      value: "FILE",
      description: "the samples artifact, for deposit failures (docs/samples-artifact.md)",
    },
    {
      name: "history",
      type: "string",
      value: "FILE",
      description: "append this run to FILE (JSON lines) and show the trend",
    },
    {
      name: "stale-runs",
      type: "string",
      value: "N",
      description:
        "warn when freezes exist and the shadow ratio has not moved over N runs (default 5)",
    },
    FORMAT_OPTION,
    DIRECTORY_OPTION,
  ],
  details: `Without a base (--base, or the "base" config key) the shadow ratio and deposit failures
are not measured (null). The history file is JSON lines, one object per run; anything else
in it is an error (exit 2) and nothing is appended.

Exit codes: 0 figures printed (a stagnation warning does not fail), 2 usage or input error.`,
  async run(args, io) {
    const format = resolveFormat(args.values);
    const ctx = await resolveLedgerContext(args, io);
    refuseOtherFrozenKey(ctx, "stats");
    const today = resolveToday(args.values, io.env);
    const staleRuns = staleRunsOpt(args.values);
    const historyFlag = stringOpt(args.values, "history");
    const historyPath = historyFlag === undefined ? undefined : resolve(ctx.cwd, historyFlag);
    // Read (and so validate) the history before anything else: a bad file writes nothing.
    const history = historyPath === undefined ? [] : readHistory(historyPath);

    const ledger = readLedgerFile(ctx.ledgerPath);
    const { ages, expired } = freezeAges(ledger, today);
    const orphaned = checkWitnesses(ledger).filter((f) => f.code === "orphaned-property").length;
    const patch = await patchFigures(args.values, ctx, ledger);
    const stats: Stats = {
      date: today,
      commit: await headCommitIfAny(ctx.root),
      openFreezes: ledger.freezes.length,
      medianAgeDays: median(ages),
      expired,
      depositFailures: patch.depositFailures,
      orphanedProperties: orphaned,
      shadowRatio: patch.shadowRatio,
    };
    const all = [...history, stats];
    const warning = stagnation(all, staleRuns);
    if (historyPath !== undefined) appendHistory(historyPath, stats);
    const shown: StatsShown = { stats, all, patch, warning, history: historyFlag ?? null };
    io.stdout.write(format === "json" ? jsonReport(shown) : textReport(ctx.ledgerLabel, shown));
    return 0;
  },
};

/** The figures that need the patch (a base): null, with a note, where they were not measured. */
interface PatchFigures {
  shadowRatio: number | null;
  depositFailures: number | null;
  compensation: Compensation[] | null;
  notes: string[];
}

/** One run's figures and the history they join, as the reports show them. */
interface StatsShown {
  stats: Stats;
  /** The history's runs and this one. */
  all: Stats[];
  patch: PatchFigures;
  warning: string | null;
  /** --history as given, or null. */
  history: string | null;
}

/** --stale-runs N: a whole number of at least 2 (default 5). */
function staleRunsOpt(values: OptionValues): number {
  const raw = stringOpt(values, "stale-runs") ?? "5";
  const staleRuns = Number(raw);
  if (!Number.isInteger(staleRuns) || staleRuns < 2) {
    throw refusal("bad-count", { flag: "stale-runs", value: raw, min: 2, example: 5 });
  }
  return staleRuns;
}

/**
 * The shadow ratio (the audit of BASE...HEAD), each freeze's compensation and the deposit
 * failures, all against the base (--base or the config's); without one, notes say so and
 * which flags went unread.
 */
async function patchFigures(
  values: OptionValues,
  ctx: LedgerContext,
  ledger: Ledger,
): Promise<PatchFigures> {
  const figures: PatchFigures = {
    shadowRatio: null,
    depositFailures: null,
    compensation: null,
    notes: [],
  };
  const { notes } = figures;
  const base = resolveBase(values, ctx.config);
  if (base === undefined) {
    notes.push("no base given: shadow ratio, deposit failures and compensation not measured");
    const unread = ["samples", "collected", "coverage"].filter(
      (name) => stringOpt(values, name) !== undefined,
    );
    if (unread.length > 0) {
      notes.push(
        `${unread.map((name) => `--${name}`).join(", ")} not read: ${unread.length === 1 ? "it counts" : "they count"} only with a base (--base REF)`,
      );
    }
    return figures;
  }
  const data = resolveDataOptions(values, ctx.config, ctx.cwd, ctx.root);
  const collected = stringOpt(values, "collected");
  const samples = stringOpt(values, "samples");
  // The ratio does not depend on the gate: fail-on is the one verdict that always fails.
  const run = await runAudit({
    ...auditSettings(data, ["shadowed"], ctx.cwd),
    root: ctx.root,
    patch: { kind: "range", base },
    frozen: ctx.ledgerPath,
  });
  figures.shadowRatio = run.audit.summary.shadowRatio;
  figures.compensation = ledgerCompensation({ ...data, root: ctx.root, cwd: ctx.cwd, ledger });
  const known = loadKnownTests({
    root: ctx.root,
    cwd: ctx.cwd,
    ...(collected === undefined ? {} : { collected: resolve(ctx.cwd, collected) }),
    ...(data.coverage === undefined ? {} : { coverage: data.coverage }),
    testRoot: data.testRoot,
  });
  if (known.ids === null) {
    notes.push(`deposit failures not measured: ${known.description}`);
  } else if (samples === undefined) {
    // Without the samples every deposit lacks its evidence: a count of the missing input,
    // not of failures.
    notes.push("no --samples artifact: deposit failures not measured");
  } else {
    const deposit = await runDepositGate(ctx, {
      base,
      samplesPath: resolve(ctx.cwd, samples),
      known: { ...known, ids: known.ids },
      testRoot: data.testRoot,
    });
    figures.depositFailures = new Set(
      deposit.result.findings
        .filter((f) => f.severity === "error")
        .map((f) => f.testId ?? f.message),
    ).size;
  }
  return figures;
}

/** HEAD's commit, or null: a repository without commits still has a ledger to count. */
async function headCommitIfAny(root: string): Promise<string | null> {
  try {
    return await readHeadCommit(root);
  } catch {
    return null;
  }
}

function appendHistory(path: string, stats: Stats): void {
  try {
    appendFileSync(path, serializeStats(stats));
  } catch (error) {
    throw refusal(
      "write-failed",
      {
        what: "the history",
        path,
        why: (error as Error).message,
        nothingWritten: false,
      },
      { cause: error },
    );
  }
}

function jsonReport({ stats, all, patch, warning, history }: StatsShown): string {
  const body = {
    schema: "freezegate/stats",
    schemaVersion: 1,
    stats,
    history: history === null ? null : all,
    compensation: patch.compensation === null ? null : patch.compensation.map(compensationFigure),
    warning,
    notes: patch.notes,
  };
  return `${JSON.stringify(body, null, 2)}\n`;
}

function textReport(
  ledgerLabel: string,
  { stats, all, patch, warning, history }: StatsShown,
): string {
  const out = [
    `freezegate stats for ${ledgerLabel} on ${stats.date}`,
    `  open freezes        ${stats.openFreezes}`,
    `  median age (days)   ${stats.medianAgeDays ?? "n/a"}`,
    `  expired             ${stats.expired}`,
    `  deposit failures    ${stats.depositFailures ?? "n/a"}`,
    `  orphaned properties ${stats.orphanedProperties}`,
    `  shadow ratio        ${pct(stats.shadowRatio)}`,
    ...(patch.compensation ?? []).map(
      (c) => `  compensation of ${visible(c.testId)}: ${visible(compensationWords(c))}`,
    ),
  ];
  for (const note of patch.notes) out.push(`note: ${note}`);
  if (history !== null) {
    out.push("", `trend (last ${Math.min(all.length, 10)} of ${all.length} runs in ${history}):`);
    out.push("  date        freezes  expired  orphaned  shadow");
    for (const s of all.slice(-10)) {
      out.push(
        `  ${s.date}  ${String(s.openFreezes).padStart(7)}  ${String(s.expired).padStart(7)}  ${String(s.orphanedProperties).padStart(8)}  ${pct(s.shadowRatio).padStart(6)}`,
      );
    }
  }
  if (warning) out.push("", `warning: ${warning}`);
  return `${out.join("\n")}\n`;
}
