// The randomized sweep's record as evidence for freeze and check, end to end: real pytest,
// Hypothesis and the plugin's --freezegate-sweep find a property that the merge path's
// derandomized run passes; freeze refuses to freeze it or deposit it, check fails the deposit
// gate with its own code in every format; a record of another ledger or repository is exit 2;
// and once the property is fixed, the recorded command clears the record.

import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, expect, it } from "vitest";
import { expectOneLineError, REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";
import { describePython, makeTempDir, runPython } from "../helpers/python.js";
import { assertMatchesSchema } from "../helpers/schema.js";

const PLUGIN = join(REPO_ROOT, "integrations/pytest");
const TODAY = "2026-10-18";
const RARE = "tests/test_props.py::test_rare";
const FLAKY = "tests/test_other.py::test_flaky";

// Fails only on lists of at least 5 numbers whose sum is 5 modulo 37: 10 derandomized
// examples never reach one, 1000 examples at a fresh seed nearly always do (40 of 40 seeds
// measured with Hypothesis 6.67).
const PROPS = `from hypothesis import given, settings, strategies as st


@settings(max_examples=10, derandomize=True)
@given(st.lists(st.integers(0, 100), max_size=20))
def test_rare(xs):
    assert not (len(xs) >= 5 and sum(xs) % 37 == 5), xs
`;
const FIXED = PROPS.replace("sum(xs) % 37 == 5)", "sum(xs) % 37 == 5 and False)");

const ledger = (freezes: object[]) =>
  `${JSON.stringify(
    {
      version: 1,
      freezes,
      properties: [
        { id: "p.rare", check: RARE, witnessed_by: ["tests/test_other.py::test_witness"] },
      ],
    },
    null,
    2,
  )}\n`;

const FREEZE = {
  test_id: FLAKY,
  reason: "order-dependent failure in the full suite",
  owner: "finley",
  opened: "2026-10-12",
  expires: "2026-10-26",
  invariant: "no list of five sums to 5 modulo 37",
  compensating_property: RARE,
  reused_property: true,
};

interface Failure {
  test_id: string;
  seed: number;
  command: string;
  reproduced: boolean | null;
}

describePython("the sweep record in freeze and check (real pytest, Hypothesis, plugin)", () => {
  let repo: TempRepo;
  let scratch: string;
  const pytest = (...args: string[]) => {
    const r = runPython(["-m", "pytest", "-p", "no:cacheprovider", ...args], {
      cwd: repo.dir,
      env: { PYTHONPATH: PLUGIN },
    });
    return { status: r.status, output: `${r.stdout}\n${r.stderr}` };
  };
  const mergePathRun = () => {
    const r = pytest(
      "-q",
      "--cov",
      "--cov-context=test",
      "--cov-report=",
      "--freezegate-today",
      TODAY,
    );
    expect(r.status, r.output).toBe(0);
  };
  const record = () =>
    JSON.parse(readFileSync(join(repo.dir, ".freezegate/sweep.json"), "utf8")) as {
      commit: string;
      ledger: { path: string };
      failures: Failure[];
    };
  const cli = (args: string[]) => runCli(args, { cwd: repo.dir });
  const check = (...extra: string[]) =>
    cli([
      "check",
      "--base",
      "base",
      "--today",
      TODAY,
      "--samples",
      ".freezegate/samples.json",
      ...extra,
    ]);
  const freeze = (test: string, property: string, ...extra: string[]) =>
    cli([
      "freeze",
      test,
      "--owner",
      "finley",
      "--reason",
      "flaky",
      "--invariant",
      "no list of five sums to 5 modulo 37",
      "--property",
      property,
      "--today",
      TODAY,
      ...extra,
    ]);

  beforeAll(() => {
    scratch = makeTempDir("sweep-record");
    repo = makeTempRepo();
    repo.write("pytest.ini", "[pytest]\naddopts = -p freezegate_pytest\n");
    repo.write(".gitignore", ".coverage\n.coverage.*\n.freezegate/\n.hypothesis/\n");
    repo.write("tests/test_props.py", PROPS);
    repo.write(
      "tests/test_other.py",
      "def test_flaky():\n    assert True\n\n\ndef test_witness():\n    assert True\n",
    );
    repo.write("freeze-ledger.json", ledger([]));
    repo.commit("base");
    repo.git("branch", "base");
  });
  afterAll(() => repo?.cleanup());

  it("catches what the merge path passes, refuses freeze and check, clears once fixed", {
    timeout: 600_000,
  }, () => {
    // The merge path passes the property; the nightly sweep does not.
    mergePathRun();
    const sweep = pytest("--freezegate-sweep", "--freezegate-sweep-examples", "1000");
    expect(sweep.status, sweep.output).toBe(1);
    const [failure] = record().failures;
    expect(failure?.test_id).toBe(RARE);
    expect(failure?.reproduced).toBe(true);
    const command = failure?.command ?? "";
    expect(command).toBe(
      `pytest ${RARE} --freezegate-sweep --freezegate-sweep-examples 1000 --hypothesis-seed=${failure?.seed}`,
    );

    // freeze refuses both: depositing the broken property, and freezing it (--force or not).
    const before = readFileSync(join(repo.dir, "freeze-ledger.json"), "utf8");
    const deposit = freeze(FLAKY, RARE);
    expect(deposit.status, deposit.stderr).toBe(1);
    expect(deposit.stderr).toContain(
      `freezegate: refused to freeze ${FLAKY}: the freeze of ${FLAKY} deposits ${RARE}, which failed in the randomized sweep at seed ${failure?.seed}`,
    );
    expect(deposit.stderr).toContain(`reproduce: ${command}`);
    expect(deposit.stderr).toContain("(deposit-sweep-failure)");
    const frozen = freeze(RARE, "tests/test_other.py::test_witness", "--force");
    expect(frozen.status, frozen.stderr).toBe(1);
    expect(frozen.stderr).toContain("(frozen-sweep-failure)");
    expect(readFileSync(join(repo.dir, "freeze-ledger.json"), "utf8")).toBe(before);

    // The freeze written by hand: check fails the deposit gate, in every format.
    repo.write("freeze-ledger.json", ledger([FREEZE]));
    repo.commit("freeze test_flaky, deposit test_rare");
    mergePathRun();
    const json = check("--format", "json");
    expect(json.stderr).toBe("");
    expect(json.status).toBe(1);
    const report = JSON.parse(json.stdout) as {
      failedGates: string[];
      gates: {
        gate: string;
        notes: string[];
        findings: { code: string; testId: string; details?: { command?: string } }[];
      }[];
    };
    assertMatchesSchema("check-report.schema.json", report);
    expect(report.failedGates).toEqual(["deposit"]);
    const gate = report.gates.find((g) => g.gate === "deposit");
    expect(gate?.findings.map((f) => [f.code, f.testId, f.details?.command])).toEqual([
      ["deposit-sweep-failure", FLAKY, command],
    ]);
    expect(gate?.notes.join("\n")).toContain(`sweep record .freezegate/sweep.json (swept `);
    expect(gate?.notes.join("\n")).toContain(
      "not HEAD: its failures stand until a sweep passes them",
    );
    for (const format of ["text", "markdown", "sarif", "junit", "github", "html"]) {
      const r = check("--format", format);
      expect(r.status, `${format}: ${r.stderr}`).toBe(1);
      expect(r.stdout, format).toContain("deposit-sweep-failure");
    }

    // A record that is not this ledger's or this repository's is exit 2, one line.
    const foreign = (edit: (r: Record<string, unknown>) => void) => {
      const value = JSON.parse(readFileSync(join(repo.dir, ".freezegate/sweep.json"), "utf8"));
      edit(value);
      const path = join(scratch, "sweep.json");
      writeFileSync(path, JSON.stringify(value));
      return expectOneLineError(check("--sweep", path));
    };
    expect(
      foreign((r) => (r.ledger = { path: "other/freeze-ledger.json", sha256: "x" })),
    ).toContain(
      "is of the ledger other/freeze-ledger.json, and this command judges freeze-ledger.json",
    );
    expect(foreign((r) => (r.commit = "1".repeat(40)))).toContain(
      "which this repository does not have",
    );
    expect(foreign((r) => (r.commit = null))).toContain("names no commit");
    expect(foreign((r) => (r.kind = "applied"))).toContain(
      'is not a sweep record ("kind" is "applied")',
    );
    expect(expectOneLineError(check("--sweep", join(scratch, "missing.json")))).toMatch(
      /^freezegate: error\[file-not-found\]: sweep record not found: .*missing\.json \(fix: check the path; pytest --freezegate-sweep writes it/,
    );

    // The recorded command fails as the sweep did; once the property is fixed it passes, the
    // record clears, and check passes.
    const [exe, ...args] = command.split(" ");
    expect(exe).toBe("pytest");
    const reproduced = pytest(...args);
    expect(reproduced.status, reproduced.output).toBe(1);
    expect(reproduced.output).toContain("Falsifying example: test_rare(");
    expect(record().failures.map((f) => f.seed)).toEqual([failure?.seed]);
    repo.write("tests/test_props.py", FIXED);
    repo.commit("fix test_rare's invariant");
    const again = pytest(...args);
    expect(again.status, again.output).toBe(0);
    expect(record().failures).toEqual([]);
    mergePathRun();
    const passed = check("--format", "json");
    expect(passed.stderr).toBe("");
    expect(passed.status, passed.stdout).toBe(0);
  });
});
