// `freezegate unfreeze`: remove a freeze from the ledger (the test counts again). Asking to
// unfreeze a test that is not frozen is an error: it usually means a typo in the id.

import { updateLedgerFile } from "../../adapters/ledger-file.js";
import type { Freeze } from "../../core/ledger-model.js";
import { refusal } from "../../core/refusals/index.js";
import { frozenBy, frozenIds } from "../../core/witness.js";
import { visible } from "../../reporters/words.js";
import type { CommandIo, CommandSpec, ParsedArgs } from "../command.js";
import {
  assertWritableFormat,
  DIRECTORY_OPTION,
  LEDGER_OPTION,
  ledgerWriteOptions,
  resolveLedgerContext,
} from "../ledger-options.js";
import { singleTestId } from "./freeze.js";

export const unfreezeCommand: CommandSpec = {
  name: "unfreeze",
  summary: "Remove a freeze from the ledger.",
  usage: "freezegate unfreeze TEST_ID [--ledger PATH]",
  positionals: true,
  options: [LEDGER_OPTION, DIRECTORY_OPTION],
  details: `Exit codes:
  0  removed (every entry of the test, if it was listed more than once)
  2  the test is not frozen, or usage or input error`,
  async run(args: ParsedArgs, io: CommandIo): Promise<number> {
    const testId = singleTestId("unfreeze", args.positionals);
    const context = await resolveLedgerContext(args, io);
    let removed: Freeze[] = [];
    await updateLedgerFile(
      context.ledgerPath,
      (current) => {
        assertWritableFormat(current, context.ledgerLabel);
        removed = current.freezes.filter((f) => f.test_id === testId);
        if (removed.length === 0) {
          const glob = frozenBy(frozenIds(current), [testId]).get(testId);
          if (glob !== undefined) {
            throw refusal("frozen-by-glob", { testId, ledger: context.ledgerLabel, glob });
          }
          throw refusal("not-frozen", { testId, ledger: context.ledgerLabel, command: "unfreeze" });
        }
        return { ...current, freezes: current.freezes.filter((f) => f.test_id !== testId) };
      },
      ledgerWriteOptions(io),
    );
    const first = removed[0] as Freeze;
    const since = first.opened ? `, frozen since ${first.opened}` : "";
    const owner = first.owner ? `owner ${first.owner}` : "no owner";
    const times = removed.length > 1 ? ` (${removed.length} entries)` : "";
    // The id, owner and ledger path come from the user and the repository: one line, never a
    // CI workflow command (visible()).
    io.stdout.write(
      `${visible(`unfroze ${testId} (${owner}${since})${times} in ${context.ledgerLabel}`)}\n`,
    );
    return 0;
  },
};
