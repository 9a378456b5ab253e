// The flags of a mutant run (`impact --mutants`, `calibrate --mutants`), checked before any
// data is read, and the progress a run writes on stderr: on a terminal one line rewritten in
// place, elsewhere (CI logs) at most one line every few seconds. stdout carries the report
// alone. An interrupt (SIGINT, SIGTERM) stops the run and removes its copies.

import { relative, sep } from "node:path";
import { MutantsInterrupted, type MutantsProgress, type MutantsRequest } from "../app/mutants.js";
import { refusal } from "../core/refusals/index.js";
import { visible } from "../reporters/words.js";
import {
  type CommandIo,
  countOpt,
  type OptionSpec,
  type OptionValues,
  stringOpt,
} from "./command.js";

export const DEFAULT_MAX_MUTANTS = 30;

export const MUTANT_OPTIONS: OptionSpec[] = [
  {
    name: "mutants",
    type: "boolean",
    description:
      "mutate the withdrawn statements and run the tests that execute each: which kills the freeze withdraws (Python only so far)",
  },
  {
    name: "run",
    type: "string",
    value: "CMD",
    description:
      'with --mutants: the command that runs the tests, without test ids (e.g. "python3 -m pytest"), run through /bin/sh in a temporary copy of the work tree',
  },
  {
    name: "jobs",
    type: "string",
    value: "N",
    description: "with --mutants: run N copies side by side (default 1)",
  },
  {
    name: "timeout",
    type: "string",
    value: "SECONDS",
    description:
      "with --mutants: a mutant whose tests run longer is a timeout (default: three times the unchanged run, plus 10 s)",
  },
  {
    name: "max",
    type: "string",
    value: "N",
    description: `with --mutants: at most N mutants, a seeded sample (default ${DEFAULT_MAX_MUTANTS})`,
  },
  {
    name: "python",
    type: "string",
    value: "PATH",
    description:
      "with --mutants: the Python that runs the mutator (default: FREEZEGATE_PYTHON, else python3)",
  },
];

const WITH_MUTANTS = ["run", "jobs", "timeout", "max", "python"] as const;

export interface MutantOptions {
  command: string;
  jobs: number;
  /** null: the default, from the unchanged run. */
  timeoutSeconds: number | null;
  max: number;
  python: string;
}

/**
 * The mutant run's settings, or null without --mutants (when no other of its flags may be
 * given, but those in `shared`: flags the command reads without --mutants too, as calibrate's
 * --max).
 */
export function resolveMutantOptions(
  values: OptionValues,
  env: NodeJS.ProcessEnv,
  shared: readonly string[] = [],
): MutantOptions | null {
  if (values.mutants !== true) {
    const alone = WITH_MUTANTS.find((flag) => values[flag] !== undefined && !shared.includes(flag));
    if (alone !== undefined) throw refusal("mutants-option-alone", { flag: alone });
    return null;
  }
  const command = stringOpt(values, "run")?.trim() ?? "";
  if (command === "") throw refusal("mutants-need-run", undefined);
  const timeout = stringOpt(values, "timeout");
  return {
    command,
    jobs: countOpt(values, "jobs", 1, 1),
    timeoutSeconds: timeout === undefined ? null : countOpt(values, "timeout", 60, 1),
    max: countOpt(values, "max", DEFAULT_MAX_MUTANTS, 1),
    python: stringOpt(values, "python") ?? (env.FREEZEGATE_PYTHON || "python3"),
  };
}

/** "12 s", "3 min", "1 h 5 min". */
export function durationWords(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 90) return `${s} s`;
  const min = Math.round(s / 60);
  return min < 60 ? `${min} min` : `${Math.floor(min / 60)} h ${min % 60} min`;
}

/**
 * The progress line of a step: mutants done of all, the file, and the time left (from the
 * time the mutants so far took, `elapsedMs`).
 */
export function progressText(p: MutantsProgress, elapsedMs: number): string {
  const file = p.path === null ? "" : `, ${visible(p.path)}`;
  switch (p.stage) {
    case "mutate":
      return `making mutants: file ${p.done + 1} of ${p.total}${file}`;
    case "baseline":
      return "running the selected tests unchanged";
    case "probe":
      return `checking that the tests import the repository's files: ${p.done} of ${p.total}${file}`;
    case "mutants": {
      const left =
        p.done === 0 || p.done === p.total
          ? ""
          : `, about ${durationWords((elapsedMs / p.done) * (p.total - p.done))} left`;
      return `mutants: ${p.done} of ${p.total} done${file}${left}`;
    }
  }
}

/** How often a line is written when stderr is no terminal. */
const LOG_INTERVAL_MS = 5000;

/**
 * The progress callback for `io.stderr`, and `end` to call once the run is over (it clears a
 * terminal's line). `now` is the clock.
 */
export function progressWriter(
  io: Pick<CommandIo, "stderr">,
  now: () => number = Date.now,
): { onProgress: (p: MutantsProgress) => void; end: () => void } {
  const tty = io.stderr.isTTY === true;
  let mutantsStart: number | null = null;
  // The first line after 5 s: a run refused at once has its one error line alone.
  let lastLine = now();
  let shown = false;
  return {
    onProgress(p) {
      const t = now();
      if (p.stage === "mutants" && mutantsStart === null) mutantsStart = t;
      const text = `freezegate: ${progressText(p, mutantsStart === null ? 0 : t - mutantsStart)}`;
      if (tty) {
        io.stderr.write(`\r\u001b[K${text}`);
        shown = true;
      } else if (t - lastLine >= LOG_INTERVAL_MS) {
        io.stderr.write(`${text}\n`);
        lastLine = t;
      }
    },
    end() {
      if (tty && shown) io.stderr.write("\r\u001b[K");
      shown = false;
    },
  };
}

/** The user's directory relative to the root, as a repository path ("" for the root). */
export function repositoryDirectory(root: string, cwd: string): string {
  const rel = relative(root, cwd);
  return rel.startsWith("..") ? "" : rel.split(sep).join("/");
}

/** What a mutant run is stopped and shows its progress through. */
export type MutantHooks = Required<Pick<MutantsRequest, "signal" | "onProgress">>;

/**
 * `run` (a mutant run, or work that holds one), with the run's progress on stderr, and ended
 * by SIGINT or SIGTERM: then its processes are killed and its copies removed before
 * "interrupted" is returned.
 */
export async function withMutantProgress<T>(
  io: Pick<CommandIo, "stderr">,
  run: (hooks: MutantHooks) => Promise<T>,
): Promise<T | "interrupted"> {
  const controller = new AbortController();
  const stop = () => controller.abort();
  const progress = progressWriter(io);
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    return await run({ signal: controller.signal, onProgress: progress.onProgress });
  } catch (error) {
    if (!(error instanceof MutantsInterrupted)) throw error;
    progress.end();
    io.stderr.write(
      "freezegate: interrupted: the mutant runs were stopped and their temporary copies removed\n",
    );
    return "interrupted";
  } finally {
    progress.end();
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}
