// `freezegate deposit check`: the deposit gate. Every freeze's compensating
// property must be a collected test, be part of the patch that makes the freeze (unless it is
// a reused property), and have run on at least min_distinct distinct inputs per the samples
// artifact.

import { resolve } from "node:path";
import { runDepositGate } from "../../app/gates/deposit-gate.js";
import { loadKnownTests } from "../../app/known-tests.js";
import { refusal } from "../../core/refusals/index.js";
import { type CommandGroup, type CommandSpec, stringOpt } from "../command.js";
import {
  BASE_OPTION,
  FORMAT_OPTION,
  gateExitCode,
  renderGate,
  resolveBase,
  resolveFormat,
} from "../gate-output.js";
import {
  DIRECTORY_OPTION,
  KNOWN_TESTS_OPTIONS,
  LEDGER_OPTION,
  resolveKnownTestsRequest,
  resolveLedgerContext,
} from "../ledger-options.js";

export const depositCheckCommand: CommandSpec = {
  name: "check",
  summary:
    "Fail when a freeze's compensating property is not collected, not in the patch, or ran on too few distinct inputs.",
  usage: "freezegate deposit check --base REF [--samples FILE] [--collected FILE] [options]",
  options: [
    LEDGER_OPTION,
    BASE_OPTION,
    {
      name: "samples",
      type: "string",
      value: "FILE",
      description:
        'the samples artifact: distinct inputs per property test (docs/samples-artifact.md; a single session count {"distinct": N} too)',
    },
    ...KNOWN_TESTS_OPTIONS,
    FORMAT_OPTION,
    DIRECTORY_OPTION,
  ],
  details: `Only freezes that the patch adds or changes (compared with the ledger at the merge
base) must show their property's file in the diff: an older freeze made its deposit in the
patch that opened it. Without --samples every deposit lacks evidence of its inputs and fails.

Exit codes:
  0  every deposit holds
  1  a deposit finding (deposit-not-collected, deposit-not-in-diff, deposit-too-few-inputs)
  2  usage, configuration, git or input error (no base, no known tests, a malformed artifact)`,
  async run(args, io) {
    const format = resolveFormat(args.values);
    const ctx = await resolveLedgerContext(args, io);
    const base = resolveBase(args.values, ctx.config);
    if (base === undefined) {
      throw refusal("deposit-needs-base", undefined);
    }
    const request = resolveKnownTestsRequest(args.values, ctx);
    const known = loadKnownTests(request);
    if (known.ids === null) {
      throw refusal("known-tests-unknown", { why: known.description });
    }
    const samples = stringOpt(args.values, "samples");
    const { result, notes } = await runDepositGate(ctx, {
      base,
      ...(samples === undefined ? {} : { samplesPath: resolve(ctx.cwd, samples) }),
      known: { ...known, ids: known.ids },
      testRoot: request.testRoot,
    });
    io.stdout.write(renderGate(result, format, notes));
    return gateExitCode(result);
  },
};

export const depositGroup: CommandGroup = {
  name: "deposit",
  summary: "The deposit gate: every freeze's compensating property must really run.",
  subcommands: [depositCheckCommand],
};
