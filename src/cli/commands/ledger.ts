// `freezegate ledger`: `check` runs the shape gate over the freeze ledger; `migrate` turns the
// older files (a quarantine list, a properties file, a freeze ledger of schema 1) into one
// freezegate ledger, refusing entries that disagree rather than picking one.

import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { readLedgerFile, replaceLedgerFile } from "../../adapters/ledger-file.js";
import { KNOWN_TESTS_FIX, type KnownTests, loadKnownTests } from "../../app/known-tests.js";
import type { Finding, GateResult } from "../../core/findings.js";
import { sortFindings } from "../../core/findings.js";
import { describeSource, isIdOnly, mergeLedgers } from "../../core/ledger.js";
import type { Ledger } from "../../core/ledger-model.js";
import { checkShape } from "../../core/ledger-shape.js";
import { refusal } from "../../core/refusals/index.js";
import { visible } from "../../reporters/words.js";
import {
  boolOpt,
  type CommandGroup,
  type CommandIo,
  type CommandSpec,
  listOpt,
  type ParsedArgs,
  stringOpt,
} from "../command.js";
import {
  DIRECTORY_OPTION,
  displayPath,
  KNOWN_TESTS_OPTIONS,
  LEDGER_OPTION,
  ledgerWriteOptions,
  resolveKnownTestsRequest,
  resolveLedgerContext,
  resolveToday,
  TODAY_OPTION,
} from "../ledger-options.js";

const FORMATS = ["text", "json"] as const;

// ---------------------------------------------------------------------------------------------
// ledger check

export interface LedgerCheckReport {
  schema: "freezegate/ledger-check";
  schemaVersion: 1;
  ledger: { path: string; format: Ledger["source"]; freezes: number; properties: number };
  today: string;
  /** null: no source of test ids, so unknown-test was not judged. */
  knownTests: { from: "collected" | "coverage"; count: number; files: string[] } | null;
  /** The shape gate, as in check's gates[]: with passed and notes. */
  gate: GateResult & { passed: boolean; notes: string[] };
  passed: boolean;
  exitCode: 0 | 1;
}

function renderCheckText(report: LedgerCheckReport, known: KnownTests): string {
  const l = report.ledger;
  const lines = [
    `ledger ${visible(l.path)} (${describeSource(l.format)}): ${plural(l.freezes, "freeze")}, ${plural(l.properties, "property", "properties")}; today is ${report.today} (UTC)`,
    known.ids === null
      ? `known tests: none (${visible(known.description)}): unknown-test was not judged (to judge it, ${KNOWN_TESTS_FIX})`
      : `known tests: ${visible(known.description)}`,
  ];
  for (const f of report.gate.findings)
    lines.push(`${f.severity}: ${f.code}: ${visible(f.message)}`);
  const errors = report.gate.findings.filter((f) => f.severity === "error").length;
  lines.push(
    report.passed
      ? "PASS: the ledger's shape gate found no problem"
      : `FAIL: the ledger's shape gate found ${plural(errors, "error")}`,
  );
  return `${lines.join("\n")}\n`;
}

const checkCommand: CommandSpec = {
  name: "check",
  summary:
    "Run the shape gate over the freeze ledger: missing fields, bad dates, expired freezes, windows longer than the policy allows, duplicates, unknown tests.",
  usage:
    "freezegate ledger check [--ledger PATH] [--today YYYY-MM-DD] [--collected FILE] [options]",
  options: [
    LEDGER_OPTION,
    TODAY_OPTION,
    ...KNOWN_TESTS_OPTIONS,
    { name: "format", type: "string", value: "FORMAT", description: "text (default) or json" },
    DIRECTORY_OPTION,
  ],
  details: `Exit codes:
  0  every freeze is well-formed and in force
  1  the shape gate found a problem (an expired freeze fails; it is not a warning)
  2  usage or input error: unreadable ledger, bad --today, unreadable test list

Expiry is judged on the UTC date, whatever the machine's time zone. Unknown tests are
judged only when the suite's test ids are known (--collected, or the coverage data's
per-test contexts); the output says when they were not.`,
  async run(args: ParsedArgs, io: CommandIo): Promise<number> {
    const format = stringOpt(args.values, "format") ?? "text";
    if (!(FORMATS as readonly string[]).includes(format)) {
      throw refusal("unknown-format", { format, known: "text or json" });
    }
    const context = await resolveLedgerContext(args, io);
    const today = resolveToday(args.values, io.env);
    const ledger = readLedgerFile(context.ledgerPath);
    const known = loadKnownTests(resolveKnownTestsRequest(args.values, context));
    const findings: Finding[] = sortFindings(checkShape(ledger, { today, knownTests: known.ids }));
    const failed = findings.some((f) => f.severity === "error");
    const report: LedgerCheckReport = {
      schema: "freezegate/ledger-check",
      schemaVersion: 1,
      ledger: {
        path: context.ledgerLabel,
        format: ledger.source,
        freezes: ledger.freezes.length,
        properties: ledger.properties.length,
      },
      today,
      knownTests:
        known.ids === null || known.from === null
          ? null
          : { from: known.from, count: known.ids.size, files: known.files },
      gate: {
        gate: "shape",
        blocking: ledger.policy.blocking.includes("shape"),
        ran: true,
        passed: !failed,
        // The same notes as check's shape gate.
        notes: [
          `judged on ${today} (UTC)`,
          known.ids === null
            ? `unknown-test not judged: ${known.description}`
            : `known tests: ${known.description}`,
        ],
        findings,
      },
      passed: !failed,
      exitCode: failed ? 1 : 0,
    };
    io.stdout.write(
      format === "json" ? `${JSON.stringify(report, null, 2)}\n` : renderCheckText(report, known),
    );
    return report.exitCode;
  },
};

// ---------------------------------------------------------------------------------------------
// ledger migrate

/** Files looked for when --from is not given, in these directories of the root. */
const MIGRATED_FILES = ["quarantine.json", "properties.json", "freeze_ledger.json"];
const MIGRATED_DIRS = ["", "gate"];

const migrateCommand: CommandSpec = {
  name: "migrate",
  summary:
    "Merge a quarantine list, a properties file and a freeze ledger of schema 1 (quarantine.json, properties.json, freeze_ledger.json) into one freezegate ledger.",
  usage: "freezegate ledger migrate [--from FILE ...] [--ledger PATH] [--force]",
  options: [
    {
      name: "from",
      type: "string",
      multiple: true,
      value: "FILE",
      description: `a file to migrate (default: ${MIGRATED_FILES.join(", ")} found at the repository root and under gate/)`,
    },
    LEDGER_OPTION,
    {
      name: "force",
      type: "boolean",
      description: "replace an existing ledger (its entries are kept only if it is also a --from)",
    },
    DIRECTORY_OPTION,
  ],
  details: `The files are read as they are, whatever their names, by their content:
  quarantine list             {"frozen": [...]}: freezes with only a test id (ledger check
                              then reports their missing owner, dates and property)
  properties file             {"properties": [...], "frozen": [...]}: its properties and
                              frozen ids
  freeze ledger (schema 1)    {"schema": 1, "max_window_days": N, "freezes": [...]}: its
                              freezes and max_window_days
A test frozen in several files merges when the entries agree (an id-only entry gives way to
a full one); entries that disagree stop the migration. The source files are left as they
are.`,
  async run(args: ParsedArgs, io: CommandIo): Promise<number> {
    const context = await resolveLedgerContext(args, io);
    const given = listOpt(args.values, "from");
    const paths =
      given !== undefined
        ? given.map((p) => resolve(context.cwd, p))
        : MIGRATED_DIRS.flatMap((dir) =>
            MIGRATED_FILES.map((name) => join(context.root, dir, name)),
          ).filter((p) => existsSync(p) && p !== context.ledgerPath);
    if (paths.length === 0) {
      throw refusal("nothing-to-migrate", { names: MIGRATED_FILES.join(", ") });
    }
    const sources = [...new Set(paths)].map((path) => ({
      label: displayPath(context.root, path),
      ledger: readLedgerFile(path),
    }));
    const merged = mergeLedgers(sources);
    const force = boolOpt(args.values, "force");
    await replaceLedgerFile(
      context.ledgerPath,
      merged,
      (exists) => {
        if (exists && !force) {
          throw refusal("ledger-exists", { ledger: context.ledgerLabel });
        }
      },
      ledgerWriteOptions(io),
    );
    const idOnly = merged.freezes.filter(isIdOnly).length;
    const froms = sources.map((s) => `${s.label} (${describeSource(s.ledger.source)})`).join(", ");
    io.stdout.write(
      `migrated ${plural(merged.freezes.length, "freeze")} and ${plural(merged.properties.length, "property", "properties")} from ${froms} into ${context.ledgerLabel}\n`,
    );
    io.stdout.write(
      idOnly > 0
        ? `${plural(idOnly, "freeze")} ${idOnly === 1 ? "carries" : "carry"} only a test id: fill in owner, reason, dates, invariant and property (freezegate ledger check lists them)\n`
        : "next: freezegate ledger check\n",
    );
    return 0;
  },
};

function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}

export const ledgerGroup: CommandGroup = {
  name: "ledger",
  summary:
    "The freeze ledger: check its shape, migrate a quarantine list, a properties file or an older freeze ledger into it.",
  subcommands: [checkCommand, migrateCommand],
};
