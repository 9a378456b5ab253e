// What the report formats guarantee on hostile or large input, on
// hand-built result objects. Repository strings never become CI workflow commands (GitHub's
// `##[cmd]` anywhere in a line and `::cmd` at a line's start, Azure's `##vso[`); SARIF folds
// runs of lines and stays under code scanning's result limits; the annotation budget goes to
// shadowed lines first; an exit-2 run removes the reports an earlier run left.

import { lstatSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { parseOutputRequest, removeStaleReports } from "../../src/cli/output-options.js";
import type { Finding } from "../../src/core/findings.js";
import type { LineResult, Verdict } from "../../src/core/shadow-audit.js";
import type { AuditReport } from "../../src/reporters/audit-report.js";
import type { CheckReport } from "../../src/reporters/check-report.js";
import { renderCheckText } from "../../src/reporters/check-report.js";
import { renderGithub } from "../../src/reporters/github.js";
import { renderMarkdown } from "../../src/reporters/markdown.js";
import { PLAIN_CONTEXT, renderReport } from "../../src/reporters/registry.js";
import { MAX_RESULTS, renderSarif, TRUNCATED_RULE } from "../../src/reporters/sarif.js";
import { renderText } from "../../src/reporters/text.js";
import { collapseControls, jsonText, visible } from "../../src/reporters/words.js";
import { validateSarif } from "../helpers/sarif.js";

const FROZEN = "tests/test_a.py::test_frozen";
const LIVE = "tests/test_a.py::test_live";
const FORGED_PATH = "::warning title=forged::all gates passed.py";
const FORGED_ID = "tests/test_m.py::test_double[##[warning title=freezegate]all gates passed]";
const FORGED_OWNER = "eve ##[error file=mod.py;line=1;title=freezegate]shadow gate bypassed";

function line(n: number, verdict: Verdict, over: Partial<LineResult> = {}): LineResult {
  return {
    line: n,
    verdict,
    statement: n,
    tests: verdict === "defended" ? [LIVE] : [],
    frozenTests: verdict === "shadowed" ? [FROZEN] : [],
    fixtureTests: verdict === "fixture-only" ? [LIVE] : [],
    outsideTests: false,
    ...over,
  };
}

function file(path: string, lines: LineResult[]): AuditReport["files"][number] {
  return { path, oldPath: null, status: "modified", measured: true, lines };
}

function auditReport(files: AuditReport["files"], failOn: Verdict[] = ["shadowed"]): AuditReport {
  const counts = {
    defended: 0,
    shadowed: 0,
    "fixture-only": 0,
    uncovered: 0,
    unmeasured: 0,
    "not-code": 0,
  };
  for (const f of files) for (const l of f.lines) counts[l.verdict]++;
  const reasons = failOn
    .filter((v) => counts[v] > 0)
    .map((v) => `${counts[v]} changed line(s) are ${v}`);
  return {
    schema: "freezegate/audit",
    schemaVersion: 1,
    tool: { name: "freezegate", version: "9.9.9" },
    gate: {
      passed: reasons.length === 0,
      exitCode: reasons.length === 0 ? 0 : 1,
      failOn: failOn as AuditReport["gate"]["failOn"],
      reasons,
    },
    patch: { source: "range", base: "base", head: "HEAD", mergeBase: "a".repeat(40) },
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
      unresolved: [],
    },
    summary: {
      files: files.length,
      lines: Object.values(counts).reduce((a, b) => a + b, 0),
      counts,
      shadowRatio: null,
      emptyPatch: null,
    },
    files,
    skipped: [],
  };
}

function checkReport(audit: AuditReport, findings: Finding[]): CheckReport {
  return {
    schema: "freezegate/check",
    schemaVersion: 1,
    tool: { name: "freezegate", version: "9.9.9" },
    passed: true,
    exitCode: 0,
    failedGates: [],
    base: "base",
    today: "2026-01-05",
    ledger: {
      file: "freeze-ledger.json",
      format: "freezegate",
      freezes: 1,
      properties: 0,
      entries: [],
    },
    knownTests: "2 tests from the coverage data .coverage",
    gates: [
      { gate: "shadow", blocking: false, ran: true, passed: true, notes: [], findings: [] },
      {
        gate: "ledger-changes",
        blocking: true,
        ran: true,
        passed: true,
        notes: [`ledger owner ${FORGED_OWNER}`],
        findings,
      },
    ],
    audit,
  };
}

/**
 * A line GitHub's runner (actions/runner ActionCommandManager) or Azure's agent would run as a
 * command: `::name` after leading blanks, or `##[` / `##vso[` anywhere.
 */
function runnerCommands(text: string): string[] {
  return text.split("\n").filter((l) => /^\s*::/.test(l) || /##(vso)?\[/i.test(l));
}

const HOSTILE = auditReport([
  file(FORGED_PATH, [line(1, "unmeasured"), line(2, "unmeasured")]),
  file("mod.py", [line(6, "shadowed", { frozenTests: [FORGED_ID] })]),
  file(" ::error::x.py", [line(1, "shadowed")]),
]);
const HOSTILE_CHECK = checkReport(HOSTILE, [
  {
    gate: "ledger-changes",
    code: "ledger-changed",
    severity: "info",
    testId: LIVE,
    path: "freeze-ledger.json",
    message: `freeze of ${LIVE} added (owner ${FORGED_OWNER}, expires 2026-01-10)`,
  },
]);

describe("repository strings never become workflow commands", () => {
  it("visible() and collapseControls() break ##[ and ##vso[ anywhere and :: at the start", () => {
    expect(visible("a ##[warning]b ###[x] ##VSO[task.logissue]")).toBe(
      "a ##\\[warning]b ###\\[x] ##VSO\\[task.logissue]",
    );
    expect(visible("::warning title=t::m.py")).toBe("\\::warning title=t::m.py");
    expect(visible("\u00a0 ::error::x")).toBe("\u00a0 \\::error::x");
    // The existing escapes stay; a newline before "::" is escaped, not a line start.
    expect(visible("a\n::error::x\u001b")).toBe("a\\n::error::x\\u001b");
    expect(collapseControls("\n::error::x ##[add-mask]y")).toBe(" \\::error::x ##\\[add-mask]y");
    // Ordinary text is unchanged, and a second pass changes nothing.
    expect(visible("tests/t.py::test_x[a-b] # [c]")).toBe("tests/t.py::test_x[a-b] # [c]");
    const once = visible(`::${FORGED_ID}\r`);
    expect(visible(once)).toBe(once);
  });

  it("JSON and SARIF text has no marker and parses to the same value", () => {
    const value = { id: FORGED_ID, owner: FORGED_OWNER, azure: "##vso[task.complete]", n: "###[" };
    const text = jsonText(value);
    expect(text).not.toMatch(/##(vso)?\[/i);
    expect(JSON.parse(text)).toEqual(value);
    expect(text).toContain('"id": "tests/test_m.py::test_double[#\\u0023[warning');
    for (const format of ["json", "sarif"] as const) {
      for (const report of [HOSTILE, HOSTILE_CHECK]) {
        const out = renderReport(format, report, PLAIN_CONTEXT);
        expect(out).not.toMatch(/##(vso)?\[/i);
        expect(JSON.stringify(JSON.parse(out), null, 2)).toContain("##[warning title=freezegate]");
      }
    }
  });

  it("text: a file header that starts with :: gets a backslash; ids keep theirs broken", () => {
    const text = renderText(HOSTILE);
    expect(text).toContain("\n\\::warning title=forged::all gates passed.py: 2 unmeasured\n");
    expect(text).toContain("\n \\::error::x.py: 1 shadowed\n");
    expect(text).toContain(
      "  SHADOWED 6: only frozen tests cover it: tests/test_m.py::test_double[##\\[warning title=freezegate]all gates passed]\n",
    );
    expect(runnerCommands(text)).toEqual([]);
    const check = renderCheckText(HOSTILE_CHECK);
    expect(check).toContain(
      `  info    ledger-changed: freeze of ${LIVE} added (owner eve ##\\[error file=mod.py;line=1;title=freezegate]shadow gate bypassed, expires 2026-01-10)\n`,
    );
    expect(runnerCommands(check)).toEqual([]);
  });

  it("github: the plain log lines carry no marker; only freezegate's annotations start with ::", () => {
    for (const report of [HOSTILE, HOSTILE_CHECK]) {
      const lines = renderGithub(report).trimEnd().split("\n");
      const log = lines.filter((l) => !l.startsWith("::"));
      for (const l of log) {
        expect(l, l).not.toMatch(/##(vso)?\[/i);
        expect(l, l).not.toMatch(/^\s*::/);
      }
      for (const l of lines.filter((x) => x.startsWith("::"))) {
        expect(l).toMatch(/^::(error|warning|notice) [^:]*title=freezegate%3A[^:]*::/);
      }
    }
    expect(renderGithub(HOSTILE)).toContain(
      "  error   shadowed-line: mod.py:6: changed line 6 is shadowed: only frozen tests execute it (tests/test_m.py::test_double[##\\[warning title=freezegate]all gates passed])",
    );
    expect(renderGithub(HOSTILE_CHECK)).toContain(
      "(owner eve ##\\[error file=mod.py;line=1;title=freezegate]shadow gate bypassed, expires 2026-01-10)",
    );
  });

  it("markdown printed on a log has no marker either", () => {
    expect(renderMarkdown(HOSTILE)).not.toMatch(/##(vso)?\[/i);
    expect(renderMarkdown(HOSTILE_CHECK)).not.toMatch(/##(vso)?\[/i);
  });
});

describe("sarif: ranges and code scanning's result limits", () => {
  it("a run of lines with one verdict is one result with an endLine", () => {
    const big = auditReport([
      file(
        "gen.py",
        Array.from({ length: 26_000 }, (_, i) => line(i + 2, "fixture-only")),
      ),
    ]);
    const sarif = JSON.parse(renderSarif(big));
    validateSarif(sarif);
    const [only, ...rest] = sarif.runs[0].results;
    expect(rest).toEqual([]);
    expect(only.locations[0].physicalLocation.region).toEqual({ startLine: 2, endLine: 26_001 });
    expect(only.message.text).toBe(
      `changed lines 2-26001 are fixture-only: only the setup/teardown of ${LIVE} executes them`,
    );
  });

  it("lines with other tests or verdicts stay apart, and a range keeps its identity when moved", () => {
    const src = "x = 1\na()\nb()\nc()\n";
    const report = (offset: number, text: string) =>
      JSON.parse(
        renderSarif(
          auditReport([
            file("m.py", [
              line(2 + offset, "shadowed"),
              line(3 + offset, "shadowed"),
              line(4 + offset, "shadowed", { frozenTests: [FROZEN, LIVE] }),
            ]),
          ]),
          { sources: new Map([["m.py", text]]) },
        ),
      ).runs[0].results;
    const before = report(0, src);
    expect(
      before.map(
        (r: { locations: [{ physicalLocation: { region: unknown } }] }) =>
          r.locations[0].physicalLocation.region,
      ),
    ).toEqual([{ startLine: 2, endLine: 3 }, { startLine: 4 }]);
    const print = (r: { partialFingerprints: Record<string, string> }) =>
      r.partialFingerprints["freezegateFingerprint/v1"];
    expect(report(2, `# a\n# b\n${src}`).map(print)).toEqual(before.map(print));
  });

  it(`at most ${MAX_RESULTS} results: shadowed lines kept first, then a note on the rest`, () => {
    // 6,000 lone unmeasured lines (every other line: no ranges) sort before one shadowed line.
    const many = auditReport(
      [
        file(
          "a_gen.py",
          Array.from({ length: 6000 }, (_, i) => line(2 * i + 1, "unmeasured")),
        ),
        file("zz_billing.py", [line(2, "shadowed")]),
      ],
      ["shadowed", "unmeasured"],
    );
    const sarif = JSON.parse(renderSarif(many));
    validateSarif(sarif);
    const run = sarif.runs[0];
    expect(run.results).toHaveLength(MAX_RESULTS);
    const last = run.results.at(-1);
    expect(last.ruleId).toBe(TRUNCATED_RULE);
    expect(run.tool.driver.rules[last.ruleIndex].id).toBe(TRUNCATED_RULE);
    expect(last.level).toBe("note");
    expect(last.message.text).toBe(
      "1002 more results are not listed here, the first at this place (GitHub code scanning keeps 5000 per run): the JSON report (--format json) has every changed line's verdict",
    );
    expect(last.locations[0].physicalLocation.region).toEqual({ startLine: 2 * 4998 + 1 });
    expect(last.properties).toEqual({ gate: "report", omitted: 1002 });
    const shadowed = run.results.filter((r: { ruleId: string }) => r.ruleId === "shadowed-line");
    expect(shadowed).toHaveLength(1);
    // Below the cap nothing changes: no note, no extra rule.
    const few = JSON.parse(renderSarif(auditReport([file("m.py", [line(1, "shadowed")])])));
    expect(few.runs[0].results).toHaveLength(1);
    expect(few.runs[0].tool.driver.rules.map((r: { id: string }) => r.id)).not.toContain(
      TRUNCATED_RULE,
    );
  });
});

describe("github: the annotation budget goes to shadowed lines first", () => {
  it("12 unmeasured files that sort first do not take the shadowed line's annotation", () => {
    const report = auditReport(
      [
        ...Array.from({ length: 12 }, (_, i) =>
          file(`pkg/a_new_${String(i).padStart(2, "0")}.py`, [line(1, "unmeasured")]),
        ),
        file("pkg/zz_billing.py", [line(2, "shadowed")]),
      ],
      ["shadowed", "unmeasured"],
    );
    const errors = renderGithub(report)
      .split("\n")
      .filter((l) => l.startsWith("::error "));
    expect(errors).toHaveLength(10);
    expect(errors[0]).toBe(
      `::error file=pkg/zz_billing.py,line=2,title=freezegate%3A shadowed line::changed line 2 is shadowed: only frozen tests execute it (${FROZEN})`,
    );
    // Then the rest in path order, and the note on the 4 left out.
    expect(errors[1]).toMatch(/^::error file=pkg\/a_new_00\.py,line=1,/);
    expect(errors[8]).toMatch(/^::error file=pkg\/a_new_07\.py,line=1,/);
    expect(errors[9]).toMatch(/^::error title=freezegate%3A 4 more errors::/);
  });
});

const made: string[] = [];
afterAll(() => {
  for (const dir of made) rmSync(dir, { recursive: true, force: true });
});

describe("an exit-2 run removes the reports an earlier run left", () => {
  it("removes freezegate's own reports at the --output paths, and nothing else", () => {
    const dir = mkdtempSync(join(tmpdir(), "fg-stale-"));
    made.push(dir);
    const at = (name: string) => join(dir, name);
    const audit = auditReport([file("m.py", [line(1, "defended")])]);
    writeFileSync(at("old.json"), renderReport("json", audit, PLAIN_CONTEXT));
    writeFileSync(at("old.xml"), renderReport("junit", audit, PLAIN_CONTEXT));
    writeFileSync(at("old.sarif"), renderReport("sarif", audit, PLAIN_CONTEXT));
    writeFileSync(at("old.md"), renderReport("markdown", audit, PLAIN_CONTEXT));
    writeFileSync(at("old.txt"), renderReport("text", audit, PLAIN_CONTEXT));
    writeFileSync(at("old.github"), renderReport("github", audit, PLAIN_CONTEXT));
    writeFileSync(at("old.html"), renderReport("html", audit, PLAIN_CONTEXT));
    writeFileSync(at("quarantine.json"), '{"frozen": []}\n');
    writeFileSync(at("linked.json"), renderReport("json", audit, PLAIN_CONTEXT));
    symlinkSync(at("linked.json"), at("link.json"));
    const values = {
      output: [
        `json=${at("old.json")}`,
        `junit=${at("old.xml")}`,
        `sarif=${at("old.sarif")}`,
        `markdown=${at("old.md")}`,
        `text=${at("old.txt")}`,
        `github=${at("old.github")}`,
        `html=${at("old.html")}`,
        `json=${at("missing.json")}`,
        `html=${at("link.json")}`,
        // An input a typo named as an output is not a report: never removed.
        at("quarantine.json"),
      ],
    };
    // Flags never read (a usage error before --output was parsed): nothing is removed.
    expect(removeStaleReports({ ...values })).toEqual([]);
    parseOutputRequest(values, dir);
    expect(removeStaleReports(values)).toEqual(
      ["old.json", "old.xml", "old.sarif", "old.md", "old.txt", "old.github", "old.html"].map(at),
    );
    for (const name of ["old.json", "old.xml", "old.md", "old.txt", "old.github", "old.html"]) {
      expect(() => lstatSync(at(name))).toThrow();
    }
    expect(readFileSync(at("quarantine.json"), "utf8")).toBe('{"frozen": []}\n');
    expect(lstatSync(at("link.json")).isSymbolicLink()).toBe(true);
    expect(lstatSync(at("linked.json")).isFile()).toBe(true);
  });
});
