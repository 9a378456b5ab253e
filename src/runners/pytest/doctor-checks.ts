// pytest's doctor check of the data's tests: contexts exist and name tests. (That their node ids
// name test files that exist is every runner's check: checkTestIdFiles in src/core/doctor.ts.)

import { type DoctorCheck, failedCheck } from "../../core/doctor.js";
import { sample } from "../../core/listing.js";
import type { ContextIndex } from "../../core/model.js";
import { refusal } from "../../core/refusals/index.js";

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
