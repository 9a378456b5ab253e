// Bad inputs whose refusal must name the real cause: a message that blames something else (the
// JSON syntax of a UTF-16 file, an "ambiguous" argument that is a negative number, a missing
// file that is a dangling link) sends the user to fix what is not broken. Each case: exit 2,
// one line naming the cause, not the wrong one, and the repository as it was. Real git, the
// bundled example's real coverage data, the built binary.

import { execFileSync } from "node:child_process";
import { chmodSync, existsSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RUNNING_AS_ROOT } from "../helpers/bounded-cli.js";
import { isolatedGitEnv } from "../helpers/git-repo.js";
import { useBadInputCase } from "../helpers/refused-run.js";

const FROZEN = "tests/test_billing.py::test_proration_rounds_half_up";
const LIVE = "tests/test_billing.py::test_prorate_full_period";

const bad = useBadInputCase();
const { scratchFile } = bad;

/** Refused for `cause`, and the line does not name the `wrong` one. */
const refused = (args: string[], cause: RegExp, wrong: RegExp, opts = { unprivileged: false }) =>
  bad.refused(args, cause, { wrong, ...opts });

const freeze = {
  test_id: FROZEN,
  reason: "fails on the CI runners' time zone",
  owner: "finley",
  opened: "2026-10-12",
  expires: "2026-10-26",
  invariant: "a prorated amount never exceeds the full amount",
  compensating_property: LIVE,
  reused_property: true,
};

describe("encodings and formats are named as what they are", () => {
  it("a frozen list saved as UTF-16 names the encoding, not the JSON syntax", async () => {
    const text = `{"frozen": ["${FROZEN}"]}\n`;
    const path = scratchFile(
      "quarantine-utf16.json",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, "utf16le")]),
    );
    await refused(
      ["audit", "--base", "base", "-q", "--frozen", path],
      /frozen-test file .*quarantine-utf16\.json is UTF-16 text; JSON is read as UTF-8 \(fix: save it as UTF-8/,
      /fix the JSON syntax/,
    );
  });

  it("a diff saved as UTF-16 (Windows PowerShell's `git diff > patch.diff`) names the encoding", async () => {
    const diff = bad.repo.git("diff", "base...HEAD");
    const path = scratchFile(
      "utf16.diff",
      Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(diff, "utf16le")]),
    );
    await refused(
      ["audit", "--diff", path, "-q"],
      /error\[diff-wide-encoding\]: the diff file .*utf16\.diff is UTF-16 text; .* \(fix: write the diff as UTF-8/,
      /not a unified diff/,
    );
  });

  it('a ledger that lost its "version" says so, not "unknown key policy"', async () => {
    const path = scratchFile(
      "no-version.json",
      JSON.stringify({ policy: { max_window_days: 14 }, freezes: [freeze], properties: [] }),
    );
    await refused(
      ["ledger", "check", "--ledger", path],
      /no-version\.json: \$ has "policy" and "freezes" but no "version" .*\(fix: add "version": 1\)/,
      /unknown key/,
    );
  });

  it('"distinct": 1e400 in the samples artifact is a number too large, not null', async () => {
    const ledger = scratchFile(
      "ledger.json",
      JSON.stringify({ version: 1, policy: {}, freezes: [freeze], properties: [] }),
    );
    const head = bad.repo.git("rev-parse", "HEAD").trim();
    // JSON.stringify cannot write 1e400: the text is written as a user would.
    const samples = scratchFile(
      "samples.json",
      `{"version": 2, "commit": "${head}", "properties": {"${LIVE}": {"distinct": 1e400}}}`,
    );
    await refused(
      ["deposit", "check", "--base", "base", "--ledger", ledger, "--samples", samples],
      /\.distinct must be a whole number >= 0, not a number too large to hold \(it reads as Infinity\)/,
      /not null/,
    );
  });
});

describe("files that are not what they seem", () => {
  it("a dangling freeze-ledger.json link is named as one, not as no frozen list", async () => {
    await bad.withoutQuarantine(async () => {
      symlinkSync("missing.json", bad.repo.path("freeze-ledger.json"));
      const wrong = /neither .* is in the repository root|ledger not found/;
      const cause =
        /freeze-ledger\.json is a symbolic link to missing\.json, which does not exist \(fix: point the link at the file/;
      await refused(["audit", "--base", "base", "-q"], cause, wrong);
      await refused(["ledger", "check"], cause, wrong);
    });
  });

  it("an unreadable .coverage says it cannot be read and why, not to re-run the tests", async () => {
    // Root reads any file: the run is then made as nobody, who must reach the repository.
    if (RUNNING_AS_ROOT && !existsSync("/usr/bin/setpriv")) {
      throw new Error("running as root without setpriv: cannot make a file unreadable");
    }
    chmodSync(bad.repo.dir, 0o755);
    chmodSync(bad.repo.path(".coverage"), 0o000);
    try {
      await refused(
        ["audit", "--base", "base", "-q"],
        /cannot read coverage data file .*\/\.coverage: permission denied \(fix: make the file .* readable by the user running freezegate/,
        /re-run the tests/,
        { unprivileged: true },
      );
    } finally {
      chmodSync(bad.repo.path(".coverage"), 0o644);
    }
  });

  it("--test-root naming a file says it is not a directory (no bare ENOTDIR)", async () => {
    await refused(
      ["audit", "--base", "base", "-q", "--test-root", "conftest.py"],
      /error\[bad-test-root\]: --test-root "conftest\.py" is a file, not a directory \(fix: give pytest's rootdir/,
      /ENOTDIR/,
    );
  });
});

describe("a negative number is a value, refused for what it is", () => {
  const FREEZE_FLAGS = ["--owner", "o", "--reason", "r", "--invariant", "i", "--property", LIVE];
  it.each([
    [["extend", FROZEN, "--days", "-3"], /error\[bad-count\]: --days "-3" is not a whole number/],
    [
      ["freeze", FROZEN, "--days", "-3", ...FREEZE_FLAGS],
      /error\[bad-count\]: --days "-3" is not a whole number/,
    ],
    [
      ["stats", "--stale-runs", "-1"],
      /error\[bad-count\]: --stale-runs "-1" is not a whole number/,
    ],
  ])("%j", async (args, cause) => {
    await refused(args, cause, /ambiguous/);
  });
});

describe("a changed path that is not UTF-8: refused with a fix that works", () => {
  const name = Buffer.from("src/billing/caf\xe9.py", "latin1");
  let diffs: { quoted: string; unquoted: string };

  beforeAll(() => {
    bad.repo.git("checkout", "-q", "-b", "latin1-name");
    writeFileSync(Buffer.concat([Buffer.from(`${bad.repo.dir}/`), name]), "RATE = 1\n");
    bad.repo.commit("a module whose name is Latin-1");
    const diff = (...config: string[]) =>
      execFileSync("git", [...config, "diff", "base...HEAD"], {
        cwd: bad.repo.dir,
        env: isolatedGitEnv(),
      });
    diffs = {
      // git's default: the name's bytes written as octal escapes in a quoted path.
      quoted: scratchFile("quoted.diff", diff()),
      // core.quotePath=false: the raw bytes.
      unquoted: scratchFile("unquoted.diff", diff("-c", "core.quotePath=false")),
    };
    expect(readFileSync(diffs.quoted, "latin1")).toContain('"b/src/billing/caf\\351.py"');
  });
  afterAll(() => {
    bad.repo.git("checkout", "-q", "main");
  });

  const notUtf8 = /is not valid UTF-8 \(fix: rename the file to a name that is valid UTF-8/;

  it("in a user's --diff as git quotes it, the path is blamed, not the diff's shape", async () => {
    await refused(["audit", "--diff", diffs.quoted, "-q"], notUtf8, /exactly as `git diff`/);
  });

  it("in a user's --diff written unquoted, the path is blamed, not the work tree", async () => {
    const line = await refused(
      ["audit", "--diff", diffs.unquoted, "-q"],
      notUtf8,
      /not in the work tree/,
    );
    expect(line).toMatch(/^freezegate: error\[diff-path-not-utf8\]: /);
  });

  it("in a range, the fix does not send the user to a --diff that is refused too", async () => {
    await refused(["audit", "--base", "base", "-q"], notUtf8, /--diff/);
  });
});
