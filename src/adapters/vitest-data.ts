// freezegate's Vitest data on disk (docs/vitest-data.md): where a run left it (one file, or one
// per shard) and its lines. A file is read whole through the bounded reader, as every input
// is, but only its header and the sections asked for are decoded and parsed: a patch touches a
// few of a project's thousands of source files, and each section line says whose it is in its
// first bytes.

import { readdirSync } from "node:fs";
import { basename, dirname, join } from "node:path";
import type { FreezegateError } from "../core/errors.js";
import type { CoverageFormat } from "../core/model.js";
import { refusal } from "../core/refusals/index.js";
import {
  parseHeader,
  sectionPrefix,
  VITEST_DATA_FORMAT,
  type VitestHeader,
} from "../runners/vitest/data-format.js";
import type { DataLayout, DiscoveredCoverage } from "./coverage-discovery.js";
import { readFileBytes, readFileHead } from "./repo-files.js";

/** Where the recorder writes, relative to the Vitest root. */
export const VITEST_DATA_DIR = ".freezegate";
export const VITEST_DATA_FILE = "vitest-coverage.jsonl";
const SHARD_FILE = /^vitest-coverage\.([1-9]\d*)-of-([1-9]\d*)\.jsonl$/;
const FORMAT: CoverageFormat = VITEST_DATA_FORMAT;

const NO_DATA_FIX =
  "record per-test coverage with freezegate's Vitest runner (npx freezegate init vitest, then npx vitest run), or name the data file";

/** Is this a name the recorder gives its data (the whole run's, or a shard's)? */
export function isVitestDataName(name: string): boolean {
  return name === VITEST_DATA_FILE || SHARD_FILE.test(name);
}

/**
 * freezegate's Vitest data as the data search (coverage-discovery.ts) finds it: in the
 * `.freezegate/` directory of each place it reads, the whole run's file or every shard's file;
 * a directory named with --coverage holds them, or holds that directory.
 */
export const VITEST_DATA: DataLayout = {
  what: "Vitest coverage data",
  lookedFor: `${VITEST_DATA_DIR}/${VITEST_DATA_FILE} and the shard files ${VITEST_DATA_DIR}/vitest-coverage.<i>-of-<n>.jsonl`,
  record: NO_DATA_FIX,
  give: `pass the Vitest data file (${VITEST_DATA_DIR}/${VITEST_DATA_FILE}) or the directory that holds the run's files`,
  recordInCi: "npx vitest run",
  namedIn: (directory) => namesIn(join(directory, VITEST_DATA_DIR)).some(isVitestDataName),
  findIn: (directory) => dataIn(join(directory, VITEST_DATA_DIR)),
  inNamedDirectory: dataIn,
  missing: () => null,
  atFile: (path) => ({ format: FORMAT, files: [path] }),
  // A file named with --coverage is this runner's by its first line, whatever its name.
  claims: (found) => found.files.every(startsAsVitestData),
  flagPath: (_directory, found) =>
    found.files.length === 1 ? (found.files[0] as string) : dirname(found.files[0] as string),
  describe: (found, shown) =>
    found.files.length === 1 ? shown : `${found.files.length} shard files in ${shown}`,
  blocked: () => null,
  namedLike: (path) => isVitestDataName(basename(path)),
  holdsData(path) {
    try {
      return startsAsVitestData(path);
    } catch {
      return false;
    }
  },
};

/** Does the file start as the recorder's data does (its header names the format first)? */
function startsAsVitestData(path: string): boolean {
  const head = readFileHead(path, "Vitest coverage data", 64).toString("utf8");
  return /^\s*\{\s*"format"\s*:\s*"freezegate-vitest-coverage"/.test(head);
}

function namesIn(dir: string): string[] {
  try {
    return readdirSync(dir);
  } catch {
    return [];
  }
}

/** The whole run's file or every shard's file in `dir`; both at once are two runs' data. */
function dataIn(dir: string): DiscoveredCoverage | null {
  const names = namesIn(dir);
  const whole = names.includes(VITEST_DATA_FILE);
  const shards = names.filter((name) => SHARD_FILE.test(name)).sort(byShardIndex);
  if (whole && shards.length > 0) {
    throw refusal("vitest-data-whole-and-shards", {
      dir,
      whole: VITEST_DATA_FILE,
      shard: shards[0] as string,
    });
  }
  const files = (whole ? [VITEST_DATA_FILE] : shards).map((name) => join(dir, name));
  return files.length === 0 ? null : { format: FORMAT, files };
}

function byShardIndex(a: string, b: string): number {
  const index = (name: string) => Number(SHARD_FILE.exec(name)?.[1]);
  return index(a) - index(b) || (a < b ? -1 : a > b ? 1 : 0);
}

/** One data file: its header, and the text of a source's section on demand. */
export interface VitestDataFile {
  path: string;
  header: VitestHeader;
  /** The section line of a source the header lists, or null when it lists none. */
  sectionText(source: string): string | null;
}

const NEWLINE = 0x0a;

/**
 * Reads one data file: bounded, a regular file only (readFileBytes). A file that does not end
 * with its last section's newline, or whose lines are not its header's sources in order, was
 * cut short or altered, and is refused.
 */
export function readVitestDataFile(path: string): VitestDataFile {
  const bytes = readFileBytes(path, "Vitest coverage data", {
    fix: NO_DATA_FIX,
    tooLargeFix: "record with vitest run --shard i/n: each shard writes a file of its own",
  });
  const truncated = (problem: string): FreezegateError =>
    refusal("vitest-data-corrupt", { path, problem, truncated: true });
  if (bytes.length === 0) throw truncated("the file is empty");
  if (bytes[bytes.length - 1] !== NEWLINE) throw truncated("its last line has no end");
  const starts = lineStarts(bytes);
  const header = parseHeader(bytes.toString("utf8", 0, (starts[1] ?? bytes.length) - 1), path);
  if (starts.length !== 1 + header.sources.length) {
    throw truncated(
      `its header lists ${header.sources.length} source files, the file has ${starts.length - 1} source sections`,
    );
  }
  return {
    path,
    header,
    sectionText(source) {
      const i = sortedIndexOf(header.sources, source);
      if (i < 0) return null;
      const start = starts[i + 1] as number;
      const end = (starts[i + 2] ?? bytes.length) - 1;
      const prefix = Buffer.from(sectionPrefix(source));
      if (
        end - start < prefix.length ||
        !bytes.subarray(start, start + prefix.length).equals(prefix)
      ) {
        throw truncated(
          `section ${i + 1} is not the section of ${source}, which the header lists there`,
        );
      }
      return bytes.toString("utf8", start, end);
    },
  };
}

/** Where each line starts (the file ends with a newline). */
function lineStarts(bytes: Buffer): number[] {
  const starts = [0];
  for (let at = bytes.indexOf(NEWLINE); at >= 0 && at < bytes.length - 1; ) {
    starts.push(at + 1);
    at = bytes.indexOf(NEWLINE, at + 1);
  }
  return starts;
}

/** Index of `value` in a list sorted as JavaScript compares strings, or -1. */
function sortedIndexOf(sorted: readonly string[], value: string): number {
  let low = 0;
  let high = sorted.length - 1;
  while (low <= high) {
    const mid = (low + high) >>> 1;
    const at = sorted[mid] as string;
    if (at === value) return mid;
    if (at < value) low = mid + 1;
    else high = mid - 1;
  }
  return -1;
}
