// The order test files start in (test/sequencer.ts): on a fresh clone, where Vitest has no
// record of earlier runs, the longest files of test/durations.json first.

import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { TestSpecification, Vitest } from "vitest/node";
import { REPO_ROOT } from "../helpers/cli.js";
import { LongestFirst } from "../sequencer.js";

const recorded = JSON.parse(
  readFileSync(join(REPO_ROOT, "test", "durations.json"), "utf8"),
) as Record<string, number>;

function spec(path: string): TestSpecification {
  return { moduleId: join(REPO_ROOT, path), project: { name: "" } } as TestSpecification;
}

/** A Vitest with a record of `known` files only (none: a fresh clone). */
function vitestKnowing(known: string[]): Vitest {
  return {
    config: { root: REPO_ROOT },
    cache: {
      getFileTestResults: (key: string) =>
        known.includes(key.slice(1)) ? { duration: 1, failed: false } : undefined,
    },
  } as unknown as Vitest;
}

describe("the order test files start in", () => {
  const longest = Object.entries(recorded)
    .sort((a, b) => b[1] - a[1])
    .map(([path]) => path);
  const files = ["test/unit/new-file.test.ts", longest[2], longest[0], longest[1]].map((p) =>
    spec(p as string),
  );

  it("puts the longest recorded files first and files it does not list after them", async () => {
    expect(recorded[longest[0] as string]).toBeGreaterThan(recorded[longest[2] as string] ?? 0);
    for (const known of [[], [longest[0] as string]]) {
      const order = await new LongestFirst(vitestKnowing(known)).sort(files);
      expect(order.map((s) => s.moduleId)).toEqual(
        [longest[0], longest[1], longest[2], "test/unit/new-file.test.ts"].map((p) =>
          join(REPO_ROOT, p as string),
        ),
      );
    }
  });

  it("lists only test files that exist, with whole seconds", () => {
    for (const [path, seconds] of Object.entries(recorded)) {
      expect(() => readFileSync(join(REPO_ROOT, path)), path).not.toThrow();
      expect(Number.isInteger(seconds) && seconds >= 1, path).toBe(true);
    }
  });
});
