// Tests that stop gating outside the ledger. A patch's
// conftest.py (a test file, never audited) can mute the test it breaks with pytest's own
// xfail marker, or deselect a test a glob freeze matches: either way no freeze changed, pytest
// exits 0, and the gate read the muted test as live (exit 0) or the deselected test's lines as
// "uncovered" (exit 0). The plugin's applied record now names both; check counts the muted
// tests as frozen and refuses deselected frozen ones. Real git, real pytest + pytest-cov + the
// plugin on examples/python-ledger, and the built CLI.

import { copyFileSync, cpSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectRefusal, REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, runPython } from "../helpers/python.js";

const EXAMPLE = join(REPO_ROOT, "examples/python-ledger");
const PLUGIN = join(REPO_ROOT, "integrations/pytest");
const TODAY = "2026-10-18";
const STATEMENT = "tests/test_ledger.py::test_statement_lists_entries";

let repo: TempRepo;

/** The CI recipe's test step: pytest with the plugin and per-test coverage contexts. */
function pytest(
  append = false,
  env: Record<string, string> = {},
): { status: number; output: string } {
  if (!append) rmSync(repo.path(".coverage"), { force: true });
  if (!append) rmSync(repo.path(".freezegate"), { recursive: true, force: true });
  const r = runPython(
    [
      "-m",
      "pytest",
      "-q",
      "-p",
      "no:cacheprovider",
      "--cov",
      "--cov-context=test",
      "--cov-report=",
      ...(append ? ["--cov-append"] : []),
      "--freezegate-today",
      TODAY,
    ],
    { cwd: repo.dir, env: { PYTHONPATH: PLUGIN, ...env } },
  );
  return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
}

/** The CI recipe's gate step. */
function check(extra: string[] = []) {
  return runCli(
    [
      "check",
      "--base",
      "main",
      "--today",
      TODAY,
      "--samples",
      ".freezegate/samples.json",
      ...extra,
    ],
    { cwd: repo.dir },
  );
}

function shadowNotes(): string[] {
  const r = check(["--format", "json"]);
  expect(r.stderr).toBe("");
  const report = JSON.parse(r.stdout);
  return report.gates.find((g: { gate: string }) => g.gate === "shadow").notes;
}

function record(): { muted: string[]; deselected_frozen: string[]; applied: string[] } {
  return JSON.parse(readFileSync(repo.path(".freezegate/applied.json"), "utf8"));
}

/** A branch off `from` whose patch changes Ledger.statement(), which one test runs. */
function statementPatch(name: string, from = "main"): void {
  repo.git("switch", "-q", "-c", name, from);
  copyFileSync(
    join(EXAMPLE, "stories/3-shadowed-change/app/ledger.py"),
    repo.path("app/ledger.py"),
  );
}

const XFAIL_CONFTEST = `import pytest


def pytest_collection_modifyitems(items):
    for item in items:
        if item.name == "test_statement_lists_entries":
            item.add_marker(pytest.mark.xfail(reason="format change, follow-up"))
`;

const DESELECT_CONFTEST = `def pytest_collection_modifyitems(config, items):
    gone = [i for i in items if "statement_lists" in i.nodeid]
    if gone:
        config.hook.pytest_deselected(items=gone)
        items[:] = [i for i in items if i not in gone]
`;

describePython("tests muted or deselected outside the ledger", () => {
  beforeAll(() => {
    repo = makeTempRepo();
    cpSync(join(EXAMPLE, "project"), repo.dir, { recursive: true });
    cpSync(join(EXAMPLE, "stories/1-honest-freeze"), repo.dir, { recursive: true });
    repo.write(".gitignore", ".coverage\n.freezegate/\n");
    repo.commit("the ledger service with story 1's honest freeze");
  });
  afterAll(() => repo?.cleanup());

  it("a test the patch's conftest.py mutes with xfail counts as frozen: its lines are shadowed, exit 1", () => {
    statementPatch("xfail-conftest");
    repo.commit("change statement()");
    // The honest patch: the test it breaks fails the job.
    expect(pytest().status).toBe(1);

    repo.write("tests/conftest.py", XFAIL_CONFTEST);
    repo.commit("mute the statement test until the follow-up");
    const run = pytest();
    expect(run.status, run.output).toBe(0);
    expect(record().muted).toEqual([STATEMENT]);
    expect(record().applied).toEqual(["tests/test_ledger.py::test_withdraw_more_than_balance"]);

    // Before: exit 0, "app/ledger.py: 5 defended", no note.
    const r = check();
    expect(r.stderr).toBe("");
    expect(r.status, r.stdout).toBe(1);
    expect(r.stdout).toContain("app/ledger.py: 5 shadowed");
    expect(r.stdout).toContain(`SHADOWED 41-45: only frozen tests cover it: ${STATEMENT}`);
    expect(shadowNotes()).toContain(
      `1 test(s) muted by an xfail outside the ledger count as frozen (their failures cannot fail the run; the applied record .freezegate/applied.json): ${STATEMENT}`,
    );
    // Without --samples too: the record is at its default place.
    const bare = runCli(["check", "--base", "main", "--today", TODAY], { cwd: repo.dir });
    expect(bare.stdout).toContain(`SHADOWED 41-45: only frozen tests cover it: ${STATEMENT}`);
  });

  it("a record that pytest's settings put elsewhere (freezegate_record) is read there", () => {
    repo.git("switch", "-q", "-c", "record-elsewhere", "xfail-conftest");
    const ini = readFileSync(repo.path("pytest.ini"), "utf8");
    repo.write("pytest.ini", `${ini}freezegate_record = build/applied.json\n`);
    repo.commit("the record goes to build/");
    rmSync(repo.path("build"), { recursive: true, force: true });
    expect(pytest().status).toBe(0);
    expect(JSON.parse(readFileSync(repo.path("build/applied.json"), "utf8")).muted).toEqual([
      STATEMENT,
    ]);
    // Before: no record beside the samples, so the mute went unseen: exit 0.
    const r = check();
    expect(r.stdout).toContain(`SHADOWED 41-45: only frozen tests cover it: ${STATEMENT}`);
    expect(r.status).toBe(1);
  });

  it("a record moved on pytest's command line, where check cannot see it, is exit 2", () => {
    repo.git("switch", "-q", "-c", "record-on-command-line", "xfail-conftest");
    rmSync(repo.path(".coverage"), { force: true });
    rmSync(repo.path(".freezegate"), { recursive: true, force: true });
    const run = runPython(
      [
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--cov",
        "--cov-context=test",
        "--cov-report=",
        "--freezegate-today",
        TODAY,
        "--freezegate-record",
        "elsewhere/applied.json",
      ],
      { cwd: repo.dir, env: { PYTHONPATH: PLUGIN } },
    );
    expect(run.status, run.stdout).toBe(0);
    // Before: no record beside the samples, the mute unseen, exit 0.
    expect(expectRefusal(check(), "applied-record-missing")).toMatch(
      /^the samples artifact \.freezegate\/samples\.json is from .* no applied record of that run is at \.freezegate\/applied\.json: /,
    );
    // Samples that do not name their writer (an older plugin) cannot be told from hand-written
    // ones: no refusal, but the shadow gate says the record's checks did not run.
    const samples = JSON.parse(readFileSync(repo.path(".freezegate/samples.json"), "utf8"));
    expect(samples.tool).toBe("pytest-freezegate");
    delete samples.tool;
    repo.write(".freezegate/samples.json", JSON.stringify(samples));
    expect(shadowNotes()).toContain(
      'the samples artifact .freezegate/samples.json names no writer ("tool") and no applied record of this commit\'s run was found, so what the run muted and deselected is not checked: update the freezegate pytest plugin (samples from another writer may name it in "tool")',
    );
  });

  it("samples moved on pytest's command line: the record at its default place is read", () => {
    repo.git("switch", "-q", "-c", "samples-elsewhere", "xfail-conftest");
    rmSync(repo.path(".coverage"), { force: true });
    rmSync(repo.path(".freezegate"), { recursive: true, force: true });
    const run = runPython(
      [
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "--cov",
        "--cov-context=test",
        "--cov-report=",
        "--freezegate-today",
        TODAY,
        "--freezegate-samples",
        "out/samples.json",
      ],
      { cwd: repo.dir, env: { PYTHONPATH: PLUGIN } },
    );
    expect(run.status, run.stdout).toBe(0);
    // An older run's record left beside the moved samples is not this run's: passed over.
    const record = JSON.parse(readFileSync(repo.path(".freezegate/applied.json"), "utf8"));
    repo.write("out/applied.json", JSON.stringify({ ...record, commit: "0".repeat(40) }));
    const r = runCli(
      ["check", "--base", "main", "--today", TODAY, "--samples", "out/samples.json"],
      { cwd: repo.dir },
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(`SHADOWED 41-45: only frozen tests cover it: ${STATEMENT}`);
    expect(r.status).toBe(1);
  });

  it("an ordinary xfail (a known bug) is no refusal: the change its live tests defend passes, exit 0", () => {
    repo.git("switch", "-q", "-c", "known-bug", "main");
    const ledger = readFileSync(repo.path("app/ledger.py"), "utf8");
    repo.write(
      "app/ledger.py",
      ledger.replace(
        "return (self._balance, tuple(self._entries))",
        "return self._balance, tuple(self._entries)",
      ),
    );
    repo.write(
      "tests/test_known_bug.py",
      "import pytest\n\nfrom app.ledger import Ledger\n\n\n@pytest.mark.xfail(reason=\"statement() drops the currency\")\ndef test_statement_names_the_currency():\n    assert 'EUR' in Ledger(5).statement()[-1]\n",
    );
    repo.commit("snapshot() without parentheses; record a known bug");
    const run = pytest();
    expect(run.status, run.output).toBe(0);
    const known = "tests/test_known_bug.py::test_statement_names_the_currency";
    expect(record().muted).toEqual([known]);

    const r = check();
    expect(r.stderr).toBe("");
    expect(r.status, r.stdout).toBe(0);
    expect(r.stdout).toContain("app/ledger.py: 1 defended");
    expect(shadowNotes()).toContain(
      `1 test(s) muted by an xfail outside the ledger count as frozen (their failures cannot fail the run; the applied record .freezegate/applied.json): ${known}`,
    );
  });

  it("a last witness the patch mutes with xfail or skips leaves its properties orphaned, exit 1", () => {
    // The ledger did not change, so the witness gate was skipped, and with --always
    // it read the muted or skipped witness as live: check passed.
    const rejected = "tests/test_ledger.py::test_overdraft_rejected";
    const conftest = (body: string) =>
      `import pytest\n\n\n${body.replace("ID", JSON.stringify(rejected))}`;
    const marker = (mark: string) =>
      conftest(
        `def pytest_collection_modifyitems(items):\n    for item in items:\n        if item.nodeid == ID:\n            item.add_marker(pytest.mark.${mark})\n`,
      );
    // pytest.skip() in the body: pytest-cov records the body's run phase all the same.
    const inBody = conftest(
      "def pytest_runtest_call(item):\n    if item.nodeid == ID:\n        pytest.skip('flaky')\n",
    );
    for (const [name, text] of [
      ["xfail", marker("xfail(reason='flaky', strict=False)")],
      ["skip", marker("skip(reason='flaky')")],
      ["skip in the body", inBody],
    ] as const) {
      repo.git("switch", "-q", "-C", "quiet-witness", "main");
      repo.write("tests/conftest.py", text);
      repo.commit(`${name}: the last witness`);
      const run = pytest();
      expect(run.status, run.output).toBe(0);
      const r = check(["--format", "json"]);
      expect(r.stderr).toBe("");
      const report = JSON.parse(r.stdout);
      const witness = report.gates.find((g: { gate: string }) => g.gate === "witness");
      const why =
        name === "xfail" ? "is muted by an xfail outside the ledger" : "was skipped in the run";
      expect(witness.findings.map((f: { message: string }) => f.message)).toEqual([
        `property prop.ledger.balance_non_negative has no live witness left: ${rejected} ${why}, tests/test_ledger.py::test_withdraw_more_than_balance is frozen`,
        `property prop.ledger.rejected_is_noop has no live witness left: ${rejected} ${why}`,
      ]);
      expect(witness.notes[0]).toBe(
        `the ledger freeze-ledger.json did not change in main...HEAD, but the run muted or skipped ${rejected}: judged`,
      );
      expect(report.exitCode).toBe(1);
      expect(r.status).toBe(1);
    }
  });

  it("deleting a property while its renamed witness is skipped fails; deleting it with its test passes", () => {
    // The property was left out as "deleted with all its witness tests" unless the
    // patch added a freeze, so a renamed witness silenced by a skip passed, while an honest
    // clean-up beside an unrelated freeze failed.
    const witness = "tests/test_statement.py::test_statement_ends_with_balance";
    const ledgerWith = (edit: (doc: { properties: object[]; freezes: object[] }) => void) => {
      const doc = JSON.parse(readFileSync(repo.path("freeze-ledger.json"), "utf8"));
      edit(doc);
      repo.write("freeze-ledger.json", `${JSON.stringify(doc, null, 2)}\n`);
    };
    repo.git("switch", "-q", "-C", "statement-property", "main");
    // An old platform skip in the same file is no renamed witness.
    const crlf =
      "\n\n@pytest.mark.skip(reason='windows only')\ndef test_statement_crlf():\n    assert False\n";
    repo.write(
      "tests/test_statement.py",
      `import pytest\n\nfrom app.ledger import Ledger\n\n\ndef test_statement_ends_with_balance():\n    assert Ledger(5).statement()\n${crlf}`,
    );
    ledgerWith((doc) =>
      doc.properties.push({
        id: "prop.statement.ends_with_balance",
        check: "tests/properties/test_ledger.py::test_balance_never_negative",
        witnessed_by: [witness],
        invariant: "a statement ends with the balance",
      }),
    );
    repo.commit("a property of statements");
    const witnessGate = () => {
      const r = runCli(
        ["check", "--base", "statement-property", "--today", TODAY, "--format", "json"],
        { cwd: repo.dir },
      );
      expect(r.stderr).toBe("");
      return JSON.parse(r.stdout).gates.find((g: { gate: string }) => g.gate === "witness");
    };
    const dropProperty = () =>
      ledgerWith((doc) => {
        doc.properties = doc.properties.filter(
          (p) => (p as { id: string }).id !== "prop.statement.ends_with_balance",
        );
      });

    repo.git("switch", "-q", "-C", "rename-and-skip", "statement-property");
    const renamed = `${witness}_v2`;
    repo.write(
      "tests/test_statement.py",
      `import pytest\n\nfrom app.ledger import Ledger\n\n\n@pytest.mark.skip(reason='flaky')\ndef test_statement_ends_with_balance_v2():\n    assert Ledger(5).statement()\n${crlf}`,
    );
    dropProperty();
    repo.commit("drop the statement property; the renamed test is skipped");
    expect(pytest().status).toBe(0);
    expect(record()).toMatchObject({
      skipped: ["tests/test_statement.py::test_statement_crlf", renamed],
    });
    const sneaky = witnessGate();
    expect(sneaky.findings.map((f: { message: string }) => f.message)).toEqual([
      `the patch deletes property prop.statement.ends_with_balance and its witness tests (${witness}), and the run freezes, skips or mutes tests/test_statement.py::test_statement_crlf, ${renamed} while the patch changes their test files or a test helper in more than deletions: one of them may be a witness renamed or moved, which leaves the property without a live witness; delete the property in a patch of its own, and its tests in a later one`,
    ]);
    expect(sneaky.passed).toBe(false);

    repo.git("switch", "-q", "-C", "clean-up", "statement-property");
    repo.write("tests/test_statement.py", `import pytest\n${crlf}`);
    dropProperty();
    ledgerWith((doc) => {
      const [first] = doc.freezes as { test_id: string }[];
      doc.freezes.push({
        ...first,
        test_id: "tests/test_ledger.py::test_deposit_increases_balance",
      });
    });
    repo.commit("drop the statement feature; freeze a flaky deposit test");
    expect(pytest().status).toBe(0);
    const honest = witnessGate();
    expect(honest.findings).toEqual([]);
    expect(honest.passed).toBe(true);
  });

  it("a witness the first of two merged runs skipped and the second ran stays live", () => {
    // Pytest's --runslow recipe as two runs with --cov-append (fast tests, then
    // the slow ones) failed every patch, the merged record listing the witness as skipped.
    const rejected = "tests/test_ledger.py::test_overdraft_rejected";
    repo.git("switch", "-q", "-C", "two-runs", "main");
    repo.write(
      "tests/conftest.py",
      `import os\nimport pytest\n\n\ndef pytest_collection_modifyitems(items):\n    for item in items:\n        if os.environ.get("SKIP_SLOW") and item.nodeid == "${rejected}":\n            item.add_marker(pytest.mark.skip(reason="slow"))\n`,
    );
    repo.commit("the witness is slow");
    expect(pytest(false, { SKIP_SLOW: "1" }).status).toBe(0);
    expect(record()).toMatchObject({ skipped: [rejected] });
    const second = pytest(true);
    expect(second.status, second.output).toBe(0);
    expect(record()).toMatchObject({ skipped: [] });
    const r = check(["--always"]);
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain("witness gate: passed");
    expect(r.status).toBe(0);
    // Skipped alone, it witnesses nothing.
    expect(pytest(false, { SKIP_SLOW: "1" }).status).toBe(0);
    expect(check(["--always"]).status).toBe(1);
  });

  it("a record without the skipped list (an older plugin) is named in the witness gate's notes", () => {
    // A skipped last witness then passed with no word of it.
    repo.git("switch", "-q", "-C", "old-record", "main");
    expect(pytest().status).toBe(0);
    const path = repo.path(".freezegate/applied.json");
    const { skipped: _skipped, ...older } = JSON.parse(readFileSync(path, "utf8"));
    writeFileSync(path, `${JSON.stringify(older, null, 2)}\n`);
    const r = check(["--always", "--format", "json"]);
    expect(r.stderr).toBe("");
    const witness = JSON.parse(r.stdout).gates.find((g: { gate: string }) => g.gate === "witness");
    expect(witness.notes).toContain(
      "the applied record .freezegate/applied.json does not list skipped tests (a plugin older than this freezegate), so a skipped witness is not judged: update the freezegate pytest plugin",
    );
  });

  it("a conftest.py that deselects a test a glob freeze matches: exit 2 (it left no coverage)", () => {
    // The merge base freezes the statement tests by glob.
    repo.git("switch", "-q", "-c", "glob-base", "main");
    const ledger = readFileSync(
      join(EXAMPLE, "stories/3-shadowed-change/freeze-ledger.json"),
      "utf8",
    );
    expect(ledger).toContain(`"${STATEMENT}"`);
    repo.write(
      "freeze-ledger.json",
      ledger.replace(`"${STATEMENT}"`, '"tests/test_ledger.py::test_statement_*"'),
    );
    const tests = readFileSync(repo.path("tests/test_ledger.py"), "utf8");
    repo.write(
      "tests/test_ledger.py",
      `${tests}\n\ndef test_statement_is_a_method():\n    assert callable(Ledger.statement)\n`,
    );
    repo.commit("freeze the statement tests by glob");

    statementPatch("deselect-control", "glob-base");
    repo.commit("change statement()");
    expect(pytest().status).toBe(0);
    expect(record().deselected_frozen).toEqual([]);
    const control = runCli(
      ["check", "--base", "glob-base", "--today", TODAY, "--samples", ".freezegate/samples.json"],
      { cwd: repo.dir },
    );
    expect(control.status, control.stdout).toBe(1);
    expect(control.stdout).toContain(`SHADOWED 41-45: only frozen tests cover it: ${STATEMENT}`);

    repo.write("tests/conftest.py", DESELECT_CONFTEST);
    repo.commit("deselect the slow statement test");
    const run = pytest();
    expect(run.status, run.output).toBe(0);
    expect(record().deselected_frozen).toEqual([STATEMENT]);
    // Before: exit 0, "app/ledger.py: 5 uncovered".
    const r = runCli(
      ["check", "--base", "glob-base", "--today", TODAY, "--samples", ".freezegate/samples.json"],
      { cwd: repo.dir },
    );
    expect(expectRefusal(r, "frozen-tests-deselected")).toMatch(
      `the tests did not run 1 test(s) that freeze-ledger.json freezes: ${STATEMENT} (deselected, says the applied record .freezegate/applied.json, and not in the coverage data)`,
    );

    // A CI split across jobs: another job ran the frozen test, and the data is combined.
    rmSync(repo.path("tests/conftest.py"));
    expect(pytest().status).toBe(0);
    repo.write("tests/conftest.py", DESELECT_CONFTEST);
    expect(pytest(true).status).toBe(0);
    expect(record().deselected_frozen).toEqual([STATEMENT]);
    const split = runCli(
      ["check", "--base", "glob-base", "--today", TODAY, "--samples", ".freezegate/samples.json"],
      { cwd: repo.dir },
    );
    expect(split.stdout).toContain(`SHADOWED 41-45: only frozen tests cover it: ${STATEMENT}`);
    expect(split.status).toBe(1);
  });

  it("under test_function contexts a muted parametrized case mutes its test's one name", () => {
    repo.git("switch", "-q", "-c", "fn-base", "main");
    // test_function data: no Hypothesis runners (refused there), no freezes.
    rmSync(repo.path("tests/properties"), { recursive: true, force: true });
    const ledger = JSON.parse(readFileSync(repo.path("freeze-ledger.json"), "utf8"));
    repo.write(
      "freeze-ledger.json",
      `${JSON.stringify({ ...ledger, freezes: [], properties: [] }, null, 2)}\n`,
    );
    repo.write(".coveragerc", "[run]\nrelative_files = true\ndynamic_context = test_function\n");
    // Without the example's flaky test, which story 1 froze.
    const tests = readFileSync(repo.path("tests/test_ledger.py"), "utf8").replace(
      /def test_withdraw_more_than_balance\(\):\n(?: {4}.*\n)+/,
      "",
    );
    const cases = (mark: string) =>
      tests.replace(
        /def test_statement_lists_entries\(\):\n(?: {4}.*\n)+/,
        `@pytest.mark.parametrize("entries,expected", [\n    pytest.param([], ["balance 10"], id="empty"),\n    pytest.param([5, -3], ["+5", "-3", "balance 12"], id="two"${mark}),\n])\ndef test_statement_cases(entries, expected):\n    ledger = Ledger(initial=10)\n    for e in entries:\n        ledger.apply(e)\n    assert ledger.statement() == expected\n`,
      );
    repo.write("tests/test_ledger.py", `import pytest\n${cases("")}`);
    repo.git("add", "-A");
    repo.commit("test_function contexts, a parametrized statement test");
    statementPatch("fn-muted", "fn-base");
    repo.write(
      "tests/test_ledger.py",
      `import pytest\n${cases(', marks=pytest.mark.xfail(reason="follow-up")')}`,
    );
    repo.commit("change statement(), mute its case");
    rmSync(repo.path(".coverage"), { force: true });
    rmSync(repo.path(".freezegate"), { recursive: true, force: true });
    const run = runPython(
      ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--cov", "--cov-report="],
      { cwd: repo.dir, env: { PYTHONPATH: PLUGIN } },
    );
    expect(run.status, run.stdout).toBe(0);
    expect(record().muted).toEqual(["tests/test_ledger.py::test_statement_cases[two]"]);
    const r = runCli(
      ["check", "--base", "fn-base", "--today", TODAY, "--samples", ".freezegate/samples.json"],
      { cwd: repo.dir },
    );
    // Before: exit 0, "app/ledger.py: 5 defended" (the case's id named nothing in the data).
    expect(r.stdout).toContain(
      "SHADOWED 41-45: only frozen tests cover it: tests/test_ledger.py::test_statement_cases",
    );
    expect(r.status).toBe(1);
  });
});
