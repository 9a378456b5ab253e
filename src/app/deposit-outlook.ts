// What `check`'s deposit gate will say about a freeze `freeze` has just recorded. Nothing is
// gated yet, so the evidence is what exists now: the samples artifact the last test run left
// where the pytest plugin writes it (whatever commit it ran at), and whether the property's
// file is changed in BASE...HEAD or in the work tree. A preview only: it never refuses a
// freeze, and the gate itself judges the samples of the commit it gates.

import { changedFilesInRange, dirtyPaths } from "../adapters/git-history.js";
import { samplesCandidates, show } from "../adapters/pytest-ledger.js";
import { fileExists } from "../adapters/repo-files.js";
import { checkDeposits, nodeIdFile } from "../core/deposits.js";
import { FreezegateError } from "../core/errors.js";
import type { Freeze, Ledger } from "../core/ledger-model.js";
import { PLUGIN_TOOL, type SamplesArtifact } from "../core/samples.js";
import { readSamples } from "./gates/deposit-gate.js";

export interface DepositOutlookRequest {
  root: string;
  /** pytest's rootdir, relative to the root ("" for the root). */
  testRoot: string;
  /** The ledger with the freeze recorded. */
  ledger: Ledger;
  freeze: Freeze;
  /** The files BASE...HEAD changes, when the patch's base is known. */
  range?: { base: string; changed: ReadonlySet<string> };
}

/** The samples the last run left, or why there are none to read. */
type LastSamples =
  | { samples: SamplesArtifact; label: string }
  | { samples: null; label: string | null; unreadable?: string };

function lastSamples(root: string, testRoot: string): LastSamples {
  const places = samplesCandidates(root, testRoot);
  const path = places.find((p) => fileExists(p));
  if (path === undefined) {
    return { samples: null, label: places[0] === undefined ? null : show(root, places[0]) };
  }
  const label = show(root, path);
  try {
    return { samples: readSamples(path), label };
  } catch (error) {
    if (!(error instanceof FreezegateError)) throw error;
    return { samples: null, label, unreadable: error.message };
  }
}

/** The files BASE...HEAD changes (a GitError when BASE names no commit). */
export async function patchRange(
  root: string,
  base: string,
): Promise<NonNullable<DepositOutlookRequest["range"]>> {
  return { base, changed: (await changedFilesInRange(root, base)).changed };
}

/**
 * patchRange, or undefined when git cannot tell (a config's base that this clone has not
 * fetched: the preview then says what it could not judge).
 */
export async function patchRangeIfKnown(
  root: string,
  base: string,
): Promise<DepositOutlookRequest["range"]> {
  try {
    return await patchRange(root, base);
  } catch (error) {
    if (!(error instanceof FreezegateError)) throw error;
    return undefined;
  }
}

/**
 * One clause per deposit finding the gate will have for this freeze (empty: none foreseen, or
 * the deposit gate does not block). Ids in them come from the user: the caller prints them
 * through visible().
 */
export async function depositOutlook(req: DepositOutlookRequest): Promise<string[]> {
  const { ledger, freeze, root, testRoot } = req;
  if (!ledger.policy.blocking.includes("deposit")) return [];
  const property = freeze.compensating_property;
  const file = nodeIdFile(property, testRoot);
  const last = lastSamples(root, testRoot);
  // The property's file counts as in the patch unless git shows it is not (a repository
  // without a commit yet has everything in its first patch).
  let changed: ReadonlySet<string> = new Set([file]);
  if (!freeze.reused_property) {
    try {
      if ((await dirtyPaths(root, [file])).length === 0) changed = req.range?.changed ?? new Set();
    } catch (error) {
      if (!(error instanceof FreezegateError)) throw error;
    }
  }
  const findings = checkDeposits(
    { ...ledger, freezes: [freeze] },
    { collected: null, changedFiles: changed, samples: last.samples, headCommit: null, testRoot },
  );
  const min = ledger.policy.min_distinct;
  const clauses: string[] = [];
  for (const f of findings) {
    if (f.code === "deposit-not-in-diff") {
      clauses.push(
        req.range === undefined
          ? `deposit-not-in-diff unless an earlier commit of the patch changes ${file}: it is unchanged in the work tree (pass --base REF to tell, or --reused if the property already existed)`
          : `deposit-not-in-diff: ${file} is changed neither in ${req.range.base}...HEAD nor in the work tree (the property must be new or changed in the patch that adds the freeze; pass --reused if it already existed)`,
      );
    } else if (f.code === "deposit-too-few-inputs") {
      const distinct = f.details?.distinct;
      const why =
        last.samples === null
          ? last.unreadable !== undefined
            ? `the samples artifact ${last.label} cannot be read (${last.unreadable})`
            : `no samples artifact shows that ${property} ran on any input (none at ${last.label ?? ".freezegate/samples.json"}, where the freezegate pytest plugin writes one in every test run once the ledger exists)`
          : typeof distinct === "number"
            ? `${property} ran on ${distinct} distinct input${distinct === 1 ? "" : "s"} in the samples artifact ${last.label}`
            : `the samples artifact ${last.label} has no count for ${property}: it is not a property test the ${last.samples.kind === "per-property" && last.samples.tool === PLUGIN_TOOL ? "pytest plugin" : "runner"} counted (the plugin counts the distinct inputs of Hypothesis @given tests and of freezegate_pytest.record(value) calls, in tests that passed)`;
      clauses.push(`deposit-too-few-inputs: ${why}, and policy.min_distinct is ${min}`);
    }
  }
  return clauses;
}
