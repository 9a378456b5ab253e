import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import { findDuplicateKey, parseJsonText, stripBom } from "../../src/core/json-text.js";

describe("findDuplicateKey", () => {
  it("finds nothing in JSON without repeated keys", () => {
    expect(findDuplicateKey('{"a": 1, "b": {"a": 2}, "c": [{"a": 3}, {"a": 4}]}')).toBeNull();
    expect(findDuplicateKey("[1, 2, 3]")).toBeNull();
    expect(findDuplicateKey('"text"')).toBeNull();
    expect(findDuplicateKey("{}")).toBeNull();
  });

  it("names the repeated key and the object that repeats it", () => {
    expect(findDuplicateKey('{"policy": {}, "freezes": [], "policy": {"blocking": []}}')).toEqual({
      key: "policy",
      path: "$",
    });
    expect(findDuplicateKey('{"policy": {"blocking": [], "blocking": ["shadow"]}}')).toEqual({
      key: "blocking",
      path: "$.policy",
    });
    expect(findDuplicateKey('{"freezes": [{"owner": "a"}, {"owner": "a", "owner": "b"}]}')).toEqual(
      { key: "owner", path: "$.freezes[1]" },
    );
    expect(findDuplicateKey('{"files": {"a b.py": {"x": 1, "x": 2}}}')).toEqual({
      key: "x",
      path: '$.files["a b.py"]',
    });
  });

  it("compares keys decoded, and is not fooled by quotes, colons and brackets in strings", () => {
    expect(findDuplicateKey('{"a": 1, "\\u0061": 2}')).toEqual({ key: "a", path: "$" });
    expect(findDuplicateKey('{"a\\"": 1, "a": 2}')).toBeNull();
    expect(
      findDuplicateKey('{"x": "{\\"a\\": 1, \\"a\\": 2}", "y": "\\\\", "z": ":[,"}'),
    ).toBeNull();
    expect(findDuplicateKey('{"a\\\\": 1, "a\\\\": 2}')).toEqual({ key: "a\\", path: "$" });
    expect(findDuplicateKey('[{"k":1},\n {"k":2}, {"k":3,"k":4}]')).toEqual({
      key: "k",
      path: "$[2]",
    });
  });

  it("is linear on a large document", () => {
    const big = JSON.stringify({
      freezes: Array.from({ length: 50_000 }, (_, i) => ({ test_id: `t${i}`, owner: "o" })),
    });
    const started = performance.now();
    expect(findDuplicateKey(big)).toBeNull();
    expect(performance.now() - started).toBeLessThan(2000);
  });
});

describe("parseJsonText", () => {
  it("skips a byte-order mark", () => {
    expect(stripBom('\ufeff{"a": 1}')).toBe('{"a": 1}');
    expect(parseJsonText('\ufeff{"a": 1}', "ledger x")).toEqual({ a: 1 });
  });

  it("refuses a repeated key, naming it and where", () => {
    const read = () => parseJsonText('{"a": 1, "a": 2}', "ledger x");
    expect(read).toThrow(InputError);
    expect(read).toThrow(
      'ledger x has the key "a" twice in $: JSON readers keep only the last one, a person reading the file sees the first',
    );
    try {
      read();
    } catch (error) {
      expect((error as InputError).fix).toBe('keep one "a" in $');
    }
  });

  it("names the source and the fix of a syntax error", () => {
    try {
      parseJsonText("{", "lock file y", "regenerate it");
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(InputError);
      expect((error as InputError).message).toMatch(/^lock file y is not valid JSON: /);
      expect((error as InputError).fix).toBe("regenerate it");
    }
  });
});
