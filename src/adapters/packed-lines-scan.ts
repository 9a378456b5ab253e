// The hot loop of reading line data, in WebAssembly: one changed file's packed rows (see
// PACKED_LINE_BITS in coverage-sqlite.ts: `<context_id>,<length>,<numbits>` records) scanned
// for the bits of the wanted lines, every row's numbits OR-ed into one union, and every
// context id checked against the data file's context table.
//
// Why not JavaScript: an audit reads each row once, in a fresh process, so the loop ran as
// unoptimized bytecode for most of its rows (about 16 ms of the 42 the 30-line bench patch
// spent reading 21,600 rows). The module (556 bytes) is assembled and compiled in about a
// millisecond, and runs as machine code from the first row.
//
// The scanner only answers when all is well. Anything it does not accept (a malformed
// record, an unknown context id, a number of more than 9 digits, a row count that differs)
// makes it return null, and the caller reads the same bytes with its JavaScript reader, which
// decides, and names the problem in its error. So this module never words an error, and a
// record it refuses costs time, never an answer.
//
// The module is assembled here, from the instructions below, rather than shipped as a
// binary: no build step and no tool to trust.

/** WebAssembly value types and instructions used below (the binary format's codes). */
const I32 = 0x7f;
const OP = {
  block: 0x02,
  loop: 0x03,
  if: 0x04,
  end: 0x0b,
  br: 0x0c,
  brIf: 0x0d,
  return: 0x0f,
  localGet: 0x20,
  localSet: 0x21,
  globalSet: 0x24,
  i32Load: 0x28,
  i32Load8U: 0x2d,
  i32Store: 0x36,
  i32Store8: 0x3a,
  i32Const: 0x41,
  i32Eq: 0x46,
  i32LtS: 0x48,
  i32GtU: 0x4b,
  i32GeU: 0x4f,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32Mul: 0x6c,
  i32And: 0x71,
  i32Or: 0x72,
  i32Shl: 0x74,
  i32ShrU: 0x76,
} as const;
const VOID = 0x40;

function unsignedLeb(value: number): number[] {
  const out: number[] = [];
  let v = value >>> 0;
  do {
    let byte = v & 0x7f;
    v >>>= 7;
    if (v !== 0) byte |= 0x80;
    out.push(byte);
  } while (v !== 0);
  return out;
}

function signedLeb(value: number): number[] {
  const out: number[] = [];
  let v = value | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

function name(text: string): number[] {
  const bytes = [...Buffer.from(text, "utf8")];
  return [...unsignedLeb(bytes.length), ...bytes];
}

function section(id: number, body: number[]): number[] {
  return [id, ...unsignedLeb(body.length), ...body];
}

function vector(items: number[][]): number[] {
  return [...unsignedLeb(items.length), ...items.flat()];
}

/**
 * A function body's instructions, with branches to named blocks: `br("fail")` is encoded
 * with the depth of the block labelled "fail" at that point, so nesting can change freely.
 */
class Body {
  readonly code: number[] = [];
  private readonly labels: string[] = [];

  op(...bytes: number[]): this {
    this.code.push(...bytes);
    return this;
  }
  get(local: number): this {
    return this.op(OP.localGet, ...unsignedLeb(local));
  }
  set(local: number): this {
    return this.op(OP.localSet, ...unsignedLeb(local));
  }
  const(value: number): this {
    return this.op(OP.i32Const, ...signedLeb(value));
  }
  /** i32.load / load8_u / store / store8 with offset 0 (alignment 4 or 1). */
  load(): this {
    return this.op(OP.i32Load, 2, 0);
  }
  load8(): this {
    return this.op(OP.i32Load8U, 0, 0);
  }
  store(): this {
    return this.op(OP.i32Store, 2, 0);
  }
  store8(): this {
    return this.op(OP.i32Store8, 0, 0);
  }
  block(label: string, inner: () => void): this {
    return this.nest(OP.block, label, inner);
  }
  loop(label: string, inner: () => void): this {
    return this.nest(OP.loop, label, inner);
  }
  /** `if` on the i32 on the stack (its block takes no branch label of its own). */
  when(inner: () => void): this {
    return this.nest(OP.if, "", inner);
  }
  br(label: string): this {
    return this.op(OP.br, ...unsignedLeb(this.depth(label)));
  }
  brIf(label: string): this {
    return this.op(OP.brIf, ...unsignedLeb(this.depth(label)));
  }
  /** local += step */
  add(local: number, step: number): this {
    return this.get(local).const(step).op(OP.i32Add).set(local);
  }

  private nest(opcode: number, label: string, inner: () => void): this {
    this.op(opcode, VOID);
    this.labels.push(label);
    inner();
    this.labels.pop();
    return this.op(OP.end);
  }
  private depth(label: string): number {
    const index = this.labels.lastIndexOf(label);
    if (index < 0) throw new Error(`no block labelled ${label}`);
    return this.labels.length - 1 - index;
  }
}

/** The largest numbits blob accepted: past it the JavaScript reader refuses the data. */
export const MAX_NUMBITS_BYTES = 1_250_000;

/**
 * scan(data, stop, index, indexLength, wanted, wantedCount, union, out, outEnd) -> records,
 * or -1 (let JavaScript decide) or -2 (`out` too small). Writes (line, context) pairs from
 * `out` on (`pairsEnd` says where they end) and the longest record's length to `unionLength`.
 */
function scanModule(): Uint8Array {
  // Parameters, then locals.
  const [data, stop, index, indexLength, wanted, wantedCount, union, out, outEnd] = [
    0, 1, 2, 3, 4, 5, 6, 7, 8,
  ] as const;
  const [at, value, start, c, context, length, i, k, line, byte, records, longest] = [
    9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20,
  ] as const;
  const b = new Body();

  /** The decimal number at `at`, ended by a comma (1 to 9 digits), into `value`; past it. */
  const number = (): void => {
    b.get(at).set(start).const(0).set(value);
    b.block("digits", () => {
      b.loop("digit", () => {
        b.get(at).get(stop).op(OP.i32GeU).brIf("fail");
        b.get(at).load8().set(c);
        b.get(c).const(44).op(OP.i32Eq).brIf("digits");
        b.get(at).get(start).op(OP.i32Sub).const(9).op(OP.i32GeU).brIf("fail");
        b.get(c).const(48).op(OP.i32Sub).const(9).op(OP.i32GtU).brIf("fail");
        b.get(value).const(10).op(OP.i32Mul).get(c).op(OP.i32Add).const(48).op(OP.i32Sub);
        b.set(value);
        b.add(at, 1).br("digit");
      });
    });
    b.get(at).get(start).op(OP.i32Eq).brIf("fail");
    b.add(at, 1);
  };

  b.get(data).set(at);
  b.block("overflow", () => {
    b.block("fail", () => {
      b.block("done", () => {
        b.loop("record", () => {
          b.get(at).get(stop).op(OP.i32GeU).brIf("done");
          // The context id: known to the data file's table, mapped to its index.
          number();
          b.get(value).get(indexLength).op(OP.i32GeU).brIf("fail");
          b.get(value).const(2).op(OP.i32Shl).get(index).op(OP.i32Add).load().set(context);
          b.get(context).const(0).op(OP.i32LtS).brIf("fail");
          // The numbits' length, within the data.
          number();
          b.get(value).set(length);
          b.get(length).const(MAX_NUMBITS_BYTES).op(OP.i32GtU).brIf("fail");
          b.get(length).get(stop).get(at).op(OP.i32Sub).op(OP.i32GtU).brIf("fail");
          // union |= numbits
          b.const(0).set(i);
          b.block("or-done", () => {
            b.loop("or", () => {
              b.get(i).get(length).op(OP.i32GeU).brIf("or-done");
              b.get(union).get(i).op(OP.i32Add);
              b.get(union).get(i).op(OP.i32Add).load8();
              b.get(at).get(i).op(OP.i32Add).load8();
              b.op(OP.i32Or).store8();
              b.add(i, 1).br("or");
            });
          });
          b.get(length).get(longest).op(OP.i32GtU);
          b.when(() => {
            b.get(length).set(longest);
          });
          // The wanted lines (ascending) this row ran: a (line, context) pair each.
          b.const(0).set(k);
          b.block("wanted-done", () => {
            b.loop("wanted", () => {
              b.get(k).get(wantedCount).op(OP.i32GeU).brIf("wanted-done");
              b.get(k).const(2).op(OP.i32Shl).get(wanted).op(OP.i32Add).load().set(line);
              b.get(line).const(3).op(OP.i32ShrU).set(byte);
              b.get(byte).get(length).op(OP.i32GeU).brIf("wanted-done");
              b.get(at).get(byte).op(OP.i32Add).load8();
              b.get(line).const(7).op(OP.i32And).op(OP.i32ShrU).const(1).op(OP.i32And);
              b.when(() => {
                b.get(out).get(outEnd).op(OP.i32GeU).brIf("overflow");
                b.get(out).get(line).store();
                b.get(out).const(4).op(OP.i32Add).get(context).store();
                b.add(out, 8);
              });
              b.add(k, 1).br("wanted");
            });
          });
          b.get(at).get(length).op(OP.i32Add).set(at);
          b.add(records, 1).br("record");
        });
      });
      b.get(out).op(OP.globalSet, 0);
      b.get(longest).op(OP.globalSet, 1);
      b.get(records).op(OP.return);
    });
    b.const(-1).op(OP.return);
  });
  b.const(-2).op(OP.end);

  const body = [...vector([[...unsignedLeb(12), I32]]), ...b.code];
  const mutableI32 = [I32, 1, OP.i32Const, 0, OP.end];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, vector([[0x60, ...vector(Array.from({ length: 9 }, () => [I32])), 1, I32]])),
    ...section(2, vector([[...name("m"), ...name("memory"), 0x02, 0x00, 0x01]])),
    ...section(3, vector([[0]])),
    ...section(6, vector([mutableI32, mutableI32])),
    ...section(
      7,
      vector([
        [...name("scan"), 0x00, 0],
        [...name("pairsEnd"), 0x03, 0],
        [...name("unionLength"), 0x03, 1],
      ]),
    ),
    ...section(10, vector([[...unsignedLeb(body.length), ...body]])),
  ]);
}

/** What one scan found. The views are into the scanner's memory: read them before the next. */
export interface PackedLinesScan {
  /** (line, context index) pairs: each wanted line a row's numbits has, in row order. */
  readonly pairs: Int32Array;
  /** Every row's numbits OR-ed together. */
  readonly union: Uint8Array;
}

type ScanFunction = (...args: number[]) => number;

/** The parts of the WebAssembly API used here (Node has it; its type library does not). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmGlobal {
  readonly value: unknown;
}
interface WasmApi {
  Memory: new (limits: { initial: number }) => WasmMemory;
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: Record<string, unknown> };
}

interface Scanner {
  readonly memory: WasmMemory;
  readonly scan: ScanFunction;
  readonly pairsEnd: WasmGlobal;
  readonly unionLength: WasmGlobal;
  /** The context table now at the start of memory (copied once per data file; growing the
   * memory keeps its contents). */
  index: Int32Array | null;
}

let scanner: Scanner | null | undefined;

/** How the scans of this process went: for the timing log, which shows the fast path ran. */
export const rowScans = { answered: 0, declined: 0, withoutWebAssembly: 0 };

function makeScanner(): Scanner | null {
  // Without WebAssembly (node --jitless) the JavaScript reader does all the work.
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (wasm === undefined) return null;
  // WebAssembly memory is little-endian; the typed arrays that fill and read it here use the
  // host's order. On a big-endian host (s390x) the ids and lines would arrive byte-swapped.
  if (new Uint8Array(Uint16Array.of(1).buffer)[0] !== 1) return null;
  let memory: WasmMemory;
  try {
    memory = new wasm.Memory({ initial: 1 });
  } catch (error) {
    // Node 22's V8 reserves gigabytes of address space for a memory; under a limit
    // (ulimit -v) it cannot, and says so with a RangeError. (From Node 24 on, V8 then takes
    // a bounds-checked memory instead.)
    if (error instanceof RangeError) return null;
    throw error;
  }
  const { exports } = new wasm.Instance(new wasm.Module(scanModule()), { m: { memory } });
  return {
    memory,
    scan: exports.scan as ScanFunction,
    pairsEnd: exports.pairsEnd as WasmGlobal,
    unionLength: exports.unionLength as WasmGlobal,
    index: null,
  };
}

/** Past this much memory the scanner steps aside (a file of tens of megabytes of rows). */
const MAX_MEMORY_BYTES = 256 << 20;

const align8 = (n: number): number => (n + 7) & ~7;

/**
 * Scans `packed` (the records of one file, expected `rows` of them) for the bits of the
 * `wanted` lines (ascending, all > 0), with `contextIndex` mapping context ids to names
 * (-1: no such id). Null when the JavaScript reader must decide: see the top of this file.
 */
export function scanPackedLines(
  packed: Uint8Array,
  rows: number,
  contextIndex: Int32Array,
  wanted: Int32Array,
): PackedLinesScan | null {
  if (scanner === undefined) scanner = makeScanner();
  if (scanner === null) {
    rowScans.withoutWebAssembly++;
    return null;
  }
  const s = scanner;
  const indexBytes = align8(contextIndex.length * 4);
  const wantedBase = indexBytes;
  const unionBase = align8(wantedBase + wanted.length * 4);
  const dataBase = align8(unionBase + packed.length);
  const outBase = align8(dataBase + packed.length);
  // A pair per wanted line per record at most; a record that has one is 5 bytes or more.
  const outEnd = outBase + 8 * wanted.length * Math.min(rows, Math.ceil(packed.length / 5));
  if (outEnd > MAX_MEMORY_BYTES) {
    rowScans.declined++;
    return null;
  }
  if (s.memory.buffer.byteLength < outEnd) {
    try {
      s.memory.grow(Math.ceil((outEnd - s.memory.buffer.byteLength) / 65536));
    } catch (error) {
      if (!(error instanceof RangeError)) throw error;
      rowScans.declined++;
      return null;
    }
  }
  const buffer = s.memory.buffer;
  if (s.index !== contextIndex) {
    new Int32Array(buffer, 0, contextIndex.length).set(contextIndex);
    s.index = contextIndex;
  }
  new Int32Array(buffer, wantedBase, wanted.length).set(wanted);
  const bytes = new Uint8Array(buffer);
  bytes.fill(0, unionBase, unionBase + packed.length);
  bytes.set(packed, dataBase);
  const records = s.scan(
    dataBase,
    dataBase + packed.length,
    0,
    contextIndex.length,
    wantedBase,
    wanted.length,
    unionBase,
    outBase,
    outEnd,
  );
  if (records !== rows) {
    rowScans.declined++;
    return null;
  }
  rowScans.answered++;
  const pairsEnd = s.pairsEnd.value as number;
  return {
    pairs: new Int32Array(buffer, outBase, (pairsEnd - outBase) / 4),
    union: new Uint8Array(buffer, unionBase, s.unionLength.value as number),
  };
}
