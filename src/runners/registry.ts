// The test runners freezegate reads, and the choice of one for a run: the runner whose data is
// there. The callers iterate this list; none of them names a runner.
//
// One runner per run. A repository may hold two runners' data (a Python backend and a
// TypeScript frontend): without a path to the data that is refused, with the fix to name the
// data of the run to audit (--coverage); each runner's data is then audited in a run of its
// own, whose changed files of the other language are not source (its source globs leave them
// out) and not measured.

import { FreezegateError } from "../core/errors.js";
import { refusal } from "../core/refusals/index.js";
import { pytestRunner } from "./pytest/runner.js";
import type { DataRequest, Runner } from "./runner.js";
import { vitestRunner } from "./vitest/runner.js";

export const RUNNERS: readonly Runner[] = [pytestRunner, vitestRunner];

/**
 * The runner whose data the request finds: the one runner that says its data is there. With
 * none, a search without a path is refused with what each runner looked for (the project may
 * be any runner's); a path given is the first runner's to explain. Two or more: refused.
 */
export function chooseRunner(request: DataRequest, runners: readonly Runner[] = RUNNERS): Runner {
  const found = findRunner(request, runners);
  return found ?? refuseNoData(request, runners);
}

/**
 * As chooseRunner, but null when a search without a path finds no runner's data (for what
 * can do without data).
 */
export function findRunner(
  request: DataRequest,
  runners: readonly Runner[] = RUNNERS,
): Runner | null {
  const [first] = runners;
  if (first === undefined) throw new Error("no test runner is registered");
  const there = runners.filter((runner) => runner.data.isThere(request));
  if (there.length === 0) return request.explicit === undefined ? null : first;
  if (there.length === 1) return there[0] as Runner;
  const names = there.map((runner) => runner.name);
  throw refusal("data-of-two-runners", { names });
}

/**
 * Refuses a search that found no runner's data with each runner's word on what it looked for;
 * a runner whose search finds data after all (its isThere is the cheaper guess) is returned.
 */
function refuseNoData(request: DataRequest, runners: readonly Runner[]): Runner {
  const missing: FreezegateError[] = [];
  for (const runner of runners) {
    try {
      runner.data.files(request);
      return runner;
    } catch (error) {
      if (!(error instanceof FreezegateError)) throw error;
      missing.push(error);
    }
  }
  throw refusal("coverage-data-not-found", {
    looked: missing.map((error) => error.message).join(", and "),
    fix: missing
      .map((error) => error.fix)
      .filter((fix) => fix !== undefined)
      .join("; or "),
  });
}
