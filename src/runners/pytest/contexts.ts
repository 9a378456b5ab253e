// Context names -> tests. coverage.py labels each executed line with a context; which test
// that context stands for depends on who recorded it:
//   pytest-cov --cov-context=test   "tests/test_a.py::test_x[p|q]|run"   (node id + phase)
//   coverage dynamic_context=test_function   "tests.test_a.TestX.test_y" (dotted, no phase)
//   the empty context ""            code run outside any test (imports, collection)
// The first are read by context-names.ts, the second by test-function-names.ts; this module
// tells which the data holds and indexes them for the audit (ContextIndex).

import type {
  ContextIndex,
  ContextOverview,
  ContextStyle,
  ParsedContext,
  TestFileExists,
} from "../../core/model.js";
import { refusal } from "../../core/refusals/index.js";
import {
  isPlainTestId,
  looksLikeDottedTest,
  mightNameTest,
  nodeIdStart,
  parsePytestCovContext,
  phaseBar,
} from "./context-names.js";
import { testFunctionTests } from "./test-function-names.js";
import { lazyTestFileExists, type ModuleIndex, moduleIndexOnFirstUse } from "./test-root-files.js";

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
      pytestCov: firstPytestCov,
      testFunction: dotted[0] as string,
    });
  }
  // Dotted names start the cache: `get` answers them as mapped, and any other as no test.
  const cache =
    dotted.length > 0
      ? testFunctionTests(dotted, plainRest, getModules())
      : new Map<string, ParsedContext>();
  const style: ContextStyle =
    pytestCov > 0 ? "pytest-cov" : cache.size > 0 ? "test-function" : "none";

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
