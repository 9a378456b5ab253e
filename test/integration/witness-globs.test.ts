// The witness gate resolves the ledger's freezes as the audit and the plugin do: a freeze
// written by hand as a glob ("test_overdraft_*") takes a property's last witness exactly as a
// freeze of the exact id does, and a property's own check listed in its witnessed_by is no
// witness. The built CLI on a git repository made from examples/python-ledger/project.

import { cpSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DEPOSIT_WARNING, expectRefusal, REPO_ROOT, runCli } from "../helpers/cli.js";
import { makeTempRepo, type TempRepo } from "../helpers/git-repo.js";

const REJECTED = "tests/test_ledger.py::test_overdraft_rejected";
const NOOP_CHECK = "tests/properties/test_ledger.py::test_rejected_withdrawal_is_a_noop";
const BALANCE_CHECK = "tests/properties/test_ledger.py::test_balance_never_negative";
const COLLECTED = [
  BALANCE_CHECK,
  NOOP_CHECK,
  REJECTED,
  "tests/test_ledger.py::test_withdraw_more_than_balance",
  "tests/test_ledger.py::test_deposit_adds",
];

interface LedgerDoc {
  freezes: object[];
  properties: { id: string; witnessed_by: string[] }[];
}

function freeze(testId: string): object {
  return {
    test_id: testId,
    reason: "order-dependent",
    owner: "finley",
    opened: "2026-10-12",
    expires: "2026-10-26",
    invariant: "a rejected withdrawal changes nothing",
    compensating_property: NOOP_CHECK,
    reused_property: true,
  };
}

let repo: TempRepo;

beforeAll(() => {
  repo = makeTempRepo();
  cpSync(join(REPO_ROOT, "examples/python-ledger/project"), repo.dir, { recursive: true });
  repo.write("collected.txt", `${COLLECTED.join("\n")}\n\n5 tests collected in 0.01s\n`);
  repo.commit("base");
  repo.git("branch", "base");
  repo.git("switch", "-q", "-c", "patch");
});
afterEach(() => repo.git("reset", "-q", "--hard", "base"));
afterAll(() => repo.cleanup());

/** Commit the example's ledger as `edit` changes it (a hand-edited ledger, as a patch would). */
function commitLedger(edit: (doc: LedgerDoc) => void): void {
  const doc = JSON.parse(readFileSync(repo.path("freeze-ledger.json"), "utf8")) as LedgerDoc;
  edit(doc);
  repo.write("freeze-ledger.json", `${JSON.stringify(doc, null, 2)}\n`);
  repo.commit("ledger");
}

const witnessCheck = () => runCli(["witness", "check", "--base", "base"], { cwd: repo.dir });
const JUDGED = "note: the ledger freeze-ledger.json changed in base...HEAD: judged\n";

describe("witness check with hand-written glob freezes", () => {
  it("a glob freeze of the last witness fails the gate as the exact freeze does", () => {
    commitLedger((doc) => doc.freezes.push(freeze("tests/test_ledger.py::test_overdraft_*")));
    const r = witnessCheck();
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      `error   orphaned-property: property prop.ledger.rejected_is_noop has no live witness left: the freeze of ${REJECTED} (by the glob tests/test_ledger.py::test_overdraft_*) took its last witness\n\n${JUDGED}witness gate: FAILED (1 error)\n`,
    );
    expect(r.status).toBe(1);

    commitLedger((doc) => {
      doc.freezes = [freeze(REJECTED)];
    });
    const exact = witnessCheck();
    expect(exact.stdout).toBe(
      `error   orphaned-property: property prop.ledger.rejected_is_noop has no live witness left: the freeze of ${REJECTED} took its last witness\n\n${JUDGED}witness gate: FAILED (1 error)\n`,
    );
    expect(exact.status).toBe(1);
  });

  it("a glob that freezes a property's own check is frozen-property-check", () => {
    commitLedger((doc) => doc.freezes.push(freeze("tests/properties/test_ledger.py::test_rej*")));
    const r = witnessCheck();
    expect(r.stdout).toBe(
      `error   frozen-property-check: property prop.ledger.rejected_is_noop's own check ${NOOP_CHECK} (by the glob tests/properties/test_ledger.py::test_rej*) is frozen\n\n${JUDGED}witness gate: FAILED (1 error)\n`,
    );
    expect(r.status).toBe(1);
  });

  it("a witness written as a glob keeps no property alive when its test is frozen", () => {
    // Before, the glob read as the id of a test nobody froze, and the gate passed.
    const glob = "tests/test_ledger.py::test_overdraft_*";
    commitLedger((doc) => {
      const noop = doc.properties.find((p) => p.id === "prop.ledger.rejected_is_noop");
      if (noop === undefined) throw new Error("the example has no prop.ledger.rejected_is_noop");
      noop.witnessed_by = [glob];
    });
    commitLedger((doc) => doc.freezes.push(freeze(REJECTED)));
    const r = runCli(["witness", "check", "--base", "HEAD~1"], { cwd: repo.dir });
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      `error   orphaned-property: property prop.ledger.rejected_is_noop has no witness named by a test id: ${glob} is a glob, and witnessed_by lists tests one by one (a test whose own id holds * counts once the suite's tests are known: --collected, or the coverage data)\n\nnote: the ledger freeze-ledger.json changed in HEAD~1...HEAD: judged\nwitness gate: FAILED (1 error)\n`,
    );
    expect(r.status).toBe(1);
  });

  it("a patch that freezes the last witness and deletes the property is judged with it", () => {
    // Deleting the property (or its witness) in the same patch disarmed the gate.
    commitLedger((doc) => {
      doc.properties = doc.properties.filter((p) => p.id !== "prop.ledger.rejected_is_noop");
      doc.freezes.push(freeze(REJECTED));
    });
    const r = witnessCheck();
    expect(r.stderr).toBe("");
    expect(r.stdout).toBe(
      `error   orphaned-property: property prop.ledger.rejected_is_noop has no live witness left: the freeze of ${REJECTED} took its last witness\n\n${JUDGED}note: the patch removes prop.ledger.rejected_is_noop, or some of its witnesses or its check: judged with the merge base's as well (a removal takes effect from the next patch on)\nnote: witnesses this patch removes count as they were: without the suite's tests (--collected, or the coverage data) a renamed or deleted one cannot be told (check always knows them)\nwitness gate: FAILED (1 error)\n`,
    );
    expect(r.status).toBe(1);
    // Deleted in a patch of its own, the property is gone for the next one.
    repo.git("branch", "-f", "deleted", "HEAD~1");
    repo.git("reset", "-q", "--hard", "HEAD~1");
    commitLedger((doc) => {
      doc.properties = doc.properties.filter((p) => p.id !== "prop.ledger.rejected_is_noop");
    });
    repo.git("branch", "-f", "deleted", "HEAD");
    commitLedger((doc) => doc.freezes.push(freeze(REJECTED)));
    const next = runCli(["witness", "check", "--base", "deleted"], { cwd: repo.dir });
    expect(next.status, next.stdout).toBe(0);
  });

  it("a witness the patch renames and freezes does not stay live under its old id", () => {
    // The merge base's id was put back and counted as a live witness, though the
    // suite has no test of that name any more.
    const renamed = "tests/test_ledger.py::test_overdraft_is_rejected";
    repo.write(
      "collected-renamed.txt",
      `${[...COLLECTED.filter((id) => id !== REJECTED), renamed].join("\n")}\n`,
    );
    commitLedger((doc) => {
      for (const p of doc.properties) {
        p.witnessed_by = p.witnessed_by.map((w) => (w === REJECTED ? renamed : w));
      }
      doc.freezes.push(freeze(renamed));
    });
    const r = runCli(
      ["witness", "check", "--base", "base", "--collected", "collected-renamed.txt"],
      {
        cwd: repo.dir,
      },
    );
    expect(r.stdout).toContain(
      `error   orphaned-property: property prop.ledger.rejected_is_noop has no live witness left: the freeze of ${renamed} took its last witness`,
    );
    expect(r.status).toBe(1);
    // A property deleted together with its only witness test, and nothing frozen: passes
    //.
    repo.git("reset", "-q", "--hard", "base");
    repo.write(
      "collected-deleted.txt",
      `${COLLECTED.filter((id) => id !== REJECTED).join("\n")}\n`,
    );
    commitLedger((doc) => {
      doc.properties = doc.properties.filter((p) => p.id !== "prop.ledger.rejected_is_noop");
      for (const p of doc.properties) p.witnessed_by = p.witnessed_by.filter((w) => w !== REJECTED);
    });
    const deleted = runCli(
      ["witness", "check", "--base", "base", "--collected", "collected-deleted.txt"],
      { cwd: repo.dir },
    );
    expect(deleted.stdout).toContain("witness gate: passed");
    expect(deleted.status).toBe(0);
    // ... but deleting it while renaming its last witness and freezing the new name fails
    //.
    const renameInTests = () => {
      const file = repo.path("tests/test_ledger.py");
      writeFileSync(
        file,
        readFileSync(file, "utf8").replace(
          "def test_overdraft_rejected(",
          "def test_overdraft_is_rejected(",
        ),
      );
    };
    const deletedWith = (quiet: string) =>
      `error   orphaned-property: the patch deletes property prop.ledger.rejected_is_noop and its witness tests (${REJECTED}), and the run freezes, skips or mutes ${quiet} while the patch changes their test files or a test helper in more than deletions: one of them may be a witness renamed or moved, which leaves the property without a live witness; delete the property in a patch of its own, and its tests in a later one`;
    // The freeze of the new name exact, or by a glob with no file part.
    for (const frozenAs of [renamed, "*overdraft_is_rejected"]) {
      repo.git("reset", "-q", "--hard", "base");
      repo.write(
        "collected-renamed.txt",
        `${[...COLLECTED.filter((id) => id !== REJECTED), renamed].join("\n")}\n`,
      );
      renameInTests();
      commitLedger((doc) => {
        doc.properties = doc.properties.filter((p) => p.id !== "prop.ledger.rejected_is_noop");
        for (const p of doc.properties) {
          p.witnessed_by = p.witnessed_by.map((w) => (w === REJECTED ? renamed : w));
        }
        doc.freezes.push(freeze(frozenAs));
      });
      const sneaky = runCli(
        ["witness", "check", "--base", "base", "--collected", "collected-renamed.txt"],
        { cwd: repo.dir },
      );
      expect(sneaky.stderr).toBe("");
      expect(sneaky.stdout).toContain(deletedWith(renamed));
      expect(sneaky.status).toBe(1);
    }
    // Or keeping its def name in a new class, or folding its assertions into an
    // old test, and freezing that.
    const inClass = "tests/test_ledger.py::TestOverdraft::test_overdraft_rejected";
    const folded = "tests/test_ledger.py::test_deposit_increases_balance";
    for (const [frozenAs, edit] of [
      [
        inClass,
        (text: string) =>
          text
            .replace(
              "def test_overdraft_rejected(",
              "class TestOverdraft:\n    def test_overdraft_rejected(self",
            )
            .replace(/\n {4}(ledger|before|with| {4}ledger|assert)/g, "\n        $1"),
      ],
      [
        folded,
        (text: string) =>
          text
            .replace(/\ndef test_overdraft_rejected\(\):\n(?: {4}.*\n)+/, "\n")
            .replace(
              "    assert _shared.balance == 150\n",
              "    assert _shared.balance == 150\n    assert Ledger(initial=0).balance == 0\n",
            ),
      ],
    ] as const) {
      repo.git("reset", "-q", "--hard", "base");
      const others = COLLECTED.filter((id) => id !== REJECTED && id !== frozenAs);
      repo.write("collected-kept.txt", `${[...others, frozenAs].join("\n")}\n`);
      const file = repo.path("tests/test_ledger.py");
      writeFileSync(file, edit(readFileSync(file, "utf8")));
      commitLedger((doc) => {
        doc.properties = doc.properties.filter((p) => p.id !== "prop.ledger.rejected_is_noop");
        for (const p of doc.properties)
          p.witnessed_by = p.witnessed_by.filter((w) => w !== REJECTED);
        doc.freezes.push(freeze(frozenAs));
      });
      const kept = runCli(
        ["witness", "check", "--base", "base", "--collected", "collected-kept.txt"],
        { cwd: repo.dir },
      );
      expect(kept.stderr).toBe("");
      expect(kept.stdout).toContain(deletedWith(frozenAs));
      expect(kept.status).toBe(1);
    }
    // Beside a test an old freeze froze, the file may change only by the deletion
    // (and its imports): anything else there (a helper the old test calls) makes it a suspect.
    repo.git("reset", "-q", "--hard", "base");
    commitLedger((doc) => doc.freezes.push(freeze(folded)));
    repo.git("branch", "-f", "frozen-deposit", "HEAD");
    for (const extra of [
      "",
      "\n\ndef _balance_check(ledger):\n    assert ledger.balance == 0\n",
      // An import that puts another body in the old test's place.
      "\nfrom tests.witness_impl import check as test_deposit_increases_balance\n",
    ]) {
      repo.git("reset", "-q", "--hard", "frozen-deposit");
      repo.write(
        "collected-deleted.txt",
        `${[...COLLECTED.filter((id) => id !== REJECTED), folded].join("\n")}\n`,
      );
      const file = repo.path("tests/test_ledger.py");
      writeFileSync(
        file,
        `${readFileSync(file, "utf8").replace(/\ndef test_overdraft_rejected\(\):\n(?: {4}.*\n)+/, "\n")}${extra}`,
      );
      commitLedger((doc) => {
        doc.properties = doc.properties.filter((p) => p.id !== "prop.ledger.rejected_is_noop");
        for (const p of doc.properties)
          p.witnessed_by = p.witnessed_by.filter((w) => w !== REJECTED);
      });
      const r = runCli(
        ["witness", "check", "--base", "frozen-deposit", "--collected", "collected-deleted.txt"],
        { cwd: repo.dir },
      );
      expect(r.stderr).toBe("");
      if (extra === "") {
        // The honest clean-up: only the witness test went.
        expect(r.stdout).toContain("witness gate: passed");
        expect(r.status).toBe(0);
      } else {
        expect(r.stdout).toContain(deletedWith(folded));
        expect(r.status).toBe(1);
      }
    }
    // A CRLF file whose only change is the deletion is no suspect's file.
    repo.git("reset", "-q", "--hard", "base");
    const crlfFile = repo.path("tests/test_ledger.py");
    writeFileSync(crlfFile, readFileSync(crlfFile, "utf8").replace(/\r?\n/g, "\r\n"));
    commitLedger((doc) => doc.freezes.push(freeze(folded)));
    repo.git("branch", "-f", "crlf", "HEAD");
    repo.write(
      "collected-deleted.txt",
      `${[...COLLECTED.filter((id) => id !== REJECTED), folded].join("\n")}\n`,
    );
    writeFileSync(
      crlfFile,
      readFileSync(crlfFile, "utf8").replace(
        /\r\ndef test_overdraft_rejected\(\):\r\n(?: {4}.*\r\n)+/,
        "\r\n",
      ),
    );
    commitLedger((doc) => {
      doc.properties = doc.properties.filter((p) => p.id !== "prop.ledger.rejected_is_noop");
      for (const p of doc.properties) p.witnessed_by = p.witnessed_by.filter((w) => w !== REJECTED);
    });
    const crlf = runCli(
      ["witness", "check", "--base", "crlf", "--collected", "collected-deleted.txt"],
      { cwd: repo.dir },
    );
    expect(crlf.stdout).toContain("witness gate: passed");
    expect(crlf.status).toBe(0);
    // Or moving it into a file a glob freeze of the base already freezes.
    repo.git("reset", "-q", "--hard", "base");
    commitLedger((doc) => doc.freezes.push(freeze("tests/test_quarantine.py::*")));
    repo.git("branch", "-f", "quarantined", "HEAD");
    const moved = "tests/test_quarantine.py::test_overdraft_rejected";
    repo.write(
      "collected-moved.txt",
      `${[...COLLECTED.filter((id) => id !== REJECTED), moved].join("\n")}\n`,
    );
    repo.write("tests/test_quarantine.py", "def test_overdraft_rejected():\n    pass\n");
    commitLedger((doc) => {
      doc.properties = doc.properties.filter((p) => p.id !== "prop.ledger.rejected_is_noop");
      for (const p of doc.properties) p.witnessed_by = p.witnessed_by.filter((w) => w !== REJECTED);
    });
    const movedRun = runCli(
      ["witness", "check", "--base", "quarantined", "--collected", "collected-moved.txt"],
      { cwd: repo.dir },
    );
    expect(movedRun.stdout).toContain(deletedWith(moved));
    expect(movedRun.status).toBe(1);
    // Without the suite's tests the old id counts as it was, and a note says so.
    const blind = witnessCheck();
    expect(blind.stdout).toContain(
      "note: witnesses this patch removes count as they were: without the suite's tests (--collected, or the coverage data) a renamed or deleted one cannot be told (check always knows them)",
    );
  });

  it("a deleted witness's body behind a star import or a changed helper is judged; whole-block clean-ups pass", () => {
    const folded = "tests/test_ledger.py::test_deposit_increases_balance";
    const file = "tests/test_ledger.py";
    // The base: the old flaky test is frozen and calls a helper module; the witness has a
    // comment above it, an editor's whitespace-only line and sits in a class of its own.
    const inClass = "tests/test_ledger.py::TestOverdraft::test_overdraft_rejected";
    repo.write(
      "tests/helpers.py",
      "def check_deposit(ledger):\n    assert ledger.balance == 150\n",
    );
    // A test module of live tests whose helper the frozen test calls too.
    repo.write(
      "tests/test_common.py",
      "def check_common(ledger):\n    pass\n\n\ndef test_common():\n    pass\n",
    );
    repo.write(
      file,
      readFileSync(repo.path(file), "utf8")
        .replace(
          "    assert _shared.balance == 150\n",
          "    check_deposit(_shared)\n    check_common(_shared)\n",
        )
        .replace(
          "import pytest\n",
          "import pytest\n\nfrom tests.helpers import check_deposit\nfrom tests.test_common import check_common\n",
        )
        .replace(
          /\ndef test_overdraft_rejected\(\):\n((?: {4}.*\n)+)/,
          (_, body: string) =>
            `\n# The witness of prop.ledger.rejected_is_noop.\nclass TestOverdraft:\n    def test_overdraft_rejected(self):\n${body.replace(/^/gm, "    ").replace("ledger.snapshot()\n", "ledger.snapshot()\n        \n")}`,
        ),
    );
    commitLedger((doc) => {
      for (const p of doc.properties) {
        p.witnessed_by = p.witnessed_by.map((w) => (w === REJECTED ? inClass : w));
      }
      doc.freezes.push(freeze(folded));
    });
    repo.git("branch", "-f", "helper-base", "HEAD");
    const collected = [...COLLECTED.filter((id) => id !== REJECTED), folded];
    const deleteWitness = (extra: (text: string) => string) => {
      repo.git("reset", "-q", "--hard", "helper-base");
      repo.write("collected-now.txt", `${collected.join("\n")}\n`);
      const text = readFileSync(repo.path(file), "utf8");
      const start = text.indexOf("# The witness");
      const end = text.indexOf("\ndef test_statement_lists_entries");
      expect(start).toBeGreaterThan(0);
      repo.write(file, extra(`${text.slice(0, start)}${text.slice(end + 1)}`));
      commitLedger((doc) => {
        doc.properties = doc.properties.filter((p) => p.id !== "prop.ledger.rejected_is_noop");
        for (const p of doc.properties)
          p.witnessed_by = p.witnessed_by.filter((w) => w !== inClass);
      });
      return runCli(
        ["witness", "check", "--base", "helper-base", "--collected", "collected-now.txt"],
        { cwd: repo.dir },
      );
    };
    const judged = `error   orphaned-property: the patch deletes property prop.ledger.rejected_is_noop and its witness tests (${inClass}), and the run freezes, skips or mutes ${folded} while the patch changes their test files or a test helper in more than deletions: one of them may be a witness renamed or moved, which leaves the property without a live witness; delete the property in a patch of its own, and its tests in a later one`;
    // The honest clean-up: the witness's class, comment and blank line go, nothing else.
    const honest = deleteWitness((text) => text);
    expect(honest.stderr).toBe("");
    expect(honest.stdout).toContain("witness gate: passed");
    expect(honest.status).toBe(0);
    // A star import, or code after `;` on an import line, can put another body in the frozen
    // test's place: the line was read as an import only clean-ups touch.
    for (const line of [
      "from tests.witness_impl import *",
      "import tests.witness_impl as _w; _w.install(globals())",
    ]) {
      const r = deleteWitness((text) => `${text}\n${line}\n`);
      expect(r.stderr).toBe("");
      expect(r.stdout).toContain(judged);
      expect(r.status).toBe(1);
    }
    // The witness's assertions moved into the helper the frozen test calls, in another file.
    const helper = deleteWitness((text) => {
      repo.write(
        "tests/helpers.py",
        "def check_deposit(ledger):\n    assert ledger.balance == 150\n    assert ledger.snapshot() == ledger.snapshot()\n",
      );
      return text;
    });
    expect(helper.stderr).toBe("");
    expect(helper.stdout).toContain(judged);
    expect(helper.status).toBe(1);
    // ... or into a test module of live tests that holds such a helper, or a data file an
    // old test reads: changed test files count as helpers.
    for (const [path, text] of [
      [
        "tests/test_common.py",
        "def check_common(ledger):\n    assert ledger.snapshot() == ledger.snapshot()\n\n\ndef test_common():\n    pass\n",
      ],
      ["tests/cases/ledger.json", '[{"initial": 0, "apply": -1}]\n'],
    ] as const) {
      const r = deleteWitness((t) => {
        repo.write(path, text);
        return t;
      });
      expect(r.stderr).toBe("");
      expect(r.stdout).toContain(judged);
      expect(r.status).toBe(1);
    }
    // An empty package marker holds no assertions; a new test in another
    // module, or a new test module, is no old test's helper.
    for (const change of [
      () => repo.write("tests/unit/__init__.py", ""),
      () =>
        repo.write(
          "tests/test_common.py",
          `${readFileSync(repo.path("tests/test_common.py"), "utf8")}\n\ndef test_new():\n    assert True\n`,
        ),
      () =>
        repo.write(
          "tests/test_new.py",
          "def helper():\n    return 1\n\n\ndef test_new():\n    assert helper()\n",
        ),
    ]) {
      const honest = deleteWitness((t) => {
        change();
        return t;
      });
      expect(honest.stderr).toBe("");
      expect(honest.stdout).toContain("witness gate: passed");
      expect(honest.status).toBe(0);
    }
    // A text Python reads otherwise: a lone CR ends a line Python runs.
    const cr = deleteWitness((t) => `${t}# note\rfrom tests.witness_impl import *\n`);
    expect(cr.stdout).toContain(judged);
    expect(cr.status).toBe(1);
  });

  it("a deletion that leaves a frozen test's name bound to another body is judged; twin decorators are no change", () => {
    const folded = "tests/test_ledger.py::test_deposit_increases_balance";
    const file = "tests/test_ledger.py";
    const original = readFileSync(repo.path(file), "utf8");
    const witness = /\ndef test_overdraft_rejected\(\):\n((?: {4}.*\n)+)/.exec(original)?.[0] ?? "";
    expect(witness).not.toBe("");
    // The base: an earlier def of the frozen test's name that holds the witness's body (dead
    // while the later def stands), and the witness marked like the next test.
    repo.write(
      file,
      original
        .replace(
          "\ndef test_deposit_increases_balance():",
          `${witness.replace("test_overdraft_rejected", "test_deposit_increases_balance")}\n\ndef test_deposit_increases_balance():`,
        )
        .replace(
          "\ndef test_overdraft_rejected():",
          "\n@pytest.mark.slow\ndef test_overdraft_rejected():",
        )
        .replace(
          "\ndef test_statement_lists_entries():",
          "\n@pytest.mark.slow\ndef test_statement_lists_entries():",
        )
        // A fixture only the witness uses, named like another test's local variable, and a
        // class whose method has the witness's name.
        .replace(
          "\n@pytest.mark.slow\ndef test_overdraft_rejected():",
          "\n@pytest.fixture\ndef ledger():\n    return Ledger(initial=0)\n\n\n@pytest.mark.slow\ndef test_overdraft_rejected():",
        )
        .concat(
          "\n\nclass TestLocal:\n    def test_overdraft_rejected(self):\n        assert Ledger(initial=0).balance == 0\n",
        ),
    );
    commitLedger((doc) => doc.freezes.push(freeze(folded)));
    repo.git("branch", "-f", "twin-base", "HEAD");
    const run = (edit: (text: string) => string) => {
      repo.git("reset", "-q", "--hard", "twin-base");
      repo.write(
        "collected-now.txt",
        `${[...COLLECTED.filter((id) => id !== REJECTED), folded, "tests/test_ledger.py::TestLocal::test_overdraft_rejected"].join("\n")}\n`,
      );
      repo.write(file, edit(readFileSync(repo.path(file), "utf8")));
      commitLedger((doc) => {
        doc.properties = doc.properties.filter((p) => p.id !== "prop.ledger.rejected_is_noop");
        for (const p of doc.properties)
          p.witnessed_by = p.witnessed_by.filter((w) => w !== REJECTED);
      });
      return runCli(
        ["witness", "check", "--base", "twin-base", "--collected", "collected-now.txt"],
        {
          cwd: repo.dir,
        },
      );
    };
    const deleteTheWitness = (text: string) =>
      text
        .replace(/\n@pytest\.mark\.slow\ndef test_overdraft_rejected\(\):\n(?: {4}.*\n)+/, "\n")
        .replace("\n@pytest.fixture\ndef ledger():\n    return Ledger(initial=0)\n", "\n");
    // The honest clean-up: the witness goes with its decorator, the next test keeps its own.
    const honest = run(deleteTheWitness);
    expect(honest.stderr).toBe("");
    expect(honest.stdout).toContain("witness gate: passed");
    expect(honest.status).toBe(0);
    // Also deleting the later def of the frozen name: the earlier one, with the witness's
    // body, now runs under the frozen id.
    const rebound = run((text) => {
      const t = deleteTheWitness(text);
      const later = t.lastIndexOf("\ndef test_deposit_increases_balance():");
      const end = t.indexOf("\ndef ", later + 1);
      return `${t.slice(0, later)}\n${t.slice(end)}`;
    });
    expect(rebound.stderr).toBe("");
    expect(rebound.stdout).toContain(
      `the run freezes, skips or mutes ${folded} while the patch changes their test files`,
    );
    expect(rebound.status).toBe(1);
  });

  it("a deleted override whose class a frozen test in another file inherits from is judged", () => {
    const memory = "tests/test_ledger.py::TestOverdraftMemory::test_overdraft_rejected";
    const remote = "tests/test_remote.py::TestOverdraftRemote::test_overdraft_rejected";
    const file = "tests/test_ledger.py";
    const strict = /\ndef test_overdraft_rejected\(\):\n((?: {4}.*\n)+)/.exec(
      readFileSync(repo.path(file), "utf8"),
    )?.[1] as string;
    repo.write(
      file,
      readFileSync(repo.path(file), "utf8").replace(
        /\ndef test_overdraft_rejected\(\):\n(?: {4}.*\n)+/,
        `\nclass OverdraftChecks:\n    def test_overdraft_rejected(self):\n${strict.replace(/^/gm, "    ")}\n\nclass Lenient(OverdraftChecks):\n    backend = "lenient"\n\n    def test_overdraft_rejected(self):\n        pass\n\n\nclass TestOverdraftMemory(OverdraftChecks):\n    pass\n`,
      ),
    );
    repo.write(
      "tests/test_remote.py",
      "from tests.test_ledger import Lenient\n\n\nclass TestOverdraftRemote(  # a comment (with a bracket)\n    Lenient,\n):\n    pass\n",
    );
    commitLedger((doc) => {
      for (const p of doc.properties) {
        p.witnessed_by = p.witnessed_by.map((w) => (w === REJECTED ? memory : w));
      }
      doc.freezes.push(freeze(remote));
    });
    repo.git("branch", "-f", "mixin-base", "HEAD");
    repo.write(
      "collected-now.txt",
      `${[...COLLECTED.filter((id) => id !== REJECTED), remote].join("\n")}\n`,
    );
    // The patch deletes the property, the witness's class and the lenient override: the
    // frozen remote test now runs the witness's strict body, inherited.
    repo.write(
      file,
      readFileSync(repo.path(file), "utf8")
        .replace("\n    def test_overdraft_rejected(self):\n        pass\n", "\n")
        .replace("\nclass TestOverdraftMemory(OverdraftChecks):\n    pass\n", "\n"),
    );
    commitLedger((doc) => {
      doc.properties = doc.properties.filter((p) => p.id !== "prop.ledger.rejected_is_noop");
      for (const p of doc.properties) p.witnessed_by = p.witnessed_by.filter((w) => w !== memory);
    });
    const r = runCli(
      ["witness", "check", "--base", "mixin-base", "--collected", "collected-now.txt"],
      { cwd: repo.dir },
    );
    expect(r.stderr).toBe("");
    expect(r.stdout).toContain(`the run freezes, skips or mutes ${remote} while the patch changes`);
    expect(r.status).toBe(1);
  });

  it("a glob matching no witness or check takes nothing", () => {
    commitLedger((doc) => doc.freezes.push(freeze("tests/test_ledger.py::test_deposit_*")));
    const r = witnessCheck();
    expect(r.stdout).toBe(`${JUDGED}witness gate: passed\n`);
    expect(r.status).toBe(0);
  });

  it("freeze refuses the last live witness when a glob froze the other one", () => {
    commitLedger((doc) => doc.freezes.push(freeze("tests/test_ledger.py::test_withdraw_*")));
    const r = runCli(
      [
        "freeze",
        REJECTED,
        "--owner",
        "finley",
        "--reason",
        "order-dependent",
        "--invariant",
        "balance never negative",
        "--property",
        BALANCE_CHECK,
        "--collected",
        "collected.txt",
        "--today",
        "2026-10-12",
      ],
      { cwd: repo.dir },
    );
    expect(r.stdout).toBe("");
    expect(r.stderr).toBe(
      `freezegate: refused to freeze ${REJECTED}: property prop.ledger.balance_non_negative has no live witness left: the freezes of ${REJECTED}, tests/test_ledger.py::test_withdraw_more_than_balance (by the glob tests/test_ledger.py::test_withdraw_*) took every witness; property prop.ledger.rejected_is_noop has no live witness left: the freeze of ${REJECTED} took its last witness (fix: give the property another live witness in its witnessed_by first; or pass --force to record the freeze anyway)\n`,
    );
    expect(r.status).toBe(1);
  });
});

describe("freeze and unfreeze of a test a glob entry freezes", () => {
  const freezeArgs = (testId: string, property: string) => [
    "freeze",
    testId,
    "--owner",
    "finley",
    "--reason",
    "order-dependent",
    "--invariant",
    "balance never negative",
    "--property",
    property,
    "--collected",
    "collected.txt",
    "--today",
    "2026-10-12",
  ];

  it("freeze refuses a test a glob already freezes, and a property a glob freezes", () => {
    commitLedger((doc) => doc.freezes.push(freeze("tests/test_ledger.py::test_withdraw_*")));
    const withdraw = "tests/test_ledger.py::test_withdraw_more_than_balance";
    const again = runCli(freezeArgs(withdraw, BALANCE_CHECK), { cwd: repo.dir });
    expect(again.stderr).toBe(
      `freezegate: refused to freeze ${withdraw}: ${withdraw} is already frozen by the entry tests/test_ledger.py::test_withdraw_* (fix: edit that entry in freeze-ledger.json if ${withdraw} should be frozen on its own terms)\n`,
    );
    expect(again.status).toBe(1);

    commitLedger((doc) => doc.freezes.push(freeze("tests/properties/test_ledger.py::test_bal*")));
    const deposit = runCli(freezeArgs("tests/test_ledger.py::test_deposit_adds", BALANCE_CHECK), {
      cwd: repo.dir,
    });
    expect(deposit.stderr).toContain(
      `the compensating property ${BALANCE_CHECK} is itself frozen (by tests/properties/test_ledger.py::test_bal*), so it does not run`,
    );
    expect(deposit.status).toBe(1);
  });

  it("unfreeze of a test only a glob freezes names the glob", () => {
    commitLedger((doc) => doc.freezes.push(freeze("tests/test_ledger.py::test_overdraft_*")));
    const r = runCli(["unfreeze", REJECTED], { cwd: repo.dir });
    expect(expectRefusal(r, "frozen-by-glob")).toMatch(
      `${REJECTED} has no entry of its own in freeze-ledger.json: the entry tests/test_ledger.py::test_overdraft_* freezes it`,
    );
  });
});

describe('an entry holding "*" that is a parametrized case of the suite', () => {
  // pytest --collect-only -q prints such an id as is; freeze records it, and the witness gate
  // reads it as that case once it knows the suite's tests (--collected), as the audit does.
  const CASE_STAR = "tests/test_ledger.py::test_paths[*.py]";
  const CASE_A = "tests/test_ledger.py::test_paths[a.py]";
  const collected = `${[...COLLECTED, CASE_STAR, CASE_A].join("\n")}\n`;

  function withCaseWitness(doc: LedgerDoc): void {
    const noop = doc.properties.find((p) => p.id === "prop.ledger.rejected_is_noop");
    if (noop) noop.witnessed_by = [CASE_A];
  }

  it("freeze records it only when the suite has it; witness check frees its sibling case", () => {
    repo.write("collected-cases.txt", collected);
    commitLedger(withCaseWitness);
    const args = (list: string) => [
      "freeze",
      CASE_STAR,
      "--owner",
      "finley",
      "--reason",
      "order-dependent",
      "--invariant",
      "paths match",
      "--property",
      NOOP_CHECK,
      "--collected",
      list,
      "--today",
      "2026-10-12",
    ];
    const unknown = runCli(args("collected.txt"), { cwd: repo.dir });
    expect(expectRefusal(unknown, "not-one-test-id")).toMatch(`freeze: "${CASE_STAR}"`);

    const known = runCli(args("collected-cases.txt"), { cwd: repo.dir });
    expect(known.stderr).toMatch(DEPOSIT_WARNING);
    expect(known.status).toBe(0);
    repo.commit("freeze the case");

    // Judged against the commit that made CASE_A the witness (a witness a patch removes
    // still counts in that patch).
    const cases = ["--base", "HEAD~1"];
    const judgedHere = "note: the ledger freeze-ledger.json changed in HEAD~1...HEAD: judged\n";
    const judged = runCli(["witness", "check", ...cases, "--collected", "collected-cases.txt"], {
      cwd: repo.dir,
    });
    expect(judged.stdout).toBe(`${judgedHere}witness gate: passed\n`);
    expect(judged.status).toBe(0);

    // Without the suite's tests the entry is a glob over the case it names, and fails closed.
    const blind = runCli(["witness", "check", ...cases], { cwd: repo.dir });
    expect(blind.stdout).toBe(
      `error   orphaned-property: property prop.ledger.rejected_is_noop has no live witness left: the freeze of ${CASE_A} (by the glob ${CASE_STAR}) took its last witness\n\n${judgedHere}witness gate: FAILED (1 error)\n`,
    );
    expect(blind.status).toBe(1);

    const unfrozen = runCli(["unfreeze", CASE_STAR], { cwd: repo.dir });
    expect(unfrozen.stderr).toBe("");
    expect(unfrozen.stdout).toBe(
      `unfroze ${CASE_STAR} (owner finley, frozen since 2026-10-12) in freeze-ledger.json\n`,
    );
    expect(unfrozen.status).toBe(0);
  });
});

describe("a property's own check is not its witness", () => {
  it("listing the check in witnessed_by does not keep a property with its last witness frozen", () => {
    commitLedger((doc) => {
      doc.freezes.push(freeze(REJECTED));
      const noop = doc.properties.find((p) => p.id === "prop.ledger.rejected_is_noop");
      noop?.witnessed_by.push(NOOP_CHECK);
    });
    const r = witnessCheck();
    expect(r.stdout).toBe(
      `error   orphaned-property: property prop.ledger.rejected_is_noop has no live witness left: the freeze of ${REJECTED} took its last witness\n\n${JUDGED}witness gate: FAILED (1 error)\n`,
    );
    expect(r.status).toBe(1);
  });
});
