// Phase timings on stderr when FREEZEGATE_TIMING=1: how the benchmark's figures break down
// (startup, git, data, statements, audit). Costs nothing when off.

const enabled = process.env.FREEZEGATE_TIMING === "1";
let last = performance.now();

export function mark(phase: string): void {
  if (!enabled) return;
  const now = performance.now();
  process.stderr.write(
    `timing: ${phase.padEnd(24)} +${(now - last).toFixed(1)} ms (at ${now.toFixed(1)} ms)\n`,
  );
  last = now;
}
