// Which runners' tests can run against mutants (impact --mutants), each runner's mutation
// loaded only when a run asks for it. Kept apart from the Runner itself: the audit never runs
// mutants, and its one-file bundle would otherwise carry the mutator's code to every patch. A
// runner not listed has no mutator yet (Vitest): its data is refused for --mutants.

import { pytestRunner } from "./pytest/runner.js";
import type { Runner, RunnerMutation } from "./runner.js";

const MUTATIONS = new Map<Runner, () => Promise<RunnerMutation>>([
  [pytestRunner, async () => (await import("./pytest/mutation.js")).pytestMutation],
]);

/** The loader of the runner's mutant runs, or null when it has none yet. */
export function mutationOf(runner: Runner): (() => Promise<RunnerMutation>) | null {
  return MUTATIONS.get(runner) ?? null;
}
