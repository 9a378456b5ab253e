// The flags of a mutant run (`impact --mutants`), checked before any data is read, and the
// progress a run writes on stderr: on a terminal one line rewritten in place, elsewhere (CI
// logs) at most one line every few seconds. stdout carries the report alone.

import type { MutantsProgress } from "../app/mutants.js";
import { refusal } from "../core/refusals/index.js";
import { visible } from "../reporters/words.js";
import { type CommandIo, type OptionSpec, type OptionValues, stringOpt } from "./command.js";

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

/** A whole-number flag of at least `min`, or the bad-count refusal. */
function count(values: OptionValues, flag: string, fallback: number, min: number): number {
  const raw = stringOpt(values, flag);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min) {
    throw refusal("bad-count", { flag, value: raw, min, example: Math.max(min, fallback, 2) });
  }
  return n;
}

/** The mutant run's settings, or null without --mutants (when no other of its flags may be given). */
export function resolveMutantOptions(
  values: OptionValues,
  env: NodeJS.ProcessEnv,
): MutantOptions | null {
  if (values.mutants !== true) {
    const alone = WITH_MUTANTS.find((flag) => values[flag] !== undefined);
    if (alone !== undefined) throw refusal("mutants-option-alone", { flag: alone });
    return null;
  }
  const command = stringOpt(values, "run")?.trim() ?? "";
  if (command === "") throw refusal("mutants-need-run", undefined);
  const timeout = stringOpt(values, "timeout");
  return {
    command,
    jobs: count(values, "jobs", 1, 1),
    timeoutSeconds: timeout === undefined ? null : count(values, "timeout", 60, 1),
    max: count(values, "max", DEFAULT_MAX_MUTANTS, 1),
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
