// The deposit gate: a freeze withdraws a test, so it must deposit a compensating
// property that really ran in this patch's gate. Three facts are checked per freeze, each its
// own finding code: the property is a collected test that no freeze mutes, its file is part
// of the patch (unless the freeze says it reuses an existing property), and the samples
// artifact, recorded at HEAD, shows it ran on at least `min_distinct` distinct inputs.

import type { Finding } from "./findings.js";
import { frozenListOf, lookupOf, resolveFrozen } from "./frozen.js";
import type { Freeze, Ledger } from "./ledger-model.js";
import { distinctFor, requireSamplesAt, type SamplesArtifact } from "./samples.js";
import { frozenIds } from "./witness.js";

export interface DepositInputs {
  /** Node ids the suite has (collected ids or the coverage data's tests); null: not judged. */
  collected: ReadonlySet<string> | null;
  /** Repository paths changed in BASE...HEAD (new paths and, for renames, old paths). */
  changedFiles: ReadonlySet<string>;
  /** The samples artifact, or null when none was given (every deposit then lacks evidence). */
  samples: SamplesArtifact | null;
  /**
   * The commit being gated (HEAD): the samples artifact must have been recorded there. null:
   * nothing is gated yet (`freeze` foretelling the gate from the last run's samples).
   */
  headCommit: string | null;
  /**
   * Freezes (test ids) whose deposit must be in this patch: the ones the patch adds, or whose
   * compensating property (or its reuse) it changes. A freeze made in an earlier patch
   * deposited its property there, so demanding it again would fail every later patch (an
   * extension most of all). Absent or null: every freeze is held to it.
   */
  depositDue?: ReadonlySet<string> | null;
  /** Where pytest ran, relative to the repository root ("" or "sub"): node ids start there. */
  testRoot?: string;
  /**
   * Tests an xfail outside the ledger muted in the run (the plugin's applied record): like a
   * frozen test, a muted property's failures do not gate.
   */
  muted?: ReadonlySet<string>;
}

/** Collected as-is, or as the cases of a parametrized test (`test_y[a]` for `test_y`). */
export function isCollected(id: string, collected: ReadonlySet<string>): boolean {
  if (collected.has(id)) return true;
  const prefix = `${id}[`;
  for (const c of collected) if (c.startsWith(prefix)) return true;
  return false;
}

/** The repository path of a node id's file: the part before the first "::". */
export function nodeIdFile(id: string, testRoot = ""): string {
  const sep = id.indexOf("::");
  const file = sep < 0 ? id : id.slice(0, sep);
  const root = testRoot.replace(/^\.?\/*|\/+$/g, "");
  return root === "" ? file : `${root}/${file}`;
}

/**
 * The ledger's freezes (test_id patterns) that freeze `property` or one of its collected
 * cases (`property[...]`, whose largest count stands for it), matched as the audit matches
 * frozen ids: exact, or a glob when the id holds "*". Every freeze counts, expired or not.
 */
export function freezesOfProperty(
  property: string,
  ledger: Ledger,
  collected: ReadonlySet<string> | null,
): string[] {
  const prefix = `${property}[`;
  const candidates = [property, ...[...(collected ?? [])].filter((c) => c.startsWith(prefix))];
  const { matches } = resolveFrozen(frozenListOf(frozenIds(ledger)), lookupOf(candidates));
  return [...matches].filter(([, tests]) => tests.length > 0).map(([pattern]) => pattern);
}

/** The fields every deposit finding about a freeze carries. */
export function depositFindingOf(
  freeze: Freeze,
): Pick<Finding, "gate" | "severity" | "testId" | "propertyId"> {
  return {
    gate: "deposit",
    severity: "error",
    testId: freeze.test_id,
    ...(freeze.compensating_property === "" ? {} : { propertyId: freeze.compensating_property }),
  };
}

export function checkDeposits(ledger: Ledger, inputs: DepositInputs): Finding[] {
  const findings: Finding[] = [];
  const min = ledger.policy.min_distinct;
  // Counts from another commit's run (a cache, an old file, a hand edit) are no evidence of
  // this commit's properties: unusable input (exit 2), never a count to judge.
  if (inputs.samples !== null && inputs.headCommit !== null) {
    requireSamplesAt(inputs.samples, inputs.headCommit);
  }
  for (const freeze of ledger.freezes) {
    const property = freeze.compensating_property.trim();
    if (property === "") {
      // Nothing else can be judged about a deposit that was never named.
      findings.push({
        ...depositFindingOf(freeze),
        code: "deposit-not-collected",
        message: `the freeze of ${freeze.test_id} names no compensating property`,
      });
      continue;
    }
    const file = nodeIdFile(property, inputs.testRoot);
    if (inputs.collected !== null && !isCollected(property, inputs.collected)) {
      findings.push({
        ...depositFindingOf(freeze),
        code: "deposit-not-collected",
        path: file,
        message: `the freeze of ${freeze.test_id} deposits ${property}, which is not a collected test`,
      });
    }
    // A frozen property's failures are muted like the withdrawn test's: it compensates
    // nothing, however many inputs it ran on (the frozen test itself most of all).
    const muting = freezesOfProperty(property, ledger, inputs.collected);
    if (muting.length > 0) {
      const what =
        property === freeze.test_id
          ? "which is the frozen test itself"
          : `which is frozen too (by ${muting.join(", ")})`;
      findings.push({
        ...depositFindingOf(freeze),
        code: "deposit-not-collected",
        path: file,
        message: `the freeze of ${freeze.test_id} deposits ${property}, ${what}: a frozen test's failures do not gate, so it compensates nothing`,
        details: { frozenBy: muting },
      });
    } else if (inputs.muted !== undefined) {
      const prefix = `${property}[`;
      const muted = [...inputs.muted].filter((m) => m === property || m.startsWith(prefix));
      if (muted.length > 0) {
        findings.push({
          ...depositFindingOf(freeze),
          code: "deposit-not-collected",
          path: file,
          message: `the freeze of ${freeze.test_id} deposits ${property}, which an xfail outside the ledger mutes (${muted.sort().join(", ")}, the applied record): a muted test's failures do not gate, so it compensates nothing`,
          details: { mutedTests: muted },
        });
      }
    }
    const due = inputs.depositDue == null || inputs.depositDue.has(freeze.test_id);
    if (due && !freeze.reused_property && !inputs.changedFiles.has(file)) {
      findings.push({
        ...depositFindingOf(freeze),
        code: "deposit-not-in-diff",
        path: file,
        message: `the freeze of ${freeze.test_id} deposits ${property}, but ${file} is not changed in this patch (and reused_property is false)`,
        details: { file },
      });
    }
    const distinct = inputs.samples === null ? null : distinctFor(inputs.samples, property);
    if (distinct === null || distinct < min) {
      const why =
        inputs.samples === null
          ? "no samples artifact was given, so nothing shows it ran on any input"
          : distinct === null
            ? "the samples artifact has no count for it (the pytest plugin counts only tests that passed and are not frozen)"
            : `it ran on ${distinct} distinct input${distinct === 1 ? "" : "s"}`;
      findings.push({
        ...depositFindingOf(freeze),
        code: "deposit-too-few-inputs",
        path: file,
        message: `the freeze of ${freeze.test_id} deposits ${property}, but ${why} (min_distinct is ${min})`,
        details: { distinct, minDistinct: min },
      });
    }
  }
  return findings;
}
