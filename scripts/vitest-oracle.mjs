#!/usr/bin/env node
// The independent truth for freezegate's Vitest recorder.
//
//   node scripts/vitest-oracle.mjs record --root DIR [--config FILE] [-- VITEST_ARGS...]
//       runs the project's whole suite once with the recorder (its own config, plus
//       freezegate's runner and reporter, coverage on with istanbul) and writes
//       DIR/.freezegate/vitest-coverage.jsonl.
//   node scripts/vitest-oracle.mjs check --root DIR [--config FILE] [--data FILE]
//       [--jobs N] [--batch N] [--fresh-process] [--settle MS] [--only REGEX]
//       [--max-per-id N] [--report FILE] [--expect-out FILE] [-- VITEST_ARGS...]
//       runs every recorded test alone with plain Vitest (no freezegate runner or reporter)
//       and istanbul coverage (json report), and compares per test the recorder's lines
//       (run + setup + teardown + the lines its file ran outside tests) with the lines
//       istanbul's report says ran. Prints matches/total and every mismatch.
//       --expect-out FILE also writes the isolated runs' lines per Vitest task id (the
//       expectations of freezegate's own fixture tests).
//
// Each isolated run is a Vitest run of the test's file narrowed to that one test, in a fresh
// worker process (pool forks, isolate on: the file and every module it imports are loaded
// anew), with the coverage of that run alone. By default one Vitest instance (its node API,
// `vitest/node`) runs --batch tests one after the other, which saves starting Vite and Vitest
// for every test; --fresh-process starts a whole `vitest run` process for each test instead
// (slower, same lines: nothing of one run's coverage is left for the next, since Vitest cleans
// the coverage of a rerun and every run has a fresh worker).
//
// A test is selected by an exact regular expression of the name Vitest matches (suite and test
// names joined by spaces; by " > " in Vitest 5). When another test of the file has the same
// such name (duplicates, or names that collide once joined), it is selected by its Vitest task
// id instead, which a name pattern cannot express.

import { fork, spawn } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { stripVTControlCharacters } from "node:util";

const here = dirname(fileURLToPath(import.meta.url));
const integration = resolve(here, "../integrations/vitest");
const posix = (p) => p.split("\\").join("/");

function parseArgs(argv) {
  const [command, ...rest] = argv;
  const opts = { command, extra: [], jobs: 1, batch: 100, freshProcess: false };
  for (let i = 0; i < rest.length; i++) {
    const a = rest[i];
    if (a === "--") {
      opts.extra = rest.slice(i + 1);
      break;
    }
    const value = () => rest[++i];
    if (a === "--root") opts.root = resolve(value());
    else if (a === "--config") opts.config = resolve(value());
    else if (a === "--data") {
      opts.data ??= [];
      opts.data.push(resolve(value()));
    } else if (a === "--jobs") opts.jobs = Number(value());
    else if (a === "--batch") opts.batch = Number(value());
    else if (a === "--fresh-process") opts.freshProcess = true;
    else if (a === "--settle") opts.settle = Number(value());
    else if (a === "--only") opts.only = new RegExp(value());
    else if (a === "--max-per-id") opts.maxPerId = Number(value());
    else if (a === "--report") opts.report = resolve(value());
    else if (a === "--expect-out") opts.expectOut = resolve(value());
    else if (a === "--vitest") opts.vitest = resolve(value());
    else throw new Error(`unknown option ${a}`);
  }
  if (!opts.root) throw new Error("--root DIR is required");
  return opts;
}

const CONFIG_NAMES = ["vitest.config", "vite.config"].flatMap((b) =>
  ["ts", "mts", "cts", "js", "mjs", "cjs"].map((e) => `${b}.${e}`),
);

function projectConfig(opts) {
  if (opts.config) return opts.config;
  for (const name of CONFIG_NAMES) {
    const p = join(opts.root, name);
    if (existsSync(p)) return p;
  }
  return null;
}

export function vitestBin(opts) {
  if (opts.vitest) return opts.vitest;
  // The project's own Vitest, else the one next to this script.
  for (const base of [opts.root, resolve(here, "..")]) {
    const p = join(base, "node_modules/vitest/vitest.mjs");
    if (existsSync(p)) return p;
  }
  throw new Error("no vitest found: install it in the project");
}

/**
 * With --settle MS, every isolated run's test file ends with an `afterAll` that waits MS
 * milliseconds (a setup file registers it first, so it runs after the file's own `afterAll`
 * hooks): timer work a test left running then fires before the worker hands its coverage
 * over, whether or not the file ended quickly. In the whole run such work fires during the
 * tests that follow, and the recorder credits it to the teardown of the test that left it.
 */
function settle(opts) {
  if (!opts.settle) return "";
  const file = join(opts.root, `.freezegate-oracle-settle-${process.pid}.mjs`);
  writeFileSync(
    file,
    `// generated by freezegate's scripts/vitest-oracle.mjs; safe to delete
import { afterAll } from "vitest";
afterAll(() => new Promise((resolve) => setTimeout(resolve, ${Number(opts.settle)})));
`,
  );
  return `settleFile = ${JSON.stringify(file)};
test.setupFiles = [settleFile, ...[test.setupFiles ?? []].flat()];`;
}

/**
 * A config next to the project's that takes the project's config and changes only what the
 * mode needs: `record` adds freezegate's runner and reporter; `plain` is the same run with
 * istanbul coverage and no freezegate (the baseline of the cost bench); `oracle` removes any
 * runner and writes istanbul's json report into FG_ORACLE_OUT. Coverage reporters in
 * `record` and `plain`: FG_COVERAGE_REPORTER (one name), else none.
 */
export function wrapperConfig(opts, mode) {
  const base = projectConfig(opts);
  // One per process: two checks of one project at a time must not remove each other's.
  const path = join(opts.root, `.freezegate-${mode}-${process.pid}.vitest.config.mjs`);
  const imported = base
    ? `import * as base from ${JSON.stringify(pathToFileURL(base).href)};`
    : "const base = {};";
  const coverageReporter =
    "reporter: process.env.FG_COVERAGE_REPORTER ? [process.env.FG_COVERAGE_REPORTER] : []";
  const body =
    mode === "record"
      ? `test.runner = ${JSON.stringify(join(integration, "runner.mjs"))};
test.reporters = ["default", ${JSON.stringify(join(integration, "reporter.mjs"))}];
test.coverage = { ...(test.coverage ?? {}), enabled: true, provider: "istanbul", ${coverageReporter}, thresholds: undefined };`
      : mode === "plain"
        ? `delete test.runner;
test.reporters = ["default"];
test.coverage = { ...(test.coverage ?? {}), enabled: true, provider: "istanbul", ${coverageReporter}, thresholds: undefined };`
        : `delete test.runner;
// A fresh worker process for every test file: nothing loaded by one isolated run is reused
// by the next one in the same Vitest instance.
test.pool = "forks";
test.isolate = true;
// The instance that runs test after test reads each test's outcome from Vitest's state, and
// prints nothing: an empty reporter.
test.reporters = process.env.FG_ORACLE_SHARED ? [{}] : ["dot"];
test.passWithNoTests = true;
${settle(opts)}
test.coverage = { ...(test.coverage ?? {}), enabled: true, provider: "istanbul", reporter: [["json", { file: "coverage-final.json" }]], reportsDirectory: process.env.FG_ORACLE_OUT, reportOnFailure: true, clean: true, cleanOnRerun: true, thresholds: undefined };`;
  writeFileSync(
    path,
    `// generated by freezegate's scripts/vitest-oracle.mjs; safe to delete
${imported}
let config = base.default ?? base;
if (typeof config === "function") config = await config({ command: "serve", mode: "test" });
config = await config;
const test = { ...(config.test ?? {}) };
let settleFile;
${body}
if (test.reporters && test.reporters.length === 0) delete test.reporters;
// Inline projects take the runner from their own test options.
if (Array.isArray(test.projects)) {
  test.projects = test.projects.map((p) => {
    if (!p || typeof p !== "object" || !p.test) return p;
    const own = { ...p.test };
    if (${JSON.stringify(mode)} === "record") own.runner = test.runner;
    else delete own.runner;
    if (${JSON.stringify(mode)} === "oracle") {
      Object.assign(own, { pool: "forks", isolate: true });
      if (settleFile) own.setupFiles = [settleFile, ...[own.setupFiles ?? []].flat()];
    }
    return { ...p, test: own };
  });
}
export default { ...config, test };
`,
  );
  return path;
}

function run(cmd, args, options) {
  return new Promise((resolvePromise) => {
    const child = spawn(cmd, args, { ...options, stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
    });
    child.stderr.on("data", (d) => {
      out += d;
    });
    child.on("close", (code) => resolvePromise({ code, out }));
  });
}

/**
 * Reads freezegate Vitest data files (JSON Lines: a header, then one line per source file)
 * and combines the shards of one run: tests and test files are concatenated, each source's
 * statements, outside lines and per-test lines are joined.
 */
export function readData(...paths) {
  let header = null;
  const sources = new Map();
  for (const path of paths) {
    const lines = readFileSync(path, "utf8").split("\n").filter(Boolean);
    const h = JSON.parse(lines[0]);
    const testBase = header ? header.tests.length : 0;
    const fileBase = header ? header.ranFiles.length : 0;
    if (!header) header = { ...h, tests: [], ranFiles: [], failedFiles: [], sources: [] };
    header.tests.push(...h.tests);
    header.ranFiles.push(...h.ranFiles);
    header.failedFiles.push(...h.failedFiles);
    for (const line of lines.slice(1)) {
      const s = JSON.parse(line);
      let into = sources.get(s.source);
      if (!into) {
        into = { source: s.source, hash: s.hash, statements: [], outside: {}, tests: {} };
        sources.set(s.source, into);
      }
      const spans = new Set(into.statements.map(([a, b]) => `${a}:${b}`));
      for (const span of s.statements)
        if (!spans.has(`${span[0]}:${span[1]}`)) into.statements.push(span);
      for (const [f, ls] of Object.entries(s.outside)) into.outside[fileBase + Number(f)] = ls;
      for (const [t, phases] of Object.entries(s.tests)) into.tests[testBase + Number(t)] = phases;
    }
  }
  header.sources = [...sources.keys()].sort();
  return { header, sources };
}

/**
 * The recorder's lines for test index i (source -> Set), and the lines to leave out of the
 * comparison (source -> Set). Without isolation a module's top level runs once per worker,
 * in the collection of the first file that imports it, so a test's file cannot be credited
 * with it: then the lines the run ran outside tests are compared on neither side.
 */
export function recordedLines(data, i) {
  const test = data.header.tests[i];
  const fileIndex = data.header.ranFiles.indexOf(test.file);
  const shared = data.header.isolate === false;
  const out = new Map();
  const exclude = new Map();
  for (const [source, s] of data.sources) {
    const lines = new Set();
    const phases = s.tests[i];
    if (phases) for (const phase of phases) for (const l of phase) lines.add(l);
    if (shared) {
      const all = new Set(Object.values(s.outside).flat());
      if (all.size) exclude.set(source, all);
      for (const l of all) lines.delete(l);
    } else for (const l of s.outside[fileIndex] ?? []) lines.add(l);
    if (lines.size) out.set(source, lines);
  }
  out.exclude = exclude;
  return out;
}

/** The lines istanbul's json report says ran (statement start lines with a count): source -> Set. */
export function reportLines(report, root) {
  const out = new Map();
  const statements = new Map();
  for (const [path, fc] of Object.entries(report)) {
    const key = posix(isAbsolute(path) ? relative(root, path) : path);
    // The oracle's own setup file (--settle), if coverage took it in.
    if (/(^|\/)\.freezegate-oracle-/.test(key)) continue;
    const lines = new Set();
    const spans = new Set();
    for (const [k, loc] of Object.entries(fc.statementMap)) {
      spans.add(`${loc.start.line}:${Math.max(loc.start.line, loc.end.line)}`);
      if (fc.s[k] > 0) lines.add(loc.start.line);
    }
    if (lines.size) out.set(key, lines);
    statements.set(key, spans);
  }
  return { lines: out, statements };
}

function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * How test i is picked out of its file: an exact pattern of the name Vitest matches (suite and
 * test names joined by spaces in Vitest 3.2 and 4, by " > " in Vitest 5), or its task id when
 * another test of the file matches the same name.
 */
export function selection(data, i) {
  const test = data.header.tests[i];
  const separator = Number(String(data.header.vitest).split(".")[0]) >= 5 ? " > " : " ";
  const full = test.names.join(separator);
  const collides = data.header.tests.some(
    // `vitest run FILE` runs every file whose path contains FILE.
    (t, j) => j !== i && t.file.includes(test.file) && t.names.join(separator) === full,
  );
  return collides ? { taskId: test.taskId } : { pattern: `^${escapeRegExp(full)}$` };
}

/** A report reduced to what the comparison reads, as plain arrays (it crosses processes). */
function reduceReport(report, root) {
  const { lines, statements } = reportLines(report, root);
  return {
    lines: [...lines].map(([f, ls]) => [f, [...ls]]),
    statements: [...statements].map(([f, spans]) => [f, [...spans]]),
  };
}

function expandReport(reduced) {
  return {
    lines: new Map(reduced.lines.map(([f, ls]) => [f, new Set(ls)])),
    statements: new Map(reduced.statements.map(([f, spans]) => [f, new Set(spans)])),
  };
}

function readReport(outDir, root) {
  const file = join(outDir, "coverage-final.json");
  if (!existsSync(file)) return null;
  return reduceReport(JSON.parse(readFileSync(file, "utf8")), root);
}

/** One isolated run in a `vitest run` process of its own (--fresh-process). */
async function freshProcessRun(opts, data, i, config, bin, outDir) {
  const test = data.header.tests[i];
  const pick = selection(data, i);
  const env = { ...process.env, FG_ORACLE_OUT: outDir, FORCE_COLOR: "0", CI: "1" };
  let res;
  if (pick.pattern) {
    // The file filter matches any path that contains it.
    const args = [bin, "run", "--root", opts.root, "--config", config, test.file];
    res = await run(process.execPath, [...args, "-t", pick.pattern, ...opts.extra], {
      cwd: opts.root,
      env,
    });
  } else {
    const script = join(outDir, "by-id.mjs");
    writeFileSync(
      script,
      `import { createVitest } from ${JSON.stringify(pathToFileURL(join(dirname(bin), "dist/node.js")).href)};
const vitest = await createVitest("test", { root: ${JSON.stringify(opts.root)}, config: ${JSON.stringify(config)}, watch: false });
const project = vitest.projects.find((p) => p.name === ${JSON.stringify(test.project ?? "")}) ?? vitest.getRootProject();
const spec = project.createSpecification(${JSON.stringify(join(opts.root, test.file))}, { testIds: [${JSON.stringify(pick.taskId)}] });
await (vitest.standalone ?? vitest.init).call(vitest);
await vitest.runTestSpecifications([spec]);
await vitest.close();
`,
    );
    res = await run(process.execPath, [script], { cwd: opts.root, env });
  }
  if (process.env.FG_ORACLE_DEBUG) console.error(res.out);
  const report = readReport(outDir, opts.root);
  // A test passes or fails the same way alone: a different outcome explains a mismatch.
  const plainOut = stripVTControlCharacters(res.out);
  const outcome = /Tests\s+1 failed/.test(plainOut)
    ? "fail"
    : /Tests\s+1 passed/.test(plainOut)
      ? "pass"
      : "?";
  return {
    how: pick.pattern ? "name" : "task id",
    report,
    outcome,
    reason: report ? undefined : `no coverage report (exit ${res.code}): ${res.out.slice(-400)}`,
  };
}

/**
 * The isolated runs of `indices` in one Vitest instance: a child process (this script's
 * `serve`) that creates Vitest once and runs the tests one by one, each run narrowed to one
 * test and reported on alone. Calls onResult(i, result) as each run ends.
 */
function sharedRuns(opts, data, indices, config, bin, outDir, onResult) {
  return new Promise((resolvePromise) => {
    const args = ["serve", "--root", opts.root, "--config", config, "--vitest", bin];
    const child = fork(fileURLToPath(import.meta.url), [...args, "--", ...opts.extra], {
      cwd: opts.root,
      env: {
        ...process.env,
        FG_ORACLE_OUT: outDir,
        FG_ORACLE_SHARED: "1",
        FORCE_COLOR: "0",
        CI: "1",
      },
      stdio: ["ignore", "pipe", "pipe", "ipc"],
    });
    let out = "";
    const keep = (d) => {
      out = (out + d).slice(-4000);
      if (process.env.FG_ORACLE_DEBUG) process.stderr.write(d);
    };
    child.stdout.on("data", keep);
    child.stderr.on("data", keep);
    const pending = new Set(indices);
    let started = Date.now();
    child.on("message", (m) => {
      if (m.ready) {
        started = Date.now();
        return;
      }
      pending.delete(m.i);
      const seconds = (Date.now() - started) / 1000;
      started = Date.now();
      onResult(m.i, {
        ...m,
        seconds,
        reason: m.report
          ? undefined
          : (m.reason ?? `no coverage report: ${m.error ?? ""} ${out.slice(-400)}`),
      });
    });
    child.on("close", (code) => {
      for (const i of pending) {
        onResult(i, {
          how: selection(data, i).pattern ? "name" : "task id",
          report: null,
          reason: `the shared Vitest exited (${code}) before this test ran: ${out.slice(-400)}`,
        });
      }
      resolvePromise();
    });
    child.send({
      tasks: indices.map((i) => {
        const t = data.header.tests[i];
        return {
          i,
          file: join(opts.root, t.file),
          project: t.project ?? "",
          taskId: t.taskId,
          ...selection(data, i),
        };
      }),
    });
  });
}

/** The child of sharedRuns: one Vitest instance, the given tests run one after the other. */
async function serve(opts) {
  const bin = vitestBin(opts);
  const { createVitest, parseCLI } = await import(
    pathToFileURL(join(dirname(bin), "dist/node.js")).href
  );
  const { tasks } = await new Promise((r) => process.once("message", r));
  const cli = parseCLI ? parseCLI(["vitest", ...opts.extra]).options : {};
  const vitest = await createVitest("test", {
    ...cli,
    root: opts.root,
    config: opts.config,
    watch: false,
  });
  await (vitest.standalone ?? vitest.init).call(vitest);
  const byName = Number(String(vitest.version).split(".")[0]) >= 4;
  const outDir = process.env.FG_ORACLE_OUT;
  process.send({ ready: true });
  for (const t of tasks) {
    // No report must be read from an earlier run.
    rmSync(join(outDir, "coverage-final.json"), { force: true });
    const project = vitest.projects.find((p) => p.name === t.project) ?? vitest.getRootProject();
    if (!t.pattern && !byName) {
      const reason = `Vitest ${vitest.version} cannot select a test by task id (4.0 can), and this test's name is not unique in its file`;
      await new Promise((r) => process.send({ i: t.i, how: "task id", report: null, reason }, r));
      continue;
    }
    let spec;
    if (t.pattern && byName) {
      spec = project.createSpecification(t.file, { testNamePattern: t.pattern });
    } else if (t.pattern) {
      // Vitest 3.2: no pattern of its own per specification.
      vitest.setGlobalTestNamePattern(t.pattern);
      spec = project.createSpecification(t.file);
    } else {
      spec = project.createSpecification(t.file, { testIds: [t.taskId] });
    }
    let error;
    try {
      await vitest.runTestSpecifications([spec], false);
    } catch (e) {
      error = String(e?.stack ?? e);
    }
    const result = vitest.state.idMap.get(t.taskId)?.result;
    const outcome = result?.state === "pass" || result?.state === "fail" ? result.state : "?";
    // Why it failed alone: the first line of its first error.
    const failure = result?.errors?.[0]?.message?.split("\n")[0];
    let report = null;
    try {
      report = readReport(outDir, opts.root);
    } catch (e) {
      error = String(e?.stack ?? e);
    }
    await new Promise((r) =>
      process.send(
        { i: t.i, how: t.pattern ? "name" : "task id", report, outcome, failure, error },
        r,
      ),
    );
  }
  await vitest.close();
  process.exit(0);
}

/** The recorder's lines for test i against an isolated run's: the differences, per source. */
function compare(data, i, report) {
  const mine = recordedLines(data, i);
  const diffs = [];
  for (const source of new Set([...mine.keys(), ...report.lines.keys()])) {
    const a = mine.get(source) ?? new Set();
    const left = mine.exclude.get(source);
    const b = new Set([...(report.lines.get(source) ?? [])].filter((l) => !left?.has(l)));
    const extra = [...a].filter((l) => !b.has(l)).sort((x, y) => x - y);
    const missing = [...b].filter((l) => !a.has(l)).sort((x, y) => x - y);
    if (extra.length || missing.length) diffs.push({ source, extra, missing });
  }
  // The statement spans the recorder mapped must be the report's, for every file both have.
  const spanDiffs = [];
  for (const [source, spans] of report.statements) {
    const s = data.sources.get(source);
    if (!s) continue;
    const mineSpans = new Set(s.statements.map(([a, b]) => `${a}:${b}`));
    const only = [...spans].filter((x) => !mineSpans.has(x));
    const onlyMine = [...mineSpans].filter((x) => !spans.has(x));
    if (only.length || onlyMine.length)
      spanDiffs.push({ source, report: only, recorder: onlyMine });
  }
  return { diffs, spanDiffs };
}

async function check(opts) {
  const dataFile = opts.data ?? [join(opts.root, ".freezegate/vitest-coverage.jsonl")];
  const data = readData(...dataFile);
  const config = wrapperConfig(opts, "oracle");
  const bin = vitestBin(opts);
  const work = mkdtempSync(join(tmpdir(), "fg-oracle-"));
  const perId = new Map();
  const indices = data.header.tests
    .map((_t, i) => i)
    .filter((i) => {
      const t = data.header.tests[i];
      if (t.state !== "pass" && t.state !== "fail") return false;
      if (opts.only && !opts.only.test(t.id)) return false;
      // A loop that defines hundreds of tests of one name: compare the first few.
      const seen = (perId.get(t.id) ?? 0) + 1;
      perId.set(t.id, seen);
      return !opts.maxPerId || seen <= opts.maxPerId;
    });
  const results = new Map();
  let done = 0;
  const started = Date.now();
  const finish = (i, res) => {
    const test = data.header.tests[i];
    const base = { i, id: test.id, taskId: test.taskId, how: res.how, state: test.state };
    if (!res.report) {
      results.set(i, { ...base, ok: false, reason: res.reason, seconds: res.seconds });
    } else {
      const report = expandReport(res.report);
      const { diffs, spanDiffs } = compare(data, i, report);
      const result = {
        ...base,
        ok: diffs.length === 0,
        diffs,
        spanDiffs,
        outcomeAlone: res.outcome,
        failureAlone: res.failure,
        seconds: res.seconds,
      };
      if (opts.expectOut) {
        const sorted = (set) => [...set].sort((x, y) => x - y);
        result.isolated = {
          id: test.id,
          lines: Object.fromEntries([...report.lines].map(([f, ls]) => [f, sorted(ls)]).sort()),
          statements: Object.fromEntries(
            [...report.statements]
              .filter(([f]) => report.lines.has(f))
              .map(([f, spans]) => [f, [...spans].sort()])
              .sort(),
          ),
        };
      }
      results.set(i, result);
    }
    done++;
    process.stderr.write(
      `${done}/${indices.length} ${results.get(i).ok ? "ok  " : "DIFF"} ${test.id}\n`,
    );
  };
  let jobsDone;
  if (opts.freshProcess) {
    let next = 0;
    const worker = async () => {
      while (next < indices.length) {
        const i = indices[next++];
        const outDir = join(work, String(i));
        mkdirSync(outDir, { recursive: true });
        const t0 = Date.now();
        const res = await freshProcessRun(opts, data, i, config, bin, outDir);
        finish(i, { ...res, seconds: (Date.now() - t0) / 1000 });
        rmSync(outDir, { recursive: true, force: true });
      }
    };
    jobsDone = Array.from({ length: Math.max(1, opts.jobs) }, worker);
  } else {
    // Batches of tests in suite order, so that a batch mostly reuses the transforms of a few
    // files; each batch gets a Vitest instance of its own, which bounds what one instance
    // keeps in memory.
    const batches = [];
    for (let k = 0; k < indices.length; k += Math.max(1, opts.batch)) {
      batches.push(indices.slice(k, k + Math.max(1, opts.batch)));
    }
    let next = 0;
    let dirs = 0;
    const worker = async () => {
      while (next < batches.length) {
        const batch = batches[next++];
        const outDir = join(work, `batch-${dirs++}`);
        mkdirSync(outDir, { recursive: true });
        await sharedRuns(opts, data, batch, config, bin, outDir, finish);
        rmSync(outDir, { recursive: true, force: true });
      }
    };
    jobsDone = Array.from({ length: Math.max(1, opts.jobs) }, worker);
  }
  await Promise.all(jobsDone);
  rmSync(config, { force: true });
  rmSync(join(opts.root, `.freezegate-oracle-settle-${process.pid}.mjs`), { force: true });
  rmSync(work, { recursive: true, force: true });
  const ordered = indices.map((i) => results.get(i));
  const matches = ordered.filter((r) => r.ok).length;
  const seconds = (Date.now() - started) / 1000;
  const summary = {
    root: opts.root,
    data: dataFile,
    vitest: data.header.vitest,
    pool: data.header.pool,
    isolate: data.header.isolate,
    mode: opts.freshProcess ? "fresh process per test" : `shared Vitest, batches of ${opts.batch}`,
    jobs: opts.jobs,
    tests: data.header.tests.length,
    compared: ordered.length,
    matches,
    byTaskId: ordered.filter((r) => r.how === "task id").length,
    seconds: Math.round(seconds),
    secondsPerTest: ordered.length ? Number((seconds / ordered.length).toFixed(2)) : 0,
    mismatches: ordered.filter((r) => !r.ok),
    spanMismatches: ordered
      .filter((r) => r.spanDiffs?.length)
      .map((r) => ({ id: r.id, spanDiffs: r.spanDiffs })),
  };
  if (opts.report) writeFileSync(opts.report, `${JSON.stringify(summary, null, 2)}\n`);
  if (opts.expectOut) {
    const byTask = Object.fromEntries(
      ordered.filter((r) => r.isolated).map((r) => [r.taskId, r.isolated]),
    );
    writeFileSync(
      opts.expectOut,
      `${JSON.stringify({ vitest: data.header.vitest, tests: byTask }, null, 1)}\n`,
    );
  }
  console.log(
    `${matches}/${ordered.length} tests match the isolated runs (${summary.byTaskId} isolated by task id; ${summary.tests - ordered.length} not run: skipped, todo or left out) in ${summary.seconds}s, ${summary.secondsPerTest}s per test (${summary.mode}, ${opts.jobs} job${opts.jobs === 1 ? "" : "s"})`,
  );
  for (const m of summary.mismatches) {
    console.log(
      `MISMATCH ${m.id} [${m.taskId}] (by ${m.how}; ${m.state} in the run, ${m.outcomeAlone ?? "?"} alone)`,
    );
    if (m.reason) console.log(`  ${m.reason}`);
    if (m.failureAlone) console.log(`  alone it failed: ${m.failureAlone}`);
    for (const d of m.diffs ?? []) {
      console.log(
        `  ${d.source}: recorder only ${JSON.stringify(d.extra)}, isolated run only ${JSON.stringify(d.missing)}`,
      );
    }
  }
  if (summary.spanMismatches.length) {
    console.log(
      `${summary.spanMismatches.length} tests saw statement spans that differ from the report's (first: ${JSON.stringify(summary.spanMismatches[0])})`,
    );
  }
  return matches === ordered.length && summary.spanMismatches.length === 0 ? 0 : 1;
}

async function record(opts) {
  const config = wrapperConfig(opts, "record");
  const bin = vitestBin(opts);
  const started = Date.now();
  const res = await run(
    process.execPath,
    [bin, "run", "--root", opts.root, "--config", config, ...opts.extra],
    {
      cwd: opts.root,
      env: { ...process.env, FORCE_COLOR: "0" },
    },
  );
  rmSync(config, { force: true });
  process.stdout.write(res.out.split("\n").slice(-12).join("\n"));
  console.log(`\nrecorded in ${((Date.now() - started) / 1000).toFixed(1)}s (exit ${res.code})`);
  return res.code ?? 1;
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const opts = parseArgs(process.argv.slice(2));
  if (opts.command === "record") process.exitCode = await record(opts);
  else if (opts.command === "check") process.exitCode = await check(opts);
  else if (opts.command === "serve") await serve(opts);
  else {
    console.error("usage: vitest-oracle.mjs record|check --root DIR [options] [-- vitest args]");
    process.exitCode = 2;
  }
}
