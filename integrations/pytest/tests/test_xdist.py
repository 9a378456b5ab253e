"""The plugin under pytest-xdist: workers apply the ledger, the controller writes ONE record
from what they report, and input sets from all workers are merged."""

import json

import pytest
from fz_helpers import freeze, read_json, run, sha256_of, write_ledger

pytest.importorskip("xdist")

# Enough tests in enough files that both workers get some (load scheduling).
FILES = {
    f"test_mod{i}": f"""
import freezegate_pytest

def test_frozen_fails_{i}():
    assert False, "frozen failure {i}"

def test_frozen_passes_{i}():
    pass

def test_plain_{i}():
    pass

def test_recorded_{i}():
    for n in range({i} + 3):
        freezegate_pytest.record(n)
"""
    for i in range(4)
}


def ledger_for(pytester, extra=()):
    freezes = []
    for i in range(4):
        freezes.append(freeze(f"test_mod{i}.py::test_frozen_fails_{i}", owner=f"owner{i}"))
        freezes.append(freeze(f"test_mod{i}.py::test_frozen_passes_{i}", owner=f"owner{i}"))
    return write_ledger(pytester, *freezes, *extra)


def test_one_record_from_all_workers(pytester):
    pytester.makepyfile(**FILES)
    ledger = ledger_for(pytester, [freeze("test_mod0.py::test_plain_0", expires="2026-10-01")])
    result = run(pytester, "-n", "2", "-v", subprocess_run=True)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=12, xfailed=4)
    # Both workers ran frozen tests, so the outcomes really came from two processes.
    out = result.stdout.str()
    assert "[gw0]" in out and "[gw1]" in out
    assert any(line.startswith("[gw0]") and "XFAIL" in line for line in result.stdout.lines) or any(
        line.startswith("[gw1]") and "XFAIL" in line for line in result.stdout.lines
    )
    record = read_json(pytester.path / ".freezegate" / "applied.json")
    assert record["ledger"] == {"path": (pytester.path / "freeze-ledger.json").resolve().as_posix(), "sha256": sha256_of(ledger)}
    assert record["applied"] == sorted(
        [f"test_mod{i}.py::test_frozen_fails_{i}" for i in range(4)]
        + [f"test_mod{i}.py::test_frozen_passes_{i}" for i in range(4)]
    )
    assert record["expired"] == ["test_mod0.py::test_plain_0"]
    assert record["outcomes"] == {
        **{f"test_mod{i}.py::test_frozen_fails_{i}": "failed" for i in range(4)},
        **{f"test_mod{i}.py::test_frozen_passes_{i}": "passed" for i in range(4)},
    }
    samples = read_json(pytester.path / ".freezegate" / "samples.json")
    assert samples == {
        "version": 2,
        "tool": "pytest-freezegate",
        "commit": None,
        "properties": {f"test_mod{i}.py::test_recorded_{i}": {"distinct": i + 3} for i in range(4)},
    }
    result.stdout.fnmatch_lines(
        ["frozen-failed (these failures do not fail the session):", "  test_mod0.py::test_frozen_fails_0 (owner owner0, expires 2026-10-26): AssertionError: frozen failure 0*"]
    )
    leftovers = sorted(p.name for p in (pytester.path / ".freezegate").iterdir())
    assert leftovers == ["applied.json", "samples.json"]


def test_the_same_record_with_and_without_xdist(pytester):
    pytester.makepyfile(**FILES)
    ledger_for(pytester)
    assert run(pytester, "-n", "2", subprocess_run=True).ret == 0
    distributed = read_json(pytester.path / ".freezegate" / "applied.json")
    distributed_samples = read_json(pytester.path / ".freezegate" / "samples.json")
    assert run(pytester, subprocess_run=True).ret == 0
    assert read_json(pytester.path / ".freezegate" / "applied.json") == distributed
    assert read_json(pytester.path / ".freezegate" / "samples.json") == distributed_samples


def test_ids_matching_nothing_stop_the_distributed_session(pytester):
    pytester.makepyfile(**FILES)
    ledger_for(pytester, [freeze("test_mod1.py::test_gone")])
    result = run(pytester, "-n", "2", subprocess_run=True)
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    result.stderr.fnmatch_lines(
        ["ERROR: freezegate: ledger freeze-ledger.json: 1 frozen test id matches no collected test: test_mod1.py::test_gone (fix: *"]
    )
    assert "INTERNALERROR" not in result.stdout.str() + result.stderr.str()
    assert "passed" not in result.stdout.str()
    assert not (pytester.path / ".freezegate" / "applied.json").exists()


def test_deselection_and_skip_mode_under_xdist(pytester):
    pytester.makepyfile(**FILES)
    ledger_for(pytester)
    result = run(pytester, "-n", "2", "-k", "mod2 or mod3", "--freezegate-mode", "skip", subprocess_run=True)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=4, skipped=4)
    record = read_json(pytester.path / ".freezegate" / "applied.json")
    assert record["mode"] == "skip"
    assert record["outcomes"] == {
        f"test_mod{i}.py::test_frozen_{kind}_{i}": "skipped" for i in (2, 3) for kind in ("fails", "passes")
    }
    # The deselected frozen tests (reported by the workers): freezegate check refuses the run.
    assert record["deselected_frozen"] == sorted(
        f"test_mod{i}.py::test_frozen_{kind}_{i}" for i in (0, 1) for kind in ("fails", "passes")
    )
    record.pop("deselected_frozen")
    assert json.dumps(record).count("test_mod0") == 0


def test_tests_an_xfail_muted_are_recorded_under_xdist(pytester):
    pytester.makepyfile(
        **FILES,
        test_known="import pytest\n\n@pytest.mark.xfail(reason='known bug')\ndef test_known():\n    assert False\n",
    )
    ledger_for(pytester)
    result = run(pytester, "-n", "2", subprocess_run=True)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=12, xfailed=5)
    record = read_json(pytester.path / ".freezegate" / "applied.json")
    assert record["muted"] == ["test_known.py::test_known"]
    assert record["deselected_frozen"] == []


def test_a_test_run_by_every_worker_counts_its_inputs_once(pytester):
    # --dist each runs every test on every worker: both send the same input sets, and a
    # merge of counts (not sets) would report twice the inputs that really ran.
    pytester.makepyfile(**FILES)
    ledger_for(pytester)
    result = run(pytester, "-n", "2", "--dist", "each", subprocess_run=True)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.assert_outcomes(passed=24, xfailed=8)
    samples = read_json(pytester.path / ".freezegate" / "samples.json")
    assert samples["properties"] == {f"test_mod{i}.py::test_recorded_{i}": {"distinct": i + 3} for i in range(4)}
    record = read_json(pytester.path / ".freezegate" / "applied.json")
    assert len(record["applied"]) == 8 and set(record["outcomes"].values()) == {"failed", "passed"}
