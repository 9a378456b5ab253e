// The report formats on hand-built result objects: what each format must guarantee whatever the
// repository puts in paths and test names (escaping, GitHub's limits, SARIF's shape, one
// verdict everywhere), and the output plumbing's pure parts (format flags, colour rules, the
// all-or-nothing writer). The golden files on the real example are in
// test/integration/report-formats.test.ts.

import * as fs from "node:fs";
import {
  existsSync,
  linkSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  realpathSync,
  renameSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { writeFilesAtomically } from "../../src/adapters/write-file.js";
import { renderGate } from "../../src/cli/gate-output.js";
import {
  colorEnabled,
  dataReadProgress,
  parseOutputRequest,
  planOutputs,
} from "../../src/cli/output-options.js";
import { FreezegateError } from "../../src/core/errors.js";
import { FINDING_CODES, type Finding } from "../../src/core/findings.js";
import type { LineResult, Verdict } from "../../src/core/shadow-audit.js";
import type { AuditReport } from "../../src/reporters/audit-report.js";
import type { CheckGateReport, CheckReport } from "../../src/reporters/check-report.js";
import { renderCheckText } from "../../src/reporters/check-report.js";
import {
  ANNOTATIONS_PER_LEVEL,
  escapeData,
  escapeProperty,
  renderGithub,
  TITLE_MAX,
} from "../../src/reporters/github.js";
import { CODE_INFO, lineIssues, REPORT_CODES, reportIssues } from "../../src/reporters/issues.js";
import { escapeXml, renderJunit } from "../../src/reporters/junit.js";
import { mdCode, mdText, ROWS_SHOWN, renderMarkdown } from "../../src/reporters/markdown.js";
import {
  FORMATS,
  formatNames,
  isFormat,
  PLAIN_CONTEXT,
  renderReport,
} from "../../src/reporters/registry.js";
import { pathToUri, renderSarif } from "../../src/reporters/sarif.js";
import { renderText } from "../../src/reporters/text.js";
import { visible } from "../../src/reporters/words.js";
import { validateSarif } from "../helpers/sarif.js";

// ---------------------------------------------------------------------------------------------
// Hand-built reports.

const EVIL = "tests/test_x.py::test_evil[<script>alert(1)</script>|`tick`|*b*|@octocat\nline2]";
const FROZEN = "tests/test_a.py::test_frozen";
const LIVE = "tests/test_a.py::test_live";

function line(n: number, verdict: Verdict, over: Partial<LineResult> = {}): LineResult {
  return {
    line: n,
    verdict,
    statement: verdict === "not-code" ? null : n,
    tests: verdict === "defended" ? [LIVE] : [],
    frozenTests: verdict === "shadowed" ? [FROZEN] : [],
    fixtureTests: verdict === "fixture-only" ? [LIVE] : [],
    outsideTests: false,
    ...over,
  };
}

function auditReport(
  files: AuditReport["files"],
  over: { failOn?: AuditReport["gate"]["failOn"]; unresolved?: string[] } = {},
): AuditReport {
  const counts = {
    defended: 0,
    shadowed: 0,
    "fixture-only": 0,
    uncovered: 0,
    unmeasured: 0,
    "not-code": 0,
  };
  for (const f of files) for (const l of f.lines) counts[l.verdict]++;
  const failOn = over.failOn ?? ["shadowed"];
  const reasons = failOn
    .filter((v) => counts[v] > 0)
    .map((v) => `${counts[v]} changed line(s) are ${v}`);
  const executed = counts.defended + counts.shadowed + counts["fixture-only"];
  return {
    schema: "freezegate/audit",
    schemaVersion: 1,
    tool: { name: "freezegate", version: "9.9.9" },
    gate: { passed: reasons.length === 0, exitCode: reasons.length === 0 ? 0 : 1, failOn, reasons },
    patch: { source: "range", base: "origin/main", head: "HEAD", mergeBase: "a".repeat(40) },
    coverage: {
      format: "coverage.py-sqlite",
      dataFiles: [".coverage"],
      coverageVersion: "6.5.0",
      branch: false,
      recordedAt: null,
      contextStyle: "pytest-cov",
      tests: 3,
    },
    frozen: {
      file: "quarantine.json",
      format: "quarantine",
      entries: 1,
      tests: [FROZEN],
      unresolved: over.unresolved ?? [],
    },
    summary: {
      files: files.length,
      lines: Object.values(counts).reduce((a, b) => a + b, 0),
      counts,
      shadowRatio: executed === 0 ? null : counts.shadowed / executed,
      emptyPatch: null,
    },
    files,
    skipped: [],
  };
}

function file(path: string, lines: LineResult[]): AuditReport["files"][number] {
  return { path, oldPath: null, status: "modified", measured: true, lines };
}

function gate(name: string, blocking: boolean, findings: Finding[], ran = true): CheckGateReport {
  return {
    gate: name,
    blocking,
    ran,
    ...(ran ? {} : { skippedBecause: "the ledger did not change" }),
    passed: !(ran && findings.some((f) => f.severity === "error")),
    notes: [],
    findings,
  };
}

function checkReport(audit: AuditReport, gates: CheckGateReport[]): CheckReport {
  const failedGates = gates
    .filter((g) => g.ran && g.blocking && g.findings.some((f) => f.severity === "error"))
    .map((g) => g.gate);
  // A variable, not a literal: the ledger summary may grow fields (they are not this test's).
  const ledger = {
    file: "freeze-ledger.json",
    format: "freezegate" as const,
    freezes: 2,
    properties: 1,
    entries: [],
  };
  return {
    schema: "freezegate/check",
    schemaVersion: 1,
    tool: { name: "freezegate", version: "9.9.9" },
    passed: failedGates.length === 0,
    exitCode: failedGates.length === 0 ? 0 : 1,
    failedGates,
    base: "origin/main",
    today: "2026-11-25",
    ledger,
    knownTests: "3 tests from the coverage data .coverage",
    gates,
    audit,
  };
}

const SHADOW_AUDIT = auditReport([
  file("src/a b/100%,x:y.py", [
    line(3, "defended"),
    line(4, "shadowed"),
    line(5, "shadowed"),
    line(6, "shadowed", { frozenTests: [EVIL] }),
    line(7, "not-code"),
    line(8, "fixture-only"),
    line(9, "uncovered", { outsideTests: true }),
  ]),
  file("src/ünï.py", [line(1, "shadowed", { frozenTests: [FROZEN, EVIL] })]),
]);

const CHECK = checkReport(SHADOW_AUDIT, [
  gate("shadow", true, [
    {
      gate: "shadow",
      code: "shadowed-line",
      severity: "error",
      path: "src/a b/100%,x:y.py",
      line: 4,
      message: "x",
    },
  ]),
  gate("shape", true, [
    {
      gate: "shape",
      code: "expired",
      severity: "error",
      testId: EVIL,
      message: `the freeze of ${EVIL} expired`,
    },
  ]),
  gate("witness", true, [], false),
  gate("deposit", false, [
    {
      gate: "deposit",
      code: "deposit-too-few-inputs",
      severity: "error",
      testId: FROZEN,
      path: "tests/test_a.py",
      message: "ran on 3 distinct inputs",
    },
  ]),
  gate("lock", true, [
    {
      gate: "lock",
      code: "lock-moved",
      severity: "error",
      path: "/elsewhere/property lock.json",
      message: "moved",
    },
  ]),
  gate("ledger-changes", true, [
    {
      gate: "ledger-changes",
      code: "ledger-changed",
      severity: "info",
      testId: FROZEN,
      path: "freeze-ledger.json",
      message: "freeze added",
    },
  ]),
]);

const ctx = (sources: Record<string, string> = {}) => ({
  ...PLAIN_CONTEXT,
  sources: new Map(Object.entries(sources)),
});

// ---------------------------------------------------------------------------------------------

describe("the registry", () => {
  it("names every format once and renders each from both report kinds", () => {
    // (html is registered by the HTML report module, after these.)
    expect(formatNames().slice(0, 6)).toEqual([
      "text",
      "json",
      "markdown",
      "github",
      "sarif",
      "junit",
    ]);
    expect(isFormat("sarif")).toBe(true);
    expect(isFormat("toString")).toBe(false);
    for (const name of formatNames()) {
      expect(FORMATS[name].description).not.toBe("");
      for (const report of [SHADOW_AUDIT, CHECK]) {
        const out = renderReport(name, report, PLAIN_CONTEXT);
        expect(out.endsWith("\n")).toBe(true);
      }
    }
  });

  it("has a title and an explanation for every finding code", () => {
    for (const code of [...FINDING_CODES, ...REPORT_CODES]) {
      expect(CODE_INFO[code], code).toBeDefined();
    }
  });

  it("json is the result object itself", () => {
    expect(JSON.parse(renderReport("json", CHECK))).toEqual(CHECK);
  });
});

describe("text: colour and --quiet", () => {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping SGR codes
  const strip = (s: string) => s.replace(/\u001b\[[0-9;]*m/g, "");

  it("colour off is the plain report byte for byte; colour on only adds escape codes", () => {
    const plain = renderReport("text", SHADOW_AUDIT, PLAIN_CONTEXT);
    expect(plain).toBe(renderText(SHADOW_AUDIT));
    const colored = renderReport("text", SHADOW_AUDIT, { ...PLAIN_CONTEXT, color: true });
    expect(colored).not.toBe(plain);
    expect(colored).toContain("\u001b[31mSHADOWED\u001b[39m");
    expect(strip(colored)).toBe(plain);

    const checkPlain = renderReport("text", CHECK, PLAIN_CONTEXT);
    expect(checkPlain).toBe(renderCheckText(CHECK));
    const checkColored = renderReport("text", CHECK, { ...PLAIN_CONTEXT, color: true });
    expect(strip(checkColored)).toBe(checkPlain);
    expect(checkColored).toContain("gate: \u001b[1m\u001b[31mFAILED (1 error)");
    expect(checkColored).toContain("check: \u001b[1m\u001b[31mFAIL\u001b[39m\u001b[22m (blocking");
  });

  it("--quiet prints only the verdict line, the same as the report's last line", () => {
    const quiet = { ...PLAIN_CONTEXT, quiet: true };
    const audit = renderReport("text", SHADOW_AUDIT, quiet);
    expect(audit.split("\n")).toHaveLength(2);
    expect(audit).toBe(`${renderText(SHADOW_AUDIT).trimEnd().split("\n").pop()}\n`);
    const check = renderReport("text", CHECK, quiet);
    expect(check).toBe("check: FAIL (blocking gates failed: shadow, shape, lock)\n");
    expect(renderCheckText(CHECK).trimEnd().endsWith(check.trimEnd())).toBe(true);
    const passing = auditReport([file("src/a.py", [line(1, "defended")])]);
    expect(renderReport("text", passing, quiet)).toBe(
      "PASS: no changed line fails the gate (fail on: shadowed)\n",
    );
  });
});

describe("text: strings from the repository stay on their line", () => {
  // A newline in a path, test id or ledger string would start a line of its own, and GitHub
  // Actions runs a log line starting with "::" as a workflow command (a forged annotation).
  const FORGED = "\n::error file=README.md,line=1::forged";
  // biome-ignore lint/suspicious/noControlCharactersInRegex: looking for them
  const CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u2028\u2029]/;
  const safe = (out: string) => {
    for (const l of out.split("\n")) {
      expect(l.startsWith("::"), l).toBe(false);
      expect(CONTROL.test(l), JSON.stringify(l)).toBe(false);
    }
  };

  it("visible() writes every control character as an escape and leaves other text alone", () => {
    expect(visible("a\nb\rc\td\u001b[31me\u0085f\u2028g\u2029h\u0000i\u009fj\u007f")).toBe(
      "a\\nb\\rc\\td\\u001b[31me\\u0085f\\u2028g\\u2029h\\u0000i\\u009fj\\u007f",
    );
    const plain = "tests/test_ü.py::test_x[a\\b|<i>|%0A ::x] 100%,x:y.py";
    expect(visible(plain)).toBe(plain);
  });

  it("escapes paths, test ids, reasons and ledger text in the audit, check and gate text", () => {
    const hostile = auditReport(
      [
        {
          ...file(`pk/n${FORGED}.py`, [line(1, "shadowed", { frozenTests: [`t.py::t${FORGED}`] })]),
          oldPath: `old\r${FORGED}.py`,
        },
      ],
      { unresolved: [`gone\u2028::warning::x`] },
    );
    hostile.gate.reasons = [`1 line in pk/n${FORGED}.py`];
    hostile.coverage.dataFiles = [`.cov\u0085::notice::x`];
    hostile.frozen.file = `q${FORGED}.json`;
    hostile.skipped = [{ path: `s\u001b[2J${FORGED}`, reason: "not-source" }];
    const text = renderText(hostile);
    safe(text);
    expect(text).toContain(
      "pk/n\\n::error file=README.md,line=1::forged.py (from old\\r\\n::error file=README.md,line=1::forged.py): 1 shadowed",
    );
    expect(text).toContain(
      "only frozen tests cover it: t.py::t\\n::error file=README.md,line=1::forged",
    );
    safe(renderReport("text", hostile, { ...PLAIN_CONTEXT, quiet: true }));
    const colored = renderReport("text", hostile, { ...PLAIN_CONTEXT, color: true });
    for (const l of colored.split("\n")) expect(l.startsWith("::"), l).toBe(false);

    const finding: Finding = {
      gate: "ledger-changes",
      code: "ledger-changed",
      severity: "info",
      message: `freeze added (owner eve${FORGED})`,
    };
    const check = checkReport(hostile, [
      { ...gate("ledger-changes", true, [finding]), notes: [`note${FORGED}`] },
      { ...gate("witness", true, [], false), skippedBecause: `why${FORGED}` },
    ]);
    check.ledger.file = `l${FORGED}.json`;
    check.knownTests = `3 tests from ${FORGED}`;
    const checkText = renderCheckText(check);
    safe(checkText);
    expect(checkText).toContain(
      "  info    ledger-changed: freeze added (owner eve\\n::error file=README.md,line=1::forged)",
    );
    const checkColored = renderReport("text", check, { ...PLAIN_CONTEXT, color: true });
    for (const l of checkColored.split("\n")) expect(l.startsWith("::"), l).toBe(false);

    const gateText = renderGate(
      { gate: "witness", ran: true, blocking: true, findings: [finding] },
      "text",
      [`n${FORGED}`],
    );
    safe(gateText);
    expect(gateText).toContain("note: n\\n::error file=README.md,line=1::forged");
    safe(
      renderGate(
        { gate: "deposit", ran: false, blocking: true, skippedBecause: FORGED, findings: [] },
        "text",
      ),
    );
  });
});

describe("issues: one list for every format", () => {
  it("takes the failing lines and fixture-only warnings; the check adds its gates' findings", () => {
    const audit = reportIssues(SHADOW_AUDIT);
    expect(audit.map((i) => [i.path, i.line, i.code, i.level])).toEqual([
      ["src/a b/100%,x:y.py", 4, "shadowed-line", "error"],
      ["src/a b/100%,x:y.py", 5, "shadowed-line", "error"],
      ["src/a b/100%,x:y.py", 6, "shadowed-line", "error"],
      ["src/a b/100%,x:y.py", 8, "fixture-only-line", "warning"],
      ["src/ünï.py", 1, "shadowed-line", "error"],
    ]);
    const check = reportIssues(CHECK);
    expect(check.map((i) => [i.gate, i.code, i.level, i.path])).toEqual([
      ["shadow", "shadowed-line", "error", "src/a b/100%,x:y.py"],
      ["shadow", "shadowed-line", "error", "src/a b/100%,x:y.py"],
      ["shadow", "shadowed-line", "error", "src/a b/100%,x:y.py"],
      ["shadow", "fixture-only-line", "warning", "src/a b/100%,x:y.py"],
      ["shadow", "shadowed-line", "error", "src/ünï.py"],
      // A ledger finding without a path points at the ledger.
      ["shape", "expired", "error", "freeze-ledger.json"],
      // A non-blocking gate's errors fail nothing: warnings.
      ["deposit", "deposit-too-few-inputs", "warning", "tests/test_a.py"],
      ["lock", "lock-moved", "error", "/elsewhere/property lock.json"],
      ["ledger-changes", "ledger-changed", "note", "freeze-ledger.json"],
    ]);
  });

  it("the audit's failing lines are the check's shadow findings (the lines the check gates on)", () => {
    const failing = lineIssues(SHADOW_AUDIT).filter((i) => i.level === "error");
    expect(failing.map((i) => `${i.path}:${i.line}`)).toEqual([
      "src/a b/100%,x:y.py:4",
      "src/a b/100%,x:y.py:5",
      "src/a b/100%,x:y.py:6",
      "src/ünï.py:1",
    ]);
  });

  it("uncovered lines are issues only when the gate fails on them", () => {
    const report = auditReport([file("src/a.py", [line(1, "uncovered")])]);
    expect(reportIssues(report)).toEqual([]);
    const failing = auditReport([file("src/a.py", [line(1, "uncovered")])], {
      failOn: ["shadowed", "uncovered"],
    });
    expect(reportIssues(failing).map((i) => i.code)).toEqual(["uncovered-line"]);
  });
});

describe("markdown", () => {
  const md = renderMarkdown(CHECK);

  it("leads with a one-line verdict and counts every verdict", () => {
    expect(md.split("\n")[0]).toBe(
      "### ❌ freezegate check: FAIL — blocking gates failed: shadow, shape, lock",
    );
    const audit = renderMarkdown(SHADOW_AUDIT);
    expect(audit).toMatch(/^\| \*\*shadowed\*\* \(fails the gate\) \| 4 \|$/m);
    expect(audit).toMatch(/^\| \*\*total\*\* \| \*\*8\*\* \|$/m);
  });

  /**
   * The text a Markdown reader treats as live, by CommonMark's rules: backslash escapes and
   * code spans removed (a backtick run opens a span only when unescaped, and closes at the
   * next run of the same length).
   */
  function liveText(markdown: string): string {
    let out = "";
    let i = 0;
    while (i < markdown.length) {
      const c = markdown[i] as string;
      if (c === "\\" && /[!-/:-@[-`{-~]/.test(markdown[i + 1] ?? "")) {
        i += 2;
        continue;
      }
      if (c === "`") {
        const run = /^`+/.exec(markdown.slice(i))?.[0] as string;
        const close = new RegExp(`(?<!\`)${run}(?!\`)`, "g");
        close.lastIndex = i + run.length;
        const end = close.exec(markdown);
        if (end) {
          i = end.index + run.length;
          continue;
        }
        out += run;
        i += run.length;
        continue;
      }
      out += c;
      i++;
    }
    return out;
  }

  it("lets no path, test name or message become markup", () => {
    // Live text has no "<" but the <details>/<summary>/<sub>/<br> this module writes, no
    // "@mention", no markup characters from the evil test name.
    const live = liveText(md);
    expect(live.replace(/<\/?(details|summary|sub|br)>/g, "")).not.toMatch(/</);
    expect(live).not.toMatch(/@octocat/);
    expect(live).not.toMatch(/\*b\*/);
    expect(md).toContain("@\u200boctocat");
    // The newline in the test name did not start a new line: every table row keeps its cells.
    for (const row of md.split("\n").filter((l) => l.startsWith("| "))) {
      const cells = row.replace(/\\\|/g, "").split("|").length;
      const header = md
        .split("\n")
        .slice(0, md.split("\n").indexOf(row) + 1)
        .reverse()
        .find((l, i, all) => l.startsWith("| ") && !all[i + 1]?.startsWith("| "));
      expect(cells, row).toBe((header as string).replace(/\\\|/g, "").split("|").length);
    }
    expect(md).not.toMatch(/^line2/m);
    expect(mdCode("a`b``c")).toBe("```a`b``c```");
    expect(mdCode("`x`")).toBe("`` `x` ``");
    expect(mdCode("a|b")).toBe("`a\\|b`");
    expect(mdCode("a|b", false)).toBe("`a|b`");
    expect(mdText("*a* <b> [c](d) @e")).toBe("\\*a\\* \\<b\\> \\[c\\](d) @\u200be");
  });

  it("folds a long list into <details>", () => {
    const many = auditReport([
      file(
        "src/big.py",
        Array.from({ length: 25 }, (_, i) =>
          line(2 * i + 1, "shadowed", { frozenTests: [`${FROZEN}[${i}]`] }),
        ),
      ),
    ]);
    const out = renderMarkdown(many);
    const shown = out.slice(0, out.indexOf("<details>"));
    expect(shown.match(/^\| `src\/big\.py` \|/gm)).toHaveLength(ROWS_SHOWN);
    expect(out).toContain(`<details><summary>${25 - ROWS_SHOWN} more shadowed ranges</summary>`);
    expect(out.match(/^\| `src\/big\.py` \|/gm)).toHaveLength(25);
  });
});

describe("github annotations", () => {
  it("escapes data and properties the way actions/toolkit does", () => {
    expect(escapeData("50%\r\nnext::x")).toBe("50%25%0D%0Anext::x");
    expect(escapeProperty("a: b, c%")).toBe("a%3A b%2C c%25");
    const out = renderGithub(SHADOW_AUDIT);
    expect(out).toContain(
      "::error file=src/a b/100%25%2Cx%3Ay.py,line=4,endLine=5,title=freezegate%3A shadowed line::changed lines 4-5 are shadowed",
    );
    // The test name's newline is escaped as in the text report, so it cannot start a command
    // of its own.
    expect(out).toContain("@octocat\\nline2]");
    for (const l of out.trimEnd().split("\n")) {
      expect(l.startsWith("::") || /^(freezegate| {2}(error|warning|note) )/.test(l), l).toBe(true);
    }
  });

  it("keeps to 10 annotations per level and says how many more there are", () => {
    const many = auditReport([
      file(
        "src/big.py",
        Array.from({ length: 30 }, (_, i) =>
          line(2 * i + 1, "shadowed", { frozenTests: [`${FROZEN}[${i}]`] }),
        ),
      ),
    ]);
    const out = renderGithub(many).trimEnd().split("\n");
    const errors = out.filter((l) => l.startsWith("::error "));
    expect(errors).toHaveLength(ANNOTATIONS_PER_LEVEL);
    expect(errors.at(-1)).toBe(
      "::error title=freezegate%3A 21 more errors::21 more errors not annotated (GitHub shows 10 per step); all 30 are listed in this step's log",
    );
    // Every problem is still in the log.
    expect(out.filter((l) => l.startsWith("  error   shadowed-line: src/big.py:"))).toHaveLength(
      30,
    );
  });

  it("titles stay within 255 characters and messages are cut", () => {
    const long = auditReport([
      file("src/a.py", [line(1, "shadowed", { frozenTests: ["t".repeat(9000)] })]),
    ]);
    const annotation = renderGithub(long).split("\n")[0] as string;
    const title = /title=([^:]*)::/.exec(annotation)?.[1] ?? "";
    expect(title.length).toBeLessThanOrEqual(TITLE_MAX);
    expect(annotation.length).toBeLessThan(4300);
    expect(annotation.endsWith("…")).toBe(true);
  });
});

describe("sarif", () => {
  it("is valid SARIF 2.1.0 (the official schema) for both report kinds", () => {
    for (const report of [SHADOW_AUDIT, CHECK]) validateSarif(JSON.parse(renderSarif(report)));
  });

  it("every result has a location: a finding without a file points at the ledger", () => {
    // GitHub code scanning rejects a SARIF result without one ("expected at least one
    // location"): a lock or any other gate's finding that names no file must still have one.
    const pathless = checkReport(
      SHADOW_AUDIT,
      CHECK.gates.map((g) => ({
        ...g,
        findings: g.findings.map(({ path: _, line: __, ...f }) => f),
      })),
    );
    const run = JSON.parse(renderSarif(pathless)).runs[0];
    validateSarif(JSON.parse(renderSarif(pathless)));
    const lock = run.results.find((r: { ruleId: string }) => r.ruleId === "lock-moved");
    expect(lock.locations).toEqual([
      { physicalLocation: { artifactLocation: { uri: "freeze-ledger.json" } } },
    ]);
    for (const r of run.results) expect(r.locations?.length ?? 0, r.ruleId).toBeGreaterThan(0);
  });

  it("one rule per code, results sorted, regions only with a line, URIs encoded", () => {
    const sarif = JSON.parse(renderSarif(CHECK));
    const run = sarif.runs[0];
    const ids = run.tool.driver.rules.map((r: { id: string }) => r.id);
    // The report's own codes after the finding codes: those keep their indexes.
    expect(ids).toEqual([...[...new Set(FINDING_CODES)].sort(), ...REPORT_CODES]);
    for (const r of run.results) {
      expect(ids[r.ruleIndex]).toBe(r.ruleId);
      const region = r.locations?.[0]?.physicalLocation.region;
      if (region) expect(region.startLine).toBeGreaterThanOrEqual(1);
    }
    const uris = run.results.map(
      (r: { locations?: Array<{ physicalLocation: { artifactLocation: { uri: string } } }> }) =>
        r.locations?.[0]?.physicalLocation.artifactLocation.uri,
    );
    expect(uris).toContain("src/a%20b/100%25%2Cx%3Ay.py");
    expect(uris).toContain("src/%C3%BCn%C3%AF.py");
    expect(uris).toContain("file:///elsewhere/property%20lock.json");
    const expired = run.results.find((r: { ruleId: string }) => r.ruleId === "expired");
    expect(expired.locations[0].physicalLocation.region).toBeUndefined();
    expect(pathToUri("a/b c#d?.py")).toBe("a/b%20c%23d%3F.py");
  });

  it("fingerprints are stable, follow a line that moves, and tell equal lines apart", () => {
    // Equal lines apart (consecutive ones fold into one range).
    const src = "x = 1\nshadowed()\ny = 2\nshadowed()\n";
    const at = (lines: number[], text: string) => {
      const report = auditReport([
        file(
          "src/m.py",
          lines.map((n) => line(n, "shadowed")),
        ),
      ]);
      return JSON.parse(renderSarif(report, ctx({ "src/m.py": text }))).runs[0].results.map(
        (r: { partialFingerprints: Record<string, string> }) =>
          r.partialFingerprints["freezegateFingerprint/v1"],
      );
    };
    const before = at([2, 4], src);
    expect(before).toHaveLength(2);
    expect(before[0]).not.toBe(before[1]);
    expect(at([2, 4], src)).toEqual(before);
    // Two lines inserted above: same lines, same identities.
    expect(at([4, 6], `# a\n# b\n${src}`)).toEqual(before);
  });
});

describe("junit", () => {
  it("one testcase per gate: failure, skipped, or passed with findings in system-out", () => {
    const xml = renderJunit(CHECK);
    expect(xml).toContain(
      '<testsuite name="freezegate check" tests="6" failures="3" errors="0" skipped="1">',
    );
    expect(xml).toMatch(
      /<testcase classname="freezegate" name="shape gate">\n {6}<failure message="1 error" type="expired">/,
    );
    expect(xml).toMatch(
      /name="witness gate">\n {6}<skipped message="the ledger did not change"\/>/,
    );
    expect(xml).toMatch(/name="deposit gate">\n {6}<system-out>warning deposit-too-few-inputs/);
    expect(xml).not.toMatch(/<script/);
    const audit = renderJunit(SHADOW_AUDIT);
    expect(audit).toContain('<testcase classname="freezegate" name="shadow audit">');
    expect(audit).toContain('failures="1"');
  });

  it("escapes markup and drops what XML 1.0 cannot carry", () => {
    expect(escapeXml(`<a href="x">&'</a>`)).toBe(
      "&lt;a href=&quot;x&quot;&gt;&amp;&apos;&lt;/a&gt;",
    );
    expect(escapeXml("a\u0000b\u001bc\td\ud800e")).toBe("a\ufffdb\ufffdc\td\ufffde");
    expect(escapeXml("😀")).toBe("😀");
  });
});

// ---------------------------------------------------------------------------------------------
// Output plumbing.

describe("output flags", () => {
  const cwd = "/work/dir";

  it("--format and --output FORMAT=FILE, several at once", () => {
    const req = parseOutputRequest(
      { format: "github", output: ["markdown=summary.md", "sarif=/tmp/x.sarif"] },
      cwd,
    );
    expect(planOutputs(req, undefined)).toEqual({
      stdout: "github",
      files: [
        { format: "markdown", path: "/work/dir/summary.md" },
        { format: "sarif", path: "/tmp/x.sarif" },
      ],
      quiet: false,
      htmlInstead: null,
    });
  });

  it("--output FILE alone takes the --format (or config) format, and stdout stays empty", () => {
    expect(
      planOutputs(parseOutputRequest({ format: "json", output: ["r.json"] }, cwd), undefined),
    ).toEqual({
      stdout: null,
      files: [{ format: "json", path: "/work/dir/r.json" }],
      quiet: false,
      htmlInstead: null,
    });
    expect(planOutputs(parseOutputRequest({ output: ["r.txt"] }, cwd), "markdown").files).toEqual([
      { format: "markdown", path: "/work/dir/r.txt" },
    ]);
    expect(planOutputs(parseOutputRequest({}, cwd), "junit").stdout).toBe("junit");
    // A path with "=" in it is a path when the part before "=" cannot be a format name.
    expect(parseOutputRequest({ output: ["./a=b.txt"] }, cwd).outputs).toEqual([
      { format: undefined, path: "/work/dir/a=b.txt" },
    ]);
  });

  it.each([
    [{ format: "pdf" }, /unknown --format "pdf"/],
    [{ output: ["pdf=x.pdf"] }, /--output "pdf=x\.pdf": unknown format "pdf"/],
    [{ output: ["sarif="] }, /no file after "="/],
    [{ output: ["a.txt", "b.txt"] }, /without a format can be given once/],
    [{ output: ["sarif=x", "junit=x"] }, /names \/work\/dir\/x twice/],
  ])("refuses %j", (values, message) => {
    let caught: unknown;
    try {
      parseOutputRequest(values, cwd);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(FreezegateError);
    expect((caught as FreezegateError).exitCode).toBe(2);
    expect((caught as Error).message).toMatch(message);
  });

  it("refuses a config format that is not a format", () => {
    expect(() => planOutputs(parseOutputRequest({}, cwd), "pdf")).toThrow(
      /config file's "format" is not a report format: pdf/,
    );
  });
});

describe("colour", () => {
  const tty = { isTTY: true };
  const pipe = { isTTY: false };
  it.each([
    [tty, {}, true],
    [pipe, {}, false],
    [tty, { NO_COLOR: "1" }, false],
    [tty, { NO_COLOR: "" }, true],
    [tty, { TERM: "dumb" }, false],
    [pipe, { FORCE_COLOR: "1" }, true],
    [pipe, { FORCE_COLOR: "" }, true],
    [pipe, { FORCE_COLOR: "true" }, true],
    [tty, { FORCE_COLOR: "0" }, false],
    [tty, { FORCE_COLOR: "false" }, false],
    [pipe, { FORCE_COLOR: "3", NO_COLOR: "1" }, true],
  ])("stream %j env %j -> %s", (stream, env, expected) => {
    expect(colorEnabled(stream, env as NodeJS.ProcessEnv)).toBe(expected);
  });
});

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), "freezegate-out-")));
  made.push(dir);
  return dir;
}

describe("progress on a terminal", () => {
  it("one stderr line before large data is read; nothing when stderr is not a terminal", () => {
    const dir = tempDir();
    const data = join(dir, ".coverage");
    writeFileSync(data, Buffer.alloc(3_000_000));
    const written: string[] = [];
    const stderr = { isTTY: true, write: (s: string) => written.push(s) };
    const hook = dataReadProgress({ stderr: stderr as never }, 1_000_000);
    hook?.([data, data]);
    expect(written).toEqual(["freezegate: reading coverage data (6.0 MB in 2 files)…\n"]);
    dataReadProgress({ stderr: stderr as never })?.([data]);
    expect(written).toHaveLength(1); // below the default threshold
    expect(dataReadProgress({ stderr: { isTTY: false, write: () => true } as never })).toBe(
      undefined,
    );
  });
});

describe("writing several reports: all or none", () => {
  it("writes every file, replacing old ones, and leaves no temporary file", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a.md"), "old a");
    writeFilesAtomically([
      { path: join(dir, "a.md"), content: "new a" },
      { path: join(dir, "b.sarif"), content: "new b" },
    ]);
    expect(readFileSync(join(dir, "a.md"), "utf8")).toBe("new a");
    expect(readFileSync(join(dir, "b.sarif"), "utf8")).toBe("new b");
    expect(readdirSync(dir).sort()).toEqual(["a.md", "b.sarif"]);
  });

  it("a file that cannot be written: no target touched, no temporary file left", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a.md"), "old a");
    expect(() =>
      writeFilesAtomically([
        { path: join(dir, "a.md"), content: "new a" },
        { path: join(dir, "missing", "b.sarif"), content: "new b" },
      ]),
    ).toThrow(/cannot write .*missing\/b\.sarif: .*no report file was written/);
    expect(readdirSync(dir)).toEqual(["a.md"]);
    expect(readFileSync(join(dir, "a.md"), "utf8")).toBe("old a");
  });

  it("a rename that fails after others succeeded: the renamed ones are put back", () => {
    const dir = tempDir();
    writeFileSync(join(dir, "a.md"), "old a");
    let renames = 0;
    const failingSecondRename = {
      ...fs,
      renameSync: (from: fs.PathLike, to: fs.PathLike) => {
        // The second report's rename fails; rollback renames still work.
        if (String(from).endsWith(".tmp") && ++renames === 2) throw new Error("EBUSY: simulated");
        renameSync(from, to);
      },
      linkSync,
    };
    expect(() =>
      writeFilesAtomically(
        [
          { path: join(dir, "a.md"), content: "new a" },
          { path: join(dir, "b.sarif"), content: "new b" },
          { path: join(dir, "c.xml"), content: "new c" },
        ],
        failingSecondRename,
      ),
    ).toThrow(/cannot write .*b\.sarif: EBUSY: simulated/);
    expect(readFileSync(join(dir, "a.md"), "utf8")).toBe("old a");
    expect(existsSync(join(dir, "b.sarif"))).toBe(false);
    expect(readdirSync(dir)).toEqual(["a.md"]);
  });
});
