// Wires this process to the program: its streams, directory and environment in, its exit
// code out. Shared by the two entries (main.ts, main-audit.ts).

import type { CommandIo } from "./command.js";
import type { LazyEntry } from "./commands/index.js";
import { main } from "./program.js";

export function runProcess(commands: readonly LazyEntry[]): void {
  const io: CommandIo = {
    stdout: process.stdout,
    stderr: process.stderr,
    stdin: process.stdin,
    cwd: process.cwd(),
    env: process.env,
  };
  main(process.argv.slice(2), io, commands).then(
    (code) => {
      process.exitCode = code;
    },
    (error) => {
      process.stderr.write(`freezegate: internal error: ${String(error)}\n`);
      process.exitCode = 2;
    },
  );
}
