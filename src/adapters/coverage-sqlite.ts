// Reads coverage.py SQLite data files (`.coverage` and its parallel `.coverage.*` files) as
// one CoverageSource. Several files are combined in memory by context name and file path,
// the way `coverage combine` merges them, without writing anything: the files are opened
// read-only and stay byte-for-byte unchanged. Reading is lazy: opening reads the small
// `meta` and `file` tables; contexts are read on first use, and line data only for the paths
// asked for (one indexed query per path and data file: its rows packed into one value, or,
// for arcs when only some lines' tests are wanted, the arc ends and the arcs touching them).

import { statSync } from "node:fs";
import { resolve } from "node:path";
import type { DatabaseSync, StatementSync } from "node:sqlite";
import { FreezegateError, InternalError } from "../core/errors.js";
import type { ContextOverview, CoverageMeta, CoverageSource } from "../core/model.js";
import { decodeNumbitsInto } from "../core/numbits.js";
import { refusal } from "../core/refusals/index.js";
import { mightNameTest } from "../runners/pytest/context-names.js";
import { parseLocalTimestamp } from "./coverage-json.js";
import { readFileHead } from "./repo-files.js";
import {
  openReadOnly,
  SQLITE_BUSY,
  SQLITE_LOCKED,
  SQLITE_READONLY_ROLLBACK,
  sqliteResultCode,
} from "./sqlite-driver.js";

/** The names of an executed line nobody asked about: one shared, frozen empty list. */
const NO_NAMES: string[] = Object.freeze([]) as unknown as string[];

/** The only schema version coverage.py has written since 5.0 (and up to 7.x). */
export const COVERAGE_SCHEMA_VERSION = 7;

const SQLITE_MAGIC = Buffer.from("SQLite format 3\0", "latin1");
const COVERAGE4_SIGNATURE = Buffer.from("!coverage.py: This is a private format", "latin1");
const SQLITE_HEADER_SIZE = 100;
const REQUIRED_TABLES = ["meta", "file", "context", "line_bits", "arc"] as const;

const MMAP_BYTES = 1 << 30;

/** Far beyond any real source file; bounds the per-line arrays a corrupt file could blow up. */
const MAX_LINE = 10_000_000;

/*
 * Reading one file's rows through the driver costs about a microsecond per row (a row
 * object, and a copy of each blob), which dominates on large data: a file of a 20,000-test
 * suite has thousands of rows. So each query packs one file's rows into a single value,
 * `packed`, with the row count `rows` to check the framing against (a NULL would vanish from
 * group_concat).
 */

/**
 * line_bits as one blob of `<context_id>,<length>,<numbits>` records: two decimal numbers,
 * each ended by a comma, then `length` bytes. Integers print as text in SQLite natively; a
 * fixed-width printf header cost more to make and to read (docs/performance.md).
 * A context id that is not an integer (text could hold the commas of further records), or
 * numbits that are not a blob (a number or text would be read as its digits' bytes), make
 * the record NULL, which group_concat leaves out: the count then tells (reviews 41, 42).
 */
const PACKED_LINE_BITS = `
  SELECT count(*) AS rows,
         CAST(group_concat(
           CASE WHEN typeof(context_id) = 'integer' AND typeof(numbits) = 'blob'
                THEN context_id END
             || ',' || length(CAST(numbits AS BLOB)) || ',' || CAST(numbits AS BLOB),
           '') AS BLOB) AS packed
  FROM line_bits WHERE file_id = ?`;

/** Plain rows, for line data whose blobs SQLite would transcode (a non-UTF-8 database). */
const LINE_BITS_ROWS = "SELECT context_id, numbits FROM line_bits WHERE file_id = ?";

/** arc as one ASCII string of `context_id,fromno,tono` records separated by `;`. */
const PACKED_ARCS = `
  SELECT count(*) AS rows, group_concat(context_id || ',' || fromno || ',' || tono, ';') AS packed
  FROM arc WHERE file_id = ?`;

/**
 * Arcs when only some lines' tests are wanted: every line that ran (the distinct arc ends),
 * and the `context_id,fromno,tono` records of the arcs that touch a wanted line. A 900-line
 * patch's files hold two million arcs; packing them all as text and parsing it cost about
 * twice what SQLite needs to pick these out.
 */
const WANTED_ARCS = `
  SELECT count(*) AS rows, group_concat(DISTINCT fromno) AS froms,
         group_concat(DISTINCT tono) AS tos,
         group_concat(
           CASE WHEN fromno IN (SELECT value FROM json_each(@wanted))
                  OR tono IN (SELECT value FROM json_each(@wanted))
                THEN context_id || ',' || fromno || ',' || tono END,
           ';') AS touching
  FROM arc WHERE file_id = @file`;

/**
 * What kind of context name each row holds, as SQL: a plain pytest-cov name is a node id with
 * "::" after its first character and no "|" before its first "::", then "|" and a phase (the
 * same test as `isPlainTestId` in runners/pytest/context-names.ts plus the phase suffix; tests hold the two
 * in step). One value per name, each test made once and stopping at the first that decides:
 * `odd` for a name SQLite's string functions would misread (not text, or holding a NUL),
 * `other` for any other name that is not plain, `run` for a plain "|run" name, `phase` for a
 * plain "|setup" or "|teardown" name. A name with a "|" before its first "::" is `other`: that
 * "|" may end a static context or belong to the test file's path, which only the test root's
 * files tell, so such names send the audit to `indexContexts`, which reads every name.
 *
 * The second line decides most "|run" names with GLOB alone, which SQLite matches faster than
 * instr() counts characters (docs/performance.md): a "::" that is not first, then
 * "|run" at the end, and no "|" before any "::", so none before the first. A name it leaves
 * undecided (a "|" before a later "::", another phase) goes on to the exact test below it.
 */
function nameKind(odd: string, other: string, run: string, phase: string): string {
  return `CASE
    WHEN typeof(context) <> 'text' OR instr(CAST(context AS BLOB), X'00') > 0 THEN ${odd}
    WHEN context GLOB '?*::*|run' AND NOT context GLOB '::*' AND NOT context GLOB '*|*::*'
      THEN ${run}
    WHEN instr(context, '::') <= 1 OR instr(context, '|') <= instr(context, '::') THEN ${other}
    WHEN context GLOB '*|run' THEN ${run}
    WHEN context GLOB '*|setup' OR context GLOB '*|teardown' THEN ${phase}
    ELSE ${other} END`;
}

/** Bits per count in CONTEXT_COUNTS' sum; a table of more names gets no overview. */
const COUNT_BITS = 21;

/**
 * The context table summed up in one scan: rows, id range, and in one sum (one CASE per name,
 * where sums of several would evaluate it once each) the counts of misread names, plain
 * "|setup" or "|teardown" names and plain "|run" names, COUNT_BITS bits each.
 */
const CONTEXT_COUNTS = `
  SELECT count(*) AS rows, min(id) AS minId, max(id) AS maxId,
         sum(${nameKind(`${2n ** BigInt(2 * COUNT_BITS)}`, "0", "1", `${2 ** COUNT_BITS}`)}) AS counts
  FROM context NOT INDEXED`;

/** The names that are neither plain nor misread, in id order. */
const OTHER_NAMES = `
  SELECT json_group_array(context) AS names FROM
    (SELECT context FROM context NOT INDEXED WHERE ${nameKind("0", "1", "0", "0")} ORDER BY id)`;

/** Whether the empty name (code run outside tests) is there, through the index on names. */
const HAS_EMPTY_NAME = "SELECT count(*) AS n FROM context WHERE context COLLATE BINARY = ''";

/**
 * Distinct node ids of the plain names (asked only when some are setup/teardown names, and
 * no name is misread).
 */
const PLAIN_TESTS = `
  SELECT count(DISTINCT substr(context, 1, length(context) - CASE
           WHEN context GLOB '*|run' THEN 4 WHEN context GLOB '*|setup' THEN 6 ELSE 9 END)) AS n
  FROM context WHERE ${nameKind("0", "0", "1", "1")} = 1`;

/**
 * Which of a JSON array of node ids have a context (through the index on context names), as
 * one JSON array: node:sqlite builds an object per row returned, which cost more than the
 * lookups for a frozen list of a thousand ids. Compared byte for byte whatever collation the
 * column declares (coverage.py declares none). Most tests have a "|run" name: asked first,
 * the other two only when it is missing (a WHERE clause's OR stops at its first true side).
 */
const KNOWN_TESTS = `
  SELECT json_group_array(value) AS found FROM json_each(?)
  WHERE EXISTS (SELECT 1 FROM context WHERE context COLLATE BINARY = value || '|run')
     OR EXISTS (SELECT 1 FROM context
                WHERE context COLLATE BINARY IN (value || '|setup', value || '|teardown'))`;

/** Which of a JSON array of node ids have no "|run" context (compared as KNOWN_TESTS does). */
const TESTS_WITHOUT_RUN = `
  SELECT value FROM json_each(?)
  WHERE NOT EXISTS (SELECT 1 FROM context WHERE context COLLATE BINARY = value || '|run')`;

/** Names of the context ids in a JSON array. */
const NAMES_BY_ID = "SELECT id, context FROM context WHERE id IN (SELECT value FROM json_each(?))";

const RERUN_FIX = "re-run the tests with coverage (pytest --cov --cov-context=test)";

/** A row as node:sqlite returns it: column name -> value. */
type Row = Record<string, unknown>;

interface DataFile {
  readonly path: string;
  readonly db: DatabaseSync;
  readonly hasArcs: boolean;
  /** `has_arcs` was recorded; when absent the file holds no measurements at all. */
  readonly kindKnown: boolean;
  readonly version: string | null;
  readonly recordedAt: Date;
  /** file.path -> file.id */
  readonly fileIds: Map<string, number>;
  /** Prepared once: one file's rows, by one of the queries above. */
  readonly rowsForFile: StatementSync;
  /** How `rowsForFile` returns them. */
  readonly rowFormat: "packed-arcs" | "packed-lines" | "line-rows";
  /** WANTED_ARCS, prepared on first use (arc data only). */
  wantedArcs: StatementSync | null;
  /** context.id -> index into the source's shared name table, filled on first use. */
  contextIndex: Int32Array | null;
  /** Whether reads are memory-mapped yet (see useMmapForRows). */
  mmap: boolean;
}

/**
 * The page cache: 128 KiB, a sixteenth of SQLite's stock 2 MB. A file's rows are spread over
 * the whole table (one context after another), so reading them touches most pages once; a
 * big cache only fills up, costing time and memory, and a small one is reused while it is
 * still in the processor's cache (docs/performance.md).
 */
const CACHE_KIB = 128;

/** How long a read waits for a writer's lock before it says so (see lockProblem). */
const BUSY_WAIT_MS = 5000;

/** Reading rows for at least this many files (or a quarter of the data's files) maps it. */
const MMAP_MIN_FILES = 64;

/**
 * Memory-mapped reads save time per row of line data, which pays when the rows of many files
 * are read. Each page fault maps the neighbouring pages too, so a small patch would make most
 * of the table resident for little gain: few files are read through the small page cache
 * instead. Never for arc data, where the map costs as much memory as the pages it touches and
 * saves no time. The figures: docs/performance.md.
 */
function useMmapForRows(data: DataFile, files: number): void {
  if (data.mmap || data.hasArcs) return;
  if (files < MMAP_MIN_FILES && files * 4 < data.fileIds.size) return;
  query(data, () => data.db.exec(`PRAGMA mmap_size = ${MMAP_BYTES}`));
  data.mmap = true;
}

/**
 * Opens one or more coverage.py data files as a single source. Every file is validated
 * before anything is read (SQLite, not truncated, schema 7, lines vs arcs); any problem is
 * an InputError naming the file.
 */
export function openCoverageSqlite(
  files: string[],
): CoverageSource & Required<Pick<CoverageSource, "contextOverview">> {
  const unique = [...new Set(files.map((file) => resolve(file)))];
  if (unique.length === 0) {
    throw refusal("coverage-data-none-given", undefined);
  }
  const opened: DataFile[] = [];
  try {
    for (const file of unique) opened.push(openDataFile(file));
    checkSameKind(opened);
    return new SqliteCoverageSource(opened);
  } catch (error) {
    for (const data of opened) data.db.close();
    throw error;
  }
}

class SqliteCoverageSource implements CoverageSource {
  readonly meta: CoverageMeta;
  private readonly files: DataFile[];
  /** path -> the data files that measured it, in data-file order. */
  private readonly pathIndex = new Map<string, DataFile[]>();
  /** Shared, interned context names; every data file maps its ids into this table. */
  private names: string[] = [];
  private readonly nameIndex = new Map<string, number>();
  private contextsLoaded = false;
  /**
   * Set by `contextOverview`: the name table holds only the names read so far (by id, when
   * a wanted line names them); `contextNames` reads the rest.
   */
  private lazyNames = false;
  private scratch = new Int32Array(1024);
  private readonly pairs = new LinePairs();
  private closed = false;

  constructor(files: DataFile[]) {
    this.files = files;
    for (const data of files) {
      for (const path of data.fileIds.keys()) {
        const list = this.pathIndex.get(path);
        if (list) list.push(data);
        else this.pathIndex.set(path, [data]);
      }
    }
    if (this.pathIndex.size === 0) {
      const which = files.map((data) => data.path).join(", ");
      throw refusal("coverage-data-measured-nothing", { files: which });
    }
    let recordedAt = files[0]?.recordedAt ?? null;
    let version: string | null = null;
    for (const data of files) {
      if (recordedAt === null || data.recordedAt > recordedAt) recordedAt = data.recordedAt;
      version ??= data.version;
    }
    this.meta = {
      format: "coverage.py-sqlite",
      dataFiles: files.map((data) => data.path),
      coverageVersion: version,
      hasArcs: files.some((data) => data.hasArcs),
      recordedAt,
    };
  }

  measuredPaths(): string[] {
    this.assertOpen();
    return [...this.pathIndex.keys()];
  }

  contextNames(): string[] {
    this.assertOpen();
    if (this.lazyNames) {
      this.lazyNames = false;
      this.contextsLoaded = false;
    }
    this.loadContexts();
    return this.names.slice();
  }

  /**
   * One data file whose context ids are 1..n and whose names are all text: the overview comes
   * from one scan in SQLite, and from then on names are read only for the contexts that ran
   * a wanted line. Several data files need every name to merge their ids: null.
   */
  contextOverview(): ContextOverview | null {
    this.assertOpen();
    const data = this.files[0];
    if (this.files.length !== 1 || data === undefined || this.contextsLoaded) return null;
    const {
      rows: rowCount,
      minId,
      maxId,
      counts,
    } = query(data, () => {
      // The sum packs three counts into up to 63 bits: read as a BigInt, not a double.
      const statement = data.db.prepare(CONTEXT_COUNTS);
      statement.setReadBigInts(true);
      return statement.get() as Row;
    });
    if (
      typeof rowCount !== "bigint" ||
      rowCount === 0n ||
      rowCount >= 2n ** BigInt(COUNT_BITS) ||
      minId !== 1n ||
      maxId !== rowCount ||
      typeof counts !== "bigint"
    ) {
      return null;
    }
    const rows = Number(rowCount);
    const field = (n: number) =>
      Number(BigInt.asUintN(COUNT_BITS, counts >> BigInt(n * COUNT_BITS)));
    if (field(2) !== 0) return null; // a misread name
    const notRun = field(1);
    const plain = field(0) + notRun;
    const otherCount = rows - plain;
    // Most pytest-cov data has one other name, the empty one (code run outside tests).
    const others: unknown =
      otherCount === 0
        ? []
        : otherCount === 1 && query(data, () => data.db.prepare(HAS_EMPTY_NAME).get()?.n) === 1
          ? [""]
          : JSON.parse(query(data, () => data.db.prepare(OTHER_NAMES).get()?.names) as string);
    if (
      !Array.isArray(others) ||
      others.length !== otherCount ||
      others.some((name) => typeof name !== "string")
    ) {
      return null;
    }
    const plainTests =
      notRun === 0 ? plain : (query(data, () => data.db.prepare(PLAIN_TESTS).get()?.n) as number);
    this.names = new Array<string>(rows);
    const index = new Int32Array(rows + 1);
    for (let id = 0; id <= rows; id++) index[id] = id - 1;
    data.contextIndex = index;
    this.contextsLoaded = true;
    this.lazyNames = true;
    return {
      plainNames: plain,
      plainTests,
      others: others as string[],
      knownTests: (ids) => {
        this.assertOpen();
        const found = query(data, () =>
          data.db.prepare(KNOWN_TESTS).get(JSON.stringify(ids)),
        ) as Row;
        const values: unknown = JSON.parse(found.found as string);
        return new Set((values as unknown[]).filter((id) => typeof id === "string"));
      },
      allNames: () => this.contextNames(),
      // Each "id|run" name is one test's: as many of them as tests means every test ran its
      // body, and nothing need be asked (the usual data, where no test was skipped).
      testsWithoutRun: (ids) => {
        this.assertOpen();
        if (ids.length === 0 || plain - notRun === plainTests) return [];
        const found = query(data, () =>
          data.db.prepare(TESTS_WITHOUT_RUN).all(JSON.stringify(ids)),
        ) as Row[];
        return found.map((row) => row.value).filter((id) => typeof id === "string");
      },
    };
  }

  executedLines(
    paths: readonly string[],
    wanted?: ReadonlyMap<string, ReadonlySet<number>>,
  ): Map<string, Map<number, string[]>> {
    this.assertOpen();
    this.loadContexts();
    const result = new Map<string, Map<number, string[]>>();
    for (const path of paths) {
      if (result.has(path)) continue;
      const sources = this.pathIndex.get(path);
      if (sources) {
        result.set(path, this.readPath(path, sources, wanted?.get(path) ?? null, paths.length));
      }
    }
    return result;
  }

  statements(_path: string): ReadonlySet<number> | null {
    // The data file never stores statements: coverage.py computes them from the source.
    return null;
  }

  excluded(_path: string): ReadonlySet<number> | null {
    return null;
  }

  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const data of this.files) data.db.close();
  }

  private assertOpen(): void {
    if (this.closed) throw new InternalError("coverage data was used after close()");
  }

  /** Reads every context table once, mapping each file's ids onto one interned name table. */
  private loadContexts(): void {
    if (this.contextsLoaded) return;
    // With one data file every name is already unique (context.context is UNIQUE), so the
    // interning map is only needed to merge several files.
    const merge = this.files.length > 1;
    /** With several files: one that names tests, and one that measured code but names none. */
    let withTests: DataFile | null = null;
    let withoutTests: { data: DataFile; names: string[] } | null = null;
    for (const data of this.files) {
      const { ids, names } = readContextTable(data);
      if (merge) {
        // Usually the first or second name settles it (the empty context, then tests).
        if (names.some(mightNameTest)) withTests ??= data;
        else if (data.fileIds.size > 0) withoutTests ??= { data, names };
      }
      let maxId = ids === null ? names.length : 0;
      if (ids !== null) {
        for (let i = 0; i < ids.length; i++)
          if ((ids[i] as number) > maxId) maxId = ids[i] as number;
      }
      // coverage.py numbers contexts 1, 2, 3, ...; a wildly sparse table is not its data.
      if (maxId > names.length * 8 + 1024) {
        throw refusal("coverage-data-malformed", {
          path: data.path,
          problem: `has context ids up to ${maxId} for ${names.length} contexts, which coverage.py does not write`,
        });
      }
      const index = new Int32Array(maxId + 1).fill(-1);
      if (!merge) {
        for (let i = 0; i < names.length; i++) index[ids === null ? i + 1 : (ids[i] as number)] = i;
        this.names = names;
      } else {
        for (let i = 0; i < names.length; i++) {
          const name = names[i] as string;
          let id = this.nameIndex.get(name);
          if (id === undefined) {
            id = this.names.length;
            this.names.push(name);
            this.nameIndex.set(name, id);
          }
          index[ids === null ? i + 1 : (ids[i] as number)] = id;
        }
      }
      data.contextIndex = index;
    }
    if (withTests !== null && withoutTests !== null) {
      // Alone, such a file is refused ("names no tests"); merged, its lines would quietly
      // count as run outside tests, and a live test of that shard would vanish.
      const { data, names } = withoutTests;
      const seen =
        names.length === 0
          ? "no contexts"
          : `only ${names
              .slice(0, 3)
              .map((n) => JSON.stringify(n))
              .join(", ")}`;
      throw refusal("coverage-shard-without-contexts", {
        path: data.path,
        seen,
        other: withTests.path,
      });
    }
    this.contextsLoaded = true;
  }

  private readPath(
    path: string,
    sources: DataFile[],
    wanted: ReadonlySet<number> | null,
    /** How many files this read is one of (decides whether the data is memory-mapped). */
    files: number,
  ): Map<number, string[]> {
    this.pairs.reset(wanted);
    for (let source = 0; source < sources.length; source++) {
      const data = sources[source] as DataFile;
      const fileId = data.fileIds.get(path) as number;
      useMmapForRows(data, files);
      if (data.rowFormat === "packed-arcs") {
        if (wanted === null) this.readPackedArcs(data, path, source, packedRows(data, fileId));
        else this.readWantedArcs(data, path, source, fileId, wanted);
      } else if (data.rowFormat === "packed-lines") {
        this.readPackedLines(data, path, source, packedRows(data, fileId));
      } else this.readLineRows(data, path, fileId, source);
    }
    if (this.lazyNames) this.readNames(sources[0] as DataFile, this.pairs.contextsAdded());
    return this.pairs.toMap(this.names, this.scratch);
  }

  /** Reads the names of these contexts (indexes into `names`, which are ids - 1) not read yet. */
  private readNames(data: DataFile, contexts: Int32Array): void {
    const names = this.names;
    const missing = new Set<number>();
    for (const context of contexts) if (names[context] === undefined) missing.add(context + 1);
    if (missing.size === 0) return;
    const rows = query(data, () =>
      data.db.prepare(NAMES_BY_ID).all(JSON.stringify([...missing])),
    ) as Row[];
    for (const { id, context: name } of rows) {
      if (typeof id === "number" && missing.has(id) && typeof name === "string") {
        names[id - 1] = name;
        missing.delete(id);
      }
    }
    if (missing.size > 0) {
      throw refusal("coverage-data-malformed", {
        path: data.path,
        problem: "has a malformed row in its context table",
      });
    }
  }

  private readPackedLines(
    data: DataFile,
    path: string,
    source: number,
    [rows, packed]: [number, unknown],
  ): void {
    if (rows === 0) return;
    if (!(packed instanceof Uint8Array)) throw unreadable(data, path);
    const contextIndex = data.contextIndex as Int32Array;
    const end = packed.length;
    let offset = 0;
    let seen = 0;
    while (offset < end) {
      const local = readNumber(packed, offset, end);
      if (local < 0) throw unreadable(data, path);
      const length = readNumber(packed, numberEnd, end);
      if (length < 0) throw unreadable(data, path);
      offset = numberEnd;
      if (offset + length > end) throw unreadable(data, path);
      const context = contextId(data, contextIndex, local);
      if (length > 0) this.addNumbits(data, path, context, packed, offset, length, source);
      offset += length;
      seen++;
    }
    if (seen !== rows) throw unreadable(data, path);
  }

  private readLineRows(data: DataFile, path: string, fileId: number, source: number): void {
    const contextIndex = data.contextIndex as Int32Array;
    query(data, () => {
      for (const row of data.rowsForFile.iterate(fileId) as IterableIterator<Row>) {
        const bits = row.numbits;
        if (!(bits instanceof Uint8Array)) throw unreadable(data, path);
        const context = contextId(data, contextIndex, row.context_id);
        this.addNumbits(data, path, context, bits, 0, bits.length, source);
      }
    });
  }

  private addNumbits(
    data: DataFile,
    path: string,
    context: number,
    bytes: Uint8Array,
    start: number,
    length: number,
    source: number,
  ): void {
    if (length === 0) return;
    if (length * 8 > MAX_LINE) throw beyondSource(data, path);
    this.ensureScratch(length);
    this.pairs.addNumbits(bytes, start, length, context, source, this.scratch);
  }

  /** Makes `scratch` hold the lines of `length` bytes of numbits. */
  private ensureScratch(length: number): void {
    if (this.scratch.length < length * 8) {
      this.scratch = new Int32Array(Math.max(length * 8, this.scratch.length * 2));
    }
  }

  private readWantedArcs(
    data: DataFile,
    path: string,
    source: number,
    fileId: number,
    wanted: ReadonlySet<number>,
  ): void {
    const { rows, froms, tos, touching } = query(data, () => {
      data.wantedArcs ??= data.db.prepare(WANTED_ARCS);
      return data.wantedArcs.get({ file: fileId, wanted: JSON.stringify([...wanted]) }) as Row;
    });
    if (rows === 0) return;
    for (const ends of [froms, tos]) {
      if (typeof ends !== "string") throw unreadable(data, path);
      for (const end of ends.split(",")) {
        if (!/^-?\d{1,15}$/.test(end)) throw unreadable(data, path);
        const line = Number(end);
        if (line > MAX_LINE) throw beyondSource(data, path);
        this.pairs.markExecuted(line);
      }
    }
    if (touching !== null) this.readPackedArcs(data, path, source, [null, touching]);
  }

  private readPackedArcs(
    data: DataFile,
    path: string,
    source: number,
    /** rows: how many records `packed` holds, or null when not known (not checked). */
    [rows, packed]: [number | null, unknown],
  ): void {
    if (rows === 0) return;
    if (typeof packed !== "string") throw unreadable(data, path);
    const contextIndex = data.contextIndex as Int32Array;
    const pairs = this.pairs;
    const end = packed.length;
    // Three integers per record: context id, then the arc's two line numbers.
    const fields = [0, 0, 0];
    let field = 0;
    let value = 0;
    let negative = false;
    let digits = 0;
    let seen = 0;
    let previousLocal = -1;
    for (let i = 0; i <= end; i++) {
      const c = i < end ? packed.charCodeAt(i) : 59; // a final ";"
      if (c >= 48 && c <= 57) {
        value = value * 10 + (c - 48);
        digits++;
        continue;
      }
      if (c === 45 && digits === 0 && !negative) {
        negative = true;
        continue;
      }
      if ((c !== 44 && c !== 59) || digits === 0 || digits > 15) throw unreadable(data, path);
      fields[field++] = negative ? -value : value;
      value = 0;
      digits = 0;
      negative = false;
      if (c === 44) {
        if (field === 3) throw unreadable(data, path);
        continue;
      }
      if (field !== 3) throw unreadable(data, path);
      field = 0;
      seen++;
      const local = fields[0] as number;
      const from = fields[1] as number;
      const to = fields[2] as number;
      // The de-duplication in LinePairs needs each context's arcs together; the index
      // delivers them that way, and anything else is caught here rather than trusted.
      if (local < previousLocal) pairs.markUnordered();
      previousLocal = local;
      if (from > MAX_LINE || to > MAX_LINE) throw beyondSource(data, path);
      const context = contextId(data, contextIndex, local);
      pairs.add(from, context, source);
      pairs.add(to, context, source);
    }
    if (rows !== null && seen !== rows) throw unreadable(data, path);
  }
}

/** What `readContextTable` returns: names, and their ids (null: exactly 1..names.length). */
interface ContextTable {
  ids: number[] | null;
  names: string[];
}

/** Separates names in the one-string read of the context table (checked, never trusted). */
const NAME_SEPARATOR = "\u0001";

/**
 * The context table in one query: a row per context costs about two microseconds through
 * the driver, and large suites have tens of thousands of contexts. coverage.py numbers
 * contexts 1, 2, 3, ...; for such a table every name comes in one string, split natively.
 * The split is trusted only when it yields exactly one piece per row (no name holds the
 * separator, none is NULL); any other table is read row by row.
 */
function readContextTable(data: DataFile): ContextTable {
  const { rows, minId, maxId, notText, joined } = query(
    data,
    () =>
      data.db
        .prepare(
          // The subquery delivers the rows in id order without a sort (a table scan is in
          // rowid order); an ORDER BY inside group_concat would sort them again.
          `SELECT count(*) AS rows, min(id) AS minId, max(id) AS maxId,
                  sum(typeof(context) <> 'text') AS notText, group_concat(context, char(1)) AS joined
           FROM (SELECT id, context FROM context NOT INDEXED ORDER BY id)`,
        )
        .get() as Row,
  );
  if (rows === 0) return { ids: null, names: [] };
  if (minId === 1 && maxId === rows && notText === 0 && typeof joined === "string") {
    const names = joined.split(NAME_SEPARATOR);
    if (names.length === rows) return { ids: null, names };
  }
  const ids: number[] = [];
  const names: string[] = [];
  const all = query(data, () => data.db.prepare("SELECT id, context FROM context").all()) as Row[];
  for (const { id, context } of all) {
    if (typeof id !== "number" || !Number.isInteger(id) || id < 0 || typeof context !== "string") {
      throw refusal("coverage-data-malformed", {
        path: data.path,
        problem: "has a malformed row in its context table",
      });
    }
    ids.push(id);
    names.push(context);
  }
  return { ids, names };
}

function packedRows(data: DataFile, fileId: number): [rows: number, packed: unknown] {
  const row = query(data, () => data.rowsForFile.get(fileId)) as Row;
  return [row.rows as number, row.packed];
}

function unreadable(data: DataFile, path: string): FreezegateError {
  return refusal("coverage-data-malformed", {
    path: data.path,
    problem: `has unreadable line data for ${path}`,
  });
}

function beyondSource(data: DataFile, path: string): FreezegateError {
  return refusal("coverage-data-malformed", {
    path: data.path,
    problem: `records lines beyond ${MAX_LINE} for ${path}, which no source file has`,
  });
}

/** Where the number readNumber read last ended (after its comma). */
let numberEnd = 0;

/**
 * The decimal number at `offset` of a packed record, ended by a comma (1 to 15 digits), or
 * -1 for anything else; `numberEnd` is then past the comma.
 */
function readNumber(bytes: Uint8Array, offset: number, end: number): number {
  let value = 0;
  let i = offset;
  for (; i < end && i - offset <= 15; i++) {
    const c = bytes[i] as number;
    if (c === 44) break;
    if (c < 48 || c > 57) return -1;
    value = value * 10 + (c - 48);
  }
  if (i === offset || i === end || i - offset > 15 || bytes[i] !== 44) return -1;
  numberEnd = i + 1;
  return value;
}

/**
 * (line, context) pairs of one path, gathered in typed arrays and then turned into
 * line -> names with arrays allocated at their final size: far fewer allocations than
 * growing one array per line, which matters at millions of pairs. Reused across paths.
 */
class LinePairs {
  private lines = new Int32Array(1 << 14);
  private contexts = new Int32Array(1 << 14);
  private size = 0;
  private counts = new Int32Array(1 << 10);
  /** Last context added per line: drops the repeats arcs produce (rows come grouped by context). */
  private lastContext = new Int32Array(1 << 10).fill(-1);
  private lastSource = new Int32Array(1 << 10).fill(-1);
  /** 1 for lines that got names from more than one data file: those need a real de-dup. */
  private mixed = new Uint8Array(1 << 10);
  /** Rows did not come grouped by context, so every line needs a real de-dup. */
  private unordered = false;
  private maxLine = 0;
  /** Lines whose contexts are wanted (1), or null for all; others are only marked executed. */
  private mask: Uint8Array | null = null;
  /** Executed lines whose contexts were not wanted. */
  private bare = new Uint8Array(1 << 10);
  /** The wanted lines in ascending order (null: all lines wanted). */
  private wantedLines: Int32Array | null = null;
  /** With wanted lines: every row's numbits OR-ed together, decoded once into `bare`. */
  private union = new Uint8Array(1 << 10);
  private unionLength = 0;

  markUnordered(): void {
    this.unordered = true;
  }

  reset(wanted: ReadonlySet<number> | null = null): void {
    const end = this.maxLine + 1;
    this.bare.fill(0, 0, Math.min(end, this.bare.length));
    this.mask = null;
    this.wantedLines = null;
    this.union.fill(0, 0, this.unionLength);
    this.unionLength = 0;
    if (wanted !== null) {
      let max = 0;
      for (const line of wanted) if (line > max) max = line;
      const mask = new Uint8Array(max + 1);
      for (const line of wanted) if (line > 0) mask[line] = 1;
      this.mask = mask;
      this.wantedLines = Int32Array.from(wanted)
        .filter((line) => line > 0)
        .sort();
    }
    this.counts.fill(0, 0, end);
    this.lastContext.fill(-1, 0, end);
    this.lastSource.fill(-1, 0, end);
    this.mixed.fill(0, 0, end);
    this.size = 0;
    this.maxLine = 0;
    this.unordered = false;
  }

  /**
   * One row's numbits. With wanted lines, the row's bytes are OR-ed into the union (which
   * says which lines ran) and only the wanted lines' bits are read one by one: a row of a
   * 40-function module holds hundreds of lines, a patch wants a few. Without, every line.
   * `scratch` must hold `length * 8` lines.
   */
  addNumbits(
    bytes: Uint8Array,
    start: number,
    length: number,
    context: number,
    source: number,
    scratch: Int32Array,
  ): void {
    const wantedLines = this.wantedLines;
    if (wantedLines === null) {
      const count = decodeNumbitsInto(bytes, scratch, start, start + length);
      for (let i = 0; i < count; i++) this.add(scratch[i] as number, context, source);
      return;
    }
    this.orIntoUnion(bytes, start, length);
    for (let i = 0; i < wantedLines.length; i++) {
      const line = wantedLines[i] as number;
      const index = line >> 3;
      if (index >= length) break;
      if (((bytes[start + index] as number) & (1 << (line & 7))) !== 0) {
        this.add(line, context, source);
      }
    }
  }

  /** ORs `length` bytes of numbits from `start` of `bytes` into the union (see addNumbits). */
  private orIntoUnion(bytes: Uint8Array, start: number, length: number): void {
    if (this.union.length < length) {
      const union = new Uint8Array(Math.max(length, this.union.length * 2));
      union.set(this.union);
      this.union = union;
    }
    const union = this.union;
    for (let i = 0; i < length; i++) union[i] = (union[i] as number) | (bytes[start + i] as number);
    if (length > this.unionLength) this.unionLength = length;
  }

  /** The union's lines (see addNumbits) as executed lines; `scratch` holds `unionLength * 8`. */
  private flushUnion(scratch: Int32Array): void {
    if (this.unionLength === 0) return;
    const count = decodeNumbitsInto(this.union, scratch, 0, this.unionLength);
    const mask = this.mask as Uint8Array;
    for (let i = 0; i < count; i++) {
      const line = scratch[i] as number;
      if (line <= 0 || (line < mask.length && mask[line] === 1)) continue;
      if (line >= this.counts.length) this.growLines(line);
      this.bare[line] = 1;
      if (line > this.maxLine) this.maxLine = line;
    }
  }

  /** A line that ran, whose tests come from elsewhere if it is wanted (see readWantedArcs). */
  markExecuted(line: number): void {
    if (line <= 0) return;
    const mask = this.mask;
    if (mask !== null && line < mask.length && mask[line] === 1) return;
    if (line >= this.counts.length) this.growLines(line);
    this.bare[line] = 1;
    if (line > this.maxLine) this.maxLine = line;
  }

  add(line: number, context: number, source: number): void {
    if (line <= 0) return;
    if (line >= this.counts.length) this.growLines(line);
    const mask = this.mask;
    if (mask !== null && (line >= mask.length || mask[line] === 0)) {
      // Executed, but nobody asked who ran it: remember the line, not the pair.
      this.bare[line] = 1;
      if (line > this.maxLine) this.maxLine = line;
      return;
    }
    if (this.lastContext[line] === context) return;
    this.lastContext[line] = context;
    const previous = this.lastSource[line] as number;
    if (previous !== source) {
      if (previous !== -1) this.mixed[line] = 1;
      this.lastSource[line] = source;
    }
    if (this.size === this.lines.length) this.growPairs();
    this.lines[this.size] = line;
    this.contexts[this.size] = context;
    this.size++;
    (this.counts[line] as number)++;
    if (line > this.maxLine) this.maxLine = line;
  }

  /** The context of every pair added since `reset`. */
  contextsAdded(): Int32Array {
    return this.contexts.subarray(0, this.size);
  }

  toMap(names: readonly string[], scratch: Int32Array): Map<number, string[]> {
    this.flushUnion(scratch);
    const { counts, lines, contexts, size, maxLine } = this;
    const perLine: string[][] = new Array(maxLine + 1);
    const fill = new Int32Array(maxLine + 1);
    for (let line = 1; line <= maxLine; line++) {
      const count = counts[line] as number;
      if (count > 0) perLine[line] = new Array<string>(count);
    }
    for (let i = 0; i < size; i++) {
      const line = lines[i] as number;
      (perLine[line] as string[])[(fill[line] as number)++] = names[
        contexts[i] as number
      ] as string;
    }
    const result = new Map<number, string[]>();
    for (let line = 1; line <= maxLine; line++) {
      const list = perLine[line];
      if (list === undefined) {
        if (this.bare[line] === 1) result.set(line, NO_NAMES);
        continue;
      }
      const dedup = list.length > 1 && (this.unordered || this.mixed[line] === 1);
      result.set(line, dedup ? [...new Set(list)] : list);
    }
    return result;
  }

  private growLines(line: number): void {
    const size = Math.max(line + 1, this.counts.length * 2);
    const bare = new Uint8Array(size);
    bare.set(this.bare);
    this.bare = bare;
    const counts = new Int32Array(size);
    counts.set(this.counts);
    this.counts = counts;
    const lastContext = new Int32Array(size).fill(-1);
    lastContext.set(this.lastContext);
    this.lastContext = lastContext;
    const lastSource = new Int32Array(size).fill(-1);
    lastSource.set(this.lastSource);
    this.lastSource = lastSource;
    const mixed = new Uint8Array(size);
    mixed.set(this.mixed);
    this.mixed = mixed;
  }

  private growPairs(): void {
    const lines = new Int32Array(this.lines.length * 2);
    lines.set(this.lines);
    this.lines = lines;
    const contexts = new Int32Array(this.contexts.length * 2);
    contexts.set(this.contexts);
    this.contexts = contexts;
  }
}

function contextId(data: DataFile, index: Int32Array, raw: unknown): number {
  const id = typeof raw === "number" ? (index[raw] ?? -1) : -1;
  if (id < 0) {
    throw refusal("coverage-data-malformed", {
      path: data.path,
      problem: `refers to context id ${String(raw)}, which does not exist`,
    });
  }
  return id;
}

function openDataFile(path: string): DataFile {
  checkHeader(path);
  let db: DatabaseSync;
  try {
    db = openReadOnly(path);
    db.exec(`PRAGMA cache_size = -${CACHE_KIB}; PRAGMA busy_timeout = ${BUSY_WAIT_MS}`);
  } catch (error) {
    if (sqliteResultCode(error) === null) throw error;
    throw (
      lockProblem(path, error) ??
      refusal(
        "coverage-data-unreadable",
        { path, why: messageOf(error), opening: true },
        { cause: error },
      )
    );
  }
  try {
    return readDataFile(path, db);
  } catch (error) {
    db.close();
    throw error;
  }
}

function readDataFile(path: string, db: DatabaseSync): DataFile {
  const partial = { path, db };
  const tables = new Set(
    query(partial, () =>
      db.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").all(),
    ).map((row) => row.name),
  );
  if (!tables.has("coverage_schema")) {
    throw refusal("coverage-data-malformed", {
      path,
      problem:
        "is a SQLite database but not a coverage.py data file (it has no coverage_schema table)",
    });
  }
  const versions = query(partial, () =>
    db.prepare("SELECT version FROM coverage_schema").all(),
  ).map((row) => row.version);
  if (versions.length !== 1) {
    throw refusal("coverage-data-malformed", {
      path,
      problem: `is not a usable coverage.py data file: coverage_schema has ${versions.length} rows, expected 1`,
    });
  }
  const version = versions[0];
  if (version !== COVERAGE_SCHEMA_VERSION) {
    throw refusal("coverage-schema-unknown", {
      path,
      version: String(version),
      readable: COVERAGE_SCHEMA_VERSION,
    });
  }
  const missing = REQUIRED_TABLES.filter((table) => !tables.has(table));
  if (missing.length > 0) {
    throw refusal("coverage-data-malformed", {
      path,
      problem: `is not a complete coverage.py data file: table ${missing.join(", ")} is missing`,
    });
  }

  const meta = new Map<string, unknown>();
  const metaRows = query(partial, () => db.prepare("SELECT key, value FROM meta").all()) as Row[];
  for (const row of metaRows) meta.set(String(row.key), row.value);

  const hasArcsValue = meta.get("has_arcs");
  let hasArcs: boolean;
  let kindKnown = true;
  if (hasArcsValue === "1" || hasArcsValue === 1) hasArcs = true;
  else if (hasArcsValue === "0" || hasArcsValue === 0) hasArcs = false;
  else if (hasArcsValue === undefined) {
    // coverage.py records has_arcs with the first measurement, so a file without it holds
    // none; look at the arc table anyway rather than trust that blindly.
    kindKnown = false;
    hasArcs =
      query(
        partial,
        () => db.prepare("SELECT EXISTS (SELECT 1 FROM arc) AS found").get()?.found,
      ) === 1;
  } else {
    throw refusal("coverage-data-malformed", {
      path,
      problem: `has an unreadable has_arcs value ${JSON.stringify(hasArcsValue)} in its meta table`,
    });
  }
  // coverage.py never writes both kinds into one file. Rows in the table the flag does not
  // name would be ignored, and every line they hold would read as never run.
  if (kindKnown) {
    const other = hasArcs ? "line_bits" : "arc";
    const stray = query(
      partial,
      () => db.prepare(`SELECT EXISTS (SELECT 1 FROM ${other}) AS found`).get()?.found,
    );
    if (stray === 1) {
      throw refusal("coverage-data-malformed", {
        path,
        problem: `says has_arcs = ${hasArcs ? 1 : 0} but holds rows in its ${other} table: it was not written by coverage.py as it is`,
      });
    }
  }

  const fileIds = new Map<string, number>();
  const fileRows = query(partial, () => db.prepare("SELECT id, path FROM file").all()) as Row[];
  for (const row of fileRows) {
    if (typeof row.id !== "number" || typeof row.path !== "string") {
      throw refusal("coverage-data-malformed", {
        path,
        problem: "has a malformed row in its file table",
      });
    }
    fileIds.set(row.path, row.id);
  }

  // Packed line blobs need SQLite to pass blob bytes through text unchanged, which holds
  // for UTF-8 databases (coverage.py's, through Python's sqlite3) and nothing else.
  const encoding = query(partial, () => db.prepare("PRAGMA encoding").get()?.encoding);
  const rowFormat = hasArcs ? "packed-arcs" : encoding === "UTF-8" ? "packed-lines" : "line-rows";
  const rowsForFile = query(partial, () =>
    db.prepare(
      rowFormat === "packed-arcs"
        ? PACKED_ARCS
        : rowFormat === "packed-lines"
          ? PACKED_LINE_BITS
          : LINE_BITS_ROWS,
    ),
  );

  const versionValue = meta.get("version");
  return {
    path,
    db,
    hasArcs,
    kindKnown,
    version: typeof versionValue === "string" ? versionValue : null,
    recordedAt: recordedAt(path, meta.get("when")),
    fileIds,
    rowsForFile,
    rowFormat,
    wantedArcs: null,
    mmap: false,
    contextIndex: null,
  };
}

/**
 * coverage.py writes `when` as `datetime.now().strftime("%Y-%m-%d %H:%M:%S")`: local wall
 * time without a zone, at the moment the data file was created (coverage.py 7.x writes it
 * only with `--debug=process`). We read it as local time of this machine, which is right
 * when the data is read where it was recorded (the usual local run or single CI job). When
 * it is absent or unreadable we use the file's modification time.
 */
function recordedAt(path: string, when: unknown): Date {
  if (typeof when === "string") {
    const parsed = parseLocalTimestamp(when);
    if (parsed) return parsed;
  }
  return statSync(path).mtime;
}

function checkSameKind(files: DataFile[]): void {
  const arcs = files.find((data) => data.kindKnown && data.hasArcs);
  const lines = files.find((data) => data.kindKnown && !data.hasArcs);
  if (arcs && lines) {
    throw refusal("coverage-branch-and-line-data", { arcs: arcs.path, lines: lines.path });
  }
}

/**
 * Cheap checks on the first 100 bytes before SQLite sees the file, so that the common
 * failures get a precise message instead of "file is not a database".
 */
function checkHeader(path: string): void {
  let size: number;
  try {
    const stat = statSync(path);
    if (!stat.isFile()) {
      throw refusal("coverage-data-not-a-file", { path });
    }
    size = stat.size;
  } catch (error) {
    if (error instanceof FreezegateError) throw error;
    throw refusal(
      "coverage-data-unreadable",
      { path, why: messageOf(error), opening: false },
      { cause: error },
    );
  }
  if (size === 0) {
    throw refusal("coverage-data-empty", { path });
  }
  // Read before SQLite opens the file, so that an unreadable file is named as such
  // (permission denied), not taken for data to record again.
  const head = readFileHead(path, "coverage data file", SQLITE_HEADER_SIZE, { fix: RERUN_FIX });
  if (startsWith(head, COVERAGE4_SIGNATURE)) {
    throw refusal("coverage-data-too-old", { path });
  }
  if (!startsWith(head, SQLITE_MAGIC)) {
    throw refusal("coverage-data-not-sqlite", { path });
  }
  if (head.length < SQLITE_HEADER_SIZE) {
    throw refusal("coverage-data-truncated", { path, detail: ` (${size} bytes)` });
  }
  const rawPageSize = head.readUInt16BE(16);
  const pageSize = rawPageSize === 1 ? 65536 : rawPageSize;
  if (pageSize < 512 || (pageSize & (pageSize - 1)) !== 0) {
    throw refusal("coverage-data-corrupt", { path });
  }
  const changeCounter = head.readUInt32BE(24);
  const pageCount = head.readUInt32BE(28);
  const validFor = head.readUInt32BE(92);
  // The in-header page count is only trustworthy when "version-valid-for" matches the
  // change counter (SQLite file format, section 1.3.7).
  const expected = validFor === changeCounter && pageCount > 0 ? pageCount * pageSize : 0;
  if (size < expected) {
    throw refusal("coverage-data-truncated", {
      path,
      detail: `: it has ${size} bytes, its header says ${expected}`,
    });
  }
  if (size % pageSize !== 0) {
    throw refusal("coverage-data-truncated", {
      path,
      detail: `: ${size} bytes is not a whole number of ${pageSize}-byte pages`,
    });
  }
}

function startsWith(buffer: Buffer, prefix: Buffer): boolean {
  return buffer.length >= prefix.length && buffer.subarray(0, prefix.length).equals(prefix);
}

/**
 * Runs a SQLite call, turning SQLite's errors into an InputError that names the file. So is
 * an integer beyond JavaScript's safe range (node:sqlite refuses to round it), which no
 * coverage.py data holds.
 */
function query<T>(data: { path: string }, run: () => T): T {
  try {
    return run();
  } catch (error) {
    const outOfRange = (error as { code?: unknown } | null)?.code === "ERR_OUT_OF_RANGE";
    if (sqliteResultCode(error) !== null || outOfRange) {
      const problem = lockProblem(data.path, error);
      if (problem !== null) throw problem;
      throw refusal(
        "coverage-data-unreadable",
        { path: data.path, why: messageOf(error), opening: false },
        { cause: error },
      );
    }
    throw error;
  }
}

/**
 * The two ways a writer gets in the way of a read-only reader, said plainly (SQLite's own
 * words, "database is locked" and "attempt to write a readonly database", name neither the
 * writer nor the journal): a writer still holding its lock (after a wait of BUSY_WAIT_MS),
 * or a hot rollback journal, left by a writer that crashed mid-write, which only a writable
 * connection may roll back.
 */
function lockProblem(path: string, error: unknown): FreezegateError | null {
  const code = sqliteResultCode(error);
  if (code === null) return null;
  // The low byte is the primary result code; the extended codes add detail above it.
  if ((code & 0xff) === SQLITE_BUSY || (code & 0xff) === SQLITE_LOCKED) {
    return refusal("coverage-data-locked", { path }, { cause: error });
  }
  if (code === SQLITE_READONLY_ROLLBACK) {
    return refusal("coverage-data-journal", { path }, { cause: error });
  }
  return null;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
