#!/usr/bin/env node
"use strict";
// The freezegate binary (copied to dist/bin/freezegate.cjs by scripts/bundle.mjs).
// `freezegate audit` runs from one CommonJS file, every other command from the full ES
// module CLI.
//
// audit.cjs is compiled with the V8 code cache the build wrote next to it (bytecode of every
// function a sample audit ran), which saves compiling 300 kB of JavaScript on each run. The
// cache is used only for the exact file it was made from (its SHA-1 is in the cache's
// header); V8 itself refuses one from another Node version. Otherwise the file compiles as
// usual: the cache changes how fast audit starts, never what it does.

const { createHash } = require("node:crypto");
const { readFileSync, writeFileSync } = require("node:fs");
const Module = require("node:module");
const { join } = require("node:path");
const { Script } = require("node:vm");

const HASH_BYTES = 40; // hex SHA-1 of audit.cjs, then "\n", then V8's data

function runAudit() {
  const file = join(__dirname, "audit.cjs");
  const cacheFile = `${file}.v8cache`;
  const source = readFileSync(file, "utf8");
  const hash = createHash("sha1").update(source).digest("hex");
  let cachedData;
  let state = "none";
  try {
    const cache = readFileSync(cacheFile);
    if (cache.toString("latin1", 0, HASH_BYTES) === hash && cache[HASH_BYTES] === 0x0a) {
      cachedData = cache.subarray(HASH_BYTES + 1);
    } else {
      state = "stale";
    }
  } catch {
    // no cache: compile as usual
  }
  const script = new Script(Module.wrap(source), { filename: file, cachedData });
  if (cachedData !== undefined) state = script.cachedDataRejected ? "rejected" : "used";
  if (process.env.FREEZEGATE_TIMING === "1") process.stderr.write(`timing: code cache ${state}\n`);
  if (process.env.FREEZEGATE_WRITE_CODE_CACHE === "1") {
    // The build's sample run: at exit the script holds the bytecode of everything it ran.
    // A cache that cannot be written is only a slower next run: never a changed exit code.
    process.on("exit", () => {
      try {
        writeFileSync(
          cacheFile,
          Buffer.concat([Buffer.from(`${hash}\n`, "latin1"), script.createCachedData()]),
        );
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
