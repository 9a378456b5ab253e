"""The outcome recorder (-p freezegate_pytest.outcomes) in real pytest runs started the way
freezegate starts a mutant run, with the freezegate plugin switched off; and what Python's
bytecode cache does to a mutant written over a file that was imported before."""

import os
import shutil
import subprocess
import sys

import pytest
from fz_helpers import freeze, read_json, write_ledger

MUTANT_RUN = ["-p", "no:freezegate_pytest", "-p", "freezegate_pytest.outcomes", "-p", "no:cacheprovider", "-q"]

SUITE = """
import pytest

@pytest.fixture
def broken_setup():
    raise RuntimeError("setup")

@pytest.fixture
def broken_teardown():
    yield
    raise RuntimeError("teardown")

@pytest.fixture
def skipping_teardown():
    yield
    pytest.skip("in teardown")

def test_passes():
    pass

def test_fails():
    assert 1 == 2

def test_setup_error(broken_setup):
    pass

def test_teardown_error(broken_teardown):
    pass

def test_fails_then_teardown_error(broken_teardown):
    assert False

def test_fails_then_teardown_skips(skipping_teardown):
    assert False

def test_skipped():
    pytest.skip("not here")

@pytest.mark.skip(reason="marked")
def test_skip_marked():
    pass

@pytest.mark.xfail(reason="known")
def test_xfails():
    assert False

@pytest.mark.xfail(reason="known")
def test_xpasses():
    pass

@pytest.mark.xfail(reason="known", strict=True)
def test_xpasses_strict():
    pass

def test_xfail_in_body():
    pytest.xfail("now")

@pytest.mark.parametrize("n, label", [(1, "a-b"), (2, "c d")])
def test_param(n, label):
    assert n == 1

class TestGroup:
    def test_method(self):
        pass

def test_not_asked():
    pass
"""


def mutant_run(pytester, monkeypatch, *ids, target="out/outcomes.json"):
    monkeypatch.setenv("FREEZEGATE_OUTCOMES", target)
    return pytester.runpytest_subprocess(*MUTANT_RUN, *ids)


def test_every_outcome_under_its_own_node_id(pytester, monkeypatch):
    pytester.makepyfile(test_x=SUITE)
    expected = {
        "test_x.py::TestGroup::test_method": "passed",
        "test_x.py::test_fails": "failed",
        "test_x.py::test_fails_then_teardown_error": "error",
        "test_x.py::test_fails_then_teardown_skips": "failed",  # the worst report, not the last
        "test_x.py::test_param[1-a-b]": "passed",
        "test_x.py::test_param[2-c d]": "failed",
        "test_x.py::test_passes": "passed",
        "test_x.py::test_setup_error": "error",
        "test_x.py::test_skip_marked": "skipped",
        "test_x.py::test_skipped": "skipped",
        "test_x.py::test_teardown_error": "error",
        "test_x.py::test_xfail_in_body": "xfailed",
        "test_x.py::test_xfails": "xfailed",
        "test_x.py::test_xpasses": "xpassed",
        "test_x.py::test_xpasses_strict": "failed",
    }
    result = mutant_run(pytester, monkeypatch, *expected)
    assert result.ret == 1, result.stdout.str()
    written = pytester.path / "out" / "outcomes.json"
    assert read_json(written) == {"version": 1, "outcomes": expected}
    assert list(read_json(written)["outcomes"]) == sorted(expected)


@pytest.mark.parametrize("workers", [[], ["-n", "2"]], ids=["plain", "xdist"])
def test_a_module_that_fails_to_import_does_not_hide_the_other_modules_outcomes(
    pytester, monkeypatch, workers
):
    # pytest alone would run nothing: a node id in a module that failed to import is "not
    # found", a usage error. Under pytest-xdist each worker collects and selects.
    if workers:
        pytest.importorskip("xdist")
    pytester.makepyfile(
        target="raise ImportError('a mutant broke the import')\n",
        test_a="import target\n\ndef test_one():\n    pass\n\ndef test_two():\n    pass\n",
        test_b="def test_three():\n    pass\n\ndef test_not_asked():\n    pass\n",
    )
    ids = ["test_a.py::test_one", "test_b.py::test_three"]
    result = mutant_run(pytester, monkeypatch, *workers, *ids)
    assert result.ret == 1, result.stdout.str()
    assert read_json(pytester.path / "out" / "outcomes.json")["outcomes"] == {
        "test_a.py::test_one": "error",
        "test_b.py::test_three": "passed",
    }


def test_a_requested_test_its_module_no_longer_has_gets_no_entry(pytester, monkeypatch):
    # A mutant of a parametrize argument renames the test's ids: nothing to say about the old.
    pytester.makepyfile(test_b="def test_three():\n    pass\n")
    result = mutant_run(pytester, monkeypatch, "test_b.py::test_gone[2]", "test_b.py::test_three")
    assert result.ret == 0, result.stdout.str()
    assert read_json(pytester.path / "out" / "outcomes.json")["outcomes"] == {
        "test_b.py::test_three": "passed"
    }


def test_a_run_that_stops_early_leaves_no_file_not_even_an_earlier_one(pytester, monkeypatch):
    pytester.makepyfile(test_x="import pytest\n\ndef test_stop():\n    pytest.exit('stopped')\n")
    written = pytester.path / "out" / "outcomes.json"
    written.parent.mkdir()
    written.write_text('{"version": 1, "outcomes": {"test_x.py::test_stop": "failed"}}')
    result = mutant_run(pytester, monkeypatch, "test_x.py::test_stop")
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert not written.exists()
    assert [p.name for p in written.parent.iterdir()] == []


def test_without_the_variable_the_recorder_writes_nothing(pytester, monkeypatch):
    pytester.makepyfile(test_x="def test_ok():\n    pass\n")
    monkeypatch.delenv("FREEZEGATE_OUTCOMES", raising=False)
    result = pytester.runpytest_subprocess(*MUTANT_RUN)
    assert result.ret == 0
    assert not list(pytester.path.rglob("*.json"))


CHECKS = """
def test_flaky():
    assert 1 == 2, "the mutant is caught here"

def test_plugins(request):
    manager = request.config.pluginmanager
    assert manager.is_blocked("freezegate_pytest")
    assert manager.get_plugin("freezegate_pytest") is None
    assert manager.get_plugin("freezegate-session") is None
    assert manager.get_plugin("freezegate_pytest.outcomes") is not None
"""


def test_the_freezegate_plugin_is_off_in_a_mutant_run_even_when_addopts_loads_it(pytester, monkeypatch):
    # The project loads the plugin through addopts, as `freezegate init pytest` writes it. The
    # ledger freezes test_flaky: in a plain run its failure is muted (xfailed), which in a
    # mutant run would hide the kill. `-p no:freezegate_pytest` comes after addopts on the
    # command line, and pluggy's set_blocked unregisters the plugin that addopts registered.
    pytester.makeini("[pytest]\naddopts = -p freezegate_pytest --freezegate-today 2026-10-18\n")
    pytester.makepyfile(test_a=CHECKS)
    write_ledger(pytester, freeze("test_a.py::test_flaky"))
    monkeypatch.setenv("FREEZEGATE_OUTCOMES", "outcomes.json")

    plain = pytester.runpytest_subprocess("-p", "freezegate_pytest.outcomes", "-p", "no:cacheprovider",
                                          "test_a.py::test_flaky")
    assert plain.ret == 0, plain.stdout.str()
    assert read_json(pytester.path / "outcomes.json")["outcomes"] == {"test_a.py::test_flaky": "xfailed"}
    assert (pytester.path / ".freezegate" / "applied.json").exists()
    shutil.rmtree(pytester.path / ".freezegate")

    result = pytester.runpytest_subprocess(*MUTANT_RUN, "test_a.py::test_flaky", "test_a.py::test_plugins")
    assert result.ret == 1, result.stdout.str()
    assert read_json(pytester.path / "outcomes.json")["outcomes"] == {
        "test_a.py::test_flaky": "failed",
        "test_a.py::test_plugins": "passed",
    }
    assert "freezegate:" not in result.stdout.str()
    assert not (pytester.path / ".freezegate").exists()


# --- Python's bytecode cache and a mutant written over an imported file ------------------

COUNTS = "from target import VALUE\n\ndef test_value():\n    assert VALUE == 1\n"
SECOND = 1_700_000_000 * 10**9


def _write_in_the_same_second(path, value, nanoseconds):
    """A same-size version of target.py whose modification time is in the cached second."""
    path.write_text(f"VALUE = {value}\n")
    os.utime(path, ns=(SECOND + nanoseconds, SECOND + nanoseconds))


def _pytest(cwd, **env):
    run_env = {key: val for key, val in os.environ.items() if not key.startswith("PYTHON")}
    run_env.update(env, PYTHONPATH=os.environ["PYTHONPATH"])
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-q", "test_counts.py"],
        cwd=str(cwd),
        env=run_env,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode


def test_a_cached_pyc_hides_a_same_size_mutant_written_in_the_same_second(tmp_path):
    """Python validates a .pyc by the source's size and its modification time in whole
    seconds. A mutant of the same size written in the second the cache recorded runs the
    cached original; PYTHONDONTWRITEBYTECODE stops the writing, not the reading."""
    project = tmp_path / "project"
    project.mkdir()
    (project / "test_counts.py").write_text(COUNTS)
    target = project / "target.py"
    _write_in_the_same_second(target, 1, 100)
    assert _pytest(project) == 0
    assert list((project / "__pycache__").glob("target.*.pyc"))

    _write_in_the_same_second(target, 2, 900_000_000)
    assert _pytest(project) == 0  # the mutant (VALUE = 2) was not run: the stale pyc was
    assert _pytest(project, PYTHONDONTWRITEBYTECODE="1") == 0

    # A copy without __pycache__, run with PYTHONDONTWRITEBYTECODE=1: every mutant is read
    # from its source, however fast the mutants follow one another.
    copy = tmp_path / "copy"
    shutil.copytree(project, copy, ignore=shutil.ignore_patterns("__pycache__"))
    for step, value in enumerate([1, 2, 1, 3]):
        _write_in_the_same_second(copy / "target.py", value, step)
        assert _pytest(copy, PYTHONDONTWRITEBYTECODE="1") == (0 if value == 1 else 1)
    assert not list(copy.rglob("__pycache__"))

    # With a __pycache__ in the copy, PYTHONPYCACHEPREFIX at an empty directory also works:
    # Python (and pytest's assertion rewriter) then read and write caches only there.
    prefix = tmp_path / "empty-prefix"
    prefix.mkdir()
    assert _pytest(project, PYTHONDONTWRITEBYTECODE="1", PYTHONPYCACHEPREFIX=str(prefix)) == 1
    assert list(prefix.iterdir()) == []
