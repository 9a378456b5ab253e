// pytest-cov's context names, read as tests: "tests/test_a.py::test_x[p|q]|run" is the node id
// and the phase after the last "|"; a static context ([run] context) may stand before the node
// id ("shardA|tests/x.py::t|run"), and a "|" there may also belong to the test file's path (the
// test root's files tell, see nodeIdStart). Also the cheap shape tests the data readers use to
// count plain names without parsing them, and the shape of coverage.py's dotted test_function
// names (test-function-names.ts maps those to node ids). Pure: the test root's files come in
// as a function.

import type { ParsedContext, TestFileExists, TestPhase } from "../../core/model.js";
import { refusal } from "../../core/refusals/index.js";

const PHASES = new Set(["run", "setup", "teardown"]);

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
 * context holds it. Without `exists` (a caller outside the data), everything up
 * to the last "|" is the static context, as "[run] context = shard-1" gives.
 */
export function nodeIdStart(
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

const DOTTED = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)+$/;

/** The dynamic part of a context name (after a static prefix), for dotted test_function names. */
export function dynamicPart(raw: string): string {
  const bar = raw.lastIndexOf("|");
  return bar < 0 ? raw : raw.slice(bar + 1);
}

export function looksLikeDottedTest(raw: string): boolean {
  return DOTTED.test(dynamicPart(raw));
}

/** Index of the bar before a pytest-cov phase suffix ("|run", "|setup", "|teardown"), or -1. */
export function phaseBar(raw: string): number {
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
 * names are read by `indexContexts` (contexts.ts)).
 */
export function isPlainTestId(id: string): boolean {
  const sep = id.indexOf("::");
  return sep > 0 && id.lastIndexOf("|", sep) < 0;
}
