#!/usr/bin/env node
// The WebAssembly SHA-1 that src/core/git-blob.ts hashes git blobs with, assembled from the
// instructions below. git-blob.ts holds the module as base64 text (SHA1_WASM): assembling it
// at every start cost an audit more time than the module saves. To change the module, change
// it here, then paste what `node scripts/sha1-wasm.mjs` prints into git-blob.ts;
// test/unit/git-blob.test.ts checks that the two agree.

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
};

function unsignedLeb(value) {
  const out = [];
  let v = value >>> 0;
  do {
    const byte = v & 0x7f;
    v >>>= 7;
    out.push(v === 0 ? byte : byte | 0x80);
  } while (v !== 0);
  return out;
}

function signedLeb(value) {
  const out = [];
  let v = value | 0;
  for (;;) {
    const byte = v & 0x7f;
    v >>= 7;
    const done = (v === 0 && (byte & 0x40) === 0) || (v === -1 && (byte & 0x40) !== 0);
    out.push(done ? byte : byte | 0x80);
    if (done) return out;
  }
}

function section(id, body) {
  return [id, ...unsignedLeb(body.length), ...body];
}

/**
 * Memory layout (src/core/git-blob.ts uses the same): the message schedule W[0..79] at 0,
 * the state H[0..4] at 320, the input blocks from 1024 on.
 */
const W_AT = 0;
const H_AT = 320;
const INPUT_AT = 1024;

/**
 * `blocks(n)`: SHA-1's compression of the n 64-byte blocks at INPUT_AT into the state at
 * H_AT (FIPS 180-4, 6.1.2). Words are big-endian; WebAssembly loads little-endian, so each
 * is byte-swapped as it is loaded.
 */
export function sha1Module() {
  // The parameter n, then the locals.
  const [n, p, i, a, b, c, d, e, x] = [0, 1, 2, 3, 4, 5, 6, 7, 8];
  const code = [];
  const op = (...bytes) => code.push(...bytes);
  const get = (local) => op(OP.localGet, local);
  const set = (local) => op(OP.localSet, local);
  const num = (value) => op(OP.i32Const, ...signedLeb(value));
  const load = (offset) => op(OP.i32Load, 2, ...unsignedLeb(offset));
  const store = (offset) => op(OP.i32Store, 2, ...unsignedLeb(offset));
  /** for (i = from; i < to; i += 4) body() */
  const each = (from, to, body) => {
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
  const rounds = (from, k, f) =>
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
  const name = (text) => [text.length, ...Buffer.from(text, "latin1")];
  return Uint8Array.from([
    ...[0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00],
    ...section(1, [1, 0x60, 1, I32, 0]), // type 0: (i32) -> ()
    ...section(3, [1, 0]), // function 0 has type 0
    ...section(5, [1, 0, 1]), // one memory of one page
    ...section(7, [2, ...name("memory"), 2, 0, ...name("blocks"), 0, 0]),
    ...section(10, [1, ...unsignedLeb(body.length), ...body]),
  ]);
}

/** The module as git-blob.ts writes it: base64, in lines of 96 characters joined by +. */
export function sha1ModuleSource() {
  const text = Buffer.from(sha1Module()).toString("base64");
  const lines = text.match(/.{1,96}/g) ?? [];
  return `${lines.map((line) => `  "${line}"`).join(" +\n")};\n`;
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].replace(/^.*\//, "/"))) {
  process.stdout.write(sha1ModuleSource());
}
