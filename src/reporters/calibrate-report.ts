// calibrate's result object (the versioned JSON contract: docs/json-contract.md,
// schema/calibrate-report.schema.json) and its text, Markdown, annotations and JUnit renderers.
// The formats are the report registry's (src/reporters/registry.ts), as for audit and check:
// SARIF and HTML render the same object in sarif.ts and html.ts. Adding a field does not bump
// schemaVersion; changing one's meaning or removing one does.

import { relative } from "node:path";
import type { CalibratedGate, Calibration, CannotFire } from "../app/calibrate.js";
import {
  CANARY_KINDS,
  type CanaryKind,
  type CanaryResult,
  MISFIRE_CODES,
  type MisfireCode,
} from "../core/canaries.js";
import { formatError } from "../core/errors.js";
import type { FailableVerdict } from "../core/shadow-audit.js";
import { ANNOTATIONS_PER_LEVEL, command } from "./github.js";
import { escapeXml } from "./junit.js";
import { mdCode, mdText } from "./markdown.js";
import {
  type CalibrateMutants,
  calibrateMutants,
  calibrateMutantsText,
  killedWords,
} from "./mutants-report.js";
import type { RenderContext } from "./registry.js";
import { paint } from "./text.js";
import { plural, visible } from "./words.js";

export const CALIBRATE_SCHEMA_VERSION = 1;

export interface CalibrateReport {
  schema: "freezegate/calibrate";
  schemaVersion: typeof CALIBRATE_SCHEMA_VERSION;
  tool: { name: "freezegate"; version: string };
  /** The gate fired on every shadow canary and on no control, and it can fire at all. */
  passed: boolean;
  exitCode: 0 | 1;
  /** Why no shadow canary could be made (the run then proves nothing), or null. */
  cannotFire: { reason: CannotFire; message: string } | null;
  /**
   * The pytest plugin's applied record of this commit's run, when found: `agrees` is false when
   * the run applied another frozen list than the gate reads (`message` says how), which fails
   * the calibration whatever the canaries say.
   */
  appliedRecord: { file: string; agrees: boolean; message: string | null } | null;
  settings: {
    /** Which command's gate was calibrated: check's when the frozen list is a freeze ledger. */
    gate: CalibratedGate;
    /**
     * The frozen-test file the gate reads (relative to the repository root when inside it);
     * `muted`: tests of the data an xfail muted outside it, judged as frozen (check's gate).
     */
    frozen: { file: string; entries: number; tests: number; muted: number };
    failOn: FailableVerdict[];
    seed: number;
    max: number;
  };
  /** Per kind: statements that qualified in the files read, canaries made, canaries that fired. */
  summary: Record<CanaryKind, { qualified: number; canaries: number; fired: number }>;
  /** One sentence per canary the gate got wrong, and for a gate that cannot fire. */
  failures: string[];
  canaries: Array<Omit<CanaryResult, never>>;
  /**
   * With --mutants: the mutants of the shadow and control canaries' statements, judged (absent
   * without it). They never change `passed` or `exitCode`.
   */
  mutants?: CalibrateMutants;
}

const CANNOT_FIRE: Record<CannotFire, (c: Calibration) => string> = {
  "nothing-frozen": (c) =>
    `the frozen list ${rel(c.root, c.frozen.file)} freezes no test of the coverage data (${plural(c.frozen.entries, "entry", "entries")}), so no change can be shadowed: the calibration proves nothing`,
  "no-shadow": (c) =>
    `the ${plural(c.frozen.tests, "frozen test")} execute no statement outside test files that no live test executes, so no change can be shadowed today: the calibration proves nothing`,
  "not-mutable": () =>
    "no statement that only frozen tests execute holds anything the canary edit can change (a comparison, a boolean, a number, a returned value, + or -): the calibration proves nothing",
};

function rel(root: string, path: string): string {
  const r = relative(root, path);
  return r === "" || r.startsWith("..") ? path : r.split("\\").join("/");
}

/** The failure of a run that applied another frozen list than the gate reads. */
const NOT_APPLIED = "the tests did not apply the frozen list the gate reads";

export function failureOf(c: CanaryResult): string {
  const what = c.kind === "shadow" ? "did not fire" : "fired";
  return `${c.kind} canary ${c.path}:${c.line} ${what}: ${c.reason}`;
}

export function isCalibrateReport(report: { schema: string }): report is CalibrateReport {
  return report.schema === "freezegate/calibrate";
}

export function buildCalibrateReport(c: Calibration, version: string): CalibrateReport {
  const cannotFire =
    c.cannotFire === null ? null : { reason: c.cannotFire, message: CANNOT_FIRE[c.cannotFire](c) };
  const wrong = c.canaries.filter((x) => !x.ok);
  const disagreement = c.record?.disagreement ?? null;
  const failures = [
    ...(disagreement === null ? [] : [`${NOT_APPLIED}: ${formatError(disagreement)}`]),
    ...(cannotFire === null ? [] : [`the gate cannot fire: ${cannotFire.message}`]),
    ...wrong.map(failureOf),
  ];
  const summary = Object.fromEntries(
    CANARY_KINDS.map((kind) => {
      const mine = c.canaries.filter((x) => x.kind === kind);
      return [
        kind,
        {
          qualified: c.qualified[kind],
          canaries: mine.length,
          fired: mine.filter((x) => x.fired).length,
        },
      ];
    }),
  ) as CalibrateReport["summary"];
  const passed = failures.length === 0;
  return {
    schema: "freezegate/calibrate",
    schemaVersion: CALIBRATE_SCHEMA_VERSION,
    tool: { name: "freezegate", version },
    passed,
    exitCode: passed ? 0 : 1,
    cannotFire,
    appliedRecord:
      c.record === null
        ? null
        : {
            file: c.record.file,
            agrees: disagreement === null,
            message: disagreement === null ? null : formatError(disagreement),
          },
    settings: {
      gate: c.gate,
      frozen: { ...c.frozen, file: rel(c.root, c.frozen.file) },
      failOn: c.failOn,
      seed: c.seed,
      max: c.max,
    },
    summary,
    failures,
    canaries: c.canaries,
    ...(c.mutants === null
      ? {}
      : {
          mutants: calibrateMutants(c.mutants.run, {
            command: c.mutants.command,
            max: c.max,
            seed: c.seed,
          }),
        }),
  };
}

/** What can make a calibration fail, by code: the SARIF rules, the annotations' titles. */
export type CalibrateCode = MisfireCode | CannotFire | "frozen-list-not-applied";

export const CALIBRATE_CODES: Record<CalibrateCode, { title: string; help: string }> = {
  "counted-live": {
    title: "the gate counts a frozen test as live",
    help: "Only frozen tests execute the canary's statement, but the gate judged it defended: it reads a frozen test as live. Check that the frozen list the gate reads is the one the tests applied, and that its ids name the data's tests.",
  },
  "let-through": {
    title: "fail-on lets a shadow canary through",
    help: "Only frozen tests execute the canary's statement, and the gate judged it with a verdict its fail-on does not fail (fixture-only, uncovered, unmeasured). Check the fail-on setting and that the frozen tests ran under coverage.",
  },
  "not-code": {
    title: "the gate reads a statement as no code",
    help: "The gate judged a statement that frozen tests execute as not-code, so no change to it can fail the gate.",
  },
  "no-verdict": {
    title: "the gate gave a canary no verdict",
    help: "The audit of the canaries gave the canary's line no verdict.",
  },
  "control-fired": {
    title: "the gate fails a change that a live test defends",
    help: "A live test executes the control canary's statement, but the gate failed it: the gate would fail ordinary patches too. Check the frozen list (does it freeze tests that are live?) and fail-on.",
  },
  "skipped-test-file": {
    title: "the gate takes a source file for a test file",
    help: "The test-files setting (or the runner's defaults) matches a production file, so the gate never audits a change there. Narrow the test-files globs.",
  },
  "skipped-not-source": {
    title: "the gate does not audit a source file",
    help: "The source-files setting does not match the file of the canary, so a change there never fails the gate. Widen the source-files globs.",
  },
  "skipped-deleted": {
    title: "the gate reads a source file as deleted",
    help: "The gate read the canary's file as deleted, so a change there never fails it.",
  },
  "skipped-binary": {
    title: "the gate reads a source file as binary",
    help: "The gate read the canary's file as binary, so a change there never fails it.",
  },
  "skipped-submodule": {
    title: "the gate reads a source file as a submodule",
    help: "The gate read the canary's file as a submodule, so a change there never fails it.",
  },
  "skipped-no-lines": {
    title: "the gate finds no changed line in a source file",
    help: "The gate found no changed line in the canary's file, so a change there never fails it.",
  },
  "frozen-list-not-applied": {
    title: "the tests did not apply the frozen list the gate reads",
    help: "The freezegate pytest plugin's applied record of the run says it applied another ledger, another version of it, or froze a test the gate's frozen list does not freeze: a test only pytest froze counts as live for the gate, and the lines only it executes pass as defended. Point the gate and the plugin at one ledger and run the tests again.",
  },
  "nothing-frozen": {
    title: "the frozen list freezes no test of the data",
    help: "No test of the coverage data is frozen, so no change can be shadowed and the calibration proves nothing.",
  },
  "no-shadow": {
    title: "frozen tests execute nothing only they execute",
    help: "Every statement outside test files that the frozen tests execute, a live test executes too: no change can be shadowed today, and the calibration proves nothing.",
  },
  "not-mutable": {
    title: "no shadow statement can be edited",
    help: "No statement only frozen tests execute holds anything the canary edit changes (a comparison, a boolean, a number, a returned value, + or -): the calibration proves nothing.",
  },
};

/**
 * What a calibration's mutants show, by code (SARIF notes, annotation titles): never a
 * failure of the calibration, and present only in a run with --mutants.
 */
export type CalibrateMutantCode = "mutant-survived-live-tests" | "kill-withdrawn-by-freeze";

export const MUTANT_CODES: Record<CalibrateMutantCode, { title: string; help: string }> = {
  "mutant-survived-live-tests": {
    title: "a mutant of a line live tests execute survived",
    help: "A live test executes the control statement, so the gate calls a change there defended, but no live test that executes it fails on this mutant: the line is executed, not defended. Add an assertion that checks what the statement computes (or accept the mutant as equivalent).",
  },
  "kill-withdrawn-by-freeze": {
    title: "only frozen tests kill a mutant",
    help: "Only frozen tests execute the shadow statement, and they fail on this mutant: the freeze withdraws a kill, and while it lasts a change like this one passes the tests. The gate fails patches that change the line; a live test that checks it would defend it again.",
  },
};

export const MUTANT_CODE_ORDER: readonly CalibrateMutantCode[] = [
  "mutant-survived-live-tests",
  "kill-withdrawn-by-freeze",
];

/** Every code in a fixed order: a SARIF rule's index must not depend on the run. */
export const CALIBRATE_CODE_ORDER: readonly CalibrateCode[] = [
  ...MISFIRE_CODES,
  "frozen-list-not-applied",
  "nothing-frozen",
  "no-shadow",
  "not-mutable",
];

const KIND_WORDS: Record<CanaryKind, string> = {
  shadow: "only frozen tests execute them; the gate must fire",
  control: "a live test executes them; the gate must not fire",
  uncovered: "no test executes them; the gate fires when fail-on names uncovered",
};

/** The verdict in one sentence, the same in every format. */
export function calibrateVerdict(r: CalibrateReport): { passed: boolean; text: string } {
  if (r.passed) {
    const s = r.summary.shadow;
    return {
      passed: true,
      text: `the gate fired on ${s.fired} of ${plural(s.canaries, "shadow canary", "shadow canaries")} and on no control`,
    };
  }
  const untrusted = r.appliedRecord !== null && !r.appliedRecord.agrees;
  if (r.cannotFire !== null) {
    return {
      passed: false,
      text: [untrusted && NOT_APPLIED, "the gate cannot be shown to fire"]
        .filter(Boolean)
        .join("; "),
    };
  }
  const missed = r.canaries.filter((c) => c.kind === "shadow" && !c.ok).length;
  const wrong = r.canaries.filter((c) => c.kind === "control" && !c.ok).length;
  return {
    passed: false,
    text: [
      untrusted && NOT_APPLIED,
      missed > 0 &&
        `${missed} of ${plural(r.summary.shadow.canaries, "shadow canary", "shadow canaries")} passed the gate`,
      wrong > 0 && `${wrong} of ${plural(r.summary.control.canaries, "control")} failed it`,
    ]
      .filter(Boolean)
      .join("; "),
  };
}

function frozenWords(r: CalibrateReport): string {
  const f = r.settings.frozen;
  const muted = f.muted === 0 ? "" : `, and ${plural(f.muted, "test")} an xfail muted`;
  return `${visible(f.file)} (${plural(f.entries, "entry", "entries")}, ${plural(f.tests, "test")} in the data${muted})`;
}

function verdictLine(r: CalibrateReport, color = false): string {
  const p = paint(color);
  const v = calibrateVerdict(r);
  return `${v.passed ? p.good("PASS") : p.bad("FAIL")}: ${v.text}`;
}

export function renderCalibrateText(
  r: CalibrateReport,
  ctx: Pick<RenderContext, "color" | "quiet">,
): string {
  if (ctx.quiet) return `${verdictLine(r, ctx.color)}\n`;
  const p = paint(ctx.color);
  const out: string[] = [];
  const total = r.canaries.length;
  out.push(
    `freezegate calibrate: ${plural(total, "canary", "canaries")} audited by the gate (seed ${r.settings.seed}, at most ${r.settings.max})`,
    `gate: ${r.settings.gate}'s; frozen: ${frozenWords(r)}; fail-on: ${r.settings.failOn.join(", ")}`,
  );
  if (r.appliedRecord !== null) {
    out.push(
      `applied record: ${visible(r.appliedRecord.file)} (${r.appliedRecord.agrees ? "the tests applied the frozen list the gate reads" : "the tests applied another frozen list"})`,
    );
  }
  for (const kind of CANARY_KINDS) {
    const mine = r.canaries.filter((c) => c.kind === kind);
    const s = r.summary[kind];
    out.push("", `${kind} canaries (${KIND_WORDS[kind]}): ${s.fired} of ${s.canaries} fired`);
    if (mine.length === 0) out.push(`  none (${s.qualified} qualified in the files read)`);
    for (const c of mine) {
      const mark = c.ok ? (c.fired ? "FIRED " : "passed") : p.bad(c.fired ? "FIRED!" : "MISSED");
      const verdict = c.verdict ?? `skipped: ${c.skipped}`;
      out.push(`  ${mark} ${visible(c.path)}:${c.line} ${c.mutation} -> ${verdict}`);
      if (c.reason !== null) out.push(`         ${visible(c.reason)}`);
    }
  }
  if (r.mutants !== undefined) out.push(...calibrateMutantsText(r.mutants));
  out.push("");
  // Each canary's reason is printed under it; only the failures of no canary are not.
  if (r.appliedRecord?.message) out.push(`${NOT_APPLIED}: ${visible(r.appliedRecord.message)}`);
  if (r.cannotFire !== null) out.push(`the gate cannot fire: ${visible(r.cannotFire.message)}`);
  out.push(verdictLine(r, ctx.color));
  return `${out.join("\n")}\n`;
}

export function renderCalibrateMarkdown(r: CalibrateReport): string {
  const v = calibrateVerdict(r);
  const out: string[] = [
    `### ${v.passed ? "✅" : "❌"} freezegate calibrate: ${v.passed ? "PASS" : "FAIL"} — ${mdText(v.text)}`,
    "",
  ];
  out.push(
    `${r.settings.gate}'s gate; frozen list ${mdCode(r.settings.frozen.file, false)}: ${plural(r.settings.frozen.tests, "test")} in the data${r.settings.frozen.muted === 0 ? "" : `, and ${plural(r.settings.frozen.muted, "test")} an xfail muted`}; fail-on: ${r.settings.failOn.join(", ")}; seed ${r.settings.seed}.`,
    "",
  );
  if (r.failures.length > 0) {
    for (const f of r.failures) out.push(`- ${mdText(f)}`);
    out.push("");
  }
  out.push("| kind | canaries | fired | qualified |", "| --- | ---: | ---: | ---: |");
  for (const kind of CANARY_KINDS) {
    const s = r.summary[kind];
    out.push(`| ${kind} | ${s.canaries} | ${s.fired} | ${s.qualified} |`);
  }
  if (r.canaries.length > 0) {
    out.push(
      "",
      "| canary | line | edit | verdict | as it must |",
      "| --- | --- | --- | --- | --- |",
    );
    for (const c of r.canaries) {
      out.push(
        `| ${c.kind} | ${mdCode(`${c.path}:${c.line}`)} | ${c.mutation} | ${c.verdict ?? `skipped (${c.skipped})`} | ${c.ok ? "yes" : "**no**"} |`,
      );
    }
  }
  if (r.mutants !== undefined) out.push("", ...mutantsMarkdown(r.mutants));
  out.push("", `<sub>freezegate ${mdText(r.tool.version)}</sub>`);
  return `${out.join("\n")}\n`;
}

function mutantsMarkdown(m: CalibrateMutants): string[] {
  const out = [`#### Mutants (run by ${mdCode(m.command, false)})`, "", mdText(m.summary), ""];
  if (m.mutants.length > 0) {
    out.push("| canary | line | mutation | class | killed by |", "| --- | --- | --- | --- | --- |");
    for (const x of m.mutants) {
      out.push(
        `| ${x.canary} | ${mdCode(`${x.path}:${x.line}`)} | ${x.kind}: ${mdText(x.description)} | ${x.class === "survived" && x.canary === "control" ? "**survived**" : x.class} | ${x.killedBy.map((id) => mdCode(id)).join(", ")} |`,
      );
    }
    out.push("");
  }
  for (const n of m.notes) out.push(`- ${mdText(n)}`);
  return out.at(-1) === "" ? out.slice(0, -1) : out;
}

/** A control statement's mutant that survived its live tests: executed, not defended. */
export function survivorSentence(x: CalibrateMutants["mutants"][number]): string {
  return `a live test executes ${x.path}:${x.line}, but none kills its mutant ${x.description} (${x.kind}): the line is executed, not defended`;
}

/** A shadow statement's mutant only frozen tests kill: a kill the freezes withdraw. */
export function withdrawnKillSentence(x: CalibrateMutants["mutants"][number]): string {
  return `only frozen tests kill the mutant ${x.description} (${x.kind}) of ${x.path}:${x.line} (${killedWords(x)}): the freezes withdraw this kill`;
}

export function renderCalibrateGithub(r: CalibrateReport): string {
  const out: string[] = [];
  if (r.cannotFire !== null) {
    out.push(
      command("error", [["title", "freezegate: the gate cannot fire"]], r.cannotFire.message),
    );
  }
  for (const c of r.canaries.filter((x) => !x.ok)) {
    out.push(
      command(
        "error",
        [
          ["file", c.path],
          ["line", c.line],
          [
            "title",
            `freezegate: ${c.code === null ? `${c.kind} canary` : CALIBRATE_CODES[c.code].title}`,
          ],
        ],
        failureOf(c),
      ),
    );
  }
  if (r.mutants !== undefined) {
    out.push(command("note", [["title", "freezegate: mutants"]], r.mutants.summary));
    const survivors = r.mutants.mutants.filter(
      (x) => x.canary === "control" && x.class === "survived",
    );
    // GitHub shows 10 warnings a step: past that, the 10th says how many more there are.
    const shown =
      survivors.length > ANNOTATIONS_PER_LEVEL
        ? survivors.slice(0, ANNOTATIONS_PER_LEVEL - 1)
        : survivors;
    const title = `freezegate: ${MUTANT_CODES["mutant-survived-live-tests"].title}`;
    for (const x of shown) {
      out.push(
        command(
          "warning",
          [
            ["file", x.path],
            ["line", x.line],
            ["title", title],
          ],
          survivorSentence(x),
        ),
      );
    }
    if (shown.length < survivors.length) {
      out.push(
        command(
          "warning",
          [["title", title]],
          `${survivors.length - shown.length} more mutants of control statements survived their live tests: the text, JSON or HTML report lists them`,
        ),
      );
    }
  }
  out.push(visible(`freezegate calibrate: ${verdictLine(r)}`));
  return `${out.join("\n")}\n`;
}

export function renderCalibrateJunit(r: CalibrateReport): string {
  const cases: Array<{ name: string; failure: { message: string; type: string } | null }> = [
    ...(r.appliedRecord === null
      ? []
      : [
          {
            name: "the tests applied the frozen list the gate reads",
            failure:
              r.appliedRecord.message === null
                ? null
                : { message: r.appliedRecord.message, type: "frozen-list-not-applied" },
          },
        ]),
    {
      name: "the gate can fire",
      failure:
        r.cannotFire === null ? null : { message: r.cannotFire.message, type: r.cannotFire.reason },
    },
    ...r.canaries.map((c) => ({
      name: `${c.kind} ${c.path}:${c.line} (${c.mutation})`,
      failure: c.ok ? null : { message: failureOf(c), type: c.code ?? "misjudged" },
    })),
  ];
  const xml = ({ name, failure }: (typeof cases)[number]) =>
    failure === null
      ? `    <testcase classname="freezegate" name="${escapeXml(name)}"/>`
      : `    <testcase classname="freezegate" name="${escapeXml(name)}">\n      <failure message="${escapeXml(failure.message)}" type="${escapeXml(failure.type)}"/>\n    </testcase>`;
  const failures = cases.filter((c) => c.failure !== null).length;
  const totals = (tests: number) =>
    `tests="${tests}" failures="${failures}" errors="0" skipped="0"`;
  // The mutants are a report, never a failure: one passing testcase each, what became of it
  // in its output.
  const mutants = (r.mutants?.mutants ?? []).map(
    (x) =>
      `    <testcase classname="freezegate" name="${escapeXml(`${x.canary} ${x.path}:${x.line} ${x.kind}: ${x.description}`)}">\n      <system-out>${escapeXml(`${x.class}${x.killedBy.length === 0 ? "" : ` (${killedWords(x)})`}`)}</system-out>\n    </testcase>`,
  );
  const mutantSuite =
    r.mutants === undefined
      ? []
      : [
          `  <testsuite name="freezegate calibrate mutants" tests="${mutants.length}" failures="0" errors="0" skipped="0">`,
          ...mutants,
          `    <system-out>${escapeXml([r.mutants.summary, ...r.mutants.notes.map((n) => `note: ${n}`)].join("\n"))}</system-out>`,
          "  </testsuite>",
        ];
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="freezegate" ${totals(cases.length + mutants.length)}>`,
    `  <testsuite name="freezegate calibrate" ${totals(cases.length)}>`,
    ...cases.map(xml),
    "  </testsuite>",
    ...mutantSuite,
    "</testsuites>",
    "",
  ].join("\n");
}
