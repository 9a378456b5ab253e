// pytest's words and rules for the frozen tests it ran: a list as it applies to coverage.py's
// test_function data, and the refusal for frozen tests that ran no body.

import { InputError } from "../../core/errors.js";
import type { FrozenList } from "../../core/frozen.js";
import { sampleOf } from "../../core/listing.js";
import type { CoverageFormat } from "../../core/model.js";
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
    const what = param.isGlob ? "parametrized cases" : "the parametrized case";
    throw new InputError(
      `${label} freezes ${what} "${param.pattern}", but the coverage data uses test_function contexts, which merge all cases of a test into one name and do not tell parametrized tests from others`,
      {
        fix: 'record node ids with pytest --cov --cov-context=test, or freeze every case of one test with "id[*]" (or the whole test)',
      },
    );
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
): InputError | null {
  if (ids.length === 0) return null;
  const list = sampleOf([...ids].sort().map((id) => JSON.stringify(id)));
  const letThemRun =
    "the freezegate pytest plugin's --freezegate-mode run, or xfail instead of skip";
  if (format === "coverage.py-json") {
    return new InputError(
      `${ids.length} frozen test(s) in ${label} have setup or teardown contexts but no "|run" context in the coverage json report, which lists only the contexts that ran a measured line: it cannot show whether a test whose body ran no measured line ran, so the lines they would cover are unknown: ${list}`,
      {
        fix: `audit the .coverage data file of the same run (--coverage .coverage), which can show it (coverage.py 6.5 keeps such a test's empty "|run" context); a frozen test that was skipped must run with its failures ignored (${letThemRun})`,
      },
    );
  }
  return new InputError(
    `${ids.length} frozen test(s) in ${label} ran no test body (the coverage data has their setup or teardown but no "|run" context: skipped, their setup failed, or their body ran no measured line), so the lines they would cover are unknown: ${list}`,
    {
      fix: `let frozen tests run with their failures ignored (${letThemRun}), re-run the tests, then audit; a test that cannot run on this platform (skipif) covers nothing here: leave it out of the frozen list (name the other cases instead of a glob)`,
    },
  );
}
