// `freezegate impact TEST_ID...`: before freezing, what the freeze would withdraw. From the
// per-test coverage of every measured file: the lines these tests are the only live cover of;
// from the ledger: the properties that would lose their last live witness. A report, so it
// exits 0 whatever it finds; unusable input (unknown test id, stale data) is still exit 2.
// With --mutants, the withdrawn statements are mutated and the tests that execute each run
// against its mutants (src/app/mutants.ts): which kills the freeze withdraws.

import { readLedgerFile } from "../../adapters/ledger-file.js";
import { fileExists } from "../../adapters/repo-files.js";
import { compensationIn } from "../../app/compensation.js";
import { type MutantsRequest, runMutants } from "../../app/mutants.js";
import { type WithdrawnData, withWithdrawnData } from "../../app/withdrawn-data.js";
import { type CompensationState, compensationFigure } from "../../core/compensation.js";
import type { Finding } from "../../core/findings.js";
import { DEFAULT_TEST_GLOBS } from "../../core/globs.js";
import { type ImpactFile, resolveTestIds, withdrawnLines } from "../../core/impact.js";
import type { Ledger } from "../../core/ledger-model.js";
import { mutationSites } from "../../core/mutants.js";
import { refusal } from "../../core/refusals/index.js";
import { frozenBy, frozenIds, witnessLoss } from "../../core/witness.js";
import { type ImpactMutants, impactMutants, mutantsText } from "../../reporters/mutants-report.js";
import { foldRanges } from "../../reporters/text.js";
import { jsonText, visible } from "../../reporters/words.js";
import { mutationOf } from "../../runners/mutations.js";
import type { RunnerMutation } from "../../runners/runner.js";
import { DATA_OPTIONS, resolveDataOptions } from "../audit-options.js";
import { type CommandSpec, listOpt, stringOpt } from "../command.js";
import { FORMAT_OPTION, resolveFormat } from "../gate-output.js";
import { DIRECTORY_OPTION, LEDGER_OPTION, resolveLedgerContext } from "../ledger-options.js";
import {
  MUTANT_OPTIONS,
  repositoryDirectory,
  resolveMutantOptions,
  withMutantProgress,
} from "../mutant-options.js";

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
  /** With --mutants: the mutants of the withdrawn statements, judged; null without it. */
  mutants: ImpactMutants | null;
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
  if (report.mutants !== null) out.push(...mutantsText(report.mutants));
  const notes = [...report.notes, ...(report.mutants?.notes ?? [])];
  if (notes.length > 0) out.push("", ...notes.map((n) => `note: ${visible(n)}`));
  return `${out.join("\n")}\n`;
}

export const impactCommand: CommandSpec = {
  name: "impact",
  summary:
    "What freezing tests would withdraw: lines only they cover, properties they are the last witness of.",
  usage:
    "freezegate impact TEST_ID... [--property TEST_ID] [--mutants --run CMD [--jobs N] [--timeout SECONDS] [--max N]] [options]",
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
    ...MUTANT_OPTIONS,
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

With --mutants (pytest data), each withdrawn statement is mutated (an operator, a comparison,
a constant, a condition or a returned value changed, one at a time) and only the tests that
execute it run against the mutant, with the command --run names, in a temporary copy of the
work tree (yours and .git are never written). A mutant is killed by a live test, by the
property only, only by the tests given (the kills the freeze withdraws), survives, or times
out. With --property, the property is set aside when the lines are chosen, so the mutants
cover what it should recover. Details: docs/ledger.md.

Exit codes:
  0  the report was made (whatever it withdraws)
  2  usage, configuration or input error (e.g. a test id the coverage data does not have)
130  interrupted (the mutant run's copies and processes are removed)`,
  async run(args, io) {
    const format = resolveFormat(args.values);
    const written = [...new Set(args.positionals)];
    if (written.length === 0) {
      throw refusal("impact-needs-test-ids", undefined);
    }
    const mutantOptions = resolveMutantOptions(args.values, io.env);
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
    const made = withWithdrawnData(request, (read) => {
      const { runner } = read;
      const contexts = read.tests.index;
      const { ids: targets, unknown } = resolveTestIds(written, contexts.testIds);
      if (unknown.length > 0) {
        throw refusal("tests-not-in-data", { ids: unknown, fix: runner.advice.exactIds });
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
      const plan =
        mutantOptions === null ? null : mutantPlan(read, files, { targets, frozen, property });
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
        mutants: null,
      };
      return { report, plan };
    });
    const { report, plan } = made;
    if (mutantOptions !== null && plan !== null) {
      const mutation = await plan.load();
      const run = await withMutantProgress(io, (hooks) =>
        runMutants({
          root,
          cwd: repositoryDirectory(root, ctx.cwd),
          command: mutantOptions.command,
          python: mutantOptions.python,
          env: io.env,
          mutation,
          prefix: plan.prefix,
          sites: plan.sites,
          max: mutantOptions.max,
          seed: MUTANT_SEED,
          jobs: mutantOptions.jobs,
          timeoutSeconds: mutantOptions.timeoutSeconds,
          ...hooks,
        }),
      );
      if (run === "interrupted") return 130;
      report.mutants = impactMutants(run, {
        tests: written,
        command: mutantOptions.command,
        max: mutantOptions.max,
        property: property !== undefined,
      });
    }
    io.stdout.write(format === "json" ? jsonText(report) : renderText(report));
    return 0;
  },
};

/** The sample's seed: the same data, the same mutants. */
const MUTANT_SEED = 1;

/** What the data gives a mutant run: the runner's mutation, the test root and the sites. */
interface MutantPlan {
  load: () => Promise<RunnerMutation>;
  prefix: string;
  sites: MutantsRequest["sites"];
}

/**
 * The withdrawn statements to mutate and the tests that execute each. With a property, it is
 * set aside as the compensation figure sets it aside: the lines it should recover are
 * withdrawn lines too.
 */
function mutantPlan(
  read: WithdrawnData,
  withdrawn: readonly ImpactFile[],
  who: { targets: ReadonlySet<string>; frozen: ReadonlySet<string>; property: string | undefined },
): MutantPlan {
  const { runner } = read;
  const load = mutationOf(runner);
  if (load === null)
    throw refusal("mutants-language-unsupported", { runner: runner.name, command: "impact" });
  const contexts = read.tests.index;
  const property =
    who.property === undefined
      ? new Set<string>()
      : resolveTestIds([who.property], contexts.testIds).ids;
  const files =
    property.size === 0
      ? withdrawn
      : withdrawnLines({
          targets: who.targets,
          frozen: who.frozen,
          setAside: property,
          contexts,
          files: read.files,
        });
  read.refuseStale(files.map((f) => f.path));
  return {
    load,
    prefix: read.tests.prefix,
    sites: mutationSites({
      files,
      executed: new Map(read.files.map((f) => [f.path, f.executed])),
      contexts,
      targets: who.targets,
      frozen: who.frozen,
      property,
    }),
  };
}
