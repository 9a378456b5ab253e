// Wires this process to the program: its streams, directory and environment in, its exit
// code out. Shared by the two entries (main.ts, main-audit.ts).
//
// A reader that stops early (`| head`, a failed `| jq`) closes stdout under a report: that is
// the reader's choice, not a failure of the run, so the exit code stays the command's own (a
// gate that passed never turns into exit 1) and no stack trace is printed. Any other failure
// to write the output (a full disk) is exit 2: the answer did not arrive.

import { refusal } from "../core/refusals/index.js";
import { visible } from "../reporters/words.js";
import type { CommandIo } from "./command.js";
import type { LazyEntry } from "./commands/index.js";
import { errorLine, main } from "./program.js";

/** The first error writing stdout or stderr, unless it is a reader that went away. */
function outputFailure(): NodeJS.ErrnoException | null {
  for (const stream of [process.stdout, process.stderr]) {
    const error = stream.errored as NodeJS.ErrnoException | null;
    if (error && error.code !== "EPIPE") return error;
  }
  return null;
}

/**
 * What an entry may add to the process for speed alone (src/cli/speed.ts gives the audit's):
 * none changes an answer.
 */
export interface ProcessTricks {
  /** Told the exit code once the answer is written (not after an internal error). */
  afterAnswer?: (code: number) => void;
  /** Called once what is left of an audit is short (AuditHooks.onLongLoopsDone). */
  afterLongLoops?: () => void;
}

export function runProcess(commands: readonly LazyEntry[], tricks: ProcessTricks = {}): void {
  // Without a listener a failed write is an uncaught 'error' event: a stack trace and exit 1.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", () => {
      if (outputFailure() !== null) process.exitCode = 2;
    });
  }
  const io: CommandIo = {
    stdout: process.stdout,
    stderr: process.stderr,
    // A getter: the first read of process.stdin builds its stream, which costs start-up
    // time (docs/performance.md), and only `--diff -` reads it.
    get stdin() {
      return process.stdin;
    },
    cwd: process.cwd(),
    env: process.env,
    ...(tricks.afterLongLoops ? { afterLongLoops: tricks.afterLongLoops } : {}),
  };
  main(process.argv.slice(2), io, commands).then(
    (answer) => {
      const failed = outputFailure();
      const code = failed ? 2 : answer;
      if (failed && !process.stderr.errored) {
        // A system message can quote a path: one line, never a workflow command.
        process.stderr.write(
          `${errorLine(refusal("output-not-written", { why: failed.message }))}\n`,
        );
      }
      process.exitCode = code;
      tricks.afterAnswer?.(code);
    },
    (error) => {
      process.stderr.write(`freezegate: internal error: ${visible(String(error))}\n`);
      process.exitCode = 2;
    },
  );
}
