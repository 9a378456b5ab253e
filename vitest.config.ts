import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 180_000,
    pool: "forks",
    // Vitest's default is one worker fewer than the cores: 1 on the 2-core CI machine. The
    // CLI tests spend much of their time waiting on git, Python and the built binary, which a
    // second worker fills (docs/node-versions.md gives the measured times).
    maxWorkers: 2,
    globalSetup: ["test/global-setup.ts"],
  },
});
