import { describe, expect, it } from "vitest";
import { dirOf } from "../../src/core/path-map.js";
import { importedModulesIn, matchOf, sameModuleTree } from "../../src/languages/python/imports.js";

const imports = (text: string) => Object.fromEntries(importedModulesIn(text));

describe("importedModulesIn: the modules a test file's imports name, with their lines", () => {
  it("reads import and from-import at any indentation, with aliases and several names", () => {
    const text = [
      "import os, calc.core as core",
      "from pkg.sub import add, mul as m  # comment",
      "",
      "def test_x():",
      "    from pkg import (",
      "        helpers,",
      "    )",
    ].join("\n");
    expect(imports(text)).toEqual({
      os: [1],
      "calc.core": [1],
      "pkg.sub": [2],
      "pkg.sub.add": [2],
      "pkg.sub.mul": [2],
      pkg: [5],
    });
  });

  it("reads import_module and importorskip by string, on the line of the call", () => {
    const text = [
      "import importlib",
      "calc = importlib.import_module('calc.core')",
      'np = pytest.importorskip("numpy")',
    ].join("\n");
    expect(imports(text)).toEqual({ importlib: [1], "calc.core": [2], numpy: [3] });
  });

  it("leaves relative imports out and keeps every line that names a module once", () => {
    const text = ["from . import sibling", "from .mod import x", "import a", "import a"].join("\n");
    expect(imports(text)).toEqual({ a: [3, 4] });
  });
});

describe("matchOf: how an imported name loads a module", () => {
  // moduleNames of src/pkg/calc.py in a package pkg: its own name first, then path tails.
  const names = ["pkg.calc", "src.pkg.calc"];

  it.each([
    ["pkg.calc", "own"],
    ["pkg", "own"],
    ["pkg.calc.add", "own"],
    ["src.pkg.calc", "tail"],
    ["pkgcalc", null],
    ["pk", null],
    ["other.calc", null],
  ] as const)("%s -> %s", (m, expected) => {
    expect(matchOf(m, names)).toBe(expected);
  });
});

describe("sameModuleTree and dirOf", () => {
  it("gives a path's directory with its slash, empty at the root", () => {
    expect(dirOf("pkg/sub/x.py")).toBe("pkg/sub/");
    expect(dirOf("x.py")).toBe("");
  });

  it("takes a module, a package's files and the __init__.py above it as one tree", () => {
    expect(sameModuleTree("pkg/calc.py", "pkg/calc.py")).toBe(true);
    expect(sameModuleTree("pkg/__init__.py", "pkg/calc.py")).toBe(true);
    expect(sameModuleTree("ns/", "ns/part/calc.py")).toBe(true);
    expect(sameModuleTree("pkg/calc.py", "pkg/__init__.py")).toBe(true);
    expect(sameModuleTree("pkg/calc.py", "pkg/other.py")).toBe(false);
    expect(sameModuleTree("svc_a/app/main.py", "svc_b/app/main.py")).toBe(false);
  });
});
