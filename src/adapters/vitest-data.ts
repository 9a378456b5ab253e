// freezegate's Vitest data on disk (docs/vitest-data.md): where a run left it (one file, or one
// per shard) and its lines. A file is read whole through the bounded reader, as every input
// is, but only its header and the sections asked for are decoded and parsed: a patch touches a
// few of a project's thousands of source files, and each section line says whose it is in its
// first bytes.

import { readdirSync } from "node:fs";
import { join } from "node:path";
import { InputError } from "../core/errors.js";
import {
  parseHeader,
  RECORD_AGAIN,
  sectionPrefix,
  type VitestHeader,
} from "../runners/vitest/data-format.js";
import { isDirectory, readFileBytes } from "./repo-files.js";

/** Where the recorder writes, relative to the Vitest root. */
export const VITEST_DATA_DIR = ".freezegate";
export const VITEST_DATA_FILE = "vitest-coverage.jsonl";
const SHARD_FILE = /^vitest-coverage\.([1-9]\d*)-of-([1-9]\d*)\.jsonl$/;

const NO_DATA_FIX =
  "record per-test coverage with freezegate's Vitest runner (npx freezegate init vitest, then npx vitest run), or name the data file";

/** Is this a name the recorder gives its data (the whole run's, or a shard's)? */
export function isVitestDataName(name: string): boolean {
  return name === VITEST_DATA_FILE || SHARD_FILE.test(name);
}

/**
 * The data files of one run, absolute: `explicit` when it is a file; else the data in the
 * directory it names (or in its .freezegate/), or by default in `<vitestRoot>/.freezegate/`:
 * the whole run's file, or every shard file. Both kinds at once are two runs' data, refused.
 */
export function findVitestData(vitestRoot: string, explicit?: string): string[] {
  if (explicit !== undefined && !isDirectory(explicit)) return [explicit];
  const dirs =
    explicit === undefined
      ? [join(vitestRoot, VITEST_DATA_DIR)]
      : [explicit, join(explicit, VITEST_DATA_DIR)];
  for (const dir of dirs) {
    const found = dataFilesIn(dir);
    if (found.length > 0) return found;
  }
  throw new InputError(`no Vitest coverage data at ${join(dirs[0] as string, VITEST_DATA_FILE)}`, {
    fix: NO_DATA_FIX,
  });
}

function dataFilesIn(dir: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return [];
  }
  const whole = names.includes(VITEST_DATA_FILE);
  const shards = names.filter((name) => SHARD_FILE.test(name)).sort(byShardIndex);
  if (whole && shards.length > 0) {
    throw new InputError(
      `${dir} holds both a whole run's Vitest data (${VITEST_DATA_FILE}) and shard files (${shards[0]}, ...), which come from different runs`,
      { fix: "delete the files of the older run, or name the data file to audit" },
    );
  }
  return (whole ? [VITEST_DATA_FILE] : shards).map((name) => join(dir, name));
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
  const truncated = (what: string) =>
    new InputError(`Vitest coverage data ${path} is truncated or corrupt: ${what}`, {
      fix: RECORD_AGAIN,
    });
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
