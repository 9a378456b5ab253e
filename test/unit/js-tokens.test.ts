// The JavaScript token scanner that init vitest reads configuration files with: braces inside
// strings, template literals, comments and regular expressions are not brackets, and what it
// cannot tokenize with certainty is an error, never a guess.

import { describe, expect, it } from "vitest";
import { listAt, objectProperties, valueAt } from "../../src/languages/javascript/literals.js";
import { JsScanError, scanJs, stringValue } from "../../src/languages/javascript/tokens.js";

const brackets = (text: string) =>
  scanJs(text)
    .tokens.filter((t) => t.kind === "punct" && /[{}()[\]]/.test(t.text))
    .map((t) => t.text)
    .join("");

describe("scanJs", () => {
  it("sees no brackets in strings, templates, comments and regular expressions", () => {
    expect(brackets(`const a = "{"; // }\nconst b = '}' /* { */;`)).toBe("");
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source as data
    expect(brackets("const t = `a${ { x: '}' }.x }b{`;")).toBe("");
    expect(brackets("f(/[}{]/g, /\\}/)")).toBe("()");
    expect(brackets("x = a / b / c; y = (1) / 2 / {}.x")).toBe("(){}");
    expect(brackets("return /}/.test(s)")).toBe("()");
    expect(brackets("#!/usr/bin/env node\n{}")).toBe("{}");
  });

  it("matches brackets, template expressions included", () => {
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source as data
    const scan = scanJs("a({ b: [1, `${ {} }`] })");
    const open = scan.tokens.findIndex((t) => t.text === "{");
    expect(scan.tokens[scan.tokens[open]?.match ?? -1]?.text).toBe("}");
    expect(scan.tokens.filter((t) => t.kind === "template")).toHaveLength(1);
  });

  it.each([
    ['x = "open', "a string is not closed on its line"],
    ["/* open", "a /* comment is not closed"],
    // biome-ignore lint/suspicious/noTemplateCurlyInString: JavaScript source as data
    ["x = `open ${a}", "a template literal is not closed"],
    ["x = `${ a `", "a template literal is not closed"],
    ["f(a]", 'a "]" where ")" was expected'],
    ["f(a", 'a ")" is missing at the end'],
    ["}", 'a "}" closes nothing'],
    // A division read as a regular expression ends at the line's end: an error, not a guess.
    ["x = {} / 2\nfoo", "is not closed on its line"],
  ])("refuses %j", (text, message) => {
    expect(() => scanJs(text)).toThrow(JsScanError);
    expect(() => scanJs(text)).toThrow(message);
  });

  it("reads string values with their escapes", () => {
    const values = scanJs(
      String.raw`'a\'b' "\u{1F600}\x41\n" ${"`"}t${"`"} ${"`"}${"$"}{x}${"`"}`,
    ).tokens.map(stringValue);
    expect(values).toEqual(["a'b", "😀A\n", "t", null]);
  });
});

describe("object literals", () => {
  it("split at their own commas, with keys, values and the trailing comma", () => {
    const scan = scanJs(
      `({ a: 1, "b-c": [2, 3], d, ...e, [f]: 4, get g() { return 1 }, h: { i: "j" }, })`,
    );
    const list = listAt(scan, 1);
    expect(list.trailingComma).not.toBeNull();
    const props = objectProperties(scan, list);
    expect(props.map((p) => [p.kind, p.key])).toEqual([
      ["init", "a"],
      ["init", "b-c"],
      ["shorthand", "d"],
      ["spread", null],
      ["computed", null],
      ["method", "g"],
      ["init", "h"],
    ]);
    const h = props[6]?.value;
    const value = h ? valueAt(scan, h) : null;
    expect(value?.kind === "object" && value.properties.map((p) => p.key)).toEqual(["i"]);
  });
});
