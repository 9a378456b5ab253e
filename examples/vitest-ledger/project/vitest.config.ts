// Wired by `npx freezegate init vitest`: freezegate's runner records which test ran which line
// and applies freeze-ledger.json (frozen tests keep running without gating); its reporter
// writes .freezegate/vitest-coverage.jsonl (per-test coverage), .freezegate/applied.json
// (what was frozen) and .freezegate/samples.json (distinct inputs per property test).
import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["tests/**/*.spec.ts"],
    runner: "freezegate/vitest/runner",
    reporters: ["default", "freezegate/vitest/reporter"],
    coverage: { enabled: true, provider: "istanbul" },
  },
});
