// pytest's doctor checks of the data's tests: contexts exist and name tests, and their node ids
// name test files that exist.

import { type DoctorCheck, failedCheck } from "../../core/doctor.js";
import { sample } from "../../core/listing.js";
import type { ContextIndex, TestFileExists } from "../../core/model.js";
import { refusal } from "../../core/refusals/index.js";
import { staticContextWithColons, staticContextWithColonsProblem } from "./context-names.js";

/** Contexts exist and are not all the empty "no test" context. */
export function checkContextsPresent(names: readonly string[], index: ContextIndex): DoctorCheck {
  if (names.length === 0) {
    return failedCheck("contexts", refusal("coverage-data-no-lines", undefined));
  }
  if (names.every((n) => n === "")) {
    return {
      id: "contexts",
      status: "fail",
      message:
        'every line is recorded under the empty context "": no per-test contexts were recorded',
      fix: "run pytest --cov --cov-context=test (or set [run] dynamic_context = test_function)",
    };
  }
  if (index.testIds.size === 0) {
    return {
      id: "contexts",
      status: "fail",
      message: `no context names a test: ${sample(index.nonTestContexts)}`,
      fix: "record per-test contexts: pytest --cov --cov-context=test",
    };
  }
  const styleWord =
    index.style === "pytest-cov" ? "pytest-cov node ids" : "test_function names mapped to node ids";
  return {
    id: "contexts",
    status: "ok",
    message: `${index.testIds.size} tests in ${names.length} contexts (${styleWord}); ${index.nonTestContexts.length} context(s) outside tests`,
  };
}

/**
 * Context names are node ids of test files that exist (`exists`, as the
 * audit reads node ids' files). A static context holding "::" is named as the likely cause.
 */
export function checkNodeIdFiles(
  testIds: ReadonlySet<string>,
  exists: TestFileExists,
): DoctorCheck {
  const missing = new Set<string>();
  let total = 0;
  for (const id of testIds) {
    total++;
    const file = id.slice(0, id.indexOf("::"));
    if (!exists(file)) missing.add(file);
  }
  if (missing.size === 0) {
    return {
      id: "node-ids",
      status: "ok",
      message: `every test id names a test file that exists (${total} tests)`,
    };
  }
  const failure: DoctorCheck = {
    id: "node-ids",
    status: "fail",
    message: `test ids name ${missing.size} file(s) that do not exist in the repository: ${sample([...missing].sort())}`,
    fix: "set --test-root to pytest's rootdir (the rootdir: line pytest prints), or re-record the data on this checkout",
  };
  const colons = staticContextWithColons(testIds, exists);
  if (colons === null) return failure;
  const problem = staticContextWithColonsProblem(colons);
  return { ...failure, message: `${failure.message}; ${problem.message}`, fix: problem.fix };
}
