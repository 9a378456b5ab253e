// The test runners freezegate reads, and the choice of one for a run: the runner whose data is
// there. The callers iterate this list; none of them names a runner.
//
// One runner per run. A repository may hold two runners' data (a Python backend and a
// TypeScript frontend): without a path to the data that is refused, with the fix to name the
// data of the run to audit (--coverage); each runner's data is then audited in a run of its
// own, whose changed files of the other language are not source (its source globs leave them
// out) and not measured.

import { UsageError } from "../core/errors.js";
import { pytestRunner } from "./pytest/runner.js";
import type { DataRequest, Runner } from "./runner.js";

export const RUNNERS: readonly Runner[] = [pytestRunner];

/**
 * The runner whose data the request finds: the one runner that says its data is there; with
 * none, the first (whose `open` then says what is missing, in its words). Two or more: refused.
 */
export function chooseRunner(request: DataRequest, runners: readonly Runner[] = RUNNERS): Runner {
  const [first] = runners;
  if (first === undefined) throw new Error("no test runner is registered");
  // One runner: its own discovery decides and explains; asking first would only cost time.
  if (runners.length === 1) return first;
  const there = runners.filter((runner) => runner.data.isThere(request));
  if (there.length <= 1) return there[0] ?? first;
  const names = there.map((runner) => runner.name);
  throw new UsageError(
    `data of ${names.length} test runners is here (${names.join(" and ")}), so which run to audit cannot be told`,
    {
      fix: "name the data of the run to audit with --coverage PATH (audit each runner's data in a run of its own)",
    },
  );
}
