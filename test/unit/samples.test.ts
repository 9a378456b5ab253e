// The samples artifact parser: both shapes read, everything else refused (a misread count
// would pass a weak deposit), and how a property's count is looked up.

import { describe, expect, it } from "vitest";
import { InputError } from "../../src/core/errors.js";
import { distinctFor, parseSamples, requireSamplesAt } from "../../src/core/samples.js";

const P = "tests/props/test_proration_props.py::test_monotonic_in_period";
const C = "0123456789abcdef0123456789abcdef01234567";

describe("parseSamples", () => {
  it("reads freezegate's per-property format", () => {
    const s = parseSamples(
      { version: 2, commit: C, properties: { [P]: { distinct: 12 } } },
      "s.json",
    );
    expect(s).toEqual({
      kind: "per-property",
      commit: C,
      label: "s.json",
      properties: new Map([[P, 12]]),
    });
    expect(distinctFor(s, P)).toBe(12);
    expect(distinctFor(s, "tests/props/test_other.py::test_x")).toBeNull();
  });

  it("reads who wrote it when it says (the plugin's samples go with its applied record)", () => {
    const s = parseSamples(
      { version: 2, tool: "pytest-freezegate", commit: C, properties: {} },
      "s.json",
    );
    expect(s).toEqual({
      kind: "per-property",
      commit: C,
      label: "s.json",
      properties: new Map(),
      tool: "pytest-freezegate",
    });
    expect(() =>
      parseSamples({ version: 2, tool: " ", commit: C, properties: {} }, "s.json"),
    ).toThrow('samples artifact s.json: "tool" is " ", not the name of the runner that wrote it');
  });

  it("reads the freeze-ledger example's single session count and applies it to every property", () => {
    const s = parseSamples({ distinct: 3 }, "gate/prop_samples.json");
    expect(s).toEqual({ kind: "session", distinct: 3 });
    expect(distinctFor(s, P)).toBe(3);
    expect(distinctFor(s, "tests/anything.py::test_y")).toBe(3);
  });

  it("counts a parametrized property recorded per case as its largest case, never the sum", () => {
    const s = parseSamples(
      {
        version: 2,
        commit: C,
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
      {
        version: 2,
        commit: C,
        properties: { [P]: { distinct: 2 }, [`${P}[a]`]: { distinct: 50 } },
      },
      "s.json",
    );
    expect(distinctFor(s, P)).toBe(2);
  });

  it.each([
    ["not an object", [1, 2], /must be a JSON object/],
    ["a wrong version", { version: 3, commit: C, properties: {} }, /reads version 2/],
    ["no version and no distinct", { properties: {} }, /reads version 2/],
    [
      "an unknown top-level key",
      { version: 2, commit: C, properties: {}, extra: 1 },
      /unknown key "extra"/,
    ],
    ["no commit", { version: 2, properties: {} }, /the top level lacks "commit"/],
    [
      "a short commit",
      { version: 2, commit: "0123456", properties: {} },
      /"commit" is "0123456", not a full lowercase commit id or null/,
    ],
    [
      "an uppercase commit",
      { version: 2, commit: C.toUpperCase(), properties: {} },
      /not a full lowercase commit id/,
    ],
    [
      "properties not an object",
      { version: 2, commit: C, properties: [] },
      /must be an object of node ids/,
    ],
    [
      "a key that is not a node id",
      { version: 2, commit: C, properties: { "test_x.py": { distinct: 1 } } },
      /not a pytest node id/,
    ],
    [
      "an entry that is a bare number",
      { version: 2, commit: C, properties: { [P]: 12 } },
      /must be an object/,
    ],
    [
      "an entry without distinct",
      { version: 2, commit: C, properties: { [P]: {} } },
      /lacks "distinct"/,
    ],
    [
      "an unknown entry key",
      { version: 2, commit: C, properties: { [P]: { distinct: 1, seen: 2 } } },
      /unknown key "seen"/,
    ],
    [
      "a negative count",
      { version: 2, commit: C, properties: { [P]: { distinct: -1 } } },
      /whole number >= 0/,
    ],
    [
      "a fractional count",
      { version: 2, commit: C, properties: { [P]: { distinct: 2.5 } } },
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

describe("the commit of a samples artifact", () => {
  it("version 1 (no commit) is refused: re-run with the current plugin", () => {
    let error: unknown;
    try {
      parseSamples({ version: 1, properties: { [P]: { distinct: 12 } } }, "s.json");
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(InputError);
    expect((error as Error).message).toBe(
      'samples artifact s.json: "version" is 1, which records no commit, so its counts may come from another commit\'s run; this freezegate reads version 2',
    );
    expect((error as InputError).fix).toBe(
      "re-run the tests on this commit with the current freezegate pytest plugin, which writes version 2 with the commit (or add the commit: see docs/samples-artifact.md)",
    );
  });

  it("a null commit parses (a run outside git says so) but never vouches for HEAD", () => {
    const s = parseSamples({ version: 2, commit: null, properties: {} }, "s.json");
    if (s.kind !== "per-property") throw new Error("expected the per-property format");
    expect(() => requireSamplesAt(s, C)).toThrow(/"commit" is null/);
    expect(() => requireSamplesAt({ ...s, commit: C }, C)).not.toThrow();
    expect(() => requireSamplesAt({ ...s, commit: "f".repeat(64) }, C)).toThrow(
      /recorded at commit ffffffffffff, not at HEAD \(0123456789ab\)/,
    );
  });
});
