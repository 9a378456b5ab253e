// The pure parts of mutant runs: which tests run against a statement, the mutator's answer, the
// splice of a mutant into a file, the seeded sample, a run's outcomes and the judgment.

import { describe, expect, it } from "vitest";
import {
  calibrationMutantSentence,
  countMutants,
  defaultTimeoutSeconds,
  judgeMutant,
  killedFor,
  kindMutantCounts,
  mutantSentence,
  mutationSites,
  outcomeOf,
  readMutatorAnswer,
  readOutcomes,
  type SelectedTest,
  sampleMutants,
  splice,
} from "../../src/core/mutants.js";
import { indexContexts } from "../../src/runners/pytest/contexts.js";
import { nodeIdArgument } from "../../src/runners/pytest/node-ids.js";

const T = "tests/test_a.py::test_target";
const L = "tests/test_a.py::test_live";
const F = "tests/test_a.py::test_frozen";
const P = "tests/test_props.py::test_property";

describe("mutationSites", () => {
  const lines: Record<number, string[]> = {
    3: [`${T}|run`, `${L}|setup`, `${F}|run`, `${P}|run`, ""],
    4: [`${T}|run`, `${T}|teardown`],
    9: [`${L}|run`],
  };
  const executed = new Map(Object.entries(lines).map(([k, v]) => [Number(k), v]));
  const contexts = indexContexts([...new Set(Object.values(lines).flat())], () => new Map());
  const sites = (property: string[], frozen = [F]) =>
    mutationSites({
      files: [{ path: "app/a.py", lines: [3, 4] }],
      executed: new Map([["app/a.py", executed]]),
      contexts,
      targets: new Set([T]),
      frozen: new Set(frozen),
      property: new Set(property),
    });

  it("runs the targets, the live tests (a fixture that reaches the line too) and the property; not the frozen tests", () => {
    expect(sites([P])).toEqual([
      {
        path: "app/a.py",
        line: 3,
        tests: [
          { id: L, role: "live" },
          { id: T, role: "target" },
          { id: P, role: "property" },
        ],
      },
      { path: "app/a.py", line: 4, tests: [{ id: T, role: "target" }] },
    ]);
  });

  it("without a property, the property's test is a live test like any other", () => {
    expect(sites([])[0]?.tests).toContainEqual({ id: P, role: "live" });
  });

  it("a property the ledger freezes guards nothing and does not run", () => {
    expect(sites([P], [F, P])[0]?.tests.map((t) => t.id)).toEqual([L, T]);
  });
});

const ANSWER = {
  version: 1,
  file: "/repo/app/a.py",
  mutants: [
    {
      line: 2,
      kind: "comparison",
      description: "`a < b` -> `a <= b`",
      startLine: 2,
      endLine: 2,
      text: "    if a <= b:\n",
    },
  ],
  probe: { startLine: 1, endLine: 1, text: "raise ImportError('probe')\n" },
  unmutable: 1,
};

describe("readMutatorAnswer", () => {
  it("reads the mutants with the repository path, the probe and the unmutable count", () => {
    expect(readMutatorAnswer(JSON.stringify(ANSWER), "app/a.py")).toEqual({
      mutants: [
        {
          path: "app/a.py",
          line: 2,
          kind: "comparison",
          description: "`a < b` -> `a <= b`",
          startLine: 2,
          endLine: 2,
          text: "    if a <= b:\n",
        },
      ],
      probe: ANSWER.probe,
      unmutable: 1,
    });
  });

  it.each([
    ["not JSON", "{", /is not JSON/],
    ["another version", JSON.stringify({ ...ANSWER, version: 2 }), /its version is 2, not 1/],
    [
      "an unknown kind",
      JSON.stringify({ ...ANSWER, mutants: [{ ...ANSWER.mutants[0], kind: "swap" }] }),
      /unknown kind "swap"/,
    ],
    [
      "a range that ends before it starts",
      JSON.stringify({ ...ANSWER, mutants: [{ ...ANSWER.mutants[0], startLine: 3, endLine: 1 }] }),
      /mutant 1 has no line range/,
    ],
    ["no probe", JSON.stringify({ ...ANSWER, probe: undefined }), /the probe is not an object/],
  ])("refuses %s", (_, text, message) => {
    expect(() => readMutatorAnswer(text, "app/a.py")).toThrow(message);
    try {
      readMutatorAnswer(text, "app/a.py");
    } catch (error) {
      expect((error as { code: string }).code).toBe("mutator-output-unreadable");
    }
  });
});

describe("splice", () => {
  it("replaces whole lines and keeps every other line's own line break", () => {
    const text = "a\r\nb\nc\rd";
    expect(splice(text, { startLine: 2, endLine: 3, text: "X\n" })).toBe("a\r\nX\nd");
    expect(splice(text, { startLine: 4, endLine: 4, text: "Y" })).toBe("a\r\nb\nc\rY");
    expect(splice(text, { startLine: 1, endLine: 1, text: "" })).toBe("b\nc\rd");
  });

  it("inserts when the range ends before it starts (an empty file's probe)", () => {
    expect(splice("", { startLine: 1, endLine: 0, text: "raise X\n" })).toBe("raise X\n");
    expect(splice("a\n", { startLine: 2, endLine: 1, text: "b\n" })).toBe("a\nb\n");
  });

  it("is null for lines the text does not have", () => {
    expect(splice("a\nb\n", { startLine: 3, endLine: 3, text: "x\n" })).toBeNull();
    expect(splice("a\n", { startLine: 0, endLine: 1, text: "x\n" })).toBeNull();
  });
});

describe("sampleMutants", () => {
  const all = Array.from({ length: 40 }, (_, i) => i);

  it("keeps all when there are no more than max", () => {
    expect(sampleMutants(all.slice(0, 5), 5, 1)).toEqual([0, 1, 2, 3, 4]);
  });

  it("draws max of them by seed, in their own order, the same on every call", () => {
    const a = sampleMutants(all, 7, 1);
    expect(a).toHaveLength(7);
    expect([...a].sort((x, y) => x - y)).toEqual(a);
    expect(sampleMutants(all, 7, 1)).toEqual(a);
    expect(sampleMutants(all, 7, 2)).not.toEqual(a);
  });

  it("draws a smaller sample from the same draw: it is part of the larger one", () => {
    const large = sampleMutants(all, 20, 3);
    for (const max of [1, 3, 10]) {
      for (const m of sampleMutants(all, max, 3)) expect(large).toContain(m);
    }
  });

  it("keeps every group's share, in proportion, at least one each", () => {
    // 2 of group "b" among 40: a sample of 4 drawn at random would often miss them.
    const groupOf = (i: number) => (i % 20 === 7 ? "b" : "a");
    for (const seed of [1, 2, 3, 4, 5, 6, 7, 8]) {
      const picked = sampleMutants(all, 4, seed, groupOf);
      expect(picked).toHaveLength(4);
      expect(picked.filter((i) => groupOf(i) === "b")).toHaveLength(1);
      expect([...picked].sort((x, y) => x - y)).toEqual(picked);
    }
    // In proportion: 30 of "a", 10 of "b", a sample of 8 keeps 6 and 2.
    const quarter = (i: number) => (i % 4 === 0 ? "b" : "a");
    const eight = sampleMutants(all, 8, 1, quarter);
    expect(eight.filter((i) => quarter(i) === "b")).toHaveLength(2);
    // Fewer places than groups: the largest shares get them.
    const three = (i: number) => ["a", "b", "c"][i % 3] as string;
    expect(sampleMutants(all, 2, 1, three)).toHaveLength(2);
    // One group draws as no group does.
    expect(sampleMutants(all, 7, 1, () => "x")).toEqual(sampleMutants(all, 7, 1));
  });
});

describe("outcomes", () => {
  const outcomes = readOutcomes(
    JSON.stringify({
      version: 1,
      outcomes: {
        [T]: "passed",
        [`${L}[1]`]: "passed",
        [`${L}[2]`]: "failed",
        "tests/test_b.py": "error",
        [P]: "skipped",
      },
    }),
  );

  it("reads the recorder's file, and nothing else", () => {
    expect(outcomes?.get(T)).toBe("passed");
    expect(readOutcomes("{}")).toBeNull();
    expect(readOutcomes(JSON.stringify({ version: 1, outcomes: { [T]: "maybe" } }))).toBeNull();
    expect(readOutcomes("not json")).toBeNull();
  });

  it("a test's own outcome, its cases' (failing when one fails), or its collector's failure", () => {
    if (outcomes === null) throw new Error("unread");
    expect(outcomeOf(T, outcomes)).toBe("passed");
    expect(outcomeOf(L, outcomes)).toBe("failed");
    expect(outcomeOf("tests/test_b.py::test_x", outcomes)).toBe("error");
    expect(outcomeOf("tests/test_c.py::test_x", outcomes)).toBeNull();
  });

  it("a kill is a failure, an error, or a test that did not run; no outcomes kill for all", () => {
    if (outcomes === null) throw new Error("unread");
    expect(killedFor(T, outcomes)).toBe(false);
    expect(killedFor(P, outcomes)).toBe(false);
    expect(killedFor(L, outcomes)).toBe(true);
    expect(killedFor("tests/test_b.py::test_x", outcomes)).toBe(true);
    expect(killedFor("tests/test_c.py::test_x", outcomes)).toBe(true);
    expect(killedFor(T, null)).toBe(true);
  });
});

describe("judgeMutant and the counts", () => {
  const target: SelectedTest = { id: T, role: "target" };
  const live: SelectedTest = { id: L, role: "live" };
  const property: SelectedTest = { id: P, role: "property" };
  const tests = [live, target, property];
  const run = (failed: string[]) => ({
    timedOut: false as const,
    outcomes: new Map(
      tests.map((t) => [t.id, failed.includes(t.id) ? "failed" : "passed"] as const),
    ),
  });

  it("names who killed it: a live test first, then the property, then the targets alone", () => {
    expect(judgeMutant(tests, run([L, T, P])).class).toBe("live");
    expect(judgeMutant(tests, run([T, P])).class).toBe("property");
    expect(judgeMutant(tests, run([P])).class).toBe("property");
    expect(judgeMutant(tests, run([T]))).toEqual({ class: "frozen", killedBy: [target] });
    expect(judgeMutant(tests, run([]))).toEqual({ class: "survived", killedBy: [] });
    expect(judgeMutant(tests, { timedOut: true }).class).toBe("timeout");
    expect(judgeMutant(tests, { timedOut: false, outcomes: null }).killedBy).toEqual(tests);
    expect(judgeMutant([], null).class).toBe("unjudged");
  });

  it("counts M, K and J, and says them in one sentence", () => {
    const judged = [
      judgeMutant(tests, run([L, T])), // killed, not withdrawn
      judgeMutant(tests, run([T])), // withdrawn
      judgeMutant(tests, run([T, P])), // withdrawn, recovered
      judgeMutant(tests, run([P])), // killed by the property alone: not withdrawn
      judgeMutant(tests, run([])),
      judgeMutant(tests, { timedOut: true }),
    ];
    const counts = countMutants(judged, true);
    expect(counts).toMatchObject({ mutants: 6, killed: 4, withdrawn: 2, recovered: 1 });
    expect(counts.classes).toEqual({
      frozen: 1,
      property: 2,
      live: 1,
      survived: 1,
      timeout: 1,
      unjudged: 0,
    });
    expect(mutantSentence([T], counts)).toBe(
      `freezing ${T} withdraws 2 of 4 mutant kills; its property recovers 1`,
    );
    expect(mutantSentence([T, L], countMutants(judged.slice(1, 2), false))).toBe(
      `freezing ${T}, ${L} withdraws 1 of 1 mutant kill`,
    );
  });

  it("says what the live tests kill on control statements and the frozen ones on shadow statements", () => {
    const control = [L].map((id) => ({ id, role: "live" as const }));
    const shadow = [F].map((id) => ({ id, role: "target" as const }));
    const counts = {
      control: kindMutantCounts([
        judgeMutant(control, run([L])),
        judgeMutant(control, run([])),
        judgeMutant(control, { timedOut: true }),
      ]),
      shadow: kindMutantCounts([judgeMutant(shadow, run([F])), judgeMutant(shadow, run([F]))]),
    };
    expect(counts.control).toEqual({ mutants: 3, killed: 1, survived: 1, timeout: 1, unjudged: 0 });
    expect(calibrationMutantSentence(counts)).toBe(
      "of 3 mutants of control statements, live tests kill 1 and 1 survives (executed, not defended); of 2 mutants of shadow statements, only frozen tests kill 2 (the kills the freezes withdraw)",
    );
    const none = kindMutantCounts([]);
    expect(calibrationMutantSentence({ control: none, shadow: counts.shadow })).toBe(
      "no mutant of a control statement ran; of 2 mutants of shadow statements, only frozen tests kill 2 (the kills the freezes withdraw)",
    );
  });

  it("times a mutant run out at three times the unchanged run, plus 10 s", () => {
    expect(defaultTimeoutSeconds(2500)).toBe(18);
  });
});

describe("nodeIdArgument", () => {
  it("writes the node id's file relative to where pytest runs", () => {
    expect(nodeIdArgument("tests/t.py::test_x[a/b::c]", "", "")).toBe("tests/t.py::test_x[a/b::c]");
    expect(nodeIdArgument("tests/t.py::test_x", "svc/", "svc")).toBe("tests/t.py::test_x");
    expect(nodeIdArgument("tests/t.py::test_x", "svc/", "")).toBe("svc/tests/t.py::test_x");
    expect(nodeIdArgument("tests/t.py::test_x", "", "app")).toBe("../tests/t.py::test_x");
  });
});
