import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { needsNameCheck } from "../../src/adapters/git.js";

const fixture = (name: string) => readFileSync(join(__dirname, "../fixtures/diffs", name));

describe("needsNameCheck: when the diff is cross-checked against git --name-status", () => {
  it.each(["multi-hunk-u0.diff", "no-newline.diff", "delete-and-new.diff", "crlf.diff"])(
    "plain same-path changes (%s) need no second git call",
    (name) => {
      expect(needsNameCheck(fixture(name))).toBe(false);
    },
  );

  it.each([
    "rename-pure.diff",
    "rename-edit.diff",
    "spaces.diff",
    "quoted-names.diff",
    "non-ascii-quoted.diff",
    "binary.diff",
    "submodule-update.diff",
    "copy.diff",
  ])("%s is cross-checked", (name) => {
    expect(needsNameCheck(fixture(name))).toBe(true);
  });
});
