// `freezegate queue check`: refuse inherited skips in a merge queue. Reads the parent's and
// the child's applied records, the ledger as checked in at the commit being gated (and at the
// parent record's commit), and hands them to the pure check in src/core/queue.ts. Output has
// the single-gate shape (`--format json`: freezegate/gate).

import { createHash } from "node:crypto";
import { resolve } from "node:path";
import { resolveCommit } from "../../adapters/git.js";
import { fileAtRevision } from "../../adapters/git-history.js";
import { readJsonFile } from "../../adapters/repo-files.js";
import { parseLedgerText } from "../../app/gates/base-ledger.js";
import { ledgerRepoPath } from "../../app/gates/ledger-location.js";
import type { Ledger } from "../../core/ledger-model.js";
import {
  type AppliedRecord,
  checkQueue,
  parseAppliedRecord,
  type QueueResult,
  queueExitCode,
} from "../../core/queue.js";
import { refusal } from "../../core/refusals/index.js";
import { visible } from "../../reporters/words.js";
import { type CommandGroup, type CommandSpec, listOpt, stringOpt } from "../command.js";
import { FORMAT_OPTION, type OutputFormat, resolveFormat } from "../gate-output.js";
import {
  DIRECTORY_OPTION,
  displayPath,
  LEDGER_OPTION,
  resolveLedgerContext,
  resolveToday,
  TODAY_OPTION,
} from "../ledger-options.js";

function sha256(bytes: Buffer): string {
  return createHash("sha256").update(bytes).digest("hex");
}

function readRecord(path: string, label: string): AppliedRecord {
  return parseAppliedRecord(
    readJsonFile(
      path,
      "applied record",
      "regenerate it: the test run writes it as one JSON object",
    ),
    label,
  );
}

/** A ledger blob read as every reader reads the file: BOM skipped, repeated keys refused. */
function parseLedgerBytes(bytes: Buffer, label: string): Ledger {
  return parseLedgerText(
    bytes.toString("utf8"),
    label,
    "fix the ledger's JSON syntax in that commit",
  );
}

/** The single-gate output shape (src/cli/gate-output.ts), for the queue's own result type. */
export function renderQueue(result: QueueResult, format: OutputFormat, notes: string[]): string {
  const exitCode = queueExitCode(result);
  if (format === "json") {
    const body = {
      schema: "freezegate/gate",
      schemaVersion: 1,
      gate: result.gate,
      ran: result.ran,
      blocking: result.blocking,
      passed: exitCode === 0,
      exitCode,
      notes,
      findings: result.findings,
    };
    return `${JSON.stringify(body, null, 2)}\n`;
  }
  const lines = result.findings.map(
    (f) => `${f.severity.padEnd(7)} ${f.code}: ${visible(f.message)}`,
  );
  if (lines.length > 0) lines.push("");
  for (const note of notes) lines.push(`note: ${visible(note)}`);
  const errors = result.findings.filter((f) => f.severity === "error").length;
  const verdict =
    errors > 0
      ? `FAILED (${errors} error${errors === 1 ? "" : "s"})`
      : result.findings.length > 0
        ? `passed (${result.findings.length} record${result.findings.length === 1 ? "" : "s"}, no errors)`
        : "passed";
  lines.push(`queue gate: ${verdict}`);
  return `${lines.join("\n")}\n`;
}

export const queueCheckCommand: CommandSpec = {
  name: "check",
  summary:
    "Fail when the child's applied record froze a test that its own ledger, at the commit being gated, does not freeze (an inherited skip), or when a record is stale.",
  usage:
    "freezegate queue check --parent PARENT_APPLIED --child CHILD_APPLIED [--allow ID...] [--commit REV] [options]",
  options: [
    {
      name: "parent",
      type: "string",
      value: "FILE",
      description: "the previous queue entry's applied record (its test run's artifact)",
    },
    {
      name: "child",
      type: "string",
      value: "FILE",
      description: "the applied record of the run being gated",
    },
    {
      name: "allow",
      type: "string",
      multiple: true,
      value: "ID",
      description:
        "a test id whose unjustified freeze is accepted (e.g. a release-branch freeze with a named approver); must be in a record",
    },
    {
      name: "commit",
      type: "string",
      value: "REV",
      description: "the commit being gated (default: HEAD)",
    },
    LEDGER_OPTION,
    TODAY_OPTION,
    FORMAT_OPTION,
    DIRECTORY_OPTION,
  ],
  details: `The child's run must have derived every freeze it applied from the ledger checked in at
the commit being gated (git show COMMIT:LEDGER), unexpired on --today. Each freeze that
ledger does not justify is an inherited-skip; the parent's record names where it came
from. A record is stale (stale-record) when the child's was made at another commit than
the one gated, or when a record's ledger sha256 is not that of the ledger checked in at
its commit. Record format and CI wiring: docs/merge-queue.md.

Exit codes:
  0  every freeze the child applied is its own, and both records are current
  1  an inherited-skip or stale-record finding
  2  usage, git or input error (a malformed record, an --allow id in no record, an
     unknown commit, a ledger that does not parse at the gated commit)`,
  async run(args, io) {
    const format = resolveFormat(args.values);
    const parentFlag = stringOpt(args.values, "parent");
    const childFlag = stringOpt(args.values, "child");
    if (parentFlag === undefined || childFlag === undefined) {
      throw refusal("queue-needs-records", {
        missing: parentFlag === undefined ? "--parent" : "--child",
      });
    }
    const today = resolveToday(args.values, io.env);
    const ctx = await resolveLedgerContext(args, io);
    const ledgerPath = ledgerRepoPath(ctx);
    if (ledgerPath === null) {
      throw refusal("ledger-outside-repo", { ledger: ctx.ledgerLabel });
    }
    const parentPath = resolve(ctx.cwd, parentFlag);
    const childPath = resolve(ctx.cwd, childFlag);
    const parent = readRecord(parentPath, displayPath(ctx.root, parentPath));
    const child = readRecord(childPath, displayPath(ctx.root, childPath));

    const ref = stringOpt(args.values, "commit") ?? "HEAD";
    const gatedCommit = await resolveCommit(ctx.root, ref);
    if (gatedCommit === null) {
      throw refusal("queue-commit-unknown", { ref });
    }
    const childBytes = await fileAtRevision(ctx.root, gatedCommit, ledgerPath);
    const childLedger =
      childBytes === null
        ? null
        : {
            sha256: sha256(childBytes),
            ledger: parseLedgerBytes(childBytes, `${ledgerPath} at ${gatedCommit.slice(0, 12)}`),
          };
    let parentSha: string | null = null;
    if (parent.commit !== null) {
      const known = await resolveCommit(ctx.root, parent.commit);
      if (known === null) {
        throw refusal("queue-parent-commit-missing", { commit: parent.commit });
      }
      const bytes = await fileAtRevision(ctx.root, known, ledgerPath);
      parentSha = bytes === null ? null : sha256(bytes);
    }

    const { result, notes } = checkQueue({
      parent: {
        label: displayPath(ctx.root, parentPath),
        record: parent,
        checkedInSha256: parentSha,
      },
      child: { label: displayPath(ctx.root, childPath), record: child },
      gatedCommit,
      ledgerPath,
      childLedger,
      allow: listOpt(args.values, "allow") ?? [],
      today,
    });
    io.stdout.write(renderQueue(result, format, notes));
    return queueExitCode(result);
  },
};

export const queueGroup: CommandGroup = {
  name: "queue",
  summary: "Merge queues: refuse skips a queue entry inherited instead of deriving them.",
  subcommands: [queueCheckCommand],
};
