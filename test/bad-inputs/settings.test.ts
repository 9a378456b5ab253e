// Bad inputs: settings a patch changes to judge itself more kindly, and a doctor that passed
// data which says nothing about a changed file. A patch must not choose the frozen list, the
// data, the range or the waivers it is judged by; an unfreeze in the frozen list itself it may
// make, in the open. Real git, real pytest-cov data, the built CLI.

import { copyFileSync, renameSync, rmSync } from "node:fs";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPytestCov } from "../helpers/python.js";

const MUL = "tests/test_ops.py::test_mul";
const GONE = "tests/test_ops.py::test_gone";

const OPS_BASE = `def add(a, b):
    return a + b


def sub(a, b):
    return a - b


def mul(a, b):
    return a * b
`;

// The patch rewrites mul: three statements that only the frozen test_mul runs.
const OPS_PATCH = OPS_BASE.replace(
  "    return a * b\n",
  "    product = a * b\n    assert product == b * a\n    return product\n",
);

const TESTS = `from calc.ops import add, mul, sub


def test_add():
    assert add(2, 3) == 5


def test_sub():
    assert sub(3, 2) == 1


def test_mul():
    assert mul(2, 3) == 6
`;

const EMPTY_LEDGER =
  '{"version": 1, "policy": {"blocking": ["shadow"]}, "freezes": [], "properties": []}\n';

let repo: TempRepo;
let mergeBase: string;

/** A branch from `from` (default: the patch) with these files written (null: deleted), committed. */
function branch(name: string, files: Record<string, string | null>, from = "patch"): void {
  repo.git("switch", "-q", "-C", name, from);
  for (const [path, text] of Object.entries(files)) {
    if (text === null) repo.git("rm", "-q", path);
    else repo.write(path, text);
  }
  repo.git("add", "-A");
  repo.git("commit", "-q", "-m", name);
}

function audit(args: string[] = []) {
  return runCli(["audit", "--base", "main", "-q", ...args], { cwd: repo.dir });
}

/** The data with a changed file's rows deleted, as coverage.py writes it once it omits it. */
function dataWithout(name: string, path: string): string {
  const copy = join(repo.dir, name);
  copyFileSync(join(repo.dir, ".coverage"), copy);
  const db = new DatabaseSync(copy);
  const row = db.prepare("SELECT id FROM file WHERE path LIKE ?").get(`%${path}`) as { id: number };
  for (const table of ["line_bits", "arc", "tracer"]) {
    db.prepare(`DELETE FROM ${table} WHERE file_id = ?`).run(row.id);
  }
  db.prepare("DELETE FROM file WHERE id = ?").run(row.id);
  db.close();
  return name;
}

const SHADOWED = "FAIL: 3 changed lines are covered only by frozen tests (shadowed)\n";
const PASSED = "PASS: no changed line fails the gate (fail on: shadowed)\n";
const movedNote = (now: string, then: string) =>
  `freezegate: note: the patch takes the frozen tests from ${now}, where ${mergeBase} took them from ${then}: it is judged by the tests frozen in either (frozen only at ${mergeBase}: ${MUL})\n`;

beforeAll(() => {
  repo = makeTempRepo();
  repo.write("calc/__init__.py", '"""A calculator."""\nVERSION = "1.0"\n');
  repo.write("calc/ops.py", OPS_BASE);
  // test_gone is frozen at the merge base and deleted by the patch, with its entry: an id the
  // data does not have freezes nothing when the merge base's list counts.
  repo.write("tests/test_ops.py", `${TESTS}\n\ndef test_gone():\n    assert mul(1, 1) == 1\n`);
  repo.write(".coveragerc", "[run]\nsource =\n    calc\n    tests\n");
  repo.write(".gitignore", ".coverage\n*.coverage\n");
  repo.write("quarantine.json", `{"frozen": ["${MUL}", "${GONE}"]}\n`);
  repo.commit("base");
  repo.git("switch", "-q", "-c", "patch");
  repo.write("calc/ops.py", OPS_PATCH);
  repo.write("tests/test_ops.py", TESTS);
  repo.write("quarantine.json", `{"frozen": ["${MUL}"]}\n`);
  repo.commit("patch: mul checks itself");
  runPytestCov(repo.dir);
  mergeBase = repo.git("rev-parse", "main").trim().slice(0, 12);
});
afterAll(() => repo.cleanup());

describePython("a patch that changes which tests are frozen", () => {
  it("is judged as it stands when it leaves the list where it was: shadowed", () => {
    repo.git("switch", "-q", "patch");
    const r = audit();
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(SHADOWED);
    expect(r.status).toBe(1);
  });

  it("cannot point the frozen key at an empty list while quarantine.json freezes the test", () => {
    branch("frozen-key", {
      "empty.json": '{"frozen": []}\n',
      "pyproject.toml": '[tool.freezegate]\nfrozen = "empty.json"\n',
    });
    const r = audit();
    expect(r.stdout).toBe(SHADOWED);
    expect(r.stderr).toBe(movedNote("empty.json", "quarantine.json"));
    expect(r.status).toBe(1);
    const doctor = runCli(["doctor", "--base", "main"], { cwd: repo.dir });
    expect(doctor.stdout).toContain(
      `ok    frozen: empty.json: 0 entries resolve to 0 test(s) in the data; ${movedNote("empty.json", "quarantine.json").slice("freezegate: note: ".length, -1)}\n`,
    );
    // --frozen is the CI's word, not the patch's: that list is judged as given.
    const flag = audit(["--frozen", "empty.json"]);
    expect(flag.stdout).toBe(PASSED);
    expect(flag.stderr).toBe("");
  });

  it("cannot point the ledger key at an empty ledger", () => {
    branch("ledger-key", {
      "ledgers/empty.json": EMPTY_LEDGER,
      "pyproject.toml": '[tool.freezegate]\nledger = "ledgers/empty.json"\n',
    });
    const r = audit();
    expect(r.stdout).toBe(SHADOWED);
    expect(r.stderr).toBe(movedNote("ledgers/empty.json", "quarantine.json"));
    expect(r.status).toBe(1);
  });

  it("cannot delete quarantine.json so that discovery finds an empty freeze-ledger.json", () => {
    branch("discovery", { "quarantine.json": null, "freeze-ledger.json": EMPTY_LEDGER });
    const r = audit();
    expect(r.stdout).toBe(SHADOWED);
    expect(r.stderr).toBe(movedNote("freeze-ledger.json", "quarantine.json"));
    expect(r.status).toBe(1);
  });

  it("cannot turn quarantine.json into a symbolic link to an empty list", () => {
    branch("link", { "lists/empty.json": '{"frozen": []}\n', "quarantine.json": null });
    repo.symlink("lists/empty.json", "quarantine.json");
    repo.commit("a link");
    const r = audit();
    expect(r.stdout).toBe(SHADOWED);
    expect(r.stderr).toBe(
      movedNote("quarantine.json (a symbolic link to lists/empty.json)", "quarantine.json"),
    );
    expect(r.status).toBe(1);
  });

  it("may unfreeze a test in the list itself: the run that recorded the data ran it live", () => {
    branch("unfreeze", { "quarantine.json": '{"frozen": []}\n' });
    const r = audit();
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(PASSED);
    expect(r.status).toBe(0);
  });

  it("check: cannot move the ledger to an empty one", () => {
    const freeze = {
      test_id: MUL,
      reason: "fails on the build machines",
      owner: "finley",
      opened: "2026-11-20",
      expires: "2026-12-01",
      invariant: "mul multiplies",
      compensating_property: "tests/test_ops.py::test_add",
      reused_property: true,
    };
    const ledger = JSON.stringify({
      version: 1,
      policy: { blocking: ["shadow"] },
      freezes: [freeze],
      properties: [],
    });
    branch("ledger-base", { "quarantine.json": null, "freeze-ledger.json": ledger }, "main");
    branch("ledger-patch", { "calc/ops.py": OPS_PATCH, "tests/test_ops.py": TESTS }, "ledger-base");
    const check = (args: string[]) =>
      runCli(["check", "--base", "ledger-base", "--today", "2026-11-25", ...args], {
        cwd: repo.dir,
      });
    const before = check(["--format", "json"]);
    expect(before.status, before.stderr).toBe(1);
    branch(
      "ledger-moved",
      {
        "freeze-ledger.json": null,
        "ledgers/empty.json": EMPTY_LEDGER,
        "pyproject.toml": '[tool.freezegate]\nledger = "ledgers/empty.json"\n',
      },
      "ledger-patch",
    );
    const r = check(["--format", "json"]);
    expect(r.stderr).toBe("");
    const report = JSON.parse(r.stdout);
    const shadow = report.gates.find((g: { gate: string }) => g.gate === "shadow");
    expect(shadow.findings.map((f: { code: string }) => f.code)).toEqual([
      "shadowed-line",
      "shadowed-line",
      "shadowed-line",
    ]);
    expect(shadow.notes).toContain(
      `the patch takes the frozen tests from ledgers/empty.json, where the merge base took them from freeze-ledger.json: it is judged by the tests frozen in either (frozen only at the merge base: ${MUL})`,
    );
    expect(r.status).toBe(1);
  });
});

describePython("other settings a patch could judge itself by", () => {
  it("allow-unresolved: a patch cannot waive the frozen ids it leaves behind", () => {
    // The patch renames the frozen test (which then runs live under its new name) and allows
    // the frozen id that no longer names a test.
    branch("renamed", {
      "tests/test_ops.py": TESTS.replace("def test_mul", "def test_mul_exact"),
      "pyproject.toml": "[tool.freezegate]\nallow-unresolved = true\n",
    });
    renameSync(join(repo.dir, ".coverage"), join(repo.dir, "patch.coverage"));
    try {
      runPytestCov(repo.dir);
      renameSync(join(repo.dir, ".coverage"), join(repo.dir, "renamed.coverage"));
    } finally {
      renameSync(join(repo.dir, "patch.coverage"), join(repo.dir, ".coverage"));
    }
    const args = ["--coverage", "renamed.coverage"];
    const line = expectRefusal(audit(args), "frozen-ids-unresolved");
    expect(line).toContain(
      `"${MUL}"; the patch allows unresolved ids (allow-unresolved), the config at ${mergeBase} does not (fix: `,
    );
    expect(line).toMatch(
      /; change allow-unresolved in a patch of its own, or pass --allow-unresolved\)$/,
    );
    const doctor = runCli(["doctor", "--base", "main", ...args], { cwd: repo.dir });
    expect(doctor.stdout).toMatch(/^FAIL {2}frozen: .*the patch allows unresolved ids/m);
    expect(doctor.status).toBe(2);
    // The flag is the CI's word: the stale id is a warning, the renamed test defends mul.
    const flag = audit([...args, "--allow-unresolved"]);
    expect(flag.stdout).toBe(PASSED);
    expect(flag.status).toBe(0);
    rmSync(join(repo.dir, "renamed.coverage"));
  });

  it("coverage: a patch cannot name the data it is judged by", () => {
    // Data of another step of the run, without calc/ops.py: its lines would read unmeasured.
    const partial = dataWithout("partial.coverage", "calc/ops.py");
    const flag = audit(["--coverage", partial]);
    expect(flag.stdout).toBe(PASSED);
    branch("coverage-key", { "pyproject.toml": `[tool.freezegate]\ncoverage = "${partial}"\n` });
    expect(expectOneLineError(audit())).toBe(
      `freezegate: error[patch-changes-pinned-setting]: the patch changes coverage in the repository's config (now ${partial}; no coverage at ${mergeBase}), which names the data the patch is judged by: a patch cannot choose that for itself (fix: change coverage in a patch that changes no audited source file, or pass --coverage)`,
    );
    const doctor = runCli(["doctor", "--base", "main"], { cwd: repo.dir });
    expect(doctor.stdout).toMatch(
      /^FAIL {2}freshness: error\[patch-changes-pinned-setting\]: the patch changes coverage /m,
    );
    expect(doctor.status).toBe(2);
  });

  it("base: a patch cannot move its own code out of the range the config's base gives", () => {
    branch("base-key", { "pyproject.toml": '[tool.freezegate]\nbase = "base-key"\n' }, "main");
    branch("base-patch", { "calc/ops.py": OPS_PATCH, "tests/test_ops.py": TESTS }, "base-key");
    repo.write("quarantine.json", `{"frozen": ["${MUL}"]}\n`);
    repo.commit("unfreeze the deleted test");
    const plain = runCli(["audit", "-q"], { cwd: repo.dir });
    expect(plain.stdout).toBe(SHADOWED);
    // A last commit that makes the range end before the code.
    repo.write("pyproject.toml", '[tool.freezegate]\nbase = "HEAD~1"\n');
    repo.commit("audit the last commit only");
    const head1 = repo.git("rev-parse", "HEAD~1").trim().slice(0, 12);
    expect(expectOneLineError(runCli(["audit", "-q"], { cwd: repo.dir }))).toBe(
      `freezegate: error[patch-changes-pinned-setting]: the patch changes base in the repository's config (now HEAD~1; base-key at ${head1}), which chose the range of commits the patch is judged by: a patch cannot choose that for itself (fix: pass --base REF (the branch the patch merges into))`,
    );
    const flag = runCli(["audit", "-q", "--base", "base-key"], { cwd: repo.dir });
    expect(flag.stdout).toBe(SHADOWED);
  });
});

describePython("doctor on data that lacks a changed source file", () => {
  /** The data with the file's path recorded as bytes that are not UTF-8 ("op\xff.py"). */
  function dataWithBadName(name: string, path: string): string {
    const copy = join(repo.dir, name);
    copyFileSync(join(repo.dir, ".coverage"), copy);
    const db = new DatabaseSync(copy);
    const row = db.prepare("SELECT id, path FROM file WHERE path LIKE ?").get(`%${path}`) as {
      id: number;
      path: string;
    };
    const bytes = Buffer.from(row.path.replace(/ops\.py$/, "op\u0000.py"), "utf8");
    bytes[bytes.indexOf(0)] = 0xff;
    db.prepare("UPDATE file SET path = CAST(? AS TEXT) WHERE id = ?").run(bytes, row.id);
    db.close();
    return name;
  }

  it("warns, naming the file, where the audit reads its lines as unmeasured", () => {
    repo.git("switch", "-q", "patch");
    for (const data of [
      dataWithout("partial.coverage", "calc/ops.py"),
      dataWithBadName("bad-name.coverage", "calc/ops.py"),
    ]) {
      // The audit reads the lines as unmeasured: a pass by default, as documented.
      expect(audit(["--coverage", data]).stdout).toBe(PASSED);
      const doctor = runCli(["doctor", "--base", "main", "--coverage", data], { cwd: repo.dir });
      expect(doctor.stdout).toContain(
        'WARN  freshness: none of the 1 changed source file(s) is in the coverage data: "calc/ops.py"; the audit reads their changed lines as unmeasured, which passes unless --fail-on unmeasured',
      );
      expect(doctor.stdout).toMatch(/^doctor: usable, with warnings$/m);
      expect(doctor.status).toBe(0);
    }
  });

  it("warns when one of several changed source files is not in the data", () => {
    branch("touch-init", { "calc/__init__.py": '"""A calculator."""\nVERSION = "1.1"\n' });
    const partial = dataWithout("partial.coverage", "calc/ops.py");
    const doctor = runCli(["doctor", "--base", "main", "--coverage", partial], { cwd: repo.dir });
    expect(doctor.stdout).toMatch(
      /^WARN {2}freshness: 1 of 2 changed source files are not in the coverage data: "calc\/ops\.py"; the audit reads their changed lines as unmeasured/m,
    );
    expect(doctor.status).toBe(0);
  });
});
