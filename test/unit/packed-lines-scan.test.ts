// The WebAssembly scanner of packed line rows against a plain reading of the same rules:
// what it answers must be exactly right, and it must answer (not leave to the JavaScript
// reader) every well-formed input. Inputs are made by a seeded generator, then broken.

import { describe, expect, it } from "vitest";
import { MAX_NUMBITS_BYTES, scanPackedLines } from "../../src/adapters/packed-lines-scan.js";

interface Found {
  pairs: number[];
  union: number[];
}

/**
 * The scanner's contract, read plainly: records `<id>,<length>,<bytes>` with numbers of 1 to 9
 * digits, every id known to `index`, lengths within the data and MAX_NUMBITS_BYTES, `rows`
 * records in all; else null.
 */
function reference(
  packed: Uint8Array,
  rows: number,
  index: Int32Array,
  wanted: readonly number[],
): Found | null {
  let at = 0;
  const number = (): number => {
    const start = at;
    let value = 0;
    while (at < packed.length && packed[at] !== 44) {
      const c = packed[at] as number;
      if (c < 48 || c > 57 || at - start >= 9) return -1;
      value = value * 10 + (c - 48);
      at++;
    }
    if (at === start || at >= packed.length) return -1;
    at++;
    return value;
  };
  const pairs: number[] = [];
  const union: number[] = [];
  let records = 0;
  while (at < packed.length) {
    const id = number();
    if (id < 0 || id >= index.length || (index[id] as number) < 0) return null;
    const length = number();
    if (length < 0 || length > MAX_NUMBITS_BYTES || length > packed.length - at) return null;
    for (let i = 0; i < length; i++) union[i] = (union[i] ?? 0) | (packed[at + i] as number);
    for (const line of wanted) {
      if (line >> 3 >= length) break;
      if ((((packed[at + (line >> 3)] as number) >> (line & 7)) & 1) === 1) {
        pairs.push(line, index[id] as number);
      }
    }
    at += length;
    records++;
  }
  return records === rows ? { pairs, union } : null;
}

function scan(
  packed: Uint8Array,
  rows: number,
  index: Int32Array,
  wanted: readonly number[],
): Found | null {
  const found = scanPackedLines(packed, rows, index, Int32Array.from(wanted));
  return found === null ? null : { pairs: [...found.pairs], union: [...found.union] };
}

/** mulberry32: the same inputs on every run. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function packRecords(records: [id: number | string, bytes: number[]][]): Uint8Array {
  const parts: Buffer[] = [];
  for (const [id, bytes] of records) {
    parts.push(Buffer.from(`${id},${bytes.length},`, "latin1"), Buffer.from(bytes));
  }
  return Uint8Array.from(Buffer.concat(parts));
}

/** A context table of `size` ids, every fifth unknown (-1), the others mapped to names. */
function contextTable(size: number): Int32Array {
  return Int32Array.from({ length: size }, (_, id) => (id % 5 === 4 ? -1 : size - id));
}

describe("scanPackedLines", () => {
  it("reads well-formed rows exactly, and answers every one itself", () => {
    const next = random(1);
    const int = (n: number) => Math.floor(next() * n);
    const index = contextTable(300);
    const known = [...index.keys()].filter((id) => (index[id] as number) >= 0);
    let pairs = 0;
    for (let round = 0; round < 2000; round++) {
      const records: [number, number[]][] = Array.from({ length: int(40) }, () => [
        known[int(known.length)] as number,
        Array.from({ length: int(24) }, () => (next() < 0.3 ? 0 : int(256))),
      ]);
      const packed = packRecords(records);
      const wanted = [...new Set(Array.from({ length: int(12) }, () => 1 + int(200)))].sort(
        (a, b) => a - b,
      );
      const expected = reference(packed, records.length, index, wanted);
      expect(expected).not.toBeNull();
      expect(scan(packed, records.length, index, wanted), `round ${round}`).toEqual(expected);
      pairs += (expected as Found).pairs.length / 2;
    }
    expect(pairs).toBeGreaterThan(5000);
  });

  it("leaves every broken input to the JavaScript reader, and reads the rest the same", () => {
    const next = random(2);
    const int = (n: number) => Math.floor(next() * n);
    const index = contextTable(50);
    let refused = 0;
    let read = 0;
    for (let round = 0; round < 5000; round++) {
      const records: [number, number[]][] = Array.from({ length: 1 + int(6) }, () => [
        int(50),
        Array.from({ length: int(6) }, () => int(256)),
      ]);
      const bytes = [...packRecords(records)];
      // Break it: change, drop or insert a byte (a digit, a comma or anything), or cut it short.
      const edits = 1 + int(3);
      for (let e = 0; e < edits; e++) {
        const at = int(bytes.length + 1);
        const value = [44, 48 + int(10), int(256)][int(3)] as number;
        const kind = int(4);
        if (kind === 0 && at < bytes.length) bytes[at] = value;
        else if (kind === 1) bytes.splice(at, 1);
        else if (kind === 2) bytes.splice(at, 0, value);
        else bytes.length = Math.min(bytes.length, at);
      }
      const packed = Uint8Array.from(bytes);
      const rows = next() < 0.9 ? records.length : int(8);
      const wanted = [1 + int(8), 9 + int(30)];
      const expected = reference(packed, rows, index, wanted);
      expect(scan(packed, rows, index, wanted), `round ${round}: ${bytes.join(" ")}`).toEqual(
        expected,
      );
      if (expected === null) refused++;
      else read++;
    }
    expect(refused).toBeGreaterThan(1000);
    expect(read).toBeGreaterThan(200);
  });

  it("refuses what it cannot judge: unknown ids, long numbers, huge or missing bytes", () => {
    const index = contextTable(20);
    const row = (id: number | string, length: string, bytes = 1) =>
      Uint8Array.from([...Buffer.from(`${id},${length},`, "latin1"), ...Array(bytes).fill(255)]);
    expect(scan(row(3, "1"), 1, index, [1])).toEqual({ pairs: [1, 17], union: [255] });
    expect(scan(row("000000003", "1"), 1, index, [1])).toEqual({ pairs: [1, 17], union: [255] });
    for (const [packed, why] of [
      [row(4, "1"), "an id the context table does not have"],
      [row(20, "1"), "an id past the table"],
      [row(4294967297, "1"), "an id past 32 bits"],
      [row("0000000003", "1"), "ten digits"],
      [row(3, "2"), "fewer bytes than the length says"],
      [row(3, String(MAX_NUMBITS_BYTES + 1), 0), "a length past any source file"],
      [row("", "1"), "no id"],
      [row("-3", "1"), "a sign"],
      [Uint8Array.from(Buffer.from("3,1", "latin1")), "no comma after the length"],
    ] as const) {
      expect(scan(packed, 1, index, [1]), why).toBeNull();
    }
    expect(scan(row(3, "1"), 2, index, [1]), "one row fewer than counted").toBeNull();
    expect(scan(new Uint8Array(0), 0, index, [1])).toEqual({ pairs: [], union: [] });
  });

  it("grows its memory for large rows and switches context tables between data files", () => {
    const one = contextTable(40);
    const two = Int32Array.from({ length: 70_000 }, (_, id) => id * 2);
    const wide = Array.from({ length: 200_000 }, (_, i) => (i % 7 === 0 ? 0x81 : 0));
    const wanted = [7, 8, 56, 8 * 7000 + 7, 8 * 199_997];
    for (const [index, id] of [
      [one, 3],
      [two, 69_999],
      [one, 38],
      [two, 5],
    ] as const) {
      const packed = packRecords([
        [id, wide],
        [1, [1]],
      ]);
      const expected = reference(packed, 2, index, wanted);
      expect(expected?.pairs.length).toBe(8);
      expect(scan(packed, 2, index, wanted)).toEqual(expected);
    }
    // The same table again, with rows that need more memory: the table must survive the growth.
    const wider = packRecords([
      [5, [...wide, ...wide, ...wide]],
      [1, [1]],
    ]);
    const expected = reference(wider, 2, two, wanted);
    expect(expected?.pairs).toEqual([7, 10, 56, 10, 56_007, 10, 1_599_976, 10]);
    expect(scan(wider, 2, two, wanted)).toEqual(expected);
  });
});
