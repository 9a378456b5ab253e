// `freezegate extend`: move a freeze's expiry to today + N days, within the policy's window.
// The window is counted from `opened`, which extend never moves: the total life of a freeze
// stays bounded by max_window_days. An expired freeze is not revived (expiry exists to force
// re-attestation): unfreeze it and freeze it again, which is a new reviewed record.

import { updateLedgerFile } from "../../adapters/ledger-file.js";
import { addDays, daysBetween, isDay } from "../../core/dates.js";
import { InputError, UsageError } from "../../core/errors.js";
import { visible } from "../../reporters/words.js";
import type { CommandIo, CommandSpec, ParsedArgs } from "../command.js";
import {
  assertWritableFormat,
  DIRECTORY_OPTION,
  LEDGER_OPTION,
  ledgerWriteOptions,
  resolveLedgerContext,
  resolveToday,
  TODAY_OPTION,
} from "../ledger-options.js";
import { daysOpt, singleTestId } from "./freeze.js";

export const extendCommand: CommandSpec = {
  name: "extend",
  summary: "Extend a freeze, within the policy's window.",
  usage: "freezegate extend TEST_ID --days N [--today YYYY-MM-DD] [--ledger PATH]",
  positionals: true,
  options: [
    {
      name: "days",
      type: "string",
      value: "N",
      description: "the freeze now expires N days after today (required)",
    },
    LEDGER_OPTION,
    TODAY_OPTION,
    DIRECTORY_OPTION,
  ],
  details: `The window opened..expires must stay within the policy's max_window_days; opened does not
move. An expired freeze cannot be extended: unfreeze it and freeze it again (a new review).

Exit codes:
  0  extended
  1  refused, ledger untouched: the freeze has expired, or the new expiry exceeds the window
  2  the test is not frozen, --days would not move the expiry later, or usage/input error`,
  async run(args: ParsedArgs, io: CommandIo): Promise<number> {
    const testId = singleTestId("extend", args.positionals);
    const days = daysOpt(args.values);
    if (days === undefined) {
      throw new UsageError("extend needs --days N", {
        fix: `freezegate extend ${testId} --days 7`,
      });
    }
    const context = await resolveLedgerContext(args, io);
    const today = resolveToday(args.values, io.env);
    const expires = addDays(today, days);
    let refusal: { problem: string; fix: string } | null = null;
    let result = { opened: "", previous: "", max: 0 };
    await updateLedgerFile(
      context.ledgerPath,
      (current) => {
        assertWritableFormat(current, context.ledgerLabel);
        const matches = current.freezes.filter((f) => f.test_id === testId);
        const freeze = matches[0];
        if (freeze === undefined) {
          throw new UsageError(`${testId} is not frozen in ${context.ledgerLabel}`, {
            fix: "check the test id; freeze it with freezegate freeze",
          });
        }
        if (matches.length > 1) {
          throw new InputError(
            `${testId} is frozen ${matches.length} times in ${context.ledgerLabel}`,
            { fix: "keep one entry (freezegate ledger check reports the duplicate)" },
          );
        }
        if (!isDay(freeze.opened) || !isDay(freeze.expires)) {
          throw new InputError(
            `the freeze of ${testId} has no valid opened/expires days ("${freeze.opened}", "${freeze.expires}"), so its window cannot be judged`,
            { fix: `unfreeze it and freeze it again: freezegate unfreeze ${testId}` },
          );
        }
        const max = current.policy.max_window_days;
        result = { opened: freeze.opened, previous: freeze.expires, max };
        if (daysBetween(freeze.expires, today) > 0) {
          refusal = {
            problem: `the freeze of ${testId} expired on ${freeze.expires}; an expired freeze is re-attested, not extended`,
            fix: `freezegate unfreeze ${testId}, then freezegate freeze it again with a fresh review`,
          };
          return null;
        }
        if (daysBetween(freeze.expires, expires) <= 0) {
          throw new UsageError(
            `--days ${days} gives ${expires}, which is not later than the current expiry ${freeze.expires}`,
            { fix: "pass more days, or unfreeze the test to end the freeze early" },
          );
        }
        const window = daysBetween(freeze.opened, expires);
        if (window > max) {
          refusal = {
            problem: `extending ${testId} to ${expires} would make its window ${window} days (opened ${freeze.opened}), more than the policy's ${max}`,
            fix: `the latest allowed expiry is ${addDays(freeze.opened, max)}; past that, unfreeze and freeze it again (a new review)`,
          };
          return null;
        }
        return {
          ...current,
          freezes: current.freezes.map((f) => (f === freeze ? { ...f, expires } : f)),
        };
      },
      ledgerWriteOptions(io),
    );
    const refused = refusal as { problem: string; fix: string } | null;
    if (refused !== null) {
      // Ids and ledger values come from the user and the repository: one line, never a CI
      // workflow command (visible()).
      io.stderr.write(
        `${visible(`freezegate: refused to extend: ${refused.problem} (fix: ${refused.fix})`)}\n`,
      );
      return 1;
    }
    io.stdout.write(
      `${visible(`extended ${testId} from ${result.previous} to ${expires} (opened ${result.opened}, ${daysBetween(result.opened, expires)} of ${result.max} days) in ${context.ledgerLabel}`)}\n`,
    );
    return 0;
  },
};
