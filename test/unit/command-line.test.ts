// commandLine: the exact command a fix tells the user to run next, read back by a POSIX shell
// as the words the command was given.

import { spawnSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { commandLine, parseCommandArgs } from "../../src/cli/command.js";
import { checkCommand } from "../../src/cli/commands/check.js";

describe("commandLine", () => {
  it("gives the options in their declared order, quoted only where a shell needs it", () => {
    const args = parseCommandArgs(checkCommand, [
      "--format",
      "json",
      "--base",
      "origin/main",
      "--path-map",
      "/app/=.",
      "--path-map",
      "=it's here/",
      "-C",
      "sub dir",
    ]);
    const line = commandLine("check", checkCommand, args, ["--uncommitted"]);
    expect(line).toBe(
      "freezegate check --base origin/main --path-map /app/=. --path-map '=it'\\''s here/' --format json --directory 'sub dir' --uncommitted",
    );
    const words = spawnSync("/bin/sh", ["-c", `printf '%s\\n' ${line}`], { encoding: "utf8" });
    expect(words.stdout.split("\n").slice(0, -1)).toEqual([
      "freezegate",
      "check",
      "--base",
      "origin/main",
      "--path-map",
      "/app/=.",
      "--path-map",
      "=it's here/",
      "--format",
      "json",
      "--directory",
      "sub dir",
      "--uncommitted",
    ]);
  });
});
