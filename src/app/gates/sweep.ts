// The sweep record as evidence for `check` and `freeze`: found (--sweep FILE, else
// .freezegate/sweep.json in pytest's rootdir when the nightly sweep left one there), read
// strictly, and refused (exit 2) when it is not this repository's and this ledger's. A record
// of another commit of this repository applies, and the notes say which: a failure stands
// until a sweep passes the property at its seed, whatever has been committed since.

import { resolve } from "node:path";
import { resolveCommit } from "../../adapters/git.js";
import { show } from "../../adapters/pytest-ledger.js";
import { fileExists, readJsonFile } from "../../adapters/repo-files.js";
import { type GateResult, sortFindings } from "../../core/findings.js";
import type { Ledger } from "../../core/ledger-model.js";
import { sampleOf } from "../../core/listing.js";
import { refusal } from "../../core/refusals/index.js";
import { SWEEP_NOT_FOUND_FIX } from "../../core/refusals/ledger.js";
import {
  DEFAULT_SWEEP_PATH,
  parseSweepRecord,
  type SweepFailure,
  type SweepRecord,
  standingFailures,
  sweepFindings,
} from "../../core/sweep.js";
import { repoPath } from "./ledger-location.js";

export interface SweepRequest {
  /** Repository root (absolute). */
  root: string;
  /** pytest's rootdir, relative to the root. */
  testRoot: string;
  /** --sweep FILE (absolute), when given: it must exist. */
  sweepPath?: string;
  /** The ledger judged (absolute) and how it is shown. */
  ledgerPath: string;
  ledgerLabel: string;
  /** HEAD's commit, when known: a record of another commit is named in the notes. */
  headCommit?: string;
}

export interface SweepEvidence {
  record: SweepRecord;
  /** The failures that stand (reproduced at their seed, or not re-run). */
  standing: SweepFailure[];
  notes: string[];
}

/** Where the sweep record is looked for: --sweep, else the plugin's default place. */
export function sweepRecordPath(root: string, testRoot: string, flag?: string): string {
  return flag ?? resolve(root, testRoot, DEFAULT_SWEEP_PATH);
}

/** The sweep record that applies, or null when none was given and none is at its place. */
export async function readSweepEvidence(req: SweepRequest): Promise<SweepEvidence | null> {
  const path = sweepRecordPath(req.root, req.testRoot, req.sweepPath);
  const label = show(req.root, path);
  if (!fileExists(path)) {
    if (req.sweepPath === undefined) return null;
    throw refusal("file-not-found", {
      label: "sweep record",
      path: label,
      underFile: false,
      fix: SWEEP_NOT_FOUND_FIX,
    });
  }
  const record = parseSweepRecord(
    readJsonFile(path, "sweep record", "fix the JSON syntax, or remove the file"),
    label,
  );
  const ledger = repoPath(req.root, req.ledgerPath) ?? req.ledgerPath;
  if (record.ledger.path !== ledger) {
    throw refusal("sweep-record-other-ledger", {
      label,
      recorded: record.ledger.path,
      ledger: req.ledgerLabel,
    });
  }
  if (record.commit === null) {
    throw refusal("sweep-record-no-commit", { label });
  }
  if ((await resolveCommit(req.root, record.commit)) === null) {
    throw refusal("sweep-record-commit-missing", { label, commit: record.commit });
  }
  const standing = standingFailures(record);
  const at =
    req.headCommit === record.commit
      ? "at HEAD"
      : `at commit ${record.commit.slice(0, 12)}, not HEAD: its failures stand until a sweep passes them at their seeds`;
  const notes = [
    `sweep record ${label} (swept ${record.sweptAt} ${at}): ${standing.length} failure(s) that came back at their seed`,
  ];
  const flaky = record.failures.filter((f) => f.reproduced === false);
  if (flaky.length > 0) {
    notes.push(
      `${flaky.length} sweep failure(s) passed when re-run at their seed (flaky, not judged): ${sampleOf(
        flaky.map((f) => f.testId),
        5,
      )}`,
    );
  }
  return { record, standing, notes };
}

export interface SweepJudgement {
  root: string;
  ledgerPath: string;
  ledgerLabel: string;
  sweepPath?: string;
  audit: { testRoot: string };
  headCommit: string;
  /** The ledger the gates judged, and the suite's tests (for freezes written as globs). */
  ledger: Ledger;
  known: ReadonlySet<string> | null;
}

/**
 * `check`'s step: the sweep's findings (`frozen-sweep-failure`, `deposit-sweep-failure`) and
 * notes go to the deposit gate, which judges what a freeze's property is worth. Without a
 * record, the gates stay as they were.
 */
export async function judgeSweepRecord(
  gates: Array<GateResult & { notes: string[] }>,
  req: SweepJudgement,
): Promise<void> {
  const evidence = await readSweepEvidence({
    root: req.root,
    testRoot: req.audit.testRoot,
    ledgerPath: req.ledgerPath,
    ledgerLabel: req.ledgerLabel,
    headCommit: req.headCommit,
    ...(req.sweepPath === undefined ? {} : { sweepPath: req.sweepPath }),
  });
  const deposit = gates.find((g) => g.gate === "deposit");
  if (evidence === null || deposit === undefined) return;
  deposit.findings = sortFindings([
    ...deposit.findings,
    ...sweepFindings(req.ledger, evidence.standing, req.known),
  ]);
  deposit.notes.push(...evidence.notes);
}
