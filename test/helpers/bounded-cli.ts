// Runs the built freezegate binary for inputs that could make it hang or grow without end: a
// time limit (a hang fails the test instead of blocking CI) and a memory limit (a read that
// never stops fails fast instead of taking the machine's memory), optionally with stdin fed
// for ever (`yes '+x' | freezegate audit --diff -`) or as an unprivileged user.

import { spawn } from "node:child_process";
import { CLI, type CliResult } from "./cli.js";
import { isolatedGitEnv } from "./git-repo.js";

export interface BoundedRunOptions {
  cwd: string;
  env?: NodeJS.ProcessEnv;
  /** Written to stdin, then stdin is closed. */
  input?: string;
  /** Written to stdin again and again until the process exits. */
  endlessInput?: string;
  /** Fail (throw) after this long: the run hung. */
  timeoutMs?: number;
  /** Run as nobody (uid 65534) when the tests run as root, who may read any file. */
  unprivileged?: boolean;
}

/** The address space the CLI may use (ulimit -v, KiB): far above its real needs. */
const MEMORY_LIMIT_KIB = 2_000_000;

/** Whether `unprivileged` is needed here (running as root) — the tests then use setpriv. */
export const RUNNING_AS_ROOT = process.getuid?.() === 0;

export function runCliBounded(args: string[], opts: BoundedRunOptions): Promise<CliResult> {
  const timeoutMs = opts.timeoutMs ?? 30_000;
  const drop =
    opts.unprivileged && RUNNING_AS_ROOT
      ? ["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"]
      : [];
  const env = isolatedGitEnv({
    NO_COLOR: "1",
    FORCE_COLOR: undefined,
    FREEZEGATE_DEBUG: "",
    // git refuses a repository another user owns; this run is that other user on purpose.
    ...(drop.length > 0
      ? { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "safe.directory", GIT_CONFIG_VALUE_0: "*" }
      : {}),
    ...opts.env,
  });
  // `exec` replaces the shell, so the pid killed on timeout is the CLI's own.
  const child = spawn(
    "/bin/sh",
    [
      "-c",
      `ulimit -v ${MEMORY_LIMIT_KIB} && exec "$@"`,
      "sh",
      ...drop,
      process.execPath,
      CLI,
      ...args,
    ],
    { cwd: opts.cwd, env, stdio: ["pipe", "pipe", "pipe"] },
  );
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout.on("data", (b: Buffer) => out.push(b));
  child.stderr.on("data", (b: Buffer) => err.push(b));
  child.stdin.on("error", () => {}); // the CLI stopped reading: that is what is tested
  if (opts.endlessInput !== undefined) {
    const chunk = Buffer.from(
      opts.endlessInput.repeat(Math.ceil(1048576 / opts.endlessInput.length)),
    );
    const feed = () => {
      while (!child.stdin.destroyed && child.exitCode === null && child.stdin.write(chunk)) {}
    };
    child.stdin.on("drain", feed);
    feed();
  } else {
    child.stdin.end(opts.input ?? "");
  }
  return new Promise<CliResult>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`freezegate ${args.join(" ")} did not finish in ${timeoutMs} ms (a hang)`));
    }, timeoutMs);
    child.on("error", (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on("close", (code, signal) => {
      clearTimeout(timer);
      child.stdin.destroy();
      const stderr = Buffer.concat(err).toString("utf8");
      resolve({
        status: code ?? -1,
        stdout: Buffer.concat(out).toString("utf8"),
        stderr: signal === null ? stderr : `${stderr}\n(killed by ${signal})`,
      });
    });
  });
}
