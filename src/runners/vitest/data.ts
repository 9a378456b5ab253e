// A Vitest run's data, opened: its files found and read (src/adapters/vitest-data.ts), its
// shards combined (shards.ts), its tests indexed (data-tests.ts), and a source's section
// parsed when a changed file asks for it. It answers what a coverage.py source answers
// (measured paths, context names, executed lines with the tests that ran them, statements),
// with paths as the data has them: relative to the Vitest root.

import { discoverData } from "../../adapters/coverage-discovery.js";
import {
  readVitestDataFile,
  VITEST_DATA,
  type VitestDataFile,
} from "../../adapters/vitest-data.js";
import { executedByLine } from "./changed-source.js";
import { PHASES, parseSection, type VitestHeader, type VitestSection } from "./data-format.js";
import { contextName, indexVitestTests, OUTSIDE_TESTS, type VitestTests } from "./data-tests.js";
import { combineSections, combineShards, type RunPart } from "./shards.js";

export interface VitestData {
  /** The data files read, absolute. */
  readonly files: readonly string[];
  /** The run's header (the shards' combined). */
  readonly header: VitestHeader;
  readonly tests: VitestTests;
  /** The sources the run measured, relative to the Vitest root (those with a section). */
  measuredPaths(): string[];
  /** Every context name the run's tests can have, and "" for lines run outside tests. */
  contextNames(): string[];
  /** A source's section (all shards'), or null when the run did not measure it. */
  section(source: string): VitestSection | null;
  /** As CoverageSource.executedLines: per measured path, line -> context names. */
  executedLines(
    paths: readonly string[],
    wanted?: ReadonlyMap<string, ReadonlySet<number>>,
  ): Map<string, Map<number, string[]>>;
  /** A measured source's statement-start lines, or null when it is not measured. */
  statements(source: string): ReadonlySet<number> | null;
}

/**
 * Opens the data a run left at the Vitest root (`.freezegate/`), or at `explicit` (a data
 * file, or a directory holding the run's files). Refuses unreadable, corrupt or unknown data
 * and shards that are not one whole run; what the data cannot judge (a filtered run, mixed
 * tests) is for refusals.ts.
 */
export function openVitestData(vitestRoot: string, explicit?: string): VitestData {
  const files = discoverData(VITEST_DATA, vitestRoot, explicit).files.map(readVitestDataFile);
  return vitestDataOf(files);
}

/** The data of files already read (one whole run's, or every shard's). */
export function vitestDataOf(files: readonly VitestDataFile[]): VitestData {
  const byPath = new Map(files.map((file) => [file.path, file]));
  const run = combineShards(files);
  const { header } = run;
  const tests = indexVitestTests(header.tests);
  const sections = new Map<string, VitestSection | null>();
  const section = (source: string): VitestSection | null => {
    let found = sections.get(source);
    if (found === undefined) {
      found = combinedSection(source, run.parts, byPath);
      sections.set(source, found);
    }
    return found;
  };
  return {
    files: files.map((file) => file.path),
    header,
    tests,
    measuredPaths: () => [...header.sources],
    contextNames: () => [
      OUTSIDE_TESTS,
      ...[...tests.ids].flatMap((id) => PHASES.map((phase) => contextName(id, phase))),
    ],
    section,
    executedLines(paths, wanted) {
      const out = new Map<string, Map<number, string[]>>();
      for (const path of paths) {
        const found = section(path);
        if (found !== null) out.set(path, executedByLine(found, tests, wanted?.get(path)));
      }
      return out;
    },
    statements(source) {
      const found = section(source);
      return found === null ? null : new Set(found.statements.map(([start]) => start));
    },
  };
}

function combinedSection(
  source: string,
  parts: readonly RunPart[],
  files: ReadonlyMap<string, VitestDataFile>,
): VitestSection | null {
  const found: { part: RunPart; section: VitestSection }[] = [];
  for (const part of parts) {
    const text = files.get(part.path)?.sectionText(source) ?? null;
    if (text !== null) found.push({ part, section: parseSection(text, part.path, part.header) });
  }
  return combineSections(source, found);
}
