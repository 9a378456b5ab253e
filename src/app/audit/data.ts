// The data of the run to audit: found and opened by the runner whose data it is (see
// src/runners/registry.ts), and its tests read. The data must say which test ran each line.

import type { CoverageSource } from "../../core/model.js";
import { chooseRunner } from "../../runners/registry.js";
import type { DataRequest, DataTests, Runner } from "../../runners/runner.js";
import type { AuditHooks } from "./hooks.js";

/** Where the data is, as the commands give it. */
export interface DataLocation {
  root: string;
  /** The data path (absolute), or undefined to search for it. */
  coverage?: string | undefined;
  /** The directory the user runs in (absolute; default the root). */
  cwd?: string | undefined;
  /** The test root, relative to the repository root ("" for the root). */
  testRoot: string;
}

export function dataRequestOf(location: DataLocation): DataRequest {
  return {
    root: location.root,
    explicit: location.coverage,
    places: { cwd: location.cwd, testRoot: location.testRoot },
  };
}

/** The runner whose data is there, and the data, opened. */
export function openData(
  location: DataLocation,
  hooks: Pick<AuditHooks, "onDataFiles"> = {},
): { runner: Runner; data: CoverageSource } {
  const request = dataRequestOf(location);
  const runner = chooseRunner(request);
  if (hooks.onDataFiles) hooks.onDataFiles(runner.data.files(request));
  return { runner, data: runner.data.open(request) };
}

/** The data's tests; data that names none is refused (it cannot say which test ran a line). */
export function readTests(
  runner: Runner,
  root: string,
  testRoot: string,
  data: CoverageSource,
): DataTests {
  const tests = runner.tests.read(root, testRoot, data);
  runner.tests.refuseNoTests(tests);
  return tests;
}
