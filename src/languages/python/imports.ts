// What a Python file's imports name, and how an imported name relates to a repository path:
// the text side of the installed-copy checks (src/runners/pytest/installed-copies.ts), which
// find the files and read the coverage data.

import { dirOf } from "../../core/path-map.js";

/** The line number (1-based, lines ended by LF) of a source offset of `text`. */
export function lineOfOffset(text: string): (offset: number) => number {
  const starts = [0];
  for (let i = text.indexOf("\n"); i >= 0; i = text.indexOf("\n", i + 1)) starts.push(i + 1);
  return (offset) => {
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((starts[mid] as number) <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo + 1;
  };
}

/**
 * The modules a Python text's absolute imports name, each with the line numbers (1-based) of the
 * statements that name it: `import a.b as x` names a.b; `from a.b import c, d` names a.b,
 * a.b.c and a.b.d (c may be a module); `importlib.import_module("a.b")` and
 * `pytest.importorskip("a.b")` name a.b. At any indentation (a fixture's or a test's own
 * import); whether the statement ran is the data's to say. Relative imports are left out.
 */
export function importedModulesIn(text: string): Map<string, number[]> {
  const modules = new Map<string, number[]>();
  const lineAt = lineOfOffset(text);
  const add = (name: string, offset: number) => {
    const line = lineAt(offset);
    const lines = modules.get(name);
    if (lines === undefined) modules.set(name, [line]);
    else if (!lines.includes(line)) lines.push(line);
  };
  const dotted = /^[A-Za-z_][\w.]*$/;
  for (const m of text.matchAll(/^[ \t]*import[ \t]+([^\n#;]+)/gm)) {
    for (const item of (m[1] as string).split(",")) {
      const name = item.trim().split(/\s+/)[0] ?? "";
      if (dotted.test(name)) add(name, m.index);
    }
  }
  const from = /^[ \t]*from[ \t]+([A-Za-z_][\w.]*)[ \t]+import[ \t]+\(?([^\n#;)]*)/gm;
  for (const m of text.matchAll(from)) {
    const module = m[1] as string;
    add(module, m.index);
    for (const item of (m[2] as string).split(",")) {
      const name = item.trim().split(/\s+/)[0] ?? "";
      if (/^[A-Za-z_]\w*$/.test(name)) add(`${module}.${name}`, m.index);
    }
  }
  const byString = /\b(?:import_module|importorskip)\(\s*(["'])([A-Za-z_][\w.]*)\1/g;
  for (const m of text.matchAll(byString)) add(m[2] as string, m.index);
  return modules;
}

/**
 * How an imported name `m` loads a module with these names (moduleNames: its own first):
 * by the name, as the package that holds it (`import pkg` for pkg.calc), or as a module of
 * the package it is (`import pkg.calc` runs pkg/__init__.py). "own" through its own name,
 * "tail" through another tail of its path (a namespace package's), or null.
 */
export function matchOf(m: string, names: readonly string[]): "own" | "tail" | null {
  const loads = (n: string) => m === n || n.startsWith(`${m}.`) || m.startsWith(`${n}.`);
  const [own, ...tails] = names;
  if (own !== undefined && loads(own)) return "own";
  return tails.some(loads) ? "tail" : null;
}

/**
 * Is `file` the module `found`, inside the package (or namespace directory) `found` is, or
 * the `__init__.py` of the package that holds `found`?
 */
export function sameModuleTree(found: string, file: string): boolean {
  if (found === file) return true;
  if ((found.endsWith("/") || found.endsWith("__init__.py")) && file.startsWith(dirOf(found))) {
    return true;
  }
  return file.endsWith("__init__.py") && found.startsWith(dirOf(file));
}
