// How the ledger (and the files it names) are read at the merge base and at HEAD, end to end:
// the bundled example's patch on top of a base that already has a ledger (real git, the
// example's real coverage data, the built CLI). A patch is judged with the stricter of the
// merge base's policy and its own; a BOM is skipped in git blobs as on disk; a ledger that
// does not parse at HEAD is an input error, never a deleted ledger; repeated JSON keys, a
// symlinked ledger and a symlinked generator file are refused (exit 2).

import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, readFileSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { expectOneLineError, expectRefusal, runCli } from "../helpers/cli.js";
import { makeDemoRepo } from "../helpers/demo-repo.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";

const FROZEN = "tests/test_billing.py::test_proration_rounds_half_up";
const PROPERTY = "tests/test_billing.py::test_full_period_charges_everything";
const TODAY = "2026-11-25";
const BOM = "\ufeff";
/** Every gate but the shadow gate, so the shadowed line of the example does not decide. */
const NO_SHADOW = ["shape", "witness", "deposit", "lock", "ledger-changes"];

function ledger(over: { policy?: object; freeze?: object; extra?: object[] } = {}) {
  return {
    version: 1,
    policy: { max_window_days: 14, min_distinct: 8, ...over.policy },
    freezes: [
      {
        test_id: FROZEN,
        reason: "order-dependent failure in the full suite",
        owner: "finley",
        opened: "2026-11-20",
        expires: "2026-12-01",
        invariant: "half-up rounding never charges more than the exact share plus half a cent",
        compensating_property: PROPERTY,
        reused_property: true,
        ...over.freeze,
      },
      ...(over.extra ?? []),
    ],
    properties: [
      {
        id: "prop.billing.refund",
        check: "tests/test_billing.py::test_refund_of_unused_days",
        witnessed_by: [PROPERTY],
      },
    ],
  };
}

const text = (value: object) => `${JSON.stringify(value, null, 2)}\n`;

const repos: TempRepo[] = [];
afterEach(() => {
  for (const r of repos.splice(0)) r.cleanup();
});

/**
 * The example with `base` laid over its base commit (and the patch commit rebased onto it),
 * then `head` (when not empty) committed on top. `atBase` runs before the base commit.
 */
function scenario(
  base: Record<string, string>,
  head: Record<string, string>,
  atBase?: (repo: TempRepo) => void,
): TempRepo {
  const repo = makeDemoRepo();
  repos.push(repo);
  repo.git("checkout", "-q", "base");
  for (const [path, content] of Object.entries(base)) repo.write(path, content);
  atBase?.(repo);
  repo.commit("the ledger at the base");
  repo.git("checkout", "-q", "main");
  repo.git("rebase", "-q", "base");
  for (const [path, content] of Object.entries(head)) repo.write(path, content);
  if (Object.keys(head).length > 0) repo.commit("the patch's ledger");
  return repo;
}

/** A samples artifact outside the work tree. */
function samples(repo: TempRepo, distinct: number): string {
  const path = join(repo.dir, ".git", "samples.json");
  repo.write(".git/samples.json", JSON.stringify({ distinct }));
  return path;
}

function check(repo: TempRepo, args: string[] = [], distinct = 9) {
  const r = runCli(
    [
      "check",
      "--base",
      "base",
      "--today",
      TODAY,
      "--samples",
      samples(repo, distinct),
      "--format",
      "json",
      ...args,
    ],
    { cwd: repo.dir },
  );
  return r;
}

interface GateJson {
  gate: string;
  notes: string[];
  findings: { code: string; severity: string; message: string; details?: unknown }[];
}

function report(r: { stdout: string; stderr: string }) {
  expect(r.stderr).toBe("");
  const body = JSON.parse(r.stdout) as { failedGates: string[]; gates: GateJson[] };
  const gate = (name: string) => body.gates.find((g) => g.gate === name) as GateJson;
  return { failedGates: body.failedGates, gate };
}

describe("a patch is judged with the stricter of the merge base's policy and its own", () => {
  it("emptying policy.blocking does not switch off the gates that judge the patch", () => {
    const repo = scenario(
      { "freeze-ledger.json": text(ledger()) },
      { "freeze-ledger.json": text(ledger({ policy: { blocking: [] } })) },
    );
    const r = check(repo);
    expect(r.status).toBe(1);
    const { failedGates, gate } = report(r);
    expect(failedGates).toEqual(["shadow"]);
    expect(gate("shadow").notes).toContain(
      "blocking, as the merge base's policy makes it: this patch's policy.blocking applies from the next patch on",
    );
    expect(gate("ledger-changes").findings).toContainEqual({
      gate: "ledger-changes",
      code: "ledger-changed",
      severity: "warning",
      path: "freeze-ledger.json",
      message:
        "this patch loosens the policy (policy.blocking no longer lists shadow, shape, witness, deposit, lock, ledger-changes): the patch itself is judged with the merge base's stricter policy; the loosening applies from the next patch on",
      details: {
        change: "policy-loosened",
        loosened: [
          "policy.blocking no longer lists shadow, shape, witness, deposit, lock, ledger-changes",
        ],
      },
    });
  });

  it("a lower min_distinct does not apply to the patch that lowers it", () => {
    const repo = scenario(
      { "freeze-ledger.json": text(ledger({ policy: { blocking: NO_SHADOW } })) },
      {
        "freeze-ledger.json": text(ledger({ policy: { blocking: NO_SHADOW, min_distinct: 1 } })),
      },
    );
    const r = check(repo, [], 3);
    expect(r.status).toBe(1);
    const { failedGates, gate } = report(r);
    expect(failedGates).toEqual(["deposit"]);
    expect(gate("deposit").findings.map((f) => f.message)).toEqual([
      `the freeze of ${FROZEN} deposits ${PROPERTY}, but it ran on 3 distinct inputs (min_distinct is 8)`,
    ]);
    expect(gate("deposit").notes).toContain(
      "min_distinct 8, from the merge base's policy, not this patch's 1",
    );
  });

  it("a longer max_window_days does not apply to the patch that raises it", () => {
    const repo = scenario(
      { "freeze-ledger.json": text(ledger({ policy: { blocking: NO_SHADOW } })) },
      {
        "freeze-ledger.json": text(
          ledger({
            policy: { blocking: NO_SHADOW, max_window_days: 30 },
            freeze: { expires: "2026-12-10" },
          }),
        ),
      },
    );
    const r = check(repo);
    expect(r.status).toBe(1);
    const { failedGates, gate } = report(r);
    expect(failedGates).toEqual(["shape"]);
    expect(gate("shape").findings.map((f) => f.code)).toEqual(["window-exceeded"]);
    expect(gate("shape").notes).toContain(
      "max_window_days 14, from the merge base's policy, not this patch's 30",
    );
  });

  it("emptying policy.generator_lock and deleting the lock does not unlock the generators", () => {
    const policy = { blocking: NO_SHADOW, generator_lock: ["conftest.py"] };
    const repo = scenario(
      { "freeze-ledger.json": text(ledger({ policy })) },
      {
        "freeze-ledger.json": text(ledger({ policy: { ...policy, generator_lock: [] } })),
        "conftest.py": "# the generator, narrowed\n",
      },
      (r) => expect(runCli(["lock"], { cwd: r.dir }).status).toBe(0),
    );
    repo.remove("property-lock.json");
    repo.commit("no lock any more");
    const r = runCli(["lock", "--check", "--base", "base"], { cwd: repo.dir });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      "error   lock-moved: there is no lock file property-lock.json, so the generator files (conftest.py) are not pinned",
    );
    expect(r.stdout).toContain(
      "note: also locked, as the merge base's policy lists them: conftest.py",
    );
  });

  it("moving the ledger and re-pointing the config's ledger key does not shed the merge base's policy", () => {
    const repo = scenario(
      { "freeze-ledger.json": text(ledger()) },
      {
        "governance/ledger.json": text(ledger({ policy: { blocking: [] } })),
        "pyproject.toml": '[tool.freezegate]\nledger = "governance/ledger.json"\n',
      },
    );
    repo.remove("freeze-ledger.json");
    repo.commit("the ledger moves");
    const r = check(repo);
    expect(r.status).toBe(1);
    const { failedGates, gate } = report(r);
    expect(failedGates).toEqual(["shadow"]);
    expect(gate("shadow").notes).toContain(
      "blocking, as the merge base's policy makes it: this patch's policy.blocking applies from the next patch on",
    );
    expect(gate("ledger-changes").notes).toContain(
      "the ledger moved: governance/ledger.json is compared with freeze-ledger.json at the merge base",
    );
    expect(gate("ledger-changes").findings.map((f) => f.details)).toContainEqual({
      change: "policy-loosened",
      loosened: [
        "policy.blocking no longer lists shadow, shape, witness, deposit, lock, ledger-changes",
      ],
    });
  });

  it("a changed freeze keeps needing an approval given for it after the ledger moves", () => {
    const policy = { blocking: NO_SHADOW, require_approval: true };
    const approved = { approved_by: "robin" };
    const repo = scenario(
      {
        "freeze-ledger.json": text(ledger({ policy, freeze: approved })),
        "package.json": `${JSON.stringify({ name: "x", freezegate: { "fail-on": ["shadowed"] } })}\n`,
      },
      {
        // The same approval, carried over to a freeze that now runs longer.
        "ops/ledger.json": text(ledger({ policy, freeze: { ...approved, expires: "2026-12-03" } })),
        "package.json": `${JSON.stringify({ name: "x", freezegate: { ledger: "ops/ledger.json" } })}\n`,
      },
    );
    repo.remove("freeze-ledger.json");
    repo.commit("the ledger moves");
    const r = check(repo);
    expect(r.status).toBe(1);
    const { failedGates, gate } = report(r);
    expect(failedGates).toEqual(["ledger-changes"]);
    expect(gate("ledger-changes").notes).toEqual([
      "the ledger moved: ops/ledger.json is compared with freeze-ledger.json at the merge base",
    ]);
    expect(gate("ledger-changes").findings.map((f) => f.message)).toContain(
      `the extended freeze of ${FROZEN} keeps the approval of robin, given before its expires changed (name who approved this change in approved_by), and policy.require_approval is on`,
    );
  });

  it("re-pointing the ledger key at a file the merge base already has keeps the merge base's policy", () => {
    const repo = scenario(
      {
        "freeze-ledger.json": text(ledger()),
        // An example ledger that blocks nothing, already in the repository.
        "examples/ledger.json": text(ledger({ policy: { blocking: [] } })),
      },
      {
        "examples/ledger.json": text(
          ledger({ policy: { blocking: [] }, freeze: { reason: "flaky on CI" } }),
        ),
        "pyproject.toml": '[tool.freezegate]\nledger = "examples/ledger.json"\n',
      },
    );
    // The pytest plugin would still apply freeze-ledger.json, pytest's rootdir default.
    expect(expectRefusal(check(repo), "plugin-ledger-differs")).toMatch(
      /freeze-ledger\.json.*examples\/ledger\.json/,
    );
    // With pytest pointed at the same file, the patch is judged, by the stricter policy.
    repo.write("pytest.ini", "[pytest]\nfreezegate_ledger = examples/ledger.json\n");
    repo.commit("pytest reads the same ledger");
    const r = check(repo);
    expect(r.status).toBe(1);
    const { failedGates, gate } = report(r);
    expect(failedGates).toEqual(["shadow"]);
    expect(gate("ledger-changes").notes).toContain(
      "the merge base's config names freeze-ledger.json as its ledger: examples/ledger.json is judged with the stricter of both policies at the merge base",
    );
  });

  it("a merge base whose config does not parse cannot tell where its ledger was: read as unreadable", () => {
    const repo = scenario(
      { "freeze-ledger.json": text(ledger()), "pyproject.toml": "[tool.freezegate\n" },
      {
        "ops/ledger.json": text(ledger({ policy: { blocking: [] } })),
        "pyproject.toml": '[tool.freezegate]\nledger = "ops/ledger.json"\n',
      },
    );
    repo.remove("freeze-ledger.json");
    repo.commit("the ledger moves");
    const r = check(repo);
    expect(r.status).toBe(1);
    const { gate } = report(r);
    expect(gate("shadow").notes).toContain(
      "blocking, as the default policy (the ledger at the merge base could not be read) makes it: this patch's policy.blocking applies from the next patch on",
    );
    expect(gate("ledger-changes").notes).toContain(
      "the ledger at the merge base could not be read: every entry counts as added",
    );
  });

  it("a locked generator cannot be deleted in the patch that removes its lock entry", () => {
    const policy = { blocking: NO_SHADOW, generator_lock: ["conftest.py"] };
    const repo = scenario(
      { "freeze-ledger.json": text(ledger({ policy })) },
      { "freeze-ledger.json": text(ledger({ policy: { ...policy, generator_lock: [] } })) },
      (r) => expect(runCli(["lock"], { cwd: r.dir }).status).toBe(0),
    );
    repo.remove("conftest.py");
    repo.commit("delete the generator");
    const r = runCli(["lock", "--check", "--base", "base"], { cwd: repo.dir });
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      'error   lock-moved: the merge base\'s policy.generator_lock locks "conftest.py", which names no file now: this patch removes a locked generator and its lock entry at once (remove the entry in one patch, the file in the next)',
    );
  });
});

describe("the ledger read from git", () => {
  it("a BOM is skipped at the merge base and at HEAD: approval is still judged", () => {
    const policy = { blocking: NO_SHADOW, require_approval: true };
    const repo = scenario(
      { "freeze-ledger.json": BOM + text(ledger({ policy })) },
      {
        "freeze-ledger.json":
          BOM + text(ledger({ policy, freeze: { approved_by: "finley", reason: "flaky on CI" } })),
      },
    );
    const r = check(repo);
    expect(r.status).toBe(1);
    const { failedGates, gate } = report(r);
    expect(failedGates).toEqual(["ledger-changes"]);
    expect(gate("ledger-changes").findings.map((f) => f.code)).toEqual([
      "ledger-changed",
      "self-approved",
    ]);
    expect(gate("ledger-changes").notes).toEqual([]);
  });

  it("a ledger that does not parse at HEAD but does on disk is an input error, not a deleted ledger", () => {
    const repo = scenario(
      { "freeze-ledger.json": text(ledger({ policy: { blocking: NO_SHADOW } })) },
      {},
      (r) => {
        // A clean filter (as git-crypt's) stores other bytes than the work tree holds.
        r.git("config", "filter.garble.clean", "sed 1s/^/x/");
        r.git("config", "filter.garble.smudge", "cat");
      },
    );
    repo.write(".gitattributes", "freeze-ledger.json filter=garble\n");
    repo.write(
      "freeze-ledger.json",
      text(ledger({ policy: { blocking: NO_SHADOW }, freeze: { reason: "flaky on CI" } })),
    );
    repo.commit("the ledger, stored through a filter");
    expect(repo.git("show", "HEAD:freeze-ledger.json").startsWith("x{")).toBe(true);
    const line = expectOneLineError(check(repo));
    expect(line).toMatch(
      /^freezegate: error\[json-invalid\]: ledger freeze-ledger\.json at HEAD is not valid JSON: .* \(fix: fix the JSON syntax\)$/,
    );
  });

  it("a BOM in the lock file at the merge base is skipped: the lock must still move", () => {
    const policy = { blocking: NO_SHADOW, generator_lock: ["conftest.py"] };
    const repo = scenario({ "freeze-ledger.json": text(ledger({ policy })) }, {}, (r) => {
      expect(runCli(["lock"], { cwd: r.dir }).status).toBe(0);
      r.write("property-lock.json", BOM + readFileSync(r.path("property-lock.json"), "utf8"));
    });
    // The generator changes and the lock does not move with it.
    repo.write("conftest.py", `${readFileSync(repo.path("conftest.py"), "utf8")}# narrowed\n`);
    repo.commit("the generator changes");
    const r = runCli(["lock", "--check", "--base", "base"], { cwd: repo.dir });
    expect(r.stdout).not.toContain("could not be read");
    expect(r.status).toBe(1);
    expect(r.stdout).toContain(
      "error   lock-moved: generator file conftest.py changed in this patch, but property-lock.json did not move with it",
    );
  });
});

describe("refused ledgers and generator files (exit 2)", () => {
  it("a ledger that repeats a key", () => {
    const good = text(ledger());
    const doubled = `${good.trimEnd().slice(0, -1).trimEnd()},\n  "policy": {"blocking": []}\n}\n`;
    const repo = scenario({ "freeze-ledger.json": good }, { "freeze-ledger.json": doubled });
    const message = `freezegate: error[json-duplicate-key]: ledger ${join(repo.dir, "freeze-ledger.json")} has the key "policy" twice in $: JSON readers keep only the last one, a person reading the file sees the first (fix: keep one "policy" in $)`;
    expect(expectOneLineError(check(repo))).toBe(message);
    expect(
      expectOneLineError(runCli(["ledger", "check", "--today", TODAY], { cwd: repo.dir })),
    ).toBe(message);
  });

  it("a ledger reached through a symbolic link, in every gate that reads it from git", () => {
    const policy = { blocking: NO_SHADOW };
    const repo = scenario(
      { "governance/ledger.json": text(ledger({ policy })) },
      {
        // The patch freezes the property's last witness.
        "governance/ledger.json": text(
          ledger({ policy, extra: [{ ...ledger().freezes[0], test_id: PROPERTY }] }),
        ),
      },
      (r) => r.symlink("governance/ledger.json", "freeze-ledger.json"),
    );
    expect(expectRefusal(check(repo), "ledger-behind-link")).toMatch(
      /^the ledger freeze-ledger\.json is a symbolic link to governance\/ledger\.json: .*\(fix: .* the real file governance\/ledger\.json\)$/,
    );
    for (const args of [
      ["witness", "check", "--base", "base"],
      ["deposit", "check", "--base", "base"],
      ["queue", "check", "--parent", "p.json", "--child", "c.json"],
    ]) {
      expect(expectOneLineError(runCli(args, { cwd: repo.dir }))).toContain(
        "the ledger freeze-ledger.json is a symbolic link to governance/ledger.json",
      );
    }
    symlinkSync("governance", join(repo.dir, "gov"));
    expect(
      expectRefusal(
        runCli(["witness", "check", "--base", "base", "--ledger", "gov/ledger.json"], {
          cwd: repo.dir,
        }),
        "ledger-behind-link",
      ),
    ).toMatch(
      /^the ledger gov\/ledger\.json lies under a symbolic link \(it is governance\/ledger\.json\): .*\(fix: .* the real file governance\/ledger\.json\)$/,
    );
    // At its real path the patch is judged: the property lost its last witness.
    const real = check(repo, ["--ledger", "governance/ledger.json"]);
    expect(real.status).toBe(1);
    expect(report(real).failedGates).toContain("witness");
    // Nor is it written through the link, which would turn the link into a file.
    expect(expectOneLineError(runCli(["unfreeze", PROPERTY], { cwd: repo.dir }))).toContain(
      "is a symbolic link (to governance/ledger.json): writing it would replace the link with a file",
    );
    expect(lstatSync(repo.path("freeze-ledger.json")).isSymbolicLink()).toBe(true);
  });

  it("a generator file that is a symbolic link", () => {
    const repo = makeDemoRepo();
    repos.push(repo);
    repo.write("tests/_strategies_impl.py", "amounts = list(range(64))\n");
    repo.symlink("_strategies_impl.py", "tests/strategies.py");
    repo.write(
      "freeze-ledger.json",
      text(ledger({ policy: { generator_lock: ["tests/strategies.py"] } })),
    );
    repo.commit("a linked generator");
    for (const args of [["lock"], ["lock", "--check"]]) {
      expect(expectRefusal(runCli(args, { cwd: repo.dir }), "generator-lock-file-is-link")).toMatch(
        /^generator_lock file "tests\/strategies\.py" is a symbolic link \(to _strategies_impl\.py\)/,
      );
    }
  });
});

describe("queue check reads the ledger at a commit as every other reader does", () => {
  it("accepts a ledger saved with a BOM (the record hashes its raw bytes)", () => {
    const repo = makeTempRepo();
    repos.push(repo);
    const ledgerBytes = BOM + text(ledger());
    repo.write(".gitignore", "records/\n");
    repo.write("freeze-ledger.json", ledgerBytes);
    const commit = repo.commit("a ledger saved with a BOM");
    const record = {
      version: 1,
      tool: "pytest-freezegate",
      commit,
      ledger: {
        path: "freeze-ledger.json",
        sha256: createHash("sha256").update(ledgerBytes).digest("hex"),
      },
      mode: "run",
      applied: [FROZEN],
      expired: [],
      outcomes: { [FROZEN]: "failed" },
    };
    mkdirSync(join(repo.dir, "records"));
    repo.write("records/parent.json", JSON.stringify(record));
    repo.write("records/child.json", JSON.stringify(record));
    const r = runCli(
      [
        "queue",
        "check",
        "--today",
        TODAY,
        "--parent",
        "records/parent.json",
        "--child",
        "records/child.json",
      ],
      { cwd: repo.dir },
    );
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/^queue gate: passed$/m);
  });
});
