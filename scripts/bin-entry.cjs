#!/usr/bin/env node
"use strict";
// The freezegate binary (copied to dist/bin/freezegate.cjs by scripts/bundle.mjs).
// `freezegate audit` runs from one CommonJS file, every other command from the full ES
// module CLI.
//
// audit.cjs is compiled with the V8 code cache the build wrote next to it (bytecode of every
// function a sample audit ran), which saves compiling 600 kB of JavaScript on each run. The
// cache file holds a copy of the exact audit.cjs it was made from, and is used only when the
// two are byte for byte the same (compared a chunk at a time; a SHA-1 of the file took about
// 1.5 ms on each run), and then the text is taken from the copy; V8 itself refuses one from
// another Node version. Otherwise the file compiles as usual: the cache changes how fast
// audit starts, never what it does.
//
// The cache file: the line "freezegate code cache 1", the line of audit.cjs's length in
// bytes, then that many bytes (audit.cjs), then V8's data.

const { closeSync, openSync, readFileSync, readSync, writeFileSync } = require("node:fs");
const Module = require("node:module");
const { join } = require("node:path");
const { Script } = require("node:vm");

const MAGIC = "freezegate code cache 1\n";

/** Bytes of audit.cjs compared at a time with the cache file's copy. */
const CHUNK = 65536;

/**
 * audit.cjs's text and V8's data for it. The cache file's copy of audit.cjs is compared
 * with the file a chunk at a time and, when they are the same, the text is taken from the
 * copy: reading audit.cjs whole into memory of its own as well took longer than the compare.
 */
function loadAudit(file, cacheFile) {
  let cache;
  try {
    cache = readFileSync(cacheFile);
  } catch {
    // no cache: compile as usual
    return { bytes: readFileSync(file), cachedData: undefined, state: "none" };
  }
  const header = cache.toString("latin1", 0, MAGIC.length + 12);
  const lengthEnd = header.indexOf("\n", MAGIC.length);
  const length = Number(header.slice(MAGIC.length, lengthEnd));
  const start = lengthEnd + 1;
  const end = start + length;
  if (
    header.startsWith(MAGIC) &&
    lengthEnd > 0 &&
    end < cache.length &&
    sameAs(file, cache, start, end)
  ) {
    return { bytes: cache.subarray(start, end), cachedData: cache.subarray(end), state: "used" };
  }
  return { bytes: readFileSync(file), cachedData: undefined, state: "stale" };
}

/** Whether `file` holds exactly `cache`'s bytes from `start` to `end`. */
function sameAs(file, cache, start, end) {
  const fd = openSync(file, "r");
  try {
    const chunk = Buffer.allocUnsafe(CHUNK);
    for (let at = start; ; ) {
      const read = readSync(fd, chunk, 0, chunk.length, at - start);
      if (read === 0) return at === end;
      if (at + read > end || chunk.compare(cache, at, at + read, 0, read) !== 0) return false;
      at += read;
    }
  } finally {
    closeSync(fd);
  }
}

function runAudit() {
  const file = join(__dirname, "audit.cjs");
  const cacheFile = `${file}.v8cache`;
  const { bytes, cachedData, state: found } = loadAudit(file, cacheFile);
  let state = found;
  const source = bytes.toString("utf8");
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  if (cachedData !== undefined && script.cachedDataRejected) state = "rejected";
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
