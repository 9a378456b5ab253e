// The report formats by name: what `--format` and `--output FORMAT=FILE` accept, for audit,
// check and calibrate alike. Each format renders one result object (an audit or a check report
// through `render`, a calibrate report through `calibrate`) with the same context, so no two
// formats can disagree, and a new format is one entry here that every command gets.

import type { Stats } from "../core/stats.js";
import type { AuditReport } from "./audit-report.js";
import {
  type CalibrateReport,
  isCalibrateReport,
  renderCalibrateGithub,
  renderCalibrateJunit,
  renderCalibrateMarkdown,
  renderCalibrateText,
} from "./calibrate-report.js";
import { type CheckReport, renderCheckText } from "./check-report.js";
import { renderGithub } from "./github.js";
import { renderCalibrateHtml, renderHtml } from "./html.js";
import { isCheckReport } from "./issues.js";
import { renderJunit } from "./junit.js";
import { renderMarkdown } from "./markdown.js";
import { renderCalibrateSarif, renderSarif } from "./sarif.js";
import { paintCheckText, renderAuditVerdict, renderCheckVerdict, renderText } from "./text.js";
import { jsonText } from "./words.js";

export interface RenderContext {
  /** Colour on? (text only) */
  color: boolean;
  /** --quiet (text only) */
  quiet: boolean;
  /** For the text, HTML and SARIF reports: source text of each changed file (repo path -> text). */
  sources: ReadonlyMap<string, string>;
  /** For the HTML report: the stats history (JSON lines already parsed), or null. */
  history: readonly Stats[] | null;
  /** Where the user stands, as a repository path (text only; see TextOptions.directory). */
  directory?: string;
}

export type Renderer = (report: AuditReport | CheckReport, ctx: RenderContext) => string;

/** Every report a command renders through the registry. */
export type Report = AuditReport | CheckReport | CalibrateReport;

export interface FormatSpec {
  /** One line for --help. */
  description: string;
  render: Renderer;
  /** The same format for calibrate's report. */
  calibrate: (report: CalibrateReport, ctx: RenderContext) => string;
}

function renderTextFormat(report: AuditReport | CheckReport, ctx: RenderContext): string {
  const options = {
    color: ctx.color,
    sources: ctx.sources,
    ...(ctx.directory === undefined ? {} : { directory: ctx.directory }),
  };
  if (isCheckReport(report)) {
    if (ctx.quiet) return renderCheckVerdict(report, options);
    const plain = renderCheckText(report, options);
    return ctx.color ? paintCheckText(plain, report, options) : plain;
  }
  return ctx.quiet ? renderAuditVerdict(report, options) : renderText(report, options);
}

export const FORMATS = {
  text: {
    description: "human-readable (the default)",
    render: renderTextFormat,
    calibrate: renderCalibrateText,
  },
  json: {
    description: "the versioned JSON contract (docs/json-contract.md)",
    render: (report) => jsonText(report),
    calibrate: (report) => jsonText(report),
  },
  markdown: {
    description: "GitHub-flavoured Markdown for PR comments and $GITHUB_STEP_SUMMARY",
    render: (report) => renderMarkdown(report),
    calibrate: (report) => renderCalibrateMarkdown(report),
  },
  github: {
    description: "GitHub Actions annotations (workflow commands)",
    render: (report) => renderGithub(report),
    calibrate: (report) => renderCalibrateGithub(report),
  },
  sarif: {
    description: "SARIF 2.1.0 for code scanning",
    render: (report, ctx) => renderSarif(report, ctx),
    calibrate: (report) => renderCalibrateSarif(report),
  },
  junit: {
    description: "JUnit XML, one testcase per gate",
    render: (report) => renderJunit(report),
    calibrate: (report) => renderCalibrateJunit(report),
  },
  html: {
    description: "one self-contained HTML page: lines and their tests, gates, ledger, trend",
    render: renderHtml,
    calibrate: (report) => renderCalibrateHtml(report),
  },
} satisfies Record<string, FormatSpec>;

export type FormatName = keyof typeof FORMATS;

/** The format names in registry order (the order --help lists them). */
export function formatNames(): FormatName[] {
  return Object.keys(FORMATS) as FormatName[];
}

export function isFormat(name: string): name is FormatName {
  return Object.hasOwn(FORMATS, name);
}

/** A context for callers that have no terminal, sources or history (library use, tests). */
export const PLAIN_CONTEXT: RenderContext = {
  color: false,
  quiet: false,
  sources: new Map(),
  history: null,
};

export function renderReport(
  format: FormatName,
  report: Report,
  ctx: RenderContext = PLAIN_CONTEXT,
): string {
  const spec: FormatSpec = FORMATS[format];
  return isCalibrateReport(report) ? spec.calibrate(report, ctx) : spec.render(report, ctx);
}
