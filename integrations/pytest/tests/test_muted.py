"""What the applied record says about tests that do not gate for other reasons than the
ledger: tests an xfail muted (``muted``) and frozen tests
that were collected but not run (``deselected_frozen``). freezegate check counts the first as
frozen and refuses the second."""

import pytest
from fz_helpers import freeze, read_json, run, write_ledger

SUITE = """
import pytest

def test_frozen():
    assert False, "frozen"

@pytest.mark.xfail(reason="known bug")
def test_known_bug():
    assert False

@pytest.mark.xfail(reason="fixed meanwhile")
def test_xpasses():
    pass

@pytest.mark.xfail(strict=True, reason="must keep failing")
def test_strict_xpass():
    pass

@pytest.mark.xfail(strict=True, reason="strict, still failing")
def test_strict_xfail():
    assert False

@pytest.mark.xfail(raises=KeyError)
def test_wrong_exception():
    raise ValueError("not the expected one")

def test_imperative():
    pytest.xfail("not today")

@pytest.mark.xfail(run=False, reason="never runs")
def test_not_run():
    assert False

def test_plain():
    pass
"""


def record_of(pytester):
    return read_json(pytester.path / ".freezegate" / "applied.json")


def test_tests_an_xfail_muted_are_recorded_unless_the_ledger_froze_them(pytester):
    pytester.makepyfile(test_a=SUITE)
    write_ledger(pytester, freeze("test_a.py::test_frozen"))
    result = run(pytester)
    # A strict xpass and an unexpected exception fail: those failures gate.
    result.assert_outcomes(passed=1, failed=2, xfailed=5, xpassed=1)
    record = record_of(pytester)
    assert record["applied"] == ["test_a.py::test_frozen"]
    # Strict or not, an xfailed test's failure cannot fail the run; an xpassed one's could not
    # either had it failed.
    assert record["muted"] == [
        "test_a.py::test_imperative",
        "test_a.py::test_known_bug",
        "test_a.py::test_not_run",
        "test_a.py::test_strict_xfail",
        "test_a.py::test_xpasses",
    ]
    assert record["deselected_frozen"] == []
    result.stdout.fnmatch_lines(
        [
            "muted by xfail outside the ledger (5; their failures cannot fail the run, so freezegate check counts them as frozen):",
            "  test_a.py::test_imperative",
        ]
    )


def test_an_xfail_marker_added_by_a_conftest_mutes_the_test(pytester):
    pytester.makepyfile(test_a="def test_statement():\n    assert False\n\ndef test_other():\n    pass\n")
    pytester.makeconftest(
        """
import pytest

def pytest_collection_modifyitems(items):
    for item in items:
        if item.name == "test_statement":
            item.add_marker(pytest.mark.xfail(reason="follow-up"))
"""
    )
    write_ledger(pytester)
    result = run(pytester, subprocess_run=True)
    assert result.ret == 0, result.stdout.str()
    assert record_of(pytester)["muted"] == ["test_a.py::test_statement"]
    # --runxfail: the marker mutes nothing, and the test gates again.
    result = run(pytester, "--runxfail", subprocess_run=True)
    assert result.ret == 1
    assert record_of(pytester)["muted"] == []


CONFTEST_DESELECTS = """
def pytest_collection_modifyitems(config, items):
    gone = [i for i in items if "lists" in i.nodeid]
    items[:] = [i for i in items if "lists" not in i.nodeid]
    if gone and {announce}:
        config.hook.pytest_deselected(items=gone)
"""

STATEMENT_TESTS = """
def test_statement_lists_entries():
    assert False

def test_statement_is_a_method():
    pass

def test_other_lists():
    pass
"""


@pytest.mark.parametrize("announce", [True, False], ids=["deselected", "dropped"])
def test_a_glob_frozen_test_a_conftest_takes_out_of_the_run_is_recorded(pytester, announce):
    pytester.makepyfile(test_l=STATEMENT_TESTS)
    pytester.makeconftest(CONFTEST_DESELECTS.format(announce=announce))
    write_ledger(pytester, freeze("test_l.py::test_statement_*"))
    result = run(pytester, subprocess_run=True)
    assert result.ret == 0, result.stdout.str()
    record = record_of(pytester)
    assert record["applied"] == ["test_l.py::test_statement_is_a_method"]
    # test_other_lists is gone too, but the ledger does not freeze it.
    assert record["deselected_frozen"] == ["test_l.py::test_statement_lists_entries"]
    result.stdout.fnmatch_lines(
        [
            "frozen but not run (deselected): they leave no coverage, so freezegate check refuses this run; let frozen tests run:",
            "  test_l.py::test_statement_lists_entries",
        ]
    )


def test_deselecting_a_test_whose_freeze_expired_is_not_recorded(pytester):
    pytester.makepyfile(test_l=STATEMENT_TESTS)
    write_ledger(pytester, freeze("test_l.py::test_statement_*", expires="2026-10-01"))
    result = run(pytester, "--deselect", "test_l.py::test_statement_lists_entries")
    assert result.ret == 0, result.stdout.str()
    record = record_of(pytester)
    assert record["expired"] == ["test_l.py::test_statement_*"]
    assert record["deselected_frozen"] == []


def test_a_property_an_xfail_muted_gets_no_count_even_when_it_passed(pytester):
    # Its failure would not have failed the run: like a frozen property, it vouches for nothing.
    pytester.makepyfile(
        test_p="""
import pytest
import freezegate_pytest

@pytest.mark.xfail(reason="flaky")
def test_muted_property():
    for n in range(12):
        freezegate_pytest.record(n)

def test_live_property():
    for n in range(9):
        freezegate_pytest.record(n)
"""
    )
    write_ledger(pytester)
    result = run(pytester)
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=1, xpassed=1)
    assert record_of(pytester)["muted"] == ["test_p.py::test_muted_property"]
    samples = read_json(pytester.path / ".freezegate" / "samples.json")
    assert samples["properties"] == {"test_p.py::test_live_property": {"distinct": 9}}


def test_a_frozen_test_the_session_never_reached_is_recorded_as_not_run(pytester):
    # pytest.exit(returncode=0) after the first test (a CI time budget)
    # left the frozen test applied with no outcome and no coverage, and nothing said so.
    pytester.makepyfile(
        test_a="def test_first():\n    pass\n\ndef test_frozen():\n    assert False\n"
    )
    pytester.makeconftest(
        """
import pytest

def pytest_runtest_teardown(item):
    if item.name == "test_first":
        pytest.exit("time budget used up", returncode=0)
"""
    )
    write_ledger(pytester, freeze("test_a.py::test_frozen"))
    result = run(pytester)
    assert result.ret == 0, result.stdout.str()
    record = record_of(pytester)
    assert record["applied"] == ["test_a.py::test_frozen"]
    assert record["outcomes"] == {}
    assert record["deselected_frozen"] == ["test_a.py::test_frozen"]
