// Every command the CLI knows, in the order `freezegate --help` lists them.

import type { CliEntry } from "../command.js";
import { auditCommand } from "./audit.js";
import { checkCommand } from "./check.js";
import { depositGroup } from "./deposit.js";
import { doctorCommand } from "./doctor.js";
import { extendCommand } from "./extend.js";
import { freezeCommand } from "./freeze.js";
import { impactCommand } from "./impact.js";
import { ledgerGroup } from "./ledger.js";
import { lockCommand } from "./lock.js";
import { statsCommand } from "./stats.js";
import { unfreezeCommand } from "./unfreeze.js";
import { witnessGroup } from "./witness.js";

export const COMMANDS: CliEntry[] = [
  auditCommand,
  checkCommand,
  doctorCommand,
  ledgerGroup,
  freezeCommand,
  unfreezeCommand,
  extendCommand,
  impactCommand,
  witnessGroup,
  depositGroup,
  lockCommand,
  statsCommand,
];
