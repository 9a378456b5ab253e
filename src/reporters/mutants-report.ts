// What a freeze withdraws in killed mutants, as impact's report holds it (the `mutants` object
// of its JSON, docs/json-contract.md) and as its text prints it. One object, both formats.

import type { MutantsRun } from "../app/mutants.js";
import {
  countMutants,
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
  leftOut: { testId: string; role: TestRole; outcome: Outcome | null }[];
  mutants: {
    path: string;
    line: number;
    kind: MutationKind;
    description: string;
    class: MutantClass;
    killedBy: string[];
  }[];
  notes: string[];
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
    leftOut: run.leftOut.map((t) => ({ testId: t.id, role: t.role, outcome: t.outcome })),
    mutants: run.results.map((r) => ({
      path: r.mutant.path,
      line: r.mutant.line,
      kind: r.mutant.kind,
      description: r.mutant.description,
      class: r.class,
      killedBy: r.killedBy.map((t) => t.id),
    })),
    notes: mutantNotes(run, counts, options.max),
  };
}

function mutantNotes(run: MutantsRun, counts: MutantCounts, max: number): string[] {
  const notes: string[] = [];
  if (run.made > counts.mutants) {
    notes.push(
      `${counts.mutants} of the ${run.made} mutants ran (--max ${max}: a seeded sample, the same on every run)`,
    );
  }
  if (run.unmutable > 0) {
    notes.push(
      `${plural(run.unmutable, "withdrawn statement")} ${run.unmutable === 1 ? "holds" : "hold"} nothing to mutate`,
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
