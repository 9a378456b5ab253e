// The coverage.py adapters against coverage.py itself. Committed data (test/fixtures/coverage,
// made by pytest-cov and `coverage json`, see its README) is checked everywhere; with the
// Python toolchain, real pytest-cov / coverage.py runs in several configurations are read by
// the adapters and compared exactly with coverage.py's own reading of the same files
// (test/fixtures/py/coverage_oracle.py). Bad inputs must each give a precise InputError.

import { createHash } from "node:crypto";
import {
  copyFileSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  statSync,
  truncateSync,
  writeFileSync,
} from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { DatabaseSync, type SQLInputValue } from "node:sqlite";
import { fileURLToPath } from "node:url";
import { beforeAll, describe, expect, it } from "vitest";
import { openCoverageJson } from "../../src/adapters/coverage-json.js";
import { discoverCoverage, openCoverage } from "../../src/adapters/coverage-py-files.js";
import { openCoverageSqlite } from "../../src/adapters/coverage-sqlite.js";
import { InputError } from "../../src/core/errors.js";
import type { CoverageSource } from "../../src/core/model.js";
import { numbitsToLines } from "../../src/core/numbits.js";
import {
  copyFixtureProject,
  describePython,
  makeTempDir,
  pythonEnv,
  runPytestCov,
  runPython,
} from "../helpers/python.js";

const HERE = dirname(fileURLToPath(import.meta.url));
const DATA = resolve(HERE, "../fixtures/coverage");
const ORACLE = resolve(HERE, "../fixtures/py/coverage_oracle.py");
const INVOICE = "src/billing/invoice.py";
const TAX = "src/billing/tax.py";
const INIT = "src/billing/__init__.py";

// ---------------------------------------------------------------------------------------------
// Helpers

/** line -> sorted context names, per path: the shape coverage_oracle.py prints. */
interface Dump {
  contexts: string[];
  files: Record<string, Record<string, string[]>>;
}

function dumpSource(source: CoverageSource, rename: (path: string) => string = (p) => p): Dump {
  const paths = source.measuredPaths();
  const lines = source.executedLines(paths);
  const files: Dump["files"] = {};
  for (const path of paths) {
    const byLine: Record<string, string[]> = {};
    for (const [line, names] of lines.get(path) ?? []) byLine[String(line)] = [...names].sort();
    files[rename(path)] = byLine;
  }
  return { contexts: source.contextNames().sort(), files };
}

function normalise(raw: { contexts: string[]; files: Dump["files"] }): Dump {
  const files: Dump["files"] = {};
  for (const [path, byLine] of Object.entries(raw.files)) {
    files[path] = Object.fromEntries(
      Object.entries(byLine).map(([line, names]) => [line, [...names].sort()]),
    );
  }
  return { contexts: [...raw.contexts].sort(), files };
}

function expectedFromFile(name: string): Dump {
  return normalise(JSON.parse(readFileSync(join(DATA, name), "utf8")));
}

/** coverage.py's reading of data files (several are combined with CoverageData.update). */
function oracle(cwd: string, dataFiles: string[]): Dump {
  const result = runPython([ORACLE, ...dataFiles], { cwd });
  if (result.status !== 0) throw new Error(`oracle failed: ${result.stderr}`);
  return normalise(JSON.parse(result.stdout));
}

function sha256(path: string): string {
  return createHash("sha256").update(readFileSync(path)).digest("hex");
}

function withSource<T>(source: CoverageSource, use: (source: CoverageSource) => T): T {
  try {
    return use(source);
  } finally {
    source.close();
  }
}

/** Asserts an InputError with a message matching `message` and a fix. */
function expectInputError(run: () => unknown, message: RegExp): InputError {
  let caught: unknown;
  try {
    const source = run();
    if (source && typeof (source as CoverageSource).close === "function") {
      (source as CoverageSource).close();
    }
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(InputError);
  const error = caught as InputError;
  expect(error.message).toMatch(message);
  expect(error.fix).toBeTruthy();
  expect(error.message).not.toContain("\n");
  return error;
}

function copyData(name: string, dir: string, as = name): string {
  const target = join(dir, as);
  copyFileSync(join(DATA, name), target);
  return target;
}

function writableCopy(name: string, edit: (db: DatabaseSync) => void): string {
  const dir = makeTempDir("bad-data");
  const target = copyData(name, dir);
  const db = new DatabaseSync(target);
  try {
    edit(db);
  } finally {
    db.close();
  }
  return target;
}

function coverageCommand(cwd: string, args: string[]): void {
  const result = runPython(["-m", "coverage", ...args], { cwd });
  if (result.status !== 0) {
    throw new Error(`coverage ${args.join(" ")} failed:\n${result.stdout}\n${result.stderr}`);
  }
}

function localWhen(date: Date): string {
  const pad = (n: number) => String(n).padStart(2, "0");
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}:${pad(date.getMinutes())}:${pad(date.getSeconds())}`;
}

// ---------------------------------------------------------------------------------------------
// Committed data made by the real tools (runs without Python)

describe("committed coverage.py 6.5 data files", () => {
  it("reads line data exactly as coverage.py does", () => {
    const expected = expectedFromFile("lines.expected.json");
    withSource(openCoverageSqlite([join(DATA, "lines.coverage")]), (source) => {
      expect(dumpSource(source)).toEqual(expected);
      expect(source.meta).toMatchObject({
        format: "coverage.py-sqlite",
        dataFiles: [join(DATA, "lines.coverage")],
        coverageVersion: "6.5.0",
        hasArcs: false,
      });
      expect(source.statements(INVOICE)).toBeNull();
    });
  });

  it("reads branch data from the arc table (line_bits is empty there)", () => {
    const path = join(DATA, "branch.coverage");
    const raw = new DatabaseSync(path, { readOnly: true });
    expect(raw.prepare("SELECT count(*) AS n FROM line_bits").get()?.n).toBe(0);
    expect(raw.prepare("SELECT count(*) AS n FROM arc").get()?.n).toBeGreaterThan(0);
    raw.close();
    withSource(openCoverageSqlite([path]), (source) => {
      expect(source.meta.hasArcs).toBe(true);
      expect(dumpSource(source)).toEqual(expectedFromFile("branch.expected.json"));
    });
  });

  it("drops line 0, which coverage.py 6.5 records for an empty __init__.py", () => {
    const raw = new DatabaseSync(join(DATA, "lines.coverage"), { readOnly: true });
    const blobs = raw
      .prepare(
        "SELECT numbits FROM line_bits JOIN file ON file.id = line_bits.file_id WHERE path = ?",
      )
      .all(INIT)
      .map((row) => row.numbits as Uint8Array);
    raw.close();
    expect(blobs.flatMap((blob) => numbitsToLines(blob))).toContain(0);
    withSource(openCoverageSqlite([join(DATA, "lines.coverage")]), (source) => {
      const lines = source.executedLines([INIT]);
      // Measured, so present; but nothing on a real line.
      expect(lines.get(INIT)).toEqual(new Map());
    });
  });

  it("takes recordedAt from meta.when, read as local time", () => {
    const raw = new DatabaseSync(join(DATA, "lines.coverage"), { readOnly: true });
    const when = raw.prepare("SELECT value FROM meta WHERE key = 'when'").get()?.value as string;
    raw.close();
    withSource(openCoverageSqlite([join(DATA, "lines.coverage")]), (source) => {
      expect(source.meta.recordedAt).not.toBeNull();
      expect(localWhen(source.meta.recordedAt as Date)).toBe(when);
    });
  });

  it("falls back to the file's mtime when meta.when is absent (coverage.py 7.x)", () => {
    const path = writableCopy("lines.coverage", (db) => {
      db.prepare("DELETE FROM meta WHERE key = 'when'").run();
    });
    withSource(openCoverageSqlite([path]), (source) => {
      expect(source.meta.recordedAt?.getTime()).toBe(statSync(path).mtime.getTime());
    });
  });

  it("leaves the data file byte-for-byte unchanged", () => {
    const path = join(DATA, "lines.coverage");
    const before = sha256(path);
    const mtime = statSync(path).mtimeMs;
    withSource(openCoverageSqlite([path]), (source) => {
      source.executedLines(source.measuredPaths());
      source.contextNames();
    });
    expect(sha256(path)).toBe(before);
    expect(statSync(path).mtimeMs).toBe(mtime);
    expect(readdirSync(DATA).filter((name) => /-(journal|wal|shm)$/.test(name))).toEqual([]);
  });

  it("answers only for the paths asked, once each, absent when not measured", () => {
    withSource(openCoverageSqlite([join(DATA, "lines.coverage")]), (source) => {
      const lines = source.executedLines([TAX, TAX, "src/billing/nope.py"]);
      expect([...lines.keys()]).toEqual([TAX]);
      const tax = lines.get(TAX) as Map<number, string[]>;
      expect([...tax.keys()]).toEqual([...tax.keys()].sort((a, b) => a - b));
      expect(tax.get(14)).toEqual(["tests/test_tax.py::test_unknown_region|run"]);
    });
  });

  it("shares one string per context name across lines", () => {
    withSource(openCoverageSqlite([join(DATA, "lines.coverage")]), (source) => {
      const invoice = source.executedLines([INVOICE]).get(INVOICE) as Map<number, string[]>;
      const run = "tests/test_invoice.py::TestInvoice::test_total_fr|run";
      const a = invoice.get(35)?.find((name) => name === run);
      const b = invoice.get(36)?.find((name) => name === run);
      expect(a).toBe(run);
      // Same value either way; identity is what saves memory on large data.
      expect(Object.is(a, b)).toBe(true);
    });
  });

  it("reads a UTF-16 database row by row with the same result", () => {
    // coverage.py's files are UTF-8, where one file's rows are fetched packed into one
    // blob; any other encoding takes the plain row-by-row path, which must agree.
    const source = new DatabaseSync(join(DATA, "lines.coverage"), { readOnly: true });
    const path = join(makeTempDir("utf16"), "utf16.coverage");
    const target = new DatabaseSync(path);
    target.exec("PRAGMA encoding = 'UTF-16le'");
    target.exec("PRAGMA foreign_keys = OFF");
    const tables = source
      .prepare("SELECT name, sql FROM sqlite_master WHERE type = 'table'")
      .all() as { name: string; sql: string }[];
    for (const { name, sql } of tables) {
      target.exec(sql);
      // Each row as SQL literals (quote()), not bound values: Node 22.13's node:sqlite binds an
      // empty Uint8Array as NULL, and coverage.py writes empty numbits.
      const columns = source
        .prepare(`SELECT name FROM pragma_table_info('${name}')`)
        .all()
        .map((row) => `quote(${row.name})`);
      const inserts = source
        .prepare(
          `SELECT 'INSERT INTO ${name} VALUES (' || ${columns.join(" || ', ' || ")} || ')' AS sql FROM ${name}`,
        )
        .all();
      for (const insert of inserts) target.exec(insert.sql as string);
    }
    expect(target.prepare("PRAGMA encoding").get()?.encoding).toBe("UTF-16le");
    source.close();
    target.close();
    withSource(openCoverageSqlite([path]), (utf16) => {
      expect(dumpSource(utf16)).toEqual(expectedFromFile("lines.expected.json"));
    });
  });

  it("reads branch data right even when the arc rows do not come grouped by context", () => {
    // Rebuild `arc` without its unique index and with the rows shuffled, so that SQLite
    // returns them in an order coverage.py's own files never give.
    const path = writableCopy("branch.coverage", (db) => {
      db.exec("PRAGMA foreign_keys = OFF");
      const rows = db
        .prepare("SELECT file_id, context_id, fromno, tono FROM arc")
        .all()
        .map((row) => Object.values(row) as SQLInputValue[]);
      let state = 7;
      const shuffled = rows.map((row) => {
        state = (Math.imul(state, 1103515245) + 12345) >>> 0;
        return { row, key: state };
      });
      shuffled.sort((a, b) => a.key - b.key);
      db.exec(
        "DROP TABLE arc; CREATE TABLE arc (file_id integer, context_id integer, fromno integer, tono integer)",
      );
      const insert = db.prepare("INSERT INTO arc VALUES (?, ?, ?, ?)");
      for (const { row } of shuffled) insert.run(...row);
    });
    withSource(openCoverageSqlite([path]), (source) => {
      expect(dumpSource(source)).toEqual(expectedFromFile("branch.expected.json"));
    });
  });

  it("combining a file with itself changes nothing (union by context name)", () => {
    const dir = makeTempDir("self-combine");
    const first = copyData("lines.coverage", dir, ".coverage");
    const second = copyData("lines.coverage", dir, ".coverage.copy");
    withSource(openCoverageSqlite([first, second]), (source) => {
      expect(source.meta.dataFiles).toEqual([first, second]);
      expect(dumpSource(source)).toEqual(expectedFromFile("lines.expected.json"));
    });
  });

  it("refuses use after close()", () => {
    const source = openCoverageSqlite([join(DATA, "lines.coverage")]);
    source.close();
    source.close();
    expect(() => source.measuredPaths()).toThrow(/after close/);
  });
});

describe("committed coverage.py JSON reports", () => {
  const expected = expectedFromFile("lines.expected.json");

  it.each([
    ["report-6.5.json", "6.5.0"],
    ["report-7x-format2.json", "7.4.4"],
    ["report-7x-format3.json", "7.6.1"],
  ])("%s: contexts per line equal coverage.py's reading of the data file", (name, version) => {
    withSource(openCoverageJson(join(DATA, name)), (source) => {
      const dump = dumpSource(source);
      expect(dump.files).toEqual(expected.files);
      // A report names only contexts that ran a line of a reported file.
      const named = new Set(Object.values(dump.files).flatMap((f) => Object.values(f).flat()));
      expect(new Set(dump.contexts)).toEqual(named);
      expect(source.meta).toMatchObject({
        format: "coverage.py-json",
        dataFiles: [join(DATA, name)],
        coverageVersion: version,
        hasArcs: false,
      });
    });
  });

  it("statements: executed + missing lines, without line <= 0; excluded lines apart", () => {
    const of = (name: string) =>
      withSource(openCoverageJson(join(DATA, name)), (source) => ({
        invoice: [...(source.statements(INVOICE) ?? [])].sort((a, b) => a - b),
        excluded: [...(source.excluded(INVOICE) ?? [])].sort((a, b) => a - b),
        init: source.statements(INIT),
        unknown: source.statements("src/billing/nope.py"),
        unknownExcluded: source.excluded("src/billing/nope.py"),
      }));
    const old = of("report-6.5.json");
    const seven = of("report-7x-format3.json");
    expect(of("report-7x-format2.json")).toEqual(seven);
    for (const report of [old, seven]) {
      expect(report.invoice).toEqual(expect.arrayContaining([20, 50]));
      expect(report.excluded).toEqual([53, 54, 55]);
      expect(report.unknownExcluded).toBeNull();
      // Docstring continuation lines and the continuation lines of a multi-line call.
      for (const line of [0, 2, 3, 4, 21, 22]) expect(report.invoice).not.toContain(line);
      expect(report.init).toEqual(new Set());
      expect(report.unknown).toBeNull();
    }
    // 6.5 lists the module docstring's line, and the excluded line that ran, among
    // executed_lines; 7.x intersects them with the statements.
    expect(old.invoice.filter((line) => !seven.invoice.includes(line))).toEqual([1, 53]);
    expect(seven.invoice.filter((line) => !old.invoice.includes(line))).toEqual([]);
  });

  it("reads meta.timestamp as local time", () => {
    withSource(openCoverageJson(join(DATA, "report-7x-format3.json")), (source) => {
      expect(source.meta.recordedAt?.getTime()).toBe(
        new Date(2025, 0, 15, 10, 20, 30, 123).getTime(),
      );
    });
  });

  it("refuses a report written without --show-contexts", () => {
    expectInputError(
      () => openCoverageJson(join(DATA, "report-6.5-no-contexts.json")),
      /without --show-contexts/,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Bad data

describe("unusable coverage data is an InputError naming the file", () => {
  it("a text file", () => {
    const path = join(makeTempDir("bad"), ".coverage");
    writeFileSync(path, "this is not coverage data\n");
    const error = expectInputError(() => openCoverageSqlite([path]), /is not a SQLite database/);
    expect(error.message).toContain(path);
    expect(error.fix).toMatch(/re-run the tests with coverage/);
  });

  it("an empty file", () => {
    const path = join(makeTempDir("bad"), ".coverage");
    writeFileSync(path, "");
    expectInputError(() => openCoverageSqlite([path]), /\.coverage is empty/);
  });

  it("a file that does not exist", () => {
    const path = join(makeTempDir("bad"), ".coverage");
    expectInputError(() => openCoverageSqlite([path]), /cannot read coverage data file/);
  });

  it("a coverage.py 4.x data file", () => {
    const path = join(makeTempDir("bad"), ".coverage");
    writeFileSync(
      path,
      '!coverage.py: This is a private format, don\'t read it directly!{"lines":{"/x.py":[1]}}',
    );
    expectInputError(() => openCoverageSqlite([path]), /coverage\.py 4\.x .*too old/);
  });

  it("a SQLite file truncated mid-page and at a page boundary", () => {
    const dir = makeTempDir("bad");
    const size = statSync(join(DATA, "lines.coverage")).size;
    const midPage = copyData("lines.coverage", dir, "mid");
    truncateSync(midPage, 5000);
    expectInputError(() => openCoverageSqlite([midPage]), /is truncated: it has 5000 bytes/);
    const atPage = copyData("lines.coverage", dir, "page");
    truncateSync(atPage, size / 2);
    expectInputError(
      () => openCoverageSqlite([atPage]),
      new RegExp(`is truncated: it has ${size / 2} bytes, its header says ${size}`),
    );
    const header = copyData("lines.coverage", dir, "header");
    truncateSync(header, 40);
    expectInputError(() => openCoverageSqlite([header]), /is truncated \(40 bytes\)/);
  });

  it("a SQLite database that is not coverage data", () => {
    const path = join(makeTempDir("bad"), ".coverage");
    const db = new DatabaseSync(path);
    db.exec("CREATE TABLE notes (text TEXT); INSERT INTO notes VALUES ('hi');");
    db.close();
    expectInputError(
      () => openCoverageSqlite([path]),
      /is a SQLite database but not a coverage\.py data file \(it has no coverage_schema table\)/,
    );
  });

  it.each([6, 8])("schema version %i", (version) => {
    const path = writableCopy("lines.coverage", (db) => {
      db.prepare("UPDATE coverage_schema SET version = ?").run(version);
    });
    expectInputError(
      () => openCoverageSqlite([path]),
      new RegExp(`has coverage\\.py data schema version ${version}, freezegate reads 7$`),
    );
  });

  it("a data file missing one of its tables", () => {
    const path = writableCopy("lines.coverage", (db) => {
      db.exec("PRAGMA foreign_keys = OFF");
      db.exec("DROP TABLE arc");
    });
    expectInputError(() => openCoverageSqlite([path]), /table arc is missing/);
  });

  it("a data file that measured nothing", () => {
    const path = writableCopy("lines.coverage", (db) => {
      db.exec("PRAGMA foreign_keys = OFF");
      db.exec("DELETE FROM line_bits; DELETE FROM tracer; DELETE FROM file;");
    });
    expectInputError(() => openCoverageSqlite([path]), /measured no files at all/);
  });

  it("rows that coverage.py never writes: NULL numbits, unknown context ids, absurd lines", () => {
    // Line data is read by one loop when every line's tests are wanted and by another when
    // only some lines' are (the audit's), also with other files in the same read: all must
    // refuse alike.
    const refusedBoth = (source: CoverageSource, pattern: RegExp) => {
      expectInputError(() => source.executedLines([TAX]), pattern);
      expectInputError(
        () => source.executedLines([TAX], new Map([[TAX, new Set([1, 3])]])),
        pattern,
      );
      const two = new Map([
        [TAX, new Set([1, 3])],
        [INVOICE, new Set([1])],
      ]);
      expectInputError(() => source.executedLines([TAX, INVOICE], two), pattern);
    };
    const nullBits = writableCopy("lines.coverage", (db) => {
      db.exec(
        "UPDATE line_bits SET numbits = NULL WHERE file_id = (SELECT id FROM file WHERE path = 'src/billing/tax.py') AND context_id = 1",
      );
    });
    withSource(openCoverageSqlite([nullBits]), (source) => {
      refusedBoth(source, /has unreadable line data for src\/billing\/tax\.py/);
    });
    // Context ids that are not plain integers would mislead the packed read's decimal
    // framing ("3,17" reads as two numbers): refused, whatever they are.
    for (const value of [
      "'1,2'",
      "2.5",
      "-1",
      "'7'||x'2c'",
      "99999999999999999999",
      "4294967297",
    ]) {
      const odd = writableCopy("lines.coverage", (db) => {
        db.exec("PRAGMA foreign_keys = OFF");
        db.exec(
          `UPDATE line_bits SET context_id = ${value} WHERE file_id = (SELECT id FROM file WHERE path = 'src/billing/tax.py') AND context_id = (SELECT min(context_id) FROM line_bits)`,
        );
      });
      withSource(openCoverageSqlite([odd]), (source) => {
        refusedBoth(
          source,
          /has unreadable line data for src\/billing\/tax\.py|refers to context id/,
        );
      });
    }
    // A text id spelling further records ("3,0,3": context 3, no bits, then
    // "3,"...), with another row's NULL numbits keeping the row count: refused, never read
    // as lines of context 3.
    const spelled = writableCopy("lines.coverage", (db) => {
      db.exec("PRAGMA foreign_keys = OFF");
      const tax = "(SELECT id FROM file WHERE path = 'src/billing/tax.py')";
      const [first, second] = db
        .prepare(
          `SELECT context_id FROM line_bits WHERE file_id = ${tax} ORDER BY context_id LIMIT 2`,
        )
        .all()
        .map((row) => row.context_id as number);
      db.exec(
        `UPDATE line_bits SET context_id = '${second},0,${second}' WHERE file_id = ${tax} AND context_id = ${first}`,
      );
      db.exec(
        `UPDATE line_bits SET numbits = NULL WHERE file_id = ${tax} AND context_id = ${second}`,
      );
    });
    withSource(openCoverageSqlite([spelled]), (source) => {
      refusedBoth(source, /has unreadable line data for src\/billing\/tax\.py/);
    });
    // Numbits stored as a number or text (coverage.py writes a blob) would read as
    // the bytes of their digits: refused.
    for (const value of ["2", "'ab'", "2.5"]) {
      const notBlob = writableCopy("lines.coverage", (db) => {
        db.exec(
          `UPDATE line_bits SET numbits = ${value} WHERE file_id = (SELECT id FROM file WHERE path = 'src/billing/tax.py') AND context_id = (SELECT min(context_id) FROM line_bits)`,
        );
      });
      withSource(openCoverageSqlite([notBlob]), (source) => {
        refusedBoth(source, /has unreadable line data for src\/billing\/tax\.py/);
      });
    }
    // Numbits full of commas (the framing's separator) are data like any other.
    const commas = writableCopy("lines.coverage", (db) => {
      db.exec(
        "UPDATE line_bits SET numbits = x'2c2c2c' WHERE file_id = (SELECT id FROM file WHERE path = 'src/billing/tax.py')",
      );
    });
    withSource(openCoverageSqlite([commas]), (source) => {
      // 0x2c = lines 2, 3 and 5 of each byte: bytes 0-2 give 2, 3, 5, 10, 11, 13, 18, 19, 21.
      expect(
        [...(source.executedLines([TAX]).get(TAX)?.keys() ?? [])].sort((a, b) => a - b),
      ).toEqual([2, 3, 5, 10, 11, 13, 18, 19, 21]);
    });
    // A bitmap longer than any source file could need.
    const longBits = writableCopy("lines.coverage", (db) => {
      db.exec(
        "UPDATE line_bits SET numbits = zeroblob(1250001) WHERE file_id = (SELECT id FROM file WHERE path = 'src/billing/tax.py') AND context_id = (SELECT min(context_id) FROM line_bits)",
      );
    });
    withSource(openCoverageSqlite([longBits]), (source) => {
      refusedBoth(
        source,
        /records lines beyond 10000000 for src\/billing\/tax\.py, which no source file has/,
      );
    });
    const orphan = writableCopy("lines.coverage", (db) => {
      db.exec("PRAGMA foreign_keys = OFF");
      db.exec("DELETE FROM context WHERE context = 'tests/test_tax.py::test_rate_for|run'");
    });
    withSource(openCoverageSqlite([orphan]), (source) => {
      refusedBoth(source, /refers to context id \d+, which does not exist/);
    });
    const textLine = writableCopy("branch.coverage", (db) => {
      db.exec("UPDATE arc SET tono = '12a' WHERE rowid = (SELECT min(rowid) FROM arc)");
    });
    // With and without wanted lines (two different queries of the arcs).
    const wantedFirst = (paths: string[]) => new Map(paths.map((p) => [p, new Set([1])]));
    withSource(openCoverageSqlite([textLine]), (source) => {
      expectInputError(
        () => source.executedLines(source.measuredPaths()),
        /has unreadable line data for src\/billing\//,
      );
      expectInputError(
        () => source.executedLines(source.measuredPaths(), wantedFirst(source.measuredPaths())),
        /has unreadable line data for src\/billing\//,
      );
    });
    const farLine = writableCopy("branch.coverage", (db) => {
      db.exec("UPDATE arc SET tono = 2000000000 WHERE rowid = (SELECT min(rowid) FROM arc)");
    });
    withSource(openCoverageSqlite([farLine]), (source) => {
      expectInputError(
        () => source.executedLines(source.measuredPaths()),
        /records lines beyond 10000000 for src\/billing\/.*, which no source file has/,
      );
      expectInputError(
        () => source.executedLines(source.measuredPaths(), wantedFirst(source.measuredPaths())),
        /records lines beyond 10000000 for src\/billing\/.*, which no source file has/,
      );
    });
    const orphanArcs = writableCopy("branch.coverage", (db) => {
      db.exec("PRAGMA foreign_keys = OFF");
      db.exec("DELETE FROM context WHERE context = 'tests/test_tax.py::test_rate_for|run'");
    });
    let lines: number[] = [];
    withSource(openCoverageSqlite([join(DATA, "branch.coverage")]), (source) => {
      lines = [...(source.executedLines([TAX]).get(TAX)?.keys() ?? [])];
    });
    expect(lines.length).toBeGreaterThan(0);
    withSource(openCoverageSqlite([orphanArcs]), (source) => {
      expectInputError(
        () => source.executedLines([TAX], new Map([[TAX, new Set(lines)]])),
        /refers to context id \d+, which does not exist/,
      );
    });
  });

  it("line data combined with branch data", () => {
    const dir = makeTempDir("mixed");
    const lines = copyData("lines.coverage", dir, ".coverage.a");
    const branch = copyData("branch.coverage", dir, ".coverage.b");
    const error = expectInputError(
      () => openCoverageSqlite([lines, branch]),
      /cannot combine .*\.coverage\.b \(branch\/arc data\) with .*\.coverage\.a \(line data\)/,
    );
    expect(error.fix).toMatch(/--cov-branch/);
  });

  it("JSON that is not JSON, not a coverage report, of an unknown format, or without contexts", () => {
    const dir = makeTempDir("bad-json");
    const write = (name: string, text: string) => {
      const path = join(dir, name);
      writeFileSync(path, text);
      return path;
    };
    expectInputError(() => openCoverageJson(write("broken.json", '{"meta": ')), /is not JSON/);
    expectInputError(() => openCoverageJson(write("empty.json", "")), /is empty/);
    expectInputError(
      () => openCoverageJson(write("other.json", '{"name": "freezegate", "version": "1.0.0"}')),
      /is JSON but not a coverage\.py JSON report/,
    );
    const report = JSON.parse(readFileSync(join(DATA, "report-6.5.json"), "utf8"));
    expectInputError(
      () =>
        openCoverageJson(
          write("f4.json", JSON.stringify({ ...report, meta: { ...report.meta, format: 4 } })),
        ),
      /JSON report format 4, freezegate reads formats 1 to 3/,
    );
    const lacking = structuredClone(report);
    delete lacking.files[TAX].contexts;
    expectInputError(
      () => openCoverageJson(write("lacking.json", JSON.stringify(lacking))),
      /has no per-test contexts for src\/billing\/tax\.py/,
    );
    const badLine = structuredClone(report);
    badLine.files[TAX].contexts.twelve = [""];
    expectInputError(
      () => openCoverageJson(write("bad-line.json", JSON.stringify(badLine))).executedLines([TAX]),
      /non-numeric line "twelve"/,
    );
    const badName = structuredClone(report);
    badName.files[TAX].contexts["12"] = [42];
    expectInputError(
      () => openCoverageJson(write("bad-name.json", JSON.stringify(badName))).contextNames(),
      /has a malformed contexts entry for src\/billing\/tax\.py/,
    );
    expectInputError(
      () => openCoverageJson(write("nofiles.json", JSON.stringify({ ...report, files: {} }))),
      /measured no files at all/,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Discovery

describe("discoverCoverage", () => {
  it("finds .coverage with its parallel files, ignoring reports named like them", () => {
    const dir = makeTempDir("discover");
    const main = copyData("lines.coverage", dir, ".coverage");
    const p1 = copyData("lines.coverage", dir, ".coverage.ci-host.4242.123456");
    const p2 = copyData("lines.coverage", dir, ".coverage.ci-host.pid77.XabcdEFx");
    writeFileSync(join(dir, ".coverage.json"), "{}");
    writeFileSync(join(dir, ".coverage.xml"), "<coverage/>");
    writeFileSync(join(dir, ".coverage-journal"), "");
    mkdirSync(join(dir, ".coverage.d"));
    copyData("report-6.5.json", dir, "coverage.json");
    expect(discoverCoverage(dir)).toEqual({ format: "coverage.py-sqlite", files: [main, p1, p2] });
    withSource(openCoverage(dir), (source) => {
      expect(source.meta.dataFiles).toEqual([main, p1, p2]);
      expect(dumpSource(source)).toEqual(expectedFromFile("lines.expected.json"));
    });
  });

  it("finds parallel files alone when nothing is combined yet", () => {
    const dir = makeTempDir("discover");
    const p1 = copyData("lines.coverage", dir, ".coverage.host.1.000001");
    const p2 = copyData("lines.coverage", dir, ".coverage.host.2.000002");
    expect(discoverCoverage(dir)).toEqual({ format: "coverage.py-sqlite", files: [p1, p2] });
  });

  it("refuses a corrupt or empty parallel file instead of leaving it out", () => {
    const dir = makeTempDir("discover");
    copyData("lines.coverage", dir, ".coverage");
    writeFileSync(join(dir, ".coverage.host.1.000001"), "garbage");
    expectInputError(
      () => discoverCoverage(dir),
      /\.coverage\.host\.1\.000001 is named like a parallel coverage data file of .*\.coverage but it is not a SQLite database/,
    );
    writeFileSync(join(dir, ".coverage.host.1.000001"), "");
    expectInputError(() => discoverCoverage(dir), /but it is empty/);
    // A truncated SQLite parallel file gets through discovery and fails on open.
    const truncated = copyData("lines.coverage", dir, ".coverage.host.1.000001");
    truncateSync(truncated, 8192);
    expectInputError(() => openCoverage(dir), /\.coverage\.host\.1\.000001 is truncated/);
  });

  it("falls back to coverage.json", () => {
    const dir = makeTempDir("discover");
    const report = copyData("report-6.5.json", dir, "coverage.json");
    expect(discoverCoverage(dir)).toEqual({ format: "coverage.py-json", files: [report] });
    withSource(openCoverage(dir), (source) => expect(source.meta.format).toBe("coverage.py-json"));
  });

  it("says where it looked when there is nothing", () => {
    const dir = makeTempDir("discover");
    writeFileSync(join(dir, ".coverage.json"), "{}");
    const error = expectInputError(
      () => discoverCoverage(dir),
      new RegExp(`^no coverage data found in ${dir.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} `),
    );
    expect(error.fix).toMatch(/pytest --cov --cov-context=test/);
  });

  it("tells an explicit file's format by content, not by name", () => {
    const dir = makeTempDir("explicit");
    const sqlite = copyData("lines.coverage", dir, "results.json");
    const json = copyData("report-6.5.json", dir, "data.coverage");
    writeFileSync(join(dir, "notes.txt"), "hello");
    expect(discoverCoverage("/", sqlite)).toEqual({
      format: "coverage.py-sqlite",
      files: [sqlite],
    });
    expect(discoverCoverage("/", json)).toEqual({ format: "coverage.py-json", files: [json] });
    // Relative paths are relative to the root.
    expect(discoverCoverage(dir, "data.coverage")).toEqual({
      format: "coverage.py-json",
      files: [json],
    });
    expectInputError(
      () => discoverCoverage(dir, "notes.txt"),
      /notes\.txt is neither a coverage\.py data file \(SQLite\) nor a coverage\.py JSON report/,
    );
    expectInputError(() => discoverCoverage(dir, "missing"), /missing does not exist/);
  });

  it("adds an explicit data file's own parallel files, and searches an explicit directory", () => {
    const dir = makeTempDir("explicit");
    const sub = join(dir, "artifacts");
    mkdirSync(sub);
    const main = copyData("lines.coverage", sub, "cov.db");
    const shard = copyData("lines.coverage", sub, "cov.db.shard-2");
    copyData("lines.coverage", sub, ".coverage");
    expect(discoverCoverage(dir, "artifacts/cov.db").files).toEqual([main, shard]);
    expect(discoverCoverage(dir, "artifacts").files).toEqual([join(sub, ".coverage")]);
  });
});

// ---------------------------------------------------------------------------------------------
// Real runs of pytest-cov and coverage.py, compared with coverage.py's own reading

// pytest-xdist is in the toolchain but not required by every Python-backed test; its one
// test is skipped without it locally and fails without it under CI=true.
const hasXdist =
  pythonEnv !== null && runPython(["-c", "import xdist"], { cwd: HERE }).status === 0;
const runXdist = hasXdist || process.env.CI === "true";

describePython("real pytest-cov / coverage.py runs of test/fixtures/py/billing", () => {
  // One project copy per configuration, each run once.
  const run: Record<"abs" | "rel" | "branch" | "parallel" | "xdist", string> = {
    abs: "",
    rel: "",
    branch: "",
    parallel: "",
    xdist: "",
  };

  beforeAll(() => {
    run.abs = copyFixtureProject("billing");
    runPytestCov(run.abs);
    coverageCommand(run.abs, ["json", "--show-contexts", "-o", "coverage.json"]);
    coverageCommand(run.abs, ["json", "-o", "plain.json"]);

    run.rel = copyFixtureProject("billing");
    runPytestCov(run.rel, ["--cov-config=coveragerc-relative"]);

    run.branch = copyFixtureProject("billing");
    runPytestCov(run.branch, ["--cov-branch"]);
    coverageCommand(run.branch, ["json", "--show-contexts", "-o", "coverage.json"]);

    // Two processes, each writing its own .coverage.<host>.<pid>.<random>, with
    // test_tax.py in both so that the same contexts appear in two files.
    run.parallel = copyFixtureProject("billing");
    for (const tests of [
      ["tests/test_invoice.py", "tests/test_tax.py"],
      ["tests/test_tax.py", "tests/test_format.py"],
    ]) {
      coverageCommand(run.parallel, [
        "run",
        "--rcfile=coveragerc-dynamic",
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        ...tests,
      ]);
    }

    if (runXdist) {
      run.xdist = copyFixtureProject("billing");
      runPytestCov(run.xdist, ["-n", "2"]);
    }
  }, 180_000);

  it("lines, absolute paths: equal to coverage.py's reading, file unchanged", () => {
    const data = join(run.abs, ".coverage");
    const before = sha256(data);
    const expected = oracle(run.abs, [data]);
    withSource(openCoverageSqlite([data]), (source) => {
      expect(dumpSource(source)).toEqual(expected);
      expect(source.measuredPaths().sort()).toEqual(
        [INIT, INVOICE, TAX].map((path) => join(run.abs, path)),
      );
      expect(source.meta.coverageVersion).toBe(pythonEnv?.coverageVersion);
      const age = Date.now() - (source.meta.recordedAt?.getTime() ?? 0);
      expect(age).toBeGreaterThanOrEqual(-2000);
      expect(age).toBeLessThan(15 * 60_000);

      const invoice = source.executedLines([join(run.abs, INVOICE)]).get(join(run.abs, INVOICE));
      // format_amount (lines 48-49) is covered by one test only.
      expect(invoice?.get(48)).toEqual(["tests/test_format.py::test_format_amount_eur|run"]);
      // The fixture's setup and teardown call into billing.
      expect(invoice?.get(20)).toContain("tests/test_invoice.py::TestInvoice::test_subtotal|setup");
      expect(invoice?.get(26)).toContain(
        "tests/test_invoice.py::TestInvoice::test_total_fr|teardown",
      );
      // Parameter ids keep their "|" and "::"; pytest escapes the non-ASCII one.
      expect(invoice?.get(41)).toEqual(
        expect.arrayContaining([
          "tests/test_invoice.py::test_parse_amount[plain|comma::x]|run",
          "tests/test_invoice.py::test_parse_amount[euro-\\u20ac]|run",
        ]),
      );
    });
    expect(sha256(data)).toBe(before);
  });

  it("lines, relative_files = True: paths as stored, equal to coverage.py's reading", () => {
    const data = join(run.rel, ".coverage");
    withSource(openCoverageSqlite([data]), (source) => {
      expect(source.measuredPaths().sort()).toEqual([INIT, INVOICE, TAX]);
      expect(dumpSource(source)).toEqual(oracle(run.rel, [data]));
    });
  });

  it("branch data: read from arcs, same lines as the line-data run", () => {
    const data = join(run.branch, ".coverage");
    withSource(openCoverageSqlite([data]), (source) => {
      expect(source.meta.hasArcs).toBe(true);
      const dump = dumpSource(source, (path) => relative(run.branch, path));
      expect(dumpSource(source)).toEqual(oracle(run.branch, [data]));
      withSource(openCoverageSqlite([join(run.abs, ".coverage")]), (lines) => {
        expect(dump).toEqual(dumpSource(lines, (path) => relative(run.abs, path)));
      });
    });
  });

  it("parallel files: found without a combined file, combined in memory like coverage combine", () => {
    const found = discoverCoverage(run.parallel);
    expect(found.format).toBe("coverage.py-sqlite");
    expect(found.files).toHaveLength(2);
    for (const file of found.files) expect(file).toMatch(/\/\.coverage\.[^/]+\.\d+\.\d{6}$/);
    const hashes = found.files.map(sha256);
    const expected = oracle(run.parallel, found.files);
    withSource(openCoverage(run.parallel), (source) => {
      const dump = dumpSource(source);
      expect(dump).toEqual(expected);
      // dynamic_context = test_function: dotted names, "" for code outside tests.
      expect(dump.contexts).toEqual(
        expect.arrayContaining([
          "",
          "tests.test_tax.test_rate_for",
          "tests.test_format.test_format_amount_eur",
        ]),
      );
      // rate_for's body ran under test_rate_for in both processes: named once.
      const body = dump.files[join(run.parallel, TAX)]?.["13"];
      expect(body?.filter((name) => name === "tests.test_tax.test_rate_for")).toHaveLength(1);
      for (const byLine of Object.values(dump.files)) {
        for (const names of Object.values(byLine)) expect(new Set(names).size).toBe(names.length);
      }
    });
    expect(found.files.map(sha256)).toEqual(hashes);
  });

  it("a combined .coverage next to its (kept) parallel files reads the same", () => {
    const dir = copyFixtureProject("billing");
    for (const file of readdirSync(run.parallel).filter((f) => f.startsWith(".coverage."))) {
      copyFileSync(join(run.parallel, file), join(dir, file));
    }
    coverageCommand(dir, ["combine", "--rcfile=coveragerc-dynamic", "--keep"]);
    const found = discoverCoverage(dir);
    expect(found.files).toHaveLength(3);
    expect(found.files[0]).toBe(join(dir, ".coverage"));
    // The copied parallel files carry the paths of the run that wrote them.
    const rename = (path: string) => relative(run.parallel, path);
    const alone = withSource(openCoverageSqlite([join(dir, ".coverage")]), (s) =>
      dumpSource(s, rename),
    );
    const all = withSource(openCoverageSqlite(found.files), (s) => dumpSource(s, rename));
    expect(all).toEqual(alone);
    const fromParallelRun = withSource(openCoverage(run.parallel), (s) => dumpSource(s, rename));
    expect(alone).toEqual(fromParallelRun);
  });

  it.runIf(runXdist)("pytest-xdist (-n 2): equal to coverage.py's reading", () => {
    const data = join(run.xdist, ".coverage");
    withSource(openCoverageSqlite([data]), (source) => {
      expect(dumpSource(source)).toEqual(oracle(run.xdist, [data]));
      expect(source.contextNames()).toContain("tests/test_tax.py::test_rate_for|run");
    });
  });

  it("JSON report with --show-contexts: same lines and contexts as the data file", () => {
    const expected = oracle(run.abs, [join(run.abs, ".coverage")]);
    const byRelative = Object.fromEntries(
      Object.entries(expected.files).map(([path, lines]) => [relative(run.abs, path), lines]),
    );
    withSource(openCoverageJson(join(run.abs, "coverage.json")), (source) => {
      expect(dumpSource(source).files).toEqual(byRelative);
      expect(source.meta.hasArcs).toBe(false);
      expect(source.meta.coverageVersion).toBe(pythonEnv?.coverageVersion);
      const age = Date.now() - (source.meta.recordedAt?.getTime() ?? 0);
      expect(age).toBeGreaterThanOrEqual(-2000);
      expect(age).toBeLessThan(15 * 60_000);
    });
    const branchExpected = oracle(run.branch, [join(run.branch, ".coverage")]);
    withSource(openCoverageJson(join(run.branch, "coverage.json")), (source) => {
      expect(source.meta.hasArcs).toBe(true);
      expect(dumpSource(source).files).toEqual(
        Object.fromEntries(
          Object.entries(branchExpected.files).map(([p, l]) => [relative(run.branch, p), l]),
        ),
      );
    });
  });

  it("JSON report without --show-contexts: refused", () => {
    expectInputError(
      () => openCoverageJson(join(run.abs, "plain.json")),
      /without --show-contexts/,
    );
  });

  it("discovery in a run directory prefers .coverage over coverage.json", () => {
    expect(discoverCoverage(run.abs)).toEqual({
      format: "coverage.py-sqlite",
      files: [join(run.abs, ".coverage")],
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Large data: lazy and fast

describe("a large data file (about 80 MB of branch data, 20,000 contexts, 500 files)", () => {
  // The shape of a 20,000-test suite's `pytest --cov --cov-branch --cov-context=test` data:
  // every test runs 5 of the 500 files, 20 arcs in each (about 2 million arc rows).
  const FILES = 500;
  const CONTEXTS = 20_000;
  const FILES_PER_CONTEXT = 5;
  const ARCS = 20;
  const fileOf = (context: number, j: number) => ((context * 7 + j * 97) % FILES) + 1;
  const baseOf = (context: number, j: number) => ((context * 13 + j) % 40) * 10;
  let path = "";

  beforeAll(() => {
    // Start from a real coverage.py file so the schema is coverage.py's own; rows go in
    // context by context, as coverage.py writes them, which scatters each file's rows.
    path = writableCopy("branch.coverage", (db) => {
      db.exec("PRAGMA foreign_keys = OFF");
      db.exec("PRAGMA journal_mode = OFF");
      db.exec("PRAGMA synchronous = OFF");
      db.exec(`
        DELETE FROM line_bits; DELETE FROM arc; DELETE FROM tracer;
        DELETE FROM context; DELETE FROM file;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${CONTEXTS})
        INSERT INTO context (id, context)
        SELECT i, 'tests/test_m' || (i % 300) || '.py::TestThing::test_case_' || i || '|run' FROM n;
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ${FILES})
        INSERT INTO file (id, path) SELECT i, '/repo/src/pkg/module_' || i || '.py' FROM n;
        WITH RECURSIVE
          c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < ${CONTEXTS}),
          f(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM f WHERE j < ${FILES_PER_CONTEXT - 1}),
          a(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM a WHERE k < ${ARCS - 1})
        INSERT INTO arc (file_id, context_id, fromno, tono)
        SELECT (c.i * 7 + f.j * 97) % ${FILES} + 1, c.i,
               CASE WHEN a.k = 0 THEN -(((c.i * 13 + f.j) % 40) * 10 + 1)
                    ELSE ((c.i * 13 + f.j) % 40) * 10 + a.k END,
               ((c.i * 13 + f.j) % 40) * 10 + a.k + 1
        FROM c, f, a ORDER BY c.i, f.j, a.k;
      `);
    });
  }, 120_000);

  it("opens without reading line data and reads 30 files quickly and correctly", () => {
    const size = statSync(path).size;
    expect(size).toBeGreaterThan(70e6);
    const wanted = Array.from({ length: 30 }, (_, i) => `/repo/src/pkg/module_${i * 16 + 1}.py`);
    const timings: { open: number; read: number }[] = [];
    let result = new Map<string, Map<number, string[]>>();
    for (let round = 0; round < 3; round++) {
      const start = performance.now();
      const source = openCoverageSqlite([path]);
      expect(source.measuredPaths()).toHaveLength(FILES);
      const opened = performance.now();
      // Includes reading the 20,000 context names, which the first call does.
      result = source.executedLines(wanted);
      timings.push({ open: opened - start, read: performance.now() - opened });
      source.close();
    }
    const best = (key: "open" | "read") => Math.min(...timings.map((t) => t[key]));
    let pairs = 0;
    for (const lines of result.values()) for (const names of lines.values()) pairs += names.length;
    console.info(
      `[coverage-sqlite] ${(size / 1e6).toFixed(1)} MB: open + measuredPaths ${best("open").toFixed(1)} ms, executedLines(30 files, ${pairs} line/context pairs) ${best("read").toFixed(1)} ms (best of 3)`,
    );
    // Opening must not depend on the size of the line data.
    expect(best("open")).toBeLessThan(100);
    // Generous, for loaded CI machines; catches reading far more than the files asked for.
    expect(best("read")).toBeLessThan(1000);

    // Every test that ran a file, with exactly the lines its arcs touch.
    const file = 17;
    const lines = result.get(`/repo/src/pkg/module_${file}.py`) as Map<number, string[]>;
    const expected = new Map<number, string[]>();
    for (let context = 1; context <= CONTEXTS; context++) {
      for (let j = 0; j < FILES_PER_CONTEXT; j++) {
        if (fileOf(context, j) !== file) continue;
        const name = `tests/test_m${context % 300}.py::TestThing::test_case_${context}|run`;
        for (let line = baseOf(context, j) + 1; line <= baseOf(context, j) + ARCS; line++) {
          expected.set(line, [...(expected.get(line) ?? []), name]);
        }
      }
    }
    expect(new Map([...lines].map(([line, names]) => [line, [...names].sort()]))).toEqual(
      new Map([...expected].sort(([a], [b]) => a - b).map(([l, n]) => [l, n.sort()])),
    );
  });
});
