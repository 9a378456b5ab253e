"""The randomized sweep (--freezegate-sweep), with real Hypothesis and real pytest runs."""

import shlex
import subprocess
import sys

import pytest
from fz_helpers import freeze, git, read_json, run, write_ledger

pytest.importorskip("hypothesis")

# test_rare fails only on some inputs: lists of at least 5 numbers whose sum is 5 modulo 37.
# The merge-path settings (10 derandomized examples) never reach one; 1000 examples with a
# fresh seed reach one nearly always (measured: 40 of 40 seeds with Hypothesis 6.67).
PROPS = """
from hypothesis import given, settings, strategies as st

@settings(max_examples=10, derandomize=True)
@given(st.lists(st.integers(0, 100), max_size=20))
def test_rare(xs):
    assert not (len(xs) >= 5 and sum(xs) % 37 == 5), xs

@settings(max_examples=10, derandomize=True)
@given(st.integers())
def test_checked(n):
    assert n == n

def test_flaky():
    pass

def test_witness():
    pass

def test_not_a_property():
    pass
"""
FIXED = PROPS.replace("sum(xs) % 37 == 5)", "sum(xs) % 37 == 5 and False)")

RARE = "test_props.py::test_rare"
CHECKED = "test_props.py::test_checked"


def _project(pytester, source=PROPS):
    pytester.makepyfile(test_props=source)
    ledger = {
        "version": 1,
        "freezes": [freeze("test_props.py::test_flaky", compensating_property=RARE)],
        "properties": [
            {"id": "p.checked", "check": CHECKED, "witnessed_by": ["test_props.py::test_witness"]}
        ],
    }
    write_ledger(pytester, raw=__import__("json").dumps(ledger))
    git(pytester.path, "init", "-q")
    git(pytester.path, "add", "-A")
    git(pytester.path, "commit", "-qm", "init")


def _reproduce(pytester, command):
    """Run a recorded command as a user would, in pytest's rootdir."""
    argv = shlex.split(command)
    assert argv[0] == "pytest"
    return subprocess.run(
        [sys.executable, "-m", "pytest", *argv[1:], "-p", "no:cacheprovider"],
        cwd=str(pytester.path),
        capture_output=True,
        text=True,
        check=False,
    )


def test_the_sweep_catches_a_property_the_merge_path_passes_and_its_command_reproduces_it(
    pytester,
):
    _project(pytester)
    # The merge path: derandomized, 10 examples, every test: green.
    assert run(pytester).ret == 0
    merge_path_record = read_json(pytester.path / ".freezegate/applied.json")

    result = run(pytester, "--freezegate-sweep", "--freezegate-sweep-examples", "1000")
    assert result.ret == 1
    # Only the ledger's properties ran: the compensating one and the checked one.
    result.assert_outcomes(failed=1, passed=1, deselected=3)

    record = read_json(pytester.path / ".freezegate/sweep.json")
    assert record["kind"] == "sweep" and record["version"] == 1
    assert record["commit"] == git(pytester.path, "rev-parse", "HEAD")
    assert record["ledger"]["path"] == "freeze-ledger.json"
    assert sorted(record["properties"]) == [CHECKED, RARE]
    [failure] = record["failures"]
    assert failure["test_id"] == RARE
    assert isinstance(failure["seed"], int)
    assert failure["examples"] == 1000
    assert failure["reproduced"] is True
    assert failure["message"].startswith("AssertionError: [")
    assert failure["command"] == (
        f"pytest {RARE} -p freezegate_pytest --freezegate-sweep --freezegate-sweep-examples 1000 "
        f"--hypothesis-seed={failure['seed']}"
    )
    # Hypothesis 6.67 prints its own blob once print_blob is on, which the sweep turns on.
    assert failure["reproduce_failure"].startswith("@reproduce_failure(")
    result.stdout.fnmatch_lines(
        [
            f"FAILED at seed {failure['seed']}: {RARE}: AssertionError: *",
            "  failed again at its seed in a fresh pytest",
            f"  reproduce: {failure['command']}",
        ]
    )
    # The sweep's samples artifact is its own; the merge path's files are left as they were.
    samples = read_json(pytester.path / ".freezegate/sweep-samples.json")
    assert samples["properties"][CHECKED]["distinct"] > 10
    assert read_json(pytester.path / ".freezegate/applied.json") == merge_path_record

    # The command fails again, on the same example.
    again = _reproduce(pytester, failure["command"])
    assert again.returncode == 1, again.stdout
    assert failure["message"] in again.stdout


def test_a_failure_stays_until_a_sweep_passes_it_at_its_seed(pytester):
    _project(pytester)
    run(pytester, "--freezegate-sweep", "--freezegate-sweep-examples", "1000")
    [failure] = read_json(pytester.path / ".freezegate/sweep.json")["failures"]

    # A later sweep runs the failing property again at the failure's seed: it still fails.
    result = run(pytester, "--freezegate-sweep", "--freezegate-sweep-examples", "1000")
    assert result.ret == 1
    record = read_json(pytester.path / ".freezegate/sweep.json")
    assert [f["seed"] for f in record["failures"]] == [failure["seed"]]
    assert record["properties"][RARE]["seed"] == failure["seed"]

    # Fixed: the recorded command passes, and the failure is gone from the record.
    pytester.makepyfile(test_props=FIXED)
    fixed = _reproduce(pytester, failure["command"])
    assert fixed.returncode == 0, fixed.stdout
    assert read_json(pytester.path / ".freezegate/sweep.json")["failures"] == []


def test_a_failure_that_does_not_come_back_at_its_seed_is_recorded_as_not_reproduced(pytester):
    # Fails on its first run only (a leftover file): the re-run in a fresh pytest passes.
    pytester.makepyfile(
        test_props="""
from pathlib import Path

def test_once():
    marker = Path(__file__).parent / "ran-once"
    first = not marker.exists()
    marker.write_text("")
    assert not first, "first run"
"""
    )
    write_ledger(
        pytester, freeze("test_other.py::test_other", compensating_property="test_props.py::test_once")
    )
    pytester.makepyfile(test_other="def test_other():\n    pass\n")
    result = run(pytester, "--freezegate-sweep")
    assert result.ret == 1
    [failure] = read_json(pytester.path / ".freezegate/sweep.json")["failures"]
    assert failure["reproduced"] is False
    assert failure["seed"] is None
    assert failure["command"] == "pytest test_props.py::test_once -p freezegate_pytest --freezegate-sweep"
    result.stdout.fnmatch_lines(["  passed when run again at its seed: not reproduced (flaky)"])


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--freezegate-sweep-examples", "10"], "--freezegate-sweep-examples needs --freezegate-sweep"),
        (["--freezegate-sweep", "--freezegate-sweep-examples", "0"], "is not a whole number >= 1"),
        (["--freezegate-sweep", "--hypothesis-seed=abc"], "is not a whole number"),
    ],
)
def test_bad_sweep_settings_are_usage_errors(pytester, args, fragment):
    _project(pytester)
    # In a subprocess: Hypothesis keeps a --hypothesis-seed in a global of its own.
    result = run(pytester, *args, subprocess_run=True)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert fragment in result.stderr.str()


def test_the_sweep_needs_a_ledger(pytester):
    pytester.makepyfile(test_props=PROPS)
    result = run(pytester, "--freezegate-sweep")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    assert "--freezegate-sweep runs the ledger's properties, and there is no ledger" in (
        result.stderr.str()
    )
