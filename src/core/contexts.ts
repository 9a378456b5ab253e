// Context names -> tests. coverage.py labels each executed line with a context; which test
// that context stands for depends on who recorded it:
//   pytest-cov --cov-context=test   "tests/test_a.py::test_x[p|q]|run"   (node id + phase)
//   coverage dynamic_context=test_function   "tests.test_a.TestX.test_y" (dotted, no phase)
//   the empty context ""            code run outside any test (imports, collection)
// Static contexts are prefixed with "static|" (a "|" before a node id's first "::" may also
// be part of its file's path: the test root's files tell, see nodeIdStart). We never guess:
// a dotted name becomes a node id only when exactly one test file in the repository can be
// its module and pytest would collect it there (see dottedTestKind), and no other class
// inherits the test method (a subclass's runs would carry the same name); a helper named
// test* that a source module defines ran outside tests, and so did unittest's
// testPartExecutor; anything else is refused.

import { type ClassHeader, classHeaders } from "../languages/python/class-headers.js";
import { PYTEST_DEFAULT_PYTHON_FILES, pytestPythonFiles } from "../runners/pytest/pytest-config.js";
import { compileGlobs, compilePythonFilesGlob, type PathMatcher } from "./globs.js";
import type { ContextOverview, ParsedContext, TestPhase } from "./model.js";
import { dirOf } from "./path-map.js";
import { refusal } from "./refusals/index.js";

const PHASES = new Set(["run", "setup", "teardown"]);

/**
 * Data without a single context recorded no executed line: the tests ran none of the code
 * coverage.py measured (an installed copy), whatever the context setting was.
 */
export const NO_LINES_RECORDED = {
  message:
    "the coverage data records no executed line at all (no contexts): the tests ran none of the code coverage.py was told to measure (an installed copy of the package, or a --cov source the tests do not import from)",
  fix: "run the tests against the checkout (pip install -e ., or PYTHONPATH=src) and record per-test contexts: pytest --cov --cov-context=test",
};

export type ContextStyle = "pytest-cov" | "test-function" | "none";

/** Does the test root hold this file (a path relative to it, as node ids name files)? */
export type TestFileExists = (file: string) => boolean;

/**
 * Where the node id starts in `head`, a pytest-cov name's part before its first "::" (the
 * node id's file, after any static context). coverage.py puts a static context before the
 * node id ("shardA|tests/x.py::t|run"), and a test file's path may itself hold "|" (Linux
 * and macOS allow it: "tests/legacy|v1/test_old.py::t|run"), so each "|" in `head` may end
 * a static context or belong to the path. With `exists`, the one reading whose file the
 * test root holds wins. Else the data's names that stand for no test (`outside`) may tell:
 * coverage.py names the code run outside tests by the static context alone ("shardA"), so
 * such a name equal to what stands before a "|" shows that it is one. Otherwise the name is
 * refused: no reading's file is here (the wrong test root, or a file the patch deletes), or
 * two are. The empty name does not tell: data combined from runs with and without a static
 * context holds it (review 48). Without `exists` (a caller outside the data), everything up
 * to the last "|" is the static context, as "[run] context = shard-1" gives.
 */
function nodeIdStart(
  raw: string,
  head: string,
  exists?: TestFileExists,
  outside?: ReadonlySet<string>,
): number {
  const last = head.lastIndexOf("|");
  if (last < 0) return 0;
  if (exists === undefined) return last + 1;
  const starts = [0];
  for (let b = head.indexOf("|"); b >= 0; b = head.indexOf("|", b + 1)) starts.push(b + 1);
  const found = starts.filter((start) => start < head.length && exists(head.slice(start)));
  if (found.length === 1) return found[0] as number;
  if (outside !== undefined) {
    for (let i = starts.length - 1; i > 0; i--) {
      const start = starts[i] as number;
      if (outside.has(head.slice(0, start - 1))) return start;
    }
  }
  // A "|" just before the "::" leaves no node id after it ("x|::t"): a name for no test.
  if (found.length === 0 && last + 1 === head.length) return last + 1;
  if (found.length === 0) {
    const readings = starts
      .filter((start) => start < head.length)
      .map((start) =>
        start === 0
          ? `"${head}"`
          : `"${head.slice(start)}" after a static context "${head.slice(0, start - 1)}"`,
      )
      .join(", ");
    throw refusal("context-pipe-unresolved", { raw, readings });
  }
  const [a, b] = found as [number, number];
  throw refusal("context-pipe-two-files", {
    raw,
    first: `"${head.slice(a)}"${a === 0 ? "" : ` (after a static context "${head.slice(0, a - 1)}")`}`,
    second: `"${head.slice(b)}" after a static context "${head.slice(0, b - 1)}"`,
  });
}

/**
 * Parse a pytest-cov context name. The phase is after the LAST "|" (parameter ids may contain
 * "|" and "::"). Before the node id there may be a static context ("shardA|tests/x.py::t|run");
 * a "|" before the first "::" is read as its end unless the data's names that stand for no
 * test (`outside`) or `exists` say that the path up to the "::" is a test file with "|" in it
 * (see nodeIdStart). Callers that read the data give both (ContextIndex.get does); without
 * them, every such "|" ends a static context.
 */
export function parsePytestCovContext(
  raw: string,
  exists?: TestFileExists,
  outside?: ReadonlySet<string>,
): ParsedContext | null {
  const bar = raw.lastIndexOf("|");
  if (bar < 0) return null;
  const phase = raw.slice(bar + 1);
  if (!PHASES.has(phase)) return null;
  let nodeId = raw.slice(0, bar);
  const sep = nodeId.indexOf("::");
  if (sep < 0) return null;
  if (nodeId.lastIndexOf("|", sep) >= 0) {
    nodeId = nodeId.slice(nodeIdStart(raw, nodeId.slice(0, sep), exists, outside));
  }
  if (nodeId.indexOf("::") <= 0) return null;
  return { raw, testId: nodeId, phase: phase as TestPhase };
}

/**
 * A static context holding "::" (`[run] context = py3.11::linux`) is read as the start of
 * each node id: "py3.11::linux|tests/x.py::t|run" reads as the test
 * "py3.11::linux|tests/x.py::t", of a file "py3.11" that does not exist. The first test id
 * of that shape (its own file missing, while after a "|" that follows its first "::" comes
 * the node id of a file that exists), split into that static context and the node id; null
 * when there is none.
 */
export function staticContextWithColons(
  testIds: Iterable<string>,
  exists: TestFileExists,
): { context: string; testId: string } | null {
  for (const id of testIds) {
    const sep = id.indexOf("::");
    if (sep <= 0 || exists(id.slice(0, sep))) continue;
    for (let bar = id.indexOf("|", sep + 2); bar >= 0; bar = id.indexOf("|", bar + 1)) {
      const rest = id.slice(bar + 1);
      const restSep = rest.indexOf("::");
      if (restSep > 0 && exists(rest.slice(0, restSep))) {
        return { context: id.slice(0, bar), testId: rest };
      }
    }
  }
  return null;
}

/** What the audit and doctor say about such data (see staticContextWithColons). */
export function staticContextWithColonsProblem(found: { context: string; testId: string }): {
  message: string;
  fix: string;
} {
  return {
    message: `the data's test ids start with the static context "${found.context}" (e.g. "${found.context}|${found.testId}"): coverage.py puts the static context ([run] context) before each node id, and one holding "::" cannot be told from the node id, so the tests cannot be named`,
    fix: 'record the data with a static context without "::" (e.g. [run] context = py3.11-linux), or none, and run the tests again',
  };
}

/** A module index given as it is, or as the function that builds it: built once, on first use. */
export function moduleIndexOnFirstUse(
  modules: ModuleIndex | (() => ModuleIndex),
): () => ModuleIndex {
  let built: ModuleIndex | null = null;
  return () => {
    built ??= typeof modules === "function" ? modules() : modules;
    return built;
  };
}

/** testFileExistsIn over a module index built on first use. */
export function lazyTestFileExists(modules: () => ModuleIndex): TestFileExists {
  let exists: TestFileExists | null = null;
  return (file) => {
    exists ??= testFileExistsIn(modules());
    return exists(file);
  };
}

/**
 * Does the test root hold `file`? Python files by the index (the test root's files as git
 * lists them), else, as any other file (a YAML test a plugin collects, a doctest text file,
 * a test module generated into an ignored directory, which git does not list), by reading
 * it, when the index has a reader. Answers are remembered.
 */
export function testFileExistsIn(modules: ModuleIndex): TestFileExists {
  const known = new Map<string, boolean>();
  return (file) => {
    let found = known.get(file);
    if (found === undefined) {
      found =
        (file.endsWith(".py") &&
          (modules.get(file.slice(file.lastIndexOf("/") + 1, -3))?.includes(file) ?? false)) ||
        (file !== "" && (modules.read?.(file) ?? null) !== null);
      known.set(file, found);
    }
    return found;
  };
}

const DOTTED = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/;

/** The dynamic part of a context name (after a static prefix), for dotted test_function names. */
function dynamicPart(raw: string): string {
  const bar = raw.lastIndexOf("|");
  return bar < 0 ? raw : raw.slice(bar + 1);
}

export function looksLikeDottedTest(raw: string): boolean {
  return DOTTED.test(dynamicPart(raw));
}

/**
 * Reads a file of the test root (a path relative to it, as in the index): its text, or null
 * when there is no such file.
 */
export type TestRootReader = (file: string) => string | null;

/**
 * Python files grouped by module name (basename without ".py"), for dotted-name lookups, and
 * a reader for their text: test_function names can only be checked against the source (which
 * classes inherit tests, which functions a module defines). Without a reader such names are
 * refused.
 */
export type ModuleIndex = Map<string, string[]> & { read?: TestRootReader };

export function buildModuleIndex(
  pythonFiles: Iterable<string>,
  read?: TestRootReader,
): ModuleIndex {
  const index: ModuleIndex = new Map();
  for (const file of pythonFiles) {
    if (!file.endsWith(".py")) continue;
    const stem = file.slice(file.lastIndexOf("/") + 1, -3);
    const list = index.get(stem);
    if (list) list.push(file);
    else index.set(stem, [file]);
  }
  if (read) index.read = read;
  return index;
}

/**
 * The module name pytest's default import mode gives `file`: its directories up to the first
 * one without an `__init__.py` are its packages ("myapp/tests.py" in package myapp is
 * "myapp.tests", never the top-level "tests").
 */
function packageModuleName(file: string, packages: ReadonlySet<string>): string {
  const parts = [file.slice(file.lastIndexOf("/") + 1, -3)];
  for (let dir = dirOf(file); dir !== "" && packages.has(dir); dir = dirOf(dir.slice(0, -1))) {
    // "pkg/sub/": its own name, "sub"
    parts.unshift(dir.slice(dirOf(dir.slice(0, -1)).length, -1));
  }
  return parts.join(".");
}

/**
 * Candidate node ids for a dotted test_function name. "tests.test_b.TestCalc.test_mul" can be
 * tests/test_b.py::TestCalc::test_mul, or tests/test_b/TestCalc.py::test_mul, and, because
 * pytest's rootdir-less imports name a module by its basename, any ".../test_b.py": every
 * split whose module path is the tail of an existing file is a candidate. A deeper file
 * whose packages give it another name (Django's stub myapp/tests.py, in package myapp, for
 * "tests.test_x.test_d") loses to the candidates pytest would import under that name; alone,
 * it stays (a sys.path entry may still make it so).
 */
export function dottedCandidates(dotted: string, modules: ModuleIndex): string[] {
  const parts = dynamicPart(dotted).split(".");
  const likely: string[] = [];
  const unlikely: string[] = [];
  let packages: Set<string> | null = null;
  for (let i = 1; i < parts.length; i++) {
    const files = modules.get(parts[i - 1] as string);
    if (!files) continue;
    const tail = `${parts.slice(0, i).join("/")}.py`;
    for (const file of files) {
      if (file !== tail && !file.endsWith(`/${tail}`)) continue;
      const id = [file, ...parts.slice(i)].join("::");
      packages ??= new Set((modules.get("__init__") ?? []).map(dirOf));
      if (file === tail || packageModuleName(file, packages) === parts.slice(0, i).join(".")) {
        likely.push(id);
      } else {
        unlikely.push(id);
      }
    }
  }
  return likely.length > 0 ? likely : unlikely;
}

/** pytest's default `python_files`: the modules it collects tests from. */
const isTestModule = compileGlobs(PYTEST_DEFAULT_PYTHON_FILES, compilePythonFilesGlob);
/** pytest's default `python_classes`. */
const TEST_CLASS = /^Test/;
/** A directory of tests ("tests/", "test/", "testing/" anywhere in the path). */
const TEST_DIRECTORY = /(?:^|\/)(?:tests?|testing)\//;

/**
 * What a test_function name mapped to `nodeId` stands for. coverage.py starts a context for
 * ANY function named `test*` called while no context is active, and names a method after the
 * class that DEFINES it (`func.__module__ + "." + func.__qualname__`), so:
 * - "test": a function, or a method of `Test*` classes, in a module named like pytest's
 *   default `python_files` (test_*.py, *_test.py): what pytest collects by default.
 * - "outside": a module-level function in a module pytest never collects tests from (a
 *   source module outside any test directory, or a conftest.py): a helper such as
 *   `lib.testdata()` that a fixture called. It ran outside tests, like the empty context.
 * - otherwise a reason to refuse: a method of a class not named `Test*`, or a name in a
 *   non-test module under a test directory. That is what an inherited test method looks
 *   like (recorded under its base class, whose node id pytest never collected, while the
 *   subclass that ran it may sit in another file), or a test that a custom `python_files` /
 *   `python_classes` collects. The data alone cannot tell which tests ran it, and neither a
 *   live test nor "outside tests" would be a safe reading.
 * A "test" whose class a `Test*` class inherits from, and an "outside" name that no
 * module-level function of its module has or in a module a configured `python_files`
 * collects, are refused later, from the source (see `indexContexts`).
 */
export function dottedTestKind(nodeId: string): "test" | "outside" | { refuse: string } {
  const parts = nodeId.split("::");
  const file = parts[0] as string;
  const classes = parts.slice(1, -1);
  const base = file.slice(file.lastIndexOf("/") + 1);
  if (isTestModule(file)) {
    const other = classes.find((name) => !TEST_CLASS.test(name));
    return other === undefined
      ? "test"
      : {
          refuse: `class ${other} is not named Test*: pytest collects it only as a unittest.TestCase, and a class a test inherits its methods from is named this way too`,
        };
  }
  // A module whose name says "test" (Django's tests.py, a custom python_files) may well be
  // collected: only a module that looks like plain source holds mere helpers.
  const plainSource = !TEST_DIRECTORY.test(file) && !/test/i.test(base);
  if (classes.length === 0 && (base === "conftest.py" || plainSource)) return "outside";
  return {
    refuse: `${file} is not named test_*.py or *_test.py, so pytest does not collect it by default`,
  };
}

/**
 * Functions named test* that coverage.py starts a context for but that run no test body:
 * unittest's `_Outcome.testPartExecutor` is a generator that yields before the test method
 * runs, ending its context there (the test method then starts its own); pytest-cov's
 * `SessionWrapper.testsfailed` is a property that counts failures, when pytest-cov runs the
 * tests under `dynamic_context = test_function`.
 */
const LIBRARY_NO_TEST = new Set([
  "unittest.case._Outcome.testPartExecutor",
  "pytest_cov.compat.SessionWrapper.testsfailed",
]);

/** What the source says about test_function names (files read on first need). */
interface SourceFacts {
  /** Why the "outside" node id `id` may be a test after all; null for a real helper. */
  notAHelper(id: string): string | null;
  /** Does no file or directory of the repository carry the name's top-level module? */
  outsideRepository(name: string): boolean;
  /** The refusal for a mapped test whose defining class another class inherits from. */
  inheritedTest(mapped: Iterable<ParsedContext>): string | null;
  /** Why the test node id `id` is not what ran: its file defines no such function; or null. */
  undefinedTest(id: string): string | null;
  /** Is the test node id `id` a fixture named test*, a test, or cannot that be told? */
  fixture(id: string): "fixture" | "test" | "unknown";
}

interface ClassDef extends ClassHeader {
  file: string;
}

/** Does `text` hold `def name(` (or `async def`), at module level or at any indentation? */
function definesFunction(text: string, name: string, where: "module level" | "any level"): boolean {
  const indent = where === "module level" ? "" : "[ \\t]*";
  return new RegExp(`^${indent}(?:async[ \\t]+)?def[ \\t]+${name}[ \\t]*\\(`, "m").test(text);
}

/** `@pytest.fixture`, `@fixture(...)`, `@pytest_asyncio.fixture`, `@pytest.yield_fixture`. */
const FIXTURE_DECORATOR = /^@[ \t]*(?:[A-Za-z_][\w.]*\.)?(?:yield_)?fixture\b/;

/**
 * The decorators right above the line at `at` (multi-line calls whole, comments and blank
 * lines between them passed over), from the nearest up.
 */
function decoratorsAbove(lines: readonly string[], at: number): string[] {
  const found: string[] = [];
  let depth = 0;
  let pending: string[] = [];
  for (let i = at - 1; i >= 0; i--) {
    const line = lines[i] as string;
    const trimmed = line.trim();
    if (depth === 0 && (trimmed === "" || trimmed.startsWith("#"))) continue;
    // Read upwards, a closing bracket opens a group and an opening one closes it.
    for (const c of line.replace(/#.*$/, "")) {
      if (c === ")" || c === "]" || c === "}") depth++;
      else if (c === "(" || c === "[" || c === "{") depth--;
    }
    pending.unshift(trimmed);
    if (depth > 0) continue;
    depth = 0;
    if (!trimmed.startsWith("@")) break;
    found.push(pending.join(" "));
    pending = [];
  }
  return found;
}

/**
 * Is the function a test_function node id names a pytest fixture? pytest does not collect a
 * fixture named test* (`test_client`), but coverage.py's test_function starts a context for it
 * when it runs between tests, as the setup of the test that asked for it. A decorator counts
 * when it is pytest's fixture or a name the file assigns from it (`module_fixture =
 * pytest.fixture(scope="module")`, or `from pytest import fixture as fx`). `file::name` is the
 * last unindented def of that name (the one Python binds); without one (a def under `if` or
 * `try`), every def of that name decides. For `file::Class::name` the class body is not read here (nested and
 * repeated classes, strings at column 0): every def of that name in the file decides, and a
 * file where some are fixtures and some not is "unknown".
 */
function fixtureKind(text: string, id: string): "fixture" | "test" | "unknown" {
  const parts = id.split("::");
  const name = parts.at(-1) as string;
  const lines = text.split(/\r?\n|\r/);
  const aliases = [
    ...text.matchAll(/^([A-Za-z_]\w*)[ \t]*=[ \t]*(?:[A-Za-z_][\w.]*\.)?fixture\b/gm),
    // `from pytest import fixture as fx`, also inside brackets over several lines
    ...text.matchAll(
      /^[ \t]*from[ \t]+[\w.]+[ \t]+import[ \t]*(?:\([^)]*?|[^\n(]*?)\bfixture\s+as\s+([A-Za-z_]\w*)/gm,
    ),
  ].map((m) => m[1] as string);
  const isFixture = (decorator: string) =>
    FIXTURE_DECORATOR.test(decorator) ||
    aliases.some((a) => new RegExp(`^@[ \\t]*${a}\\b`).test(decorator));
  const def = new RegExp(`^([ \\t]*)(?:async[ \\t]+)?def[ \\t]+${name}[ \\t]*\\(`);
  const kinds: boolean[] = [];
  /** Defs of the name at any indentation, for a module-level name defined under if or try. */
  const indented: boolean[] = [];
  for (let i = 0; i < lines.length; i++) {
    const m = def.exec(lines[i] as string);
    if (m === null) continue;
    const moduleLevel = (m[1] as string) === "";
    const fixture = decoratorsAbove(lines, i).some(isFixture);
    if (!moduleLevel) indented.push(fixture);
    if (parts.length > 2 === moduleLevel) continue;
    kinds.push(fixture);
  }
  if (parts.length <= 2 && kinds.length > 0) return kinds.at(-1) ? "fixture" : "test";
  // No unindented def: the module binds one under an `if` or `try` (or the name is also a
  // method's); every such def decides, as in a class.
  const judged = parts.length <= 2 ? indented : kinds;
  if (judged.length === 0) return "test";
  if (judged.every((k) => k)) return "fixture";
  return judged.some((k) => k) ? "unknown" : "test";
}

function sourceFacts(modules: ModuleIndex): SourceFacts {
  const read = modules.read;
  const files = () => [...modules.values()].flat();
  // The test root's python_files, as pytest 7 or pytest 9 reads them; null: any module may
  // be collected (a configuration not read here).
  let pythonFiles: PathMatcher | null | undefined;
  const collectedByConfig = (file: string) => {
    if (read === undefined) return true;
    if (pythonFiles === undefined) {
      const globs = pytestPythonFiles(read, "either");
      pythonFiles = globs === null ? null : compileGlobs(globs, compilePythonFilesGlob);
    }
    return pythonFiles === null || pythonFiles(file);
  };
  let topLevel: Set<string> | null = null;
  return {
    notAHelper(id) {
      const [file, name] = id.split("::") as [string, string];
      if (read === undefined) return `${file} was not read to check that it defines ${name}`;
      if (collectedByConfig(file)) {
        return `the python_files that pytest's configuration sets may collect ${file}`;
      }
      const text = read(file);
      if (text === null) return `${file} cannot be read to check that it defines ${name}`;
      // coverage.py names a function by the module of the object its module holds under that
      // name: a test wrapped by a decorator without functools.wraps carries the decorator's
      // module, which defines no such function.
      return definesFunction(text, name, "module level")
        ? null
        : `${file} defines no module-level function ${name}: a decorator without functools.wraps gives a test its own module's name`;
    },
    outsideRepository(name) {
      if (topLevel === null) {
        topLevel = new Set(modules.keys());
        for (const file of files())
          for (const dir of file.split("/").slice(0, -1)) topLevel.add(dir);
      }
      return !topLevel.has(dynamicPart(name).split(".")[0] as string);
    },
    undefinedTest(id) {
      const parts = id.split("::");
      const file = parts[0] as string;
      const name = parts.at(-1) as string;
      const text = read?.(file);
      // Unread files are taken as they are named (a reader is always given by the audit).
      if (text === undefined || text === null) return null;
      // A decorator without functools.wraps, defined in a test module, gives the test that
      // module's name: the name then points at a function the file does not define.
      return definesFunction(text, name, "any level")
        ? null
        : `${file} defines no function ${name}: a decorator without functools.wraps gives a test its own module's name`;
    },
    fixture(id) {
      const file = id.slice(0, id.indexOf("::"));
      const text = read?.(file);
      return typeof text === "string" ? fixtureKind(text, id) : "test";
    },
    inheritedTest(mapped) {
      // Classes that define a test the data names, with one name each for the message.
      const definers = new Map<string, string>();
      for (const { raw, testId } of mapped) {
        const parts = (testId as string).split("::");
        const cls = parts.at(-2) as string;
        if (parts.length > 2 && !definers.has(cls)) definers.set(cls, raw);
      }
      if (definers.size === 0) return null;
      if (read === undefined) {
        return `test methods such as "${[...definers.values()][0]}" cannot be told from those a subclass inherits: the test files were not read`;
      }
      // The files that may hold a collected test class or a class between it and its base.
      const byName = new Map<string, ClassDef[]>();
      const defs: ClassDef[] = [];
      for (const file of files()) {
        const base = file.slice(file.lastIndexOf("/") + 1);
        const testish =
          isTestModule(file) ||
          TEST_DIRECTORY.test(file) ||
          /test/i.test(base) ||
          base === "conftest.py" ||
          collectedByConfig(file);
        const text = testish ? read(file) : null;
        if (text === null) continue;
        for (const header of classHeaders(text)) {
          const def: ClassDef = { ...header, file };
          defs.push(def);
          const list = byName.get(def.name);
          if (list) list.push(def);
          else byName.set(def.name, [def]);
        }
      }
      // Any class, not only Test* ones: pytest collects a unittest.TestCase by any name.
      for (const def of defs) {
        const seen = new Set<string>();
        const queue = [...def.bases];
        while (queue.length > 0) {
          const base = queue.shift() as string;
          if (seen.has(base)) continue;
          seen.add(base);
          const name = definers.get(base);
          if (name !== undefined) {
            return `class ${def.name} (${def.file}) inherits from ${base}, and test_function names an inherited test method after the class that defines it, so "${name}" stands for runs of both classes that cannot be told apart`;
          }
          for (const parent of byName.get(base) ?? []) queue.push(...parent.bases);
        }
      }
      return null;
    },
  };
}

export interface ContextIndex {
  style: ContextStyle;
  /** The parsed form of a context name from the data (testId null: no test). Cached. */
  get(name: string): ParsedContext;
  /** Is this test id in the data? */
  hasTest(id: string): boolean;
  /**
   * Every test id in the data. Plain pytest-cov names give theirs while the names are
   * indexed; other styles compute them on first use (each name parsed).
   */
  readonly testIds: ReadonlySet<string>;
  /** Context names that name no test (the empty context, static-only labels). */
  readonly nonTestContexts: readonly string[];
  /** How many distinct tests the data names (`testIds.size`, without listing them). */
  readonly testCount: number;
  /**
   * Answers `hasTest` for many ids at once (one question to the data instead of one per
   * id). Optional: indexes that hold every test id answer `hasTest` directly.
   */
  preloadTests?(ids: readonly string[]): void;
}

/** Index of the bar before a pytest-cov phase suffix ("|run", "|setup", "|teardown"), or -1. */
function phaseBar(raw: string): number {
  const bar = raw.lastIndexOf("|");
  if (bar <= 0) return -1;
  const n = raw.length - bar - 1;
  if (
    n === 3
      ? raw.endsWith("run")
      : n === 5
        ? raw.endsWith("setup")
        : n === 8 && raw.endsWith("teardown")
  ) {
    return bar;
  }
  return -1;
}

/**
 * Understand the context names in the data. Mixed styles are refused (a data file combined
 * from a pytest-cov run and a test_function run cannot be read consistently). Dotted names are
 * mapped to node ids only when exactly one candidate exists; otherwise this throws with the
 * names that could not be mapped. pytest-cov names are parsed lazily, when a line or a frozen
 * id asks for them: a 20,000-test suite has 60,000 of them.
 */
export function indexContexts(
  names: readonly string[],
  modules: ModuleIndex | (() => ModuleIndex),
): ContextIndex {
  const cache = new Map<string, ParsedContext>();
  let pytestCov = 0;
  let firstPytestCov = "";
  let staticPrefixed = false;
  // Listing the repository's files costs a git call: only names that need them ask.
  const getModules = moduleIndexOnFirstUse(modules);
  const exists = lazyTestFileExists(getModules);
  // The part before the first "::" of the names with a "|" there (a static context, or a
  // path holding "|"), with a name that has it.
  const barHeads = new Map<string, string>();
  const dotted: string[] = [];
  let mappedTests = 0;
  // One pass over every name (a 20,000-test suite has 20,000 to 60,000). Alongside the
  // style, it collects what `testIds` and `nonTestContexts` are for plain pytest-cov names
  // (no static prefix), the common case: a node id is the name up to its phase bar.
  const plainIds = new Set<string>();
  const plainRest: string[] = [];
  for (const raw of names) {
    if (raw === "") {
      plainRest.push(raw);
      continue;
    }
    // Cheap string tests only. A name ending in a phase with "::" before its last bar is
    // what parsePytestCovContext accepts.
    const bar = phaseBar(raw);
    const sep = bar > 0 ? raw.indexOf("::") : -1;
    if (sep > 0 && sep < bar) {
      plainIds.add(raw.slice(0, bar));
      // A static context prefix ("shard|tests/x.py::t|run") defeats exact-name lookups.
      const prefixBar = raw.lastIndexOf("|", sep);
      if (prefixBar < 0 || raw.indexOf("::", prefixBar) > prefixBar + 1) {
        pytestCov++;
        if (firstPytestCov === "") firstPytestCov = raw;
        if (prefixBar >= 0) {
          staticPrefixed = true;
          const head = raw.slice(0, sep);
          if (!barHeads.has(head)) barHeads.set(head, raw);
        }
        continue;
      }
    } else {
      plainRest.push(raw);
    }
    if (looksLikeDottedTest(raw)) dotted.push(raw);
  }
  if (pytestCov > 0 && dotted.length > 0) {
    throw refusal("contexts-mixed", {
      pytestCov: String(firstPytestCov),
      testFunction: dotted[0] as string,
    });
  }
  if (dotted.length > 0) {
    const moduleIndex = getModules();
    const source = sourceFacts(moduleIndex);
    const unmapped: string[] = [];
    const library: string[] = [];
    const ambiguous: string[] = [];
    const uncertain: string[] = [];
    const maybeTests: string[] = [];
    const phantom: string[] = [];
    const fixtureOrTest: string[] = [];
    let skippedHelpers = 0;
    for (const raw of dotted) {
      const candidates = dottedCandidates(raw, moduleIndex);
      const kinds = candidates.map(dottedTestKind);
      if (candidates.length === 0) {
        if (LIBRARY_NO_TEST.has(dynamicPart(raw))) continue;
        if (source.outsideRepository(raw)) library.push(raw);
        else unmapped.push(raw);
      } else if (kinds.every((kind) => kind === "outside")) {
        // A helper named test*: left out of the cache, so `get` reads it as no test. Unless
        // the source says it may be a test.
        const why = candidates.map((id) => [id, source.notAHelper(id)]).find(([, w]) => w !== null);
        if (why === undefined) skippedHelpers++;
        else maybeTests.push(`"${raw}" -> ${why[0]} (${why[1]})`);
      } else if (candidates.length > 1) {
        ambiguous.push(`${raw} -> ${candidates.join(" or ")}`);
      } else if (kinds[0] === "test") {
        // A fixture named test* ran between tests, for the one that asked for it: outside
        // tests, as any fixture under test_function (pytest-cov knows the test it set up).
        const kind = source.fixture(candidates[0] as string);
        if (kind === "fixture") {
          skippedHelpers++;
          continue;
        }
        if (kind === "unknown") {
          fixtureOrTest.push(`"${raw}" -> ${candidates[0]}`);
          continue;
        }
        const why = source.undefinedTest(candidates[0] as string);
        if (why !== null) {
          phantom.push(`"${raw}" -> ${candidates[0]} (${why})`);
          continue;
        }
        cache.set(raw, { raw, testId: candidates[0] as string, phase: null });
        mappedTests++;
      } else {
        // A fixture named test* in a module pytest does not collect (a pytest_plugins module,
        // a helper base class): outside tests, as a fixture in a test module is.
        if (source.fixture(candidates[0] as string) === "fixture") {
          skippedHelpers++;
          continue;
        }
        const reason = (kinds[0] as { refuse: string }).refuse;
        uncertain.push(`"${raw}" -> ${candidates[0]} (${reason})`);
      }
    }
    /** The names of one kind that cannot be told: how many, and the first. */
    const names = (list: readonly string[]) => ({ count: list.length, example: list[0] as string });
    if (ambiguous.length > 0) throw refusal("test-function-ambiguous", names(ambiguous));
    if (uncertain.length > 0) {
      throw refusal("test-function-inherited-uncertain", names(uncertain));
    }
    // A test method wrapped by a decorator without functools.wraps is named after the
    // wrapper: "test_utils.retry.<locals>.wrapper" names no test, yet a test ran under it.
    const wrapped = plainRest.find((raw) => raw.includes(".<locals>."));
    if (wrapped !== undefined) {
      phantom.push(
        `"${wrapped}" (a function defined inside another: a decorator without functools.wraps gives a test method its wrapper's name)`,
      );
    }
    if (fixtureOrTest.length > 0) {
      throw refusal("test-function-fixture-or-test", names(fixtureOrTest));
    }
    if (phantom.length > 0) {
      throw refusal("test-function-undefined-test", names(phantom));
    }
    if (maybeTests.length > 0) {
      throw refusal("test-function-in-source", names(maybeTests));
    }
    // With no name in the repository at all, a wrong --test-root is the likelier cause.
    if (library.length > 0 && cache.size === 0 && skippedHelpers === 0) {
      unmapped.push(...library.splice(0));
    }
    if (library.length > 0) {
      throw refusal("test-function-in-library", names(library));
    }
    if (unmapped.length > 0) {
      throw refusal("test-function-unmapped", names(unmapped));
    }
    const inherited = source.inheritedTest(cache.values());
    if (inherited !== null) throw refusal("test-function-inherited", { why: inherited });
  }
  const style: ContextStyle =
    pytestCov > 0 ? "pytest-cov" : mappedTests > 0 ? "test-function" : "none";

  // Where a "|" before the first "::" ends a static context or belongs to the file's path is
  // settled now for every such name (cheap: one question per test file), so that a name
  // that cannot be told refuses the data here, not while some line is read.
  const outside = new Set(plainRest);
  if (style === "pytest-cov") {
    for (const [head, raw] of barHeads) nodeIdStart(raw, head, exists, outside);
  }
  const get = contextParser(style, cache, exists, outside);

  const plain = style === "pytest-cov" && !staticPrefixed;
  let allIds: Set<string> | null = plain ? plainIds : null;
  let others: string[] | null = plain ? plainRest : null;
  const scanAll = () => {
    const ids = new Set<string>();
    const rest: string[] = [];
    for (const raw of names) {
      const id = get(raw).testId;
      if (id === null) rest.push(raw);
      else ids.add(id);
    }
    allIds = ids;
    others = rest;
  };

  return {
    style,
    get,
    hasTest(id) {
      return this.testIds.has(id);
    },
    get testIds() {
      if (allIds === null) scanAll();
      return allIds as Set<string>;
    },
    get nonTestContexts() {
      if (others === null) scanAll();
      return others as string[];
    },
    get testCount() {
      return this.testIds.size;
    },
  };
}

/**
 * ContextIndex.get: a name parsed once and remembered (`cache` may already hold the names
 * another rule mapped, such as dotted test_function names); with pytest-cov style names are
 * parsed as such (`exists` telling a static context from a path with "|"), any other name
 * stands for no test.
 */
function contextParser(
  style: ContextStyle,
  cache: Map<string, ParsedContext>,
  exists: TestFileExists,
  outside?: ReadonlySet<string>,
): (name: string) => ParsedContext {
  return (name) => {
    let parsed = cache.get(name);
    if (parsed === undefined) {
      parsed = (style === "pytest-cov" ? parsePytestCovContext(name, exists, outside) : null) ?? {
        raw: name,
        testId: null,
        phase: null,
      };
      cache.set(name, parsed);
    }
    return parsed;
  };
}

/**
 * Could this context name stand for a test (pytest-cov shape or dotted test_function name)?
 * Names for which it is false are "outside tests" in every style.
 */
export function mightNameTest(raw: string): boolean {
  const bar = phaseBar(raw);
  const sep = bar > 0 ? raw.indexOf("::") : -1;
  return (sep > 0 && sep < bar) || looksLikeDottedTest(raw);
}

/**
 * Is `id` a node id whose contexts are plain pytest-cov names (`id|run` and so on): it has
 * "::" after its first character and no "|" before its first "::" (a "|" there may end a
 * static context or belong to the file's path: only the test root's files tell, so such
 * names are read by `indexContexts`).
 */
export function isPlainTestId(id: string): boolean {
  const sep = id.indexOf("::");
  return sep > 0 && id.lastIndexOf("|", sep) < 0;
}

/**
 * The index for data whose tests all have plain pytest-cov names, from an overview; null when
 * the data is anything else (no plain names, or another name that might stand for a test:
 * a static prefix, a dotted test_function name), which `indexContexts` must then read in full.
 * It answers exactly as `indexContexts` over every name would.
 */
export function indexContextOverview(
  overview: ContextOverview,
  modules: ModuleIndex | (() => ModuleIndex),
): ContextIndex | null {
  if (overview.plainNames === 0 || overview.others.some(mightNameTest)) return null;
  const known = new Map<string, boolean>();
  let full: ContextIndex | null = null;
  const everything = () => {
    full ??= indexContexts(overview.allNames(), modules);
    return full;
  };
  return {
    style: "pytest-cov",
    // Plain names only come here (no "|" before the first "::"), but read as indexContexts would.
    get: contextParser("pytest-cov", new Map(), lazyTestFileExists(moduleIndexOnFirstUse(modules))),
    preloadTests(ids) {
      const asked = ids.filter((id) => !known.has(id) && isPlainTestId(id));
      const found = asked.length === 0 ? new Set<string>() : overview.knownTests(asked);
      for (const id of ids) if (!known.has(id)) known.set(id, found.has(id));
    },
    hasTest(id) {
      if (!known.has(id)) this.preloadTests?.([id]);
      return known.get(id) === true;
    },
    get testIds() {
      return everything().testIds;
    },
    nonTestContexts: overview.others,
    testCount: overview.plainTests,
  };
}
