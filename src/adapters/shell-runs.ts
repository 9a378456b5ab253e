// A user's command run through /bin/sh with arguments added, as mutant runs need it: in a
// process group of its own, so that a timeout, an interrupt or an error ends the whole tree
// (pytest and whatever it started), and with the end of its output kept for a message.

import { type ChildProcess, spawn } from "node:child_process";
import { shellWord } from "../core/shlex.js";

export interface ShellRun {
  /** The user's command, as the shell reads it (words, quotes, variables). */
  command: string;
  /** Words added after it, quoted for the shell here. */
  args: readonly string[];
  cwd: string;
  env: NodeJS.ProcessEnv;
  /** Kill the run after this long; null: never. */
  timeoutMs: number | null;
  /** Kill the run when this aborts. */
  signal?: AbortSignal | undefined;
}

export interface ShellResult {
  /** The exit code; null when a signal ended it. */
  code: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  /** The run was killed because `signal` aborted. */
  aborted: boolean;
  ms: number;
  /** The last lines of its stderr, or of its stdout when stderr is empty. */
  tail: string;
}

/** How much of each stream is kept for the tail. */
const TAIL_CHARS = 4000;

function keepTail(tail: string, chunk: Buffer): string {
  const joined = tail + chunk.toString("utf8");
  return joined.length > TAIL_CHARS ? joined.slice(-TAIL_CHARS) : joined;
}

/** Ends the child's process group; a group already gone is no error. */
function killGroup(child: ChildProcess): void {
  if (child.pid === undefined) return;
  try {
    process.kill(-child.pid, "SIGKILL");
  } catch {
    // the group has ended
  }
}

/** The shell command line: the user's command, then the words added, each quoted. */
export function shellLine(command: string, args: readonly string[]): string {
  return [command, ...args.map(shellWord)].join(" ");
}

/** Runs the command; resolves when it and its process group have ended, never rejects on its exit. */
export function runInShell(run: ShellRun): Promise<ShellResult> {
  const started = Date.now();
  return new Promise<ShellResult>((resolve, reject) => {
    if (run.signal?.aborted) {
      resolve({ code: null, signal: null, timedOut: false, aborted: true, ms: 0, tail: "" });
      return;
    }
    const child = spawn("/bin/sh", ["-c", shellLine(run.command, run.args)], {
      cwd: run.cwd,
      env: run.env,
      detached: true,
      stdio: ["ignore", "pipe", "pipe"],
    });
    let out = "";
    let err = "";
    let timedOut = false;
    let aborted = false;
    child.stdout?.on("data", (b: Buffer) => {
      out = keepTail(out, b);
    });
    child.stderr?.on("data", (b: Buffer) => {
      err = keepTail(err, b);
    });
    const timer =
      run.timeoutMs === null
        ? null
        : setTimeout(() => {
            timedOut = true;
            killGroup(child);
          }, run.timeoutMs);
    const onAbort = () => {
      aborted = true;
      killGroup(child);
    };
    run.signal?.addEventListener("abort", onAbort, { once: true });
    const settle = () => {
      if (timer !== null) clearTimeout(timer);
      run.signal?.removeEventListener("abort", onAbort);
    };
    child.on("error", (error) => {
      settle();
      reject(error);
    });
    // Whatever the command left running in its group (a server a test started) would keep the
    // pipes open and files of the copy in use: it ends with the command.
    child.on("exit", () => killGroup(child));
    child.on("close", (code, signal) => {
      settle();
      resolve({
        code,
        signal,
        timedOut,
        aborted,
        ms: Date.now() - started,
        tail: (err.trim() === "" ? out : err).trim(),
      });
    });
  });
}
