// Entry point of `freezegate audit` alone. The bundler makes it one self-contained file, which
// the binary loads when the first argument is "audit": the command CI runs on every patch
// then starts without resolving and linking a dozen shared chunks (about 10 ms on Node 20).
// Everything else goes through main.ts; both run the same program and the same command.

import { auditCommand } from "./commands/audit.js";
import { runProcess } from "./run-process.js";

runProcess([{ name: "audit", load: async () => auditCommand }], {
  exitWhenDone: true,
  optimizeToTheEnd: false,
});
