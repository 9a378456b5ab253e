// The ledger's structural errors give the fix of the key at
// fault. An empty generator_lock entry is a path or glob (not a test id); a whole number's
// example is its own key's default (min_distinct 8, max_window_days 14).

import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import { parseLedger } from "../../src/core/ledger.js";
import { DEFAULT_POLICY } from "../../src/core/ledger-model.js";

function refusal(value: unknown): InputError {
  try {
    parseLedger(value, "freeze-ledger.json");
  } catch (error) {
    if (error instanceof InputError) return error;
    throw error;
  }
  throw new Error("parseLedger accepted the ledger");
}

describe("structural ledger errors: each key its own fix", () => {
  it("an empty generator_lock entry asks for a path or glob", () => {
    const error = refusal({ version: 1, policy: { generator_lock: ["tests/s.py", " "] } });
    expect(error.message).toBe("ledger freeze-ledger.json: $.policy.generator_lock[1] is empty");
    expect(error.fix).toMatch(/^write a file path or glob relative to the repository root/);
    expect(error.fix).not.toContain("test id");
  });

  it("an empty test id still asks for a test id", () => {
    expect(refusal({ frozen: [""] }).fix).toBe("write a test id or remove the entry");
    const witness = refusal({
      version: 1,
      properties: [{ id: "p", check: "c", witnessed_by: [""] }],
    });
    expect(witness.message).toBe(
      "ledger freeze-ledger.json: $.properties[0].witnessed_by[0] is empty",
    );
    expect(witness.fix).toBe("write a test id or remove the entry");
  });

  it("min_distinct and max_window_days suggest their own defaults", () => {
    expect(DEFAULT_POLICY.min_distinct).toBe(8);
    expect(DEFAULT_POLICY.max_window_days).toBe(14);
    expect(refusal({ version: 1, policy: { min_distinct: 0 } }).fix).toBe(
      "write e.g. 8, the default",
    );
    expect(refusal({ version: 1, policy: { max_window_days: -1 } }).fix).toBe(
      "write e.g. 14, the default",
    );
    expect(refusal({ schema: 1, max_window_days: "14", freezes: [] }).fix).toBe(
      "write e.g. 14, the default",
    );
  });
});
