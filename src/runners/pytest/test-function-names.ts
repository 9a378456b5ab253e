// coverage.py's test_function contexts ("tests.test_a.TestX.test_y": module and qualified name,
// no phase) read as pytest node ids. We never guess: a dotted name becomes a node id only when
// exactly one test file in the repository can be its module and pytest would collect it there
// (see dottedTestKind), and no other class inherits the test method (a subclass's runs would
// carry the same name); a helper named test* that a source module defines ran outside tests,
// and so did unittest's testPartExecutor; anything else is refused. The source is read from
// the test root (test-root-files.ts).

import { compileGlobs, compilePythonFilesGlob, type PathMatcher } from "../../core/globs.js";
import type { ParsedContext } from "../../core/model.js";
import { dirOf } from "../../core/path-map.js";
import { refusal } from "../../core/refusals/index.js";
import { type ClassHeader, classHeaders } from "../../languages/python/class-headers.js";
import { dynamicPart } from "./context-names.js";
import { PYTEST_DEFAULT_PYTHON_FILES, pytestPythonFiles } from "./pytest-config.js";
import type { ModuleIndex } from "./test-root-files.js";

/**
 * The tests the data's dotted test_function names stand for (name -> parsed, testId a node
 * id); a name left out ran outside tests (a helper or fixture named test*). Throws when a name
 * cannot be told: it fits more than one file, may be an inherited method, names a function its
 * file does not define, and so on. `others`: the data's names that stand for no test (a test
 * wrapped by a decorator without functools.wraps shows there).
 */
export function testFunctionTests(
  dotted: readonly string[],
  others: readonly string[],
  moduleIndex: ModuleIndex,
): Map<string, ParsedContext> {
  const mapped = new Map<string, ParsedContext>();
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
      // A helper named test*: left out of the map, so `get` reads it as no test. Unless
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
      mapped.set(raw, { raw, testId: candidates[0] as string, phase: null });
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
  // Names that cannot say which test ran: how many, one of them, and why.
  const unclear = (
    names: readonly string[],
    problem:
      | "ambiguous"
      | "inherited-uncertain"
      | "fixture-or-test"
      | "undefined-test"
      | "in-source"
      | "in-library",
  ) =>
    refusal("test-function-names-unclear", {
      count: names.length,
      example: names[0] as string,
      problem,
    });
  if (ambiguous.length > 0) throw unclear(ambiguous, "ambiguous");
  if (uncertain.length > 0) throw unclear(uncertain, "inherited-uncertain");
  // A test method wrapped by a decorator without functools.wraps is named after the
  // wrapper: "test_utils.retry.<locals>.wrapper" names no test, yet a test ran under it.
  const wrapped = others.find((raw) => raw.includes(".<locals>."));
  if (wrapped !== undefined) {
    phantom.push(
      `"${wrapped}" (a function defined inside another: a decorator without functools.wraps gives a test method its wrapper's name)`,
    );
  }
  if (fixtureOrTest.length > 0) throw unclear(fixtureOrTest, "fixture-or-test");
  if (phantom.length > 0) throw unclear(phantom, "undefined-test");
  if (maybeTests.length > 0) throw unclear(maybeTests, "in-source");
  // With no name in the repository at all, a wrong --test-root is the likelier cause.
  if (library.length > 0 && mapped.size === 0 && skippedHelpers === 0) {
    unmapped.push(...library.splice(0));
  }
  if (library.length > 0) throw unclear(library, "in-library");
  if (unmapped.length > 0) {
    throw refusal("test-function-names-unmapped", {
      count: unmapped.length,
      example: unmapped[0] as string,
    });
  }
  const inherited = source.inheritedTest(mapped.values());
  if (inherited !== null) throw refusal("test-function-inherited", { why: inherited });
  return mapped;
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
 * collects, are refused later, from the source (see `testFunctionTests`).
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
