// Phase timings (and memory) on stderr when FREEZEGATE_TIMING=1: how the benchmark's
// figures break down (start-up, git, data, statements, audit). Costs nothing when off.

import { readTextOrNull } from "../adapters/repo-files.js";

const enabled = process.env.FREEZEGATE_TIMING === "1";
// `performance` is read only when timing is on: its first use loads node:perf_hooks, which
// costs every run a few milliseconds of start-up.
let last = enabled ? performance.now() : 0;
let lastCpu = enabled ? cpuMs() : 0;

/**
 * The process's CPU time so far in ms (user + system, every thread): exact, where the
 * per-thread figures count in scheduler ticks, and far steadier than wall time on a loaded
 * machine.
 */
function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** The process's peak resident set so far (Linux only; "?" elsewhere), what GNU time reports. */
function peakRss(): string {
  const status = readTextOrNull("/proc/self/status");
  const kb = status === null ? undefined : /^VmHWM:\s+(\d+) kB/m.exec(status)?.[1];
  return kb === undefined ? "?" : (Number(kb) / 1024).toFixed(1);
}

export function mark(phase: string): void {
  if (!enabled) return;
  const now = performance.now();
  const cpu = cpuMs();
  const mb = (n: number) => (n / 1048576).toFixed(1);
  const m = process.memoryUsage();
  process.stderr.write(
    `timing: ${phase.padEnd(24)} +${(now - last).toFixed(1)} ms (at ${now.toFixed(1)} ms) cpu +${(cpu - lastCpu).toFixed(1)} (at ${cpu.toFixed(1)}) rss ${mb(m.rss)} (peak ${peakRss()}) heap ${mb(m.heapUsed)} ext ${mb(m.external)} MB\n`,
  );
  last = now;
  lastCpu = cpu;
}
