// The HTML report, opened in real headless Chromium (Debian's `chromium`, driven by
// playwright-core; no browser is ever downloaded). Two scenarios: the bundled example's patch
// with a freeze ledger and a history written by `freezegate stats` (real git, the example's
// committed pytest-cov data: no Python needed; also the golden file), and a project recorded
// by real pytest-cov at test time whose test ids, source, file names and ledger text carry
// markup (`test_label[<script>alert(1)</script>]`), which must render as text.
//
// Chromium missing: skipped with a loud warning locally, a failure under CI=true.

import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseHistory, type Stats } from "../../src/core/stats.js";
import type { AuditReport } from "../../src/reporters/audit-report.js";
import type { CheckReport } from "../../src/reporters/check-report.js";
import { renderHtml } from "../../src/reporters/html.js";
import { REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { expectGolden } from "../helpers/golden.js";
import { describePython, runPytestCov } from "../helpers/python.js";
import { assertMatchesSchema } from "../helpers/schema.js";

// ---------------------------------------------------------------------------------------------
// The browser.

const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
const ARTIFACTS = join(REPO_ROOT, "test-artifacts");

let browserWarned = false;
/** `describe` when Debian's Chromium is installed; else a loud skip, or a failure under CI. */
function describeBrowser(name: string, fn: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, fn);
    return;
  }
  const reason = `${CHROMIUM} is missing (Debian package "chromium")`;
  if (process.env.CI === "true") {
    describe(name, () => {
      it("needs Chromium", () => {
        throw new Error(`CI=true and the browser is missing: ${reason}`);
      });
    });
    return;
  }
  if (!browserWarned) {
    browserWarned = true;
    console.warn(
      `\n!!! SKIPPING browser tests of the HTML report: ${reason}.\n!!! Install it with apt-get install chromium; under CI=true these tests fail instead.\n`,
    );
  }
  describe.skip(name, fn);
}

interface Browser {
  context: BrowserContext;
  close(): Promise<void>;
}

async function launchBrowser(): Promise<Browser> {
  // A fresh, empty profile each time (playwright passes it as --user-data-dir).
  const profile = mkdtempSync(join(tmpdir(), "freezegate-chromium-"));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport: { width: 1280, height: 900 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** What the page functions below use of the browser's window (this project has no DOM types). */
interface BrowserWindow {
  getComputedStyle(el: unknown): { backgroundColor: string };
}

interface OpenedPage {
  page: Page;
  /** Console errors and warnings, page errors, dialogs and any request but the page itself. */
  problems: string[];
}

async function openFile(context: BrowserContext, file: string): Promise<OpenedPage> {
  const page = await context.newPage();
  const url = pathToFileURL(file).href;
  const problems: string[] = [];
  page.on("console", (m) => {
    if (m.type() === "error" || m.type() === "warning") {
      problems.push(`console ${m.type()}: ${m.text()}`);
    }
  });
  page.on("pageerror", (e) => problems.push(`page error: ${e.message}`));
  page.on("request", (r) => {
    if (r.url() !== url) problems.push(`request: ${r.url()}`);
  });
  page.on("requestfailed", (r) => problems.push(`failed request: ${r.url()}`));
  page.on("dialog", (d) => {
    problems.push(`dialog: ${d.message()}`);
    void d.dismiss();
  });
  await page.goto(url, { waitUntil: "load" });
  return { page, problems };
}

// ---------------------------------------------------------------------------------------------
// Helpers.

function readSources(repo: TempRepo, report: CheckReport): Map<string, string> {
  return new Map(report.audit.files.map((f) => [f.path, readFileSync(repo.path(f.path), "utf8")]));
}

/**
 * `freezegate check` through the built CLI: the JSON contract on stdout and, with `html`, the
 * HTML report written by `--output html=FILE` in the same run.
 */
function check(repo: TempRepo, args: string[], html?: string): CheckReport {
  const r = runCli(
    [
      "check",
      "--base",
      "base",
      "--format",
      "json",
      ...(html === undefined ? [] : ["--output", `html=${html}`]),
      ...args,
    ],
    { cwd: repo.dir },
  );
  if (r.status !== 0 && r.status !== 1) {
    throw new Error(`freezegate check exited ${r.status}: ${r.stderr}`);
  }
  const report = JSON.parse(r.stdout) as CheckReport;
  assertMatchesSchema("check-report.schema.json", report);
  return report;
}

function writeHtml(dir: string, name: string, html: string): string {
  const path = join(dir, name);
  writeFileSync(path, html);
  return path;
}

// ---------------------------------------------------------------------------------------------
// The bundled example with a ledger and a history.

const FROZEN = "tests/test_billing.py::test_proration_rounds_half_up";
const PROPERTY = "tests/test_billing.py::test_full_period_charges_everything";
const TODAY = "2026-11-25";

function demoLedger(withFreeze: boolean): string {
  const ledger = {
    version: 1,
    policy: { max_window_days: 14, min_distinct: 8 },
    freezes: withFreeze
      ? [
          {
            test_id: FROZEN,
            reason: "order-dependent failure in the full suite",
            owner: "finley",
            opened: "2026-11-20",
            expires: "2026-12-01",
            invariant: "half-up rounding never charges more than the exact share plus half a cent",
            compensating_property: PROPERTY,
            reused_property: true,
          },
        ]
      : [],
    properties: [
      {
        id: "prop.billing.refund",
        check: "tests/test_billing.py::test_refund_of_unused_days",
        witnessed_by: [PROPERTY],
      },
    ],
  };
  return `${JSON.stringify(ledger, null, 2)}\n`;
}

/** A samples artifact of a run at the repository's HEAD (the deposit gate refuses others). */
function samplesAtHead(repo: TempRepo, distinct: number): string {
  const commit = repo.git("rev-parse", "HEAD").trim();
  return JSON.stringify({ version: 2, commit, properties: { [PROPERTY]: { distinct } } });
}

let demo: TempRepo;
let demoReport: CheckReport;
let demoSources: Map<string, string>;
let demoHistory: Stats[];
let demoHtml: string;
let scratch: string;

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), "freezegate-html-"));
  demo = makeDemoRepo();
  // A real history, written by `freezegate stats` over four days: before the freeze (0%),
  // after it (50%), a run without --base (no ratio: a gap in the chart), and today.
  const stats = (today: string, base: boolean) => {
    demo.write("samples.json", samplesAtHead(demo, 9));
    const r = runCli(
      [
        "stats",
        "--today",
        today,
        "--history",
        join(scratch, "history.jsonl"),
        ...(base ? ["--base", "base", "--samples", "samples.json"] : []),
      ],
      { cwd: demo.dir },
    );
    if (r.status !== 0) throw new Error(`freezegate stats failed: ${r.stderr}`);
  };
  demo.write("freeze-ledger.json", demoLedger(false));
  stats("2026-11-18", true);
  demo.write("freeze-ledger.json", demoLedger(true));
  stats("2026-11-20", true);
  stats("2026-11-22", false);
  stats(TODAY, true);
  demo.git("add", "freeze-ledger.json");
  demo.git("commit", "-q", "-m", "ledger");
  demo.write("samples.json", samplesAtHead(demo, 9));
  demoHistory = parseHistory(readFileSync(join(scratch, "history.jsonl"), "utf8"), "history");
  const htmlPath = join(scratch, "demo.html");
  demoReport = check(
    demo,
    ["--today", TODAY, "--samples", "samples.json", "--history", join(scratch, "history.jsonl")],
    htmlPath,
  );
  demoSources = readSources(demo, demoReport);
  demoHtml = readFileSync(htmlPath, "utf8");
});

afterAll(() => {
  demo?.cleanup();
  if (scratch) rmSync(scratch, { recursive: true, force: true });
});

/** Run-specific values (temp dirs, commit ids, the version) replaced by stable tokens. */
function normalizeHtml(html: string): string {
  let out = html.split(demo.dir).join("&lt;repo&gt;");
  const commits = new Set(demoHistory.map((s) => s.commit).filter((c) => c !== null));
  for (const c of commits) out = out.split(c.slice(0, 12)).join("&lt;commit&gt;");
  return out
    .replace(/merge base [0-9a-f]{12}/g, "merge base &lt;sha&gt;")
    .replace(/freezegate \d+\.\d+\.\d+[^ "<]*/g, "freezegate &lt;version&gt;");
}

describe("the HTML report of the bundled example (check with a ledger and a history)", () => {
  it("carries every freeze with its age, expiry and deposit state (check report entries)", () => {
    expect(demoReport.ledger.entries).toEqual([
      {
        testId: FROZEN,
        owner: "finley",
        reason: "order-dependent failure in the full suite",
        opened: "2026-11-20",
        expires: "2026-12-01",
        ageDays: 5,
        daysToExpiry: 6,
        invariant: "half-up rounding never charges more than the exact share plus half a cent",
        compensatingProperty: PROPERTY,
        reusedProperty: true,
        approvedBy: null,
        deposit: { state: "ok", codes: [] },
        compensation: {
          state: "measured",
          withdrawn: 1,
          compensated: 0,
          ratio: 0,
          minCompensation: null,
          summary: `${PROPERTY} executes 0 of the 1 line it withdraws (0%)`,
        },
      },
    ]);
    // The same freeze with too few inputs: the deposit state names the failing code.
    writeFileSync(demo.path("few.json"), samplesAtHead(demo, 3));
    const few = check(demo, ["--today", "2026-12-03", "--samples", "few.json"]);
    expect(few.ledger.entries[0]).toMatchObject({
      ageDays: 13,
      daysToExpiry: -2,
      deposit: { state: "failed", codes: ["deposit-too-few-inputs"] },
    });
    const html = renderHtml(few, {
      color: false,
      quiet: false,
      sources: demoSources,
      history: null,
    });
    expect(html).toContain('<span class="badge b-bad">expired</span> 2 days ago');
    expect(html).toMatch(
      /<span class="badge b-bad">failed<\/span> <code>deposit-too-few-inputs<\/code>/,
    );
    expect(html).toContain("it ran on 3 distinct inputs (min_distinct is 8)");
    expect(html).toContain("No history was given");
  });

  it("is what the CLI writes: the same report object, the changed files' text, the history", () => {
    const html = renderHtml(demoReport, {
      color: false,
      quiet: false,
      sources: demoSources,
      history: demoHistory,
    });
    expect(demoHtml).toBe(html);
    expect(demoHtml).toContain("4 runs from 2026-11-18 to 2026-11-25");
  });

  it("renders the golden file", () => {
    expectGolden("demo-check.html", normalizeHtml(demoHtml));
  });

  it("is one self-contained file: no script, no external reference, a policy that forbids both", () => {
    expect(demoHtml).not.toMatch(/<script/i);
    expect(demoHtml).not.toMatch(/\b(?:src|href)="(?!#|data:)/);
    expect(demoHtml).not.toMatch(/url\(|@import|https?:\/\/(?!www\.w3\.org\/2000\/svg)/);
    // The quotes are escaped in the attribute; the browser reads them back as quotes.
    expect(demoHtml).toMatch(
      /<meta http-equiv="Content-Security-Policy" content="default-src &#39;none&#39;; style-src &#39;sha256-[A-Za-z0-9+/=]+&#39;; img-src data:; script-src &#39;none&#39;;/,
    );
  });

  it("escapes every string from the report, the sources and the history", () => {
    // Every free-text value gets markup appended; values the renderer branches on keep their
    // meaning, so the page must come out with exactly the same markup as before.
    const payload = `<img src=x onerror=alert(1)>"' onmouseover="alert(2)<script>alert(3)</script>&amp;`;
    const keep = new Set(["schema", "verdict", "severity", "state", "source"]);
    const poison = (value: unknown, key = ""): unknown => {
      if (typeof value === "string") return keep.has(key) ? value : `${value}${payload}`;
      if (Array.isArray(value)) return value.map((v) => poison(v, key));
      if (value !== null && typeof value === "object") {
        return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, poison(v, k)]));
      }
      return value;
    };
    const report = poison(demoReport) as CheckReport;
    const sources = new Map(
      [...demoSources].map(([path, text]) => [
        `${path}${payload}`,
        text.replace(/\n/g, `${payload}\n`),
      ]),
    );
    const history = poison(demoHistory) as Stats[];
    const html = renderHtml(report, { color: false, quiet: false, sources, history });
    const tags = (s: string) => s.split("<").length - 1;
    expect(tags(html)).toBe(tags(demoHtml));
    expect(html).not.toMatch(/<img|<script|onmouseover="/i);
    expect(html).toContain(
      "&lt;img src=x onerror=alert(1)&gt;&quot;&#39; onmouseover=&quot;alert(2)&lt;script&gt;alert(3)&lt;/script&gt;&amp;amp;",
    );
    // The poisoned source text is shown (the line is there, escaped), not dropped.
    expect(html).toContain(
      "return (2 * share + days_in_period) // (2 * days_in_period)&lt;img src=x",
    );
  });

  it("renders an audit report without the check's sections", () => {
    const html = renderHtml(demoReport.audit as AuditReport, {
      color: false,
      quiet: false,
      sources: demoSources,
      history: null,
    });
    expect(html).toContain("<h1>freezegate audit report</h1>");
    expect(html).toContain("FAIL: 1 changed line is covered only by frozen tests (shadowed)");
    expect(html).not.toContain('id="ledger"');
    expect(html).not.toContain('id="gates"');
    expect(html).toContain('data-verdict="shadowed"');
  });
});

describeBrowser("the HTML report of the bundled example in Chromium", () => {
  let browser: Browser;
  let opened: OpenedPage;
  beforeAll(async () => {
    browser = await launchBrowser();
    opened = await openFile(browser.context, join(scratch, "demo.html"));
  });
  afterAll(async () => {
    await browser?.close();
  });

  it("the harness notices console errors and requests (so its silence below means something)", async () => {
    const bad = writeHtml(
      scratch,
      "bad.html",
      '<!DOCTYPE html><title>bad</title><img src="http://127.0.0.1:9/x.png"><script>console.error("boom")</script>',
    );
    const { page, problems } = await openFile(browser.context, bad);
    await page.close();
    expect(problems.join("\n")).toMatch(/console error: boom/);
    expect(problems.join("\n")).toMatch(/request: http:\/\/127\.0\.0\.1:9\/x\.png/);
  });

  it("loads with no console error, no request and no dialog", () => {
    expect(opened.problems).toEqual([]);
  });

  it("shows the shadowed line, marked by colour and by a text label, with its frozen test", async () => {
    const { page } = opened;
    await expect(page.title()).resolves.toBe("freezegate check: FAIL");
    const row = page.locator('tr[data-verdict="shadowed"]');
    expect(await row.count()).toBe(1);
    expect(await row.isVisible()).toBe(true);
    expect(await row.locator("th.ln").textContent()).toBe("13");
    expect(await row.locator(".badge").textContent()).toBe("shadowed");
    expect(await row.locator("td.code").textContent()).toContain(
      "return (2 * share + days_in_period) // (2 * days_in_period)",
    );
    const background = (selector: string) =>
      page
        .locator(selector)
        .first()
        .evaluate(
          (el) => (globalThis as unknown as BrowserWindow).getComputedStyle(el).backgroundColor,
        );
    const shadowedBg = await background('tr[data-verdict="shadowed"] td.code');
    expect(shadowedBg).not.toBe(await background("tr.ctx td.code"));
    expect(shadowedBg).not.toBe(await background('tr[data-verdict="defended"] td.code'));
    // The frozen test is on the line without a click, tagged as frozen.
    const test = row.locator("td.tests li");
    expect(await test.count()).toBe(1);
    expect(await test.isVisible()).toBe(true);
    expect(await test.textContent()).toBe(`frozen ${FROZEN}`);
  });

  it("shows the live tests of a defended line when its row is expanded", async () => {
    const { page } = opened;
    const row = page.locator('tr[data-verdict="defended"]');
    const tests = row.locator("td.tests li");
    expect(await tests.count()).toBe(2);
    expect(await tests.first().isVisible()).toBe(false);
    await row.locator("summary").click();
    expect(await tests.first().isVisible()).toBe(true);
    expect(await tests.allInnerTexts()).toEqual([
      `LIVE ${PROPERTY}`,
      "LIVE tests/test_billing.py::test_refund_of_unused_days",
    ]);
  });

  it("lists the gates, the ledger with age, expiry and deposit, and the trend chart", async () => {
    const { page } = opened;
    const gates = page.locator("#gates table").first().locator("tbody tr");
    expect(await gates.allInnerTexts()).toEqual([
      "shadow\tyes\tfailed\t1\t1",
      "shape\tyes\tpassed\t0\t0",
      "witness\tyes\tpassed\t0\t0",
      "deposit\tyes\tpassed\t0\t0",
      "lock\tyes\tpassed\t0\t0",
      "ledger-changes\tyes\tpassed\t0\t2",
    ]);
    const freeze = page.locator("#ledger tbody tr");
    expect(await freeze.count()).toBe(1);
    const cells = await freeze.locator("th, td").allInnerTexts();
    expect(cells.map((c) => c.replace(/\s+/g, " ").trim())).toEqual([
      `${FROZEN} order-dependent failure in the full suite`,
      "finley",
      "2026-11-20",
      "5 days",
      "2026-12-01",
      "6 days",
      "half-up rounding never charges more than the exact share plus half a cent",
      `${PROPERTY} reused`,
      "ok",
    ]);
    const chart = page.locator("#trend svg");
    expect(await chart.isVisible()).toBe(true);
    expect(await chart.locator("circle").count()).toBe(3);
    expect(await chart.locator("path.unmeasured").count()).toBe(1);
    expect(await chart.locator("circle title").allTextContents()).toEqual([
      "2026-11-18: 0.0%",
      "2026-11-20: 50.0%",
      "2026-11-25: 50.0%",
    ]);
  });

  it("has the accessible basics: one h1, headed tables, labelled sections", async () => {
    const { page } = opened;
    expect(await page.locator("h1").count()).toBe(1);
    expect(await page.locator("html").getAttribute("lang")).toBe("en");
    // Strings: the page's globals are not in this project's (Node-only) type library.
    const headless = await page.evaluate(
      '[...document.querySelectorAll("table")].filter((t) => !t.querySelector("th")).length',
    );
    expect(headless).toBe(0);
    const unlabelled = await page.evaluate(
      '[...document.querySelectorAll("section")].filter((s) => !document.getElementById(s.getAttribute("aria-labelledby") ?? "")).length',
    );
    expect(unlabelled).toBe(0);
    // Every coloured verdict also says its name.
    const badges = await page.locator("tr.changed .badge").allInnerTexts();
    expect(badges.every((b) => b.trim() !== "")).toBe(true);
  });

  it("saves a screenshot as a test artifact", async () => {
    mkdirSync(ARTIFACTS, { recursive: true });
    writeFileSync(join(ARTIFACTS, "html-report.html"), demoHtml);
    const path = join(ARTIFACTS, "html-report.png");
    await opened.page.screenshot({ path, fullPage: true });
    expect(readFileSync(path).subarray(1, 4).toString()).toBe("PNG");
  });
});

// ---------------------------------------------------------------------------------------------
// Markup in test ids, source, paths and ledger text, recorded by real pytest-cov.

const SCRIPT_TEST = "tests/test_render.py::test_label[<script>alert(1)</script>]";
const IMG_TEST = "tests/test_render.py::test_plain[<img src=x onerror=alert(5)>]";
const HOSTILE_FILE = "notes/<script>alert(4)<!--.txt";
const HOSTILE_SOURCE = `        return "bold </td></tr><script>alert('src')</script>"`;

const RENDER_BASE = "def label(kind):\n    return kind\n";
const RENDER_PATCH = `def label(kind):\n    if kind == "<b>":\n${HOSTILE_SOURCE}\n    return kind.upper()\n`;
const RENDER_TESTS = `import pytest
from app.render import label


@pytest.mark.parametrize("kind", ["<b>"], ids=["<script>alert(1)</script>"])
def test_label(kind):
    assert label(kind).startswith("bold")


@pytest.mark.parametrize("kind", ["x"], ids=["<img src=x onerror=alert(5)>"])
def test_plain(kind):
    assert label(kind) == "X"
`;

describeBrowser("the HTML report with markup in test ids, source and paths", () => {
  describePython("recorded by real pytest-cov", () => {
    let repo: TempRepo;
    let browser: Browser;
    let report: CheckReport;
    let opened: OpenedPage;

    beforeAll(async () => {
      repo = makeTempRepo();
      repo.write(".gitignore", ".coverage\n.coverage.*\n");
      repo.write(".coveragerc", "[run]\nsource = src\nrelative_files = True\n");
      repo.write(
        "conftest.py",
        'import os\nimport sys\n\nsys.path.insert(0, os.path.join(os.path.dirname(__file__), "src"))\n',
      );
      repo.write("src/app/__init__.py", "");
      repo.write("src/app/render.py", RENDER_BASE);
      repo.write("tests/test_render.py", RENDER_TESTS);
      repo.commit("base");
      repo.git("branch", "base");
      repo.write("src/app/render.py", RENDER_PATCH);
      repo.write(HOSTILE_FILE, "a file whose name is markup\n");
      repo.write(
        "freeze-ledger.json",
        `${JSON.stringify(
          {
            version: 1,
            policy: { max_window_days: 14, min_distinct: 8 },
            freezes: [
              {
                test_id: SCRIPT_TEST,
                reason: `"quoted" & <b>bold</b>`,
                owner: "<img src=x onerror=alert(2)>",
                opened: "2026-11-20",
                expires: "2026-11-30",
                invariant: "</td></table><script>alert(3)</script>",
                compensating_property: "tests/test_render.py::test_plain",
                reused_property: true,
              },
            ],
            properties: [],
          },
          null,
          2,
        )}\n`,
      );
      repo.commit("patch");
      runPytestCov(repo.dir);
      const html = join(scratch, "markup.html");
      report = check(repo, ["--today", "2026-11-22"], html);
      browser = await launchBrowser();
      opened = await openFile(browser.context, html);
    });
    afterAll(async () => {
      await browser?.close();
      repo?.cleanup();
    });

    it("the data really carries the markup (pytest's node ids, the patch's paths)", () => {
      const lines = report.audit.files.flatMap((f) => f.lines);
      expect(lines.map((l) => [l.line, l.verdict])).toEqual([
        [2, "defended"],
        [3, "shadowed"],
        [4, "defended"],
      ]);
      expect(lines[1]?.frozenTests).toEqual([SCRIPT_TEST]);
      expect(lines[0]?.tests).toEqual([IMG_TEST]);
      expect(report.audit.skipped).toContainEqual({ path: HOSTILE_FILE, reason: "not-source" });
    });

    it("renders the test ids, the source line, the path and the ledger as text; nothing runs", async () => {
      const { page, problems } = opened;
      expect(problems).toEqual([]);
      expect(await page.locator("script").count()).toBe(0);
      expect(await page.locator("img").count()).toBe(0);
      expect(await page.locator("b").count()).toBe(0);

      const shadowed = page.locator('tr[data-verdict="shadowed"]');
      expect(await shadowed.locator("td.code").textContent()).toBe(HOSTILE_SOURCE);
      const test = shadowed.locator("td.tests li code");
      expect(await test.isVisible()).toBe(true);
      expect(await test.textContent()).toBe(SCRIPT_TEST);

      const defended = page.locator('tr[data-verdict="defended"]').first();
      await defended.locator("summary").click();
      const live = defended.locator("td.tests li", { hasText: "test_plain" });
      expect(await live.isVisible()).toBe(true);
      expect(await live.locator("code").textContent()).toBe(IMG_TEST);

      expect(await page.locator("#files .skip code").allInnerTexts()).toContain(HOSTILE_FILE);
      const freeze = await page.locator("#ledger tbody tr").locator("th, td").allInnerTexts();
      expect(freeze[0]).toContain(SCRIPT_TEST);
      expect(freeze[0]).toContain(`"quoted" & <b>bold</b>`);
      expect(freeze[1]).toBe("<img src=x onerror=alert(2)>");
      expect(freeze[6]).toBe("</td></table><script>alert(3)</script>");
      // The shadow gate's finding names the frozen test too, as text.
      expect(await page.locator("#gates").textContent()).toContain(
        `src/app/render.py:3 is shadowed: only frozen tests cover it: ${SCRIPT_TEST}`,
      );
    });
  });
});
