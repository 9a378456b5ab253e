import { describe, expect, it } from "vitest";
import {
  type Canary,
  type CanaryLine,
  canaryCandidates,
  canaryDiff,
  canaryQuotas,
  judgeCanaries,
  mutateLine,
  seededRandom,
  seededShuffle,
} from "../../src/core/canaries.js";
import type { StatementMap } from "../../src/core/model.js";
import { auditShadow } from "../../src/core/shadow-audit.js";
import { parseDiff } from "../../src/core/unified-diff.js";
import { indexContexts } from "../../src/runners/pytest/contexts.js";
import { buildModuleIndex } from "../../src/runners/pytest/test-root-files.js";

const LIVE = "tests/test_a.py::test_live";
const FROZEN = "tests/test_a.py::test_frozen";
const contexts = indexContexts(
  ["", `${LIVE}|run`, `${LIVE}|setup`, `${FROZEN}|run`],
  buildModuleIndex([]),
);

describe("mutateLine", () => {
  it.each([
    ["    if percent <= 0:", "    if percent > 0:", "comparison"],
    ["    return a == b", "    return a != b", "comparison"],
    ["    if quantity >= 10:", "    if quantity < 10:", "comparison"],
    ["    ok = True", "    ok = False", "boolean"],
    ["    x = a and b", "    x = a or b", "logical"],
    ["VAT_RATE = 20", "VAT_RATE = 21", "constant"],
    ["    return cents - off", "    return None", "return-value"],
    ["    total = a + b", "    total = a - b", "arithmetic"],
  ])("python %j", (text, mutant, mutation) => {
    expect(mutateLine(text, "python")).toEqual({ mutant, mutation });
  });

  it("leaves strings, comments, arrows and shifts alone", () => {
    expect(mutateLine('    log("a < b")  # x == y', "python")).toBeNull();
    expect(mutateLine("def f(x) -> int:", "python")).toBeNull();
    expect(mutateLine("    y = x << 2", "python")).toEqual({
      mutant: "    y = x << 3",
      mutation: "constant",
    });
    expect(mutateLine("const f = (x) => x.y; // a < b", "javascript")).toBeNull();
    expect(mutateLine("  if (a === b && c) {", "javascript")).toEqual({
      mutant: "  if (a !== b && c) {",
      mutation: "comparison",
    });
    expect(mutateLine("  return value;", "javascript")).toEqual({
      mutant: "  return undefined;",
      mutation: "return-value",
    });
  });
});

describe("canaryCandidates", () => {
  // 1, 2, 3-4 (one statement), 6; line 5 blank.
  const statements: StatementMap = {
    statementOf: (line) => (line === 4 ? 3 : line === 5 ? null : line),
  };
  it("sorts statements by who executes them, the statement's lines together", () => {
    const found = canaryCandidates(
      {
        path: "src/a.py",
        lineCount: 7,
        executed: new Map([
          [1, [`${FROZEN}|run`]],
          [2, [`${LIVE}|run`, `${FROZEN}|run`]],
          [3, [`${FROZEN}|run`]],
          [4, [`${LIVE}|run`]], // the statement at 3 is live through its second line
          [6, [`${LIVE}|setup`, `${FROZEN}|run`]], // fixture-only: no kind
          [7, [""]], // import time only: no test
        ]),
        statements,
      },
      contexts,
      new Set([FROZEN]),
    );
    expect(found.map((c) => [c.line, c.kind, c.tests])).toEqual([
      [1, "shadow", [FROZEN]],
      [2, "control", [LIVE]],
      [3, "control", [LIVE]],
      [7, "uncovered", []],
    ]);
  });
});

describe("the sample", () => {
  it("splits max over the kinds and never exceeds it", () => {
    expect(canaryQuotas(30)).toEqual({ shadow: 15, control: 8, uncovered: 7 });
    expect(canaryQuotas(1)).toEqual({ shadow: 1, control: 0, uncovered: 0 });
  });
  it("is the same for the same seed", () => {
    const items = Array.from({ length: 20 }, (_, i) => i);
    expect(seededShuffle(items, seededRandom(3))).toEqual(seededShuffle(items, seededRandom(3)));
    expect(seededShuffle(items, seededRandom(3))).not.toEqual(
      seededShuffle(items, seededRandom(4)),
    );
  });
});

const canary = (over: Partial<CanaryLine>): CanaryLine => ({
  kind: "shadow",
  path: "src/a.py",
  line: 2,
  tests: [FROZEN],
  text: "    return x < 1",
  mutant: "    return x >= 1",
  mutation: "comparison",
  lineBreak: "\n",
  ...over,
});

describe("canaryDiff", () => {
  it("changes each canary's line to its text on disk, one hunk each", () => {
    const diff = canaryDiff([
      canary({ line: 9, lineBreak: "" }),
      canary({}),
      canary({ path: "src/b c.py", line: 1 }),
    ]);
    const parsed = parseDiff(diff, { keepText: true });
    expect(parsed.files.map((f) => [f.path, f.addedLines])).toEqual([
      ["src/a.py", [2, 9]],
      ["src/b c.py", [1]],
    ]);
    expect(parsed.newText?.get("src/a.py")?.get(9)).toBe("    return x < 1");
    expect(diff).toContain("-    return x >= 1\n\\ No newline at end of file\n");
  });
});

describe("judgeCanaries", () => {
  const statements: StatementMap = { statementOf: (line) => line };
  const judge = (canaries: Canary[], frozen: string[], skipped = false) =>
    judgeCanaries(
      canaries,
      auditShadow({
        files: skipped
          ? []
          : [
              {
                change: {
                  path: "src/a.py",
                  oldPath: null,
                  status: "modified",
                  binary: false,
                  submodule: false,
                  addedLines: canaries.map((c) => c.line),
                },
                statements,
                executed: new Map([
                  [2, [`${FROZEN}|run`]],
                  [3, [`${LIVE}|run`]],
                ]),
              },
            ],
        skipped: skipped ? [{ path: "src/a.py", reason: "test-file" }] : [],
        contexts,
        frozen: new Set(frozen),
        failOn: ["shadowed"],
      }),
    );

  it("passes a gate that fires on the shadow canary and not on the control", () => {
    const results = judge([canary({}), canary({ kind: "control", line: 3 })], [FROZEN]);
    expect(results.map((r) => [r.verdict, r.fired, r.ok])).toEqual([
      ["shadowed", true, true],
      ["defended", false, true],
    ]);
  });

  it("says why a shadow canary did not fire", () => {
    const [unfrozen] = judge([canary({})], []);
    expect(unfrozen).toMatchObject({ verdict: "defended", fired: false, ok: false });
    const [skipped] = judge([canary({})], [FROZEN], true);
    expect(skipped).toMatchObject({ verdict: null, skipped: "test-file", ok: false });
    expect(skipped?.reason).toMatch(/takes the file for a test file/);
  });
});
