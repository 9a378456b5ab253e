// git's object id of a file's content ("blob <size>\0<bytes>", hashed with SHA-1, or SHA-256
// in repositories that use it): lets the audit compare the bytes on disk with the blob a diff
// names, without asking git.
//
// SHA-1 runs in a WebAssembly module of 625 bytes. Every audit of a range hashes its changed
// files, and node:crypto costs more to load than all the hashing, in time and in memory
// (docs/performance.md). node:crypto still hashes SHA-256, and SHA-1 where WebAssembly is
// off (`node --jitless`).

/**
 * SHA-1's compression function as a WebAssembly module, assembled by scripts/sha1-wasm.mjs
 * (which has the instructions; the tests check that this is what it makes). It exports its
 * memory and `blocks(n)`, which compresses the n 64-byte blocks at INPUT_AT into the state at
 * H_AT. Memory layout: the message schedule at 0, the state H[0..4] at H_AT, then the input.
 */
export const SHA1_WASM =
  "AGFzbQEAAAABBQFgAX8AAwIBAAUDAQABBxMCBm1lbW9yeQIABmJsb2NrcwAACsEEAb4EAQh/QYAIIQEDQEEAIQIDQCACIAEg" +
  "AmooAgAhCCAIQYD+g3hxQQh3IAhB/4H8B3FBCHhyNgIAIAJBBGoiAkHAAEkNAAtBwAAhAgNAIAJBwABrIQggCCAIKAI0IAgo" +
  "AiBzIAgoAghzIAgoAgBzQQF3NgJAIAJBBGoiAkHAAkkNAAtBACgCwAIhA0EAKALEAiEEQQAoAsgCIQVBACgCzAIhBkEAKALQ" +
  "AiEHQQAhAgNAIANBBXcgBiAEIAUgBnNxc2ogB2pBmfOJ1AVqIAIoAgBqIQggBiEHIAUhBiAEQR53IQUgAyEEIAghAyACQQRq" +
  "IgJB0ABJDQALQdAAIQIDQCADQQV3IAQgBXMgBnNqIAdqQaHX5/YGaiACKAIAaiEIIAYhByAFIQYgBEEedyEFIAMhBCAIIQMg" +
  "AkEEaiICQaABSQ0AC0GgASECA0AgA0EFdyAEIAVxIAYgBCAFcnFyaiAHakHc+e74eGogAigCAGohCCAGIQcgBSEGIARBHnch" +
  "BSADIQQgCCEDIAJBBGoiAkHwAUkNAAtB8AEhAgNAIANBBXcgBCAFcyAGc2ogB2pB1oOL03xqIAIoAgBqIQggBiEHIAUhBiAE" +
  "QR53IQUgAyEEIAghAyACQQRqIgJBwAJJDQALQQBBACgCwAIgA2o2AsACQQBBACgCxAIgBGo2AsQCQQBBACgCyAIgBWo2AsgC" +
  "QQBBACgCzAIgBmo2AswCQQBBACgC0AIgB2o2AtACIAFBwABqIQEgAEEBayIADQALCw==";

const H_AT = 320;
const INPUT_AT = 1024;
/** Input blocks per call; the page's last 512 bytes leave room for the padding. */
const INPUT_BLOCKS = 1000;

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
    const { exports } = new wasm.Instance(new wasm.Module(Buffer.from(SHA1_WASM, "base64")));
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
