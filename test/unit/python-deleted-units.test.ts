import { describe, expect, it } from "vitest";
import { deletedUnits } from "../../src/languages/python/deleted-units.js";

const onlyBlocksDeleted = (base: string, now: string) => deletedUnits(base, now) !== null;

// A test file as a base might hold it: an old skipped test, the property's witness, a helper
// only the witness calls and a class.
const BASE = [
  '"""Ledger tests."""',
  "import pytest",
  "from tests.helpers import (",
  "    make_ledger,",
  "    Snapshot,",
  ")",
  "from unittest import TestCase",
  "",
  "",
  "@pytest.mark.skip(reason='windows only')",
  "def test_old():",
  "    assert make_ledger().balance == 0",
  "",
  "",
  "def _snapshot(ledger):",
  "    return Snapshot(ledger)",
  "",
  "",
  "# The witness of prop.ledger.rejected_is_noop.",
  "@pytest.mark.parametrize(",
  '    "amount",',
  "    [1, 2],",
  ")",
  "def test_witness(amount):",
  "    ledger = make_ledger()",
  "    ",
  "    assert _snapshot(ledger) == _snapshot(ledger)  ",
  "",
  "",
  "class TestOverdraft:",
  "    def test_rejected(self):",
  "        assert make_ledger().withdraw(5) is None",
  "",
].join("\n");

const drop = (text: string, ...parts: string[]) =>
  parts.reduce((t, part) => {
    expect(t).toContain(part);
    return t.replace(part, "");
  }, text);

const WITNESS = BASE.slice(BASE.indexOf("# The witness"), BASE.indexOf("class TestOverdraft"));

describe("onlyBlocksDeleted: a test file changed by deleting whole units and nothing else", () => {
  it("holds for an unchanged file and for deleted tests, helpers, classes and imports", () => {
    expect(onlyBlocksDeleted(BASE, BASE)).toBe(true);
    // The witness with its comment, its multi-line decorator and its whitespace-only line.
    expect(onlyBlocksDeleted(BASE, drop(BASE, WITNESS))).toBe(true);
    // ... and the helper and the multi-line import only it used.
    const lean = drop(
      BASE,
      WITNESS,
      "def _snapshot(ledger):\n    return Snapshot(ledger)\n",
      "from tests.helpers import (\n    make_ledger,\n    Snapshot,\n)\n",
    );
    expect(onlyBlocksDeleted(BASE, lean)).toBe(true);
    // A class whose only test was deleted goes with it; an import naming TestCase may go too.
    expect(
      onlyBlocksDeleted(
        BASE,
        drop(BASE, "class TestOverdraft:\n", "from unittest import TestCase\n").replace(
          /^ {4}def test_rejected[\s\S]*$/m,
          "",
        ),
      ),
    ).toBe(true);
    // CRLF on either side reads as LF.
    expect(onlyBlocksDeleted(BASE.replace(/\n/g, "\r\n"), drop(BASE, WITNESS))).toBe(true);
  });

  it("fails when a line is added, edited or moved", () => {
    const deleted = drop(BASE, WITNESS);
    // The witness's body folded into the old skipped test.
    expect(
      onlyBlocksDeleted(
        BASE,
        deleted.replace(
          "    assert make_ledger().balance == 0",
          "    assert _snapshot(make_ledger()) == _snapshot(make_ledger())",
        ),
      ),
    ).toBe(false);
    // Imports that may put another body in the old test's place.
    for (const line of [
      "from tests.witness_impl import *",
      "import tests.witness_impl as _w; _w.install(globals())",
      "from tests.witness_impl import test_old",
    ]) {
      expect(onlyBlocksDeleted(BASE, `${deleted}${line}\n`)).toBe(false);
    }
    // An import changed in place rebinds a helper the old test calls.
    expect(
      onlyBlocksDeleted(BASE, deleted.replace("from tests.helpers", "from tests.witness_helpers")),
    ).toBe(false);
    // The witness renamed; its lines deleted piecemeal into the old test (not whole blocks).
    expect(onlyBlocksDeleted(BASE, BASE.replace("def test_witness", "def test_renamed"))).toBe(
      false,
    );
    expect(
      onlyBlocksDeleted(
        BASE,
        drop(BASE, "    assert make_ledger().balance == 0\n", "def test_witness(amount):\n"),
      ),
    ).toBe(false);
    // Deleting a decorator line only unskips a test: no whole unit.
    expect(onlyBlocksDeleted(BASE, drop(BASE, "@pytest.mark.skip(reason='windows only')\n"))).toBe(
      false,
    );
    // An added file (nothing at the base) is no deletion.
    expect(onlyBlocksDeleted("", "def test_new():\n    pass\n")).toBe(false);
  });
});

describe("deletedUnits: what a deletion-only patch took out", () => {
  const twins = [
    "import pytest",
    "",
    "@pytest.mark.slow",
    "def test_witness():",
    "    assert 1",
    "",
    "@pytest.mark.slow",
    "def test_next():",
    "    assert 2",
    "",
    "class Checks:",
    "    def test_rejected(self):",
    "        assert 3",
    "",
    "class TestRemote(Checks):",
    "    def test_rejected(self):",
    "        pass",
    "",
  ].join("\n");

  it("matches whole units: a deleted test and the next one may carry the same decorator", () => {
    const now = twins.replace("@pytest.mark.slow\ndef test_witness():\n    assert 1\n\n", "");
    expect(deletedUnits(twins, now)).toEqual(["test_witness"]);
  });

  it("names a deleted method by its class, for the caller to see a name that stays bound", () => {
    // The override goes: TestRemote::test_rejected now runs Checks' body.
    const now = twins.replace("    def test_rejected(self):\n        pass\n", "    pass\n");
    expect(deletedUnits(twins, now)).toBeNull();
    const emptied = twins.replace(
      "class TestRemote(Checks):\n    def test_rejected(self):\n        pass\n",
      "class TestRemote(Checks):\n    x = 1\n",
    );
    expect(deletedUnits(twins, emptied)).toBeNull();
    const dropped = `${twins}\n    def test_other(self):\n        pass\n`.replace(
      "    def test_rejected(self):\n        pass\n",
      "",
    );
    expect(deletedUnits(`${twins}\n    def test_other(self):\n        pass\n`, dropped)).toEqual([
      "TestRemote::test_rejected",
    ]);
  });

  it("keeps a def's decorators with it: deleting the def alone hands them to the next one", () => {
    const base =
      "@pytest.mark.skip\ndef test_old():\n    pass\n\n\ndef test_kept():\n    assert 1\n";
    const now = "@pytest.mark.skip\ndef test_kept():\n    assert 1\n";
    expect(deletedUnits(base, now)).toBeNull();
    // Deleted with its decorator, it is a whole unit.
    expect(deletedUnits(base, "def test_kept():\n    assert 1\n")).toEqual(["test_old"]);
  });
});

describe("deletedUnits: units by statement", () => {
  it("names no class for a deleted import before it, and a multi-line constant is no decorator", () => {
    const base = [
      "import pytest",
      "from app import overdraft",
      "AMOUNTS = [",
      "    1,",
      "    2,",
      "]",
      "def test_witness():",
      "    assert overdraft(-1)",
      "class TestLedger:",
      "    def test_kept(self):",
      "        assert AMOUNTS",
    ].join("\n");
    const now = base
      .replace("from app import overdraft\n", "")
      .replace("def test_witness():\n    assert overdraft(-1)\n", "");
    expect(deletedUnits(base, now)).toEqual(["test_witness"]);
  });

  it("never starts a unit inside a decorator stack, one over several lines included", () => {
    const base = [
      "@checks_overdraft",
      "@pytest.mark.usefixtures(",
      '    "ledger")',
      "def test_witness():",
      "    assert 1",
      "def test_frozen():",
      "    pass",
    ].join("\n");
    // Deleting the second decorator and the def hands @checks_overdraft to test_frozen.
    expect(deletedUnits(base, "@checks_overdraft\ndef test_frozen():\n    pass\n")).toBeNull();
    expect(deletedUnits(base, "def test_frozen():\n    pass\n")).toEqual(["test_witness"]);
  });

  it("names a method of a class whose header spans lines, and a body after a multi-line signature", () => {
    const base = [
      "class TestRemote(",
      "    Checks,",
      "):",
      "    def test_rejected(",
      "        self,",
      "    ):",
      "        pass",
      "    def test_other(self):",
      "        pass",
    ].join("\n");
    const now = base.replace("    def test_rejected(\n        self,\n    ):\n        pass\n", "");
    expect(deletedUnits(base, now)).toEqual(["TestRemote::test_rejected"]);
  });

  it("lets a helper module gain module-level tests, nothing else", () => {
    const base = "def check(x):\n    assert x\n";
    const added = `${base}\n\n@pytest.mark.slow\ndef test_new():\n    check(1)\n`;
    expect(deletedUnits(base, added, true)).toEqual([]);
    expect(deletedUnits(base, added)).toBeNull();
    expect(deletedUnits(base, `${base}\ndef helper():\n    pass\n`, true)).toBeNull();
  });
});
