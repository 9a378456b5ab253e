#!/usr/bin/env node
// What per-test recording costs: the wall time of a whole `vitest run` of a project with
// freezegate's recorder against the same run with plain istanbul coverage, alternated
// (plain, record, plain, record, ...) so that a change of load on the machine hits both.
//
//   node bench/vitest-cost.mjs --root DIR [--rounds N] [--config FILE] [-- VITEST_ARGS...]
//
// Both runs write istanbul's json report (FG_COVERAGE_REPORTER=json); the recorded run also
// writes freezegate's data file. Prints each run with its wall time, the CPU time of Vitest
// and its workers, and the load average before it; then the ratios of the medians.
// bench/run.mjs runs the same measurement (measureVitestCost) as its optional Vitest section.

import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, rmSync, statSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { stripVTControlCharacters } from "node:util";
import { readData, vitestBin, wrapperConfig } from "../scripts/vitest-oracle.mjs";

// CPU seconds of all waited-for children (Vitest and its workers), from /proc: less
// sensitive to other jobs on the machine than wall time.
function childCpuSeconds() {
  try {
    const fields = readFileSync("/proc/self/stat", "utf8").split(") ")[1].split(" ");
    return (Number(fields[13]) + Number(fields[14])) / 100;
  } catch {
    return Number.NaN;
  }
}

export const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

/**
 * Runs the project's suite `rounds` times in each mode, alternating, and returns every run and
 * the medians: { runs, plain, record, ratio, cpuRatio, tests, vitest }. `log` gets one line per
 * run. Throws when a recorded run writes no data: its time would not be the recorder's.
 * `sameTests` says whether every run printed the same test counts (a run that failed or
 * skipped other tests than the rest measured another suite).
 */
export function measureVitestCost({ root, rounds = 3, config, extra = [], log = console.log }) {
  const opts = { root, config, extra };
  const bin = vitestBin(opts);
  const configs = { plain: wrapperConfig(opts, "plain"), record: wrapperConfig(opts, "record") };
  const times = { plain: [], record: [] };
  const cpu = { plain: [], record: [] };
  // The recorder's data goes to a file of the bench's own, not over the project's.
  const data = join(tmpdir(), `fg-vitest-cost-${process.pid}.jsonl`);
  // And istanbul's json report (both modes write it) to a directory of its own.
  const reports = join(tmpdir(), `fg-vitest-cost-${process.pid}-coverage`);
  const runs = [];
  let recorded = null;
  try {
    for (let round = 0; round < rounds; round++) {
      for (const mode of ["plain", "record"]) {
        if (mode === "record") rmSync(data, { force: true });
        const load = loadavg()[0];
        const started = process.hrtime.bigint();
        const cpuBefore = childCpuSeconds();
        const res = spawnSync(
          process.execPath,
          [
            bin,
            "run",
            "--root",
            root,
            "--config",
            configs[mode],
            `--coverage.reportsDirectory=${reports}`,
            ...extra,
          ],
          {
            cwd: root,
            encoding: "utf8",
            env: {
              ...process.env,
              FG_COVERAGE_REPORTER: "json",
              FORCE_COLOR: "0",
              FREEZEGATE_VITEST_DATA: data,
            },
            maxBuffer: 1 << 28,
          },
        );
        const seconds = Number(process.hrtime.bigint() - started) / 1e9;
        const cpuSeconds = childCpuSeconds() - cpuBefore;
        const out = stripVTControlCharacters(`${res.stdout}${res.stderr}`);
        const tests = /Tests\s+(.*)/.exec(out)?.[1]?.trim() ?? "?";
        let size = "";
        if (mode === "record") {
          try {
            size = `${Math.round(statSync(data).size / 1024)} KiB data`;
            recorded ??= readData(data).header;
          } catch {
            throw new Error(
              `the recorded run (round ${round + 1}) wrote no ${data} (exit ${res.status}): ${out.slice(-600)}`,
            );
          }
        }
        times[mode].push(seconds);
        cpu[mode].push(cpuSeconds);
        runs.push({ round, mode, seconds, cpuSeconds, load, exit: res.status, tests, size });
        log(
          `${mode.padEnd(6)} ${seconds.toFixed(1).padStart(6)}s  cpu ${cpuSeconds.toFixed(1).padStart(6)}s  load ${load.toFixed(2)}  exit ${res.status}  ${tests}  ${size}`,
        );
      }
    }
  } finally {
    for (const c of Object.values(configs)) rmSync(c, { force: true });
    rmSync(data, { force: true });
    rmSync(reports, { recursive: true, force: true });
  }
  const plain = median(times.plain);
  const record = median(times.record);
  return {
    runs,
    plain,
    record,
    ratio: record / plain,
    cpuPlain: median(cpu.plain),
    cpuRecord: median(cpu.record),
    cpuRatio: median(cpu.record) / median(cpu.plain),
    sameTests: new Set(runs.map((r) => r.tests)).size === 1,
    // What the recorded run saw: the tests it ran (passed, failed, skipped) and Vitest's version.
    tests: recorded ? recorded.tests.length : 0,
    vitest: recorded?.vitest ?? "?",
  };
}

const isMain = process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (isMain) {
  const args = process.argv.slice(2);
  const opts = { rounds: 3, extra: [] };
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === "--") {
      opts.extra = args.slice(i + 1);
      break;
    }
    if (a === "--root") opts.root = resolve(args[++i]);
    else if (a === "--rounds") opts.rounds = Number(args[++i]);
    else if (a === "--config") opts.config = resolve(args[++i]);
    else throw new Error(`unknown option ${a}`);
  }
  if (!opts.root) throw new Error("--root DIR is required");
  const r = measureVitestCost(opts);
  let cpus = "";
  try {
    cpus = execFileSync("nproc", { encoding: "utf8" }).trim();
  } catch {}
  console.log(
    `median plain ${r.plain.toFixed(1)}s, record ${r.record.toFixed(1)}s: ${r.ratio.toFixed(2)}x wall time; cpu ${r.cpuPlain.toFixed(1)}s against ${r.cpuRecord.toFixed(1)}s: ${r.cpuRatio.toFixed(2)}x (${opts.rounds} rounds, ${cpus} cores, ${r.tests} tests, Vitest ${r.vitest})`,
  );
}
