import { describe, expect, it } from "vitest";
import { splitLines, staleEvidence } from "../../src/core/stale.js";

describe("staleEvidence", () => {
  const source = "import os\n\n# note\ndef f():\n    return 1\n";

  it("accepts lines that hold code", () => {
    expect(staleEvidence(source, [1, 4, 5])).toBeNull();
  });

  it("flags executed lines past the end of the file", () => {
    expect(staleEvidence(source, [1, 9])).toBe(
      "line 9 is recorded as executed, but the file has 5 lines",
    );
  });

  it("flags executed blank and comment lines", () => {
    expect(staleEvidence(source, [2])).toBe("line 2 is recorded as executed, but it is blank");
    expect(staleEvidence(source, [3])).toBe("line 3 is recorded as executed, but it is a comment");
  });

  it("reads white space as trim() does, tabs, form feeds and Unicode spaces too", () => {
    const lines = [
      "\t\v\f ",
      "\u00a0\u3000",
      "\t# x",
      "\u2003  # y",
      "\ufeffz = 1",
      "x  # y",
      "\u00a0x",
    ];
    const verdicts = lines.map((_, i) => staleEvidence(lines, [i + 1]));
    expect(verdicts).toEqual([
      "line 1 is recorded as executed, but it is blank",
      "line 2 is recorded as executed, but it is blank",
      "line 3 is recorded as executed, but it is a comment",
      "line 4 is recorded as executed, but it is a comment",
      null,
      null,
      null,
    ]);
    // The first evidence is reported, and a line past the end still wins over it.
    expect(staleEvidence(lines, [5, 3, 1])).toBe(
      "line 3 is recorded as executed, but it is a comment",
    );
    expect(staleEvidence(lines, [3, 9])).toBe(
      "line 9 is recorded as executed, but the file has 7 lines",
    );
  });

  it("handles CRLF sources", () => {
    expect(staleEvidence("a = 1\r\n\r\nb = 2\r\n", [1, 3])).toBeNull();
    expect(staleEvidence("a = 1\r\n\r\nb = 2\r\n", [2])).toMatch(/blank/);
  });
});

describe("staleEvidence with the tokenizer's statement lines", () => {
  it("a recorded '#' or blank line inside a statement is no evidence; outside one it is", () => {
    const source = 'def h(t):\n    return f"""\n# {t}\n"""\n# a comment\n';
    const inStatement = (line: number) => line >= 2 && line <= 4;
    expect(staleEvidence(source, [1, 2, 3], inStatement)).toBeNull();
    expect(staleEvidence(source, [3])).toBe("line 3 is recorded as executed, but it is a comment");
    expect(staleEvidence(source, [5], inStatement)).toBe(
      "line 5 is recorded as executed, but it is a comment",
    );
    expect(staleEvidence(source, [9], () => true)).toBe(
      "line 9 is recorded as executed, but the file has 5 lines",
    );
  });
});

describe("splitLines", () => {
  it("ends lines at LF, CRLF and CR alike, with or without a final line end", () => {
    expect(splitLines("")).toEqual([]);
    expect(splitLines("\n")).toEqual([""]);
    expect(splitLines("a\nb")).toEqual(["a", "b"]);
    expect(splitLines("a\nb\n")).toEqual(["a", "b"]);
    expect(splitLines("a\n\nb\n\n")).toEqual(["a", "", "b", ""]);
    expect(splitLines("a\r\nb\rc\n")).toEqual(["a", "b", "c"]);
    expect(splitLines("a\r\n\r\n")).toEqual(["a", ""]);
  });
});
