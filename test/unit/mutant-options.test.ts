// The flags of `impact --mutants`, refused before any data is read, and the progress a mutant
// run writes on stderr: one line rewritten on a terminal, a line every 5 s at most in a log.

import { describe, expect, it } from "vitest";
import {
  progressText,
  progressWriter,
  resolveMutantOptions,
} from "../../src/cli/mutant-options.js";

const codeOf = (f: () => unknown) => {
  try {
    f();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return "no error";
};

describe("resolveMutantOptions", () => {
  it("is null without --mutants, and refuses its flags alone", () => {
    expect(resolveMutantOptions({}, {})).toBeNull();
    expect(codeOf(() => resolveMutantOptions({ jobs: "2" }, {}))).toBe("mutants-option-alone");
    expect(codeOf(() => resolveMutantOptions({ run: "pytest" }, {}))).toBe("mutants-option-alone");
    expect(codeOf(() => resolveMutantOptions({ max: "3" }, {}))).toBe("mutants-option-alone");
  });

  it("lets a command keep a flag of its own that --mutants reads too (calibrate's --max)", () => {
    expect(resolveMutantOptions({ max: "3" }, {}, ["max"])).toBeNull();
    expect(codeOf(() => resolveMutantOptions({ max: "3", jobs: "2" }, {}, ["max"]))).toBe(
      "mutants-option-alone",
    );
    expect(
      resolveMutantOptions({ mutants: true, run: "pytest", max: "3" }, {}, ["max"]),
    ).toMatchObject({ max: 3 });
  });

  it("needs --run, and whole counts", () => {
    expect(codeOf(() => resolveMutantOptions({ mutants: true }, {}))).toBe("mutants-need-run");
    expect(codeOf(() => resolveMutantOptions({ mutants: true, run: "  " }, {}))).toBe(
      "mutants-need-run",
    );
    const bad = { mutants: true, run: "pytest" };
    expect(codeOf(() => resolveMutantOptions({ ...bad, jobs: "0" }, {}))).toBe("bad-count");
    expect(codeOf(() => resolveMutantOptions({ ...bad, timeout: "1.5" }, {}))).toBe("bad-count");
    expect(codeOf(() => resolveMutantOptions({ ...bad, max: "x" }, {}))).toBe("bad-count");
  });

  it("defaults: one job, the timeout from the unchanged run, 30 mutants, FREEZEGATE_PYTHON or python3", () => {
    const run = { mutants: true, run: "python3 -m pytest" };
    expect(resolveMutantOptions(run, {})).toEqual({
      command: "python3 -m pytest",
      jobs: 1,
      timeoutSeconds: null,
      max: 30,
      python: "python3",
    });
    expect(resolveMutantOptions(run, { FREEZEGATE_PYTHON: "/usr/bin/python3" })?.python).toBe(
      "/usr/bin/python3",
    );
    expect(
      resolveMutantOptions(
        { ...run, python: "py", jobs: "2", timeout: "7", max: "4" },
        { FREEZEGATE_PYTHON: "other" },
      ),
    ).toMatchObject({ python: "py", jobs: 2, timeoutSeconds: 7, max: 4 });
  });
});

describe("progress", () => {
  const step = (done: number) => ({ stage: "mutants" as const, done, total: 10, path: "app/a.py" });

  it("says the mutants done, the file and the time left", () => {
    expect(progressText(step(0), 0)).toBe("mutants: 0 of 10 done, app/a.py");
    expect(progressText(step(4), 8000)).toBe("mutants: 4 of 10 done, app/a.py, about 12 s left");
    expect(progressText(step(10), 8000)).toBe("mutants: 10 of 10 done, app/a.py");
    expect(progressText(step(1), 60_000)).toBe("mutants: 1 of 10 done, app/a.py, about 9 min left");
  });

  const writer = (isTTY: boolean) => {
    let clock = 0;
    const written: string[] = [];
    const stderr = { isTTY, write: (s: string) => written.push(s) > 0 };
    const w = progressWriter({ stderr } as never, () => clock);
    return {
      written,
      at(t: number, done: number) {
        clock = t;
        w.onProgress(step(done));
      },
      end: w.end,
    };
  };

  it("rewrites one line on a terminal, and clears it at the end", () => {
    const w = writer(true);
    w.at(0, 0);
    w.at(100, 1);
    w.end();
    expect(w.written).toEqual([
      "\r\u001b[Kfreezegate: mutants: 0 of 10 done, app/a.py",
      "\r\u001b[Kfreezegate: mutants: 1 of 10 done, app/a.py, about 1 s left",
      "\r\u001b[K",
    ]);
  });

  it("writes whole lines elsewhere, the first after 5 s, then one every 5 s at most", () => {
    const w = writer(false);
    w.at(0, 0);
    w.at(1000, 1);
    w.at(4999, 2);
    w.at(5000, 3);
    w.at(9000, 4);
    w.at(10_000, 5);
    w.end();
    expect(w.written).toEqual([
      "freezegate: mutants: 3 of 10 done, app/a.py, about 12 s left\n",
      "freezegate: mutants: 5 of 10 done, app/a.py, about 10 s left\n",
    ]);
  });
});
