#!/usr/bin/env node
// Bundles the compiled CLI (dist/cli/*.js) into dist/bin/. Node's ES module loader costs
// start-up time per module file, and the CLI has dozens.
//
//   freezegate.cjs  the binary (scripts/bin-entry.cjs): picks one of the two below
//   audit.cjs       `freezegate audit` alone, in one CommonJS file (what CI runs on every patch),
//                   with audit.cjs.v8cache, V8's code cache from a sample audit
//   cli.mjs         every command, each in a chunk loaded only when it runs (chunks/)
//
// Why CommonJS for audit: Node 22 starts a CommonJS program with less CPU time than an ES
// module one (no ES module loader to set up; Node 24 starts both alike; docs/performance.md).
// The bundle is the same code; only import.meta.url needs a stand-in.

import { chmodSync, copyFileSync, readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { build } from "esbuild";
import { writeCodeCache } from "./code-cache.mjs";

// Chunk names carry content hashes: without this, every rebuild would leave the previous
// build's chunks behind.
rmSync("dist/bin", { recursive: true, force: true });

const common = {
  bundle: true,
  platform: "node",
  target: "node22",
  outExtension: { ".js": ".mjs" },
  sourcemap: true,
  logLevel: "warning",
  legalComments: "none",
};

await build({
  ...common,
  format: "esm",
  entryPoints: { cli: "dist/cli/main.js" },
  outdir: "dist/bin",
  splitting: true,
  chunkNames: "chunks/[name]-[hash]",
});

// No splitting: the audit entry imports no other command, so nothing else lands in it.
await build({
  ...common,
  format: "cjs",
  entryPoints: { audit: "dist/cli/main-audit.js" },
  outdir: "dist/bin",
  outExtension: { ".js": ".cjs" },
  define: { "import.meta.url": "__freezegateModuleUrl" },
  banner: {
    js: '"use strict";\nconst __freezegateModuleUrl = require("node:url").pathToFileURL(__filename).href;',
  },
});

refuseNonAscii("dist/bin/audit.cjs");

copyFileSync("scripts/bin-entry.cjs", "dist/bin/freezegate.cjs");
chmodSync("dist/bin/freezegate.cjs", 0o755);

// The code cache for audit.cjs (see bin-entry.cjs). Without git the build still succeeds,
// only without the cache.
try {
  writeCodeCache(resolve("dist/bin"));
} catch (error) {
  process.stderr.write(`bundle: no code cache for audit.cjs (${String(error).trim()})\n`);
}

/**
 * esbuild writes every other character outside ASCII as an escape, but not in a tagged
 * template's text, whose raw form the tag could read. One such character makes V8 hold the
 * whole bundle as a string of two-byte characters: twice the memory, and its decoding at
 * every start costs more than the rest of reading the file (docs/performance.md).
 */
function refuseNonAscii(file) {
  const bytes = readFileSync(file);
  const at = bytes.findIndex((byte) => byte > 0x7f);
  if (at < 0) return;
  const line = bytes.subarray(0, at).toString("latin1").split("\n").length;
  const char = bytes
    .subarray(at, at + 4)
    .toString("utf8")
    .codePointAt(0)
    .toString(16);
  throw new Error(
    `${file}:${line} holds U+${char.padStart(4, "0")}, which esbuild leaves as it is only in a tagged template: write it as \\u${char} in the source (the tag gets the same text)`,
  );
}
