// The shape of freezegate's Vitest data (docs/vitest-data.md): its header and one source
// section, checked field by field. Pure: the adapter (src/adapters/vitest-data.ts) hands the
// text of a line, this says whether it is data freezegate can read and what it holds. A
// field of the wrong type is a corrupt file, never a default: a missing list of tests would
// read as "no test ran this line".

import type { FreezegateError } from "../../core/errors.js";
import { refusal } from "../../core/refusals/index.js";

export const VITEST_DATA_FORMAT = "freezegate-vitest-coverage";
export const VITEST_DATA_VERSION = 1;

export type Phase = "run" | "setup" | "teardown";
/** The order of a test's phases in a source section. */
export const PHASES: readonly Phase[] = ["run", "setup", "teardown"];

export interface VitestTest {
  /** `FILE::SUITE > ... > TEST`. */
  id: string;
  /** The test file, relative to the Vitest root: the id's part before the first "::". */
  file: string;
  mode: string;
  state: string;
  /**
   * Vitest called its test function (in some try). False when the data says it did not, and
   * when the data does not say: a test not known to have run its body ran none.
   */
  body: boolean;
  duplicate: boolean;
  /** Its window overlapped another test's (see the header's concurrentOverlap). */
  concurrent: boolean;
  project: string | null;
}

export interface VitestHeader {
  createdAt: string | null;
  vitest: string | null;
  /** The Vitest root, absolute and "/"-separated; every path in the data is relative to it. */
  root: string;
  shard: { index: number; count: number } | null;
  reason: string | null;
  /** A filtered run's filters, or null. */
  filter: { testNamePattern: string | null; files: readonly string[] | null } | null;
  concurrentOverlap: boolean;
  testFiles: readonly string[];
  ranFiles: readonly string[];
  failedFiles: readonly { file: string; reason: string }[];
  tests: readonly VitestTest[];
  /** The paths of the source sections, sorted: section i is line i + 2 of the file. */
  sources: readonly string[];
}

/** One source file's section: statement spans, lines run outside tests, lines per test. */
export interface VitestSection {
  source: string;
  hash: string | null;
  statements: readonly (readonly [number, number])[];
  /** Test file index (into ranFiles) -> statement-start lines run outside any test. */
  outside: ReadonlyMap<number, readonly number[]>;
  /** Test index -> [run, setup, teardown] statement-start lines. */
  tests: ReadonlyMap<number, readonly [readonly number[], readonly number[], readonly number[]]>;
}

type Json = Record<string, unknown>;

function corrupt(path: string, problem: string): FreezegateError {
  return refusal("vitest-data-corrupt", { path, problem });
}

function parseLine(text: string, path: string, what: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw corrupt(path, `${what} is not JSON`);
  }
  if (!isObject(value)) throw corrupt(path, `${what} is not a JSON object`);
  return value;
}

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const isString = (value: unknown): value is string => typeof value === "string";
const isLine = (value: unknown): value is number =>
  typeof value === "number" && Number.isInteger(value) && value >= 1;

function stringList(value: unknown, path: string, field: string): string[] {
  if (!Array.isArray(value) || !value.every(isString)) {
    throw corrupt(path, `the header's "${field}" is not a list of paths`);
  }
  return value;
}

function stringOrNull(value: unknown): string | null {
  return isString(value) ? value : null;
}

/**
 * The header (the file's first line), checked: its format and version first, so that data of
 * another kind or a newer freezegate is refused for what it is rather than as corrupt.
 */
export function parseHeader(text: string, path: string): VitestHeader {
  const header = parseLine(text, path, "its first line");
  if (header.format !== VITEST_DATA_FORMAT) {
    throw refusal("vitest-data-unrecognized", { path, format: VITEST_DATA_FORMAT });
  }
  if (header.version !== VITEST_DATA_VERSION) {
    throw refusal("vitest-data-version-unknown", {
      path,
      version: String(JSON.stringify(header.version)),
      readable: VITEST_DATA_VERSION,
    });
  }
  if (!isString(header.root) || !header.root.startsWith("/")) {
    throw corrupt(path, 'the header\'s "root" is not an absolute path');
  }
  if (typeof header.concurrentOverlap !== "boolean") {
    throw corrupt(path, 'the header has no "concurrentOverlap" flag');
  }
  const ranFiles = stringList(header.ranFiles, path, "ranFiles");
  const sources = stringList(header.sources, path, "sources");
  for (let i = 1; i < sources.length; i++) {
    if ((sources[i - 1] as string) >= (sources[i] as string)) {
      throw corrupt(path, 'the header\'s "sources" are not sorted and unique');
    }
  }
  return {
    createdAt: stringOrNull(header.createdAt),
    vitest: stringOrNull(header.vitest),
    root: header.root,
    shard: shardOf(header.shard, path),
    reason: stringOrNull(header.reason),
    filter: filterOf(header.filter, path),
    concurrentOverlap: header.concurrentOverlap,
    testFiles: stringList(header.testFiles, path, "testFiles"),
    ranFiles,
    failedFiles: failedFilesOf(header.failedFiles, path),
    tests: testsOf(header.tests, path),
    sources,
  };
}

function shardOf(value: unknown, path: string): VitestHeader["shard"] {
  if (value === null || value === undefined) return null;
  if (
    !isObject(value) ||
    !isLine(value.index) ||
    !isLine(value.count) ||
    value.index > value.count
  ) {
    throw corrupt(path, 'the header\'s "shard" is not {index, count}');
  }
  return { index: value.index, count: value.count };
}

/** The run's filters, or null when it ran the whole suite (no pattern, no file filter). */
function filterOf(value: unknown, path: string): VitestHeader["filter"] {
  if (value === null || value === undefined) return null;
  if (!isObject(value)) throw corrupt(path, 'the header\'s "filter" is not an object');
  const pattern = value.testNamePattern ?? null;
  const files = value.files ?? null;
  if ((pattern !== null && !isString(pattern)) || (files !== null && !Array.isArray(files))) {
    throw corrupt(path, 'the header\'s "filter" is not {testNamePattern, files}');
  }
  const fileList = files === null ? null : stringList(files, path, "filter.files");
  if (pattern === null && (fileList === null || fileList.length === 0)) return null;
  return { testNamePattern: pattern, files: fileList };
}

function failedFilesOf(value: unknown, path: string): VitestHeader["failedFiles"] {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw corrupt(path, 'the header\'s "failedFiles" is not a list');
  return value.map((entry) => {
    if (!isObject(entry) || !isString(entry.file)) {
      throw corrupt(path, 'an entry of the header\'s "failedFiles" has no "file"');
    }
    return { file: entry.file, reason: isString(entry.reason) ? entry.reason : "" };
  });
}

function testsOf(value: unknown, path: string): VitestTest[] {
  if (!Array.isArray(value)) throw corrupt(path, 'the header\'s "tests" is not a list');
  return value.map((entry, i) => {
    if (!isObject(entry) || !isString(entry.id) || !isString(entry.file)) {
      throw corrupt(path, `test ${i} of the header has no "id" and "file"`);
    }
    // The file part of an id is everything before its first "::".
    if (!entry.id.startsWith(`${entry.file}::`) || entry.file.includes("::")) {
      throw corrupt(path, `test id "${entry.id}" does not start with its file "${entry.file}::"`);
    }
    if (entry.body !== undefined && typeof entry.body !== "boolean") {
      throw corrupt(path, `test "${entry.id}" has a "body" that is not true or false`);
    }
    return {
      id: entry.id,
      file: entry.file,
      mode: isString(entry.mode) ? entry.mode : "run",
      state: isString(entry.state) ? entry.state : "unknown",
      body: entry.body === true,
      duplicate: entry.duplicate === true,
      concurrent: entry.concurrent === true,
      project: stringOrNull(entry.project),
    };
  });
}

/** The start of the line that holds `source`'s section, as the recorder writes it. */
export function sectionPrefix(source: string): string {
  return `{"source":${JSON.stringify(source)},`;
}

/**
 * One source section, checked against the header it belongs to: line numbers are positive,
 * spans run forwards, test and test-file indices exist.
 */
export function parseSection(text: string, path: string, header: VitestHeader): VitestSection {
  const section = parseLine(text, path, "a source section");
  const source = section.source;
  if (!isString(source)) throw corrupt(path, 'a source section has no "source"');
  const bad = (what: string) => corrupt(path, `the section of ${source} has ${what}`);
  if (!Array.isArray(section.statements)) throw bad('no "statements" list');
  const statements = section.statements.map((span) => {
    if (!Array.isArray(span) || span.length !== 2 || !isLine(span[0]) || !isLine(span[1])) {
      throw bad("a statement that is not a [start, end] pair of line numbers");
    }
    if (span[1] < span[0]) throw bad(`a statement ending before it starts (${span[0]}-${span[1]})`);
    return [span[0], span[1]] as const;
  });
  const outside = new Map<number, readonly number[]>();
  for (const [key, lines] of Object.entries(objectOr(section.outside, bad, "outside"))) {
    outside.set(indexIn(key, header.ranFiles.length, bad, "test file"), lineList(lines, bad));
  }
  const tests = new Map<number, [number[], number[], number[]]>();
  for (const [key, phases] of Object.entries(objectOr(section.tests, bad, "tests"))) {
    const index = indexIn(key, header.tests.length, bad, "test");
    if (!Array.isArray(phases) || phases.length !== PHASES.length) {
      throw bad(`test ${index} without its [run, setup, teardown] lines`);
    }
    tests.set(index, [
      lineList(phases[0], bad),
      lineList(phases[1], bad),
      lineList(phases[2], bad),
    ]);
  }
  return {
    source,
    hash: stringOrNull(section.hash),
    statements,
    outside,
    tests,
  };
}

function objectOr(value: unknown, bad: (what: string) => FreezegateError, field: string): Json {
  if (!isObject(value)) throw bad(`no "${field}" object`);
  return value;
}

function indexIn(
  key: string,
  length: number,
  bad: (what: string) => FreezegateError,
  what: string,
): number {
  const index = /^(0|[1-9]\d*)$/.test(key) ? Number(key) : -1;
  if (index < 0 || index >= length)
    throw bad(`lines for ${what} ${key}, which the header does not list`);
  return index;
}

function lineList(value: unknown, bad: (what: string) => FreezegateError): number[] {
  if (!Array.isArray(value) || !value.every(isLine))
    throw bad("a line list that is not line numbers");
  return value;
}
