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

import { execFileSync, spawnSync } from "node:child_process";
import { readFileSync, rmSync, statSync } from "node:fs";
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { vitestBin, wrapperConfig } from "../scripts/vitest-oracle.mjs";

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

const bin = vitestBin(opts);
const configs = { plain: wrapperConfig(opts, "plain"), record: wrapperConfig(opts, "record") };
const times = { plain: [], record: [] };
const cpu = { plain: [], record: [] };

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
const runs = [];
try {
  for (let round = 0; round < opts.rounds; round++) {
    for (const mode of ["plain", "record"]) {
      const load = loadavg()[0].toFixed(2);
      const started = process.hrtime.bigint();
      const cpuBefore = childCpuSeconds();
      const res = spawnSync(
        process.execPath,
        [bin, "run", "--root", opts.root, "--config", configs[mode], ...opts.extra],
        {
          cwd: opts.root,
          encoding: "utf8",
          env: { ...process.env, FG_COVERAGE_REPORTER: "json", FORCE_COLOR: "0" },
          maxBuffer: 1 << 28,
        },
      );
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      const cpuSeconds = childCpuSeconds() - cpuBefore;
      cpu[mode].push(cpuSeconds);
      const tests = /Tests\s+(.*)/.exec(stripVTControlCharacters(res.stdout))?.[1]?.trim() ?? "?";
      times[mode].push(seconds);
      const data = join(opts.root, ".freezegate/vitest-coverage.jsonl");
      let size = "";
      try {
        if (mode === "record") size = `${Math.round(statSync(data).size / 1024)} KiB data`;
      } catch {
        size = "no data file";
      }
      runs.push({ round, mode, seconds, load, exit: res.status, tests, size });
      console.log(
        `${mode.padEnd(6)} ${seconds.toFixed(1).padStart(6)}s  cpu ${cpuSeconds.toFixed(1).padStart(6)}s  load ${load}  exit ${res.status}  ${tests}  ${size}`,
      );
    }
  }
} finally {
  for (const c of Object.values(configs)) rmSync(c, { force: true });
}
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const ratio = median(times.record) / median(times.plain);
let cpus = "";
try {
  cpus = execFileSync("nproc", { encoding: "utf8" }).trim();
} catch {}
console.log(
  `median plain ${median(times.plain).toFixed(1)}s, record ${median(times.record).toFixed(1)}s: ${ratio.toFixed(2)}x wall time; cpu ${median(cpu.plain).toFixed(1)}s against ${median(cpu.record).toFixed(1)}s: ${(median(cpu.record) / median(cpu.plain)).toFixed(2)}x (${opts.rounds} rounds, ${cpus} cores)`,
);
