import { PassThrough } from "node:stream";
import { describe, expect, it } from "vitest";
import type { CommandIo, CommandSpec } from "../../src/cli/command.js";
import { eager } from "../../src/cli/commands/index.js";
import { main } from "../../src/cli/program.js";
import { InputError } from "../../src/core/errors.js";
import { refusal } from "../../src/core/refusals/index.js";

function io(env: NodeJS.ProcessEnv = {}) {
  let out = "";
  let err = "";
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on("data", (c) => {
    out += c;
  });
  stderr.on("data", (c) => {
    err += c;
  });
  const value: CommandIo = { stdout, stderr, stdin: new PassThrough(), cwd: "/", env };
  return { value, out: () => out, err: () => err };
}

function command(run: CommandSpec["run"]): CommandSpec {
  return { name: "boom", summary: "test", usage: "freezegate boom", options: [], run };
}

describe("the error boundary", () => {
  it("prints a known error as one line with its fix and exits 2", async () => {
    const t = io();
    const code = await main(
      ["boom"],
      t.value,
      eager([
        command(async () => {
          throw new InputError("the data is gone", { fix: "record it again" });
        }),
      ]),
    );
    expect(code).toBe(2);
    expect(t.err()).toBe("freezegate: error: the data is gone (fix: record it again)\n");
    expect(t.out()).toBe("");
  });

  it("names a refusal by its code, on one line whatever the values hold", async () => {
    const t = io();
    const code = await main(
      ["boom"],
      t.value,
      eager([
        command(async () => {
          throw refusal("history-not-found", { path: "runs\r::error::x.jsonl" });
        }),
      ]),
    );
    expect(code).toBe(2);
    expect(t.err()).toMatch(
      /^freezegate: error\[history-not-found\]: the history file runs\\r::error::x\.jsonl does not exist \(fix: [^\n]+\)\n$/,
    );
  });

  it("calls an unexpected exception an internal error, exit 2, stack only on request", async () => {
    const crash = command(async () => {
      throw new TypeError("cannot read properties of undefined");
    });
    const t = io();
    expect(await main(["boom"], t.value, eager([crash]))).toBe(2);
    expect(t.err()).toBe(
      "freezegate: internal error (a bug in freezegate, please report it): cannot read properties of undefined\nfreezegate: run with FREEZEGATE_DEBUG=1 for the stack trace\n",
    );
    const debug = io({ FREEZEGATE_DEBUG: "1" });
    await main(["boom"], debug.value, eager([crash]));
    expect(debug.err()).toMatch(/^TypeError: cannot read properties of undefined\n\s+at /m);
  });

  it("passes the command's exit code through", async () => {
    const t = io();
    expect(await main(["boom"], t.value, eager([command(async () => 1)]))).toBe(1);
  });
});
