// Wires this process to the program: its streams, directory and environment in, its exit
// code out. Shared by the two entries (main.ts, main-audit.ts).
//
// A reader that stops early (`| head`, a failed `| jq`) closes stdout under a report: that is
// the reader's choice, not a failure of the run, so the exit code stays the command's own (a
// gate that passed never turns into exit 1) and no stack trace is printed. Any other failure
// to write the output (a full disk) is exit 2: the answer did not arrive.

import { createRequire } from "node:module";
import { mark } from "../app/timing.js";
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
 * V8 compiles hot functions again, optimized, on background threads, and a Node process
 * ends only when those compilations are done (its exit joins the threads). Once what is left
 * of an audit is short (see AuditRequest.onLongLoopsDone: usually from the moment its data is
 * read), it is over before optimized code would pay off, and the compilations it would
 * start are only waited for: 8 to 15 ms of an audit that takes 150. Turning optimization off
 * from then on is V8's own `--no-opt` mode, in which code runs unoptimized and behaves the
 * same. Not in the build's sample run, whose code cache V8 only accepts under the flags the
 * run started with.
 */
function stopOptimizing(): void {
  if (process.env.FREEZEGATE_WRITE_CODE_CACHE === "1") return;
  const { setFlagsFromString } = requireBuiltin("node:v8") as typeof import("node:v8");
  setFlagsFromString("--no-opt");
  mark("optimizing stopped");
}

const requireBuiltin = createRequire(import.meta.url);

/**
 * `exitWhenDone`: end the process as soon as the command has answered and its output is
 * written, instead of letting Node wind down its event loop and environment first (about
 * 10 ms at the end of every audit). Only for a command that awaits all its own work, and
 * only after an answer (exit 0 or 1): an error may leave work behind (a git process, its
 * temporary file) that the normal ending still tidies up.
 */
export function runProcess(
  commands: readonly LazyEntry[],
  {
    exitWhenDone = false,
    optimizeToTheEnd = true,
  }: { exitWhenDone?: boolean; optimizeToTheEnd?: boolean } = {},
): void {
  // Without a listener a failed write is an uncaught 'error' event: a stack trace and exit 1.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on("error", () => {
      if (outputFailure() !== null) process.exitCode = 2;
    });
  }
  const io: CommandIo = {
    stdout: process.stdout,
    stderr: process.stderr,
    // A getter: the first read of process.stdin builds its stream (about 2 ms), and only
    // `--diff -` reads it.
    get stdin() {
      return process.stdin;
    },
    cwd: process.cwd(),
    env: process.env,
    ...(optimizeToTheEnd ? {} : { afterLongLoops: stopOptimizing }),
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
      // Writes to files and pipes are synchronous on Linux; elsewhere a pipe may still hold
      // output, and then the process ends the usual way, after the output is flushed.
      const flushed = process.stdout.writableLength === 0 && process.stderr.writableLength === 0;
      if (exitWhenDone && code !== 2 && flushed) process.exit(code);
    },
    (error) => {
      process.stderr.write(`freezegate: internal error: ${visible(String(error))}\n`);
      process.exitCode = 2;
    },
  );
}
