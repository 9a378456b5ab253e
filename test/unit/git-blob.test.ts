import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { gitBlobId, SHA1_WASM } from "../../src/core/git-blob.js";

/** git's id of `content`, as node:crypto hashes it. */
function reference(content: Uint8Array, algorithm: "sha1" | "sha256"): string {
  return createHash(algorithm).update(`blob ${content.length}\0`).update(content).digest("hex");
}

/** Bytes that differ from one position to the next and from one length to the next. */
function bytes(length: number): Uint8Array {
  const out = new Uint8Array(length);
  let x = length * 2654435761;
  for (let i = 0; i < length; i++) {
    x = (x * 1103515245 + 12345) >>> 0;
    out[i] = x >>> 24;
  }
  return out;
}

describe("gitBlobId", () => {
  it("is git's own id for a file", () => {
    const dir = mkdtempSync(join(tmpdir(), "freezegate-blob-"));
    try {
      const file = join(dir, "mod.py");
      const content = Buffer.from("def f(x):\n    return x + 1\n");
      writeFileSync(file, content);
      const byGit = execFileSync("git", ["hash-object", "--no-filters", file], {
        encoding: "utf8",
      }).trim();
      expect(gitBlobId(content, 40)).toBe(byGit);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  // Every length up to a few blocks (the padding's cases: 55, 56 and 64 bytes and their
  // neighbours, with the header's length added), then lengths around the 64,000 bytes the
  // hasher takes at a time, and one far past them.
  const lengths = [
    ...Array.from({ length: 300 }, (_, n) => n),
    63_989,
    63_990,
    63_999,
    64_000,
    64_001,
    127_990,
    128_000,
    200_003,
    1_048_577,
  ];

  it("gives node:crypto's SHA-1 for every length tried", () => {
    const wrong = lengths.filter((n) => gitBlobId(bytes(n), 40) !== reference(bytes(n), "sha1"));
    expect(wrong).toEqual([]);
  });

  it("gives node:crypto's SHA-256 where the repository's ids have 64 digits", () => {
    for (const n of [0, 1, 64, 1000]) {
      expect(gitBlobId(bytes(n), 64)).toBe(reference(bytes(n), "sha256"));
    }
  });

  it("holds the module that scripts/sha1-wasm.mjs assembles", () => {
    const script = fileURLToPath(new URL("../../scripts/sha1-wasm.mjs", import.meta.url));
    const printed = execFileSync(process.execPath, [script], { encoding: "utf8" });
    const text = [...printed.matchAll(/"([^"]*)"/g)].map((m) => m[1]).join("");
    expect(text).toBe(SHA1_WASM);
  });

  it("answers the same for the same bytes, whatever was hashed before", () => {
    const big = bytes(70_000);
    const small = bytes(10);
    const first = gitBlobId(small, 40);
    gitBlobId(big, 40);
    expect(gitBlobId(small, 40)).toBe(first);
  });
});
