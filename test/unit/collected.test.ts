// parseCollectedIds on what `pytest --collect-only -q` really prints (pytest 7.2, captured from
// real sessions): the ids come first, and nothing after the first "====" section counts,
// though warnings and plugin summaries there quote node ids among other words.

import { describe, expect, it } from "vitest";
import { parseCollectedIds } from "../../src/core/collected.js";

const ids = (text: string) => [...parseCollectedIds(text, "collected.txt")];

// The pytest plugin's summary under --collect-only before it learned to say nothing there:
// its indented lines quote frozen and property ids with owners and dates after them.
const WITH_PLUGIN_SUMMARY = `tests/test_price.py::test_flaky
tests/test_price.py::test_zero
tests/props/test_props.py::test_never_exceeds

================================== freezegate ==================================
ledger freeze-ledger.json, mode run, today 2026-12-01: 1 frozen test in this run, 0 expired freezes
frozen-not-run:
  tests/test_price.py::test_flaky (owner bob, expires 2026-12-15)
record: .freezegate/applied.json; samples: .freezegate/samples.json (0 tests with counted inputs)
compensating properties without a count (failed, not run or frozen in this run; they cannot vouch for a freeze):
  tests/props/test_props.py::test_never_exceeds
3 tests collected in 0.26s
`;

const WITH_WARNINGS = `test_w.py::test_a

=============================== warnings summary ===============================
test_w.py:2
  /tmp/u14-warn/test_w.py:2: DeprecationWarning: at import
    warnings.warn("at import", DeprecationWarning)

-- Docs: https://docs.pytest.org/en/stable/how-to/capture-warnings.html
1 test collected in 0.00s
`;

describe("parseCollectedIds", () => {
  it("reads the ids pytest --collect-only -q prints and none of the report after them", () => {
    expect(ids(WITH_PLUGIN_SUMMARY)).toEqual([
      "tests/test_price.py::test_flaky",
      "tests/test_price.py::test_zero",
      "tests/props/test_props.py::test_never_exceeds",
    ]);
    expect(ids(WITH_WARNINGS)).toEqual(["test_w.py::test_a"]);
  });

  it("reads a plain list, one id per line, with blank lines, comments and CRLF", () => {
    expect(ids("# ids\r\ntests/a.py::t[x y]\r\n\r\ntests/b.py::C::t\r\n")).toEqual([
      "tests/a.py::t[x y]",
      "tests/b.py::C::t",
    ]);
  });

  it("refuses output that is not collect-only -q output", () => {
    // Without -q: a header section first, then the tree (no node id before it).
    const verbose = `============================= test session starts ==============================
platform linux -- Python 3.11.2, pytest-7.2.1, pluggy-1.0.0+repack
rootdir: /tmp/u14-warn
plugins: cov-4.0.0, hypothesis-6.67.1, xdist-3.1.0
collected 1 item

<Module test_w.py>
  <Function test_a>

========================== 1 test collected in 0.01s ===========================
`;
    expect(() => ids(verbose)).toThrow(
      "collected.txt names no tests (no line holds a node id like tests/test_x.py::test_y)",
    );
    expect(() => ids("test_w.py: 1\n\n1 test collected in 0.00s\n")).toThrow(
      'collected.txt holds per-file counts ("test_w.py: 1"), not node ids: it looks like pytest --collect-only -qq output',
    );
    // A report section's lines are no ids, even when they quote one.
    expect(() => ids(WITH_PLUGIN_SUMMARY.slice(WITH_PLUGIN_SUMMARY.indexOf("====")))).toThrow(
      "collected.txt names no tests",
    );
  });
});
