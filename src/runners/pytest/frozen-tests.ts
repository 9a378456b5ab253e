// pytest's words and rules for the frozen tests it ran: a list as it applies to coverage.py's
// test_function data, and the refusal for frozen tests that ran no body.

import type { FreezegateError } from "../../core/errors.js";
import type { FrozenList } from "../../core/frozen.js";
import { sampleOf } from "../../core/listing.js";
import type { CoverageFormat } from "../../core/model.js";
import { refusal } from "../../core/refusals/index.js";
import { withoutParameters } from "./node-ids.js";

/**
 * A list as it applies to data recorded with test_function contexts, where a test's
 * parametrized cases collapse into one context: "id[*]" is that context; freezing one case
 * of several cannot be expressed, and is refused. So is a glob before "[*]"
 * ("tests/t.py::test_*[*]"): over node ids it freezes only the parametrized tests' cases,
 * and these names cannot tell a parametrized test from a plain one.
 */
export function frozenForCollapsedContexts(list: FrozenList, label: string): FrozenList {
  const entries = list.entries.map((entry) => {
    const pattern = entry.pattern.slice(0, -"[*]".length);
    return entry.pattern.endsWith("[*]") && !pattern.includes("*")
      ? { pattern, isGlob: false }
      : entry;
  });
  const param = entries.find((e) => withoutParameters(e.pattern) !== e.pattern);
  if (param) {
    throw refusal("frozen-case-with-test-function", {
      label,
      pattern: param.pattern,
      glob: param.isGlob,
    });
  }
  return { ...list, entries };
}

/**
 * Frozen tests whose body never ran: pytest-cov recorded their setup or teardown but no
 * "|run" (a skip, or a failed setup). Which lines they would run is unknown, so the shadow
 * they hide is too. Not waived by --allow-unresolved, which is for ids of tests that no longer
 * exist: these do, and would run code if they ran. The error, or null.
 * A JSON report (`format` "coverage.py-json") lists a context only on a line it ran, so a body
 * that ran no measured line looks skipped there; the `.coverage` data file of the same run
 * can tell (coverage.py 6.5 keeps the test's empty "|run" context): the error says so.
 */
export function frozenWithoutRun(
  label: string,
  ids: readonly string[],
  format: CoverageFormat,
): FreezegateError | null {
  if (ids.length === 0) return null;
  return refusal("frozen-tests-not-run", {
    count: ids.length,
    label,
    list: sampleOf([...ids].sort().map((id) => JSON.stringify(id))),
    jsonReport: format === "coverage.py-json",
  });
}
