// What `check`'s deposit gate will say about a freeze `freeze` has just recorded. Nothing is
// gated yet, so the evidence is what exists now: the samples artifact the last test run left
// where the pytest plugin writes it (whatever commit it ran at), and whether the property's
// file is changed in BASE...HEAD or in the work tree. A preview only: it never refuses a
// freeze, and the gate itself judges the samples of the commit it gates.

import { changedFilesInRange, dirtyPaths } from "../adapters/git-history.js";
import { show } from "../adapters/pytest-ledger.js";
import { fileExists } from "../adapters/repo-files.js";
import { checkDeposits, nodeIdFile } from "../core/deposits.js";
import { FreezegateError } from "../core/errors.js";
import type { Freeze, Ledger } from "../core/ledger-model.js";
import type { SamplesArtifact } from "../core/samples.js";
import { RUNNERS } from "../runners/registry.js";
import type { Runner, RunnerLedger } from "../runners/runner.js";
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
  /** The runner whose data gave the known tests: its ledger integration wrote the samples. */
  runner?: Runner;
}

/** The deposit findings foreseen, and the ledger integration whose words the fix takes. */
export interface DepositOutlook {
  clauses: string[];
  writer: RunnerLedger;
}

/** The samples the last run left, or why there are none to read. */
type LastSamples =
  | { samples: SamplesArtifact; label: string }
  | { samples: null; label: string | null; unreadable?: string };

function lastSamples(
  root: string,
  testRoot: string,
  writers: readonly RunnerLedger[],
): LastSamples {
  const places = [...new Set(writers.flatMap((w) => w.samplesPlaces(root, testRoot)))];
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
export async function depositOutlook(req: DepositOutlookRequest): Promise<DepositOutlook> {
  const { ledger, freeze, root, testRoot } = req;
  // The runner of the known tests wrote the samples; without one, any runner's may have.
  const writers = req.runner === undefined ? RUNNERS.map((r) => r.ledger) : [req.runner.ledger];
  const last = lastSamples(root, testRoot, writers);
  const tool = last.samples?.kind === "per-property" ? last.samples.tool : undefined;
  const writer =
    RUNNERS.find((r) => r.ledger.tool === tool)?.ledger ?? (writers[0] as RunnerLedger);
  if (!ledger.policy.blocking.includes("deposit")) return { clauses: [], writer };
  const property = freeze.compensating_property;
  const file = nodeIdFile(property, testRoot);
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
            : `no samples artifact shows that ${property} ran on any input (none at ${last.label ?? ".freezegate/samples.json"}, where ${writer.writer} writes one in every test run once the ledger exists)`
          : typeof distinct === "number"
            ? `${property} ran on ${distinct} distinct input${distinct === 1 ? "" : "s"} in the samples artifact ${last.label}`
            : `the samples artifact ${last.label} has no count for ${property}: it is not a property test ${tool === writer.tool ? writer.short : "the runner"} counted (${writer.counts})`;
      clauses.push(`deposit-too-few-inputs: ${why}, and policy.min_distinct is ${min}`);
    }
  }
  return { clauses, writer };
}
