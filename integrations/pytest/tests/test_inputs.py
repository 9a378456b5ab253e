"""Distinct inputs of property tests, written as the samples artifact (real Hypothesis)."""

import json

import pytest
from fz_helpers import freeze, read_json, run, write_ledger

pytest.importorskip("hypothesis")

PROPS = """
import pytest
from hypothesis import example, given, settings, strategies as st
import freezegate_pytest

# A wide strategy: 16 random bytes are never generated twice in 20 examples.
@settings(max_examples=20, database=None)
@given(st.binary(min_size=16, max_size=16))
def test_wide(blob):
    pass

# Ignores its input and records one hard-coded value: a renamed example test.
@settings(max_examples=20, database=None)
@given(st.integers())
def test_ignores_input(n):
    freezegate_pytest.record((0, "constant"))

# Fixture values are not inputs; generated ones are.
@settings(max_examples=20, database=None, suppress_health_check=list(__import__("hypothesis").HealthCheck))
@given(blob=st.binary(min_size=16, max_size=16))
def test_with_fixture(tmp_path, blob):
    pass

@settings(max_examples=20, database=None)
@example(blob=b"explicit example!")
@given(blob=st.binary(min_size=16, max_size=16))
def test_with_example(blob):
    pass

def test_recorded_by_hand():
    for amount in [5, 7, 5, 9, 7, 11]:
        freezegate_pytest.record({"amount": amount})

@pytest.mark.parametrize("size", [1, 2])
def test_cases(size):
    for i in range(size * 3):
        freezegate_pytest.record(i)

def test_compensating_but_silent():
    pass

def test_not_a_property():
    pass

class TestInAClass:
    @settings(max_examples=20, database=None)
    @given(st.uuids())
    def test_method(self, u):
        pass
"""


def samples_of(pytester):
    return read_json(pytester.path / ".freezegate" / "samples.json")


def test_hypothesis_inputs_are_counted_and_explicit_records_win(pytester):
    pytester.makepyfile(test_props=PROPS, test_a="def test_frozen():\n    assert False\n")
    write_ledger(
        pytester,
        freeze("test_a.py::test_frozen", compensating_property="test_props.py::test_compensating_but_silent"),
    )
    result = run(pytester)
    assert result.ret == 0, result.stdout.str()
    assert samples_of(pytester) == {
        "version": 2,
        "tool": "pytest-freezegate",
        "commit": None,
        "properties": {
            "test_props.py::TestInAClass::test_method": {"distinct": 20},
            "test_props.py::test_cases[1]": {"distinct": 3},
            "test_props.py::test_cases[2]": {"distinct": 6},
            "test_props.py::test_compensating_but_silent": {"distinct": 0},
            "test_props.py::test_ignores_input": {"distinct": 1},
            "test_props.py::test_recorded_by_hand": {"distinct": 4},
            "test_props.py::test_wide": {"distinct": 20},
            "test_props.py::test_with_example": {"distinct": 21},
            "test_props.py::test_with_fixture": {"distinct": 20},
        },
    }
    result.stdout.fnmatch_lines(["record: * samples: .freezegate/samples.json (9 tests with counted inputs)"])


def test_counting_does_not_change_what_hypothesis_generates(pytester):
    # The wrapper keeps the body's source and signature, so a derandomized test draws the
    # same inputs (and would use the same example-database key) with or without the plugin.
    pytester.makepyfile(
        test_p="""
from hypothesis import given, settings, strategies as st

@settings(max_examples=15, database=None, derandomize=True)
@given(st.integers(), st.binary())
def test_p(n, s):
    with open("drawn.txt", "a") as out:
        out.write(repr((n, s)) + "\\n")
"""
    )
    write_ledger(pytester, raw=json.dumps({"version": 1, "freezes": []}))
    assert run(pytester).ret == 0
    with_plugin = (pytester.path / "drawn.txt").read_text()
    (pytester.path / "drawn.txt").unlink()
    assert pytester.runpytest("-p", "no:cacheprovider").ret == 0
    assert (pytester.path / "drawn.txt").read_text() == with_plugin
    # Every call is an example Hypothesis ran on choices it had not run before, also when
    # two of them print the same values (small integers and short byte strings repeat).
    assert samples_of(pytester)["properties"] == {"test_p.py::test_p": {"distinct": 15}}
    assert len(with_plugin.splitlines()) == 15


# Values that all print the same, like the classes attrs' test strategies build (every one is
# "HypClass"): a hundred different inputs with one repr.
SAME_REPR = """
import pytest
from hypothesis import example, given, settings, strategies as st
import freezegate_pytest

class Shape:
    def __init__(self, width, label):
        self.width, self.label = width, label

    def __repr__(self):
        return "Shape"

def ran(name):
    with open(name + ".ran", "a") as out:
        out.write("x\\n")

@settings(max_examples=30, database=None, derandomize=True)
@given(st.builds(Shape, st.integers(), st.text()))
def test_same_repr(shape):
    ran("test_same_repr")

# Draws made in the body belong to the example: st.data()'s object prints the same each call.
@settings(max_examples=25, database=None, derandomize=True)
@given(st.data())
def test_draws_in_the_body(data):
    data.draw(st.integers())
    ran("test_draws_in_the_body")

# Hypothesis runs a strategy without choices once, however many examples it may run.
@settings(max_examples=30, database=None, derandomize=True)
@given(st.just(Shape(1, "one")))
def test_no_choices(shape):
    ran("test_no_choices")

# Explicit examples draw no choices: told apart by repr, so equal ones count once.
@settings(max_examples=10, database=None, derandomize=True)
@example(n=1000001)
@example(n=1000001)
@example(n=1000002)
@given(n=st.integers(0, 9))
def test_explicit_examples(n):
    ran("test_explicit_examples")

# record() keeps repr as the identity: five different shapes recorded print as one.
@settings(max_examples=30, database=None, derandomize=True)
@given(st.integers())
def test_records_shapes(n):
    for width in range(5):
        freezegate_pytest.record(Shape(width, "w"))
"""


def test_generated_inputs_are_hypothesis_examples_and_recorded_ones_are_reprs(pytester):
    pytester.makepyfile(test_p=SAME_REPR)
    write_ledger(pytester, raw=json.dumps({"version": 1, "freezes": []}))
    result = run(pytester)
    assert result.ret == 0, result.stdout.str()

    def calls(name):
        return len((pytester.path / f"{name}.ran").read_text().splitlines())

    assert (calls("test_same_repr"), calls("test_draws_in_the_body")) == (30, 25)
    assert calls("test_no_choices") == 1
    # 3 explicit examples, and the 10 generated ones drew from 0-9 (distinct from them).
    explicit_and_generated = calls("test_explicit_examples")
    assert explicit_and_generated > 3
    assert samples_of(pytester)["properties"] == {
        "test_p.py::test_draws_in_the_body": {"distinct": 25},
        "test_p.py::test_explicit_examples": {"distinct": explicit_and_generated - 1},
        "test_p.py::test_no_choices": {"distinct": 1},
        "test_p.py::test_records_shapes": {"distinct": 1},
        "test_p.py::test_same_repr": {"distinct": 30},
    }


def test_inputs_the_body_rejects_with_assume_are_not_counted(pytester):
    # Only 0, 1 and 2 reach the assertion; every other draw is rejected by assume() or
    # reject(), and a rejected call is no example the property held on (counting every call
    # credited the property with the inputs it threw away).
    pytester.makepyfile(
        test_p="""
from hypothesis import assume, given, reject, settings, strategies as st

def reached(name, n):
    with open(name + ".txt", "a") as out:
        out.write(repr(n) + "\\n")

@settings(max_examples=40, database=None, derandomize=True)
@given(st.integers(0, 20))
def test_assumes(n):
    reached("called", n)
    assume(n < 3)
    reached("assumes", n)

@settings(max_examples=30, database=None, derandomize=True)
@given(st.integers(0, 20))
def test_rejects(n):
    if n >= 2:
        reject()
    reached("rejects", n)
"""
    )
    write_ledger(pytester, raw=json.dumps({"version": 1, "freezes": []}))
    assert run(pytester).ret == 0

    def lines(name):
        return (pytester.path / f"{name}.txt").read_text().split()

    assert set(lines("assumes")) <= {"0", "1", "2"} and set(lines("rejects")) <= {"0", "1"}
    # Each call that got past assume() is one example Hypothesis ran (a rejection sampler can
    # reach the same value by other choices); the rejected calls are not counted.
    assert len(lines("called")) > len(lines("assumes"))
    assert samples_of(pytester)["properties"] == {
        "test_p.py::test_assumes": {"distinct": len(lines("assumes"))},
        "test_p.py::test_rejects": {"distinct": len(lines("rejects"))},
    }


def test_record_outside_a_test_is_an_error_and_inactive_plugin_ignores_it(pytester):
    pytester.makepyfile(
        test_p="""
import freezegate_pytest

def test_p():
    freezegate_pytest.record(1)
""",
        test_q="""
import freezegate_pytest
freezegate_pytest.record("at import time")

def test_q():
    pass
""",
    )
    write_ledger(pytester, raw=json.dumps({"version": 1, "freezes": []}))
    result = run(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    result.stdout.fnmatch_lines(["*RuntimeError: freezegate_pytest.record() was called outside a running test*"])
    (pytester.path / "freeze-ledger.json").unlink()
    result = run(pytester, "test_p.py")
    assert result.ret == 0
    assert not (pytester.path / ".freezegate" / "samples.json").exists()


OUTCOMES = """
import pytest
from hypothesis import given, settings, strategies as st

@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown broke")

@settings(max_examples=20, database=None)
@given(st.binary(min_size=16, max_size=16))
def test_fails_sometimes(blob):
    assert blob[0] < 128

@settings(max_examples=20, database=None)
@given(st.binary(min_size=16, max_size=16))
def test_frozen_and_failing(blob):
    assert blob[0] < 128

@settings(max_examples=20, database=None)
@given(st.binary(min_size=16, max_size=16))
def test_frozen_and_passing(blob):
    pass

@settings(max_examples=20, database=None, suppress_health_check=list(__import__("hypothesis").HealthCheck))
@given(blob=st.binary(min_size=16, max_size=16))
def test_teardown_fails(broken_teardown, blob):
    pass

@pytest.mark.xfail(reason="known")
@settings(max_examples=20, database=None)
@given(st.binary(min_size=16, max_size=16))
def test_xfailed(blob):
    assert blob[0] < 128

@settings(max_examples=20, database=None)
@given(st.binary(min_size=16, max_size=16))
def test_skips_itself(blob):
    pytest.skip("not today")

@settings(max_examples=20, database=None)
@given(st.binary(min_size=16, max_size=16))
def test_passes(blob):
    pass
"""


@pytest.mark.parametrize("mode", ["run", "skip"])
def test_only_tests_that_passed_and_are_not_frozen_count_as_evidence(pytester, mode):
    # A compensating property that failed (muted or not), errored, xfailed, skipped or is
    # itself frozen did not show its invariant holding: no count, not even 0, so the deposit
    # gate cannot take its inputs as evidence (otherwise a frozen test named as its own
    # compensation, failing on half its inputs, would count with all of them).
    pytester.makepyfile(test_o=OUTCOMES)
    frozen_failing = "test_o.py::test_frozen_and_failing"
    write_ledger(
        pytester,
        freeze(frozen_failing, compensating_property=frozen_failing),
        freeze("test_o.py::test_frozen_and_passing", compensating_property="test_o.py::test_fails_sometimes"),
        freeze("test_o.py::test_teardown_fails", compensating_property="test_o.py::test_xfailed", opened="2026-09-20", expires="2026-10-01"),
        freeze("test_o.py::test_skips_itself", compensating_property="test_o.py::test_passes", opened="2026-09-20", expires="2026-10-01"),
    )
    result = run(pytester, "--freezegate-mode", mode)
    assert result.ret == pytest.ExitCode.TESTS_FAILED, result.stdout.str()
    assert samples_of(pytester) == {
        "version": 2,
        "tool": "pytest-freezegate",
        "commit": None,
        "properties": {"test_o.py::test_passes": {"distinct": 20}},
    }
    result.stdout.fnmatch_lines(
        [
            "record: * samples: .freezegate/samples.json (1 test with counted inputs)",
            "compensating properties without a count (failed, not run or frozen in this run; they cannot vouch for a freeze):",
            "  test_o.py::test_fails_sometimes",
            "  test_o.py::test_frozen_and_failing",
            "  test_o.py::test_xfailed",
        ]
    )


def test_a_frozen_property_that_passes_and_a_silent_one_that_fails_get_no_count(pytester):
    # The 0 written for a compensating property that recorded nothing is for one that passed.
    pytester.makepyfile(
        test_s="""
def test_silent_but_failing():
    assert False

def test_silent_and_passing():
    pass

def test_frozen():
    pass
"""
    )
    write_ledger(
        pytester,
        freeze("test_s.py::test_frozen", compensating_property="test_s.py::test_silent_but_failing"),
        freeze("test_s.py::test_silent_and_passing", compensating_property="test_s.py::test_frozen"),
    )
    result = run(pytester)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    assert samples_of(pytester)["properties"] == {}
    result.stdout.fnmatch_lines(
        [
            "compensating properties without a count*",
            "  test_s.py::test_frozen",
            "  test_s.py::test_silent_but_failing",
        ]
    )

