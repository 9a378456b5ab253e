// The one reader of Python class headers (src/languages/python/class-headers.ts), on the
// headers where the two readers it replaces disagreed: one missed a subscripted base and a
// base list with a ")" in a comment, the other took a metaclass or a subscript's argument for
// a base, and a docstring's prose for a class.

import { describe, expect, it } from "vitest";
import { classHeaders } from "../../src/languages/python/class-headers.js";

describe("classHeaders", () => {
  it.each([
    ["class A:\n", { name: "A", bases: [] }],
    ["class A(mod.Base):\n", { name: "A", bases: ["Base"] }],
    ["class A(Base[int], Generic[T]):\n", { name: "A", bases: ["Base", "Generic"] }],
    ["class A(B, metaclass=Meta, **extra):\n", { name: "A", bases: ["B"] }],
    ["class A(*bases, C):\n", { name: "A", bases: ["C"] }],
    ["class A(make_base(x, y), D) :\n", { name: "A", bases: ["make_base", "D"] }],
    [
      "    class A(\n        B,  # the old base (kept)\n        C,\n    ):\n",
      { name: "A", bases: ["B", "C"] },
    ],
  ])("%j", (text, header) => {
    expect(classHeaders(text)).toEqual([header]);
  });

  it("reads nested classes, and no prose that lacks a header's colon", () => {
    const text = [
      "class TestShape(Base):",
      '    """Shapes. A subclass such as',
      "    class Square(Shape) is a test class too.",
      '    """',
      "    class Inner(TestShape):",
      "        pass",
      "",
    ].join("\n");
    expect(classHeaders(text)).toEqual([
      { name: "TestShape", bases: ["Base"] },
      { name: "Inner", bases: ["TestShape"] },
    ]);
  });
});
