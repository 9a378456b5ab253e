"""Two pytest runs in one CI step (unit tests, then properties, with --cov-append): the
coverage data holds both, so the applied record and the samples must too. A second run on the same commit, ledger and mode adds to the first's outputs; on
another commit it replaces them."""

from fz_helpers import freeze, git, read_json, run, write_ledger

UNIT = """
import pytest

def test_frozen():
    assert False

def test_statement():
    assert False

def test_deselected_then_run():
    pass
"""

PROPS = """
import freezegate_pytest

def test_prop():
    for amount in range(6):
        freezegate_pytest.record(amount)

def test_other_prop():
    for amount in range(3):
        freezegate_pytest.record(amount)
"""

# The patch's conftest.py mutes test_statement (outside the ledger) in the first run only.
CONFTEST = """
import pytest

def pytest_collection_modifyitems(items):
    for item in items:
        if item.name == "test_statement":
            item.add_marker(pytest.mark.xfail(reason="muted by the patch"))
"""


def outputs(pytester):
    folder = pytester.path / ".freezegate"
    return read_json(folder / "applied.json"), read_json(folder / "samples.json")


def repository(pytester):
    pytester.makepyfile(test_unit=UNIT, test_props=PROPS)
    pytester.makeconftest(CONFTEST)
    write_ledger(
        pytester,
        freeze("test_unit.py::test_frozen", compensating_property="test_props.py::test_prop"),
        freeze("test_unit.py::test_deselected_then_run"),
    )
    (pytester.path / ".gitignore").write_text(".freezegate/\n", encoding="utf-8")
    git(pytester.path, "init", "-q")
    git(pytester.path, "add", "-A")
    git(pytester.path, "commit", "-qm", "init")
    return git(pytester.path, "rev-parse", "HEAD")


def test_a_second_run_on_the_same_commit_adds_to_the_first(pytester):
    head = repository(pytester)
    first = run(pytester, "test_unit.py", "test_props.py::test_other_prop", "--deselect", "test_unit.py::test_deselected_then_run")
    assert first.ret == 0, first.stdout.str()
    record, samples = outputs(pytester)
    assert record["muted"] == ["test_unit.py::test_statement"]
    assert record["deselected_frozen"] == ["test_unit.py::test_deselected_then_run"]
    assert samples["properties"] == {"test_props.py::test_other_prop": {"distinct": 3}}

    # The second run: the properties, and the test the first run deselected.
    (pytester.path / "conftest.py").unlink()
    second = run(pytester, "test_props.py", "test_unit.py::test_deselected_then_run")
    assert second.ret == 0, second.stdout.str()
    record, samples = outputs(pytester)
    assert record["commit"] == head
    # Before: the second record replaced the first, and the muted test counted as live.
    assert record["muted"] == ["test_unit.py::test_statement"]
    assert record["applied"] == ["test_unit.py::test_deselected_then_run", "test_unit.py::test_frozen"]
    assert record["outcomes"] == {
        "test_unit.py::test_deselected_then_run": "passed",
        "test_unit.py::test_frozen": "failed",
    }
    # It ran in the second run, but the coverage data may not hold that run: still listed
    # (freezegate check excuses it when the data has it).
    assert record["deselected_frozen"] == ["test_unit.py::test_deselected_then_run"]
    assert samples["properties"] == {
        "test_props.py::test_other_prop": {"distinct": 3},
        "test_props.py::test_prop": {"distinct": 6},
    }
    second.stdout.fnmatch_lines(["merged with the record and samples of an earlier run at this commit*"])


def test_a_property_that_fails_in_the_second_run_loses_the_first_runs_count(pytester):
    repository(pytester)
    assert run(pytester, "test_props.py").ret == 0
    assert outputs(pytester)[1]["properties"]["test_props.py::test_prop"] == {"distinct": 6}
    (pytester.path / "test_props.py").write_text(
        PROPS.replace("range(6):", "range(6):\n        assert amount < 2"), encoding="utf-8"
    )
    second = run(pytester, "test_props.py")
    assert second.ret == 1
    # This run's word on the property it ran replaces the earlier count.
    assert outputs(pytester)[1]["properties"] == {"test_props.py::test_other_prop": {"distinct": 3}}


def test_a_run_on_another_commit_replaces_the_outputs(pytester):
    repository(pytester)
    assert run(pytester, "test_unit.py").ret == 0
    assert outputs(pytester)[0]["muted"] == ["test_unit.py::test_statement"]
    (pytester.path / "conftest.py").unlink()
    git(pytester.path, "commit", "-qam", "drop the conftest")
    second = run(pytester, "test_props.py")
    assert second.ret == 0
    record, samples = outputs(pytester)
    assert record["muted"] == []
    assert record["applied"] == []
    assert set(samples["properties"]) == {"test_props.py::test_prop", "test_props.py::test_other_prop"}
    assert "merged with" not in second.stdout.str()


def test_a_second_run_in_another_mode_on_the_same_commit_is_a_usage_error(pytester):
    # Replacing the first run's record made its muted test count as live while the coverage
    # data (--cov-append) held both runs.
    repository(pytester)
    assert run(pytester, "test_unit.py").ret == 0
    before = outputs(pytester)[0]
    assert before["muted"] == ["test_unit.py::test_statement"]
    second = run(pytester, "test_props.py", "--freezegate-mode", "skip")
    assert second.ret == 4  # pytest's usage error
    second.stderr.fnmatch_lines(
        [
            "ERROR: freezegate: an earlier run at this commit wrote .freezegate/applied.json in"
            " mode run, and this run is in mode skip: *(fix: run every pytest of a commit in one"
            " --freezegate-mode, or remove .freezegate/applied.json and"
            " .freezegate/samples.json first)"
        ]
    )
    # The earlier record is left as it was.
    assert outputs(pytester)[0] == before
    # In the same mode, or with the outputs removed, the second run goes on.
    assert run(pytester, "test_props.py").ret == 0
    assert outputs(pytester)[0]["muted"] == ["test_unit.py::test_statement"]
    (pytester.path / ".freezegate" / "applied.json").unlink()
    assert run(pytester, "test_props.py", "--freezegate-mode", "skip").ret == 0
    assert outputs(pytester)[0]["mode"] == "skip"
