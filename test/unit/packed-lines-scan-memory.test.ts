// The row scanner where its WebAssembly memory cannot grow (V8's page limit, as a process
// under a tight ulimit -v would meet it): it declines, and the JavaScript reader reads.
// A file of its own: the limit is a V8 flag for the whole process, and it is put back.

import { setFlagsFromString } from "node:v8";
import { afterAll, expect, it } from "vitest";
import { rowScans, scanPackedLines } from "../../src/adapters/packed-lines-scan.js";

const V8_DEFAULT_MAX_PAGES = 65536;

afterAll(() => setFlagsFromString(`--wasm-max-mem-pages=${V8_DEFAULT_MAX_PAGES}`));

it("declines rows that would need more memory than it may take, and still reads small ones", () => {
  setFlagsFromString("--wasm-max-mem-pages=2");
  const row = (length: number) =>
    Uint8Array.from(Buffer.concat([Buffer.from(`1,${length},`), Buffer.alloc(length, 255)]));
  const index = Int32Array.from([-1, 5]);
  const wanted = Int32Array.from([3]);
  expect(scanPackedLines(row(200_000), 1, index, wanted)).toBeNull();
  expect(rowScans).toEqual({ answered: 0, declined: 1, withoutWebAssembly: 0 });
  expect([...(scanPackedLines(row(2), 1, index, wanted)?.pairs ?? [])]).toEqual([3, 5]);
  expect(rowScans).toEqual({ answered: 1, declined: 1, withoutWebAssembly: 0 });
});
