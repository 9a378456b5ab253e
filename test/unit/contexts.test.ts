import { describe, expect, it } from "vitest";
import { parseFrozenList, resolveFrozen } from "../../src/core/frozen.js";
import type { ContextOverview } from "../../src/core/model.js";
import {
  isPlainTestId,
  mightNameTest,
  parsePytestCovContext,
  staticContextWithColons,
} from "../../src/runners/pytest/context-names.js";
import { indexContextOverview, indexContexts } from "../../src/runners/pytest/contexts.js";
import { dottedCandidates, dottedTestKind } from "../../src/runners/pytest/test-function-names.js";
import { buildModuleIndex, testFileExistsIn } from "../../src/runners/pytest/test-root-files.js";
import { refusedWith } from "../helpers/refusals.js";

describe("parsePytestCovContext", () => {
  it("splits node id and phase on the last bar", () => {
    expect(parsePytestCovContext("tests/test_a.py::test_x|run")).toEqual({
      raw: "tests/test_a.py::test_x|run",
      testId: "tests/test_a.py::test_x",
      phase: "run",
    });
    expect(parsePytestCovContext("tests/test_c.py::test_weird[p|q]|setup")?.testId).toBe(
      "tests/test_c.py::test_weird[p|q]",
    );
    expect(parsePytestCovContext("tests/test_c.py::T::test[a::b|c]|teardown")).toMatchObject({
      testId: "tests/test_c.py::T::test[a::b|c]",
      phase: "teardown",
    });
  });

  it("strips a static context prefix but keeps bars inside parameters", () => {
    expect(parsePytestCovContext("shardA|tests/x.py::t[a|b]|run")?.testId).toBe(
      "tests/x.py::t[a|b]",
    );
  });

  it("rejects names that are not pytest-cov contexts", () => {
    expect(parsePytestCovContext("")).toBeNull();
    expect(parsePytestCovContext("tests.test_a.test_x")).toBeNull();
    expect(parsePytestCovContext("tests/test_a.py::test_x|call")).toBeNull();
    expect(parsePytestCovContext("shardA|run")).toBeNull();
  });
});

describe('a "|" before the first "::": a static context, or the test file\'s path', () => {
  const LEGACY = "tests/legacy|v1/test_old.py";
  const has =
    (...files: string[]) =>
    (file: string) =>
      files.includes(file);

  it("is the path's when the test root holds the whole file", () => {
    expect(parsePytestCovContext(`${LEGACY}::test_one|run`, has(LEGACY))).toEqual({
      raw: `${LEGACY}::test_one|run`,
      testId: `${LEGACY}::test_one`,
      phase: "run",
    });
    // After a static context, the path keeps its bar.
    expect(parsePytestCovContext(`shard-1|${LEGACY}::t[a|b]|setup`, has(LEGACY))?.testId).toBe(
      `${LEGACY}::t[a|b]`,
    );
    expect(parsePytestCovContext(`a|b|${LEGACY}::t|run`, has(LEGACY))?.testId).toBe(`${LEGACY}::t`);
  });

  it("ends a static context when only the file after it is here, and always without files", () => {
    expect(parsePytestCovContext("shard-1|tests/x.py::t|run", has("tests/x.py"))?.testId).toBe(
      "tests/x.py::t",
    );
    expect(parsePytestCovContext(`${LEGACY}::test_one|run`, has("v1/test_old.py"))?.testId).toBe(
      "v1/test_old.py::test_one",
    );
    // Without the test root's files, as before: every such bar ends a static context.
    expect(parsePytestCovContext(`${LEGACY}::test_one|run`)?.testId).toBe(
      "v1/test_old.py::test_one",
    );
    expect(parsePytestCovContext("shard|::t|run", has("shard|"))?.testId).toBe("shard|::t");
    expect(parsePytestCovContext("shard|::t|run", has())).toBeNull();
  });

  it("is refused when no reading's file is here and no name of the data tells", () => {
    for (const outside of [undefined, new Set<string>(), new Set([""])]) {
      expect(() => parsePytestCovContext(`shard-1|${LEGACY}::t|run`, has(), outside)).toThrow(
        refusedWith(
          "context-pipe-unresolved",
          `the coverage data's context name "shard-1|${LEGACY}::t|run" has a "|" before its first "::", which may end a static context or belong to the test file's path, and no reading names a file under the test root ("shard-1|${LEGACY}", "${LEGACY}" after a static context "shard-1", "v1/test_old.py" after a static context "shard-1|tests/legacy"), so the test that ran cannot be told`,
        ),
      );
    }
  });

  it("is refused when two readings name files that both exist", () => {
    expect(() =>
      parsePytestCovContext(`${LEGACY}::test_one|run`, has(LEGACY, "v1/test_old.py")),
    ).toThrow(
      refusedWith(
        "context-pipe-two-files",
        `the coverage data's context name "${LEGACY}::test_one|run" names two test files that both exist: "${LEGACY}", and "v1/test_old.py" after a static context "tests/legacy", so the test that ran cannot be told`,
      ),
    );
    expect(() =>
      parsePytestCovContext(`s|${LEGACY}::t|run`, has(LEGACY, "v1/test_old.py")),
    ).toThrow(
      refusedWith(
        "context-pipe-two-files",
        `names two test files that both exist: "${LEGACY}" (after a static context "s"), and "v1/test_old.py" after a static context "s|tests/legacy"`,
      ),
    );
  });

  it("is read by indexContexts against the module index, and refused there at once", () => {
    // No name tells whether there is a static context (no "", no bare "tests/legacy").
    const names = [`${LEGACY}::test_one|run`, "tests/unit/test_u.py::test_two|run"];
    const index = indexContexts(names, buildModuleIndex([LEGACY, "tests/unit/test_u.py"]));
    expect([...index.testIds].sort()).toEqual([
      `${LEGACY}::test_one`,
      "tests/unit/test_u.py::test_two",
    ]);
    expect(index.get(`${LEGACY}::test_one|run`).testId).toBe(`${LEGACY}::test_one`);
    expect(index.hasTest("v1/test_old.py::test_one")).toBe(false);
    // No reading's file here (the wrong test root, a file the patch deletes): refused.
    expect(() => indexContexts(names, buildModuleIndex([]))).toThrow(
      refusedWith(
        "context-pipe-unresolved",
        /has a "\|" before its first "::", which may end a static context or belong to the test file's path, and no reading names a file under the test root/,
      ),
    );
    expect(() => indexContexts(names, buildModuleIndex([LEGACY, "v1/test_old.py"]))).toThrow(
      refusedWith("context-pipe-two-files", /names two test files that both exist/),
    );
  });

  it("where no single file tells, takes the static context the data names alone", () => {
    // With a static context, code run outside tests is named by it alone: "shard-1" shows
    // that "shard-1|" is one, and the path after it keeps its bar, whether the file is here
    // or not (the patch deletes it).
    const shard = [
      "shard-1",
      `shard-1|${LEGACY}::test_one|run`,
      "shard-1|tests/unit/test_u.py::test_two|run",
    ];
    for (const files of [[], [LEGACY, "tests/unit/test_u.py"]]) {
      expect([...indexContexts(shard, buildModuleIndex(files)).testIds].sort()).toEqual([
        `${LEGACY}::test_one`,
        "tests/unit/test_u.py::test_two",
      ]);
    }
    // A static context that holds "|" itself: the longest one the data names alone.
    expect([
      ...indexContexts(["a|b", `a|b|${LEGACY}::t|run`], buildModuleIndex([])).testIds,
    ]).toEqual([`${LEGACY}::t`]);
    // A file that is here wins over a bare name from another run of combined data.
    expect([
      ...indexContexts(["tests/legacy", `${LEGACY}::t|run`], buildModuleIndex([LEGACY])).testIds,
    ]).toEqual([`${LEGACY}::t`]);
    // The empty name does not tell: data combined from a run without a static context and
    // one with it (whose bare name is missing) holds it too.
    const combined = ["", "shard-2|tests/legacy/test_old.py::t|run", "tests/u.py::v|run"];
    expect(() => indexContexts(combined, buildModuleIndex(["tests/u.py"]))).toThrow(
      refusedWith("context-pipe-unresolved", /no reading names a file under the test root/),
    );
    expect(
      [
        ...indexContexts(combined, buildModuleIndex(["tests/u.py", "tests/legacy/test_old.py"]))
          .testIds,
      ].sort(),
    ).toEqual(["tests/legacy/test_old.py::t", "tests/u.py::v"]);
    expect(
      parsePytestCovContext(`shard-1|${LEGACY}::t|run`, () => false, new Set(["shard-1"]))?.testId,
    ).toBe(`${LEGACY}::t`);
  });

  it("lists the test root's files only when a name has such a bar", () => {
    const unlisted = () => {
      throw new Error("listed");
    };
    const plain = indexContexts(["", "tests/a.py::t[x|y]|run"], unlisted);
    expect(plain.get("tests/a.py::t[x|y]|run").testId).toBe("tests/a.py::t[x|y]");
    expect(() => indexContexts(["shardA|tests/a.py::t|run"], unlisted)).toThrow("listed");
  });

  it("asks the index for Python files and reads other files (a plugin's YAML test)", () => {
    // tests/gen|x/test_g.py: generated into a directory git ignores, so not in the index
    //.
    const disk = new Set(["tests/a|b/test_c.yaml", "tests/gen|x/test_g.py"]);
    const read = (file: string) => (disk.has(file) ? "- x\n" : null);
    const exists = testFileExistsIn(buildModuleIndex([LEGACY, "tests/d.py"], read));
    expect(
      [
        LEGACY,
        "tests/d.py",
        "d.py",
        "tests/a|b/test_c.yaml",
        "b/test_c.yaml",
        "",
        "tests/gen|x/test_g.py",
        "x/test_g.py",
      ].map(exists),
    ).toEqual([true, true, false, true, false, false, true, false]);
  });
});

describe('a static context holding "::"', () => {
  const exists = (file: string) => file === "tests/test_m.py";

  it("is found in test ids whose file is missing while the rest names one that exists", () => {
    expect(
      staticContextWithColons(
        ["py3.11::linux|tests/test_m.py::test_a", "py3.11::linux|tests/test_m.py::test_b"],
        exists,
      ),
    ).toEqual({ context: "py3.11::linux", testId: "tests/test_m.py::test_a" });
    expect(staticContextWithColons(["a::b|c::d|tests/test_m.py::t[x]"], exists)).toEqual({
      context: "a::b|c::d",
      testId: "tests/test_m.py::t[x]",
    });
  });

  it("is not found in ids of existing files, nor where nothing after a bar exists", () => {
    expect(
      staticContextWithColons(["tests/test_m.py::t[a|tests/test_m.py::b]"], exists),
    ).toBeNull();
    expect(staticContextWithColons(["gone.py::t[a|other.py::b]", "gone.py::u"], exists)).toBeNull();
    expect(staticContextWithColons([], exists)).toBeNull();
  });
});

describe("dotted test_function names", () => {
  const modules = buildModuleIndex([
    "tests/test_b.py",
    "tests/unit/test_c.py",
    "other/test_c.py",
    "src/app/core.py",
  ]);

  it("maps to a node id when exactly one file fits", () => {
    expect(dottedCandidates("tests.test_b.TestCalc.test_mul", modules)).toEqual([
      "tests/test_b.py::TestCalc::test_mul",
    ]);
    // rootdir-less import: module named by its basename
    expect(dottedCandidates("test_b.test_add", modules)).toEqual(["tests/test_b.py::test_add"]);
  });

  it("lists every fitting file so ambiguity can be refused", () => {
    expect(dottedCandidates("test_c.test_x", modules).sort()).toEqual([
      "other/test_c.py::test_x",
      "tests/unit/test_c.py::test_x",
    ]);
  });

  it("indexContexts refuses ambiguous and unmapped names instead of guessing", () => {
    expect(() => indexContexts(["", "test_c.test_x"], modules)).toThrow(
      refusedWith("test-function-names-unclear", /more than one test file/),
    );
    expect(() => indexContexts(["nowhere.test_x"], modules)).toThrow(
      refusedWith("test-function-names-unmapped", /match no test file/),
    );
    const ok = indexContexts(["", "tests.test_b.test_add"], modules);
    expect(ok.style).toBe("test-function");
    expect([...ok.testIds]).toEqual(["tests/test_b.py::test_add"]);
    expect(ok.get("tests.test_b.test_add")).toEqual({
      raw: "tests.test_b.test_add",
      testId: "tests/test_b.py::test_add",
      phase: null,
    });
    expect(ok.hasTest("tests/test_b.py::test_add")).toBe(true);
    expect(ok.hasTest("tests/test_b.py::test_sub")).toBe(false);
  });

  it("refuses data mixing both styles", () => {
    expect(() =>
      indexContexts(["tests/test_b.py::test_add|run", "tests.test_b.test_add"], modules),
    ).toThrow(refusedWith("contexts-mixed", /mixes pytest-cov contexts/));
  });

  it("treats the empty context and unknown labels as no test", () => {
    const idx = indexContexts(["", "py311", "tests/test_b.py::t|run"], modules);
    expect(idx.nonTestContexts).toEqual(["", "py311"]);
    expect([...idx.testIds]).toEqual(["tests/test_b.py::t"]);
    expect(idx.style).toBe("pytest-cov");
  });
});

/** A reader over in-memory files (a test root's sources). */
const readerOf =
  (files: Record<string, string>) =>
  (file: string): string | null =>
    files[file] ?? null;

describe("test_function names that pytest would not collect", () => {
  const modules = buildModuleIndex(
    [
      "lib.py",
      "conftest.py",
      "tests/test_x.py",
      "tests/base.py",
      "tests/helpers.py",
      "pkg/check_test.py",
    ],
    readerOf({ "lib.py": "import os\n\ndef testdata():\n    return 1\n" }),
  );

  it.each([
    ["tests/test_x.py::test_a", "test"],
    ["tests/test_x.py::TestA::TestInner::test_b", "test"],
    ["pkg/check_test.py::test_c", "test"],
    ["lib.py::testdata", "outside"],
    ["conftest.py::testdata", "outside"],
    ["tests/test_x.py::Base::test_common", "refuse"],
    ["tests/test_x.py::TestA::Inner::test_b", "refuse"],
    ["tests/base.py::Base::test_common", "refuse"],
    ["tests/helpers.py::testdata", "refuse"],
    ["lib.py::Conn::test_connection", "refuse"],
    // Django's tests.py (python_files = tests.py): collected there, so no mere helper.
    ["myapp/tests.py::test_b", "refuse"],
    ["myapp/testing_utils.py::test_helper", "refuse"],
  ])("dottedTestKind(%j) is %s", (id, want) => {
    const kind = dottedTestKind(id);
    expect(typeof kind === "string" ? kind : "refuse").toBe(want);
  });

  it("reads a helper named test* in a source module as no test, in every view of the index", () => {
    const idx = indexContexts(["", "lib.testdata", "tests.test_x.test_a"], modules);
    expect(idx.style).toBe("test-function");
    expect([...idx.testIds]).toEqual(["tests/test_x.py::test_a"]);
    expect(idx.nonTestContexts).toEqual(["", "lib.testdata"]);
    expect(idx.get("lib.testdata").testId).toBeNull();
    expect(idx.hasTest("lib.py::testdata")).toBe(false);
  });

  it("has style none when the only dotted names are such helpers", () => {
    const idx = indexContexts(["", "lib.testdata"], modules);
    expect(idx.style).toBe("none");
    expect(idx.testIds.size).toBe(0);
  });

  it("refuses inherited-looking names instead of charging a node id pytest never collected", () => {
    expect(() => indexContexts(["tests.base.Base.test_common"], modules)).toThrow(
      refusedWith(
        "test-function-names-unclear",
        /tests\/base\.py::Base::test_common \(tests\/base\.py is not named test_\*\.py.*inherited test method/,
      ),
    );
    expect(() => indexContexts(["tests.test_x.Base.test_common"], modules)).toThrow(
      refusedWith("test-function-names-unclear", /class Base is not named Test\*/),
    );
    // A unittest.TestCase pytest does collect: the message says why it is still refused,
    // not that pytest does not collect it.
    expect(() => indexContexts(["tests.test_x.QuestionTests.test_text"], modules)).toThrow(
      refusedWith(
        "test-function-names-unclear",
        '1 test_function context name(s) cannot be told from an inherited test method, e.g. "tests.test_x.QuestionTests.test_text" -> tests/test_x.py::QuestionTests::test_text (class QuestionTests is not named Test*: pytest collects it only as a unittest.TestCase, and a class a test inherits its methods from is named this way too); test_function names a method after the class that defines it, so the tests that ran an inherited test method cannot be told',
      ),
    );
  });
});

describe("indexContexts is lazy but exact", () => {
  const modules = buildModuleIndex([]);

  it("answers hasTest from exact names, and with static prefixes through a full parse", () => {
    const plain = indexContexts(["", "tests/a.py::t[x|y]|setup", "tests/a.py::u|run"], modules);
    expect(plain.hasTest("tests/a.py::t[x|y]")).toBe(true);
    expect(plain.hasTest("tests/a.py::t")).toBe(false);
    expect([...plain.testIds].sort()).toEqual(["tests/a.py::t[x|y]", "tests/a.py::u"]);
    expect(plain.nonTestContexts).toEqual([""]);

    // As coverage.py names them with [run] context = shardA (code outside tests: "shardA");
    // combined with data recorded without one, "" too.
    const prefixed = indexContexts(["shardA", "", "shardA|tests/a.py::t|run"], modules);
    expect(prefixed.hasTest("tests/a.py::t")).toBe(true);
    expect(prefixed.hasTest("shardA|tests/a.py::t")).toBe(false);
    expect([...prefixed.testIds]).toEqual(["tests/a.py::t"]);
  });

  it("reports style none when no name is a test", () => {
    const none = indexContexts(["", "py311"], modules);
    expect(none.style).toBe("none");
    expect(none.testIds.size).toBe(0);
    expect(none.get("py311")).toEqual({ raw: "py311", testId: null, phase: null });
  });
});

describe("indexContextOverview answers as indexContexts over every name", () => {
  const modules = buildModuleIndex([]);
  const PHASE = /\|(run|setup|teardown)$/;

  /** What a data source reports for these names, and how often it is asked. */
  function overviewOf(names: readonly string[]) {
    const plain = names.filter((n) => PHASE.test(n) && isPlainTestId(n.replace(PHASE, "")));
    const ids = new Set(plain.map((n) => n.replace(PHASE, "")));
    const calls = { knownTests: [] as string[][], allNames: 0 };
    const overview: ContextOverview = {
      plainNames: plain.length,
      plainTests: ids.size,
      others: names.filter((n) => !plain.includes(n)),
      knownTests(asked) {
        calls.knownTests.push([...asked]);
        return new Set(asked.filter((id) => ids.has(id)));
      },
      allNames() {
        calls.allNames++;
        return names;
      },
      testsWithoutRun: () => [],
    };
    return { overview, calls };
  }

  const NAMES = [
    "",
    "tests/a.py::t[x|y]|setup",
    "tests/a.py::t[x|y]|run",
    "tests/a.py::u|run",
    "tests/a.py::T::v[a::b|c]|teardown",
    "tests/é.py::w[€]|run",
    "py311",
  ];
  const ASKED = [
    "tests/a.py::t[x|y]",
    "tests/a.py::t",
    "tests/a.py::u",
    "tests/a.py::T::v[a::b|c]",
    "tests/é.py::w[€]",
    "shardA|tests/a.py::u",
    "tests/a.py",
    "",
  ];

  it("gives the same style, tests, counts and parses", () => {
    const full = indexContexts(NAMES, modules);
    const { overview, calls } = overviewOf(NAMES);
    const fast = indexContextOverview(overview, modules);
    expect(fast).not.toBeNull();
    if (fast === null) return;
    expect(fast.style).toBe(full.style);
    expect(fast.testCount).toBe(full.testIds.size);
    expect(fast.testCount).toBe(4);
    expect(fast.nonTestContexts).toEqual(full.nonTestContexts);
    for (const id of ASKED) expect([id, fast.hasTest(id)]).toEqual([id, full.hasTest(id)]);
    for (const name of NAMES) expect(fast.get(name)).toEqual(full.get(name));
    expect(calls.allNames).toBe(0);
    // Only globs need every id: then every name is read, once.
    expect([...fast.testIds].sort()).toEqual([...full.testIds].sort());
    expect([...fast.testIds].sort()).toEqual([...full.testIds].sort());
    expect(calls.allNames).toBe(1);
  });

  it("asks the data once for a preloaded list, and only for ids a plain name can hold", () => {
    const { overview, calls } = overviewOf(NAMES);
    const fast = indexContextOverview(overview, modules);
    fast?.preloadTests?.(ASKED);
    expect(calls.knownTests).toEqual([
      [
        "tests/a.py::t[x|y]",
        "tests/a.py::t",
        "tests/a.py::u",
        "tests/a.py::T::v[a::b|c]",
        "tests/é.py::w[€]",
      ],
    ]);
    for (const id of ASKED) fast?.hasTest(id);
    expect(calls.knownTests).toHaveLength(1);
    expect(fast?.hasTest("tests/b.py::new")).toBe(false);
    expect(calls.knownTests).toEqual([expect.anything(), ["tests/b.py::new"]]);
  });

  it("resolveFrozen through it matches resolveFrozen through the full index", () => {
    const list = parseFrozenList(
      { frozen: [...ASKED.filter((a) => a !== ""), "tests/a.py::*"] },
      "q",
    );
    const full = resolveFrozen(list, indexContexts(NAMES, modules));
    const fast = indexContextOverview(overviewOf(NAMES).overview, modules);
    expect(fast).not.toBeNull();
    if (fast === null) return;
    const viaOverview = resolveFrozen(list, fast);
    expect([...viaOverview.frozenTests].sort()).toEqual([...full.frozenTests].sort());
    expect(viaOverview.unresolved).toEqual(full.unresolved);
    expect(viaOverview.unresolved).toEqual(["tests/a.py::t", "shardA|tests/a.py::u", "tests/a.py"]);
  });

  it.each([
    ["a static context prefix", ["", "shardA|tests/a.py::t|run", "tests/a.py::u|run"]],
    ["an empty part before the first '::'", ["x|::t|run", "tests/a.py::u|run"]],
    ["a dotted test_function name", ["tests.test_a.test_x", "tests/a.py::u|run"]],
    ["no plain name at all", ["", "py311"]],
  ])("leaves data with %s to the full index (null)", (_what, names) => {
    expect(indexContextOverview(overviewOf(names).overview, modules)).toBeNull();
  });
});

describe("mightNameTest and isPlainTestId", () => {
  it.each([
    ["tests/a.py::t|run", true],
    ["shardA|tests/a.py::t|run", true],
    ["tests.test_a.test_x", true],
    ["", false],
    ["py311", false],
    ["tests/a.py::t|call", false],
    ["::t|run", false],
  ])("mightNameTest(%j) is %s", (name, want) => {
    expect(mightNameTest(name)).toBe(want);
  });

  it.each([
    ["tests/a.py::t", true],
    ["tests/a.py::t[a|b]", true],
    ["a::b", true],
    ["::t", false],
    ["tests/a.py", false],
    ["shardA|tests/a.py::t", false],
    ["", false],
  ])("isPlainTestId(%j) is %s", (id, want) => {
    expect(isPlainTestId(id)).toBe(want);
  });
});

describe("test_function names checked against the source", () => {
  const files = {
    "mypkg/__init__.py": "",
    "mypkg/utils.py":
      "def retry(fn):\n    def wrapper(*a):\n        return fn(*a)\n    return wrapper\n",
    "mypkg/data.py": "async def testdata():\n    return 1\n",
    "tests/test_api.py": "@retry\ndef test_retry():\n    pass\n",
    "checks/check_api.py": "def test_api():\n    pass\n",
  };
  const index = (extra: Record<string, string> = {}) => {
    const all: Record<string, string> = { ...files, ...extra };
    return buildModuleIndex(Object.keys(all), readerOf(all));
  };

  it("reads a name as a helper only where its module defines that function", () => {
    expect(indexContexts(["mypkg.data.testdata"], index()).style).toBe("none");
    // The wrapper of a decorator without functools.wraps gives the test the decorator's module.
    expect(() => indexContexts(["mypkg.utils.test_retry"], index())).toThrow(
      refusedWith(
        "test-function-names-unclear",
        'test_function context name(s) in source modules may name a test, not a helper that ran outside tests, e.g. "mypkg.utils.test_retry" -> mypkg/utils.py::test_retry (mypkg/utils.py defines no module-level function test_retry: a decorator without functools.wraps gives a test its own module\'s name)',
      ),
    );
  });

  it.each([
    ["pytest.ini", "[pytest]\npython_files = check_*.py test_*.py\n"],
    ["tox.ini", "[pytest]\npython_files =\n    test_*.py\n    check_*.py\n"],
    ["pyproject.toml", '[tool.pytest.ini_options]\npython_files = ["check_*.py"]\n'],
    // A TOML string: pytest splits it on whitespace.
    ["pyproject.toml", '[tool.pytest.ini_options]\npython_files = "test_*.py check_*.py"\n'],
    ["setup.cfg", "[tool:pytest]\naddopts = -o python_files=check_*.py -q\n"],
    ["pytest.ini", "[pytest]\npython_files =\n"],
  ])(
    "refuses a helper-looking name in a module that %s's python_files may collect",
    (file, text) => {
      expect(() => indexContexts(["check_api.test_api"], index({ [file]: text }))).toThrow(
        refusedWith(
          "test-function-names-unclear",
          "(the python_files that pytest's configuration sets may collect checks/check_api.py)",
        ),
      );
    },
  );

  it("reads python_files from the file pytest reads, by pytest 7's and pytest 9's rules", () => {
    const refusal =
      "(the python_files that pytest's configuration sets may collect checks/check_api.py)";
    // pytest 9 takes its settings from pytest.toml (pytest 7 does not read it).
    expect(() =>
      indexContexts(
        ["check_api.test_api"],
        index({ "pytest.toml": '[pytest]\npython_files = ["check_*.py"]\n' }),
      ),
    ).toThrow(refusedWith("test-function-names-unclear", refusal));
    // pytest reads pytest.ini, not tox.ini beside it; a comment or another tool's section
    // sets nothing.
    for (const extra of <Record<string, string>[]>[
      { "pytest.ini": "[pytest]\n", "tox.ini": "[pytest]\npython_files = check_*.py\n" },
      { "setup.cfg": "[flake8]\n# python_files = check_*.py\n" },
    ]) {
      expect(indexContexts(["check_api.test_api"], index(extra)).style).toBe("none");
    }
  });

  it("keeps helpers whose module the configured python_files do not collect", () => {
    const idx = indexContexts(
      ["check_api.test_api"],
      index({ "pytest.ini": "[pytest]\npython_files = test_*.py\n" }),
    );
    expect(idx.style).toBe("none");
  });

  it("refuses without a reader instead of guessing", () => {
    expect(() =>
      indexContexts(["check_api.test_api"], buildModuleIndex(Object.keys(files))),
    ).toThrow(
      refusedWith(
        "test-function-names-unclear",
        "checks/check_api.py was not read to check that it defines test_api",
      ),
    );
  });
});

describe("test_function names of inherited test methods", () => {
  const shapes =
    "class TestShape:\n    def test_area(self):\n        pass\n\nclass TestSquare(TestShape):\n    def test_name(self):\n        pass\n";
  const index = (all: Record<string, string>) => buildModuleIndex(Object.keys(all), readerOf(all));
  const names = [
    "",
    "tests.test_shapes.TestShape.test_area",
    "tests.test_shapes.TestSquare.test_name",
  ];

  it("refuses a method whose class another class inherits from (same file)", () => {
    expect(() => indexContexts(names, index({ "tests/test_shapes.py": shapes }))).toThrow(
      refusedWith(
        "test-function-inherited",
        'class TestSquare (tests/test_shapes.py) inherits from TestShape, and test_function names an inherited test method after the class that defines it, so "tests.test_shapes.TestShape.test_area" stands for runs of both classes that cannot be told apart',
      ),
    );
  });

  it("follows bases through other files and classes not named Test*", () => {
    const all = {
      "tests/test_base.py":
        "import unittest\nclass TestBase(unittest.TestCase):\n    def test_x(self): pass\n",
      "tests/mixins.py":
        "from tests.test_base import TestBase\nclass Mixin(\n    TestBase,\n):\n    pass\n",
      "tests/test_sub.py":
        "from tests import mixins\nclass TestSub(mixins.Mixin, metaclass=M):\n    pass\n",
    };
    expect(() => indexContexts(["tests.test_base.TestBase.test_x"], index(all))).toThrow(
      refusedWith(
        "test-function-inherited",
        "class Mixin (tests/mixins.py) inherits from TestBase",
      ),
    );
  });

  it("maps test classes whose bases hold no test the data names", () => {
    const all = {
      "tests/test_shapes.py":
        "import unittest\nclass Helper(object):\n    pass\nclass TestShape(Helper, unittest.TestCase):\n    def test_area(self): pass\n",
    };
    const idx = indexContexts(["", "tests.test_shapes.TestShape.test_area"], index(all));
    expect([...idx.testIds]).toEqual(["tests/test_shapes.py::TestShape::test_area"]);
  });

  it("refuses class test methods without a reader", () => {
    expect(() => indexContexts(names, buildModuleIndex(["tests/test_shapes.py"]))).toThrow(
      refusedWith("test-function-inherited", "the test files were not read"),
    );
  });
});

describe("test_function names that are no repository module", () => {
  const all = { "tests/test_plain.py": "def test_plain(): pass\n" };
  const modules = buildModuleIndex(Object.keys(all), readerOf(all));

  it("reads unittest's testPartExecutor as no test (it yields before the test method runs)", () => {
    const idx = indexContexts(
      ["", "unittest.case._Outcome.testPartExecutor", "tests.test_plain.test_plain"],
      modules,
    );
    expect([...idx.testIds]).toEqual(["tests/test_plain.py::test_plain"]);
    expect(idx.get("unittest.case._Outcome.testPartExecutor").testId).toBeNull();
  });

  it("refuses a library function named test*, under which a test body may have run", () => {
    const hypothesis = "hypothesis.internal.conjecture.engine.ConjectureRunner.test_function";
    expect(() => indexContexts([hypothesis, "tests.test_plain.test_plain"], modules)).toThrow(
      refusedWith(
        "test-function-names-unclear",
        `1 test_function context name(s) name a module outside the repository, e.g. "${hypothesis}": a library function named test* (such as Hypothesis's @given runner) started the context, so the test that ran under it cannot be told`,
      ),
    );
    // Nothing in the repository at all: more likely the wrong --test-root.
    expect(() => indexContexts([hypothesis], modules)).toThrow(
      refusedWith("test-function-names-unmapped", /match no test file/),
    );
  });
});

describe("test_function names and packages", () => {
  it("a file inside a package is not the top-level module of the same name", () => {
    const modules = buildModuleIndex([
      "myapp/__init__.py",
      "myapp/tests.py",
      "tests/__init__.py",
      "tests/test_x.py",
    ]);
    expect(dottedCandidates("tests.test_x.test_d", modules)).toEqual(["tests/test_x.py::test_d"]);
    // Alone it stays a candidate: a sys.path entry may make it so.
    expect(
      dottedCandidates(
        "tests.helper_x.test_d",
        buildModuleIndex(["myapp/__init__.py", "myapp/tests.py"]),
      ),
    ).toEqual(["myapp/tests.py::helper_x::test_d"]);
    // Without myapp/__init__.py both fit.
    expect(
      dottedCandidates(
        "tests.test_x.test_d",
        buildModuleIndex(["myapp/tests.py", "tests/test_x.py"]),
      ).sort(),
    ).toEqual(["myapp/tests.py::test_x::test_d", "tests/test_x.py::test_d"]);
  });

  it("names a module by every package above it", () => {
    const modules = buildModuleIndex([
      "x/src/__init__.py",
      "x/src/app/__init__.py",
      "x/src/app/checks/__init__.py",
      "x/src/app/checks/test_x.py",
      "y/src/app/checks/test_x.py",
    ]);
    // x's module is src.app.checks.test_x (its three packages); y's, without packages, test_x.
    expect(dottedCandidates("src.app.checks.test_x.test_d", modules)).toEqual([
      "x/src/app/checks/test_x.py::test_d",
    ]);
  });

  it("names --test-root in the fix for names that fit two directories", () => {
    const modules = buildModuleIndex(["svc_a/tests/test_api.py", "svc_b/tests/test_api.py"]);
    expect(() => indexContexts(["test_api.test_api"], modules)).toThrow(
      expect.objectContaining({
        fix: "if pytest ran in a subdirectory, give it as --test-root (names are relative to it); else record node ids instead: run pytest --cov --cov-context=test (pytest-cov)",
      }),
    );
  });
});
