// The numbits decoder against coverage.py's own `coverage.numbits.numbits_to_nums`: literal
// expectations recorded from it (coverage.py 6.5.0, `/usr/bin/python3 -c "from
// coverage.numbits import numbits_to_nums; print(numbits_to_nums(bytes.fromhex(H)))"`), and a
// live comparison on random blobs when the Python toolchain is present.

import { describe, expect, it } from "vitest";
import { decodeNumbitsInto, numbitsCapacity, numbitsToLines } from "../../src/core/numbits.js";
import { describePython, runPython } from "../helpers/python.js";

const RECORDED: [hex: string, lines: number[]][] = [
  ["", []],
  ["00", []],
  ["01", [0]],
  ["80", [7]],
  ["ff", [0, 1, 2, 3, 4, 5, 6, 7]],
  ["0001", [8]],
  ["020080", [1, 23]],
  ["aa55", [1, 3, 5, 7, 8, 10, 12, 14]],
  ["10000000", [4]],
  ["ff00ff", [0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23]],
  [`${"00".repeat(64)}01`, [512]],
  // From test/fixtures/coverage/lines.coverage: src/billing/invoice.py in context "".
  ["82ca0812048120", [1, 7, 9, 11, 14, 15, 19, 25, 28, 34, 40, 47, 53]],
  ["00000000000003", [48, 49]],
  ["ea0804", [1, 3, 5, 6, 7, 11, 18]],
];

function bytes(hex: string): Uint8Array {
  return Uint8Array.from(Buffer.from(hex, "hex"));
}

describe("numbitsToLines", () => {
  it.each(RECORDED)("decodes %s as coverage.py does", (hex, lines) => {
    expect(numbitsToLines(bytes(hex))).toEqual(lines);
  });

  it("reads bits least significant first, not most significant first", () => {
    // 0x01 is line 0 and 0x80 is line 7; an MSB-first decoder would swap them.
    expect(numbitsToLines(bytes("0180"))).toEqual([0, 15]);
  });

  it("accepts a Buffer view into a larger allocation (as a SQLite driver may return blobs)", () => {
    const backing = Buffer.from("ffff0201ffff", "hex");
    expect(numbitsToLines(backing.subarray(2, 4))).toEqual([1, 8]);
  });
});

describe("decodeNumbitsInto", () => {
  it("writes the same lines into a reused buffer and returns the count", () => {
    const scratch = new Int32Array(numbitsCapacity(16));
    for (const [hex, lines] of RECORDED) {
      const buf = bytes(hex);
      if (buf.length > 16) continue;
      const count = decodeNumbitsInto(buf, scratch);
      expect(Array.from(scratch.subarray(0, count))).toEqual(lines);
    }
  });

  it("fills a buffer of numbitsCapacity() exactly when every bit is set", () => {
    const buf = new Uint8Array(5).fill(0xff);
    const scratch = new Int32Array(numbitsCapacity(buf.length));
    expect(decodeNumbitsInto(buf, scratch)).toBe(40);
    expect(scratch[39]).toBe(39);
  });
});

/** Deterministic pseudo-random bytes (mulberry32), so a failure can be replayed. */
function randomBlobs(seed: number, count: number): Uint8Array[] {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const blobs: Uint8Array[] = [];
  for (let i = 0; i < count; i++) {
    const length = Math.floor(next() * 300);
    const density = next();
    const blob = new Uint8Array(length);
    for (let j = 0; j < length; j++) blob[j] = next() < density ? Math.floor(next() * 256) : 0;
    blobs.push(blob);
  }
  return blobs;
}

describePython("numbitsToLines against coverage.numbits.numbits_to_nums (live)", () => {
  it("agrees on 500 random blobs", () => {
    const blobs = randomBlobs(20240611, 500);
    const script = [
      "import json, sys",
      "from coverage.numbits import numbits_to_nums",
      "print(json.dumps([numbits_to_nums(bytes.fromhex(h)) for h in sys.stdin.read().split(',')]))",
    ].join("\n");
    const input = blobs.map((blob) => Buffer.from(blob).toString("hex")).join(",");
    const result = runPython(["-c", script], { cwd: process.cwd(), input });
    expect(result.stderr).toBe("");
    expect(result.status).toBe(0);
    const expected = JSON.parse(result.stdout) as number[][];
    expect(expected).toHaveLength(blobs.length);
    expect(blobs.map((blob) => numbitsToLines(blob))).toEqual(expected);
  });
});
