import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readTextIfExists, readTextOrNull } from "../../src/adapters/repo-files.js";
import { FreezegateError } from "../../src/core/errors.js";

const dir = mkdtempSync(join(tmpdir(), "freezegate-repo-files-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

writeFileSync(join(dir, "setup.cfg"), "[tool:pytest]\n");
mkdirSync(join(dir, "tox.ini"));
symlinkSync(join(dir, "nowhere"), join(dir, "dangling"));
symlinkSync(join(dir, "setup.cfg"), join(dir, "linked.cfg"));
execFileSync("mkfifo", [join(dir, "fifo")]);

describe("reading a file that may not be there", () => {
  // Whatever says "absent" first (a cheap stat, or the read's own error), the answers are
  // these: absence of every kind is null, anything else unreadable an error (or null).
  it.each([
    ["nothing at the path", "pytest.ini"],
    ["a file where a directory of the path should be", "setup.cfg/pytest.ini"],
    ["a directory", "tox.ini"],
    ["a link to nothing", "dangling"],
  ])("%s is null", (_what, name) => {
    expect(readTextIfExists(join(dir, name), "pytest configuration")).toBeNull();
    expect(readTextOrNull(join(dir, name))).toBeNull();
  });

  it("a file, or a link to one, is its text", () => {
    expect(readTextIfExists(join(dir, "setup.cfg"), "config")).toBe("[tool:pytest]\n");
    expect(readTextOrNull(join(dir, "linked.cfg"))).toBe("[tool:pytest]\n");
  });

  it("a FIFO is refused by readTextIfExists and null for readTextOrNull, never read", () => {
    expect(() => readTextIfExists(join(dir, "fifo"), "config")).toThrow(FreezegateError);
    expect(() => readTextIfExists(join(dir, "fifo"), "config")).toThrow(/named pipe/);
    expect(readTextOrNull(join(dir, "fifo"))).toBeNull();
  });

  it("a name too long for the file system is null too (the read tells, not the stat)", () => {
    expect(readTextIfExists(join(dir, "x".repeat(300)), "config")).toBeNull();
  });
});
