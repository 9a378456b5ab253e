// freezegate's Vitest reporter: gathers the per-test coverage that runner.mjs recorded in each
// test file's task meta and writes one data file for the run (docs/vitest-data.md):
// `.freezegate/vitest-coverage.jsonl` at the Vitest root, or, for a shard of a sharded run,
// `.freezegate/vitest-coverage.<index>-of-<count>.jsonl`, one per shard.
//
// It also applies the freeze ledger (ledger.mjs): it reads the ledger, hands the freezes in
// force to freezegate's runner in the workers, and at the end prints the summary and writes
// the applied record and the samples artifact.
//
// Runs in Vitest's main process. It imports Node.js and, for the ledger, the freezegate
// package the project installed.

import { randomBytes } from "node:crypto";
import { mkdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, isAbsolute, join, relative, resolve } from "node:path";
import { LedgerSession } from "./ledger.mjs";

const META_KEY = "freezegate";
const FORMAT = "freezegate-vitest-coverage";
const VERSION = 1;

const posix = (p) => p.split("\\").join("/");

function fail(message) {
  const error = new Error(message);
  error.name = "FreezegateError";
  // The message says what to do; a code frame of this file would only hide it.
  error.stack = `${error.name}: ${message}`;
  return error;
}

/** The data file this run writes: an explicit path, else the default at the Vitest root. */
export function dataPath(root, shard, outputFile) {
  if (outputFile) return resolve(root, outputFile);
  const name = shard
    ? `vitest-coverage.${shard.index}-of-${shard.count}.jsonl`
    : "vitest-coverage.jsonl";
  return join(root, ".freezegate", name);
}

export default class FreezegateReporter {
  constructor(options = {}) {
    this.outputFile = options.outputFile ?? process.env.FREEZEGATE_VITEST_DATA ?? null;
    this.ledger = new LedgerSession(options);
  }

  onInit(ctx) {
    this.ctx = ctx;
    const config = ctx.config;
    const shard = config.shard ? { index: config.shard.index, count: config.shard.count } : null;
    // Data of an earlier run must not outlive a run that fails to record.
    rmSync(dataPath(config.root, shard, this.outputFile), { force: true });
    const coverage = config.coverage ?? {};
    if (!coverage.enabled) {
      throw fail(
        'freezegate: per-test coverage needs coverage on: run "vitest run --coverage" or set test.coverage.enabled to true, with provider "istanbul"',
      );
    }
    if (coverage.provider !== "istanbul") {
      throw fail(
        `freezegate: the "${coverage.provider ?? "v8"}" coverage provider keeps no counters inside the test process, so no per-test coverage can be recorded: set test.coverage.provider to "istanbul" (npm i -D @vitest/coverage-istanbul at Vitest's exact version)`,
      );
    }
    keepSourceMapsInCoverage(ctx);
    this.ledger.init(ctx);
  }

  async onTestRunEnd(testModules, _errors, reason) {
    const ctx = this.ctx;
    const config = ctx.config;
    const root = config.root;
    const rel = (p) => posix(isAbsolute(p) ? relative(root, p) : p);

    const testFiles = new Set();
    for (const project of ctx.projects ?? []) {
      const found = await project.globTestFiles();
      for (const file of found.testFiles ?? []) testFiles.add(rel(file));
    }

    const tests = [];
    const ranFiles = [];
    const failedFiles = [];
    const sections = new Map();
    let unmapped = 0;
    let overlap = false;
    const pools = new Set();
    let isolated = true;
    const modules = [...testModules].sort((a, b) =>
      a.moduleId < b.moduleId ? -1 : a.moduleId > b.moduleId ? 1 : 0,
    );
    for (const module of modules) {
      const file = rel(module.moduleId);
      const data = module.task?.meta?.[META_KEY];
      if (!data) {
        const errors = module.task?.result?.errors ?? [];
        failedFiles.push({
          file,
          reason: errors.length
            ? String(errors[0].message ?? errors[0]).split("\n")[0]
            : "no per-test data: the file did not run under freezegate's runner",
        });
        continue;
      }
      const fileIndex = ranFiles.length;
      ranFiles.push(file);
      const base = tests.length;
      for (const t of data.tests)
        tests.push(data.project ? { ...t, file, project: data.project } : { ...t, file });
      unmapped += data.unmappedStatements ?? 0;
      if (data.pool) pools.add(data.pool);
      if (data.isolate === false) isolated = false;
      overlap ||= Boolean(data.overlap);
      for (const [source, part] of Object.entries(data.sources)) {
        const key = rel(source);
        let section = sections.get(key);
        if (!section) {
          section = { source: key, hash: null, statements: new Map(), outside: {}, tests: {} };
          sections.set(key, section);
        }
        if (part.hash) section.hash ??= part.hash;
        for (const span of part.statements ?? [])
          section.statements.set(`${span[0]}:${span[1]}`, span);
        if (part.outside?.length) section.outside[fileIndex] = part.outside;
        for (const [i, phases] of Object.entries(part.tests))
          section.tests[base + Number(i)] = phases;
      }
    }

    if (modules.length > 0 && ranFiles.length === 0) {
      throw fail(
        'freezegate: no test file recorded per-test coverage: set test.runner to freezegate\'s Vitest runner (and keep test.coverage.provider "istanbul")',
      );
    }

    const shard = config.shard ? { index: config.shard.index, count: config.shard.count } : null;
    const header = {
      format: FORMAT,
      version: VERSION,
      createdAt: new Date().toISOString(),
      runId: randomBytes(8).toString("hex"),
      vitest: ctx.version ?? null,
      provider: "istanbul",
      // Projects choose their own pool and isolation: the data is isolated only if every file was.
      pool: pools.size ? [...pools].sort().join(",") : (config.pool ?? null),
      isolate: pools.size ? isolated : isolationOf(config),
      root: posix(root),
      shard,
      reason: reason ?? null,
      filter: {
        testNamePattern: config.testNamePattern ? String(config.testNamePattern) : null,
        files: ctx.filenamePattern ?? null,
      },
      concurrentOverlap: overlap,
      unmappedStatements: unmapped,
      testFiles: [...testFiles].sort(),
      ranFiles,
      failedFiles,
      tests,
      sources: [...sections.keys()].sort(),
    };

    const lines = [JSON.stringify(header)];
    for (const key of header.sources) {
      const s = sections.get(key);
      lines.push(
        JSON.stringify({
          source: s.source,
          hash: s.hash,
          statements: [...s.statements.values()].sort((a, b) => a[0] - b[0] || a[1] - b[1]),
          outside: s.outside,
          tests: s.tests,
        }),
      );
    }
    const target = dataPath(root, shard, this.outputFile);
    mkdirSync(dirname(target), { recursive: true });
    const temp = `${target}.${process.pid}.tmp`;
    writeFileSync(temp, `${lines.join("\n")}\n`);
    renameSync(temp, target);
    this.ledger.finish(modules, reason);
  }
}

/**
 * The recorder maps each statement to original source lines with the source map istanbul keeps
 * in the file's coverage data (`inputSourceMap`). Vitest 5's istanbul provider leaves it out
 * (it keeps the maps in this process, for its own report), so the workers would see only
 * transformed lines: ask its instrumenter to keep it, as Vitest 4's does, and make the
 * transforms Vitest caches on disk (`fsModuleCache`) distinct from those of runs without it.
 */
function keepSourceMapsInCoverage(ctx) {
  const major = Number(String(ctx.version ?? "").split(".")[0]);
  if (!(major >= 5)) return;
  const options = ctx.coverageProvider?.instrumenter?.opts;
  const cache = ctx.cache?._modules;
  if (!options || typeof cache?.defineCacheKeyGenerator !== "function") {
    throw fail(
      `freezegate: cannot keep source maps in istanbul's coverage data under Vitest ${ctx.version} (a custom coverage.instrumenter, or a Vitest this freezegate does not know): no per-test lines could be mapped to your sources; pin vitest and @vitest/coverage-istanbul to 4.1.x`,
    );
  }
  options.inputSourceMap = true;
  for (const project of ctx.projects ?? []) {
    cache.defineCacheKeyGenerator(project.config, () => "freezegate:inputSourceMap");
  }
}

function isolationOf(config) {
  if (typeof config.isolate === "boolean") return config.isolate;
  const pool = config.pool;
  const options = config.poolOptions?.[pool];
  return options?.isolate ?? true;
}
