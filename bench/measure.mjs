// Running and measuring commands for the bench scripts (bench/run.mjs, bench/tricks.mjs).

import { spawnSync } from "node:child_process";
import { closeSync, openSync, readFileSync, rmSync } from "node:fs";

export class BenchError extends Error {}

export const GNU_TIME = "/usr/bin/time";

/**
 * The audit every bench script measures, in a workload's directory. `--coverage .coverage`
 * explicitly: the baselines leave coverage.json and coverage.xml in the project root, and the
 * measured run must read the same data file every time.
 */
export const AUDIT = [
  "audit",
  "--base",
  "base",
  "--frozen",
  "quarantine.json",
  "--coverage",
  ".coverage",
];

/**
 * The environment every measured command gets. This machine sets NODE_EXTRA_CA_CERTS to the
 * whole system bundle, which Node 20 parsed at every start (about 40 ms here; 22 and 24 read
 * it only for a TLS connection); freezegate opens none, and developer machines and CI runners
 * do not set it, so it is removed (the Python baselines do not read it).
 */
export const BENCH_ENV = { ...process.env, NO_COLOR: "1" };
delete BENCH_ENV.NODE_EXTRA_CA_CERTS;

/**
 * One measured run under GNU time: wall time from our own clock (GNU time's %e has only
 * centisecond resolution), peak RSS (%M, KB) and CPU time (%U + %S) from GNU time. CPU time
 * is recorded because wall time on a shared 2-core machine moves with the load; CPU time
 * much less. stdout goes to `outFile`.
 */
export function measure(argv, cwd, outFile, okCodes) {
  const timeFile = `${outFile}.time`;
  rmSync(timeFile, { force: true });
  const fd = openSync(outFile, "w");
  const t0 = process.hrtime.bigint();
  let r;
  try {
    r = spawnSync(GNU_TIME, ["-f", "%e %M %U %S", "-o", timeFile, ...argv], {
      cwd,
      stdio: ["ignore", fd, "pipe"],
      encoding: "utf8",
      maxBuffer: 64 * 1024 * 1024,
      env: BENCH_ENV,
    });
  } finally {
    closeSync(fd);
  }
  const ms = Number(process.hrtime.bigint() - t0) / 1e6;
  if (r.error) throw new BenchError(`${argv.join(" ")}: ${r.error.message}`);
  const timeLines = readFileSync(timeFile, "utf8").trim().split("\n");
  const [, kb, user, sys] = (timeLines.at(-1) ?? "").split(" ").map(Number);
  if (!okCodes.includes(r.status) || !Number.isFinite(kb)) {
    throw new BenchError(
      `${argv.join(" ")} (in ${cwd}) exited ${r.status ?? r.signal}: ${r.stderr.trim() || timeLines.join(" ")}`,
    );
  }
  return { ms, kb, cpuMs: (user + sys) * 1000, status: r.status, stderr: r.stderr };
}

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** Median time and peak RSS over runs (the RSS median too, so one cold run does not decide). */
export function summarize(runs) {
  return {
    ms: median(runs.map((r) => r.ms)),
    kb: median(runs.map((r) => r.kb)),
    cpuMs: median(runs.map((r) => r.cpuMs)),
    minMs: Math.min(...runs.map((r) => r.ms)),
    n: runs.length,
  };
}

/** A table for the terminal: columns padded to their widest cell. */
export function textTable({ head, rows }) {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const line = (cells) => cells.map((c, i) => c.padEnd(widths[i])).join(" | ");
  return [line(head), widths.map((w) => "-".repeat(w)).join("-|-"), ...rows.map(line)].join("\n");
}

/** The same table as Markdown. */
export function markdownTable({ head, rows }) {
  const line = (cells) => `| ${cells.join(" | ")} |`;
  return [line(head), line(head.map(() => "---")), ...rows.map(line)].join("\n");
}
