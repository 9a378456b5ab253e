// The shards of one sharded Vitest run, combined as docs/vitest-data.md says (like
// coverage.py's parallel data files): tests and test files concatenated, each later shard's
// indices shifted by the lengths before it, a source's sections put side by side. Combining
// files of different runs, or leaving a shard out, would read the tests of the missing or
// older part as having run nothing: refused instead.

import { sameStrings, sampleOf } from "../../core/listing.js";
import { refusal } from "../../core/refusals/index.js";
import type { VitestHeader, VitestSection } from "./data-format.js";

/** One data file's header, and where its indices start in the combined run. */
export interface RunPart {
  path: string;
  header: VitestHeader;
  testOffset: number;
  fileOffset: number;
}

export interface CombinedRun {
  /** The run as one header: every shard's tests, test files and sources. */
  header: VitestHeader;
  parts: readonly RunPart[];
}

/** The files of one run (one whole run's, or every shard's) as one run. */
export function combineShards(
  files: readonly { path: string; header: VitestHeader }[],
): CombinedRun {
  const [first] = files;
  if (first === undefined) throw new Error("combineShards needs at least one data file");
  if (files.length === 1 && first.header.shard === null) {
    return { header: first.header, parts: [{ ...first, testOffset: 0, fileOffset: 0 }] };
  }
  refuseNotOneRun(files);
  const count = first.header.shard?.count ?? 0;
  const byIndex = new Map(files.map((f) => [f.header.shard?.index ?? 0, f]));
  const missing = Array.from({ length: count }, (_, i) => i + 1).filter((i) => !byIndex.has(i));
  if (missing.length > 0) {
    throw refusal("vitest-shard-missing", {
      have: files.length,
      count,
      missing: sampleOf(missing.map(String)),
    });
  }
  const parts: RunPart[] = [];
  let testOffset = 0;
  let fileOffset = 0;
  for (let i = 1; i <= count; i++) {
    const file = byIndex.get(i) as { path: string; header: VitestHeader };
    parts.push({ ...file, testOffset, fileOffset });
    testOffset += file.header.tests.length;
    fileOffset += file.header.ranFiles.length;
  }
  return { header: combinedHeader(parts.map((p) => p.header)), parts };
}

/** Refuses files that are not the shards of one run, each once. */
function refuseNotOneRun(files: readonly { path: string; header: VitestHeader }[]): void {
  const first = files[0] as { path: string; header: VitestHeader };
  const differs = (why: string, path: string, other = first.path) =>
    refusal("vitest-shards-not-one-run", { first: other, other: path, why });
  const seen = new Map<number, string>();
  for (const { path, header } of files) {
    if (header.shard === null) throw differs("one is a whole run's data, not a shard", path);
    if (header.shard.count !== first.header.shard?.count) {
      throw differs(
        `they split the run in ${first.header.shard?.count} and ${header.shard.count}`,
        path,
      );
    }
    const twin = seen.get(header.shard.index);
    if (twin !== undefined) {
      throw differs(`both are shard ${header.shard.index} of ${header.shard.count}`, path, twin);
    }
    seen.set(header.shard.index, path);
    if (header.root !== first.header.root) {
      throw differs(`their Vitest roots differ (${first.header.root}, ${header.root})`, path);
    }
    if (header.vitest !== first.header.vitest) {
      throw differs(`Vitest ${first.header.vitest} and ${header.vitest} recorded them`, path);
    }
    if (!sameStrings(header.testFiles, first.header.testFiles)) {
      throw differs("Vitest's include matched other test files", path);
    }
    if (JSON.stringify(header.filter) !== JSON.stringify(first.header.filter)) {
      throw differs("they were run with different filters", path);
    }
  }
  const ranIn = new Map<string, string>();
  for (const { path, header } of files) {
    for (const file of [...header.ranFiles, ...header.failedFiles.map((f) => f.file)]) {
      const other = ranIn.get(file);
      if (other !== undefined && other !== path) {
        throw differs(`both ran the test file ${file}`, other === first.path ? path : other);
      }
      ranIn.set(file, path);
    }
  }
}

/** The shards' headers, in shard order, as one. */
function combinedHeader(headers: readonly VitestHeader[]): VitestHeader {
  const first = headers[0] as VitestHeader;
  const reasons = headers.map((h) => h.reason);
  return {
    ...first,
    createdAt:
      headers
        .map((h) => h.createdAt ?? "")
        .sort()
        .at(-1) || null,
    shard: null,
    reason: reasons.includes("interrupted")
      ? "interrupted"
      : (reasons.find((r) => r !== "passed") ?? "passed"),
    concurrentOverlap: headers.some((h) => h.concurrentOverlap),
    ranFiles: headers.flatMap((h) => h.ranFiles),
    failedFiles: headers.flatMap((h) => h.failedFiles),
    tests: headers.flatMap((h) => h.tests),
    sources: [...new Set(headers.flatMap((h) => h.sources))].sort(),
  };
}

/**
 * A source's sections from the shards that hold it (each parsed against its own shard's
 * header) as one, under the combined run's indices. Sections recorded from different code
 * (their istanbul hashes differ) are refused: their lines do not number the same file.
 */
export function combineSections(
  source: string,
  sections: readonly { part: RunPart; section: VitestSection }[],
): VitestSection | null {
  if (sections.length === 0) return null;
  if (
    sections.length === 1 &&
    sections[0]?.part.testOffset === 0 &&
    sections[0].part.fileOffset === 0
  ) {
    return sections[0].section;
  }
  const hashed = sections.filter((s) => s.section.hash !== null);
  const other = hashed.find((s) => s.section.hash !== hashed[0]?.section.hash);
  if (other !== undefined) {
    throw refusal("vitest-shards-not-one-run", {
      first: String(hashed[0]?.part.path),
      other: other.part.path,
      why: `they recorded ${source} from different code, so their line numbers do not name the same lines`,
    });
  }
  const spans = new Map<string, readonly [number, number]>();
  const outside = new Map<number, readonly number[]>();
  const tests = new Map<
    number,
    readonly [readonly number[], readonly number[], readonly number[]]
  >();
  for (const { part, section } of sections) {
    for (const span of section.statements) spans.set(`${span[0]}:${span[1]}`, span);
    for (const [file, lines] of section.outside) outside.set(file + part.fileOffset, lines);
    for (const [test, phases] of section.tests) tests.set(test + part.testOffset, phases);
  }
  return {
    source,
    hash: hashed[0]?.section.hash ?? null,
    statements: [...spans.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]),
    outside,
    tests,
  };
}
