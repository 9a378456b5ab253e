// `freezegate extend`: move a freeze's expiry N days later, within the policy's window. N
// counts from the current expiry, not from today: "extend by N days" is how the word reads,
// and it can never give an expiry that is not later than the current one. The window is
// counted from `opened`, which extend never moves: the total life of a freeze stays bounded
// by max_window_days, so a freeze that already expires on its window's last day cannot be
// extended at all. An expired freeze is not revived (expiry exists to force re-attestation):
// unfreeze it and freeze it again, which is a new reviewed record.

import { updateLedgerFile } from "../../adapters/ledger-file.js";
import { addDays, daysBetween, isDay } from "../../core/dates.js";
import { refusal } from "../../core/refusals/index.js";
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
      description:
        "how many days to add to the freeze's current expiry (not counted from today; required)",
    },
    LEDGER_OPTION,
    TODAY_OPTION,
    DIRECTORY_OPTION,
  ],
  details: `--days N moves the expiry N days later: a freeze expiring on 2026-10-20 extended with
--days 3 expires on 2026-10-23, whatever day it is today. The window opened..expires must
stay within the policy's max_window_days, and opened does not move: the latest allowed
expiry is opened + max_window_days. A freeze that already expires then (freeze's default
--days) cannot be extended; neither can an expired freeze. Fix the test and unfreeze it, or
unfreeze it and freeze it again with a fresh review (a new window).

Exit codes:
  0  extended
  1  refused, ledger untouched: the freeze has expired, or the new expiry is later than the
     window allows (the message gives the latest allowed expiry and the most --days allowed)
  2  the test is not frozen, or usage/input error`,
  async run(args: ParsedArgs, io: CommandIo): Promise<number> {
    const testId = singleTestId("extend", args.positionals);
    const days = daysOpt(args.values);
    if (days === undefined) {
      throw refusal("extend-needs-days", { testId });
    }
    const context = await resolveLedgerContext(args, io);
    const today = resolveToday(args.values, io.env);
    const again = `unfreeze it and freeze it again with a fresh review (freezegate unfreeze ${testId}, then freezegate freeze ${testId} ...), or fix the test and unfreeze it`;
    let declined: { problem: string; fix: string } | null = null;
    let result = { opened: "", previous: "", expires: "", max: 0 };
    await updateLedgerFile(
      context.ledgerPath,
      (current) => {
        assertWritableFormat(current, context.ledgerLabel);
        const matches = current.freezes.filter((f) => f.test_id === testId);
        const freeze = matches[0];
        if (freeze === undefined) {
          throw refusal("not-frozen", { testId, ledger: context.ledgerLabel, command: "extend" });
        }
        if (matches.length > 1) {
          throw refusal("frozen-twice", {
            testId,
            ledger: context.ledgerLabel,
            count: matches.length,
          });
        }
        if (!isDay(freeze.opened) || !isDay(freeze.expires)) {
          throw refusal("freeze-window-unreadable", {
            testId,
            opened: freeze.opened,
            expires: freeze.expires,
          });
        }
        const max = current.policy.max_window_days;
        const latest = addDays(freeze.opened, max);
        if (daysBetween(freeze.expires, today) > 0) {
          declined = {
            problem: `the freeze of ${testId} expired on ${freeze.expires}; an expired freeze is re-attested, not extended`,
            fix: again,
          };
          return null;
        }
        // Counted from the expiry, so the new one is always later: the window alone can refuse.
        const room = daysBetween(freeze.expires, latest);
        if (room <= 0) {
          declined = {
            problem: `the freeze of ${testId} cannot be extended: it expires on ${freeze.expires}, and the policy's window of ${max} days from its opening on ${freeze.opened} allows no expiry later than ${latest}`,
            fix: again,
          };
          return null;
        }
        if (days > room) {
          // A day count far past any calendar has no date to name.
          const target = days < 10_000_000 ? ` to ${addDays(freeze.expires, days)}` : "";
          declined = {
            problem: `extending ${testId} by ${days} days${target} (counted from its expiry ${freeze.expires}, not from today) goes past ${latest}, the latest expiry its window allows (opened ${freeze.opened}, max_window_days ${max})`,
            fix: `pass --days ${room} or fewer; past ${latest}, ${again}`,
          };
          return null;
        }
        const expires = addDays(freeze.expires, days);
        result = { opened: freeze.opened, previous: freeze.expires, expires, max };
        return {
          ...current,
          freezes: current.freezes.map((f) => (f === freeze ? { ...f, expires } : f)),
        };
      },
      ledgerWriteOptions(io),
    );
    const refused = declined as { problem: string; fix: string } | null;
    if (refused !== null) {
      // Ids and ledger values come from the user and the repository: one line, never a CI
      // workflow command (visible()).
      io.stderr.write(
        `${visible(`freezegate: refused to extend: ${refused.problem} (fix: ${refused.fix})`)}\n`,
      );
      return 1;
    }
    io.stdout.write(
      `${visible(`extended ${testId} by ${days} days, from ${result.previous} to ${result.expires} (opened ${result.opened}, ${daysBetween(result.opened, result.expires)} of ${result.max} days) in ${context.ledgerLabel}`)}\n`,
    );
    return 0;
  },
};
