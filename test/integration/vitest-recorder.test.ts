// freezegate's Vitest recorder (integrations/vitest) under real Vitest, on the fixture project
// test/fixtures/vitest/basic. What each test ran is checked against oracle-lines.json, which
// scripts/vitest-oracle.mjs wrote from running every test alone in a fresh process with plain
// Vitest and istanbul's json report (`node scripts/vitest-oracle.mjs check --root
// test/fixtures/vitest/basic --expect-out test/fixtures/vitest/basic/oracle-lines.json`).
// Which phase a line belongs to is checked at lines found by their text in the sources.

import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { REPO_ROOT } from "../helpers/cli.js";
import { type Recording, recordVitest } from "../helpers/vitest-recording.js";

const FIXTURE = join(REPO_ROOT, "test/fixtures/vitest/basic");
const work = mkdtempSync(join(tmpdir(), "fg-vitest-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

interface TestEntry {
  id: string;
  taskId: string;
  names: string[];
  file: string;
  mode: string;
  state: string;
  body: boolean;
  duplicate?: boolean;
  leaked?: boolean;
  retries?: number;
}
interface Header {
  format: string;
  version: number;
  vitest: string;
  pool: string;
  isolate: boolean;
  shard: { index: number; count: number } | null;
  concurrentOverlap: boolean;
  unmappedStatements: number;
  testFiles: string[];
  ranFiles: string[];
  tests: TestEntry[];
  sources: string[];
}
interface Section {
  source: string;
  statements: [number, number][];
  outside: Record<string, number[]>;
  tests: Record<string, [number[], number[], number[]]>;
}
interface Data {
  header: Header;
  sources: Map<string, Section>;
}
interface Oracle {
  tests: Record<
    string,
    { id: string; lines: Record<string, number[]>; statements: Record<string, string[]> }
  >;
}

const oracle = JSON.parse(readFileSync(join(FIXTURE, "oracle-lines.json"), "utf8")) as Oracle;

let runs = 0;
/** The data file of the latest recording. */
let lastData = "";
function record(...args: string[]): Recording {
  lastData = join(work, `run-${runs++}.jsonl`);
  return recordVitest(FIXTURE, lastData, ...args);
}

function read(path: string): Data {
  const lines = readFileSync(path, "utf8").trim().split("\n");
  const header = JSON.parse(lines[0] as string) as Header;
  const sources = new Map<string, Section>();
  for (const line of lines.slice(1)) {
    const s = JSON.parse(line) as Section;
    sources.set(s.source, s);
  }
  return { header, sources };
}

function recordOk(...args: string[]): Data {
  const res = record(...args);
  expect(res.status, res.output).toBe(0);
  return read(res.data);
}

type Phase = "run" | "setup" | "teardown";
const PHASES: Phase[] = ["run", "setup", "teardown"];

function phase(data: Data, index: number, source: string, which: Phase): number[] {
  return data.sources.get(source)?.tests[index]?.[PHASES.indexOf(which)] ?? [];
}

/** Every line the test ran, its file's lines outside tests included: source -> sorted lines. */
function allLines(data: Data, index: number): Record<string, number[]> {
  const test = data.header.tests[index] as TestEntry;
  const fileIndex = String(data.header.ranFiles.indexOf(test.file));
  const out: Record<string, number[]> = {};
  for (const [source, s] of data.sources) {
    const lines = new Set([...(s.tests[index] ?? []).flat(), ...(s.outside[fileIndex] ?? [])]);
    if (lines.size) out[source] = [...lines].sort((a, b) => a - b);
  }
  return out;
}

/** Lines per test without the lines outside tests (which differ by worker without isolation). */
function testLines(data: Data): Record<string, Record<string, number[][]>> {
  const out: Record<string, Record<string, number[][]>> = {};
  data.header.tests.forEach((t, i) => {
    const mine: Record<string, number[][]> = {};
    for (const [source, s] of data.sources) if (s.tests[i]) mine[source] = s.tests[i];
    out[t.taskId] = mine;
  });
  return out;
}

function lineOf(source: string, text: string, root = FIXTURE): number {
  const lines = readFileSync(join(root, source), "utf8").split("\n");
  const at = lines.findIndex((l) => l.includes(text));
  if (at < 0) throw new Error(`${text} not in ${source}`);
  return at + 1;
}

function indexOf(data: Data, id: string): number {
  const i = data.header.tests.findIndex((t) => t.id === id);
  expect(i, id).toBeGreaterThanOrEqual(0);
  return i;
}

describe("Vitest recorder on a real project (forks, isolated)", () => {
  let data: Data;
  let dataFile: string;

  it("records every test's lines exactly as the test run alone executes them", () => {
    data = recordOk();
    dataFile = lastData;
    expect(data.header).toMatchObject({
      format: "freezegate-vitest-coverage",
      version: 1,
      pool: "forks",
      isolate: true,
      shard: null,
      concurrentOverlap: false,
      unmappedStatements: 0,
    });
    const ran = data.header.tests.filter((t) => t.state === "pass");
    expect(ran.length).toBe(Object.keys(oracle.tests).length);
    expect(data.header.tests.filter((t) => t.body !== true)).toEqual([]);
    for (const [i, test] of data.header.tests.entries()) {
      const truth = oracle.tests[test.taskId];
      expect(truth, test.id).toBeDefined();
      expect(allLines(data, i), test.id).toEqual(truth?.lines);
      // Statement spans in original lines are the report's, for every file the test touched.
      for (const [source, spans] of Object.entries(truth?.statements ?? {})) {
        const mine = (data.sources.get(source)?.statements ?? []).map(([a, b]) => `${a}:${b}`);
        expect(mine.sort(), `${test.id} ${source}`).toEqual(spans);
      }
    }
  });

  it("is what the oracle finds too when one Vitest runs the tests one after the other", () => {
    // oracle-lines.json came from a `vitest run` process per test; the oracle's fast mode
    // runs them all in one Vitest instance, each in a fresh worker with its own coverage.
    // A timer left running by a test fires within the 50 ms settle time in both.
    const expectOut = join(work, "oracle-shared.json");
    const res = spawnSync(
      process.execPath,
      [
        join(REPO_ROOT, "scripts/vitest-oracle.mjs"),
        "check",
        "--root",
        FIXTURE,
        "--data",
        dataFile,
        "--settle",
        "50",
        "--expect-out",
        expectOut,
      ],
      { cwd: FIXTURE, encoding: "utf8", env: { ...process.env, FORCE_COLOR: "0" } },
    );
    expect(res.status, `${res.stdout}${res.stderr}`).toBe(0);
    expect(res.stdout).toContain("11/11 tests match the isolated runs (2 isolated by task id");
    const shared = JSON.parse(readFileSync(expectOut, "utf8")) as Oracle;
    expect(shared.tests).toEqual(oracle.tests);
  });

  it("names tests as Vitest prints them, from the files Vitest's include matched", () => {
    expect(data.header.testFiles).toEqual([
      "tests/concurrent.spec.ts",
      "tests/hooks.spec.ts",
      "tests/leak.spec.ts",
      "tests/retry.spec.ts",
    ]);
    const ids = data.header.tests.map((t) => t.id);
    expect(ids).toContain("tests/hooks.spec.ts::areas > nested > size 1");
    expect(ids).toContain("tests/hooks.spec.ts::areas > nested > size 2");
    const dups = data.header.tests.filter((t) => t.id === "tests/hooks.spec.ts::dup > same name");
    expect(dups.map((t) => t.duplicate)).toEqual([true, true]);
    expect(new Set(dups.map((t) => t.taskId)).size).toBe(2);
    // The two tests of the same name ran different lines: merging them would lose that.
    const [a, b] = dups.map((t) => data.header.tests.indexOf(t));
    expect(phase(data, a as number, "src/shapes.ts", "run")).not.toEqual(
      phase(data, b as number, "src/shapes.ts", "run"),
    );
  });

  it("splits a test's lines into setup (beforeAll, beforeEach), body and teardown (afterEach, afterAll)", () => {
    const i = indexOf(data, "tests/hooks.spec.ts::areas > nested > size 1");
    const shapes = "src/shapes.ts";
    const ledger = "src/ledger.ts";
    const square = lineOf(shapes, "return shape.size * shape.size;");
    const describeLine = lineOf(shapes, "const value = area(shape);");
    const recordLine = lineOf(shapes, "ledger.entries.push(describeShape(shape));");
    expect(phase(data, i, shapes, "run")).toContain(square);
    expect(phase(data, i, shapes, "run")).not.toContain(describeLine);
    // the nested describe's beforeAll
    expect(phase(data, i, shapes, "setup")).toContain(describeLine);
    // the file's beforeAll and the outer describe's beforeEach
    expect(phase(data, i, ledger, "setup")).toContain(lineOf(ledger, "return { entries: [] };"));
    expect(phase(data, i, ledger, "setup")).toContain(
      lineOf(ledger, "return ledger.entries.every"),
    );
    // the nested afterEach, and the file's afterAll
    expect(phase(data, i, shapes, "teardown")).toContain(recordLine);
    expect(phase(data, i, ledger, "teardown")).toContain(
      lineOf(ledger, "const count = ledger.entries.length;"),
    );
    // A test outside the nested describe gets neither its beforeAll nor its afterEach.
    const j = indexOf(data, "tests/hooks.spec.ts::areas > square");
    expect(phase(data, j, shapes, "setup")).not.toContain(describeLine);
    expect(phase(data, j, shapes, "teardown")).not.toContain(recordLine);
  });

  it("credits import-time code to no test, and records statements in original lines", () => {
    const shapes = data.sources.get("src/shapes.ts") as Section;
    const importLine = lineOf("src/shapes.ts", 'registry.push("loaded at import");');
    const fileIndex = String(data.header.ranFiles.indexOf("tests/hooks.spec.ts"));
    expect(shapes.outside[fileIndex]).toContain(importLine);
    for (const phases of Object.values(shapes.tests))
      expect(phases.flat()).not.toContain(importLine);
    const starts = new Set(shapes.statements.map(([s]) => s));
    for (const typeOnly of [
      "export interface Shape {",
      "export type Area",
      "import type { Ledger }",
    ]) {
      expect(starts.has(lineOf("src/shapes.ts", typeOnly)), typeOnly).toBe(false);
    }
    // A statement over several lines is one span, from its first line to its last.
    const first = lineOf("src/shapes.ts", "return Math.round(");
    expect(shapes.statements).toContainEqual([first, first + 4]);
  });

  it("runs concurrent tests one at a time, and credits a leaked timer to the test that set it", () => {
    const first = indexOf(data, "tests/concurrent.spec.ts::together > first");
    const second = indexOf(data, "tests/concurrent.spec.ts::together > second");
    const describeLine = lineOf("src/shapes.ts", "const value = area(shape);");
    expect(phase(data, first, "src/shapes.ts", "run")).not.toContain(describeLine);
    expect(phase(data, second, "src/shapes.ts", "run")).toContain(describeLine);

    const late = lineOf("src/ledger.ts", 'return "late work";');
    const setter = indexOf(data, "tests/leak.spec.ts::leaves a timer behind");
    const live = indexOf(data, "tests/leak.spec.ts::runs while the timer fires");
    expect(data.header.tests[setter]?.leaked).toBe(true);
    expect(phase(data, setter, "src/ledger.ts", "teardown")).toContain(late);
    expect(phase(data, setter, "src/ledger.ts", "run")).not.toContain(late);
    for (const p of PHASES) expect(phase(data, live, "src/ledger.ts", p)).not.toContain(late);
  });

  it("joins every try of a retried test", () => {
    const i = indexOf(data, "tests/retry.spec.ts::passes on the second try");
    expect(data.header.tests[i]?.retries).toBe(1);
    expect(phase(data, i, "src/ledger.ts", "run")).toContain(
      lineOf("src/ledger.ts", "const count = ledger.entries.length;"),
    );
  });

  it.each([
    ["threads", ["--pool", "threads"], true],
    ["no isolation", ["--no-isolate", "--maxWorkers", "1"], false],
    [
      "threads without isolation",
      ["--pool", "threads", "--no-isolate", "--maxWorkers", "1"],
      false,
    ],
    ["hooks in list order", ["--sequence.hooks", "list"], true],
  ])("records the same lines per test with %s", (_name, args, isolate) => {
    const other = recordOk(...(args as string[]));
    expect(other.header.isolate).toBe(isolate);
    expect(testLines(other)).toEqual(testLines(data));
    // Without isolation a module's top level runs in the first file that imports it; the
    // lines that ran outside tests are the same over the run.
    const outside = (d: Data) =>
      Object.fromEntries(
        [...d.sources].map(([k, s]) => [
          k,
          [...new Set(Object.values(s.outside).flat())].sort((a, b) => a - b),
        ]),
      );
    expect(outside(other)).toEqual(outside(data));
  });

  it("writes one data file per shard, which together hold the whole run", () => {
    const one = recordOk("--shard", "1/2");
    const two = recordOk("--shard", "2/2");
    expect(one.header.shard).toEqual({ index: 1, count: 2 });
    expect(two.header.shard).toEqual({ index: 2, count: 2 });
    expect([...one.header.ranFiles, ...two.header.ranFiles].sort()).toEqual(
      [...data.header.ranFiles].sort(),
    );
    expect({ ...testLines(one), ...testLines(two) }).toEqual(testLines(data));
  });
});

describe("Vitest recorder on tests that never ran their body", () => {
  const fixture = join(REPO_ROOT, "test/fixtures/vitest/no-body");

  it("says which tests Vitest called the function of, a failing beforeEach hook's test not", () => {
    // One test fails (its beforeEach throws): the run fails and still writes its data.
    const res = recordVitest(fixture, join(work, "no-body.jsonl"));
    expect(res.status, res.output).toBe(1);
    const run = read(res.data);
    const byName = (name: string) => {
      const i = indexOf(run, `tests/cart.spec.ts::${name}`);
      const { mode, state, body } = run.header.tests[i] as TestEntry;
      return { mode, state, body, lines: run.sources.get("src/cart.ts")?.tests[i] };
    };
    const open = lineOf("src/cart.ts", "return { items: [] };", fixture);
    // Its failure reads as any failure; body says the test function never started.
    expect(byName("setup fails > totals the cart")).toEqual({
      mode: "run",
      state: "fail",
      body: false,
      lines: [[], [open], []],
    });
    // ctx.skip() in the body: the body started, and ran up to the skip.
    expect(byName("skips itself > discounts a big cart")).toEqual({
      mode: "skip",
      state: "skip",
      body: true,
      lines: [[open], [], []],
    });
    expect(byName("runs its body")).toMatchObject({ mode: "run", state: "pass", body: true });
  });
});

describe("Vitest recorder refusals", () => {
  it.each([
    [
      "the v8 provider",
      ["--coverage.provider", "v8"],
      'the "v8" coverage provider keeps no counters',
    ],
    ["coverage off", ["--coverage.enabled", "false"], "per-test coverage needs coverage on"],
  ])("fails with the fix and leaves no data under %s", (_name, args, message) => {
    const stale = join(work, "stale.jsonl");
    writeFileSync(stale, "{}\n");
    const res = recordVitest(FIXTURE, stale, ...args);
    expect(res.status).not.toBe(0);
    expect(res.output).toContain(message);
    expect(existsSync(stale)).toBe(false);
  });
});
