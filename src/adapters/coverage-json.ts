// Reads a coverage.py JSON report written with `coverage json --show-contexts` as a
// CoverageSource. Understands the layouts of coverage.py 5.x/6.x (no meta.format), 7.4.1+
// (meta.format 2) and 7.6+ (format 3, which adds per-file `functions`/`classes` regions that
// repeat the file's data and are ignored here). Unlike the SQLite data file, the report
// carries the statements coverage.py computed, so `statements()` answers from it.

import { resolve } from "node:path";
import { type FreezegateError, InternalError } from "../core/errors.js";
import { stripBom } from "../core/json-text.js";
import type { CoverageMeta, CoverageSource } from "../core/model.js";
import { refusal } from "../core/refusals/index.js";
import { readTextFile } from "./repo-files.js";

/** Report layouts this reader knows; 1 stands for reports without a `meta.format` field. */
const KNOWN_FORMATS = new Set([1, 2, 3]);

const SHOW_CONTEXTS_FIX =
  "run `coverage json --show-contexts` (after pytest --cov --cov-context=test)";

type JsonObject = Record<string, unknown>;

/** Opens and validates a JSON report; throws InputError when it cannot say which test ran what. */
export function openCoverageJson(file: string): CoverageSource {
  const path = resolve(file);
  const report = parseReport(path);
  return new JsonCoverageSource(path, report.meta, report.files);
}

function parseReport(path: string): { meta: JsonObject; files: JsonObject } {
  const text = stripBom(
    readTextFile(path, "coverage report", {
      fix: SHOW_CONTEXTS_FIX,
      // The SQLite data file is read a page at a time, never whole: no size limit there.
      tooLargeFix: "pass the .coverage data file (SQLite) the report was made from instead",
    }),
  );
  if (text.trim() === "") {
    throw refusal("coverage-report-empty", { path });
  }
  let root: unknown;
  try {
    root = JSON.parse(text);
  } catch (error) {
    throw refusal("coverage-report-not-json", { path, why: messageOf(error) }, { cause: error });
  }
  if (!isObject(root) || !isObject(root.meta) || !isObject(root.files)) {
    throw refusal("coverage-report-malformed", {
      path,
      problem: 'is JSON but not a coverage.py JSON report (it has no "meta" and "files" objects)',
    });
  }
  const { meta, files } = root;
  if (typeof meta.version !== "string") {
    throw refusal("coverage-report-malformed", {
      path,
      problem: "is not a coverage.py JSON report (meta.version is missing)",
    });
  }
  const format = meta.format ?? 1;
  if (typeof format !== "number" || !KNOWN_FORMATS.has(format)) {
    throw refusal("coverage-report-format-unknown", {
      path,
      format: String(JSON.stringify(format)),
    });
  }
  if (meta.show_contexts !== true) {
    throw refusal("coverage-report-without-contexts", { path, file: null });
  }
  const paths = Object.keys(files);
  if (paths.length === 0) {
    throw refusal("coverage-report-measured-nothing", { path });
  }
  for (const measured of paths) {
    const entry = files[measured];
    if (!isObject(entry) || !isObject(entry.contexts)) {
      throw refusal("coverage-report-without-contexts", { path, file: measured });
    }
  }
  return { meta, files };
}

class JsonCoverageSource implements CoverageSource {
  readonly meta: CoverageMeta;
  private readonly path: string;
  private readonly files: JsonObject;
  /** One string object per distinct context name, shared by every line that names it. */
  private readonly interned = new Map<string, string>();
  private readonly statementCache = new Map<string, ReadonlySet<number>>();
  private readonly excludedCache = new Map<string, ReadonlySet<number>>();
  private names: string[] | null = null;
  private closed = false;

  constructor(path: string, meta: JsonObject, files: JsonObject) {
    this.path = path;
    this.files = files;
    this.meta = {
      format: "coverage.py-json",
      dataFiles: [path],
      coverageVersion: meta.version as string,
      hasArcs: meta.branch_coverage === true,
      recordedAt: typeof meta.timestamp === "string" ? parseLocalTimestamp(meta.timestamp) : null,
    };
  }

  measuredPaths(): string[] {
    this.assertOpen();
    return Object.keys(this.files);
  }

  contextNames(): string[] {
    this.assertOpen();
    if (this.names === null) {
      // A large report repeats each name on thousands of lines: only collect them here
      // (validation and interning happen per path in executedLines).
      const seen = new Set<string>();
      for (const measured of Object.keys(this.files)) {
        for (const contexts of Object.values(this.contextsOf(measured))) {
          if (!Array.isArray(contexts)) throw this.malformed(measured);
          for (const name of contexts) {
            if (typeof name !== "string") throw this.malformed(measured);
            seen.add(name);
          }
        }
      }
      this.names = [...seen];
    }
    return this.names.slice();
  }

  executedLines(paths: readonly string[]): Map<string, Map<number, string[]>> {
    this.assertOpen();
    const result = new Map<string, Map<number, string[]>>();
    for (const measured of paths) {
      if (result.has(measured) || !Object.hasOwn(this.files, measured)) continue;
      const lines = new Map<number, string[]>();
      // Integer-like keys iterate in ascending numeric order, so the map comes out sorted.
      for (const [key, contexts] of Object.entries(this.contextsOf(measured))) {
        const line = lineNumber(key);
        if (line === null) {
          throw refusal("coverage-report-malformed", {
            path: this.path,
            problem: `has a non-numeric line ${JSON.stringify(key)} in the contexts of ${measured}`,
          });
        }
        const names = this.namesAt(measured, contexts);
        if (line > 0 && names.length > 0) lines.set(line, names);
      }
      result.set(measured, lines);
    }
    return result;
  }

  statements(path: string): ReadonlySet<number> | null {
    // coverage.py 6.5 does not intersect executed_lines with the statements (it can hold
    // line 0 and excluded lines); 7.x does. The union minus lines <= 0 is right for both.
    return this.lineLists(path, this.statementCache, ["executed_lines", "missing_lines"]);
  }

  excluded(path: string): ReadonlySet<number> | null {
    return this.lineLists(path, this.excludedCache, ["excluded_lines"]);
  }

  /** The union of some of a file's line lists (lines > 0), checked and cached. */
  private lineLists(
    path: string,
    cache: Map<string, ReadonlySet<number>>,
    keys: readonly string[],
  ): ReadonlySet<number> | null {
    this.assertOpen();
    const cached = cache.get(path);
    if (cached) return cached;
    if (!Object.hasOwn(this.files, path)) return null;
    const entry = this.files[path] as JsonObject;
    const statements = new Set<number>();
    for (const key of keys) {
      const list = entry[key];
      if (!Array.isArray(list)) {
        throw refusal("coverage-report-malformed", {
          path: this.path,
          problem: `has no usable ${key} list for ${path}`,
        });
      }
      for (const line of list) {
        if (!Number.isInteger(line)) {
          throw refusal("coverage-report-malformed", {
            path: this.path,
            problem: `has a non-integer line in ${key} for ${path}`,
          });
        }
        if ((line as number) > 0) statements.add(line as number);
      }
    }
    cache.set(path, statements);
    return statements;
  }

  close(): void {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new InternalError("coverage report was used after close()");
  }

  private contextsOf(measured: string): JsonObject {
    return (this.files[measured] as JsonObject).contexts as JsonObject;
  }

  private malformed(measured: string): FreezegateError {
    return refusal("coverage-report-malformed", {
      path: this.path,
      problem: `has a malformed contexts entry for ${measured}`,
    });
  }

  private namesAt(measured: string, contexts: unknown): string[] {
    if (!Array.isArray(contexts)) throw this.malformed(measured);
    const names: string[] = [];
    for (const name of contexts) {
      if (typeof name !== "string") throw this.malformed(measured);
      let shared = this.interned.get(name);
      if (shared === undefined) {
        shared = name;
        this.interned.set(name, name);
      }
      names.push(shared);
    }
    // coverage.py writes each name once per line; keep it that way whatever the input.
    if (names.length > 1) {
      const unique = new Set(names);
      if (unique.size !== names.length) return [...unique];
    }
    return names;
  }
}

function lineNumber(key: string): number | null {
  return /^-?\d+$/.test(key) ? Number(key) : null;
}

/**
 * coverage.py timestamps carry no zone: the JSON report's `meta.timestamp` is
 * `datetime.now().isoformat()` and the data file's `when` is `%Y-%m-%d %H:%M:%S`, both local
 * wall time where they were written. Read as local time of this machine; null if malformed.
 */
export function parseLocalTimestamp(text: string): Date | null {
  const match = /^(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2}):(\d{2})(?:\.(\d{1,9}))?$/.exec(text);
  if (!match) return null;
  const [, year, month, day, hour, minute, second, fraction] = match;
  const millis = fraction ? Math.floor(Number(`0.${fraction}`) * 1000) : 0;
  const date = new Date(
    Number(year),
    Number(month) - 1,
    Number(day),
    Number(hour),
    Number(minute),
    Number(second),
    millis,
  );
  // The Date constructor silently rolls over impossible values (month 13, day 32, 24:61).
  if (
    date.getFullYear() !== Number(year) ||
    date.getMonth() !== Number(month) - 1 ||
    date.getDate() !== Number(day) ||
    date.getMinutes() !== Number(minute)
  ) {
    return null;
  }
  return date;
}

function isObject(value: unknown): value is JsonObject {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
