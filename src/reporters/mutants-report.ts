// Mutant runs as reports hold them: what a freeze withdraws in killed mutants (impact's
// `mutants` object, docs/json-contract.md, and its text), and what the live and frozen tests
// kill on calibrate's canary statements (calibrate's `mutants` object, which every calibrate
// format renders). One object per command, every format.

import type { MutantResult, MutantsRun } from "../app/mutants.js";
import type { CanaryKind } from "../core/canaries.js";
import {
  calibrationMutantSentence,
  countMutants,
  type KindMutantCounts,
  kindMutantCounts,
  type MutantClass,
  type MutantCounts,
  type MutationKind,
  mutantSentence,
  type Outcome,
  type TestRole,
} from "../core/mutants.js";
import { plural, visible } from "./words.js";

export interface ImpactMutants {
  /** The command that ran the tests, as given with --run. */
  command: string;
  /** "freezing T withdraws K of M mutant kills; its property recovers J". */
  summary: string;
  counts: {
    /** Mutants the mutator made of the withdrawn statements. */
    made: number;
    /** Of those, the sample that ran (at most `max`). */
    judged: number;
    /** M, K, J (J null without --property). */
    killed: number;
    withdrawn: number;
    recovered: number | null;
  } & Record<MutantClass, number>;
  max: number;
  /** Each mutant run's limit; null when no test ran. */
  timeoutSeconds: number | null;
  /** Tests that did not pass unchanged, left out of every judgment. */
  leftOut: LeftOutRow[];
  mutants: MutantRow[];
  notes: string[];
}

export interface LeftOutRow {
  testId: string;
  role: TestRole;
  outcome: Outcome | null;
}

export interface MutantRow {
  path: string;
  line: number;
  kind: MutationKind;
  description: string;
  class: MutantClass;
  killedBy: string[];
}

function mutantRow(r: MutantResult): MutantRow {
  return {
    path: r.mutant.path,
    line: r.mutant.line,
    kind: r.mutant.kind,
    description: r.mutant.description,
    class: r.class,
    killedBy: r.killedBy.map((t) => t.id),
  };
}

function leftOutRows(run: MutantsRun): LeftOutRow[] {
  return run.leftOut.map((t) => ({ testId: t.id, role: t.role, outcome: t.outcome }));
}

export function impactMutants(
  run: MutantsRun,
  options: { tests: readonly string[]; command: string; max: number; property: boolean },
): ImpactMutants {
  const counts: MutantCounts = countMutants(run.results, options.property);
  return {
    command: options.command,
    summary: mutantSentence(options.tests, counts),
    counts: {
      made: run.made,
      judged: counts.mutants,
      killed: counts.killed,
      withdrawn: counts.withdrawn,
      recovered: counts.recovered,
      ...counts.classes,
    },
    max: options.max,
    timeoutSeconds: run.timeoutSeconds,
    leftOut: leftOutRows(run),
    mutants: run.results.map(mutantRow),
    notes: mutantNotes(run, counts, {
      sample: `--max ${options.max}: a seeded sample, the same on every run`,
      statement: "withdrawn statement",
    }),
  };
}

/**
 * The notes of a mutant run: the sample (`sample` says how it was drawn), statements (named
 * `statement`) with nothing to mutate, files no mutator reads, tests left out, timeouts.
 */
function mutantNotes(
  run: MutantsRun,
  counts: Pick<MutantCounts, "mutants" | "classes">,
  words: { sample: string; statement: string },
): string[] {
  const notes: string[] = [];
  if (run.made > counts.mutants) {
    notes.push(`${counts.mutants} of the ${run.made} mutants ran (${words.sample})`);
  }
  if (run.unmutable > 0) {
    notes.push(
      `${plural(run.unmutable, words.statement)} ${run.unmutable === 1 ? "holds" : "hold"} nothing to mutate`,
    );
  }
  if (run.notMutated.length > 0) {
    notes.push(`not mutated (not in a language freezegate mutates): ${run.notMutated.join(", ")}`);
  }
  for (const t of run.leftOut) {
    const how = t.outcome === null ? "did not run" : t.outcome === "error" ? "errored" : "failed";
    notes.push(
      t.role === "target"
        ? `${t.id} ${how} before any mutation, so its kills cannot be counted`
        : `${t.id} ${how} before any mutation and is left out of every judgment`,
    );
  }
  if (counts.classes.timeout > 0) {
    notes.push(
      `${plural(counts.classes.timeout, "mutant")} timed out after ${run.timeoutSeconds} s: who would kill ${counts.classes.timeout === 1 ? "it" : "them"} is unknown, so ${counts.classes.timeout === 1 ? "it counts" : "they count"} in no figure`,
    );
  }
  if (counts.classes.unjudged > 0) {
    notes.push(
      `${plural(counts.classes.unjudged, "mutant")} had no test to judge ${counts.classes.unjudged === 1 ? "it" : "them"} (every test that executes the statement failed before any mutation)`,
    );
  }
  return notes;
}

/** The text report's lines for the mutants (after impact's own sections). */
export function mutantsText(m: ImpactMutants): string[] {
  const out = ["", `  in killed mutants: ${visible(m.summary)}`];
  for (const x of m.mutants) {
    const by = x.killedBy.length === 0 ? "" : ` (killed by ${x.killedBy.map(visible).join(", ")})`;
    out.push(
      `    ${visible(x.path)}:${x.line} ${x.kind} ${visible(x.description)}: ${x.class}${by}`,
    );
  }
  return out;
}

/** calibrate's `mutants`: the mutants of the shadow and control canaries' statements, judged. */
export interface CalibrateMutants {
  /** The command that ran the tests, as given with --run. */
  command: string;
  /** The sentence every format shows (calibrationMutantSentence). */
  summary: string;
  counts: {
    /** Mutants the mutator made of the canaries' statements. */
    made: number;
    /** Of those, the sample that ran (at most the settings' `max`). */
    judged: number;
    shadow: KindMutantCounts;
    control: KindMutantCounts;
  };
  /** Each mutant run's limit; null when no test ran. */
  timeoutSeconds: number | null;
  leftOut: LeftOutRow[];
  /** Files by path, each file's mutants in the mutator's order; `canary` is its statement's kind. */
  mutants: (MutantRow & { canary: Exclude<CanaryKind, "uncovered"> })[];
  notes: string[];
}

export function calibrateMutants(
  run: MutantsRun,
  options: { command: string; max: number; seed: number },
): CalibrateMutants {
  const of = (kind: string) => kindMutantCounts(run.results.filter((r) => r.group === kind));
  const counts = { shadow: of("shadow"), control: of("control") };
  return {
    command: options.command,
    summary: calibrationMutantSentence(counts),
    counts: { made: run.made, judged: run.results.length, ...counts },
    timeoutSeconds: run.timeoutSeconds,
    leftOut: leftOutRows(run),
    mutants: run.results.map((r) => ({
      canary: r.group === "shadow" ? "shadow" : "control",
      ...mutantRow(r),
    })),
    notes: mutantNotes(run, countMutants(run.results, false), {
      sample: `--max ${options.max} --seed ${options.seed}: a seeded sample, the same for the same seed`,
      statement: "canary statement",
    }),
  };
}

/** Who killed a mutant, in words: "killed by a, b", or "" when nobody did. */
export function killedWords(m: Pick<MutantRow, "killedBy">): string {
  return m.killedBy.length === 0 ? "" : `killed by ${m.killedBy.join(", ")}`;
}

/** calibrate's text lines for its mutants (after the canaries). */
export function calibrateMutantsText(m: CalibrateMutants): string[] {
  const out = ["", `mutants (run by ${visible(m.command)}): ${visible(m.summary)}`];
  for (const x of m.mutants) {
    const by = x.killedBy.length === 0 ? "" : ` (${visible(killedWords(x))})`;
    out.push(
      `  ${x.canary.padEnd(7)} ${visible(x.path)}:${x.line} ${x.kind} ${visible(x.description)}: ${x.class}${by}`,
    );
  }
  for (const n of m.notes) out.push(`  note: ${visible(n)}`);
  return out;
}
