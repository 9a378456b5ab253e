// Wires this process to the program: its streams, directory and environment in, its exit
// code out. Shared by the two entries (main.ts, main-audit.ts).

import type { CommandIo } from "./command.js";
import type { LazyEntry } from "./commands/index.js";
import { main } from "./program.js";

/**
 * `exitWhenDone`: end the process as soon as the command has answered and its output is
 * written, instead of letting Node wind down its event loop and environment first (about
 * 10 ms at the end of every audit). Only for a command that awaits all its own work, and
 * only after an answer (exit 0 or 1): an error may leave work behind (a git process, its
 * temporary file) that the normal ending still tidies up.
 */
export function runProcess(
  commands: readonly LazyEntry[],
  { exitWhenDone = false }: { exitWhenDone?: boolean } = {},
): void {
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
      // Writes to files and pipes are synchronous on Linux; elsewhere a pipe may still hold
      // output, and then the process ends the usual way, after the output is flushed.
      const flushed = process.stdout.writableLength === 0 && process.stderr.writableLength === 0;
      if (exitWhenDone && code !== 2 && flushed) process.exit(code);
    },
    (error) => {
      process.stderr.write(`freezegate: internal error: ${String(error)}\n`);
      process.exitCode = 2;
    },
  );
}
