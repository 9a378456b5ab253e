#!/usr/bin/env node
// Entry point of the full `freezegate` CLI: every command, each loaded when it runs.

import { COMMANDS } from "./commands/index.js";
import { runProcess } from "./run-process.js";

runProcess(COMMANDS);
