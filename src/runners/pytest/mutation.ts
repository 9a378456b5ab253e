// pytest's mutant runs: Python statements mutated by freezegate_pytest.mutants (Python's own
// ast, in the freezegate pytest package next to this freezegate), and pytest run on node ids
// with freezegate_pytest.outcomes recording each test's outcome. The ledger plugin is blocked:
// it would mute the very tests whose kills are counted.

import { join } from "node:path";
import { pluginDirectory } from "../../adapters/pytest-files.js";
import { firstOnPath, runMutator } from "../../adapters/python-mutator.js";
import { readMutatorAnswer } from "../../core/mutants.js";
import { refusal } from "../../core/refusals/index.js";
import type { RunnerMutation } from "../runner.js";
import { nodeIdArgument } from "./node-ids.js";
import { PLUGIN_MODULE } from "./plugin-wiring.js";

/** Set on mutant runs: the outcomes recorder writes there. */
export const OUTCOMES_ENV = "FREEZEGATE_OUTCOMES";

/** What every mutant run adds to the user's command before the node ids. */
export const PYTEST_RUN_ARGS: readonly string[] = [
  "-p",
  `no:${PLUGIN_MODULE}`,
  "-p",
  `${PLUGIN_MODULE}.outcomes`,
  "-p",
  "no:cacheprovider",
  "-q",
];

/** integrations/pytest, or the refusal: the mutator and the recorder live there. */
function packageDirectory(): string {
  const dir = pluginDirectory();
  if (dir === null) throw refusal("mutants-plugin-missing", undefined);
  return dir;
}

export const pytestMutation: RunnerMutation = {
  language: "Python",
  accepts: (path) => /\.pyw?$/.test(path),
  async mutate({ root, path, lines, python, env, signal }) {
    const result = await runMutator({
      python,
      pluginDir: packageDirectory(),
      file: join(root, path),
      lines,
      env,
      signal,
    });
    switch (result.kind) {
      case "answer":
        return readMutatorAnswer(result.stdout, path);
      case "not-run":
        throw refusal("mutator-not-run", { python, why: result.why });
      case "failed":
        throw refusal("mutator-failed", { path, line: result.line });
      case "aborted": {
        const error = new Error("the mutator was interrupted");
        error.name = "AbortError";
        throw error;
      }
    }
  },
  testArguments: (ids, { prefix, cwd }) => [
    ...PYTEST_RUN_ARGS,
    ...ids.map((id) => nodeIdArgument(id, prefix, cwd)),
  ],
  environment: (outcomesFile, env) => ({
    ...env,
    PYTHONPATH: firstOnPath(packageDirectory(), env.PYTHONPATH),
    [OUTCOMES_ENV]: outcomesFile,
    // A mutant written in the same second as the original, at the same size, would otherwise
    // run from the original's cached bytecode.
    PYTHONDONTWRITEBYTECODE: "1",
  }),
};
