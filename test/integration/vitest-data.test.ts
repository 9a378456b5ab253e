// The audit's reading of freezegate's Vitest data, on data real Vitest recorded from the fixture
// projects under test/fixtures/vitest/: found where the recorder leaves it, shards combined,
// a changed file's statements and tests, and the refusals of data that cannot judge a patch.

import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readVitestDataFile } from "../../src/adapters/vitest-data.js";
import { FreezegateError, InputError } from "../../src/core/errors.js";
import { parseFrozenList } from "../../src/core/frozen.js";
import { splitLines } from "../../src/core/stale.js";
import {
  changedStatementStarts,
  executedByLine,
  spanStatements,
  spansPastEnd,
} from "../../src/runners/vitest/changed-source.js";
import { openVitestData, type VitestData } from "../../src/runners/vitest/data.js";
import { frozenVitestTests } from "../../src/runners/vitest/data-tests.js";
import {
  frozenWithoutBody,
  refuseFailedFiles,
  refuseOtherRoot,
  refuseRunThatCannotJudge,
} from "../../src/runners/vitest/refusals.js";
import { vitestRunner } from "../../src/runners/vitest/runner.js";
import { REPO_ROOT } from "../helpers/cli.js";
import { recordVitest } from "../helpers/vitest-recording.js";

const BASIC = join(REPO_ROOT, "test/fixtures/vitest/basic");
const IMPORT_ERROR = join(REPO_ROOT, "test/fixtures/vitest/import-error");
/** Its tests fail or skip without running their body; the run fails. */
const NO_BODY = join(REPO_ROOT, "test/fixtures/vitest/no-body");
const work = mkdtempSync(join(tmpdir(), "fg-vitest-data-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/**
 * Records `fixture` into `<work>/<dir>/.freezegate/<name>`; returns that directory. The run
 * passes, but for the fixtures whose test file fails to import or whose tests fail.
 */
function recordInto(fixture: string, dir: string, name: string, ...args: string[]): string {
  const res = recordVitest(fixture, join(work, dir, ".freezegate", name), ...args);
  expect(res.status, res.output).toBe(fixture === BASIC ? 0 : 1);
  return join(work, dir);
}

function lineOf(source: string, text: string): number {
  const at = readFileSync(join(BASIC, source), "utf8")
    .split("\n")
    .findIndex((l) => l.includes(text));
  if (at < 0) throw new Error(`${text} not in ${source}`);
  return at + 1;
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return (error as Error).message;
  }
  throw new Error("expected an InputError");
}

/** Line -> sorted names, for comparing two readings. */
function sortedNames(lines: Map<number, string[]>): Record<number, string[]> {
  return Object.fromEntries([...lines].map(([line, names]) => [line, [...names].sort()]));
}

const SHAPES = "src/shapes.ts";
let whole: string;
let data: VitestData;

beforeAll(() => {
  whole = recordInto(BASIC, "whole", "vitest-coverage.jsonl");
  data = openVitestData(whole);
});

describe("a whole run's data", () => {
  it("is found at the Vitest root's .freezegate/, with the run's tests and measured sources", () => {
    expect(data.files).toEqual([join(whole, ".freezegate/vitest-coverage.jsonl")]);
    expect(data.measuredPaths()).toEqual(["src/ledger.ts", SHAPES]);
    expect(() => refuseRunThatCannotJudge(data.header)).not.toThrow();
    const dup = "tests/hooks.spec.ts::dup > same name";
    expect(data.tests.indicesOf(dup)).toHaveLength(2);
    // A freeze of a duplicated id freezes both of its tests.
    const frozen = frozenVitestTests(parseFrozenList({ frozen: [dup] }, "l"), data.tests);
    expect(frozen.indices.size).toBe(2);
  });

  it("gives a changed line its statement from the spans, and the tests that ran it by phase", () => {
    const section = data.section(SHAPES);
    if (section === null) throw new Error("no section for src/shapes.ts");
    const statements = spanStatements(section.statements);
    const multiLine = lineOf(SHAPES, "return Math.round(");
    expect(statements.statementOf(multiLine + 2)).toBe(multiLine);
    for (const typeOnly of [
      "export interface Shape {",
      "export type Area",
      "import type { Ledger }",
    ]) {
      expect(statements.statementOf(lineOf(SHAPES, typeOnly)), typeOnly).toBeNull();
    }
    const describeLine = lineOf(SHAPES, "const value = area(shape);");
    const importLine = lineOf(SHAPES, 'registry.push("loaded at import");');
    const wanted = changedStatementStarts([describeLine, importLine], statements);
    const lines = executedByLine(section, data.tests, wanted);
    // the nested describe's beforeAll: setup of the tests in it; a test body elsewhere
    expect(lines.get(describeLine)).toContain("tests/hooks.spec.ts::areas > nested > size 1|setup");
    expect(lines.get(describeLine)).toContain("tests/concurrent.spec.ts::together > second|run");
    // import-time code belongs to no test
    expect(lines.get(importLine)).toEqual([""]);
    // Lines nobody asked about are executed, their tests not read.
    expect(lines.get(lineOf(SHAPES, "return shape.size * shape.size;"))).toEqual([]);
    expect(
      data.executedLines([SHAPES, "src/none.ts"], new Map([[SHAPES, wanted]])).get(SHAPES),
    ).toEqual(lines);
  });

  it("shows data of a longer file as stale, and a source no test ran as unmeasured", () => {
    const section = data.section(SHAPES);
    if (section === null) throw new Error("no section for src/shapes.ts");
    const lineCount = splitLines(readFileSync(join(BASIC, SHAPES), "utf8")).length;
    expect(spansPastEnd(section, lineCount)).toBeNull();
    expect(spansPastEnd(section, lineCount - 10)).toMatch(/^a statement is recorded at lines/);
    expect(data.section("src/unmeasured.ts")).toBeNull();
    expect(data.statements("src/unmeasured.ts")).toBeNull();
  });

  it("is read against the Vitest root it was recorded at", () => {
    const exists = (path: string) => {
      try {
        readFileSync(join(REPO_ROOT, path));
        return true;
      } catch {
        return false;
      }
    };
    const prefix = "test/fixtures/vitest/basic/";
    expect(() =>
      refuseOtherRoot(data.header, { repoRoot: REPO_ROOT, prefix, exists }),
    ).not.toThrow();
    expect(
      refusal(() => refuseOtherRoot(data.header, { repoRoot: REPO_ROOT, prefix: "", exists })),
    ).toBe(
      "the Vitest data was recorded with the Vitest root test/fixtures/vitest/basic, but the audit reads it against the repository root",
    );
  });
});

describe("shards", () => {
  it("combine into the whole run's lines", () => {
    recordInto(BASIC, "sharded", "vitest-coverage.1-of-2.jsonl", "--shard", "1/2");
    const sharded = openVitestData(
      recordInto(BASIC, "sharded", "vitest-coverage.2-of-2.jsonl", "--shard", "2/2"),
    );
    expect(sharded.files).toHaveLength(2);
    expect([...sharded.tests.ids].sort()).toEqual([...data.tests.ids].sort());
    for (const source of data.measuredPaths()) {
      const [mine, theirs] = [sharded, data].map((d) =>
        sortedNames(d.executedLines([source]).get(source) ?? new Map()),
      );
      expect(mine, source).toEqual(theirs);
    }
  });

  it("are refused with one missing", () => {
    const dir = join(work, "one-shard", ".freezegate");
    mkdirSync(dir, { recursive: true });
    copyFileSync(
      join(work, "sharded/.freezegate/vitest-coverage.2-of-2.jsonl"),
      join(dir, "vitest-coverage.2-of-2.jsonl"),
    );
    expect(refusal(() => openVitestData(join(work, "one-shard")))).toContain(
      "the Vitest data has 1 of 2 shards: shard 1 is missing",
    );
  });
});

describe("data that cannot judge a patch", () => {
  const original = () => readFileSync(join(whole, ".freezegate/vitest-coverage.jsonl"), "utf8");
  const variant = (name: string, text: string) => {
    const path = join(work, name);
    writeFileSync(path, text);
    return path;
  };

  it("a filtered run", () => {
    const filtered = openVitestData(
      recordInto(BASIC, "filtered", "vitest-coverage.jsonl", "-t", "square"),
    );
    expect(refusal(() => refuseRunThatCannotJudge(filtered.header))).toContain(
      "the Vitest data is from a filtered run (-t /square/)",
    );
  });

  it("a truncated file, an unknown version, a pipe", () => {
    const text = original();
    expect(refusal(() => openVitestData(work, variant("cut.jsonl", text.slice(0, -20))))).toContain(
      "is truncated or corrupt: its last line has no end",
    );
    const lines = text.split("\n");
    expect(
      refusal(() =>
        openVitestData(work, variant("short.jsonl", `${lines.slice(0, -2).join("\n")}\n`)),
      ),
    ).toContain("its header lists 2 source files, the file has 1 source sections");
    expect(
      refusal(() =>
        openVitestData(work, variant("v2.jsonl", text.replace('"version":1,', '"version":2,'))),
      ),
    ).toContain("is Vitest coverage data version 2, freezegate reads version 1");
    const fifo = join(work, "fifo.jsonl");
    execFileSync("mkfifo", [fifo]);
    expect(refusal(() => openVitestData(work, fifo))).toContain(
      "is a named pipe (FIFO), not a regular file",
    );
  });

  it("parses only the sections asked for", () => {
    // The ledger's section is broken after its prefix: reading shapes' works, reading it fails.
    const text = original().replace(/("source":"src\/ledger\.ts",)"hash"/, '$1"hash" oops');
    const path = variant("broken-ledger.jsonl", text);
    const read = openVitestData(work, path);
    expect(read.section(SHAPES)).not.toBeNull();
    expect(refusal(() => read.section("src/ledger.ts"))).toContain(
      "is corrupt: a source section is not JSON",
    );
    // a section line that is not the source the header lists at its place
    const swapped = original().replace('{"source":"src/ledger.ts",', '{"source":"src/ledgex.ts",');
    expect(
      refusal(() =>
        readVitestDataFile(variant("swapped.jsonl", swapped)).sectionText("src/ledger.ts"),
      ),
    ).toContain("section 1 is not the section of src/ledger.ts");
  });

  it("a test file that failed to import, where its tests may have run the changed code", () => {
    const failed = openVitestData(
      recordInto(IMPORT_ERROR, "import-error", "vitest-coverage.jsonl"),
    );
    expect(failed.header.failedFiles.map((f) => f.file)).toEqual(["tests/broken.spec.ts"]);
    // It ran: the run is complete; what it hides depends on the patch.
    expect(() => refuseRunThatCannotJudge(failed.header)).not.toThrow();
    const facts = {
      prefix: "",
      changed: ["src/calc.ts", "src/other.ts"],
      unmeasured: [] as string[],
      frozen: parseFrozenList({ frozen: ["tests/calc.spec.ts::adds"] }, "l"),
    };
    expect(() => refuseFailedFiles(failed.header, facts)).not.toThrow();
    expect(
      refusal(() => refuseFailedFiles(failed.header, { ...facts, unmeasured: ["src/other.ts"] })),
    ).toContain(
      "the changed file src/other.ts is not in the Vitest data, and 1 test file(s) recorded no tests (tests/broken.spec.ts: Cannot find module '../src/missing.js'",
    );
    const frozen = parseFrozenList({ frozen: ["tests/broken.spec.ts::multiplies"] }, "l");
    expect(refusal(() => refuseFailedFiles(failed.header, { ...facts, frozen }))).toContain(
      'the frozen test "tests/broken.spec.ts::multiplies" may be in tests/broken.spec.ts, which recorded no tests',
    );
  });

  it("frozen tests that never ran their body: a failing beforeEach, a ctx.skip() in the body", () => {
    const run = openVitestData(recordInto(NO_BODY, "no-body", "vitest-coverage.jsonl"));
    expect(() => refuseRunThatCannotJudge(run.header)).not.toThrow();
    const frozen = frozenVitestTests(
      parseFrozenList({ frozen: ["tests/cart.spec.ts::*"] }, "l"),
      run.tests,
    );
    const bodiless = run.tests.testsWithoutRun([...frozen.ids].sort());
    expect(bodiless).toEqual([
      "tests/cart.spec.ts::setup fails > totals the cart",
      "tests/cart.spec.ts::skips itself > discounts a big cart",
    ]);
    expect(frozenWithoutBody("l.json", bodiless)?.message).toContain(
      '2 frozen test(s) in l.json did not run their body in the Vitest run (skipped, todo, or stopped by a failing beforeAll or beforeEach hook), or the data does not say that they did, so the lines they would cover are unknown: "tests/cart.spec.ts::setup fails > totals the cart", "tests/cart.spec.ts::skips itself > discounts a big cart"',
    );
  });
});

// Vitest's data is found by the search coverage.py's data is found by (coverage-discovery.ts),
// so its rules hold for both: each place once, nearest the user first, a working directory
// outside the repository not searched, two runs' data refused.
describe("the data search, on Vitest data", () => {
  const repo = join(work, "search-repo");
  const web = join(repo, "web");
  const outside = join(work, "search-outside");
  const DATA = ".freezegate/vitest-coverage.jsonl";
  /** Where to put the runs: the whole run's data, and another run's (filtered by name). */
  let run: string;
  let other: string;

  beforeAll(() => {
    run = join(whole, DATA);
    other = join(
      recordInto(BASIC, "search-other-run", "vitest-coverage.jsonl", "-t", "square"),
      DATA,
    );
  }, 60_000);

  /** Puts `from` at `<dir>/.freezegate/`, and nothing else in the places searched. */
  function place(...runs: [dir: string, from: string][]): void {
    for (const dir of [repo, web, outside])
      rmSync(join(dir, ".freezegate"), { recursive: true, force: true });
    mkdirSync(join(web, "src"), { recursive: true });
    mkdirSync(outside, { recursive: true });
    for (const [dir, from] of runs) {
      mkdirSync(join(dir, ".freezegate"), { recursive: true });
      copyFileSync(from, join(dir, DATA));
    }
  }
  const files = (cwd: string, testRoot = "") =>
    vitestRunner.data.files({ root: repo, places: { cwd, testRoot } });
  function refused(fn: () => unknown): FreezegateError {
    try {
      fn();
    } catch (error) {
      if (error instanceof FreezegateError) return error;
      throw error;
    }
    throw new Error("expected a refusal");
  }

  it("from a subdirectory, refuses its run beside an older one at the root, naming both as the user types them", () => {
    place([web, run], [repo, other]);
    const error = refused(() => files(web));
    expect(error.code).toBe("data-of-two-runs");
    expect(error.message).toBe(
      `Vitest coverage data is in the working directory (${DATA}) and in the repository root (../${DATA}), and the two differ, so which run to audit cannot be told`,
    );
    expect(error.fix).toBe(
      `name the data of the run to audit: --coverage ${DATA} or --coverage ../${DATA} (and delete the stale data)`,
    );
    // The same run twice (a copy) is one run: the one nearest the user is read.
    place([web, run], [repo, run]);
    expect(files(web)).toEqual([join(web, DATA)]);
    expect(files(join(web, "src"))).toEqual([join(repo, DATA)]);
  });

  it("refuses two runs' data in the test root and the repository root", () => {
    place([web, other], [repo, run]);
    const error = refused(() => files(repo, "web"));
    expect(error.code).toBe("data-of-two-runs");
    expect(error.message).toContain(
      `is in the test root (web/${DATA}) and in the repository root (${DATA}), and the two differ`,
    );
  });

  it("does not search a working directory outside the repository", () => {
    place([outside, run]);
    const error = refused(() => files(outside));
    expect(error.code).toBe("data-not-found");
    expect(vitestRunner.data.isThere({ root: repo, places: { cwd: outside } })).toBe(false);
    place([outside, other], [repo, run]);
    expect(files(outside)).toEqual([join(repo, DATA)]);
  });

  it("refuses no data found in the runner's words", () => {
    place();
    const error = refused(() => files(join(web, "src"), "web"));
    expect(error).toBeInstanceOf(InputError);
    expect(error.code).toBe("data-not-found");
    expect(error.message).toBe(
      `no Vitest coverage data found in ${join(web, "src")} (the working directory) or ${web} (the test root) or ${repo} (the repository root) (looked for ${DATA} and the shard files .freezegate/vitest-coverage.<i>-of-<n>.jsonl)`,
    );
    expect(error.fix).toContain("npx freezegate init vitest, then npx vitest run");
  });
});
