// A Vitest run's data as the audit reads any data: a CoverageSource whose paths are repository
// paths (the data's, relative to the Vitest root, with the test root in front), so that the
// path mapping, the lost-recording checks and the reports treat it as they treat coverage.py's
// relative paths. The runner's members get the run itself back with vitestOf.

import { discoverData } from "../../adapters/coverage-discovery.js";
import { readVitestDataFile, VITEST_DATA } from "../../adapters/vitest-data.js";
import type { CoverageSource } from "../../core/model.js";
import { normalizePath } from "../../core/path-map.js";
import type { DataRequest } from "../runner.js";
import { type VitestData, vitestDataOf } from "./data.js";
import { repoPathOf } from "./files.js";

/** The CoverageFormat of freezegate's Vitest data, as its header names it. */
export const VITEST_FORMAT = "freezegate-vitest-coverage";

/** An opened run: its data, and the Vitest root as a prefix of repository paths. */
export interface VitestRun {
  data: VitestData;
  /** "" or "dir/": the test root the audit reads the data against. */
  prefix: string;
  /** Repository path -> the data's path (relative to the Vitest root). */
  dataPathOf: ReadonlyMap<string, string>;
}

const runs = new WeakMap<CoverageSource, VitestRun>();

/** The run behind a source this module opened; anything else is a wiring mistake. */
export function vitestOf(source: CoverageSource): VitestRun {
  const run = runs.get(source);
  if (run === undefined) throw new Error("the Vitest runner was handed another runner's data");
  return run;
}

/** The test root as a path prefix inside the repository: "" or "dir/". */
export function testRootPrefix(testRoot: string | undefined): string {
  const dir = normalizePath(testRoot ?? "");
  return dir === "" || dir === "." ? "" : `${dir}/`;
}

/** The data files of the run the request names (absolute); throws when there are none. */
export function vitestDataFiles({ root, explicit, places }: DataRequest): string[] {
  return discoverData(VITEST_DATA, root, explicit, places).files;
}

export function openVitestSource(request: DataRequest): CoverageSource {
  const files = vitestDataFiles(request).map(readVitestDataFile);
  const data = vitestDataOf(files);
  const prefix = testRootPrefix(request.places.testRoot);
  const dataPathOf = new Map<string, string>();
  for (const source of data.measuredPaths()) {
    const path = repoPathOf(prefix, source);
    // A package imported from above the repository: no patch of it can be judged here.
    if (path !== null) dataPathOf.set(path, source);
  }
  const toData = (paths: readonly string[]) =>
    paths.flatMap((p) => {
      const source = dataPathOf.get(p);
      return source === undefined ? [] : [[p, source] as const];
    });
  const { createdAt, vitest } = data.header;
  const source: CoverageSource = {
    meta: {
      format: VITEST_FORMAT,
      dataFiles: [...data.files],
      coverageVersion: vitest,
      hasArcs: false,
      recordedAt: createdAt === null ? null : new Date(createdAt),
    },
    measuredPaths: () => [...dataPathOf.keys()],
    contextNames: () => data.contextNames(),
    executedLines(paths, wanted) {
      const pairs = toData(paths);
      const wantedByData =
        wanted === undefined
          ? undefined
          : new Map(
              pairs.flatMap(([p, s]) => {
                const lines = wanted.get(p);
                return lines === undefined ? [] : [[s, lines] as const];
              }),
            );
      const read = data.executedLines(
        pairs.map(([, s]) => s),
        wantedByData,
      );
      const out = new Map<string, Map<number, string[]>>();
      for (const [p, s] of pairs) {
        const lines = read.get(s);
        if (lines !== undefined) out.set(p, lines);
      }
      return out;
    },
    statements(path) {
      const found = dataPathOf.get(path);
      return found === undefined ? null : data.statements(found);
    },
    excluded: () => null,
    close() {},
  };
  runs.set(source, { data, prefix, dataPathOf });
  return source;
}
