// What a freeze's compensating property guards of what the freeze withdrew. The withdrawn
// lines are impact's (withdrawnLines): the lines the frozen test executes and no live test
// executes in its body, with the property set aside, since it is the deposit that should now
// guard them. Of those, the lines the property executes in its body are compensated. Pure:
// the caller reads the per-test data and passes it in.

import type { Finding } from "./findings.js";
import { type ImpactFileInput, matchesTest, withdrawnLines } from "./impact.js";
import type { ContextIndex } from "./model.js";

/** A freeze as this needs it: the entry that freezes tests, and the property it deposits. */
export interface CompensatedFreeze {
  testId: string;
  property: string;
}

export interface CompensationInput {
  freezes: readonly CompensatedFreeze[];
  /** The data's frozen tests -> the freeze entry (`testId`) that freezes each. */
  frozenBy: ReadonlyMap<string, string>;
  /** Tests that defend nothing for another reason (muted by an xfail outside the ledger). */
  muted?: ReadonlySet<string>;
  /** Of the data's tests, those that never ran their body (only setup or teardown). */
  withoutRun: ReadonlySet<string>;
  contexts: Pick<ContextIndex, "get" | "testIds">;
  files: readonly ImpactFileInput[];
}

/**
 * `measured`: both figures are known. `frozen-test-not-in-data`: no test of the data is frozen
 * by the entry, so what it withdraws is unknown. `property-not-in-data`: the property has no
 * test in the data that ran its body, so what it executes is unknown. `no-property`: the
 * freeze names none.
 */
export type CompensationState =
  | "measured"
  | "frozen-test-not-in-data"
  | "property-not-in-data"
  | "no-property";

export interface CompensationFile {
  path: string;
  /** Withdrawn lines, ascending. */
  withdrawn: number[];
  /** Of those, the lines the property executes, ascending. */
  compensated: number[];
}

export interface Compensation {
  testId: string;
  property: string;
  state: CompensationState;
  /** Withdrawn lines; null when not known (the frozen test is not in the data). */
  withdrawn: number | null;
  /** Of those, the lines the property executes; null when not known. */
  compensated: number | null;
  /** compensated / withdrawn; null when either is unknown or nothing is withdrawn. */
  ratio: number | null;
  /** Per file, for the files with a withdrawn line (empty unless measured). */
  files: CompensationFile[];
}

const isFixture = (phase: string | null) => phase === "setup" || phase === "teardown";

export function measureCompensation(input: CompensationInput): Compensation[] {
  const frozen = new Set([...input.frozenBy.keys(), ...(input.muted ?? [])]);
  const executedIn = new Map(input.files.map((f) => [f.path, f.executed]));
  return input.freezes.map((freeze) => {
    const base = { testId: freeze.testId, property: freeze.property };
    const unknown = { withdrawn: null, compensated: null, ratio: null, files: [] };
    if (freeze.property.trim() === "") return { ...base, state: "no-property", ...unknown };
    const targets = new Set(
      [...input.frozenBy].filter(([, entry]) => entry === freeze.testId).map(([id]) => id),
    );
    if (targets.size === 0) return { ...base, state: "frozen-test-not-in-data", ...unknown };
    const propertyTests = new Set(
      [...input.contexts.testIds].filter(
        (id) => matchesTest(freeze.property, id) && !input.withoutRun.has(id),
      ),
    );
    if (propertyTests.size === 0) {
      return { ...base, state: "property-not-in-data", ...unknown };
    }
    // A frozen or muted property guards nothing (the deposit gate says why): it compensates 0.
    const guarding = [...propertyTests].filter((id) => !frozen.has(id));
    const files = withdrawnLines({
      targets,
      frozen,
      setAside: propertyTests,
      contexts: input.contexts,
      files: input.files,
    }).map((file) => {
      const executed = executedIn.get(file.path);
      const compensated = file.lines.filter((line) =>
        (executed?.get(line) ?? []).some((name) => {
          const ctx = input.contexts.get(name);
          return ctx.testId !== null && guarding.includes(ctx.testId) && !isFixture(ctx.phase);
        }),
      );
      return { path: file.path, withdrawn: file.lines, compensated };
    });
    const withdrawn = files.reduce((n, f) => n + f.withdrawn.length, 0);
    const compensated = files.reduce((n, f) => n + f.compensated.length, 0);
    return {
      ...base,
      state: "measured",
      withdrawn,
      compensated,
      ratio: withdrawn === 0 ? null : compensated / withdrawn,
      files,
    };
  });
}

/** "3 of 4 withdrawn lines (75%)", or why there is no figure. */
export function compensationWords(c: Compensation): string {
  switch (c.state) {
    case "no-property":
      return "no compensating property is named";
    case "frozen-test-not-in-data":
      return `not measured: the coverage data has no test that ${c.testId} freezes, so what it withdraws is unknown`;
    case "property-not-in-data":
      return `not measured: the coverage data does not show ${c.property} running its body, so what it executes is unknown`;
    case "measured":
      if (c.withdrawn === 0) {
        return "it withdraws no line (every line the frozen test executes has another live test)";
      }
      return `${c.property} executes ${c.compensated} of the ${c.withdrawn} line${c.withdrawn === 1 ? "" : "s"} it withdraws (${percent(c.ratio)})`;
  }
}

/** A freeze's figure as the JSON reports write it: the counts and the sentence, no lines. */
export function compensationFigure(c: Compensation) {
  return {
    testId: c.testId,
    property: c.property,
    state: c.state,
    withdrawn: c.withdrawn,
    compensated: c.compensated,
    ratio: c.ratio,
    summary: compensationWords(c),
  };
}

function percent(ratio: number | null): string {
  return ratio === null ? "n/a" : `${Math.floor(ratio * 1000) / 10}%`;
}

/**
 * The deposit gate's findings about compensation, with `min_compensation` set (undefined:
 * none). A freeze that withdraws no line has nothing to compensate and passes. An unknown
 * figure is a finding of its own, never a pass, unless the deposit gate already fails the
 * freeze for the reason that leaves it unknown (`explained`: freezes whose property the gate
 * found not collected, frozen or without inputs).
 */
export function judgeCompensation(
  measured: readonly Compensation[],
  min: number | undefined,
  explained: ReadonlySet<string>,
): Finding[] {
  if (min === undefined) return [];
  const findings: Finding[] = [];
  for (const c of measured) {
    const about = {
      gate: "deposit" as const,
      severity: "error" as const,
      testId: c.testId,
      propertyId: c.property,
    };
    const details = {
      state: c.state,
      withdrawn: c.withdrawn,
      compensated: c.compensated,
      ratio: c.ratio,
      minCompensation: min,
    };
    if (c.state === "measured") {
      if (c.ratio === null || c.ratio >= min) continue;
      findings.push({
        ...about,
        code: "deposit-compensation-low",
        message: `the freeze of ${c.testId} deposits ${c.property}, which executes ${c.compensated} of the ${c.withdrawn} line${c.withdrawn === 1 ? "" : "s"} the freeze withdraws (${percent(c.ratio)}; min_compensation is ${min})`,
        details: { ...details, missed: missedLines(c) },
      });
    } else if (c.state === "frozen-test-not-in-data" || !explained.has(c.testId)) {
      if (c.state === "no-property") continue;
      findings.push({
        ...about,
        code: "deposit-compensation-unknown",
        message: `the freeze of ${c.testId}: compensation ${compensationWords(c)} (min_compensation is ${min})`,
        details,
      });
    }
  }
  return findings;
}

/** The withdrawn lines the property does not execute, per file. */
function missedLines(c: Compensation): { path: string; lines: number[] }[] {
  return c.files
    .map((f) => ({
      path: f.path,
      lines: f.withdrawn.filter((line) => !f.compensated.includes(line)),
    }))
    .filter((f) => f.lines.length > 0);
}
