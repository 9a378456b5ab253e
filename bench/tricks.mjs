#!/usr/bin/env node
// What each start-up trick of `freezegate audit` is worth on the Node.js running this script:
// the build as it is against copies of it with one trick taken out, run in alternation on the
// bench's workloads (a round runs every variant once, the starting variant rotating), so that
// a slow spell of the shared machine lands on every variant alike. Each variant's JSON report
// must be the build's, byte for byte.
//
//   node bench/tricks.mjs [--runs N] [--only small,large-30]
//
// Needs the build (`npm run build`; the code caches are remade by this Node.js) and the
// workloads (`node bench/run.mjs --generate`). Prints one table per workload: medians of wall
// time, CPU time (user + system, from each run's own rusage: bench/alternate.py) and peak
// RSS, and per variant the median of its per-round difference to the build (positive: the
// build is faster) and in how many rounds it took more CPU time than the build.

import { spawnSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { writeCodeCache } from "../scripts/code-cache.mjs";
import { AUDIT, BENCH_ENV, BenchError, measure, median } from "./measure.mjs";

const HERE = dirname(fileURLToPath(import.meta.url));
const ROOT = resolve(HERE, "..");
const WORK = join(HERE, "work");
const OUT = join(WORK, "tricks");
const PYTHON = process.env.FREEZEGATE_PYTHON ?? "/usr/bin/python3";

/** The build, and the build without one trick: a text in audit.cjs replaced, or no cache. */
const VARIANTS = [
  { name: "as built" },
  { name: "no code cache", cache: false },
  { name: "no --no-opt", patch: ['setFlagsFromString("--no-opt");', "void 0;"] },
  { name: "no early exit", patch: ["afterAnswer: endWhenAnswered,", "afterAnswer: void 0,"] },
];

function parseArgs(argv) {
  const opts = { runs: 15, only: ["small", "large-30"] };
  for (let i = 0; i < argv.length; i += 2) {
    const [flag, value] = [argv[i], argv[i + 1]];
    if (flag === "--runs" && Number(value) > 0) opts.runs = Number(value);
    else if (flag === "--only" && value) opts.only = value.split(",");
    else throw new BenchError(`unknown or incomplete option ${flag}`);
  }
  return opts;
}

function makeVariant(variant) {
  const dir = join(OUT, variant.name.replace(/[^\w]+/g, "-"));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  cpSync(join(ROOT, "dist"), join(dir, "dist"), { recursive: true });
  cpSync(join(ROOT, "package.json"), join(dir, "package.json"));
  const bin = join(dir, "dist", "bin");
  if (variant.patch) {
    const [from, to] = variant.patch;
    const file = join(bin, "audit.cjs");
    const text = readFileSync(file, "utf8");
    if (text.split(from).length !== 2) {
      throw new BenchError(`${variant.name}: "${from}" is not in audit.cjs exactly once`);
    }
    writeFileSync(file, text.replace(from, to));
  }
  if (variant.cache === false) rmSync(join(bin, "audit.cjs.v8cache"), { force: true });
  else writeCodeCache(bin);
  return { ...variant, cli: join(bin, "freezegate.cjs") };
}

/** The variant's JSON report and what its timing log says of the code cache. */
function probe(variant, project, out) {
  const jsonFile = join(out, `${variant.name.replace(/[^\w]+/g, "-")}.json`);
  const r = measure(
    [process.execPath, variant.cli, ...AUDIT, "--format", "json"],
    project,
    jsonFile,
    [0, 1],
  );
  const timed = measure(
    ["/usr/bin/env", "FREEZEGATE_TIMING=1", process.execPath, variant.cli, ...AUDIT],
    project,
    join(out, "timing.txt"),
    [0, 1],
  );
  const cache = /timing: code cache (\w+)/.exec(timed.stderr)?.[1] ?? "?";
  return { report: readFileSync(jsonFile, "utf8"), status: r.status, cache };
}

function benchWorkload(workload, variants, runs) {
  const project = join(WORK, workload);
  const out = join(OUT, workload.replace("/", "-"));
  mkdirSync(out, { recursive: true });
  const probes = variants.map((v) => probe(v, project, out));
  for (const [i, p] of probes.entries()) {
    if (p.report !== probes[0]?.report) {
      throw new BenchError(`${workload}: ${variants[i]?.name} reports differently from the build`);
    }
  }
  const loadBefore = loadavg()[0];
  const r = spawnSync(PYTHON, [join(HERE, "alternate.py")], {
    input: JSON.stringify({
      rounds: runs,
      cwd: project,
      env: BENCH_ENV,
      variants: variants.map((v) => ({ name: v.name, argv: [process.execPath, v.cli, ...AUDIT] })),
    }),
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (r.status !== 0) throw new BenchError(`${workload}: alternate.py: ${r.stderr.trim()}`);
  const runsOf = JSON.parse(r.stdout);
  const loadAfter = loadavg()[0];
  const base = runsOf[variants[0].name];
  const signed = (n, digits) => `${n >= 0 ? "+" : ""}${n.toFixed(digits)}`;
  const rows = variants.map((v, i) => {
    const own = runsOf[v.name];
    const wallDiff = own.wall_ms.map((ms, k) => ms - base.wall_ms[k]);
    const cpuDiff = own.cpu_ms.map((ms, k) => ms - base.cpu_ms[k]);
    return [
      v.name,
      `${median(own.wall_ms).toFixed(0)} (${Math.min(...own.wall_ms).toFixed(0)})`,
      median(own.cpu_ms).toFixed(1),
      (median(own.peak_kb) / 1024).toFixed(1),
      i === 0 ? "-" : signed(median(wallDiff), 1),
      i === 0 ? "-" : signed(median(cpuDiff), 1),
      i === 0 ? "-" : `${cpuDiff.filter((d) => d > 0).length}/${runs}`,
      probes[i]?.cache,
    ];
  });
  const head = [
    "variant",
    "wall ms median (min)",
    "CPU ms",
    "peak MB",
    "wall vs build",
    "CPU vs build",
    "rounds with more CPU",
    "code cache",
  ];
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [
    `${workload}, Node.js ${process.version}, ${runs} rounds, load average ${loadBefore.toFixed(2)} -> ${loadAfter.toFixed(2)}:`,
    "",
    line(head),
    line(head.map(() => "---")),
    ...rows.map(line),
  ].join("\n");
}

function main() {
  const opts = parseArgs(process.argv.slice(2));
  if (!existsSync(join(ROOT, "dist", "bin", "audit.cjs"))) {
    throw new BenchError("no build: run npm run build first");
  }
  const workloads = opts.only.flatMap((shape) => [`${shape}/lines`, `${shape}/arcs`]);
  for (const w of workloads) {
    if (!existsSync(join(WORK, w, ".coverage"))) {
      throw new BenchError(`no workload ${w}: run node bench/run.mjs --generate first`);
    }
  }
  process.stderr.write(`tricks: ${VARIANTS.length} variants of dist/ for ${process.version}\n`);
  const variants = VARIANTS.map(makeVariant);
  for (const w of workloads) {
    process.stderr.write(`tricks: ${w}\n`);
    process.stdout.write(`${benchWorkload(w, variants, opts.runs)}\n\n`);
  }
}

try {
  main();
} catch (error) {
  if (!(error instanceof BenchError)) throw error;
  process.stderr.write(`tricks: ${error.message}\n`);
  process.exitCode = 2;
}
