// npm `engines` ranges, as init vitest reads Vitest's and freezegate's to judge the Node.js.

import { describe, expect, it } from "vitest";
import { versionInRange } from "../../src/core/version-range.js";

describe("versionInRange", () => {
  it.each([
    ["^22.13.0 || >=24.0.0", "22.13.0", true],
    ["^22.13.0 || >=24.0.0", "22.12.9", false],
    ["^22.13.0 || >=24.0.0", "23.11.1", false],
    ["^22.13.0 || >=24.0.0", "26.1.0", true],
    ["^20.19.0 || >=22.12.0", "20.20.2", true],
    ["^20.19.0 || >=22.12.0", "21.0.0", false],
    ["^18.0.0 || ^20.0.0 || >=22.0.0", "19.9.0", false],
    ["^0.2.3", "0.2.9", true],
    ["^0.2.3", "0.3.0", false],
    ["~1.2.3", "1.2.9", true],
    ["~1.2.3", "1.3.0", false],
    ["1.2.x", "1.2.7", true],
    [">1.2", "1.2.9", false],
    [">1.2", "1.3.0", true],
    ["<=1.2", "1.2.99", true],
    [">= 18 < 21", "20.1.0", true],
    ["1.2 - 2", "2.9.9", true],
    ["1.2 - 2", "3.0.0", false],
    ["*", "5.0.0", true],
  ])("%s has %s: %s", (range, version, expected) => {
    expect(versionInRange(version, range)).toBe(expected);
  });

  it("does not judge what it does not read", () => {
    expect(versionInRange("22.0.0", ">=22.0.0-rc.1")).toBeNull();
    expect(versionInRange("22.0.0", "latest")).toBeNull();
  });
});
