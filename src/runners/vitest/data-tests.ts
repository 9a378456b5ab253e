// The tests of a Vitest run as the audit reads them: ids `FILE::SUITE > ... > TEST`, two tests
// of one file under one id (both frozen by a freeze of that id: their lines are those of
// either), which of them never ran their body, and the context names their lines are given
// under, `<id>|run`, `<id>|setup`, `<id>|teardown` as pytest-cov names a node id's phases, with
// "" for code run outside any test. The phase is after the last "|": an id may hold "|".

import { type FrozenList, lookupOf, resolveFrozen } from "../../core/frozen.js";
import type { ParsedContext } from "../../core/model.js";
import { PHASES, type Phase, type VitestTest } from "./data-format.js";

/** The name of the lines run outside any test: at import, collection, between tests. */
export const OUTSIDE_TESTS = "";

export function contextName(id: string, phase: Phase): string {
  return `${id}|${phase}`;
}

/** The run's tests, by id. */
export interface VitestTests {
  readonly tests: readonly VitestTest[];
  /** Every id, each once (a duplicated id stands for all its tests). */
  readonly ids: ReadonlySet<string>;
  /** The indices of the tests under an id (two or more for a duplicated id). */
  indicesOf(id: string): readonly number[];
  /**
   * Of `ids`, those with a test that never ran its body (skipped, todo, not run, stopped by a
   * failing hook, or not known to have run it): what it would have run is unknown. A
   * duplicated id is listed when one of its tests did not run.
   */
  testsWithoutRun(ids: readonly string[]): string[];
}

/** States in which a test's body did not run (Vitest's task states). */
const NOT_RUN_STATES = new Set(["skip", "todo", "queued", "pending", "unknown"]);

export function indexVitestTests(tests: readonly VitestTest[]): VitestTests {
  const byId = new Map<string, number[]>();
  tests.forEach((test, i) => {
    const indices = byId.get(test.id);
    if (indices === undefined) byId.set(test.id, [i]);
    else indices.push(i);
  });
  // A test that skipped itself (ctx.skip()) entered its body and left it part-way: state skip.
  const ranBody = (test: VitestTest) =>
    test.body && test.mode === "run" && !NOT_RUN_STATES.has(test.state);
  return {
    tests,
    ids: new Set(byId.keys()),
    indicesOf: (id) => byId.get(id) ?? [],
    testsWithoutRun: (ids) =>
      ids.filter((id) => (byId.get(id) ?? []).some((i) => !ranBody(tests[i] as VitestTest))),
  };
}

/** A frozen list against the run's tests: the ids it freezes, the indices of their tests. */
export interface FrozenVitestTests {
  ids: Set<string>;
  indices: Set<number>;
  /** Entries that match no test of the run. */
  unresolved: string[];
}

/**
 * Which tests a frozen list freezes: exact ids and "*" globs as for pytest (one matcher,
 * resolveFrozen); a duplicated id freezes every test under it.
 */
export function frozenVitestTests(list: FrozenList, tests: VitestTests): FrozenVitestTests {
  const resolution = resolveFrozen(list, lookupOf(tests.ids));
  const indices = new Set<number>();
  for (const id of resolution.frozenTests) for (const i of tests.indicesOf(id)) indices.add(i);
  return { ids: resolution.frozenTests, indices, unresolved: resolution.unresolved };
}

/**
 * The context names read as tests and phases: the index the audit judges lines with (the
 * audit's ContextIndex but its `style`, which names the runner's data in the report).
 */
export interface VitestContextIndex {
  get(name: string): ParsedContext;
  hasTest(id: string): boolean;
  readonly testIds: ReadonlySet<string>;
  readonly nonTestContexts: readonly string[];
  readonly testCount: number;
}

export function vitestContextIndex(tests: VitestTests): VitestContextIndex {
  const parsed = new Map<string, ParsedContext>();
  return {
    get(name) {
      let context = parsed.get(name);
      if (context === undefined) {
        context = parseContextName(name, tests.ids);
        parsed.set(name, context);
      }
      return context;
    },
    hasTest: (id) => tests.ids.has(id),
    testIds: tests.ids,
    nonTestContexts: [OUTSIDE_TESTS],
    testCount: tests.ids.size,
  };
}

/** `<id>|<phase>` of a test of the run, else no test. */
function parseContextName(raw: string, ids: ReadonlySet<string>): ParsedContext {
  const bar = raw.lastIndexOf("|");
  const id = raw.slice(0, bar);
  const phase = raw.slice(bar + 1) as Phase;
  if (bar < 0 || !PHASES.includes(phase) || !ids.has(id)) return { raw, testId: null, phase: null };
  return { raw, testId: id, phase };
}
