"""Installing the package: a wheel built from this directory loads the plugin through its
pytest11 entry point, and `-p freezegate_pytest` (what `freezegate init pytest` writes) next
to the installed entry point does not register it twice. Built offline, into a temporary
directory, from a copy of the sources (a build writes build/ and *.egg-info next to them)."""

import shutil
import subprocess
import sys

import pytest
from fz_helpers import freeze, read_json, write_ledger

pytest.importorskip("setuptools")
pytest.importorskip("pip")

from conftest import PACKAGE_DIR  # noqa: E402


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    work = tmp_path_factory.mktemp("install")
    source = work / "src"
    shutil.copytree(PACKAGE_DIR, source, ignore=shutil.ignore_patterns("tests", "__pycache__", "build", "*.egg-info"))
    pip = [sys.executable, "-m", "pip", "--disable-pip-version-check", "--no-input"]
    subprocess.run(
        [*pip, "wheel", "--no-deps", "--no-build-isolation", "--no-index", "-w", str(work / "dist"), str(source)],
        check=True,
        capture_output=True,
    )
    wheels = list((work / "dist").glob("pytest_freezegate-*.whl"))
    assert len(wheels) == 1
    target = work / "site"
    subprocess.run(
        [*pip, "install", "--no-deps", "--no-index", "--target", str(target), str(wheels[0])],
        check=True,
        capture_output=True,
    )
    entry_points = next(target.glob("pytest_freezegate-*.dist-info")) / "entry_points.txt"
    assert entry_points.read_text().split() == ["[pytest11]", "freezegate_pytest", "=", "freezegate_pytest"]
    return target


def test_the_installed_package_activates_through_its_entry_point(pytester, monkeypatch, installed):
    monkeypatch.setenv("PYTHONPATH", str(installed))
    pytester.makepyfile(test_a="def test_flaky():\n    assert False\n")
    write_ledger(pytester, freeze("test_a.py::test_flaky"))
    base = ["-p", "no:cacheprovider", "--freezegate-today", "2026-10-18"]
    result = pytester.runpytest_subprocess(*base)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    result.stdout.fnmatch_lines(["freezegate: ledger freeze-ledger.json (1 freeze), mode run*"])
    result.assert_outcomes(xfailed=1)
    result = pytester.runpytest_subprocess(*base, "-p", "freezegate_pytest")
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    assert result.stdout.str().count("freezegate: ledger") == 1
    shutil.rmtree(pytester.path / ".freezegate")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-p", "no:freezegate_pytest")
    assert result.ret == 1
    out = result.stdout.str()
    assert "freezegate: " not in out and " freezegate =" not in out
    assert not (pytester.path / ".freezegate").exists()


def test_a_mutant_run_switches_the_installed_plugin_off_and_records_outcomes(pytester, monkeypatch, installed):
    # What freezegate runs for each mutant, where the package is installed (entry point):
    # the frozen test's failure is a failure, not the xfail the plugin would make of it.
    monkeypatch.setenv("PYTHONPATH", str(installed))
    monkeypatch.setenv("FREEZEGATE_OUTCOMES", "outcomes.json")
    pytester.makepyfile(test_a="def test_flaky():\n    assert False\n")
    write_ledger(pytester, freeze("test_a.py::test_flaky"))
    result = pytester.runpytest_subprocess(
        "-p", "no:freezegate_pytest", "-p", "freezegate_pytest.outcomes", "-p", "no:cacheprovider", "-q",
        "test_a.py::test_flaky",
    )
    assert result.ret == 1, result.stdout.str() + result.stderr.str()
    assert read_json(pytester.path / "outcomes.json")["outcomes"] == {"test_a.py::test_flaky": "failed"}
    assert not (pytester.path / ".freezegate").exists()
