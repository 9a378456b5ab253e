// Proves the statement finder (analyzePython().statements()) against coverage.py itself: the
// unit cases' expectations are replayed through scripts/statements-oracle.py, and a fixed
// sample of Debian's Python 3.11 standard library is compared line by line. Needs Debian's
// /usr/bin/python3 with coverage.py 6.5 (the interpreter whose data files freezegate reads):
// without it the tests are skipped with a warning locally, and fail under CI=true.

import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { analyzePython } from "../../src/languages/python/statements.js";
import { INVALID_SOURCES, STATEMENT_CASES } from "../fixtures/statements/cases.js";

const PYTHON = process.env.FREEZEGATE_PYTHON ?? "/usr/bin/python3";
const STDLIB = "/usr/lib/python3.11";
const ORACLE = fileURLToPath(new URL("../../scripts/statements-oracle.py", import.meta.url));
const SAMPLE = fileURLToPath(new URL("../fixtures/statements/stdlib-sample.txt", import.meta.url));

/** Why the oracle cannot run here, or null when it can. */
function oracleUnavailable(): string | null {
  const probe = spawnSync(
    PYTHON,
    [
      "-c",
      "import sys, coverage; print(sys.version_info[:2] == (3, 11) and coverage.__version__.startswith('6.5'))",
    ],
    { encoding: "utf8" },
  );
  if (probe.error || probe.status !== 0) {
    return `${PYTHON} with coverage.py is not available (${probe.error?.message ?? probe.stderr.trim()})`;
  }
  if (probe.stdout.trim() !== "True") return `${PYTHON} is not Python 3.11 with coverage.py 6.5`;
  return null;
}

const unavailable = oracleUnavailable();
if (unavailable !== null) {
  console.warn(
    `\n!!! SKIPPING the coverage.py comparison of python-statements: ${unavailable}.` +
      "\n!!! Install Debian's python3 and python3-coverage to run it; CI=true makes this a failure.\n",
  );
}

interface OracleRecord {
  id: string;
  status: "ok" | "skipped";
  lines?: number;
  answers?: (number | null)[];
  reason?: string;
}

function runOracle(args: string[], input: string): Map<string, OracleRecord> {
  const result = spawnSync(PYTHON, [ORACLE, ...args], {
    input,
    encoding: "utf8",
    maxBuffer: 512 * 1024 * 1024,
  });
  if (result.status !== 0) throw new Error(`oracle failed: ${result.stderr}`);
  const records = new Map<string, OracleRecord>();
  for (const line of result.stdout.split("\n")) {
    if (line.trim()) {
      const record = JSON.parse(line) as OracleRecord;
      records.set(record.id, record);
    }
  }
  return records;
}

describe("python-statements against coverage.py", () => {
  if (unavailable !== null) {
    it.runIf(process.env.CI === "true")("needs Debian's python3 with coverage.py under CI", () => {
      expect.fail(unavailable);
    });
    it.skipIf(process.env.CI === "true")("skipped: coverage.py oracle unavailable", () => {});
    return;
  }

  it("the unit cases' expectations are coverage.py's answers", () => {
    const items = [
      ...STATEMENT_CASES.map((c) => ({ id: c.name, text: c.source })),
      ...INVALID_SOURCES.map((c) => ({ id: c.name, text: c.source })),
    ];
    const records = runOracle(["--texts-json", "-"], JSON.stringify(items));
    for (const c of STATEMENT_CASES) {
      const record = records.get(c.name);
      expect(record?.status, c.name).toBe("ok");
      expect(record?.answers, c.name).toEqual(c.coverage ?? c.expected);
    }
    for (const c of INVALID_SOURCES) {
      expect(records.get(c.name)?.status, c.name).toBe("skipped");
    }
  });

  it("agrees on >= 99.9% of the lines of a fixed standard library sample", () => {
    const listed = readFileSync(SAMPLE, "utf8")
      .split("\n")
      .filter((line) => line.trim() && !line.startsWith("#"))
      .map((relative) => join(STDLIB, relative));
    const files = listed.filter((path) => existsSync(path));
    // Fail closed: a sample that mostly vanished would prove nothing.
    expect(files.length).toBeGreaterThanOrEqual(Math.ceil(listed.length * 0.9));

    const records = runOracle(["--files-from", "-"], `${files.join("\n")}\n`);
    let lines = 0;
    let agree = 0;
    let compared = 0;
    const disagreements: string[] = [];
    // As the audit does it: every file tokenized first, the statements asked for afterwards
    // (in reverse), so that each file's tokens must be found again after later files'.
    const analyzed = files.map((file) => ({
      file,
      lines: analyzePython(readFileSync(file, "utf8"), { path: file }),
    }));
    for (const { file, lines: python } of analyzed.reverse()) {
      const record = records.get(file);
      if (record?.status !== "ok" || !record.answers) continue;
      compared++;
      const map = python.statements();
      record.answers.forEach((theirs, i) => {
        lines++;
        const ours = map.statementOf(i + 1);
        if (ours === theirs) agree++;
        else if (disagreements.length < 20) {
          disagreements.push(`${file}:${i + 1}: ours=${ours} coverage.py=${theirs}`);
        }
      });
    }
    const percent = (100 * agree) / lines;
    console.log(
      `python-statements vs coverage.py: ${compared} files, ${lines} lines, ${agree} agree (${percent.toFixed(4)}%)`,
    );
    expect(compared).toBeGreaterThanOrEqual(100);
    expect(lines).toBeGreaterThanOrEqual(40_000);
    expect(percent, disagreements.join("\n")).toBeGreaterThanOrEqual(99.9);
  });
});
