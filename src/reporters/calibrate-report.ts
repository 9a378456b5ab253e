// calibrate's result object (the versioned JSON contract: docs/json-contract.md,
// schema/calibrate-report.schema.json) and one renderer per format over it: text, json,
// markdown, github (annotations) and junit. Adding a field does not bump schemaVersion;
// changing one's meaning or removing one does.

import { relative } from "node:path";
import type { Calibration, CannotFire } from "../app/calibrate.js";
import { CANARY_KINDS, type CanaryKind, type CanaryResult } from "../core/canaries.js";
import type { FailableVerdict } from "../core/shadow-audit.js";
import { command } from "./github.js";
import { escapeXml } from "./junit.js";
import { mdCode, mdText } from "./markdown.js";
import { jsonText, plural, visible } from "./words.js";

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
  settings: {
    /** The frozen-test file the gate reads (relative to the repository root when inside it). */
    frozen: { file: string; entries: number; tests: number };
    failOn: FailableVerdict[];
    seed: number;
    max: number;
  };
  /** Per kind: statements that qualified in the files read, canaries made, canaries that fired. */
  summary: Record<CanaryKind, { qualified: number; canaries: number; fired: number }>;
  /** One sentence per canary the gate got wrong, and for a gate that cannot fire. */
  failures: string[];
  canaries: Array<Omit<CanaryResult, never>>;
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

function failureOf(c: CanaryResult): string {
  const what = c.kind === "shadow" ? "did not fire" : "fired";
  return `${c.kind} canary ${c.path}:${c.line} ${what}: ${c.reason}`;
}

export function buildCalibrateReport(c: Calibration, version: string): CalibrateReport {
  const cannotFire =
    c.cannotFire === null ? null : { reason: c.cannotFire, message: CANNOT_FIRE[c.cannotFire](c) };
  const wrong = c.canaries.filter((x) => !x.ok);
  const failures = [
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
    settings: {
      frozen: { ...c.frozen, file: rel(c.root, c.frozen.file) },
      failOn: c.failOn,
      seed: c.seed,
      max: c.max,
    },
    summary,
    failures,
    canaries: c.canaries,
  };
}

const KIND_WORDS: Record<CanaryKind, string> = {
  shadow: "only frozen tests execute them; the gate must fire",
  control: "a live test executes them; the gate must not fire",
  uncovered: "no test executes them; the gate fires when fail-on names uncovered",
};

function verdictLine(r: CalibrateReport): string {
  if (r.passed) {
    const s = r.summary.shadow;
    return `PASS: the gate fired on ${s.fired} of ${plural(s.canaries, "shadow canary", "shadow canaries")} and on no control`;
  }
  if (r.cannotFire !== null) return "FAIL: the gate cannot be shown to fire";
  const missed = r.canaries.filter((c) => c.kind === "shadow" && !c.ok).length;
  const wrong = r.canaries.filter((c) => c.kind === "control" && !c.ok).length;
  return `FAIL: ${[
    missed > 0 &&
      `${missed} of ${plural(r.summary.shadow.canaries, "shadow canary", "shadow canaries")} passed the gate`,
    wrong > 0 && `${wrong} of ${plural(r.summary.control.canaries, "control")} failed it`,
  ]
    .filter(Boolean)
    .join("; ")}`;
}

export function renderCalibrateText(r: CalibrateReport): string {
  const out: string[] = [];
  const total = r.canaries.length;
  out.push(
    `freezegate calibrate: ${plural(total, "canary", "canaries")} audited by the gate (seed ${r.settings.seed}, at most ${r.settings.max})`,
    `frozen: ${visible(r.settings.frozen.file)} (${plural(r.settings.frozen.entries, "entry", "entries")}, ${plural(r.settings.frozen.tests, "test")} in the data); fail-on: ${r.settings.failOn.join(", ")}`,
  );
  for (const kind of CANARY_KINDS) {
    const mine = r.canaries.filter((c) => c.kind === kind);
    const s = r.summary[kind];
    out.push("", `${kind} canaries (${KIND_WORDS[kind]}): ${s.fired} of ${s.canaries} fired`);
    if (mine.length === 0) out.push(`  none (${s.qualified} qualified in the files read)`);
    for (const c of mine) {
      const mark = c.ok ? (c.fired ? "FIRED " : "passed") : c.fired ? "FIRED!" : "MISSED";
      const verdict = c.verdict ?? `skipped: ${c.skipped}`;
      out.push(`  ${mark} ${visible(c.path)}:${c.line} ${c.mutation} -> ${verdict}`);
      if (c.reason !== null) out.push(`         ${visible(c.reason)}`);
    }
  }
  out.push("");
  // Each canary's reason is printed under it; only the one failure of no canary is not.
  if (r.cannotFire !== null) out.push(`the gate cannot fire: ${visible(r.cannotFire.message)}`);
  out.push(verdictLine(r));
  return `${out.join("\n")}\n`;
}

export function renderCalibrateMarkdown(r: CalibrateReport): string {
  const out: string[] = [`## freezegate calibrate: ${r.passed ? "passed" : "failed"}`, ""];
  out.push(
    `Frozen list ${mdCode(r.settings.frozen.file, false)}: ${plural(r.settings.frozen.tests, "test")} in the data; fail-on: ${r.settings.failOn.join(", ")}; seed ${r.settings.seed}.`,
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
  out.push("", verdictLine(r));
  return `${out.join("\n")}\n`;
}

export function renderCalibrateGithub(r: CalibrateReport): string {
  const out: string[] = [];
  if (r.cannotFire !== null) {
    out.push(command("error", [["title", "freezegate calibrate"]], r.cannotFire.message));
  }
  for (const c of r.canaries.filter((x) => !x.ok)) {
    out.push(
      command(
        "error",
        [
          ["file", c.path],
          ["line", c.line],
          ["title", `freezegate calibrate: ${c.kind} canary`],
        ],
        failureOf(c),
      ),
    );
  }
  out.push(visible(verdictLine(r)));
  return `${out.join("\n")}\n`;
}

export function renderCalibrateJunit(r: CalibrateReport): string {
  const cases: string[] = [];
  const testcase = (name: string, failure: string | null) =>
    failure === null
      ? `    <testcase classname="freezegate.calibrate" name="${escapeXml(name)}"/>`
      : `    <testcase classname="freezegate.calibrate" name="${escapeXml(name)}">\n      <failure message="${escapeXml(failure)}"/>\n    </testcase>`;
  cases.push(testcase("the gate can fire", r.cannotFire?.message ?? null));
  for (const c of r.canaries) {
    cases.push(
      testcase(`${c.kind} ${c.path}:${c.line} (${c.mutation})`, c.ok ? null : failureOf(c)),
    );
  }
  const failures = r.failures.length;
  return [
    '<?xml version="1.0" encoding="UTF-8"?>',
    `<testsuites name="freezegate calibrate" tests="${cases.length}" failures="${failures}">`,
    `  <testsuite name="freezegate calibrate" tests="${cases.length}" failures="${failures}">`,
    ...cases,
    "  </testsuite>",
    "</testsuites>",
    "",
  ].join("\n");
}

/** calibrate's formats by name: what its --format accepts. */
export const CALIBRATE_FORMATS = {
  text: renderCalibrateText,
  json: (r: CalibrateReport) => jsonText(r),
  markdown: renderCalibrateMarkdown,
  github: renderCalibrateGithub,
  junit: renderCalibrateJunit,
} satisfies Record<string, (r: CalibrateReport) => string>;

export type CalibrateFormat = keyof typeof CALIBRATE_FORMATS;
