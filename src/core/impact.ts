// What freezing some tests would withdraw, before anyone freezes them: the source lines for
// which those tests are the only live cover (after the freeze, no live test would execute
// them), from per-test coverage. Pure: the command reads the data and passes it in.

import type { ContextIndex } from "./model.js";

/** A test id as written, matched exactly or as the cases of a parametrized test. */
export function matchesTest(written: string, testId: string): boolean {
  return testId === written || (testId.startsWith(`${written}[`) && testId.endsWith("]"));
}

/** The data's test ids that each written id stands for; ids matching none are returned apart. */
export function resolveTestIds(
  written: readonly string[],
  known: Iterable<string>,
): { ids: Set<string>; unknown: string[] } {
  const all = [...known];
  const ids = new Set<string>();
  const unknown: string[] = [];
  for (const w of written) {
    const hits = all.filter((id) => matchesTest(w, id));
    if (hits.length === 0) unknown.push(w);
    for (const h of hits) ids.add(h);
  }
  return { ids, unknown };
}

export interface ImpactFileInput {
  /** Repository path. */
  path: string;
  /** Line -> context names that executed it. */
  executed: ReadonlyMap<number, readonly string[]>;
}

export interface ImpactInput {
  /** The tests that would be frozen (data test ids). */
  targets: ReadonlySet<string>;
  /** Tests frozen already (data test ids): they defend nothing now either. */
  frozen: ReadonlySet<string>;
  /**
   * Tests judged apart, neither a target nor a live cover (a freeze's compensating property,
   * whose share of what the freeze withdraws is measured on its own).
   */
  setAside?: ReadonlySet<string>;
  contexts: Pick<ContextIndex, "get">;
  files: readonly ImpactFileInput[];
}

export interface ImpactFile {
  path: string;
  /** Lines the targets execute and no other live test executes in its body; ascending. */
  lines: number[];
  /** Of those, the lines a live test still reaches in its setup/teardown (fixture-only after). */
  fixtureOnly: number[];
}

/**
 * Lines only the targets defend. A live test that reaches a line only in setup/teardown does
 * not defend it (the shadow audit calls such a line fixture-only), so the line is still
 * withdrawn, and listed in `fixtureOnly` too.
 */
export function withdrawnLines(input: ImpactInput): ImpactFile[] {
  const out: ImpactFile[] = [];
  for (const file of input.files) {
    const lines: number[] = [];
    const fixtureOnly: number[] = [];
    for (const [line, names] of file.executed) {
      if (line <= 0) continue;
      let byTarget = false;
      let liveBody = false;
      let liveFixture = false;
      for (const name of names) {
        const ctx = input.contexts.get(name);
        const id = ctx.testId;
        if (id === null) continue;
        if (input.targets.has(id)) byTarget = true;
        else if (input.frozen.has(id) || input.setAside?.has(id)) continue;
        else if (ctx.phase === "setup" || ctx.phase === "teardown") liveFixture = true;
        else liveBody = true;
      }
      if (byTarget && !liveBody) {
        lines.push(line);
        if (liveFixture) fixtureOnly.push(line);
      }
    }
    if (lines.length > 0) {
      out.push({
        path: file.path,
        lines: lines.sort((a, b) => a - b),
        fixtureOnly: fixtureOnly.sort((a, b) => a - b),
      });
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
