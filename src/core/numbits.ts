// Decoder for coverage.py "numbits": the packed line-number sets stored in the
// `line_bits.numbits` column of a `.coverage` data file. Line N is bit N % 8 (least
// significant first) of byte N >> 3. This sits on the hot path of reading a data file
// (one call per file x context row), so it avoids per-bit branching and allocations.

/** The line numbers set in `buf`, ascending. Includes 0 when bit 0 of byte 0 is set. */
export function numbitsToLines(buf: Uint8Array): number[] {
  const out: number[] = [];
  const length = buf.length;
  for (let i = 0; i < length; i++) {
    let byte = buf[i] as number;
    if (byte === 0) continue;
    const base = i << 3;
    while (byte !== 0) {
      const lowest = byte & -byte;
      out.push(base + 31 - Math.clz32(lowest));
      byte ^= lowest;
    }
  }
  return out;
}

/**
 * Same as {@link numbitsToLines} for the numbits in `buf[start..end)`, but writes into
 * `scratch` and returns how many lines were written, so a caller decoding thousands of rows
 * (possibly packed into one buffer) allocates nothing per row. `scratch` must hold at least
 * `(end - start) * 8` numbers (see {@link numbitsCapacity}).
 */
export function decodeNumbitsInto(
  buf: Uint8Array,
  scratch: Int32Array,
  start = 0,
  end = buf.length,
): number {
  let count = 0;
  for (let i = start; i < end; i++) {
    let byte = buf[i] as number;
    if (byte === 0) continue;
    const base = (i - start) << 3;
    while (byte !== 0) {
      const lowest = byte & -byte;
      scratch[count++] = base + 31 - Math.clz32(lowest);
      byte ^= lowest;
    }
  }
  return count;
}

/** The largest number of lines a numbits blob of `byteLength` bytes can hold. */
export function numbitsCapacity(byteLength: number): number {
  return byteLength * 8;
}
