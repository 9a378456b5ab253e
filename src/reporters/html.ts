// The self-contained HTML report: one file a reviewer opens from a CI artifact, offline. Per
// changed file the source around each changed line, marked with its verdict and the tests
// that ran it (frozen ones tagged); for `check` the gate findings and every freeze of the
// ledger; the shadow-ratio trend from the history as an inline SVG chart. For `calibrate`, the
// canaries and what the gate did with each.
//
// Everything here comes from the repository (paths, test ids, source text, ledger text), so
// every value goes through the `h` template, which escapes anything that is not already
// markup built by it: a missed escape would have to be written on purpose. The page has no
// script at all (expandable rows are <details>), and its Content-Security-Policy forbids
// scripts, network and any style but our own, so even a bug in the escaping could neither run
// code nor fetch anything.

import { CANARY_KINDS } from "../core/canaries.js";
import { describeSource } from "../core/ledger.js";
import type { Verdict } from "../core/shadow-audit.js";
import { pct, type Stats } from "../core/stats.js";
import type { AuditReport } from "./audit-report.js";
import { type CalibrateReport, calibrateVerdict } from "./calibrate-report.js";
import type { CheckGateReport, CheckLedgerEntry, CheckReport } from "./check-report.js";
import type { CalibrateMutants } from "./mutants-report.js";
import type { RenderContext, Renderer } from "./registry.js";
import { describePatch, plural, recorderWords, SKIP_WORDS, sourceLines } from "./words.js";

// ---------------------------------------------------------------------------------------------
// Escaping by construction.

/** Markup built by `h`: inserted as is. Anything else is text and gets escaped. */
class Html {
  constructor(readonly markup: string) {}
}

type Part = Html | string | number | boolean | null | undefined | readonly Part[];

const ENTITIES: Record<string, string> = {
  "&": "&amp;",
  "<": "&lt;",
  ">": "&gt;",
  '"': "&quot;",
  "'": "&#39;",
};

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ENTITIES[c] ?? c);
}

function partToString(part: Part): string {
  if (part instanceof Html) return part.markup;
  if (Array.isArray(part)) return part.map(partToString).join("");
  if (part === null || part === undefined || part === false || part === true) return "";
  return escapeHtml(String(part));
}

/** Tagged template: literal text is markup, every interpolated value is escaped text. */
function h(strings: TemplateStringsArray, ...parts: Part[]): Html {
  let out = strings[0] ?? "";
  for (let i = 0; i < parts.length; i++) {
    out += partToString(parts[i] as Part) + (strings[i + 1] ?? "");
  }
  return new Html(out);
}

// ---------------------------------------------------------------------------------------------
// Words.

const VERDICT_ORDER: readonly Verdict[] = [
  "shadowed",
  "fixture-only",
  "uncovered",
  "unmeasured",
  "defended",
  "not-code",
];

const VERDICT_LABEL: Record<Verdict, string> = {
  defended: "defended",
  shadowed: "shadowed",
  "fixture-only": "fixture-only",
  uncovered: "uncovered",
  unmeasured: "unmeasured",
  "not-code": "not code",
};

const VERDICT_MEANING: Record<Verdict, string> = {
  defended: "a live (not frozen) test executed it",
  shadowed: "tests executed it, and every one of them is frozen",
  "fixture-only": "only live tests' setup or teardown executed it",
  uncovered: "no test executed it",
  unmeasured: "the file is not in the coverage data",
  "not-code": "blank, comment, docstring or other non-statement line",
};

/** Lines of source shown around each changed line. */
const CONTEXT_LINES = 3;
/** Findings shown before the rest are folded into <details>. */
const FOLD_FINDINGS = 12;

// ---------------------------------------------------------------------------------------------
// The page.

const CSS = `
:root{--fg:#1b1f24;--muted:#5b6470;--line:#d0d7de;--bg:#fff;--code:#f6f8fa;
--def:#1a7f37;--def-bg:#e7f5ea;--sha:#b3261e;--sha-bg:#fde8e7;--fix:#9a4d00;--fix-bg:#fff1dd;
--unc:#7a5d00;--unc-bg:#fff8d6;--unm:#4a5563;--unm-bg:#eceff3;--nc:#6b7480;--nc-bg:#f6f7f9}
*{box-sizing:border-box}
body{margin:0 auto;max-width:1200px;padding:1rem 1.5rem 3rem;color:var(--fg);background:var(--bg);
font:15px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif}
h1{font-size:1.6rem;margin:.5rem 0}h2{font-size:1.3rem;margin:2rem 0 .6rem;border-bottom:1px solid var(--line);padding-bottom:.2rem}
h3{font-size:1.05rem;margin:1.4rem 0 .4rem;overflow-wrap:anywhere}
code,.code{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:.86rem}
.verdict-line{font-size:1.1rem;font-weight:600;padding:.5rem .8rem;border-radius:6px;border-left:6px solid}
.verdict-line.pass{background:var(--def-bg);border-color:var(--def)}
.verdict-line.fail{background:var(--sha-bg);border-color:var(--sha)}
.verdict-line.empty{background:var(--unc-bg);border-color:var(--unc)}
dl.meta{display:grid;grid-template-columns:max-content 1fr;gap:.15rem 1rem;margin:.8rem 0}
dl.meta dt{color:var(--muted)}dl.meta dd{margin:0;overflow-wrap:anywhere}
nav ul{display:flex;flex-wrap:wrap;gap:.3rem 1.2rem;padding:0;list-style:none}
table{border-collapse:collapse;margin:.4rem 0}caption{text-align:left}
table.ledger{width:100%}table.ledger code{overflow-wrap:anywhere}.nw{white-space:nowrap}
th,td{border:1px solid var(--line);padding:.25rem .5rem;text-align:left;vertical-align:top}
thead th{background:var(--code)}
td.num{text-align:right;font-variant-numeric:tabular-nums}
.badge{display:inline-block;min-width:6.5em;padding:0 .4em;border-radius:4px;border:1px solid;font-size:.8rem;font-weight:600;text-align:center;white-space:nowrap}
.b-defended{color:var(--def);background:var(--def-bg)}.b-shadowed{color:var(--sha);background:var(--sha-bg)}
.b-fixture-only{color:var(--fix);background:var(--fix-bg)}.b-uncovered{color:var(--unc);background:var(--unc-bg)}
.b-unmeasured{color:var(--unm);background:var(--unm-bg)}.b-not-code{color:var(--nc);background:var(--nc-bg)}
.b-ok{color:var(--def);background:var(--def-bg)}.b-bad{color:var(--sha);background:var(--sha-bg)}
.b-warn{color:var(--fix);background:var(--fix-bg)}.b-none{color:var(--unm);background:var(--unm-bg)}
table.src{width:100%;table-layout:fixed}
table.src col.ln{width:4.2em}table.src col.v{width:8.5em}table.src col.t{width:34%}
table.src td,table.src th{border-width:0 0 1px 0;padding:.1rem .45rem}
table.src th.ln{text-align:right;color:var(--muted);font-weight:normal;font-family:ui-monospace,monospace;font-size:.8rem}
table.src td.code{white-space:pre-wrap;overflow-wrap:anywhere;tab-size:4}
tr.ctx td.code{color:var(--muted)}
tr.v-defended td.code{background:var(--def-bg)}tr.v-shadowed td.code{background:var(--sha-bg)}
tr.v-fixture-only td.code{background:var(--fix-bg)}tr.v-uncovered td.code{background:var(--unc-bg)}
tr.v-unmeasured td.code{background:var(--unm-bg)}tr.v-not-code td.code{background:var(--nc-bg)}
tr.v-shadowed th.ln{border-left:4px solid var(--sha)}tr.v-fixture-only th.ln{border-left:4px solid var(--fix)}
tr.v-uncovered th.ln{border-left:4px solid var(--unc)}tr.v-defended th.ln{border-left:4px solid var(--def)}
tr.v-unmeasured th.ln{border-left:4px solid var(--unm)}
tr.gap td{color:var(--muted);background:var(--code);font-style:italic;text-align:center}
td.tests{font-size:.85rem;overflow-wrap:anywhere}
td.tests ul{margin:.2rem 0;padding-left:1.1rem}
.tag{display:inline-block;padding:0 .35em;border-radius:3px;font-size:.72rem;font-weight:700;text-transform:uppercase;border:1px solid}
.tag.frozen{color:var(--sha);background:var(--sha-bg)}.tag.live{color:var(--def);background:var(--def-bg)}
.tag.fixture{color:var(--fix);background:var(--fix-bg)}
.note{color:var(--muted);font-weight:normal}
summary{cursor:pointer}
.legend{display:flex;flex-wrap:wrap;gap:.4rem 1.2rem;padding:0;list-style:none}
.chart{max-width:720px;width:100%;height:auto}
.chart .axis{stroke:#8c959f;stroke-width:1}.chart .grid{stroke:#d8dee4;stroke-width:1}
.chart .trend{fill:none;stroke:var(--sha);stroke-width:2}
.chart .point{fill:var(--sha)}.chart .unmeasured{stroke:var(--unm);stroke-width:2}.chart text{fill:var(--muted);font-size:11px}
.skip{color:var(--muted)}
`;

let csp: string | null = null;

/**
 * The page's policy. The inline stylesheet is allowed by its hash, so the policy can refuse
 * every other style. Made on first use: node:crypto is loaded only when a page is written,
 * not by every audit that loads this module (docs/performance.md).
 */
function contentSecurityPolicy(): string {
  const hash = () =>
    process.getBuiltinModule("node:crypto").createHash("sha256").update(CSS).digest("base64");
  csp ??= `default-src 'none'; style-src 'sha256-${hash()}'; img-src data:; script-src 'none'; base-uri 'none'; form-action 'none'`;
  return csp;
}

function badge(verdict: Verdict): Html {
  return h`<span class="badge b-${verdict}">${VERDICT_LABEL[verdict]}</span>`;
}

// ---------------------------------------------------------------------------------------------
// Summary.

function summarySection(audit: AuditReport): Html {
  const s = audit.summary;
  const failOn = new Set<string>(audit.gate.failOn);
  const executed = s.counts.defended + s.counts["fixture-only"] + s.counts.shadowed;
  const ratio =
    s.shadowRatio === null
      ? "n/a: no changed line was executed by a test"
      : `${pct(s.shadowRatio)} (${s.counts.shadowed} of ${executed} executed changed lines are covered only by frozen tests)`;
  const rows = VERDICT_ORDER.map(
    (v) =>
      h`<tr><th scope="row">${badge(v)}</th><td class="num">${s.counts[v]}</td><td>${
        v === "defended" || v === "not-code" ? "never" : failOn.has(v) ? "yes" : "no"
      }</td><td>${VERDICT_MEANING[v]}</td></tr>`,
  );
  return h`<section id="summary" aria-labelledby="summary-h">
<h2 id="summary-h">Summary</h2>
<p>${plural(s.files, "file")} audited, ${plural(s.lines, "changed line")}. Shadow ratio: <strong>${ratio}</strong>.</p>
<table>
<caption class="note">Changed lines by verdict</caption>
<thead><tr><th scope="col">Verdict</th><th scope="col">Lines</th><th scope="col">Fails the gate</th><th scope="col">Meaning</th></tr></thead>
<tbody>
${rows.map((r) => h`${r}\n`)}</tbody>
</table>
${
  audit.gate.passed
    ? h`<p>Shadow gate: no changed line fails it (fail on: ${audit.gate.failOn.join(", ")}).</p>`
    : h`<ul>${audit.gate.reasons.map((r) => h`<li>${r}</li>`)}</ul>`
}
</section>`;
}

// ---------------------------------------------------------------------------------------------
// Files.

type FileReport = AuditReport["files"][number];
type LineReport = FileReport["lines"][number];

function lineAnchor(fileIndex: number, line: number): string {
  return `f${fileIndex}-L${line}`;
}

function testItems(ids: readonly string[], kind: "frozen" | "live" | "fixture"): Html[] {
  const word = kind === "fixture" ? "setup/teardown" : kind;
  return ids.map((id) => h`<li><span class="tag ${kind}">${word}</span> <code>${id}</code></li>`);
}

function testsCell(line: LineReport, measured: boolean): Html {
  const notes: Html[] = [];
  if (line.statement !== null && line.statement !== line.line) {
    notes.push(h`<div class="note">part of the statement on line ${line.statement}</div>`);
  }
  const total = line.tests.length + line.frozenTests.length + line.fixtureTests.length;
  if (total === 0) {
    const why =
      line.verdict === "not-code"
        ? "not a statement"
        : !measured || line.verdict === "unmeasured"
          ? "file not in the coverage data"
          : line.outsideTests
            ? "no test; ran only outside tests (import time)"
            : "no test executed it";
    return h`${notes}<span class="note">${why}</span>`;
  }
  const counts = [
    line.frozenTests.length > 0 ? `${line.frozenTests.length} frozen` : "",
    line.tests.length > 0 ? `${line.tests.length} live` : "",
    line.fixtureTests.length > 0 ? `${line.fixtureTests.length} setup/teardown only` : "",
  ].filter((c) => c !== "");
  // What makes a line fail is who ran it: show that without a click.
  const open = line.verdict === "shadowed" || line.verdict === "fixture-only";
  return h`${notes}<details${open ? h` open` : ""}><summary>${plural(total, "test")}: ${counts.join(", ")}</summary><ul>${testItems(line.frozenTests, "frozen")}${testItems(line.tests, "live")}${testItems(line.fixtureTests, "fixture")}</ul>${
    line.outsideTests ? h`<div class="note">also ran outside tests (import time)</div>` : ""
  }</details>`;
}

function fileSection(file: FileReport, index: number, source: string | undefined): Html {
  const lines = source === undefined ? null : sourceLines(source);
  const changed = new Map(file.lines.map((l) => [l.line, l]));
  // Which line numbers to show: every changed line, with a little source around it.
  const shown = new Set<number>();
  for (const l of file.lines) {
    shown.add(l.line);
    if (lines === null) continue;
    for (let n = l.line - CONTEXT_LINES; n <= l.line + CONTEXT_LINES; n++) {
      if (n >= 1 && n <= lines.length) shown.add(n);
    }
  }
  const order = [...shown].sort((a, b) => a - b);
  const rows: Html[] = [];
  let prev = 0;
  for (const n of order) {
    if (n > prev + 1) {
      const from = prev + 1;
      const to = n - 1;
      rows.push(
        h`<tr class="gap"><td colspan="4">${from === to ? `line ${from}` : `lines ${from}-${to}`} not changed</td></tr>`,
      );
    }
    prev = n;
    const text = lines?.[n - 1] ?? "";
    const result = changed.get(n);
    if (result === undefined) {
      rows.push(
        h`<tr class="ctx"><th scope="row" class="ln">${n}</th><td class="v"></td><td class="code">${text}</td><td class="tests"></td></tr>`,
      );
      continue;
    }
    rows.push(
      h`<tr class="changed v-${result.verdict}" id="${lineAnchor(index, n)}" data-verdict="${result.verdict}"><th scope="row" class="ln">${n}</th><td class="v">${badge(result.verdict)}</td><td class="code">${text}</td><td class="tests">${testsCell(result, file.measured)}</td></tr>`,
    );
  }
  const counts = VERDICT_ORDER.map((v) => [v, file.lines.filter((l) => l.verdict === v).length])
    .filter(([, n]) => n !== 0)
    .map(([v, n]) => `${n} ${VERDICT_LABEL[v as Verdict]}`)
    .join(", ");
  return h`<section class="file" id="file-${index}" aria-labelledby="file-${index}-h">
<h3 id="file-${index}-h"><code>${file.path}</code>${file.oldPath === null ? "" : h` <span class="note">(from <code>${file.oldPath}</code>)</span>`}</h3>
<p class="note">${file.status}; ${counts}${file.measured ? "" : "; not in the coverage data"}${lines === null ? "; source text not available, changed line numbers only" : ""}</p>
<table class="src">
<caption class="note">Changed lines of ${file.path} with ${CONTEXT_LINES} lines of context</caption>
<colgroup><col class="ln"><col class="v"><col><col class="t"></colgroup>
<thead><tr><th scope="col">Line</th><th scope="col">Verdict</th><th scope="col">Source</th><th scope="col">Tests that ran it</th></tr></thead>
<tbody>
${rows.map((r) => h`${r}\n`)}</tbody>
</table>
</section>`;
}

function filesSection(audit: AuditReport, sources: ReadonlyMap<string, string>): Html {
  const legend = VERDICT_ORDER.map((v) => h`<li>${badge(v)} ${VERDICT_MEANING[v]}</li>`);
  return h`<section id="files" aria-labelledby="files-h">
<h2 id="files-h">Changed files</h2>
<ul class="legend" aria-label="Verdicts">${legend}</ul>
${audit.files.length === 0 ? h`<p>No changed file was audited.</p>` : ""}${audit.files.map((f, i) => fileSection(f, i, sources.get(f.path)))}
${
  audit.skipped.length === 0
    ? ""
    : h`<h3>Not audited</h3><ul class="skip">${audit.skipped.map(
        (s) => h`<li><code>${s.path}</code> (${SKIP_WORDS[s.reason] ?? s.reason})</li>`,
      )}</ul>`
}
</section>`;
}

// ---------------------------------------------------------------------------------------------
// Gates (check only).

function gateStatus(g: CheckGateReport): Html {
  if (!g.ran) return h`<span class="badge b-none">skipped</span>`;
  if (g.passed) return h`<span class="badge b-ok">passed</span>`;
  return g.blocking
    ? h`<span class="badge b-bad">failed</span>`
    : h`<span class="badge b-warn">failed, not blocking</span>`;
}

function findingRows(
  g: CheckGateReport,
  anchors: ReadonlyMap<string, number>,
  from: number,
  to: number,
): Html[] {
  return g.findings.slice(from, to).map((f) => {
    let where: Html | string = "";
    if (f.path !== undefined) {
      const fileIndex = anchors.get(f.path);
      const label = f.line === undefined ? f.path : `${f.path}:${f.line}`;
      where =
        fileIndex !== undefined && f.line !== undefined
          ? h`<a href="#${lineAnchor(fileIndex, f.line)}"><code>${label}</code></a>`
          : h`<code>${label}</code>`;
    }
    const sev = f.severity === "error" ? "b-bad" : f.severity === "warning" ? "b-warn" : "b-none";
    return h`<tr><td><span class="badge ${sev}">${f.severity}</span></td><td><code>${f.code}</code></td><td>${f.message}</td><td>${where}</td></tr>\n`;
  });
}

function gateDetails(g: CheckGateReport, anchors: ReadonlyMap<string, number>): Html {
  const head = h`<thead><tr><th scope="col">Severity</th><th scope="col">Code</th><th scope="col">Finding</th><th scope="col">Where</th></tr></thead>`;
  const findings =
    g.findings.length === 0
      ? h`<p class="note">No findings.</p>`
      : h`<table><caption class="note">Findings of the ${g.gate} gate</caption>${head}<tbody>
${findingRows(g, anchors, 0, FOLD_FINDINGS)}</tbody></table>${
          g.findings.length > FOLD_FINDINGS
            ? h`<details><summary>${g.findings.length - FOLD_FINDINGS} more findings</summary><table>${head}<tbody>
${findingRows(g, anchors, FOLD_FINDINGS, g.findings.length)}</tbody></table></details>`
            : ""
        }`;
  const notes = [
    ...(g.skippedBecause === undefined ? [] : [`skipped: ${g.skippedBecause}`]),
    ...g.notes,
  ];
  return h`<section class="gate" aria-labelledby="gate-${g.gate}-h">
<h3 id="gate-${g.gate}-h">${g.gate} gate ${gateStatus(g)}${g.blocking ? "" : h` <span class="note">(not blocking)</span>`}</h3>
${findings}${notes.length === 0 ? "" : h`<ul class="note">${notes.map((n) => h`<li>${n}</li>`)}</ul>`}
</section>`;
}

function gatesSection(check: CheckReport): Html {
  const anchors = new Map(check.audit.files.map((f, i) => [f.path, i]));
  const rows = check.gates.map(
    (g) =>
      h`<tr><th scope="row">${g.gate}</th><td>${g.blocking ? "yes" : "no"}</td><td>${gateStatus(g)}</td><td class="num">${g.findings.filter((f) => f.severity === "error").length}</td><td class="num">${g.findings.length}</td></tr>\n`,
  );
  return h`<section id="gates" aria-labelledby="gates-h">
<h2 id="gates-h">Gates</h2>
<table>
<caption class="note">Which gates ran, and whether they failed</caption>
<thead><tr><th scope="col">Gate</th><th scope="col">Blocking</th><th scope="col">Result</th><th scope="col">Errors</th><th scope="col">Findings</th></tr></thead>
<tbody>
${rows}</tbody>
</table>
${check.gates.map((g) => gateDetails(g, anchors))}
</section>`;
}

// ---------------------------------------------------------------------------------------------
// Ledger (check only).

function expiryCell(e: CheckLedgerEntry): Html {
  const d = e.daysToExpiry;
  if (d === null) return h`<span class="badge b-bad">bad date</span>`;
  if (d < 0) return h`<span class="badge b-bad">expired</span> ${plural(-d, "day")} ago`;
  if (d === 0) return h`<span class="badge b-warn">last day</span> today`;
  return h`${plural(d, "day")}`;
}

function depositCell(e: CheckLedgerEntry, deposit: CheckGateReport | undefined): Html {
  if (e.deposit.state === "not-judged") return h`<span class="badge b-none">not judged</span>`;
  if (e.deposit.state === "ok") return h`<span class="badge b-ok">ok</span>`;
  const messages = (deposit?.findings ?? []).filter(
    (f) => f.severity === "error" && f.testId === e.testId,
  );
  return h`<span class="badge b-bad">failed</span> <code>${e.deposit.codes.join(", ")}</code><details><summary>why</summary><ul>${messages.map((f) => h`<li>${f.message}</li>`)}</ul></details>`;
}

function ledgerSection(check: CheckReport): Html {
  const l = check.ledger;
  const entries = l.entries;
  const deposit = check.gates.find((g) => g.gate === "deposit");
  const rows = entries.map(
    (e) =>
      h`<tr><th scope="row"><code>${e.testId}</code>${e.reason === "" ? "" : h`<div class="note">${e.reason}</div>`}</th><td>${e.owner === "" ? h`<span class="note">none</span>` : e.owner}${e.approvedBy === null ? "" : h`<div class="note">approved by ${e.approvedBy}</div>`}</td><td class="nw">${e.opened}</td><td class="num nw">${e.ageDays === null ? "?" : plural(e.ageDays, "day")}</td><td class="nw">${e.expires}</td><td class="nw">${expiryCell(e)}</td><td>${e.invariant}</td><td><code>${e.compensatingProperty}</code>${e.reusedProperty ? h`<div class="note">reused</div>` : ""}</td><td>${depositCell(e, deposit)}</td></tr>\n`,
  );
  return h`<section id="ledger" aria-labelledby="ledger-h">
<h2 id="ledger-h">Freeze ledger</h2>
<p><code>${l.file}</code> (${describeSource(l.format)}): ${plural(l.freezes, "freeze")}, ${plural(l.properties, "property", "properties")}; ages judged on ${check.today}.</p>
${
  entries.length === 0
    ? h`<p>No freezes.</p>`
    : h`<table class="ledger">
<caption class="note">Every freeze in the ledger</caption>
<thead><tr><th scope="col">Frozen test and reason</th><th scope="col">Owner</th><th scope="col">Opened</th><th scope="col">Age</th><th scope="col">Expires</th><th scope="col">Days to expiry</th><th scope="col">Invariant withdrawn</th><th scope="col">Compensating property</th><th scope="col">Deposit</th></tr></thead>
<tbody>
${rows}</tbody>
</table>`
}
</section>`;
}

// ---------------------------------------------------------------------------------------------
// Trend.

const CHART = { width: 720, height: 240, left: 48, right: 16, top: 16, bottom: 40 };

function round(n: number): string {
  return String(Math.round(n * 10) / 10);
}

function trendChart(history: readonly Stats[]): Html {
  const { width, height, left, right, top, bottom } = CHART;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const x = (i: number) =>
    left + (history.length === 1 ? plotW / 2 : (plotW * i) / (history.length - 1));
  const y = (ratio: number) => top + plotH * (1 - Math.min(1, Math.max(0, ratio)));
  const grid = [0, 0.25, 0.5, 0.75, 1].map(
    (r) =>
      h`<line class="grid" x1="${left}" x2="${width - right}" y1="${round(y(r))}" y2="${round(y(r))}"/><text x="${left - 6}" y="${round(y(r) + 4)}" text-anchor="end">${`${r * 100}%`}</text>`,
  );
  // A run without a ratio breaks the line rather than pretending it was zero.
  const segments: string[][] = [];
  let current: string[] = [];
  history.forEach((s, i) => {
    if (s.shadowRatio === null) {
      if (current.length > 0) segments.push(current);
      current = [];
      return;
    }
    current.push(`${round(x(i))},${round(y(s.shadowRatio))}`);
  });
  if (current.length > 0) segments.push(current);
  const lines = segments
    .filter((seg) => seg.length > 1)
    .map((seg) => h`<polyline class="trend" points="${seg.join(" ")}"/>`);
  const points = history.map((s, i) =>
    s.shadowRatio === null
      ? h`<path class="unmeasured" d="M${round(x(i) - 4)},${round(top + plotH - 4)}l8,8m0,-8l-8,8"><title>${s.date}: not measured</title></path>`
      : h`<circle class="point" cx="${round(x(i))}" cy="${round(y(s.shadowRatio))}" r="3.5"><title>${s.date}: ${pct(s.shadowRatio)}</title></circle>`,
  );
  const labelIdx = [...new Set([0, Math.floor((history.length - 1) / 2), history.length - 1])];
  const labels = labelIdx.map((i) => {
    const s = history[i] as Stats;
    // The outer labels lean inwards so that neither is cut off at the edge of the chart.
    const anchor =
      history.length === 1
        ? "middle"
        : i === 0
          ? "start"
          : i === history.length - 1
            ? "end"
            : "middle";
    return h`<text x="${round(x(i))}" y="${height - bottom + 18}" text-anchor="${anchor}">${s.date}</text>`;
  });
  const measured = history.filter((s) => s.shadowRatio !== null);
  const last = measured[measured.length - 1];
  const desc =
    last === undefined
      ? `${plural(history.length, "run")}, none with a measured shadow ratio.`
      : `${plural(history.length, "run")} from ${history[0]?.date} to ${history[history.length - 1]?.date}; latest measured shadow ratio ${pct(last.shadowRatio)} on ${last.date}${measured.length < history.length ? `; ${plural(history.length - measured.length, "run")} without a shadow ratio (marked x)` : ""}.`;
  return h`<svg class="chart" viewBox="0 0 ${width} ${height}" role="img" aria-labelledby="trend-title trend-desc" xmlns="http://www.w3.org/2000/svg">
<title id="trend-title">Shadow ratio per run</title><desc id="trend-desc">${desc}</desc>
${grid}<line class="axis" x1="${left}" x2="${left}" y1="${top}" y2="${top + plotH}"/><line class="axis" x1="${left}" x2="${width - right}" y1="${top + plotH}" y2="${top + plotH}"/>
${lines}${points}${labels}
</svg>
<p class="note">${desc}</p>`;
}

function trendSection(history: readonly Stats[] | null): Html {
  let body: Html;
  if (history === null) {
    body = h`<p class="note">No history was given: <code>freezegate stats --history FILE</code> records one run per line.</p>`;
  } else if (history.length === 0) {
    body = h`<p class="note">The history has no runs yet.</p>`;
  } else {
    const rows = history.map(
      (s) =>
        h`<tr><td>${s.date}</td><td><code>${s.commit === null ? "" : s.commit.slice(0, 12)}</code></td><td class="num">${pct(s.shadowRatio)}</td><td class="num">${s.openFreezes}</td><td class="num">${s.expired}</td><td class="num">${s.medianAgeDays ?? "n/a"}</td><td class="num">${s.depositFailures ?? "n/a"}</td><td class="num">${s.orphanedProperties}</td></tr>\n`,
    );
    body = h`${trendChart(history)}
<details><summary>The figures</summary><table>
<caption class="note">One row per recorded run, oldest first</caption>
<thead><tr><th scope="col">Date</th><th scope="col">Commit</th><th scope="col">Shadow ratio</th><th scope="col">Open freezes</th><th scope="col">Expired</th><th scope="col">Median age (days)</th><th scope="col">Deposit failures</th><th scope="col">Orphaned properties</th></tr></thead>
<tbody>
${rows}</tbody></table></details>`;
  }
  return h`<section id="trend" aria-labelledby="trend-h">
<h2 id="trend-h">Shadow-ratio trend</h2>
${body}
</section>`;
}

// ---------------------------------------------------------------------------------------------

function verdictLine(report: AuditReport | CheckReport): Html {
  if (report.schema === "freezegate/check") {
    return report.passed
      ? h`<p class="verdict-line pass" role="status">PASS: no blocking gate failed</p>`
      : h`<p class="verdict-line fail" role="status">FAIL: blocking gate${report.failedGates.length === 1 ? "" : "s"} failed: ${report.failedGates.join(", ")}</p>`;
  }
  if (report.summary.emptyPatch !== null) {
    return h`<p class="verdict-line empty" role="status">PASS: ${report.summary.emptyPatch.message}</p>`;
  }
  return report.gate.passed
    ? h`<p class="verdict-line pass" role="status">PASS: no changed line fails the gate</p>`
    : h`<p class="verdict-line fail" role="status">FAIL: ${report.gate.reasons.join("; ")}</p>`;
}

/** A check's verdict is its gates'; that its patch changed no file is said beside it. */
function emptyPatchLine(report: AuditReport | CheckReport): Html | string {
  if (report.schema !== "freezegate/check" || report.audit.summary.emptyPatch === null) return "";
  return h`
<p class="verdict-line empty" role="note">${report.audit.summary.emptyPatch.message}</p>`;
}

export const renderHtml: Renderer = (report: AuditReport | CheckReport, ctx: RenderContext) => {
  const check = report.schema === "freezegate/check" ? report : null;
  const audit = check === null ? (report as AuditReport) : check.audit;
  const kind = check === null ? "audit" : "check";
  const c = audit.coverage;
  const meta: Array<[string, Part]> = [
    ["Patch", describePatch(audit)],
    [
      "Coverage",
      `${c.dataFiles.join(", ")} (${recorderWords(c)}, ${c.branch ? "branch" : "line"} data, ${plural(c.tests, "test")})`,
    ],
    ["Frozen tests", `${audit.frozen.file}: ${plural(audit.frozen.tests.length, "test")}`],
  ];
  if (check !== null) {
    meta.push(["Ledger", `${check.ledger.file} (${describeSource(check.ledger.format)})`]);
    meta.push(["Judged on", check.today]);
  }
  meta.push(["Tool", `freezegate ${report.tool.version}`]);
  const toc = [
    h`<li><a href="#summary">Summary</a></li>`,
    check === null ? "" : h`<li><a href="#gates">Gates</a></li>`,
    h`<li><a href="#files">Changed files</a></li>`,
    check === null ? "" : h`<li><a href="#ledger">Freeze ledger</a></li>`,
    h`<li><a href="#trend">Shadow-ratio trend</a></li>`,
  ];
  const header = h`<h1>freezegate ${kind} report</h1>
${verdictLine(report)}${emptyPatchLine(report)}
<dl class="meta">${meta.map(([k, v]) => h`<dt>${k}</dt><dd>${v}</dd>`)}</dl>
${
  audit.frozen.unresolved.length === 0
    ? ""
    : h`<p class="note">Frozen ids matching no test (allowed): ${audit.frozen.unresolved.map((id, i) => h`${i === 0 ? "" : ", "}<code>${id}</code>`)}</p>`
}
<nav aria-label="Sections"><ul>${toc}</ul></nav>`;
  const main = h`${summarySection(audit)}
${check === null ? "" : gatesSection(check)}
${filesSection(audit, ctx.sources)}
${check === null ? "" : ledgerSection(check)}
${trendSection(ctx.history)}`;
  const passed = check === null ? audit.gate.passed : check.passed;
  return htmlPage(
    report.tool.version,
    `freezegate ${kind}: ${passed ? "PASS" : "FAIL"}`,
    header,
    main,
  );
};

/** The page around a report: the policy, the stylesheet, no script. */
function htmlPage(version: string, title: string, header: Html, main: Html): string {
  return h`<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy()}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="generator" content="freezegate ${version}">
<title>${title}</title>
<link rel="icon" href="data:,">
<style>${new Html(CSS)}</style>
</head>
<body>
<header>
${header}
</header>
<main>
${main}
</main>
</body>
</html>
`.markup;
}

// ---------------------------------------------------------------------------------------------
// calibrate's page: the verdict, what failed, and every canary with what the gate did with it.

const CANARY_KIND_MEANING: Record<CalibrateReport["canaries"][number]["kind"], string> = {
  shadow: "only frozen tests execute it: the gate must fire",
  control: "a live test executes it: the gate must not fire",
  uncovered: "no test executes it: the gate fires when fail-on names uncovered",
};

/** A mutant's class as a badge: a control's survivor is the one to look at. */
function mutantBadge(x: CalibrateMutants["mutants"][number]): Html {
  const tone =
    x.class === "survived" && x.canary === "control"
      ? "b-bad"
      : x.class === "live" || x.class === "frozen"
        ? "b-ok"
        : "b-none";
  return h`<span class="badge ${tone}">${x.class}</span>`;
}

/** calibrate's mutants section: the sentence, the notes and every mutant; none without them. */
function calibrateMutantsHtml(m: CalibrateMutants | undefined): Html | string {
  if (m === undefined) return "";
  const rows = m.mutants.map(
    (x) =>
      h`<tr><td>${x.canary}</td><td><code>${x.path}:${x.line}</code></td><td>${x.kind}: <code>${x.description}</code></td><td>${mutantBadge(x)}</td><td>${x.killedBy.map((id, i) => h`${i > 0 ? ", " : ""}<code>${id}</code>`)}</td></tr>
`,
  );
  return h`
<section id="mutants" aria-labelledby="mutants-h">
<h2 id="mutants-h">Mutants</h2>
<p>${m.summary}</p>
<p>Run by <code>${m.command}</code>. A shadow statement's mutants ran against the frozen tests that execute it, a control's against the live tests that execute it; the mutants never change the verdict.</p>
${m.notes.length === 0 ? "" : h`<ul>${m.notes.map((n) => h`<li>${n}</li>`)}</ul>`}
${
  rows.length === 0
    ? ""
    : h`<table class="ledger">
<thead><tr><th scope="col">Canary</th><th scope="col">Statement</th><th scope="col">Mutation</th><th scope="col">Class</th><th scope="col">Killed by</th></tr></thead>
<tbody>
${rows}</tbody>
</table>`
}
</section>`;
}

export function renderCalibrateHtml(r: CalibrateReport): string {
  const v = calibrateVerdict(r);
  const f = r.settings.frozen;
  const meta: Array<[string, Part]> = [
    ["Gate", `${r.settings.gate}'s`],
    [
      "Frozen tests",
      `${f.file}: ${plural(f.entries, "entry", "entries")}, ${plural(f.tests, "test")} in the data${f.muted === 0 ? "" : `, and ${plural(f.muted, "test")} an xfail muted`}`,
    ],
    ...(r.appliedRecord === null
      ? []
      : [
          [
            "Applied record",
            `${r.appliedRecord.file}: ${r.appliedRecord.agrees ? "the tests applied the frozen list the gate reads" : "the tests applied another frozen list"}`,
          ] as [string, Part],
        ]),
    ["Fail on", r.settings.failOn.join(", ")],
    ["Sample", `seed ${r.settings.seed}, at most ${r.settings.max} canaries`],
    ["Tool", `freezegate ${r.tool.version}`],
  ];
  const header = h`<h1>freezegate calibrate report</h1>
<p class="verdict-line ${v.passed ? "pass" : "fail"}" role="status">${v.passed ? "PASS" : "FAIL"}: ${v.text}</p>
<dl class="meta">${meta.map(([k, val]) => h`<dt>${k}</dt><dd>${val}</dd>`)}</dl>`;
  const failures =
    r.failures.length === 0
      ? ""
      : h`<section id="failures" aria-labelledby="failures-h">
<h2 id="failures-h">Why the gate cannot be trusted</h2>
<ul>${r.failures.map((f) => h`<li>${f}</li>`)}</ul>
</section>
`;
  const summary = CANARY_KINDS.map((kind) => {
    const s = r.summary[kind];
    return h`<tr><th scope="row">${kind}</th><td class="num">${s.canaries}</td><td class="num">${s.fired}</td><td class="num">${s.qualified}</td><td>${CANARY_KIND_MEANING[kind]}</td></tr>
`;
  });
  const rows = r.canaries.map(
    (c) =>
      h`<tr><td>${c.kind}</td><td><code>${c.path}:${c.line}</code></td><td>${c.mutation}: <code>${c.text.trim()}</code> \u2192 <code>${c.mutant.trim()}</code></td><td>${c.verdict === null ? h`<span class="skip">skipped: ${c.skipped}</span>` : badge(c.verdict)}</td><td>${c.ok ? h`<span class="badge b-ok">yes</span>` : h`<span class="badge b-bad">no</span> ${c.reason}`}</td></tr>
`,
  );
  const main = h`${failures}<section id="summary" aria-labelledby="summary-h">
<h2 id="summary-h">Canaries</h2>
<table>
<thead><tr><th scope="col">Kind</th><th scope="col">Canaries</th><th scope="col">Fired</th><th scope="col">Qualified</th><th scope="col">Meaning</th></tr></thead>
<tbody>
${summary}</tbody>
</table>
${
  r.canaries.length === 0
    ? ""
    : h`<table class="ledger">
<thead><tr><th scope="col">Kind</th><th scope="col">Statement</th><th scope="col">Edit</th><th scope="col">Verdict</th><th scope="col">As it must</th></tr></thead>
<tbody>
${rows}</tbody>
</table>`
}
</section>${calibrateMutantsHtml(r.mutants)}`;
  return htmlPage(
    r.tool.version,
    `freezegate calibrate: ${v.passed ? "PASS" : "FAIL"}`,
    header,
    main,
  );
}
