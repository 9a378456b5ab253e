// `freezegate freeze`: add a freeze to the ledger, after checking what it withdraws. It
// refuses (exit 1, ledger untouched) when the test is unknown or already frozen, or when the
// freeze would take a property's last live witness; --force records it anyway and says what
// it withdrew. The checks run inside the ledger lock, against the ledger as it is then.

import { resolve } from "node:path";
import { updateLedgerFile } from "../../adapters/ledger-file.js";
import { depositOutlook, patchRange, patchRangeIfKnown } from "../../app/deposit-outlook.js";
import { readSweepEvidence, type SweepEvidence } from "../../app/gates/sweep.js";
import {
  KNOWN_TESTS_FIX,
  type KnownTests,
  type KnownTestsRequest,
  loadKnownTests,
} from "../../app/known-tests.js";
import { addDays } from "../../core/dates.js";
import type { FreezegateError } from "../../core/errors.js";
import type { Freeze, Ledger } from "../../core/ledger-model.js";
import { refusal } from "../../core/refusals/index.js";
import { sweepFindings } from "../../core/sweep.js";
import { frozenBy, frozenIds, witnessLoss } from "../../core/witness.js";
import { visible } from "../../reporters/words.js";
import {
  boolOpt,
  type CommandIo,
  type CommandSpec,
  type OptionValues,
  type ParsedArgs,
  stringOpt,
} from "../command.js";
import { BASE_OPTION, resolveBase } from "../gate-output.js";
import {
  assertWritableFormat,
  DIRECTORY_OPTION,
  KNOWN_TESTS_OPTIONS,
  LEDGER_OPTION,
  type LedgerContext,
  ledgerWriteOptions,
  resolveKnownTestsRequest,
  resolveLedgerContext,
  resolveToday,
  SWEEP_OPTION,
  TODAY_OPTION,
} from "../ledger-options.js";

/** The single TEST_ID positional of freeze / unfreeze / extend: one exact pytest node id. */
export function singleTestId(command: string, positionals: readonly string[]): string {
  if (positionals.length !== 1) {
    throw refusal("needs-one-test-id", { command, count: positionals.length });
  }
  const id = (positionals[0] as string).trim();
  if (id === "") throw notOneTestId(command, positionals[0] as string);
  return id;
}

/**
 * A TEST_ID that is not one test. An id holding "*" is one only when the suite has a test of
 * exactly that id (a parametrized case such as test_match[*.py]); `freeze` asks the known
 * tests, `extend` and `unfreeze` the ledger's own entries.
 */
export function notOneTestId(command: string, given: string): FreezegateError {
  return refusal("not-one-test-id", { command, given });
}

/** --days N: a whole number of days >= 1, or undefined when not given. */
export function daysOpt(values: OptionValues): number | undefined {
  const raw = stringOpt(values, "days");
  if (raw === undefined) return undefined;
  if (!/^\d+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw refusal("bad-count", { flag: "days", value: raw, min: 1, example: 7 });
  }
  return Number(raw);
}

function requiredText(values: OptionValues, name: string): string {
  const value = stringOpt(values, name)?.trim();
  if (!value) {
    throw refusal("freeze-needs-field", { flag: name });
  }
  return value;
}

export const freezeCommand: CommandSpec = {
  name: "freeze",
  summary: "Add a freeze to the ledger after checking what it withdraws.",
  usage:
    "freezegate freeze TEST_ID --owner O --reason R --invariant I --property P [--days N] [options]",
  positionals: true,
  options: [
    { name: "owner", type: "string", value: "O", description: "who answers for the freeze" },
    { name: "reason", type: "string", value: "R", description: "why the test is frozen" },
    {
      name: "invariant",
      type: "string",
      value: "I",
      description: "the invariant the frozen test guarded, in words",
    },
    {
      name: "property",
      type: "string",
      value: "P",
      description: "the compensating property test's node id",
    },
    {
      name: "days",
      type: "string",
      value: "N",
      description: "days until it expires (default and maximum: the policy's max_window_days)",
    },
    {
      name: "reused",
      type: "boolean",
      description: "the property already existed (it need not be in the patch's diff)",
    },
    { name: "approved-by", type: "string", value: "A", description: "who approved the freeze" },
    {
      name: "force",
      type: "boolean",
      description:
        "record it even when it withdraws a property's last witness or names an unknown test",
    },
    {
      ...BASE_OPTION,
      description:
        'the branch the patch will merge into, to tell whether the property\'s file is in the patch (default: the "base" config key)',
    },
    LEDGER_OPTION,
    TODAY_OPTION,
    SWEEP_OPTION,
    ...KNOWN_TESTS_OPTIONS,
    DIRECTORY_OPTION,
  ],
  details: `Opened is today (UTC), expires is today + N days. A freeze cannot outlive the policy's
window, opened + max_window_days: one made for the whole window (the default --days) cannot
be extended later. The ledger is created (default policy) when it does not exist yet.

When the ledger's policy.blocking lists "deposit", freeze warns (on stderr; the exit code is
the same) when check's deposit gate will fail the freeze: the samples artifact the last test
run left (.freezegate/samples.json in pytest's rootdir, or pytest's freezegate_samples) has
fewer than policy.min_distinct distinct inputs for the property, or none (a plain unit test
records none), or the property's file is not changed in the patch and --reused is not given.
docs/ledger.md says how to adopt the ledger one gate at a time.

Exit codes:
  0  recorded
  1  refused, ledger untouched: the test or the property is not a test the suite has (or
     the suite's tests are unknown: pass --collected or --coverage), the freeze would leave
     a property without a live witness, or the test is already frozen (use extend); and,
     whatever --force says, when the sweep record (--sweep FILE, else .freezegate/sweep.json
     in pytest's rootdir) has a failure of the test or the property that came back at its
     seed (frozen-sweep-failure, deposit-sweep-failure)
  2  usage or input error (e.g. --days above the policy's window)`,
  async run(args: ParsedArgs, io: CommandIo): Promise<number> {
    const flags = freezeFlags(args.values, args.positionals);
    const context = await resolveLedgerContext(args, io);
    const evidence = await freezeEvidence(args.values, io, context, flags);
    const outcome = await recordFreeze(context, io, flags, evidence);
    if ("refused" in outcome) {
      // Ids, owners and paths come from the user and the repository: one line, never a CI
      // workflow command (visible()).
      const { problems, fix } = outcome.refused;
      io.stderr.write(
        `${visible(`freezegate: refused to freeze ${flags.testId}: ${problems.join("; ")} (fix: ${fix})`)}\n`,
      );
      return 1;
    }
    reportFrozen(io, context, flags, outcome);
    await warnOfDepositGate(args.values, io, context, evidence, outcome);
    return 0;
  },
};

/** The freeze the flags describe, checked before anything is read. */
interface FreezeFlags {
  testId: string;
  owner: string;
  reason: string;
  invariant: string;
  property: string;
  approvedBy: string | undefined;
  /** --days, or undefined for the policy's whole window. */
  days: number | undefined;
  force: boolean;
  reused: boolean;
}

/** What the freeze is judged by, read before the ledger is locked. */
interface FreezeEvidence {
  today: string;
  knownRequest: KnownTestsRequest;
  known: KnownTests;
  /** The range a --base names; the config's base is read after the freeze. */
  range: Awaited<ReturnType<typeof patchRange>> | undefined;
  sweep: SweepEvidence | null;
}

/** Why the freeze was not recorded: the problems, and how to fix them. */
type Refused = { problems: string[]; fix: string };

/** The freeze recorded, and the ledger with it. */
interface Recorded {
  freeze: Freeze;
  ledger: Ledger;
  /** What --force let it withdraw (empty without --force). */
  withdrawn: string[];
  /** The ledger did not exist before. */
  created: boolean;
}

function freezeFlags(values: OptionValues, positionals: readonly string[]): FreezeFlags {
  const testId = singleTestId("freeze", positionals);
  const owner = requiredText(values, "owner");
  const reason = requiredText(values, "reason");
  const invariant = requiredText(values, "invariant");
  const property = requiredText(values, "property");
  const approvedBy = stringOpt(values, "approved-by")?.trim();
  if (approvedBy === "") {
    throw refusal("empty-flag-value", { flag: "approved-by", needs: "A" });
  }
  if (property === testId) {
    throw refusal("property-is-frozen-test", { testId });
  }
  return {
    testId,
    owner,
    reason,
    invariant,
    property,
    approvedBy,
    days: daysOpt(values),
    force: boolOpt(values, "force"),
    reused: boolOpt(values, "reused"),
  };
}

async function freezeEvidence(
  values: OptionValues,
  io: CommandIo,
  context: LedgerContext,
  { testId }: FreezeFlags,
): Promise<FreezeEvidence> {
  const today = resolveToday(values, io.env);
  const knownRequest = resolveKnownTestsRequest(values, context);
  const known = loadKnownTests(knownRequest);
  // A --base given here must name a range (exit 2 before anything is written); the config's
  // base is read after the freeze, as far as this clone has it.
  const baseFlag = stringOpt(values, "base");
  const range = baseFlag === undefined ? undefined : await patchRange(context.root, baseFlag);
  // A glob is written by hand in the ledger, never through freeze.
  if (testId.includes("*") && !(known.ids?.has(testId) ?? false)) {
    throw notOneTestId("freeze", testId);
  }
  const sweepFlag = stringOpt(values, "sweep");
  const sweep = await readSweepEvidence({
    root: context.root,
    testRoot: knownRequest.testRoot,
    ledgerPath: context.ledgerPath,
    ledgerLabel: context.ledgerLabel,
    ...(sweepFlag === undefined ? {} : { sweepPath: resolve(context.cwd, sweepFlag) }),
  });
  return { today, knownRequest, known, range, sweep };
}

/** The freeze judged and written under the ledger's lock, against the ledger as it is then. */
async function recordFreeze(
  context: LedgerContext,
  io: CommandIo,
  flags: FreezeFlags,
  evidence: FreezeEvidence,
): Promise<{ refused: Refused } | Recorded> {
  let judged: ReturnType<typeof judgeFreeze> | null = null;
  const update = await updateLedgerFile(
    context.ledgerPath,
    (current) => {
      assertWritableFormat(current, context.ledgerLabel);
      judged = judgeFreeze(current, flags, evidence, context.ledgerLabel);
      return "refused" in judged ? null : judged.ledger;
    },
    { createIfMissing: true, ...ledgerWriteOptions(io) },
  );
  const outcome = judged as ReturnType<typeof judgeFreeze> | null;
  if (outcome === null) throw new Error("freeze: nothing recorded and nothing refused");
  return "refused" in outcome ? outcome : { ...outcome, created: update.before === null };
}

/**
 * The ledger with the freeze added, or why not: the policy's limits (exit 2), a test frozen
 * already (by its own entry or a glob), a failure the sweep reproduced, and, unless --force,
 * an unknown test or property, a frozen property, or a property left without a live witness.
 */
function judgeFreeze(
  current: Ledger,
  flags: FreezeFlags,
  { today, known, sweep }: FreezeEvidence,
  ledgerLabel: string,
): { refused: Refused } | Omit<Recorded, "created"> {
  const { testId, owner, reason, invariant, property, approvedBy, reused } = flags;
  const days = daysWithinPolicy(current, flags);
  const existing = current.freezes.find((f) => f.test_id === testId);
  if (existing) {
    return {
      refused: {
        problems: [`${testId} is already frozen (until ${existing.expires || "?"})`],
        fix: `to change its expiry run freezegate extend ${testId} --days N`,
      },
    };
  }
  // Frozen already by a hand-written glob entry, as the audit reads the ledger.
  const byFreeze = frozenBy(frozenIds(current), [testId, property], known.ids);
  const glob = byFreeze.get(testId);
  if (glob !== undefined) {
    return {
      refused: {
        problems: [`${testId} is already frozen by the entry ${glob}`],
        fix: `edit that entry in ${ledgerLabel} if ${testId} should be frozen on its own terms`,
      },
    };
  }
  const broken = sweepRefusal(current, flags, today, sweep, known);
  if (broken !== null) return { refused: broken };
  const { problems, fixes } = whatItWithdraws(current, flags, known, byFreeze.get(property));
  const fix = `${fixes.join("; ")}; or pass --force to record the freeze anyway`;
  if (problems.length > 0 && !flags.force) return { refused: { problems, fix } };
  const freeze: Freeze = {
    test_id: testId,
    reason,
    owner,
    opened: today,
    expires: addDays(today, days),
    invariant,
    compensating_property: property,
    reused_property: reused,
    ...(approvedBy === undefined ? {} : { approved_by: approvedBy }),
  };
  return {
    freeze,
    ledger: { ...current, freezes: [...current.freezes, freeze] },
    withdrawn: problems,
  };
}

/**
 * The freeze's days (--days, else the whole window) within the policy: no longer than its
 * window, and approved by someone other than the owner where it requires approval (exit 2).
 */
function daysWithinPolicy(current: Ledger, { days, approvedBy, owner }: FreezeFlags): number {
  const max = current.policy.max_window_days;
  const wanted = days ?? max;
  if (wanted > max) {
    throw refusal("days-over-policy-window", { days: wanted, max });
  }
  if (current.policy.require_approval && approvedBy === undefined) {
    throw refusal("freeze-needs-approver", { owner: null });
  }
  if (current.policy.require_approval && approvedBy === owner) {
    throw refusal("freeze-needs-approver", { owner });
  }
  return wanted;
}

/**
 * A property the sweep found failing at a seed is a reproduced defect: freezing it, or
 * depositing it, turns a known bug into an unowned one. --force does not change that.
 */
function sweepRefusal(
  current: Ledger,
  { testId, reason, owner, invariant, property, reused }: FreezeFlags,
  today: string,
  sweep: SweepEvidence | null,
  known: KnownTests,
): Refused | null {
  const broken = sweepFindings(
    {
      ...current,
      freezes: [
        {
          test_id: testId,
          reason,
          owner,
          opened: today,
          expires: today,
          invariant,
          compensating_property: property,
          reused_property: reused,
        },
      ],
    },
    sweep?.standing ?? [],
    known.ids,
  );
  if (broken.length === 0) return null;
  return {
    problems: broken.map((f) => `${f.message} (${f.code})`),
    fix: "fix the property, then run the recorded command: a sweep that passes it at that seed clears the record",
  };
}

/**
 * What the freeze would withdraw, with the fix for each (--force records it anyway): a test
 * or property the suite does not have (or cannot be told), a property that is itself frozen,
 * a property left without a live witness.
 */
function whatItWithdraws(
  current: Ledger,
  { testId, property }: FreezeFlags,
  known: KnownTests,
  propertyFrozenBy: string | undefined,
): { problems: string[]; fixes: string[] } {
  const problems: string[] = [];
  const fixes: string[] = [];
  if (known.ids === null) {
    problems.push(`freezegate cannot tell whether ${testId} is a test (${known.description})`);
    fixes.push(KNOWN_TESTS_FIX);
  } else {
    for (const [what, id] of [
      ["the test", testId],
      ["the compensating property", property],
    ] as const) {
      if (!known.ids.has(id)) problems.push(`${what} ${id} is not a test the suite has`);
    }
    if (problems.length > 0) {
      fixes.push(
        `check the ids (${known.runner?.advice.exactIds ?? "pytest --collect-only -q lists them"})`,
      );
    }
  }
  if (propertyFrozenBy !== undefined) {
    problems.push(
      `the compensating property ${property} is itself frozen${propertyFrozenBy === property ? "" : ` (by ${propertyFrozenBy})`}, so it does not run`,
    );
    fixes.push("name a property test that is not frozen");
  }
  const losses = witnessLoss(current, [testId], known.ids);
  for (const loss of losses) problems.push(loss.message);
  if (losses.length > 0) {
    fixes.push("give the property another live witness in its witnessed_by first");
  }
  return { problems, fixes };
}

function reportFrozen(
  io: CommandIo,
  context: LedgerContext,
  { testId, owner }: FreezeFlags,
  { freeze, withdrawn, created }: Recorded,
): void {
  const createdNote = created ? ` (created ${context.ledgerLabel})` : "";
  io.stdout.write(
    `${visible(`froze ${testId} until ${freeze.expires} (owner ${owner}, opened ${freeze.opened}) in ${context.ledgerLabel}${createdNote}`)}\n`,
  );
  if (withdrawn.length > 0) {
    io.stdout.write(`${visible(`recorded with --force; it withdrew: ${withdrawn.join("; ")}`)}\n`);
  }
}

/**
 * A warning (the freeze is recorded all the same) when check's deposit gate, which the
 * policy blocks on, will fail this freeze, judged on the range --base or the config's base
 * names, as far as this clone has it.
 */
async function warnOfDepositGate(
  values: OptionValues,
  io: CommandIo,
  context: LedgerContext,
  { knownRequest, known, range }: FreezeEvidence,
  { freeze, ledger }: Recorded,
): Promise<void> {
  const base = resolveBase(values, context.config);
  const judgedRange =
    range ?? (base === undefined ? undefined : await patchRangeIfKnown(context.root, base));
  const foreseen = await depositOutlook({
    root: context.root,
    testRoot: knownRequest.testRoot,
    ledger,
    freeze,
    ...(known.runner === undefined ? {} : { runner: known.runner }),
    ...(judgedRange === undefined ? {} : { range: judgedRange }),
  });
  if (foreseen.clauses.length > 0) {
    const min = ledger.policy.min_distinct;
    io.stderr.write(
      `${visible(`freezegate: warning: recorded, but check's deposit gate, which policy.blocking lists, will fail this freeze: ${foreseen.clauses.join("; ")} (fix: deposit a property test of the invariant that runs on at least ${min} distinct inputs, ${foreseen.writer.propertyTest}, in this patch; until the project has property tests, leave "deposit" out of policy.blocking: docs/ledger.md)`)}\n`,
    );
  }
}
