// Inputs that never end or never arrive: a device, a file far larger than any real input, an
// endless pipe on stdin, a named pipe where a file belongs. Each must be refused at once (exit
// 2, one line naming the cause), never read until memory runs out nor waited on for ever, and
// the run must leave the repository as it was. Real git, the bundled example's real coverage
// data, the built binary (bounded in time and memory, so a regression fails instead of hanging).

import { execFileSync } from "node:child_process";
import { truncateSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { useBadInputCase } from "../helpers/refused-run.js";

const bad = useBadInputCase();
const { refused } = bad;

/** A file of `head` followed by zeros up to 300 MiB, sparse: it takes no disk space. */
function hugeFile(name: string, head: string): string {
  const path = bad.scratchFile(name, head);
  truncateSync(path, 300 * 1024 * 1024);
  return path;
}

function fifo(path: string): string {
  execFileSync("mkfifo", [path]);
  return path;
}

describe("a device is refused where a file is needed, not read until memory runs out", () => {
  it("--frozen /dev/zero", async () => {
    await refused(
      ["audit", "--base", "base", "-q", "--frozen", "/dev/zero"],
      /^freezegate: error\[file-not-regular\]: frozen-test file \/dev\/zero is a character device, not a regular file \(fix: /,
    );
  });

  it("ledger check --ledger /dev/zero", async () => {
    await refused(
      ["ledger", "check", "--ledger", "/dev/zero"],
      /^freezegate: error\[file-not-regular\]: ledger \/dev\/zero is a character device, not a regular file \(fix: check --ledger/,
    );
  });

  it.each(["/dev/zero", "/dev/urandom"])(
    "--diff %s, and the fix is a --diff that works",
    async (dev) => {
      const line = await refused(
        ["audit", "--diff", dev, "-q"],
        new RegExp(
          `^freezegate: error\\[file-not-regular\\]: diff file ${dev} is a character device, not a regular file`,
        ),
      );
      expect(line).toContain("| freezegate audit --diff -");
    },
  );
});

describe("an input over 256 MiB is refused by its size, before it is read", () => {
  it("--frozen naming a 300 MiB file", async () => {
    const path = hugeFile("huge-quarantine.json", '{"frozen": [');
    await refused(
      ["audit", "--base", "base", "-q", "--frozen", path],
      /frozen-test file .*huge-quarantine\.json is over 256 MiB \(300 MiB\), the most freezegate reads of one input/,
    );
  });

  it("ledger check --ledger naming a 300 MiB file", async () => {
    const path = hugeFile("huge-ledger.json", '{"version": 1, "freezes": [');
    await refused(
      ["ledger", "check", "--ledger", path],
      /ledger .*huge-ledger\.json is over 256 MiB \(300 MiB\)/,
    );
  });

  it("--diff naming a 300 MiB file", async () => {
    const path = hugeFile("huge.diff", "diff --git a/x.py b/x.py\n");
    await refused(["audit", "--diff", path, "-q"], /diff file .*huge\.diff is over 256 MiB/);
  });

  it("--coverage naming a 300 MiB JSON report: the fix is the SQLite data, never read whole", async () => {
    const path = hugeFile("coverage.json", '{"meta": {');
    const line = await refused(
      ["audit", "--base", "base", "-q", "--coverage", path],
      /coverage report .*coverage\.json is over 256 MiB/,
    );
    expect(line).toContain("pass the .coverage data file (SQLite)");
  });

  it("yes '+x' | freezegate audit --diff -: stdin is read up to the limit, then refused", async () => {
    await refused(
      ["audit", "--diff", "-", "-q"],
      /^freezegate: error\[input-too-large\]: the diff on stdin is over 256 MiB/,
      {
        endlessInput: "+x\n",
      },
    );
  });
});

describe("a named pipe where a file belongs is refused, never waited on", () => {
  it("freeze-ledger.json as a FIFO: audit (the default frozen list) and ledger check", async () => {
    await bad.withoutQuarantine(async () => {
      fifo(bad.repo.path("freeze-ledger.json"));
      await refused(
        ["audit", "--base", "base", "-q"],
        /frozen-test file .*\/freeze-ledger\.json is a named pipe \(FIFO\), not a regular file/,
      );
      await refused(
        ["ledger", "check"],
        /ledger .*\/freeze-ledger\.json is a named pipe \(FIFO\), not a regular file/,
      );
    });
  });

  it("--coverage naming a FIFO", async () => {
    const path = fifo(join(bad.scratch, "coverage-fifo"));
    await refused(
      ["audit", "--base", "base", "-q", "--coverage", path],
      /coverage data .*coverage-fifo is a named pipe \(FIFO\), not a regular file \(fix: pass the \.coverage data file/,
    );
  });

  it("--diff naming a FIFO: the fix pipes it to --diff -", async () => {
    const path = fifo(join(bad.scratch, "diff-fifo"));
    const line = await refused(
      ["audit", "--diff", path, "-q"],
      /diff file .*diff-fifo is a named pipe \(FIFO\), not a regular file/,
    );
    expect(line).toContain("| freezegate audit --diff -");
  });
});
