import { describe, expect, test } from "vitest";
import { InsufficientFunds, Ledger } from "../src/ledger.js";

describe("ledger", () => {
  test("deposit increases balance", () => {
    const ledger = new Ledger(100);
    ledger.apply(50);
    expect(ledger.balance).toBe(150);
  });

  test("withdraw more than balance", () => {
    const ledger = new Ledger(100);
    expect(() => ledger.apply(-120)).toThrow(InsufficientFunds);
    expect(ledger.balance).toBe(100);
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
