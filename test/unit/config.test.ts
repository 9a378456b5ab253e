import { describe, expect, it } from "vitest";
import { validateConfig } from "../../src/core/config.js";

describe("validateConfig", () => {
  it("accepts known keys with the right types", () => {
    expect(
      validateConfig(
        { base: "origin/main", "fail-on": ["uncovered"], "allow-unresolved": true },
        "pyproject.toml [tool.freezegate]",
      ),
    ).toEqual({ base: "origin/main", "fail-on": ["uncovered"], "allow-unresolved": true });
  });

  it("refuses unknown keys, suggesting the right spelling", () => {
    expect(() => validateConfig({ fail_on: ["uncovered"] }, "src")).toThrow(
      /unknown key "fail_on"/,
    );
    try {
      validateConfig({ fail_on: [] }, "src");
    } catch (error) {
      expect((error as { fix: string }).fix).toBe('did you mean "fail-on"?');
    }
    expect(() => validateConfig({ colour: true }, "src")).toThrow(/unknown key "colour"/);
  });

  it("refuses wrong types", () => {
    expect(() => validateConfig({ base: 1 }, "src")).toThrow(/"base" must be a string/);
    expect(() => validateConfig({ "path-map": "a=b" }, "src")).toThrow(/list of strings/);
    expect(() => validateConfig({ "allow-unresolved": "yes" }, "src")).toThrow(/true or false/);
    expect(() => validateConfig(["x"], "src")).toThrow(/not a table/);
  });

  it("refuses empty strings, alone or in a list (an unfilled variable weakens the gate)", () => {
    expect(() => validateConfig({ base: "" }, "src")).toThrow(/"base" has an empty value/);
    expect(() => validateConfig({ frozen: "  " }, "src")).toThrow(/"frozen" has an empty value/);
    expect(() => validateConfig({ "fail-on": [""] }, "src")).toThrow(/"fail-on" has an empty/);
    expect(() => validateConfig({ "path-map": ["/app/=.", ""] }, "src")).toThrow(/empty value/);
  });

  it("gives advice in the syntax of the file the settings are in", () => {
    const fixOf = (source: string) => {
      try {
        validateConfig("x", source);
      } catch (error) {
        return (error as { fix: string }).fix;
      }
      return "";
    };
    expect(fixOf('package.json "freezegate"')).toContain('"freezegate": {"base": "origin/main"}');
    expect(fixOf("pyproject.toml [tool.freezegate]")).toContain('base = "origin/main"');
  });
});
