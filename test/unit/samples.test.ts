// The samples artifact parser: both shapes read, everything else refused (a misread count
// would pass a weak deposit), and how a property's count is looked up.

import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import { distinctFor, parseSamples } from "../../src/core/samples.js";

const P = "tests/props/test_proration_props.py::test_monotonic_in_period";

describe("parseSamples", () => {
  it("reads freezegate's per-property format", () => {
    const s = parseSamples({ version: 1, properties: { [P]: { distinct: 12 } } }, "s.json");
    expect(s.kind).toBe("per-property");
    expect(distinctFor(s, P)).toBe(12);
    expect(distinctFor(s, "tests/props/test_other.py::test_x")).toBeNull();
  });

  it("reads seed 004's single session count and applies it to every property", () => {
    const s = parseSamples({ distinct: 3 }, "gate/prop_samples.json");
    expect(s).toEqual({ kind: "session", distinct: 3 });
    expect(distinctFor(s, P)).toBe(3);
    expect(distinctFor(s, "tests/anything.py::test_y")).toBe(3);
  });

  it("counts a parametrized property recorded per case as its largest case, never the sum", () => {
    const s = parseSamples(
      {
        version: 1,
        properties: {
          [`${P}[small]`]: { distinct: 5 },
          [`${P}[large]`]: { distinct: 9 },
          [`${P}x[other]`]: { distinct: 100 },
        },
      },
      "s.json",
    );
    expect(distinctFor(s, P)).toBe(9);
  });

  it("an exact entry wins over the cases", () => {
    const s = parseSamples(
      { version: 1, properties: { [P]: { distinct: 2 }, [`${P}[a]`]: { distinct: 50 } } },
      "s.json",
    );
    expect(distinctFor(s, P)).toBe(2);
  });

  it.each([
    ["not an object", [1, 2], /must be a JSON object/],
    ["a wrong version", { version: 2, properties: {} }, /reads version 1/],
    ["no version and no distinct", { properties: {} }, /reads version 1/],
    ["an unknown top-level key", { version: 1, properties: {}, extra: 1 }, /unknown key "extra"/],
    ["properties not an object", { version: 1, properties: [] }, /must be an object of node ids/],
    [
      "a key that is not a node id",
      { version: 1, properties: { "test_x.py": { distinct: 1 } } },
      /not a pytest node id/,
    ],
    [
      "an entry that is a bare number",
      { version: 1, properties: { [P]: 12 } },
      /must be an object/,
    ],
    ["an entry without distinct", { version: 1, properties: { [P]: {} } }, /lacks "distinct"/],
    [
      "an unknown entry key",
      { version: 1, properties: { [P]: { distinct: 1, seen: 2 } } },
      /unknown key "seen"/,
    ],
    [
      "a negative count",
      { version: 1, properties: { [P]: { distinct: -1 } } },
      /whole number >= 0/,
    ],
    [
      "a fractional count",
      { version: 1, properties: { [P]: { distinct: 2.5 } } },
      /whole number >= 0/,
    ],
    ["a count as a string", { distinct: "12" }, /whole number >= 0/],
    ["seed format with extra keys", { distinct: 3, runs: 1 }, /unknown key "runs"/],
  ])("refuses %s with an InputError naming the file", (_name, value, pattern) => {
    let error: unknown;
    try {
      parseSamples(value, "gate/prop_samples.json");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toMatch(pattern);
    expect((error as Error).message).toContain("gate/prop_samples.json");
    expect((error as InputError).fix).toMatch(/samples-artifact\.md/);
  });
});
