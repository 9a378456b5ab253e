// The Python mutator as a process: `python -m freezegate_pytest.mutants` of the freezegate
// pytest package next to this freezegate (integrations/pytest), which makes the mutants of the
// statements at some lines of one file with Python's own ast and prints them as JSON. It only
// reads the file. Its answer is read by src/core/mutants.ts.

import { execFile } from "node:child_process";
import { INPUT_LIMIT_BYTES } from "./repo-files.js";

/** The module the mutator runs as (`python -m`). */
export const MUTATOR_MODULE = "freezegate_pytest.mutants";

export interface MutatorCall {
  python: string;
  /** integrations/pytest, put first on PYTHONPATH. */
  pluginDir: string;
  /** The file to mutate (absolute). */
  file: string;
  lines: readonly number[];
  env: NodeJS.ProcessEnv;
  signal?: AbortSignal | undefined;
}

/**
 * How the call ended: its stdout; or `not-run` (the interpreter could not be started), `failed`
 * (it exited otherwise than 0: the line says why), `aborted`.
 */
export type MutatorResult =
  | { kind: "answer"; stdout: string }
  | { kind: "not-run"; why: string }
  | { kind: "failed"; line: string }
  | { kind: "aborted" };

/** `PATH` first on a search path (`PYTHONPATH`), before what the environment has. */
export function firstOnPath(path: string, current: string | undefined): string {
  return current === undefined || current === "" ? path : `${path}:${current}`;
}

export function runMutator(call: MutatorCall): Promise<MutatorResult> {
  const args = [
    "-m",
    MUTATOR_MODULE,
    "--file",
    call.file,
    "--lines",
    call.lines.join(","),
    "--probe",
  ];
  return new Promise((resolve) => {
    execFile(
      call.python,
      args,
      {
        // Not the repository: `python -m` puts its directory first on sys.path.
        cwd: call.pluginDir,
        env: {
          ...call.env,
          PYTHONPATH: firstOnPath(call.pluginDir, call.env.PYTHONPATH),
          PYTHONDONTWRITEBYTECODE: "1",
        },
        encoding: "utf8",
        maxBuffer: INPUT_LIMIT_BYTES,
        ...(call.signal === undefined ? {} : { signal: call.signal }),
      },
      (error, stdout, stderr) => {
        if (error === null) {
          resolve({ kind: "answer", stdout });
          return;
        }
        const e = error as NodeJS.ErrnoException & { code?: string | number };
        if (e.name === "AbortError" || call.signal?.aborted) resolve({ kind: "aborted" });
        else if (typeof e.code === "string" && e.code !== "ERR_CHILD_PROCESS_STDIO_MAXBUFFER") {
          resolve({ kind: "not-run", why: e.message });
        } else {
          const lines = stderr.split("\n").filter((l) => l.trim() !== "");
          resolve({ kind: "failed", line: lines.at(-1)?.trim() ?? `exit ${String(e.code)}` });
        }
      },
    );
  });
}
