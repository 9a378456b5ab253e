#!/usr/bin/env node
// Rewrites test/durations.json (the order test/sequencer.ts starts test files in) from
// Vitest's record of the last run: run the whole suite first (`npm test`), on a machine doing
// nothing else. Each file's seconds, rounded; files under a second are left out (their order
// does not matter).

import { readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = join(import.meta.dirname, "..");
const cacheDir = join(root, "node_modules", ".vite", "vitest");
const records = readdirSync(cacheDir).map((dir) => join(cacheDir, dir, "results.json"));
if (records.length !== 1) {
  throw new Error(`expected one Vitest results file under ${cacheDir}, found ${records.length}`);
}
const { results } = JSON.parse(readFileSync(records[0], "utf8"));
const seconds = results
  .map(([key, { duration }]) => [key.slice(key.indexOf(":") + 1), Math.round(duration / 1000)])
  .filter(([, s]) => s >= 1)
  .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1));
writeFileSync(
  join(root, "test", "durations.json"),
  `${JSON.stringify(Object.fromEntries(seconds), null, 2)}\n`,
);
process.stdout.write(`test/durations.json: ${seconds.length} files\n`);
