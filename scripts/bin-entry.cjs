#!/usr/bin/env node
"use strict";
// The freezegate binary (copied to dist/bin/freezegate.cjs by scripts/bundle.mjs).
// `freezegate audit` runs from one CommonJS file, every other command from the full ES
// module CLI.
//
// audit.cjs is compiled with the V8 code cache the build wrote next to it (bytecode of every
// function a sample audit ran), which saves compiling 300 kB of JavaScript on each run. The
// cache file holds a copy of the exact audit.cjs it was made from, and is used only when the
// two are byte for byte the same (a memory compare; a SHA-1 of the file took about 1.5 ms
// on each run); V8 itself refuses one from another Node version. Otherwise the file compiles as usual: the cache changes how fast audit starts,
// never what it does.
//
// The cache file: the line "freezegate code cache 1", the line of audit.cjs's length in
// bytes, then that many bytes (audit.cjs), then V8's data.

const { readFileSync, writeFileSync } = require("node:fs");
const Module = require("node:module");
const { join } = require("node:path");
const { Script } = require("node:vm");

const MAGIC = "freezegate code cache 1\n";

/** V8's data from a cache file made for exactly `source`, or undefined. */
function cachedDataFor(cache, source) {
  const header = cache.toString("latin1", 0, MAGIC.length + 12);
  const lengthEnd = header.indexOf("\n", MAGIC.length);
  if (!header.startsWith(MAGIC) || lengthEnd < 0) return undefined;
  const start = lengthEnd + 1;
  const end = start + source.length;
  if (header.slice(MAGIC.length, lengthEnd) !== String(source.length) || cache.length <= end) {
    return undefined;
  }
  return source.compare(cache, start, end) === 0 ? cache.subarray(end) : undefined;
}

function runAudit() {
  const file = join(__dirname, "audit.cjs");
  const cacheFile = `${file}.v8cache`;
  const bytes = readFileSync(file);
  let cachedData;
  let state = "none";
  try {
    cachedData = cachedDataFor(readFileSync(cacheFile), bytes);
    if (cachedData === undefined) state = "stale";
  } catch {
    // no cache: compile as usual
  }
  const source = bytes.toString("utf8");
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  if (cachedData !== undefined) state = script.cachedDataRejected ? "rejected" : "used";
  if (process.env.FREEZEGATE_TIMING === "1") process.stderr.write(`timing: code cache ${state}\n`);
  if (process.env.FREEZEGATE_WRITE_CODE_CACHE === "1") {
    // The build's sample run: at exit the script holds the bytecode of everything it ran.
    // A cache that cannot be written is only a slower next run: never a changed exit code.
    process.on("exit", () => {
      try {
        const header = Buffer.from(`${MAGIC}${bytes.length}\n`, "latin1");
        writeFileSync(cacheFile, Buffer.concat([header, bytes, script.createCachedData()]));
      } catch (error) {
        process.stderr.write(`freezegate: no code cache written: ${String(error)}\n`);
      }
    });
  }
  const module = new Module(file, null);
  module.filename = file;
  const wrapper = script.runInThisContext();
  wrapper.call(module.exports, module.exports, Module.createRequire(file), module, file, __dirname);
}

// A failure to load is freezegate's own bug, and exit 2 like every error: never 1 (a gate
// that failed), which Node would give an uncaught exception.
function loadFailed(error) {
  process.stderr.write(`freezegate: internal error: ${String(error)}\n`);
  process.exitCode = 2;
}

if (process.argv[2] === "audit") {
  try {
    runAudit();
  } catch (error) {
    loadFailed(error);
  }
} else {
  import("./cli.mjs").catch(loadFailed);
}
