// freezegate's per-test coverage recorder for Vitest (3.2, 4.x and 5.x) with the istanbul provider.
//
// Vitest loads this module in each worker as its test runner (`test.runner`). It extends
// Vitest's own runner and, at each boundary the runner reports (a file's collection, a
// suite's beforeAll and afterAll, a test's setup, body and teardown), diffs istanbul's
// statement counters in `globalThis.__VITEST_COVERAGE__` against the previous boundary and
// credits the statements that ran to that window. It never writes the counters: Vitest
// zeroes and reads them itself, and resetting them would corrupt its coverage report.
//
// The runner's own hooks are used rather than beforeEach/afterEach in a setup file because
// they bracket every user hook whatever `sequence.hooks` says, run when a test fails, see
// each retry, and mark the start of the body exactly (`runTask`). The lines each window ran
// are mapped back to original source lines and handed to the main process in the file's
// task `meta`, where freezegate's reporter (reporter.mjs) writes one data file for the run.
//
// Self-contained: it imports only Vitest and its sibling source-map module, because it runs
// inside the user's project.

import { dirname, isAbsolute, resolve } from "node:path";
import * as vitest from "vitest";
import { taskNames, testIdOf } from "./ids.mjs";
import { withLedger } from "./ledger-runner.mjs";
import { decodeMappings, mapLocation } from "./sourcemap.mjs";

const COUNTERS = "__VITEST_COVERAGE__";
export const META_KEY = "freezegate";
const DATA_VERSION = 1;

// Vitest 4.1 and 5 export the runner from "vitest"; 3.2 has it in "vitest/runners" and
// "vitest/suite", which 5 no longer has. The names are not string literals, so that Vite
// does not try to resolve them when it transforms this module for a Vitest that lacks them.
let BaseRunner;
let getTestFn;
if (typeof vitest.TestRunner === "function" && typeof vitest.TestRunner.getTestFn === "function") {
  BaseRunner = vitest.TestRunner;
  getTestFn = vitest.TestRunner.getTestFn;
} else {
  const [runners, suite] = ["vitest/runners", "vitest/suite"];
  BaseRunner = (await import(runners)).VitestTestRunner;
  getTestFn = (await import(suite)).getFn;
}

// One recorder per worker realm: the runner instance is rebuilt for each batch of files, the
// timers it wraps and the source maps it decoded are not.
const REALM = Symbol.for("freezegate.vitest.recorder");
globalThis[REALM] ??= { current: null, mapCache: new Map(), timersWrapped: false };
const realm = globalThis[REALM];

/** Counter snapshots: per measured file, the statement counts at the last boundary. */
class Counters {
  constructor() {
    this.last = new Map(); // path -> { fc, keys, counts }
  }

  /** Takes the current counts as the baseline, crediting nothing. */
  baseline() {
    this.diff(null);
  }

  /**
   * Calls hit(path, statementIndex, statementCount) for every statement whose counter moved
   * since the last boundary, and makes the current counts the new baseline.
   */
  diff(hit) {
    const store = globalThis[COUNTERS];
    if (!store) return;
    for (const path in store) {
      const fc = store[path];
      if (!fc || typeof fc.s !== "object") continue;
      let entry = this.last.get(path);
      if (!entry || entry.fc !== fc) {
        const keys = Object.keys(fc.statementMap ?? fc.s);
        entry = { fc, keys, counts: new Float64Array(keys.length) };
        this.last.set(path, entry);
      }
      const { keys, counts } = entry;
      const s = fc.s;
      for (let i = 0; i < keys.length; i++) {
        const v = s[keys[i]];
        if (v !== counts[i]) {
          // A counter below its last value was zeroed by Vitest: it ran if it is above zero.
          if (hit !== null && (v > counts[i] || v > 0)) hit(path, i, keys.length);
          counts[i] = v;
        }
      }
    }
  }
}

/** Statement sets per measured file: path -> Uint8Array (1 = ran). */
class Hits {
  constructor() {
    this.byPath = new Map();
  }

  add(path, index, size) {
    let bits = this.byPath.get(path);
    if (!bits || bits.length < size) {
      const grown = new Uint8Array(size);
      if (bits) grown.set(bits);
      bits = grown;
      this.byPath.set(path, bits);
    }
    bits[index] = 1;
  }

  addAll(other) {
    if (!other) return;
    for (const [path, bits] of other.byPath) {
      for (let i = 0; i < bits.length; i++) if (bits[i]) this.add(path, i, bits.length);
    }
  }
}

function ancestors(task) {
  const list = [];
  for (let s = task.suite; s; s = s.suite) list.push(s);
  if (!list.includes(task.file)) list.push(task.file);
  return list;
}

/** Original [startLine, endLine] of every statement of one measured file, by source path. */
function statementLines(fc) {
  const key = `${fc.path}\0${fc.hash ?? ""}`;
  const cached = realm.mapCache.get(key);
  if (cached) return cached;
  const keys = Object.keys(fc.statementMap);
  const out = { paths: [], index: new Array(keys.length), unmapped: 0 };
  const map = fc.inputSourceMap;
  if (!map || typeof map.mappings !== "string") {
    out.paths.push(fc.path);
    for (let i = 0; i < keys.length; i++) {
      const loc = fc.statementMap[keys[i]];
      out.index[i] = [0, loc.start.line, Math.max(loc.start.line, loc.end.line)];
    }
  } else {
    const decoded = decodeMappings(map.mappings);
    const sources = (map.sources ?? []).map((source) => {
      const withRoot = map.sourceRoot ? `${map.sourceRoot.replace(/\/?$/, "/")}${source}` : source;
      return isAbsolute(withRoot) ? withRoot : resolve(dirname(fc.path), withRoot);
    });
    const pathIndex = new Map();
    for (let i = 0; i < keys.length; i++) {
      const mapped = mapLocation(decoded, fc.statementMap[keys[i]]);
      if (!mapped) {
        out.index[i] = null;
        out.unmapped++;
        continue;
      }
      const source = sources[mapped[0]] ?? fc.path;
      let p = pathIndex.get(source);
      if (p === undefined) {
        p = out.paths.length;
        out.paths.push(source);
        pathIndex.set(source, p);
      }
      out.index[i] = [p, mapped[1], mapped[2]];
    }
  }
  realm.mapCache.set(key, out);
  return out;
}

class FreezegateRunner extends BaseRunner {
  constructor(config) {
    super(config);
    // Concurrent tests share one set of counters, so no diff could tell them apart: the
    // recording runs them one at a time. Tests that wait for each other cannot be recorded.
    this.config.maxConcurrency = 1;
    this.fg = null;
    wrapTimers();
  }

  // ---- the recording state of the file being run ----

  check() {
    const coverage = this.config.coverage ?? {};
    if (!coverage.enabled || coverage.provider !== "istanbul") {
      throw new Error(
        coverage.enabled && coverage.provider !== "istanbul"
          ? `freezegate records per-test coverage from istanbul's counters, and the "${coverage.provider ?? "v8"}" coverage provider keeps none inside the test process: set test.coverage.provider to "istanbul" (npm i -D @vitest/coverage-istanbul at Vitest's exact version)`
          : 'freezegate records per-test coverage from istanbul\'s counters, and coverage is off: run "vitest run --coverage" or set test.coverage.enabled to true (provider "istanbul")',
      );
    }
  }

  /** Credits what ran since the last boundary to the window that is ending. */
  flush(boundary) {
    const fg = this.fg;
    if (!fg) return;
    const sink = sinkFor(fg, fg.state, boundary);
    fg.counters.diff(sink ? (path, i, n) => sink.add(path, i, n) : null);
  }

  enter(state) {
    this.fg.state = state;
    realm.current = this.fg;
  }

  onBeforeCollect(paths) {
    this.check();
    this.fg = {
      counters: new Counters(),
      state: { kind: "collect" },
      outside: new Hits(),
      suiteSetup: new Map(),
      suiteTeardown: new Map(),
      tests: new Map(), // task -> record
      open: new Set(),
      overlap: false,
      file: null,
    };
    this.fg.counters.baseline();
    realm.current = this.fg;
    return super.onBeforeCollect?.(paths);
  }

  onCollectStart(file) {
    if (this.fg) this.fg.file = file;
    return super.onCollectStart?.(file);
  }

  onCollected(files) {
    this.flush("collected");
    return super.onCollected?.(files);
  }

  onBeforeRunSuite(suite) {
    if (this.fg) {
      this.flush("child");
      this.enter({ kind: "suite-setup", suite });
    }
    return super.onBeforeRunSuite?.(suite);
  }

  /**
   * A test that skipped itself (`ctx.skip()`) ends without onAfterRunTask: its window closes
   * at the next boundary, where what ran since its body was its teardown.
   */
  closeSkipped() {
    const fg = this.fg;
    for (const test of fg?.open ?? []) {
      if (test.result?.state !== "skip") continue;
      this.flush("test-end");
      fg.open.delete(test);
      recordOf(fg, test).state = "skip";
      this.enter({ kind: "between", suite: test.suite ?? test.file });
    }
  }

  async onBeforeRunTask(test) {
    await super.onBeforeRunTask?.(test);
    const fg = this.fg;
    this.closeSkipped();
    if (!fg || (test.mode !== "run" && test.mode !== "queued")) return;
    this.flush("child");
    if (fg.open.size > 0) {
      fg.overlap = true;
      for (const other of fg.open) recordOf(fg, other).concurrent = true;
      recordOf(fg, test).concurrent = true;
    }
    fg.open.add(test);
    recordOf(fg, test).ran = true;
    this.enter({ kind: "test", test, phase: "setup" });
  }

  onBeforeTryTask(test, options) {
    // A retry's setup starts here; what ran since the last try ended is that try's teardown.
    if (this.fg?.open.has(test)) {
      this.flush("try");
      this.enter({ kind: "test", test, phase: "setup" });
      if (options && (options.retry > 0 || options.repeats > 0)) recordOf(this.fg, test).tries++;
    }
    return super.onBeforeTryTask?.(test, options);
  }

  async runTask(test) {
    const fn = getTestFn(test);
    if (!fn) throw new Error("Test function is not found. Did you add it using `setFn`?");
    if (this.fg?.open.has(test)) {
      this.flush("body");
      this.enter({ kind: "test", test, phase: "run" });
      // Vitest calls the test function only when its beforeAll and beforeEach hooks passed.
      recordOf(this.fg, test).body = true;
    }
    await fn();
  }

  onTaskFinished(test) {
    if (this.fg?.open.has(test)) {
      this.flush("body-end");
      this.enter({ kind: "test", test, phase: "teardown" });
    }
    return super.onTaskFinished?.(test);
  }

  async onAfterRunTask(test) {
    const fg = this.fg;
    if (fg?.open.has(test)) {
      this.flush("test-end");
      fg.open.delete(test);
      recordOf(fg, test).state = test.result?.state ?? "unknown";
      recordOf(fg, test).retries = test.result?.retryCount ?? 0;
      this.enter({ kind: "between", suite: test.suite ?? test.file });
    }
    return super.onAfterRunTask?.(test);
  }

  async onAfterRunSuite(suite) {
    const fg = this.fg;
    if (fg) {
      this.closeSkipped();
      this.flush({ suiteEnd: suite });
      if (suite === suite.file) {
        suite.meta[META_KEY] = finishFile(fg, suite, this.config);
        this.fg = null;
        if (realm.current === fg) realm.current = null;
      } else {
        this.enter({ kind: "between", suite: suite.suite ?? suite.file });
      }
    }
    return super.onAfterRunSuite?.(suite);
  }
}

function recordOf(fg, test) {
  let rec = fg.tests.get(test);
  if (!rec) {
    rec = {
      ran: false,
      body: false,
      setup: new Hits(),
      run: new Hits(),
      teardown: new Hits(),
      tries: 0,
      retries: 0,
      state: "unknown",
      concurrent: false,
      leaked: false,
    };
    fg.tests.set(test, rec);
  }
  return rec;
}

function hitsIn(map, key) {
  let hits = map.get(key);
  if (!hits) {
    hits = new Hits();
    map.set(key, hits);
  }
  return hits;
}

/** Where the statements of the window in `state` go, given the boundary that ends it. */
function sinkFor(fg, state, boundary) {
  switch (state.kind) {
    case "collect":
      return fg.outside;
    case "suite-setup":
      // A suite whose beforeAll is followed directly by its own end ran no test.
      return boundary?.suiteEnd === state.suite
        ? hitsIn(fg.suiteTeardown, state.suite)
        : hitsIn(fg.suiteSetup, state.suite);
    case "between":
      // After a suite's last child, until the suite ends: its afterAll. Between two
      // children: no test's (nothing of the user's runs there but leaked async work).
      return boundary?.suiteEnd === state.suite
        ? hitsIn(fg.suiteTeardown, state.suite)
        : fg.outside;
    case "test":
      return recordOf(fg, state.test)[state.phase];
    default:
      return fg.outside;
  }
}

// ---- work that leaks past the window that started it ----

/**
 * Timer callbacks scheduled in one window and run in another (a test's un-awaited timer
 * firing in the next test) are credited to the window that scheduled them, as teardown of
 * that test (a test never defends a line its body did not wait for), not to the test that
 * happens to be running. Only the callback's synchronous part is separated; leaked I/O
 * callbacks are not seen.
 */
function wrapTimers() {
  if (realm.timersWrapped) return;
  realm.timersWrapped = true;
  for (const name of ["setTimeout", "setInterval", "setImmediate"]) {
    const original = globalThis[name];
    if (typeof original !== "function") continue;
    const wrapped = function (callback, ...rest) {
      const fg = realm.current;
      if (typeof callback !== "function" || !fg) return original.call(this, callback, ...rest);
      const origin = fg.state;
      return original.call(
        this,
        function (...args) {
          return runLeaked(fg, origin, callback, this, args);
        },
        ...rest,
      );
    };
    Object.defineProperties(wrapped, Object.getOwnPropertyDescriptors(original));
    globalThis[name] = wrapped;
  }
}

function sameWindow(a, b) {
  if (a.kind !== b.kind) return false;
  if (a.kind === "test") return a.test === b.test;
  return a.suite === b.suite;
}

function runLeaked(fg, origin, callback, thisArg, args) {
  const now = realm.current;
  if (now === fg && sameWindow(fg.state, origin)) return callback.apply(thisArg, args);
  // Close the running window first, then credit the callback to the window that scheduled it.
  if (now) now.counters.diff(sinkHits(now, now.state));
  try {
    return callback.apply(thisArg, args);
  } finally {
    const target = now ?? fg;
    let sink;
    if (now !== fg) sink = now ? now.outside : null;
    else if (origin.kind === "test") {
      const rec = recordOf(fg, origin.test);
      rec.leaked = true;
      sink = rec.teardown;
    } else sink = sinkFor(fg, origin, null);
    target.counters.diff(sink ? (path, i, n) => sink.add(path, i, n) : null);
  }
}

function sinkHits(fg, state) {
  const sink = sinkFor(fg, state, null);
  return sink ? (path, i, n) => sink.add(path, i, n) : null;
}

// ---- the file's data, handed to the main process in the file task's meta ----

function lineSets(hits, sources) {
  // sources: path -> { lines: statementLines result }; returns sourcePath -> Set(lines)
  const out = new Map();
  for (const [path, bits] of hits.byPath) {
    const fc = globalThis[COUNTERS]?.[path];
    if (!fc) continue;
    const st = statementLines(fc);
    sources.set(path, st);
    for (let i = 0; i < bits.length; i++) {
      if (!bits[i]) continue;
      const m = st.index[i];
      if (!m) continue;
      const source = st.paths[m[0]];
      let set = out.get(source);
      if (!set) {
        set = new Set();
        out.set(source, set);
      }
      set.add(m[1]);
    }
  }
  return out;
}

const sorted = (set) => [...set].sort((a, b) => a - b);

function finishFile(fg, file, config) {
  const root = config.root;
  const measured = new Map(); // measured path -> statementLines
  const sources = {}; // original source path -> { outside, tests }
  const section = (path) => {
    sources[path] ??= { outside: [], tests: {} };
    return sources[path];
  };

  for (const [path, set] of lineSets(fg.outside, measured)) section(path).outside = sorted(set);

  const tests = [];
  const seen = new Map();
  const all = [];
  const walk = (task) => {
    for (const t of task.tasks ?? []) {
      if (t.type === "test") all.push(t);
      else walk(t);
    }
  };
  walk(file);
  for (const test of all) {
    const rec = fg.tests.get(test);
    const names = taskNames(test);
    const id = testIdOf(root, test);
    const entry = {
      id,
      taskId: test.id,
      names,
      mode: test.mode,
      state: rec?.state ?? test.result?.state ?? "skip",
      // Written for every test: a reader takes a test without it for one whose body never ran.
      body: rec?.body === true,
    };
    if (rec?.retries) entry.retries = rec.retries;
    if (rec?.concurrent) entry.concurrent = true;
    if (rec?.leaked) entry.leaked = true;
    const dup = seen.get(id);
    if (dup !== undefined) {
      entry.duplicate = true;
      tests[dup].duplicate = true;
    } else seen.set(id, tests.length);
    const index = tests.length;
    tests.push(entry);
    if (!rec?.ran) continue;
    const setup = new Hits();
    const teardown = new Hits();
    setup.addAll(rec.setup);
    teardown.addAll(rec.teardown);
    for (const suite of ancestors(test)) {
      setup.addAll(fg.suiteSetup.get(suite));
      teardown.addAll(fg.suiteTeardown.get(suite));
    }
    const phases = [
      lineSets(rec.run, measured),
      lineSets(setup, measured),
      lineSets(teardown, measured),
    ];
    const touched = new Set(phases.flatMap((p) => [...p.keys()]));
    for (const path of touched) {
      section(path).tests[index] = phases.map((p) => (p.has(path) ? sorted(p.get(path)) : []));
    }
  }

  // Every statement of each measured file that ran anything, so that the audit can tell a
  // changed statement no test ran from a changed line that is no statement.
  const statements = {};
  let unmapped = 0;
  for (const [path, st] of measured) {
    const fc = globalThis[COUNTERS]?.[path];
    unmapped += st.unmapped;
    for (const m of st.index) {
      if (!m) continue;
      const source = st.paths[m[0]];
      statements[source] ??= { hash: fc?.hash ?? null, spans: new Map() };
      statements[source].spans.set(`${m[1]}:${m[2]}`, [m[1], m[2]]);
    }
  }
  for (const [path, st] of Object.entries(statements)) {
    section(path).statements = [...st.spans.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    section(path).hash = st.hash;
  }

  return {
    version: DATA_VERSION,
    file: file.filepath,
    project: config.name || null,
    pool: config.pool ?? null,
    // Vitest 4 has one `isolate` option; 3.2 has one per pool.
    isolate:
      typeof config.isolate === "boolean"
        ? config.isolate
        : (config.poolOptions?.[config.pool]?.isolate ?? true),
    tests,
    sources,
    unmappedStatements: unmapped,
    overlap: fg.overlap,
  };
}

// The ledger is applied on top of the recording (ledger-runner.mjs): Vitest takes one runner.
export default withLedger(FreezegateRunner);
