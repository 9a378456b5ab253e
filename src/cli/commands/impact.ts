// `freezegate impact TEST_ID...`: before freezing, what the freeze would withdraw. From the
// per-test coverage of every measured file: the lines these tests are the only live cover of;
// from the ledger: the properties that would lose their last live witness. A report, so it
// exits 0 whatever it finds; unusable input (unknown test id, stale data) is still exit 2.

import { readLedgerFile } from "../../adapters/ledger-file.js";
import { fileExists } from "../../adapters/repo-files.js";
import { compensationIn } from "../../app/compensation.js";
import { withWithdrawnData } from "../../app/withdrawn-data.js";
import { type CompensationState, compensationFigure } from "../../core/compensation.js";
import { InputError, UsageError } from "../../core/errors.js";
import type { Finding } from "../../core/findings.js";
import { DEFAULT_TEST_GLOBS } from "../../core/globs.js";
import { type ImpactFile, resolveTestIds, withdrawnLines } from "../../core/impact.js";
import type { Ledger } from "../../core/ledger-model.js";
import { frozenBy, frozenIds, witnessLoss } from "../../core/witness.js";
import { foldRanges } from "../../reporters/text.js";
import { jsonText, visible } from "../../reporters/words.js";
import { DATA_OPTIONS, resolveDataOptions } from "../audit-options.js";
import { type CommandSpec, listOpt, stringOpt } from "../command.js";
import { FORMAT_OPTION, resolveFormat } from "../gate-output.js";
import { DIRECTORY_OPTION, LEDGER_OPTION, resolveLedgerContext } from "../ledger-options.js";

const DATA_OPTION_NAMES = ["coverage", "path-map", "test-root", "test-files", "source-files"];

export interface ImpactReport {
  schema: "freezegate/impact";
  schemaVersion: 1;
  /** The ids as given. */
  tests: string[];
  /** The data's test ids they stand for (parametrized cases included). */
  resolvedTests: string[];
  /** Test ids the ledger freezes already (not live before the freeze either). */
  alreadyFrozen: string[];
  files: (ImpactFile & { ranges: string })[];
  /** Total withdrawn lines. */
  lines: number;
  witnessLoss: Finding[];
  /**
   * With --property: what the tests withdraw (the property set aside) and how many of those
   * lines the property executes. Empty without it.
   */
  compensation: {
    property: string;
    state: CompensationState;
    withdrawn: number | null;
    compensated: number | null;
    ratio: number | null;
    summary: string;
  }[];
  notes: string[];
}

// Test ids, paths and ledger text go through visible(): one line each, and never a workflow
// command (a path starts its line here).
function renderText(report: ImpactReport): string {
  const out: string[] = [];
  out.push(`Freezing ${report.tests.map(visible).join(", ")} would withdraw:`, "");
  if (report.files.length === 0) {
    out.push("  no source line: every line these tests execute has another live test");
  } else {
    out.push(
      `  ${report.lines} source line${report.lines === 1 ? "" : "s"} no other live test executes:`,
    );
    for (const f of report.files) {
      const fixture =
        f.fixtureOnly.length > 0
          ? ` (still reached by fixtures only: ${foldRanges(f.fixtureOnly)})`
          : "";
      out.push(`    ${visible(f.path)}: ${f.ranges}${fixture}`);
    }
  }
  out.push("");
  if (report.witnessLoss.length === 0) {
    out.push("  no property loses its last live witness");
  } else {
    out.push("  properties that would lose their last live witness:");
    for (const f of report.witnessLoss) out.push(`    ${f.code}: ${visible(f.message)}`);
  }
  for (const c of report.compensation) {
    out.push("", `  as compensating property: ${visible(c.summary)}`);
  }
  if (report.notes.length > 0) out.push("", ...report.notes.map((n) => `note: ${visible(n)}`));
  return `${out.join("\n")}\n`;
}

export const impactCommand: CommandSpec = {
  name: "impact",
  summary:
    "What freezing tests would withdraw: lines only they cover, properties they are the last witness of.",
  usage:
    "freezegate impact TEST_ID... [--property TEST_ID] [--coverage PATH] [--source-files GLOB] [options]",
  positionals: true,
  options: [
    ...DATA_OPTIONS.filter((o) => DATA_OPTION_NAMES.includes(o.name)).map((o) =>
      o.name === "source-files"
        ? {
            ...o,
            description:
              "report only measured files matching GLOB (default: every measured file in the repository except test files)",
          }
        : o.name === "test-files"
          ? {
              ...o,
              description: `test files, left out of the report unless --source-files is given (default: the test runner's: for pytest ${DEFAULT_TEST_GLOBS.join(" ")} and the python_files of its configuration; for Vitest the files its include matched)`,
            }
          : o,
    ),
    {
      name: "property",
      type: "string",
      value: "TEST_ID",
      description:
        "the compensating property the freeze would deposit: how many of the withdrawn lines it executes",
    },
    LEDGER_OPTION,
    FORMAT_OPTION,
    DIRECTORY_OPTION,
  ],
  details: `A line counts when one of the given tests executes it (in any phase) and no other live
test executes it in its body; a live test that reaches it only in setup/teardown is noted, as it
does not defend the line. Tests the ledger already freezes are not live. A test id without
parameters stands for all its parametrized cases. With --property, the property is set aside
(it is the deposit, not a live test), and the report says how many of the lines these tests
withdraw it executes in its body.

Exit codes:
  0  the report was made (whatever it withdraws)
  2  usage, configuration or input error (e.g. a test id the coverage data does not have)`,
  async run(args, io) {
    const format = resolveFormat(args.values);
    const written = [...new Set(args.positionals)];
    if (written.length === 0) {
      throw new UsageError("impact needs the test ids to judge", {
        fix: "pass one or more node ids, e.g. freezegate impact tests/test_a.py::test_x",
      });
    }
    const ctx = await resolveLedgerContext(args, io);
    const { root } = ctx;
    const data = resolveDataOptions(args.values, ctx.config, ctx.cwd, root);
    const property = stringOpt(args.values, "property")?.trim();
    const notes: string[] = [];

    let ledger: Ledger | null = null;
    if (fileExists(ctx.ledgerPath)) {
      ledger = readLedgerFile(ctx.ledgerPath);
    } else {
      notes.push(
        `no ledger at ${ctx.ledgerLabel}: no test counts as frozen and no property is known`,
      );
    }

    const request = {
      root,
      ...data,
      cwd: ctx.cwd,
      sourceFilter: listOpt(args.values, "source-files"),
    };
    return withWithdrawnData(request, (read) => {
      const { runner } = read;
      const contexts = read.tests.index;
      const { ids: targets, unknown } = resolveTestIds(written, contexts.testIds);
      if (unknown.length > 0) {
        throw new InputError(
          `${unknown.length === 1 ? "test" : "tests"} ${unknown.join(", ")} ${unknown.length === 1 ? "is" : "are"} not in the coverage data`,
          { fix: runner.advice.exactIds },
        );
      }
      // The ledger's freezes match tests as the audit matches them (exact, or "*" globs);
      // only the ids typed here stand for their parametrized cases.
      const byFreeze = frozenBy(ledger === null ? [] : frozenIds(ledger), contexts.testIds);
      const frozen = new Set(
        [...contexts.testIds].filter((id) => !targets.has(id) && byFreeze.has(id)),
      );
      const alreadyFrozen = [...targets].filter((id) => byFreeze.has(id));
      if (alreadyFrozen.length > 0) {
        notes.push(`already frozen in the ledger: ${alreadyFrozen.sort().join(", ")}`);
      }
      notes.push(...read.notes);
      const files = withdrawnLines({ targets, frozen, contexts, files: read.files });
      read.refuseStale(files.map((f) => f.path));
      const measured =
        property === undefined
          ? []
          : compensationIn(
              read,
              [{ testId: written.join(" "), property }],
              new Map([
                ...[...frozen].map((id) => [id, byFreeze.get(id) as string] as const),
                ...[...targets].map((id) => [id, written.join(" ")] as const),
              ]),
            );
      const loss =
        ledger === null ? [] : witnessLoss(ledger, [...written, ...targets], contexts.testIds);
      const report: ImpactReport = {
        schema: "freezegate/impact",
        schemaVersion: 1,
        tests: written,
        resolvedTests: [...targets].sort(),
        alreadyFrozen: alreadyFrozen.sort(),
        files: files.map((f) => ({ ...f, ranges: foldRanges(f.lines) })),
        lines: files.reduce((n, f) => n + f.lines.length, 0),
        witnessLoss: loss,
        compensation: measured.map(compensationFigure).map(({ testId: _, ...figure }) => figure),
        notes,
      };
      io.stdout.write(format === "json" ? jsonText(report) : renderText(report));
      return 0;
    });
  },
};
