// git's object id of a file's content ("blob <size>\0<bytes>", hashed with SHA-1, or SHA-256
// in repositories that use it): lets the audit compare the bytes on disk with the blob a diff
// names, without asking git.
//
// SHA-1 runs in a WebAssembly module of about 300 bytes, assembled below. Every audit of a
// range hashes its changed files, and node:crypto costs more to load than all the hashing:
// about 9 ms of CPU and 3 MB of memory, where V8 compiles this module in well under a
// millisecond (docs/performance.md). node:crypto is still what hashes SHA-256, and SHA-1
// where WebAssembly is off (`node --jitless`).

/** The binary format's codes for what the module uses. */
const I32 = 0x7f;
const VOID = 0x40;
const OP = {
  loop: 0x03,
  end: 0x0b,
  brIf: 0x0d,
  localGet: 0x20,
  localSet: 0x21,
  localTee: 0x22,
  i32Load: 0x28,
  i32Store: 0x36,
  i32Const: 0x41,
  i32LtU: 0x49,
  i32Add: 0x6a,
  i32Sub: 0x6b,
  i32And: 0x71,
  i32Or: 0x72,
  i32Xor: 0x73,
  i32Rotl: 0x77,
  i32Rotr: 0x78,
} as const;

function unsignedLeb(value: number): number[] {
  const out: number[] = [];
  let v = value >>> 0;
  do {
    const byte = v & 0x7f;
    v >>>= 7;
    out.push(v === 0 ? byte : byte | 0x80);
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

function section(id: number, body: number[]): number[] {
  return [id, ...unsignedLeb(body.length), ...body];
}

/** Memory layout: the message schedule W[0..79], the state H[0..4], then the input blocks. */
const W_AT = 0;
const H_AT = 320;
const INPUT_AT = 1024;
/** Input blocks per call; the page's last 512 bytes leave room for the padding. */
const INPUT_BLOCKS = 1000;

/**
 * `blocks(n)`: SHA-1's compression of the n 64-byte blocks at INPUT_AT into the state at
 * H_AT (FIPS 180-4, 6.1.2). Words are big-endian; WebAssembly loads little-endian, so each
 * is byte-swapped as it is loaded.
 */
function sha1Module(): Uint8Array {
  // The parameter n, then the locals.
  const [n, p, i, a, b, c, d, e, x] = [0, 1, 2, 3, 4, 5, 6, 7, 8] as const;
  const code: number[] = [];
  const op = (...bytes: number[]) => code.push(...bytes);
  const get = (local: number) => op(OP.localGet, local);
  const set = (local: number) => op(OP.localSet, local);
  const num = (value: number) => op(OP.i32Const, ...signedLeb(value));
  const load = (offset: number) => op(OP.i32Load, 2, ...unsignedLeb(offset));
  const store = (offset: number) => op(OP.i32Store, 2, ...unsignedLeb(offset));
  /** for (i = from; i < to; i += 4) body() */
  const each = (from: number, to: number, body: () => void) => {
    num(from);
    set(i);
    op(OP.loop, VOID);
    body();
    get(i);
    num(4);
    op(OP.i32Add, OP.localTee, i);
    num(to);
    op(OP.i32LtU, OP.brIf, 0, OP.end);
  };
  /** One round: t = rotl(a, 5) + f + e + k + W[t]; then e, d, c, b, a move along. */
  const rounds = (from: number, k: number, f: () => void) =>
    each(from, from + 80, () => {
      get(a);
      num(5);
      op(OP.i32Rotl);
      f();
      op(OP.i32Add);
      get(e);
      op(OP.i32Add);
      num(k);
      op(OP.i32Add);
      get(i);
      load(W_AT);
      op(OP.i32Add);
      set(x);
      get(d);
      set(e);
      get(c);
      set(d);
      get(b);
      num(30);
      op(OP.i32Rotl);
      set(c);
      get(a);
      set(b);
      get(x);
      set(a);
    });

  num(INPUT_AT);
  set(p);
  op(OP.loop, VOID);
  // W[0..15]: the block's words, byte-swapped: rotl(x & 0xff00ff00, 8) | rotr(x & 0x00ff00ff, 8).
  each(0, 64, () => {
    get(i);
    get(p);
    get(i);
    op(OP.i32Add);
    load(0);
    set(x);
    get(x);
    num(0xff00ff00);
    op(OP.i32And);
    num(8);
    op(OP.i32Rotl);
    get(x);
    num(0x00ff00ff);
    op(OP.i32And);
    num(8);
    op(OP.i32Rotr, OP.i32Or);
    store(W_AT);
  });
  // W[16..79] = rotl(W[t-3] ^ W[t-8] ^ W[t-14] ^ W[t-16], 1), addressed from (t-16)*4.
  each(64, 320, () => {
    get(i);
    num(64);
    op(OP.i32Sub);
    set(x);
    get(x);
    get(x);
    load(W_AT + 52);
    get(x);
    load(W_AT + 32);
    op(OP.i32Xor);
    get(x);
    load(W_AT + 8);
    op(OP.i32Xor);
    get(x);
    load(W_AT);
    op(OP.i32Xor);
    num(1);
    op(OP.i32Rotl);
    store(W_AT + 64);
  });
  [a, b, c, d, e].forEach((local, k) => {
    num(0);
    load(H_AT + 4 * k);
    set(local);
  });
  // f = Ch, Parity, Maj, Parity (as d ^ (b & (c ^ d)) and (b & c) | (d & (b | c))).
  rounds(0, 0x5a827999, () => {
    get(d);
    get(b);
    get(c);
    get(d);
    op(OP.i32Xor, OP.i32And, OP.i32Xor);
  });
  const parity = () => {
    get(b);
    get(c);
    op(OP.i32Xor);
    get(d);
    op(OP.i32Xor);
  };
  rounds(80, 0x6ed9eba1, parity);
  rounds(160, 0x8f1bbcdc, () => {
    get(b);
    get(c);
    op(OP.i32And);
    get(d);
    get(b);
    get(c);
    op(OP.i32Or, OP.i32And, OP.i32Or);
  });
  rounds(240, 0xca62c1d6, parity);
  [a, b, c, d, e].forEach((local, k) => {
    num(0);
    num(0);
    load(H_AT + 4 * k);
    get(local);
    op(OP.i32Add);
    store(H_AT + 4 * k);
  });
  // Next block while n - 1 > 0.
  get(p);
  num(64);
  op(OP.i32Add);
  set(p);
  get(n);
  num(1);
  op(OP.i32Sub, OP.localTee, n, OP.brIf, 0, OP.end, OP.end);

  const body = [1, 8, I32, ...code]; // eight i32 locals
  const name = (text: string) => [text.length, ...Buffer.from(text, "latin1")];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 1, I32, 0]), // type 0: (i32) -> ()
    ...section(3, [1, 0]), // function 0 has type 0
    ...section(5, [1, 0, 1]), // one memory of one page
    ...section(7, [2, ...name("memory"), 2, 0, ...name("blocks"), 0, 0]),
    ...section(10, [1, ...unsignedLeb(body.length), ...body]),
  ]);
}

/** The parts of the WebAssembly API used here (Node has it; its type library does not). */
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object) => { exports: Record<string, unknown> };
}

interface Sha1 {
  bytes: Uint8Array;
  view: DataView;
  blocks: (n: number) => void;
}

let sha1: Sha1 | null | undefined;

/**
 * The module, instantiated on first use; null where WebAssembly is off (`node --jitless`) or
 * its memory cannot be had (Node 22's V8 reserves gigabytes of address space for it, which
 * `ulimit -v` can refuse): node:crypto hashes then.
 */
function sha1Instance(): Sha1 | null {
  if (sha1 !== undefined) return sha1;
  sha1 = null;
  const wasm = (globalThis as { WebAssembly?: WasmApi }).WebAssembly;
  if (wasm === undefined) return sha1;
  try {
    const { exports } = new wasm.Instance(new wasm.Module(sha1Module()));
    const { buffer } = exports.memory as { buffer: ArrayBuffer };
    sha1 = {
      bytes: new Uint8Array(buffer),
      view: new DataView(buffer),
      blocks: exports.blocks as (n: number) => void,
    };
  } catch {
    // node:crypto gives the same ids
  }
  return sha1;
}

const SHA1_START = [0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0];

/** SHA-1 of the parts one after another, as hex. */
function sha1Hex(instance: Sha1, parts: readonly Uint8Array[]): string {
  const { bytes, view, blocks } = instance;
  for (const [k, word] of SHA1_START.entries()) view.setUint32(H_AT + 4 * k, word, true);
  const room = 64 * INPUT_BLOCKS;
  let fill = 0;
  let total = 0;
  for (const part of parts) {
    total += part.length;
    for (let at = 0; at < part.length; ) {
      const n = Math.min(part.length - at, room - fill);
      bytes.set(part.subarray(at, at + n), INPUT_AT + fill);
      fill += n;
      at += n;
      if (fill === room) {
        blocks(INPUT_BLOCKS);
        fill = 0;
      }
    }
  }
  // The padding: 0x80, zeros up to 8 bytes short of a block's end, the length in bits.
  const end = (Math.floor((fill + 8) / 64) + 1) * 64;
  bytes.fill(0, INPUT_AT + fill, INPUT_AT + end);
  bytes[INPUT_AT + fill] = 0x80;
  view.setUint32(INPUT_AT + end - 8, Math.floor(total / 0x20000000));
  view.setUint32(INPUT_AT + end - 4, (total * 8) >>> 0);
  blocks(end / 64);
  return SHA1_START.map((_, k) =>
    view
      .getUint32(H_AT + 4 * k, true)
      .toString(16)
      .padStart(8, "0"),
  ).join("");
}

export function gitBlobId(content: Uint8Array, idLength: number): string {
  const header = Buffer.from(`blob ${content.length}\0`, "latin1");
  const instance = idLength === 64 ? null : sha1Instance();
  if (instance !== null) return sha1Hex(instance, [header, content]);
  const hash = process
    .getBuiltinModule("node:crypto")
    .createHash(idLength === 64 ? "sha256" : "sha1");
  hash.update(header);
  hash.update(content);
  return hash.digest("hex");
}
