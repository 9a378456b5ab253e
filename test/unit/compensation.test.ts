// How much of what a freeze withdraws its compensating property executes, as a pure function
// over per-test line data, and what the deposit gate says about it under min_compensation.

import { describe, expect, it } from "vitest";
import {
  type Compensation,
  compensationWords,
  judgeCompensation,
  measureCompensation,
} from "../../src/core/compensation.js";
import { indexContexts } from "../../src/runners/pytest/contexts.js";

const T = "tests/test_a.py::test_frozen";
const P = "tests/test_props.py::test_prop";
const L = "tests/test_a.py::test_live";

function measure(
  lines: Record<number, string[]>,
  opts: { property?: string; frozen?: string[]; withoutRun?: string[] } = {},
): Compensation {
  const executed = new Map(Object.entries(lines).map(([k, v]) => [Number(k), v]));
  const names = [...new Set(Object.values(lines).flat())];
  const frozen = opts.frozen ?? [T];
  const [result] = measureCompensation({
    freezes: [{ testId: T, property: opts.property ?? P }],
    frozenBy: new Map(frozen.map((id) => [id, id === T ? T : id])),
    withoutRun: new Set(opts.withoutRun ?? []),
    contexts: indexContexts(names, () => new Map()),
    files: [{ path: "src/app.py", executed }],
  });
  return result as Compensation;
}

describe("measureCompensation", () => {
  it("a property that executes none of the withdrawn lines compensates 0 of them", () => {
    const c = measure({ 1: [`${T}|run`], 2: [`${T}|run`], 3: [`${P}|run`], 4: [`${L}|run`] });
    expect(c).toMatchObject({ state: "measured", withdrawn: 2, compensated: 0, ratio: 0 });
    expect(c.files).toEqual([{ path: "src/app.py", withdrawn: [1, 2], compensated: [] }]);
  });

  it("lines the property also executes are still withdrawn: the property is set aside, not live", () => {
    const c = measure({
      1: [`${T}|run`, `${P}|run`],
      2: [`${T}|run`],
      3: [`${T}|run`, `${L}|run`],
    });
    expect(c).toMatchObject({ withdrawn: 2, compensated: 1, ratio: 0.5 });
    expect(compensationWords(c)).toBe(`${P} executes 1 of the 2 lines it withdraws (50%)`);
  });

  it("the property's setup or teardown guards nothing; its parametrized cases count", () => {
    const c = measure({ 1: [`${T}|run`, `${P}|setup`], 2: [`${T}|run`, `${P}[x]|run`] });
    expect(c).toMatchObject({ withdrawn: 2, compensated: 1 });
  });

  it("a frozen property executes the lines but compensates none of them", () => {
    const c = measure({ 1: [`${T}|run`, `${P}|run`] }, { frozen: [T, P] });
    expect(c).toMatchObject({ state: "measured", withdrawn: 1, compensated: 0 });
  });

  it("nothing withdrawn: 0 lines and no ratio, never a division by zero", () => {
    const c = measure({ 1: [`${T}|run`, `${L}|run`], 2: [`${P}|run`] });
    expect(c).toMatchObject({ state: "measured", withdrawn: 0, compensated: 0, ratio: null });
    expect(compensationWords(c)).toMatch(/withdraws no line/);
  });

  it("a frozen test or a property the data does not show running leaves the figure unknown", () => {
    expect(measure({ 1: [`${P}|run`] }, { frozen: [] })).toMatchObject({
      state: "frozen-test-not-in-data",
      withdrawn: null,
      compensated: null,
    });
    expect(measure({ 1: [`${T}|run`] })).toMatchObject({
      state: "property-not-in-data",
      withdrawn: null,
    });
    expect(measure({ 1: [`${T}|run`], 2: [`${P}|setup`] }, { withoutRun: [P] })).toMatchObject({
      state: "property-not-in-data",
    });
    expect(measure({ 1: [`${T}|run`] }, { property: "" }).state).toBe("no-property");
  });
});

describe("judgeCompensation", () => {
  const low = measure({ 1: [`${T}|run`, `${P}|run`], 2: [`${T}|run`], 3: [`${T}|run`] });
  const all = measure({ 1: [`${T}|run`, `${P}|run`] });
  const none = measure({ 1: [`${T}|run`, `${L}|run`], 2: [`${P}|run`] });
  const noTest = measure({ 1: [`${P}|run`] }, { frozen: [] });
  const noProperty = measure({ 1: [`${T}|run`] });

  it("off (no min_compensation): no finding whatever the figure", () => {
    expect(judgeCompensation([low, noTest, noProperty], undefined, new Set())).toEqual([]);
  });

  it("below the share is deposit-compensation-low, with the lines it missed", () => {
    const [finding, ...rest] = judgeCompensation([low, all, none], 0.5, new Set());
    expect(rest).toEqual([]);
    expect(finding).toMatchObject({
      gate: "deposit",
      code: "deposit-compensation-low",
      testId: T,
      propertyId: P,
      details: { withdrawn: 3, compensated: 1, minCompensation: 0.5 },
    });
    expect(finding?.details?.missed).toEqual([{ path: "src/app.py", lines: [2, 3] }]);
    expect(finding?.message).toMatch(/executes 1 of the 3 lines the freeze withdraws \(33\.3%/);
  });

  it("a share met exactly passes (1 of 3 against 1/3); 1 demands every line", () => {
    expect(judgeCompensation([low], 1 / 3, new Set())).toEqual([]);
    expect(judgeCompensation([all], 1, new Set())).toEqual([]);
    expect(judgeCompensation([low], 1, new Set())).toHaveLength(1);
  });

  it("unknown figures are findings, unless the deposit gate already fails the property", () => {
    const codes = judgeCompensation([noTest, noProperty], 0, new Set()).map((f) => f.code);
    expect(codes).toEqual(["deposit-compensation-unknown", "deposit-compensation-unknown"]);
    // The property not collected or without inputs already fails the freeze: said once.
    expect(judgeCompensation([noProperty], 0, new Set([T]))).toEqual([]);
    // What the frozen test withdrew stays unknown whatever the gate says about the property.
    expect(judgeCompensation([noTest], 0, new Set([T]))).toHaveLength(1);
  });
});
