// Run in a bench workload directory (bench/work/large-30/lines after `npm run bench`):
//   node bench/floor/git.cjs   (time it with /usr/bin/time or alternating runs)
// Floor B: node start + one `git diff` of the patch, nothing else.
const { spawnSync } = require("node:child_process");
const r = spawnSync("git", ["diff", "--no-color", "--no-ext-diff", "-U0", "base...HEAD"], {
  encoding: "buffer",
  maxBuffer: 1 << 28,
});
if (r.status !== 0) throw new Error("git");
process.exit(0);
