// Compensation coverage as `check`, `stats` and `impact` measure it: for each freeze, the lines
// it withdraws and how many of them its compensating property executes, from the per-test
// data (src/core/compensation.ts measures and judges; this module reads).

import {
  type CompensatedFreeze,
  type Compensation,
  judgeCompensation,
  measureCompensation,
} from "../core/compensation.js";
import type { Finding } from "../core/findings.js";
import { matchesTest } from "../core/impact.js";
import type { Ledger } from "../core/ledger-model.js";
import { frozenBy, frozenIds } from "../core/witness.js";
import {
  type WithdrawnData,
  type WithdrawnDataRequest,
  withWithdrawnData,
} from "./withdrawn-data.js";

/** The deposit findings that already say a freeze's property did not run or guards nothing. */
const EXPLAINING_CODES = new Set(["deposit-not-collected", "deposit-too-few-inputs"]);

/**
 * Measure the freezes over data already read. `frozen`: the data's frozen tests -> the freeze
 * entry of each. Refuses (exit 2) data that does not describe a file with withdrawn lines as it
 * is on disk.
 */
export function compensationIn(
  data: WithdrawnData,
  freezes: readonly CompensatedFreeze[],
  frozen: ReadonlyMap<string, string>,
  muted: readonly string[] = [],
): Compensation[] {
  const ids = data.tests.index.testIds;
  const properties = freezes.map((f) => f.property).filter((p) => p !== "");
  const propertyTests = [...ids].filter((id) => properties.some((p) => matchesTest(p, id)));
  const measured = measureCompensation({
    freezes,
    frozenBy: frozen,
    muted: new Set(muted),
    withoutRun: new Set(data.tests.testsWithoutRun(propertyTests)),
    contexts: data.tests.index,
    files: data.files,
  });
  data.refuseStale([...new Set(measured.flatMap((c) => c.files.map((f) => f.path)))].sort());
  return measured;
}

/** Every freeze of the ledger, measured over the data the request locates. */
export function ledgerCompensation(
  request: WithdrawnDataRequest & { ledger: Ledger; muted?: readonly string[] },
): Compensation[] {
  const { ledger } = request;
  if (ledger.freezes.length === 0) return [];
  return withWithdrawnData(request, (data) =>
    compensationIn(
      data,
      ledger.freezes.map((f) => ({ testId: f.test_id, property: f.compensating_property.trim() })),
      frozenBy(frozenIds(ledger), data.tests.index.testIds),
      request.muted,
    ),
  );
}

/**
 * The deposit gate's compensation findings, given its other findings (a property they already
 * fail as not collected, frozen or without inputs is not reported twice as unmeasurable).
 */
export function compensationFindings(
  measured: readonly Compensation[],
  ledger: Ledger,
  depositFindings: readonly Finding[],
): Finding[] {
  const explained = new Set(
    depositFindings
      .filter((f) => f.severity === "error" && EXPLAINING_CODES.has(f.code))
      .map((f) => f.testId ?? ""),
  );
  return judgeCompensation(measured, ledger.policy.min_compensation, explained);
}
