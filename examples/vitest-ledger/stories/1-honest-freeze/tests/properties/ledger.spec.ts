import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { InsufficientFunds, Ledger } from "../../src/ledger.js";

// Each property runs with a fixed seed, so it draws the same inputs on every run.
describe("properties", () => {
  test("balance never negative", () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: -10_000, max: 10_000 }), { maxLength: 64 }),
        (amounts) => {
          const ledger = new Ledger();
          for (const amount of amounts) {
            try {
              ledger.apply(amount);
            } catch (error) {
              if (!(error instanceof InsufficientFunds)) throw error;
            }
          }
          expect(ledger.balance).toBeGreaterThanOrEqual(0);
        },
      ),
      { seed: 1012, numRuns: 300 },
    );
  });

  test("rejected withdrawal is a noop", () => {
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 10_000 }), (amount) => {
        const ledger = new Ledger(0);
        const before = ledger.snapshot();
        expect(() => ledger.apply(-amount)).toThrow(InsufficientFunds);
        expect(ledger.snapshot()).toEqual(before);
      }),
      { seed: 1012, numRuns: 50 },
    );
  });

  test("withdrawal beyond balance is rejected", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 10_000 }),
        fc.integer({ min: 1, max: 10_000 }),
        (initial, excess) => {
          const ledger = new Ledger(initial);
          expect(() => ledger.apply(-(initial + excess))).toThrow(InsufficientFunds);
          expect(ledger.balance).toBe(initial);
        },
      ),
      { seed: 1012, numRuns: 50 },
    );
  });
});
