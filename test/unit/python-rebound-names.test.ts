// Whether deleting defs and classes from a Python module leaves a kept test's name on another
// body (src/languages/python/rebound-names.ts): the witness gate's reason to suspect that a
// deleted witness lives on under an old name.

import { describe, expect, it } from "vitest";
import { readOtherwiseByPython } from "../../src/languages/python/deleted-units.js";
import { classBases, deletionRebinds } from "../../src/languages/python/rebound-names.js";

const none = { names: [], classes: [], bases: new Map() };

describe("classBases", () => {
  it("gathers each class's bases over several modules, a dotted base by its last name", () => {
    const bases = classBases([
      "class Checks:\n    pass\n\nclass TestLocal(Checks):\n    pass\n",
      "import mod\n\nclass TestRemote(mod.Checks, Mixin):\n    pass\n",
    ]);
    expect(bases).toEqual(
      new Map([
        ["Checks", []],
        ["TestLocal", ["Checks"]],
        ["TestRemote", ["Checks", "Mixin"]],
      ]),
    );
  });
});

describe("deletionRebinds", () => {
  it("a kept test of the module has the deleted name, or lives inside the deleted class", () => {
    const kept = { ...none, names: ["test_old", "TestOld::test_case"] };
    expect(deletionRebinds(["test_old"], "", kept)).toBe(true);
    expect(deletionRebinds(["TestOld"], "", kept)).toBe(true);
    expect(deletionRebinds(["test_other"], "", kept)).toBe(false);
  });

  it("a deleted method: a kept test's class inherits it, at any depth", () => {
    const bases = new Map([
      ["TestRemote", ["Middle"]],
      ["Middle", ["Checks"]],
    ]);
    const kept = { names: [], classes: ["TestRemote"], bases };
    expect(deletionRebinds(["Checks::test_rejected"], "", kept)).toBe(true);
    expect(deletionRebinds(["Other::test_rejected"], "", kept)).toBe(false);
    // A cycle in the headers ends.
    const cycle = {
      names: [],
      classes: ["A"],
      bases: new Map([
        ["A", ["B"]],
        ["B", ["A"]],
      ]),
    };
    expect(deletionRebinds(["C::test_x"], "", cycle)).toBe(false);
  });

  it("a deleted module-level name the module still binds: def, class, assignment, import", () => {
    const rebinds = (now: string) => deletionRebinds(["test_witness"], now, none);
    expect(rebinds("def test_witness():\n    pass\n")).toBe(true);
    expect(rebinds("async def test_witness():\n    pass\n")).toBe(true);
    expect(rebinds("class test_witness:\n    pass\n")).toBe(true);
    expect(rebinds("test_witness = other\n")).toBe(true);
    expect(rebinds("test_witness: Callable = other\n")).toBe(true);
    expect(rebinds("from helpers import test_witness\n")).toBe(true);
    expect(rebinds("if True:\n    from helpers import a, test_witness\n")).toBe(true);
    expect(rebinds("from helpers import (\n    a,  # test_x\n    test_witness,\n)\n")).toBe(true);
    // Names that do not bind it: a comparison, a nested def, an alias, another name.
    expect(rebinds("test_witness == other\n")).toBe(false);
    expect(rebinds("class T:\n    def test_witness(self):\n        pass\n")).toBe(false);
    expect(rebinds("from helpers import (\n    test_witness as other,\n)\n")).toBe(false);
    expect(rebinds("def test_witness_two():\n    pass\n")).toBe(false);
  });
});

describe("readOtherwiseByPython", () => {
  it("a lone CR or a foreign encoding: the text is not compared line by line", () => {
    expect(readOtherwiseByPython("a = 1\rb = 2\n")).toBe(true);
    expect(readOtherwiseByPython("# coding: utf-7\na = 1\n")).toBe(true);
    expect(readOtherwiseByPython("# -*- coding: latin-1 -*-\na = 1\n")).toBe(false);
    expect(readOtherwiseByPython("# -*- coding: utf-8 -*-\r\na = 1\r\n")).toBe(false);
  });
});
