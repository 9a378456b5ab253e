import { describe, expect, it } from "vitest";
import { testBlock } from "../../src/core/test-blocks.js";

const FILE = [
  '"""Tests. Not a test: def test_in_docstring(x)."""',
  "import pytest",
  "",
  "",
  "@pytest.mark.skip(reason='windows only')",
  "def test_crlf():",
  "    assert False",
  "",
  "",
  "class TestStatement:",
  "    def helper(self):",
  "        return 1",
  "",
  "    @pytest.mark.parametrize('n', [1, 2])",
  "    async def test_ends(self, n):",
  "        assert n",
  "",
  "        assert self.helper()",
  "",
  "",
  "def test_ends():",
  "    pass",
  "",
].join("\n");

describe("testBlock: the source of the test a node id names", () => {
  it("takes a module-level test with its decorators and nothing after its body", () => {
    expect(testBlock(FILE, ["test_crlf"])).toBe(
      "@pytest.mark.skip(reason='windows only')\ndef test_crlf():\n    assert False",
    );
  });

  it("finds a method inside the class the id names, parametrized, async, blank lines kept", () => {
    expect(testBlock(FILE, ["TestStatement", "test_ends[1]"])).toBe(
      [
        "    @pytest.mark.parametrize('n', [1, 2])",
        "    async def test_ends(self, n):",
        "        assert n",
        "",
        "        assert self.helper()",
      ].join("\n"),
    );
    // The module-level def of the same name is another test.
    expect(testBlock(FILE, ["test_ends"])).toBe("def test_ends():\n    pass");
  });

  it("is null for a name only a docstring holds, a missing class or a def in another class", () => {
    expect(testBlock(FILE, ["test_in_docstring"])).toBeNull();
    expect(testBlock(FILE, ["TestOther", "test_ends"])).toBeNull();
    expect(testBlock(FILE, ["TestStatement", "test_crlf"])).toBeNull();
    // A method is not a module-level test.
    expect(testBlock(FILE, ["helper"])).toBeNull();
  });
});
