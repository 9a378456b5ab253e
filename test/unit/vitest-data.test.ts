// The pure parts of reading freezegate's Vitest data: its header and sections, shards, tests,
// statements from spans, and the refusals. Real data recorded by Vitest is read in
// test/integration/vitest-data.test.ts.

import { describe, expect, it } from "vitest";
import { nodeIdFile } from "../../src/core/deposits.js";
import { InputError } from "../../src/core/errors.js";
import { parseFrozenList } from "../../src/core/frozen.js";
import {
  changedStatementStarts,
  executedByLine,
  spanStatements,
  spansPastEnd,
} from "../../src/runners/vitest/changed-source.js";
import {
  parseHeader,
  parseSection,
  type VitestHeader,
  type VitestSection,
  type VitestTest,
} from "../../src/runners/vitest/data-format.js";
import {
  frozenVitestTests,
  indexVitestTests,
  vitestContextIndex,
} from "../../src/runners/vitest/data-tests.js";
import { isJsTsModule, isVitestSource, repoPathOf } from "../../src/runners/vitest/files.js";
import {
  frozenWithoutBody,
  globMatchesSomeWithPrefix,
  refuseFailedFiles,
  refuseOtherRoot,
  refuseRunThatCannotJudge,
} from "../../src/runners/vitest/refusals.js";
import { combineSections, combineShards, type RunPart } from "../../src/runners/vitest/shards.js";

function test(id: string, extra: Partial<VitestTest> = {}): VitestTest {
  return {
    id,
    file: nodeIdFile(id),
    mode: "run",
    state: "pass",
    body: true,
    duplicate: false,
    concurrent: false,
    project: null,
    ...extra,
  };
}

function header(extra: Partial<VitestHeader> = {}): VitestHeader {
  return {
    createdAt: "2026-01-01T00:00:00.000Z",
    vitest: "4.1.12",
    root: "/repo/web",
    shard: null,
    reason: "passed",
    filter: null,
    concurrentOverlap: false,
    testFiles: ["tests/a.spec.ts", "tests/b.spec.ts"],
    ranFiles: ["tests/a.spec.ts", "tests/b.spec.ts"],
    failedFiles: [],
    tests: [test("tests/a.spec.ts::one"), test("tests/b.spec.ts::two")],
    sources: ["src/x.ts"],
    ...extra,
  };
}

function rawHeader(extra: Record<string, unknown> = {}): string {
  return JSON.stringify({
    format: "freezegate-vitest-coverage",
    version: 1,
    root: "/repo/web",
    shard: null,
    reason: "passed",
    filter: { testNamePattern: null, files: null },
    concurrentOverlap: false,
    testFiles: ["tests/a.spec.ts"],
    ranFiles: ["tests/a.spec.ts"],
    failedFiles: [],
    tests: [
      {
        id: "tests/a.spec.ts::s > t",
        file: "tests/a.spec.ts",
        mode: "run",
        state: "pass",
        body: true,
      },
    ],
    sources: ["src/x.ts"],
    ...extra,
  });
}

function section(extra: Partial<VitestSection> = {}): VitestSection {
  return {
    source: "src/x.ts",
    hash: "h",
    statements: [[1, 1]],
    outside: new Map(),
    tests: new Map(),
    ...extra,
  };
}

/** The refusal `fn` throws, with its code; its message and fix as the command line prints them. */
function message(fn: () => unknown, code: string): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).code).toBe(code);
    return `${(error as InputError).message} (fix: ${(error as InputError).fix})`;
  }
  throw new Error("expected an InputError");
}

describe("the header", () => {
  it("reads the recorder's header, a filter with nothing in it being no filter", () => {
    const read = parseHeader(rawHeader(), "d.jsonl");
    expect(read.filter).toBeNull();
    expect(read.tests[0]).toMatchObject({
      id: "tests/a.spec.ts::s > t",
      body: true,
      duplicate: false,
    });
    expect(
      parseHeader(rawHeader({ filter: { testNamePattern: "t", files: null } }), "d").filter,
    ).toEqual({ testNamePattern: "t", files: null });
    expect(
      parseHeader(rawHeader({ filter: { testNamePattern: null, files: ["a"] } }), "d").filter,
    ).toEqual({ testNamePattern: null, files: ["a"] });
  });

  it("refuses other data, an unknown version, and ids that do not start with their file", () => {
    expect(
      message(() => parseHeader('{"format":"x"}', "d.jsonl"), "vitest-data-unrecognized"),
    ).toContain("d.jsonl is not freezegate's Vitest coverage data");
    expect(
      message(
        () => parseHeader(rawHeader({ version: 2 }), "d.jsonl"),
        "vitest-data-version-unknown",
      ),
    ).toContain("version 2, freezegate reads version 1");
    const wrongFile = { id: "tests/b.spec.ts::t", file: "tests/a.spec.ts" };
    expect(
      message(() => parseHeader(rawHeader({ tests: [wrongFile] }), "d"), "vitest-data-corrupt"),
    ).toContain('does not start with its file "tests/a.spec.ts::"');
    expect(
      message(() => parseHeader(rawHeader({ sources: ["b", "a"] }), "d"), "vitest-data-corrupt"),
    ).toContain("not sorted");
    expect(message(() => parseHeader("{not json", "d"), "vitest-data-corrupt")).toContain(
      "is not JSON",
    );
  });

  it("reads a test the data does not say ran its body as one that did not, and refuses a body that is not a flag", () => {
    const entry = { id: "tests/a.spec.ts::t", file: "tests/a.spec.ts", mode: "run", state: "pass" };
    expect(parseHeader(rawHeader({ tests: [entry] }), "d").tests[0]?.body).toBe(false);
    expect(
      message(
        () => parseHeader(rawHeader({ tests: [{ ...entry, body: "yes" }] }), "d"),
        "vitest-data-corrupt",
      ),
    ).toContain('test "tests/a.spec.ts::t" has a "body" that is not true or false');
  });

  it("refuses a section whose indices or spans the header cannot hold", () => {
    const h = parseHeader(rawHeader(), "d");
    const ok =
      '{"source":"src/x.ts","hash":null,"statements":[[2,4]],"outside":{"0":[2]},"tests":{"0":[[2],[],[]]}}';
    expect(parseSection(ok, "d", h).tests.get(0)).toEqual([[2], [], []]);
    expect(
      message(
        () => parseSection(ok.replace('"0":[[2]', '"1":[[2]'), "d", h),
        "vitest-data-corrupt",
      ),
    ).toContain("lines for test 1, which the header does not list");
    expect(
      message(
        () => parseSection(ok.replace('"outside":{"0"', '"outside":{"3"'), "d", h),
        "vitest-data-corrupt",
      ),
    ).toContain("test file 3");
    expect(
      message(() => parseSection(ok.replace("[[2,4]]", "[[4,2]]"), "d", h), "vitest-data-corrupt"),
    ).toContain("ending before it starts");
    expect(
      message(
        () => parseSection(ok.replace("[[2],[],[]]", "[[2],[]]"), "d", h),
        "vitest-data-corrupt",
      ),
    ).toContain("without its [run, setup, teardown] lines");
    expect(
      message(() => parseSection(ok.replace("[[2,4]]", "[[0,1]]"), "d", h), "vitest-data-corrupt"),
    ).toContain("not a [start, end] pair");
  });
});

describe("statements from spans", () => {
  const map = spanStatements([
    [15, 17],
    [16, 16],
    [20, 24],
    [21, 23],
  ]);

  it("gives a line inside a span the verdict of the innermost span's start, and no statement outside spans", () => {
    expect([15, 16, 17, 18, 19].map((l) => map.statementOf(l))).toEqual([15, 16, 15, null, null]);
    expect([20, 21, 22, 23, 24, 25].map((l) => map.statementOf(l))).toEqual([
      20,
      21,
      21,
      21,
      20,
      null,
    ]);
    expect(map.statementOf(3)).toBeNull();
  });

  it("asks the data for the start lines of changed statements only", () => {
    expect([...changedStatementStarts([1, 17, 18, 22], map)]).toEqual([15, 21]);
  });

  it("finds a recorded statement past the end of the file", () => {
    const recorded: [number, number][] = [
      [2, 2],
      [5, 9],
      [6, 6],
    ];
    expect(spansPastEnd({ statements: recorded }, 9)).toBeNull();
    expect(spansPastEnd({ statements: recorded }, 8)).toBe(
      "a statement is recorded at lines 5-9, but the file has 8 lines",
    );
  });
});

describe("tests and their lines", () => {
  const tests = indexVitestTests([
    test("a.spec.ts::dup"),
    test("a.spec.ts::dup", { state: "skip" }),
    test("a.spec.ts::x | y"),
    test("b.spec.ts::s > todo", { mode: "todo", state: "todo" }),
    test("b.spec.ts::s > fails", { state: "fail" }),
    test("b.spec.ts::s > hook failed", { state: "fail", body: false }),
  ]);

  it("keeps a duplicated id's tests apart, and lists an id one of whose tests never ran its body", () => {
    expect(tests.indicesOf("a.spec.ts::dup")).toEqual([0, 1]);
    expect(tests.ids.size).toBe(5);
    expect(
      tests.testsWithoutRun([
        "a.spec.ts::dup",
        "a.spec.ts::x | y",
        "b.spec.ts::s > todo",
        "b.spec.ts::s > fails",
        "b.spec.ts::s > hook failed",
      ]),
    ).toEqual(["a.spec.ts::dup", "b.spec.ts::s > todo", "b.spec.ts::s > hook failed"]);
  });

  it("freezes every test of a duplicated id, exact ids and globs as for pytest", () => {
    const frozen = frozenVitestTests(
      parseFrozenList({ frozen: ["a.spec.ts::dup", "b.spec.ts::s > *", "a.spec.ts::gone"] }, "l"),
      tests,
    );
    expect([...frozen.indices].sort()).toEqual([0, 1, 3, 4, 5]);
    expect(frozen.unresolved).toEqual(["a.spec.ts::gone"]);
  });

  it("names lines by test and phase, an id holding '|' included, and '' outside tests", () => {
    const lines = executedByLine(
      section({
        outside: new Map([[0, [1, 2]]]),
        tests: new Map([
          [0, [[2], [], [3]]],
          [1, [[2], [4], []]],
          [2, [[5], [], []]],
        ]),
      }),
      tests,
    );
    expect(lines.get(1)).toEqual([""]);
    expect(lines.get(2)).toEqual(["", "a.spec.ts::dup|run"]);
    expect(lines.get(3)).toEqual(["a.spec.ts::dup|teardown"]);
    expect(lines.get(4)).toEqual(["a.spec.ts::dup|setup"]);
    const index = vitestContextIndex(tests);
    expect(index.get("a.spec.ts::x | y|run")).toMatchObject({
      testId: "a.spec.ts::x | y",
      phase: "run",
    });
    expect(index.get("").testId).toBeNull();
    const wanted = executedByLine(
      section({ tests: new Map([[2, [[5, 6], [], []]]]) }),
      tests,
      new Set([6]),
    );
    expect(wanted.get(5)).toEqual([]);
    expect(wanted.get(6)).toEqual(["a.spec.ts::x | y|run"]);
  });
});

describe("shards", () => {
  const shard = (index: number, ran: string, extra: Partial<VitestHeader> = {}) => ({
    path: `s${index}`,
    header: header({
      shard: { index, count: 2 },
      ranFiles: [ran],
      tests: [test(`${ran}::t`)],
      ...extra,
    }),
  });

  it("combines the shards of one run, shifting each later shard's indices", () => {
    const run = combineShards([shard(2, "tests/b.spec.ts"), shard(1, "tests/a.spec.ts")]);
    expect(run.header.ranFiles).toEqual(["tests/a.spec.ts", "tests/b.spec.ts"]);
    expect(run.header.tests.map((t) => t.id)).toEqual(["tests/a.spec.ts::t", "tests/b.spec.ts::t"]);
    const [one, two] = run.parts as [RunPart, RunPart];
    const combined = combineSections("src/x.ts", [
      { part: one, section: section({ tests: new Map([[0, [[1], [], []]]]) }) },
      {
        part: two,
        section: section({
          statements: [
            [1, 1],
            [3, 4],
          ],
          outside: new Map([[0, [1]]]),
          tests: new Map([[0, [[3], [], []]]]),
        }),
      },
    ]);
    expect([...(combined?.tests.keys() ?? [])]).toEqual([0, 1]);
    expect([...(combined?.outside.keys() ?? [])]).toEqual([1]);
    expect(combined?.statements).toEqual([
      [1, 1],
      [3, 4],
    ]);
  });

  it("refuses a missing shard, a shard twice, and shards of different runs", () => {
    expect(
      message(() => combineShards([shard(1, "tests/a.spec.ts")]), "vitest-shard-missing"),
    ).toContain("has 1 of 2 shards: shard 2 is missing");
    expect(
      message(
        () => combineShards([shard(1, "tests/a.spec.ts"), shard(1, "tests/b.spec.ts")]),
        "vitest-shards-not-one-run",
      ),
    ).toContain("both are shard 1 of 2");
    expect(
      message(
        () =>
          combineShards([
            shard(1, "tests/a.spec.ts"),
            shard(2, "tests/b.spec.ts", { testFiles: ["tests/b.spec.ts"] }),
          ]),
        "vitest-shards-not-one-run",
      ),
    ).toContain("Vitest's include matched other test files");
    expect(
      message(
        () => combineShards([shard(1, "tests/a.spec.ts"), shard(2, "tests/a.spec.ts")]),
        "vitest-shards-not-one-run",
      ),
    ).toContain("both ran the test file tests/a.spec.ts");
    const run = combineShards([shard(1, "tests/a.spec.ts"), shard(2, "tests/b.spec.ts")]);
    expect(
      message(
        () =>
          combineSections("src/x.ts", [
            { part: run.parts[0] as RunPart, section: section({ hash: "a" }) },
            { part: run.parts[1] as RunPart, section: section({ hash: "b" }) },
          ]),
        "vitest-shards-not-one-run",
      ),
    ).toContain("recorded src/x.ts from different code");
  });
});

describe("refusals", () => {
  it("refuses overlapping tests, a filtered run and a run that left test files out", () => {
    expect(() => refuseRunThatCannotJudge(header())).not.toThrow();
    expect(
      message(
        () => refuseRunThatCannotJudge(header({ concurrentOverlap: true })),
        "vitest-tests-overlapped",
      ),
    ).toContain("mixes the lines of tests that ran at the same time");
    expect(
      message(
        () =>
          refuseRunThatCannotJudge(header({ filter: { testNamePattern: "/login/", files: null } })),
        "vitest-run-filtered",
      ),
    ).toContain("filtered run (-t /login/)");
    expect(
      message(
        () => refuseRunThatCannotJudge(header({ ranFiles: ["tests/a.spec.ts"] })),
        "vitest-run-incomplete",
      ),
    ).toContain('did not run 1 of its 2 test files ("tests/b.spec.ts")');
    expect(
      message(
        () => refuseRunThatCannotJudge(header({ reason: "interrupted" })),
        "vitest-run-incomplete",
      ),
    ).toContain("was interrupted");
  });

  describe("test files that recorded nothing", () => {
    const failed = header({
      ranFiles: ["tests/a.spec.ts"],
      failedFiles: [{ file: "tests/b.spec.ts", reason: "SyntaxError: Unexpected token" }],
    });
    const facts = {
      prefix: "web/",
      changed: ["web/src/x.ts"],
      unmeasured: [] as string[],
      frozen: parseFrozenList({ frozen: ["tests/a.spec.ts::one"] }, "l"),
    };

    it("judge the patch when they hide nothing it needs", () => {
      expect(() => refuseFailedFiles(failed, facts)).not.toThrow();
      expect(() =>
        refuseFailedFiles(header(), { ...facts, unmeasured: ["web/src/x.ts"] }),
      ).not.toThrow();
    });

    it("refuse a changed source the data lacks, a frozen test in one, and one the patch changes", () => {
      expect(
        message(
          () => refuseFailedFiles(failed, { ...facts, unmeasured: ["web/src/x.ts"] }),
          "vitest-test-file-recorded-nothing",
        ),
      ).toContain(
        "the changed file web/src/x.ts is not in the Vitest data, and 1 test file(s) recorded no tests (web/tests/b.spec.ts: SyntaxError",
      );
      for (const frozen of [
        "tests/b.spec.ts::two",
        "tests/b.spec.ts::s > *",
        "*::two",
        "tests/*",
      ]) {
        expect(
          message(
            () =>
              refuseFailedFiles(failed, {
                ...facts,
                frozen: parseFrozenList({ frozen: [frozen] }, "l"),
              }),
            "vitest-test-file-recorded-nothing",
          ),
          frozen,
        ).toContain(`the frozen test "${frozen}" may be in web/tests/b.spec.ts`);
      }
      expect(
        message(
          () => refuseFailedFiles(failed, { ...facts, changed: ["web/tests/b.spec.ts"] }),
          "vitest-test-file-recorded-nothing",
        ),
      ).toContain("the test file web/tests/b.spec.ts, which the patch changes, recorded no tests");
    });

    it("read a glob as a prefix match of test ids", () => {
      expect(globMatchesSomeWithPrefix("tests/b.spec.ts::s > *", "tests/b.spec.ts::")).toBe(true);
      expect(globMatchesSomeWithPrefix("tests/a*::x", "tests/b.spec.ts::")).toBe(false);
      // A test name may hold "::": "tests/b.spec.ts::x a.spec.ts::y" is an id of that file.
      expect(globMatchesSomeWithPrefix("*a.spec.ts::*", "tests/b.spec.ts::")).toBe(true);
      expect(globMatchesSomeWithPrefix("*b.spec.ts::*", "tests/b.spec.ts::")).toBe(true);
    });
  });

  it("refuses data recorded at another Vitest root than the audit's", () => {
    const exists = (path: string) => path === "web/tests/a.spec.ts";
    const facts = { repoRoot: "/repo", prefix: "web/", exists };
    expect(() => refuseOtherRoot(header(), facts)).not.toThrow();
    // recorded on a CI machine, in the same directories
    expect(() => refuseOtherRoot(header({ root: "/ci/work/repo/web" }), facts)).not.toThrow();
    expect(
      message(() => refuseOtherRoot(header({ root: "/repo/api" }), facts), "vitest-other-root"),
    ).toBe(
      "the Vitest data was recorded with the Vitest root api, but the audit reads it against web (fix: pass --test-root api (the directory Vitest ran in))",
    );
    expect(
      message(() => refuseOtherRoot(header({ root: "/ci/work/repo" }), facts), "vitest-other-root"),
    ).toContain("whose test files are not under web here");
    expect(
      message(
        () => refuseOtherRoot(header({ root: "/ci/web" }), { ...facts, exists: () => false }),
        "vitest-other-root",
      ),
    ).toContain("whose test files are not under web here");
  });

  it("refuses frozen tests that never ran their body, saying how to keep them running", () => {
    expect(frozenWithoutBody("l.json", [])).toBeNull();
    expect(frozenWithoutBody("l.json", ["a.spec.ts::t"])?.code).toBe("frozen-tests-not-run");
    expect(frozenWithoutBody("l.json", ["a.spec.ts::t"])?.message).toContain(
      'did not run their body in the Vitest run (skipped, todo, or stopped by a failing beforeAll or beforeEach hook), or the data does not say that they did, so the lines they would cover are unknown: "a.spec.ts::t"',
    );
  });
});

describe("which files are tests and sources", () => {
  it("audits JavaScript and TypeScript modules that are not Vitest's test files", () => {
    expect(
      ["a.ts", "a.tsx", "a.mts", "a.cts", "a.js", "a.jsx", "a.mjs", "a.cjs"].every(isJsTsModule),
    ).toBe(true);
    expect(["a.d.ts", "a.d.mts", "a.py", "a.json", "a.ts.snap"].some(isJsTsModule)).toBe(false);
    const tests = new Set(["web/tests/a.spec.ts"]);
    expect(isVitestSource("web/tests/a.spec.ts", tests)).toBe(false);
    expect(isVitestSource("web/tests/helpers.ts", tests)).toBe(true);
  });

  it("maps the data's paths onto the repository, none above it", () => {
    expect(repoPathOf("web/", "src/x.ts")).toBe("web/src/x.ts");
    expect(repoPathOf("web/", "../lib/x.ts")).toBe("lib/x.ts");
    expect(repoPathOf("", "../lib/x.ts")).toBeNull();
  });
});
