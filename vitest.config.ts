import { defineConfig } from "vitest/config";
import { LongestFirst } from "./test/sequencer.js";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Most tests wait on child processes (git, Python, the built CLI), so one worker left a
    // core idle: on 2 cores two workers ran the suite in 587 s instead of 775 s.
    maxWorkers: 2,
    globalSetup: ["test/global-setup.ts"],
    // Longest files first, so that no long file runs alone at the end (test/sequencer.ts).
    sequence: { sequencer: LongestFirst },
  },
});
