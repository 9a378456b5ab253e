// `freezegate witness check`: the witness gate. A property whose every witness is frozen (or
// that has none) has lost its last observer; a frozen property check is reported on its own.
// With a base, the gate bites only when the ledger changed in BASE...HEAD (or the run muted or
// skipped a property's test), since only a ledger change can freeze a witness; --always (or
// no base at all) judges it regardless.

import { runWitnessGate } from "../../app/gates/witness-gate.js";
import { loadKnownTests } from "../../app/known-tests.js";
import { boolOpt, type CommandGroup, type CommandSpec } from "../command.js";
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

export const witnessCheckCommand: CommandSpec = {
  name: "check",
  summary:
    "Fail when a property has no live witness left (every witnessed_by test frozen, or none recorded) or its own check is frozen.",
  usage: "freezegate witness check [--base REF] [--always] [options]",
  options: [
    LEDGER_OPTION,
    BASE_OPTION,
    {
      name: "always",
      type: "boolean",
      description: "judge even when the ledger did not change in BASE...HEAD",
    },
    ...KNOWN_TESTS_OPTIONS,
    FORMAT_OPTION,
    DIRECTORY_OPTION,
  ],
  details: `With a base (--base, or the "base" config key) the gate runs only when the ledger
changed in BASE...HEAD or has uncommitted changes; otherwise it reports "skipped" and exits 0.
Without any base it always runs (and says so).

A freeze's test_id that holds "*" is a glob, unless the suite has a test of exactly that id
(a parametrized case such as tests/test_x.py::test_y[*.py]): the suite's tests come from
--collected, else the coverage data (--coverage, or found as the audit finds it), and are read
only when some test_id holds "*". Without them such an entry is read as a glob.

Exit codes:
  0  every property keeps a live witness (or the gate was skipped)
  1  a property lost its last live witness, or its check is frozen
  2  usage, configuration, git or ledger error`,
  async run(args, io) {
    const format = resolveFormat(args.values);
    const ctx = await resolveLedgerContext(args, io);
    const base = resolveBase(args.values, ctx.config);
    const { result, notes } = await runWitnessGate(ctx, {
      ...(base === undefined ? {} : { base }),
      always: boolOpt(args.values, "always"),
      knownTests: () => loadKnownTests(resolveKnownTestsRequest(args.values, ctx)).ids,
    });
    io.stdout.write(renderGate(result, format, notes));
    return gateExitCode(result);
  },
};

export const witnessGroup: CommandGroup = {
  name: "witness",
  summary: "The witness gate: no freeze may take a property's last live witness.",
  subcommands: [witnessCheckCommand],
};
