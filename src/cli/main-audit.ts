// Entry point of `freezegate audit` alone. The bundler makes it one self-contained file, which
// the binary loads when the first argument is "audit": the command CI runs on every patch
// then starts without resolving and linking a dozen shared chunks (docs/performance.md).
// Everything else goes through main.ts; both run the same program and the same command.

import { auditCommand } from "./commands/audit.js";
import { runProcess } from "./run-process.js";
import { AUDIT_PROCESS_TRICKS } from "./speed.js";

runProcess([{ name: "audit", load: async () => auditCommand }], AUDIT_PROCESS_TRICKS);
