// The command line's tricks that exist only for speed, in one place: none changes an answer,
// and each can be taken out without another change (bench/tricks.mjs does, to measure them).
// What each one saves: docs/performance.md.
//
// - fromRepoRoot: with --base on the command line, the audit starts from the root git will most
//   likely name instead of waiting for git, and starts again from git's root when it names
//   another (AuditHooks.abandonIf).
// - stopOptimizing: V8's optimizer is turned off once what is left of an audit is short
//   (AuditHooks.onLongLoopsDone).
// - endWhenAnswered: the process ends as soon as the answer is written.
//
// Only the `audit` entry (main-audit.ts) takes the process-level ones; every other command
// starts without loading this module.

import { createRequire } from "node:module";
import { type EarlyRange, findRepoRoot, guessRepoRoot } from "../adapters/git.js";
import type { AuditHooks } from "../app/run-audit.js";
import { mark } from "../app/timing.js";
import type { ProcessTricks } from "./run-process.js";

/**
 * `work` run from the repository's root. With a range git has started on (`early`), it starts
 * from the root git will most likely name, without waiting for git; its result counts only
 * when git names that root, else (AuditAbandoned, or any other outcome) everything is done
 * again from git's. The hooks' onDataFiles is told the data files once, however many times
 * the work starts.
 */
export async function fromRepoRoot<T>(
  cwd: string,
  early: EarlyRange | null,
  hooks: AuditHooks,
  work: (root: string, hooks: AuditHooks) => Promise<T>,
): Promise<T> {
  const guess = early === null ? null : guessRepoRoot(cwd);
  const once = announcedOnce(hooks);
  if (early !== null && guess !== null) {
    let named: string | null | undefined; // git's root once rev-parse has answered
    early.root.then(
      (root) => {
        named = root;
      },
      () => {
        named = null;
      },
    );
    const abandonIf = () => named !== undefined && named !== guess;
    let outcome: { done: T } | { error: unknown };
    try {
      outcome = { done: await work(guess, { ...once, abandonIf }) };
    } catch (error) {
      outcome = { error };
    }
    // An abandoned run (AuditAbandoned) means git named another root: it is never kept.
    if ((await early.root) === guess) {
      if ("done" in outcome) return outcome.done;
      throw outcome.error;
    }
  }
  const root = (await early?.root) ?? (await findRepoRoot(cwd));
  mark("repo root");
  return work(root, once);
}

/** `hooks` whose onDataFiles says the same list of files only once. */
function announcedOnce(hooks: AuditHooks): AuditHooks {
  const { onDataFiles } = hooks;
  if (onDataFiles === undefined) return hooks;
  let announced: string | null = null;
  return {
    ...hooks,
    onDataFiles: (files) => {
      const list = files.join("\n");
      if (announced === list) return;
      announced = list;
      onDataFiles(files);
    },
  };
}

const requireBuiltin = createRequire(import.meta.url);

/**
 * V8's `--no-opt` from now on: code runs unoptimized and behaves the same. V8 compiles hot
 * functions again, optimized, on background threads, and a Node process ends only when those
 * compilations are done; once what is left of an audit is short, they are only waited for.
 * Not in the build's sample run, whose code cache V8 only accepts under the flags the run
 * started with.
 */
export function stopOptimizing(): void {
  if (process.env.FREEZEGATE_WRITE_CODE_CACHE === "1") return;
  const { setFlagsFromString } = requireBuiltin("node:v8") as typeof import("node:v8");
  setFlagsFromString("--no-opt");
  mark("optimizing stopped");
}

/**
 * Ends the process now, once a command that awaits all its own work has answered (exit 0 or
 * 1) and its output is written, instead of letting Node wind down its event loop and
 * environment first. Not after an error, which may leave work behind (a git process, its
 * temporary file) that the normal ending still tidies up.
 */
export function endWhenAnswered(code: number): void {
  // Writes to files and pipes are synchronous on Linux; elsewhere a pipe may still hold
  // output, and then the process ends the usual way, after the output is flushed.
  const flushed = process.stdout.writableLength === 0 && process.stderr.writableLength === 0;
  if (code !== 2 && flushed) process.exit(code);
}

/** The process-level tricks of the `audit` entry (main-audit.ts). */
export const AUDIT_PROCESS_TRICKS: ProcessTricks = {
  afterAnswer: endWhenAnswered,
  afterLongLoops: stopOptimizing,
};
