// A node id's parameters, taken off by one function (src/runners/pytest/node-ids.ts) where two
// regular expressions disagreed: one took everything from the first "[" on, closed or not, and
// both cut an id inside a directory named with brackets.

import { describe, expect, it } from "vitest";
import { classesOf, namesInFile, withoutParameters } from "../../src/runners/pytest/node-ids.js";

describe("withoutParameters", () => {
  it.each([
    ["tests/t.py::test_y[a-b]", "tests/t.py::test_y"],
    ["tests/t.py::TestX::test_y[1]", "tests/t.py::TestX::test_y"],
    // The parameters may hold brackets and "::".
    ["tests/t.py::test_y[[1, 2]-a::b]", "tests/t.py::test_y"],
    // A directory or file named with brackets is no parameter list.
    ["tests/[legacy]/t.py::test_y[1]", "tests/[legacy]/t.py::test_y"],
    ["tests/[legacy]/t.py::test_y", "tests/[legacy]/t.py::test_y"],
    // No closing bracket: no parameters.
    ["tests/t.py::test_y[1", "tests/t.py::test_y[1"],
    ["tests/t.py::test_y", "tests/t.py::test_y"],
  ])("%s -> %s", (id, expected) => {
    expect(withoutParameters(id)).toBe(expected);
  });
});

describe("namesInFile and classesOf", () => {
  it.each([
    ["tests/t.py::test_y[a::b]", "test_y", []],
    ["tests/t.py::TestX::test_y[1]", "TestX::test_y", ["TestX"]],
    ["tests/t.py::TestX::Inner::test_y", "TestX::Inner::test_y", ["TestX", "Inner"]],
    ["tests/t.py", "", []],
  ])("%s: %s in %j", (id, names, classes) => {
    expect(namesInFile(id)).toBe(names);
    expect(classesOf(id)).toEqual(classes);
  });
});
