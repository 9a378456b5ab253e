// Ledger days: only real calendar days parse, arithmetic is in whole UTC days (no DST hour
// drift), and "today" is the UTC date whatever the process's time zone.

import { afterEach, describe, expect, it } from "vitest";
import {
  addDays,
  daysBetween,
  formatDay,
  isDay,
  parseDay,
  todayUtc,
  utcDayOfInstant,
} from "../../src/core/dates.js";

describe("parseDay / isDay", () => {
  it("accepts real days, including 29 February of leap years", () => {
    expect(parseDay("1970-01-01")).toBe(0);
    expect(parseDay("2026-10-12")).not.toBeNull();
    expect(isDay("2028-02-29")).toBe(true);
    expect(isDay("2000-02-29")).toBe(true);
    expect(isDay("2026-12-31")).toBe(true);
  });

  it("rejects days that do not exist and other spellings", () => {
    for (const bad of [
      "2026-02-29", // not a leap year
      "1900-02-29", // century, not a leap year
      "2026-02-30",
      "2026-04-31",
      "2026-13-01",
      "2026-00-10",
      "2026-10-00",
      "0000-01-01",
      "2026-1-5",
      "26-10-12",
      " 2026-10-12",
      "2026-10-12 ",
      "2026-10-12T00:00:00Z",
      "2026/10/12",
      "",
      "tomorrow",
    ]) {
      expect(isDay(bad), bad).toBe(false);
    }
  });
});

describe("day arithmetic", () => {
  it("adds days across month, year and leap-day boundaries", () => {
    expect(addDays("2026-10-12", 14)).toBe("2026-10-26");
    expect(addDays("2026-12-25", 14)).toBe("2027-01-08");
    expect(addDays("2028-02-20", 14)).toBe("2028-03-05");
    expect(addDays("2026-02-20", 14)).toBe("2026-03-06");
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
  });

  it("counts whole days across a daylight-saving change", () => {
    // Europe and the US change clocks in late March / early November.
    expect(daysBetween("2026-03-20", "2026-04-03")).toBe(14);
    expect(daysBetween("2026-10-25", "2026-11-08")).toBe(14);
    expect(daysBetween("2026-10-26", "2026-10-12")).toBe(-14);
  });

  it("formats back what it parses", () => {
    for (const day of ["1970-01-01", "2026-10-12", "2028-02-29", "9999-12-31", "0001-01-01"]) {
      expect(formatDay(parseDay(day) as number)).toBe(day);
    }
  });

  it("refuses to compute with a day that is not real (callers validate first)", () => {
    expect(() => addDays("2026-02-30", 1)).toThrow(RangeError);
    expect(() => daysBetween("2026-10-12", "soon")).toThrow(RangeError);
  });
});

describe("utcDayOfInstant (FREEZEGATE_NOW, as the pytest plugin reads it)", () => {
  it.each([
    ["2026-10-18T23:30:00Z", "2026-10-18"],
    ["2026-10-18", "2026-10-18"],
    ["2026-10-18T23:30", "2026-10-18"],
    ["2026-10-18 23:30:59.123456", "2026-10-18"],
    // No zone: the day as written, never the machine's local time.
    ["2026-10-27T05:00:00", "2026-10-27"],
    ["2026-10-27T05:00:00+09:00", "2026-10-26"],
    ["2026-10-26T20:00:00-05:00", "2026-10-27"],
    ["2024-12-31T23:59:59-00:30", "2025-01-01"],
    [" 2026-10-18T00:00:00Z\n", "2026-10-18"],
  ])("%s is the UTC day %s", (text, day) => {
    expect(utcDayOfInstant(text)).toBe(day);
  });

  it.each([
    "1",
    "12",
    "2026/10/20",
    "October 20, 2026",
    "2026-02-30",
    "2026-10-18T24:00",
    "2026-10-18T23:60",
    "2026-10-18T23:30:00+24:00",
    "2026-10-18T23:30:00 Z",
    "20261018",
    "now",
  ])("%j is no instant", (text) => {
    expect(utcDayOfInstant(text)).toBeNull();
  });
});

describe("todayUtc", () => {
  const saved = process.env.TZ;
  afterEach(() => {
    if (saved === undefined) delete process.env.TZ;
    else process.env.TZ = saved;
  });

  it("is the UTC date of the instant, whatever the process time zone", () => {
    const justBefore = new Date("2026-10-26T23:59:59Z");
    const justAfter = new Date("2026-10-27T00:00:00Z");
    // UTC+14 and UTC-10: the local dates are a day apart from the UTC date on each side.
    for (const tz of ["Pacific/Kiritimati", "America/Adak", "Pacific/Pago_Pago", "UTC"]) {
      process.env.TZ = tz;
      expect(todayUtc(justBefore), tz).toBe("2026-10-26");
      expect(todayUtc(justAfter), tz).toBe("2026-10-27");
    }
    process.env.TZ = "Pacific/Kiritimati";
    // Sanity: the local date there really is different, so the test can fail.
    expect(justBefore.getDate()).toBe(27);
  });
});
