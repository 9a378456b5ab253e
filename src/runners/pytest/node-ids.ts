// pytest's node ids (`tests/test_a.py::TestX::test_y[p1-p2]`): the grammar the ledger, the
// applied record and pytest-cov's context names share. Pure.

import { posix } from "node:path";

/**
 * A node id without its parameters: `tests/t.py::test_y[a-b]` is `tests/t.py::test_y`. They
 * are the bracketed end of the test's name, from the first "[" after the file part (class and
 * function names hold none; a directory or file named with brackets keeps them, and the
 * parameters may themselves hold "[", "]" or "::"). An id without them is returned as it is.
 */
export function withoutParameters(id: string): string {
  if (!id.endsWith("]")) return id;
  const names = id.indexOf("::");
  const open = id.indexOf("[", names < 0 ? 0 : names + 2);
  return open < 0 ? id : id.slice(0, open);
}

/**
 * The names a node id gives inside its file, without parameters:
 * `tests/t.py::TestX::test_y[a]` is `TestX::test_y`.
 */
export function namesInFile(id: string): string {
  return withoutParameters(id).split("::").slice(1).join("::");
}

/** The classes a node id's test is in, outermost first: `t.py::A::B::test_y` gives A, B. */
export function classesOf(id: string): string[] {
  return withoutParameters(id).split("::").slice(1, -1);
}

/**
 * A doctest's node id (`--doctest-modules`: `app/limits.py::app.limits.check`): its name is a
 * dotted one, which no test function or class has. A doctest in a module makes it no test
 * file: the module is library code.
 */
export function isDoctestId(id: string): boolean {
  const parts = withoutParameters(id).split("::");
  return parts.length === 2 && (parts[1] as string).includes(".");
}

/**
 * A node id (relative to the test root `prefix`, "" or "dir/", as the data names it) as a
 * pytest argument given in repository directory `cwd` ("" for the root): pytest reads the file
 * part relative to where it runs.
 */
export function nodeIdArgument(id: string, prefix: string, cwd: string): string {
  const sep = id.indexOf("::");
  const file = sep < 0 ? id : id.slice(0, sep);
  const rest = sep < 0 ? "" : id.slice(sep);
  const from = posix.relative(`/${cwd}`, `/${prefix}${file}`);
  return `${from}${rest}`;
}
