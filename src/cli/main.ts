#!/usr/bin/env node
// Entry point of the `freezegate` binary: wires the process to the program.

import type { CommandIo } from "./command.js";
import { main } from "./program.js";

const io: CommandIo = {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  cwd: process.cwd(),
  env: process.env,
};

main(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (error) => {
    process.stderr.write(`freezegate: internal error: ${String(error)}\n`);
    process.exitCode = 2;
  },
);
