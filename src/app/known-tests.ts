// Which tests the suite has, for the gates that judge whether a test id is real (the shape
// gate's unknown-test, `freeze` refusing a typo). In order: a collected-ids file
// (`pytest --collect-only -q` output), else the per-test contexts of the coverage data (given,
// configured or found as the audit finds it), else nothing: null, and callers say that
// unknown-test was not judged. Data that exists but cannot be read is an error, never null;
// data given or configured that names no tests is an error too, found data a null.

import { pathFromUser } from "../adapters/coverage-discovery.js";
import { readTextFile } from "../adapters/repo-files.js";
import { parseCollectedIds } from "../core/collected.js";
import { refusal } from "../core/refusals/index.js";
import { KNOWN_TESTS_FIX } from "../core/refusals/ledger.js";
import { findRunner } from "../runners/registry.js";
import type { Runner } from "../runners/runner.js";
import { dataRequestOf } from "./audit/data.js";

export interface KnownTestsRequest {
  /** Repository root (absolute). */
  root: string;
  /** A collected-ids file (absolute). */
  collected?: string;
  /** Coverage data path (absolute); without it, it is searched for as the audit does. */
  coverage?: string;
  /** The directory the command runs in (absolute; default the root). */
  cwd?: string;
  /** pytest's rootdir, relative to the root ("" for the root). */
  testRoot: string;
}

export interface KnownTests {
  /** The test ids, or null when no source was available. */
  ids: ReadonlySet<string> | null;
  /** One phrase for reports: "41 tests from collected.txt", or why there are none. */
  description: string;
  /** Where they came from. */
  from: "collected" | "coverage" | null;
  /** The files read. */
  files: string[];
  /** The runner whose data gave them, for advice in its words (none from a collected file). */
  runner?: Runner;
}

/** How users can give freezegate the known tests (for messages when there are none). */
export { KNOWN_TESTS_FIX };

export function loadKnownTests(request: KnownTestsRequest): KnownTests {
  if (request.collected !== undefined) {
    const ids = parseCollectedIds(
      readTextFile(request.collected, "collected-ids file"),
      request.collected,
    );
    return {
      ids,
      description: `${count(ids.size)} from ${request.collected}`,
      from: "collected",
      files: [request.collected],
    };
  }
  const dataRequest = dataRequestOf(request);
  const { places } = dataRequest;
  const runner = findRunner(dataRequest);
  if (runner === null) {
    return {
      ids: null,
      description: "no --collected file and no coverage data found",
      from: null,
      files: [],
    };
  }
  const coverage = runner.data.open(dataRequest);
  try {
    const { index, names = [] } = runner.tests.read(request.root, request.testRoot, coverage, {
      names: true,
    });
    const none = names.length === 0 ? "no contexts" : "only non-test contexts";
    if (index.testIds.size === 0 && request.coverage === undefined) {
      // Data nobody named, left in the work tree by a run without per-test contexts (a
      // developer's plain `pytest --cov`): no source of test ids, as without data, not an
      // error in a command that needs no coverage (the pre-commit hook's ledger check).
      return {
        ids: null,
        description: `the coverage data found (${coverage.meta.dataFiles.map((f) => pathFromUser(request.root, f, places)).join(", ")}) names no tests (${none})`,
        from: null,
        files: [],
      };
    }
    if (index.testIds.size === 0) {
      throw refusal("coverage-names-no-tests", { files: coverage.meta.dataFiles.join(", "), none });
    }
    const files = coverage.meta.dataFiles;
    const note =
      index.style === "test-function" ? " (test_function contexts: no parametrized ids)" : "";
    return {
      ids: new Set(index.testIds),
      description: `${count(index.testIds.size)} from the coverage data ${files.join(", ")}${note}`,
      from: "coverage",
      files,
      runner,
    };
  } finally {
    coverage.close();
  }
}

function count(n: number): string {
  return `${n} test${n === 1 ? "" : "s"}`;
}
