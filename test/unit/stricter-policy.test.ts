import { describe, expect, it } from "vitest";
import { stricterPolicy } from "../../src/core/ledger.js";
import { DEFAULT_POLICY, GATES, type LedgerPolicy } from "../../src/core/ledger-model.js";

const policy = (over: Partial<LedgerPolicy> = {}): LedgerPolicy => ({
  ...DEFAULT_POLICY,
  blocking: [...DEFAULT_POLICY.blocking],
  ...over,
});

describe("stricterPolicy", () => {
  it("an unchanged policy is itself, loosening nothing", () => {
    expect(stricterPolicy(policy(), policy())).toEqual({ policy: policy(), loosened: [] });
  });

  it("takes the stricter side of every key and says what the patch loosened", () => {
    const base = policy({ generator_lock: ["a.py", "b/**"], require_approval: true });
    const head = policy({
      blocking: ["shape"],
      min_distinct: 1,
      max_window_days: 60,
      generator_lock: ["c.py", "a.py"],
      require_approval: false,
    });
    expect(stricterPolicy(base, head)).toEqual({
      policy: {
        max_window_days: 14,
        min_distinct: 8,
        blocking: [...GATES],
        generator_lock: ["c.py", "a.py", "b/**"],
        require_approval: true,
      },
      loosened: [
        "policy.blocking no longer lists shadow, witness, deposit, lock, ledger-changes",
        "policy.min_distinct lowered from 8 to 1",
        "policy.max_window_days raised from 14 to 60",
        "policy.generator_lock no longer lists b/**",
        "policy.require_approval switched off",
      ],
    });
  });

  it("a tightening applies at once and is no loosening", () => {
    const base = policy({ blocking: ["shape"], min_distinct: 4, max_window_days: 30 });
    const head = policy({
      blocking: ["witness", "shape"],
      min_distinct: 10,
      max_window_days: 7,
      generator_lock: ["x.py"],
      require_approval: true,
    });
    expect(stricterPolicy(base, head)).toEqual({
      policy: {
        max_window_days: 7,
        min_distinct: 10,
        blocking: ["shape", "witness"],
        generator_lock: ["x.py"],
        require_approval: true,
      },
      loosened: [],
    });
  });

  it("min_compensation: the higher share, and absent on one side is the other's", () => {
    expect(stricterPolicy(policy(), policy({ min_compensation: 0.5 }))).toEqual({
      policy: policy({ min_compensation: 0.5 }),
      loosened: [],
    });
    expect(stricterPolicy(policy({ min_compensation: 0.5 }), policy())).toEqual({
      policy: policy({ min_compensation: 0.5 }),
      loosened: ["policy.min_compensation removed"],
    });
    expect(
      stricterPolicy(policy({ min_compensation: 0.8 }), policy({ min_compensation: 0.25 })),
    ).toEqual({
      policy: policy({ min_compensation: 0.8 }),
      loosened: ["policy.min_compensation lowered from 0.8 to 0.25"],
    });
  });
});
