// Runs the built freezegate binary (dist/bin/freezegate.cjs, package.json "bin") as a child process, the way users and
// CI run it: no colour, git isolated from the developer's configuration.

import { spawnSync } from "node:child_process";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { isolatedGitEnv } from "./git-repo.js";

export const REPO_ROOT = join(dirname(fileURLToPath(import.meta.url)), "../..");
export const CLI = join(REPO_ROOT, "dist/bin/freezegate.cjs");

export interface CliResult {
  status: number;
  stdout: string;
  stderr: string;
}

export function runCli(
  args: string[],
  opts: { cwd: string; env?: NodeJS.ProcessEnv; input?: string; bin?: string },
): CliResult {
  const result = spawnSync(process.execPath, [opts.bin ?? CLI, ...args], {
    cwd: opts.cwd,
    // No colour unless a test asks: an ambient FORCE_COLOR would win over NO_COLOR.
    env: isolatedGitEnv({
      NO_COLOR: "1",
      FORCE_COLOR: undefined,
      FREEZEGATE_DEBUG: "",
      ...opts.env,
    }),
    input: opts.input ?? "",
    encoding: "utf8",
    maxBuffer: 256 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  return { status: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

/**
 * What `freeze` writes on stderr when it records a freeze that check's deposit gate will fail
 * (one line, the freeze recorded all the same): the tests' repositories without a samples
 * artifact or a property test of the patch get it.
 */
export const DEPOSIT_WARNING =
  /^freezegate: warning: recorded, but check's deposit gate, which policy\.blocking lists, will fail this freeze: [^\n]*\(fix: [^\n]*docs\/ledger\.md\)\n$/;

/** A user error: exit 2, exactly one line on stderr, no stack trace, nothing on stdout. */
export function expectOneLineError(result: CliResult): string {
  const lines = result.stderr.split("\n").filter((l) => l !== "");
  if (
    result.status !== 2 ||
    lines.length !== 1 ||
    result.stdout !== "" ||
    /\n\s+at /.test(result.stderr)
  ) {
    throw new Error(
      `expected exit 2 with one stderr line, got exit ${result.status}\nstdout: ${result.stdout}\nstderr: ${result.stderr}`,
    );
  }
  return lines[0] as string;
}

/**
 * A refusal: exit 2, one stderr line `freezegate: error[CODE]: ...`, nothing on stdout.
 * Returns what follows the code (the message and its fix), for the fields a test checks.
 */
export function expectRefusal(result: CliResult, code: string): string {
  const line = expectOneLineError(result);
  const prefix = `freezegate: error[${code}]: `;
  if (!line.startsWith(prefix)) throw new Error(`expected refusal ${code}, got: ${line}`);
  return line.slice(prefix.length);
}

/**
 * `defaults` with every `--flag value` pair that `extra` gives again left out, then `extra`:
 * a test overrides a helper's default without giving a flag twice (which is exit 2).
 */
export function overrideArgs(defaults: readonly string[], extra: readonly string[]): string[] {
  const given = new Set(extra.filter((a) => a.startsWith("--")));
  const kept: string[] = [];
  for (let i = 0; i < defaults.length; i++) {
    const arg = defaults[i] as string;
    const next = defaults[i + 1];
    if (given.has(arg) && next !== undefined && !next.startsWith("--")) i++;
    else kept.push(arg);
  }
  return [...kept, ...extra];
}
