// Every command the CLI knows, in the order `freezegate --help` lists them.

import type { CommandSpec } from "../command.js";
import { auditCommand } from "./audit.js";
import { doctorCommand } from "./doctor.js";

export const COMMANDS: CommandSpec[] = [auditCommand, doctorCommand];
