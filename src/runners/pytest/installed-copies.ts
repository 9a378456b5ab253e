// Does the coverage data measure the code the tests ran? A test suite that imported an
// installed copy of the package (site-packages, a build directory) leaves the checkout's files
// unmeasured or without an executed line, and their changed lines would read "unmeasured" or
// "uncovered", which pass by default. These checks read the test files' imports and the
// checkout's layout (I/O here; the text rules are in src/languages/python/imports.ts) and
// refuse.

import { join } from "node:path";
import { isTracked } from "../../adapters/git.js";
import {
  fileExists,
  isDirectory,
  readFileBytes,
  readTextOrNull,
} from "../../adapters/repo-files.js";
import type { FreezegateError } from "../../core/errors.js";
import type { ChangedFile } from "../../core/model.js";
import { dirOf } from "../../core/path-map.js";
import { refusal } from "../../core/refusals/index.js";
import { importedModulesIn, matchOf, sameModuleTree } from "../../languages/python/imports.js";
import { pythonCodeText } from "../../languages/python/statements.js";
import type { ExecutedOf } from "../runner.js";

function sameText(a: string, b: string): boolean {
  try {
    return readFileBytes(a, "file").equals(readFileBytes(b, "file"));
  } catch {
    return false;
  }
}

/**
 * The tests ran another copy of the patch's files (a built `build/lib/app/`, an unpacked
 * wheel inside the repository): none of the changed source files is in the data, but it
 * measures a file whose last two path parts are those of a changed one (`app/mod.py`). A
 * changed file the data simply does not have (docs/conf.py, a module no test imports) is
 * unmeasured, not a refusal. The error, or null.
 */
export async function noneMeasured(
  root: string,
  audited: readonly ChangedFile[],
  toData: ReadonlyMap<string, string>,
  isTestFile: (path: string) => boolean,
  executedOf: ExecutedOf,
): Promise<FreezegateError | null> {
  if (audited.length === 0 || audited.some((f) => toData.has(f.path))) return null;
  const tail = (path: string) => path.split("/").slice(-2).join("/");
  const measured = new Map<string, string>();
  for (const p of toData.keys()) if (p.includes("/")) measured.set(tail(p), p);
  for (const f of audited) {
    if (f.status === "added" || f.status === "copied" || !f.path.includes("/")) continue;
    const twin = measured.get(tail(f.path));
    if (twin === undefined) continue;
    // A copy has the file's text (a build of this checkout), or git does not track it (a
    // build kept from before the patch); another module of the same name (api/models.py
    // beside web/api/models.py) is tracked and has its own text.
    if (!sameText(join(root, twin), join(root, f.path)) && (await isTracked(root, twin))) {
      continue;
    }
    return refusal("tests-ran-a-copy", { measured: "another-copy", copy: twin, path: f.path });
  }
  // Data with no executed line outside the test files (it measures the tests only, or also
  // files it holds without a line, such as the setup.py that `--cov=.` touches), while a test
  // that ran imports the changed module: the tests ran a copy coverage.py leaves out (a package
  // installed into site-packages), so "unmeasured" would be an accident, not a choice.
  const measuredFiles = [...toData.keys()];
  const tests = measuredFiles.filter(isTestFile);
  if (tests.length === 0) return null;
  for (const p of measuredFiles) {
    if (!isTestFile(p) && executedOf(toData.get(p) as string).size > 0) return null;
  }
  const importerOf = importers(root, tests, toData, executedOf, false);
  for (const f of audited) {
    const importer = importerOf(f.path);
    if (importer === undefined) continue;
    return refusal("tests-ran-a-copy", {
      measured: "tests-only",
      only: tests.length === measuredFiles.length,
      count: tests.length,
      importer,
      path: f.path,
      checkout: checkoutFix(root, f.path),
    });
  }
  return null;
}

/**
 * A changed module the data holds without a single executed line, while a test file imports
 * it in a statement that ran: importing runs its top-level lines, so the tests ran another
 * copy of it (an installed package outside `--cov=.`). Its changed lines would read
 * "uncovered", which passes by default: exit 2 instead. A module of a package another module
 * of which ran in the data (its __init__.py, a sibling, a module of a package above it) was
 * simply not imported: the checkout's package was.
 */
export function refuseUnexecutedImported(
  root: string,
  candidates: readonly string[],
  toData: ReadonlyMap<string, string>,
  isTestFile: (path: string) => boolean,
  executedOf: ExecutedOf,
): void {
  if (candidates.length === 0) return;
  const tests = [...toData.keys()].filter(isTestFile);
  const importerOf = importers(root, tests, toData, executedOf, true);
  // Measured files by directory ("pkg/sub/"), for the packages that hold a candidate.
  const byDir = new Map<string, string[]>();
  for (const [path, data] of toData) {
    const dir = dirOf(path);
    byDir.set(dir, [...(byDir.get(dir) ?? []), data]);
  }
  /** Did a module of a package holding `path` (its own, or one above it) run from the checkout? */
  const packageRan = (path: string): boolean => {
    const own = toData.get(path);
    let dir = dirOf(path);
    // A directory without __init__.py may be a namespace package, whose portions can come
    // from different places: no evidence there.
    while (dir !== "" && fileExists(join(root, dir, "__init__.py"))) {
      for (const data of byDir.get(dir) ?? []) {
        if (data !== own && executedOf(data).size > 0) return true;
      }
      dir = dirOf(dir.slice(0, -1));
    }
    return false;
  };
  for (const path of candidates) {
    if (packageRan(path)) continue;
    // Comments or a docstring alone: no copy of it has a line to run (coverage.py records
    // such a module as line 0), and every changed line of it is not code.
    const text = readTextOrNull(join(root, path));
    if (text !== null && !hasCode(text)) continue;
    const importer = importerOf(path);
    if (importer === undefined) continue;
    throw refusal("tests-ran-a-copy", {
      measured: "not-executed",
      importer,
      path,
      checkout: checkoutFix(root, path),
    });
  }
}

/**
 * Which of `tests` (repository paths of measured test files) imports a changed module in a
 * statement that ran (the data has the statement's line): the first one, or undefined. Each
 * test file's imports are read once.
 */
function importers(
  root: string,
  tests: readonly string[],
  toData: ReadonlyMap<string, string>,
  executedOf: ExecutedOf,
  /** The data measures the checkout's packages: their __init__.py files are evidence. */
  packagesMeasured: boolean,
): (file: string) => string | undefined {
  // Whether a package's __init__.py ran: null when the data does not hold it.
  const initRan = packagesMeasured
    ? (init: string) => {
        const data = toData.get(init);
        return data === undefined ? null : executedOf(data).size > 0;
      }
    : null;
  const read = new Map<string, Map<string, number[]>>();
  const importsOf = (test: string) => {
    let modules = read.get(test);
    if (modules === undefined) {
      modules = importedModules(join(root, test));
      read.set(test, modules);
    }
    return modules;
  };
  return (file) => {
    const names = moduleNames(root, file);
    if (names.length === 0) return undefined;
    for (const test of tests) {
      if (!test.endsWith(".py")) continue;
      for (const [m, lines] of importsOf(test)) {
        const via = matchOf(m, names);
        if (via === null) continue;
        // `import pkg` names a package above the module, not the module or a name in it.
        const above = !names.some((n) => m === n || m.startsWith(`${n}.`));
        if (above && !packageMayLoad(root, file, m, names, initRan)) continue;
        const ran = executedOf(toData.get(test) as string);
        if (!lines.some((line) => ran.has(line))) continue;
        // Another module of that name nearer the test (its own service's app/main.py in a
        // monorepo, a helper beside it) is the one it imports. None found: this one when the
        // name is the module's own (fail closed), not when only a tail of its path matched.
        const nearest = nearestModule(root, test, m);
        if (nearest === null ? via === "own" : sameModuleTree(nearest, file)) return test;
      }
    }
    return undefined;
  };
}

/**
 * The dotted names a Python file may be imported by: its name from its source root (the
 * directories above it that hold an `__init__.py` are its packages: `src/pkg/calc.py` is
 * pkg.calc, `src/pkg/__init__.py` pkg, `src/calc.py` calc), and every tail of its path of two
 * parts or more (namespace packages have no `__init__.py`). A one-part tail alone would match
 * any other module of that name. Only the identifiers at the path's end count: a project
 * directory may be named calc-lib.
 */
function moduleNames(root: string, path: string): string[] {
  return moduleLayout(root, path).names;
}

/** moduleNames, and the source root the first of them is imported from ("" for the repository root, "src"). */
function moduleLayout(root: string, path: string): { names: string[]; sourceRoot: string } {
  const none = { names: [], sourceRoot: "" };
  if (!path.endsWith(".py")) return none;
  const all = path.slice(0, -3).split("/");
  if (all.at(-1) === "__init__") all.pop();
  let first = all.length;
  while (first > 0 && /^[A-Za-z_]\w*$/.test(all[first - 1] as string)) first--;
  const above = all.slice(0, first);
  const parts = all.slice(first);
  if (parts.length === 0) return none;
  // The package directories: upwards from the file's own, while each holds an __init__.py.
  let start = parts.length - 1;
  while (start > 0 && fileExists(join(root, ...above, ...parts.slice(0, start), "__init__.py"))) {
    start--;
  }
  const names = new Set([parts.slice(start).join(".")]);
  for (let i = 0; i + 2 <= parts.length; i++) names.add(parts.slice(i).join("."));
  return { names: [...names], sourceRoot: [...above, ...parts.slice(0, start)].join("/") };
}

/**
 * How to make the tests import the checkout's copy of a module: an editable install, or its
 * source root first on the path (`python -m pytest` puts the root there; a src layout needs
 * PYTHONPATH=src).
 */
function checkoutFix(root: string, path: string): string {
  const { sourceRoot } = moduleLayout(root, path);
  return `pip install -e ., or ${sourceRoot === "" ? "python -m pytest from the root" : `PYTHONPATH=${sourceRoot}`}`;
}

/**
 * Whether `import m`, where m is a package above the module (`import pkg` for pkg/cli.py),
 * may load the module: only through the package's __init__.py, which must then hold code (an
 * import, or an `__all__` that `from pkg import *` follows). An __init__.py of comments and a
 * docstring alone, or a namespace directory, loads no submodule.
 */
function packageMayLoad(
  root: string,
  path: string,
  m: string,
  names: readonly string[],
  initRan: ((init: string) => boolean | null) | null,
): boolean {
  const stem = path.slice(0, -3).split("/");
  if (stem.at(-1) === "__init__") stem.pop();
  const depth = m.split(".").length;
  return names.some((n) => {
    if (!n.startsWith(`${m}.`)) return false;
    const dir = stem.slice(0, stem.length - (n.split(".").length - depth));
    const init = [...dir, "__init__.py"].join("/");
    const text = readTextOrNull(join(root, init));
    if (text === null || !hasCode(text)) return false;
    // Where the data measures the package, its __init__.py is the evidence: held without an
    // executed line, the test's `import m` loaded another copy. Left out of the data (an
    // `omit = */__init__.py`), its text decides: one that names the next module down
    // (`from . import cli`, an `__all__` with it) loads it; a `__version__` alone does not.
    if (initRan === null) return true;
    const ran = initRan(init);
    if (ran !== null) return !ran;
    const next = n.split(".")[depth];
    if (next === undefined) return false;
    // Its code with strings kept (`import_module(".cli", __name__)`, an `__all__` listing it)
    // but docstrings and comments aside: a docstring that mentions the CLI loads nothing, and
    // regexes over the text misread quotes inside strings.
    const code = pythonCodeText(text);
    // A name computed at run time (import_module in a PEP 562 `__getattr__`, pkgutil
    // discovery) may load any submodule: as good as naming it. A `__getattr__` that only
    // warns, or pkgutil's namespace line, loads nothing, nor does an import of a literal
    // name, which names the module if it is this one.
    return (
      code === null ||
      new RegExp(`\\b${next}\\b`).test(code) ||
      /\b(?:import_module|__import__)\s*\((?!\s*[rRuU]?["'][^"']*["']\s*[,)])|\b(?:walk_packages|iter_modules|exec|eval)\b/.test(
        code,
      )
    );
  });
}

/**
 * The repository file a test's `import m` most likely names: `m` as a module, a package or a
 * namespace directory under the test's basedir (its directory, or the first one above its
 * packages) or one of the directories above it (or their src/), nearest first, as pytest's rootdir-relative imports and a project's source
 * root find it. A directory is returned with a trailing "/". Null when the checkout has none.
 */
function nearestModule(root: string, test: string, m: string): string | null {
  const parts = m.split(".");
  const dirs = test.split("/").slice(0, -1);
  // pytest puts the test's basedir on the path: the first directory above its packages (a
  // tests/ tree of packages is imported as tests.pkg..., so tests/pkg/ is not `pkg`).
  let top = dirs.length;
  while (top > 0 && fileExists(join(root, ...dirs.slice(0, top), "__init__.py"))) top--;
  // Python takes a module or a regular package wherever it finds one on the path before a
  // bare directory (a namespace package, or just a tests/pkg/ folder): files first.
  for (const directories of [false, true]) {
    for (let depth = top; depth >= 0; depth--) {
      for (const base of [dirs.slice(0, depth), [...dirs.slice(0, depth), "src"]]) {
        // `from a.b import c` names a.b.c, which may be a name in a/b.py: the longest first.
        for (let n = parts.length; n > 0; n--) {
          const stem = [...base, ...parts.slice(0, n)].join("/");
          if (directories) {
            if (isDirectory(join(root, stem))) return `${stem}/`;
            continue;
          }
          for (const candidate of [`${stem}.py`, `${stem}/__init__.py`]) {
            if (fileExists(join(root, candidate))) return candidate;
          }
        }
      }
    }
  }
  return null;
}

/** importedModulesIn of a file's text; nothing for a file that cannot be read. */
function importedModules(path: string): Map<string, number[]> {
  const text = readTextOrNull(path);
  return text === null ? new Map() : importedModulesIn(text);
}

/** Whether Python text holds a statement besides comments and a leading docstring. */
function hasCode(text: string): boolean {
  // A file that does not tokenize counts as code: it is not known to be empty.
  return pythonCodeText(text) !== "";
}
