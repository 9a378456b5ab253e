"""Each test's outcome, written to a file, for freezegate's mutant runs.

Loaded with ``-p freezegate_pytest.outcomes``. When the environment variable
``FREEZEGATE_OUTCOMES`` names a file, the session writes there, at its end::

    {"version": 1, "outcomes": {"<node id>": "passed|failed|error|skipped|xfailed|xpassed"}}

with pytest's own node ids. ``failed``: the test's call failed (a strict xfail that passed
fails too); ``error``: its setup or teardown failed, or the module it lives in could not be
collected; ``xfailed``/``xpassed``: an expected failure that failed or passed. A test with
several reports gets the worst of them (error, failed, xpassed, xfailed, skipped, passed).

A mutant run asks about a few tests by node id. A mutant that breaks the import of one test
module must not hide the outcomes of the others, but pytest runs nothing at all when a node
id names a test in a module that failed to import ("not found"). So the recorder collects the
modules the node ids name, runs only the requested tests in them (the others are
deselected), does not stop at collection errors (``--continue-on-collection-errors``), and
records a requested test whose module did not import as ``error``. A requested test that its
module, imported, no longer has (a mutant changed its parametrization) gets no entry.

A file from an earlier run is removed when the session starts, and the new one appears (by
renaming a complete temporary file) only when the tests ran to the end: an interrupted or
crashed run leaves no file, never a partial one.

The freezegate plugin itself must be off in these runs (``-p no:freezegate_pytest``): it
reports a frozen test's failure as an expected failure, which would hide the kill.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Dict, List, Optional

import pytest

from .output import write_json_atomic

OUTCOMES_ENV = "FREEZEGATE_OUTCOMES"
OUTCOMES_VERSION = 1
# Worst last: a test with several reports is recorded with the worst.
_SEVERITY = ("passed", "skipped", "xfailed", "xpassed", "failed", "error")
_FINISHED = (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED)


def outcome_of(report: pytest.TestReport) -> Optional[str]:
    """What one report says about its test, or None when it says nothing (a passing setup)."""
    expected_failure = hasattr(report, "wasxfail")
    if report.when == "call":
        if report.passed:
            return "xpassed" if expected_failure else "passed"
        if report.skipped:
            return "xfailed" if expected_failure else "skipped"
        return "failed" if report.failed else None
    if report.failed:
        return "error"
    if report.skipped:
        return "xfailed" if expected_failure else "skipped"
    return None


def worse(current: Optional[str], new: str) -> str:
    if current is None or _SEVERITY.index(new) > _SEVERITY.index(current):
        return new
    return current


class OutcomeRecorder:
    def __init__(self, path: Optional[Path], requested: Optional[List[str]]):
        #: Where to write; None in a pytest-xdist worker (the controller sees every report).
        self.path = path
        #: The node ids asked for (relative to the rootdir), or None to run what pytest collects.
        self.requested = requested
        self.outcomes: Dict[str, str] = {}
        self.uncollected: List[str] = []

    def pytest_collection_modifyitems(
        self, config: pytest.Config, items: List[pytest.Item]
    ) -> None:
        if self.requested is None:
            return
        requested = self.requested
        kept, dropped = [], []
        for item in items:
            wanted = any(_holds(want, item.nodeid) for want in requested)
            (kept if wanted else dropped).append(item)
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        outcome = outcome_of(report)
        if outcome is not None:
            self.outcomes[report.nodeid] = worse(self.outcomes.get(report.nodeid), outcome)

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        if report.failed:
            self.uncollected.append(report.nodeid)

    @pytest.hookimpl(trylast=True)
    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.path is None or exitstatus not in _FINISHED:
            return
        outcomes = dict(self.outcomes)
        for requested in self.requested or []:
            if any(_holds(collector, requested) for collector in self.uncollected) and not any(
                _holds(requested, nodeid) for nodeid in outcomes
            ):
                outcomes[requested] = "error"
        try:
            write_json_atomic(
                self.path,
                {"version": OUTCOMES_VERSION, "outcomes": dict(sorted(outcomes.items()))},
            )
        except OSError as exc:
            # No file is the caller's sign that the run gave no answer.
            reason = exc.strerror or exc
            sys.stderr.write(f"freezegate outcomes: cannot write {self.path}: {reason}\n")


def _holds(container: str, nodeid: str) -> bool:
    """Whether node ``container`` is ``nodeid`` or one of its parents (a directory, a module,
    a class, a parametrized function)."""
    if container in ("", "."):
        return True
    below = (container + "::", container + "/", container + "[")
    return nodeid == container or nodeid.startswith(below)


def pytest_configure(config: pytest.Config) -> None:
    target = os.environ.get(OUTCOMES_ENV)
    if not target:
        return
    # A pytest-xdist worker collects and runs (so it selects too); its controller writes.
    path = None if hasattr(config, "workerinput") else Path(config.invocation_params.dir, target)
    if path is not None:
        _prepare(path, target)
    config.option.continue_on_collection_errors = True
    requested = _requested(config)
    if requested is not None:
        # Collect whole modules; the recorder deselects the tests nobody asked for.
        config.args[:] = list(dict.fromkeys(arg.partition("::")[0] for arg in config.args))
    config.pluginmanager.register(OutcomeRecorder(path, requested), "freezegate-outcomes")


def _prepare(path: Path, target: str) -> None:
    """Remove an earlier run's file, so that no answer is never read as this run's."""
    if path.is_dir():
        raise pytest.UsageError(f"freezegate: {OUTCOMES_ENV}={target} is a directory: name a file")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.unlink(missing_ok=True)
    except OSError as exc:
        raise pytest.UsageError(
            f"freezegate: cannot write {OUTCOMES_ENV}={target}: {exc.strerror or exc}: name a "
            "file in a writable directory"
        ) from None


def _requested(config: pytest.Config) -> Optional[List[str]]:
    """The command line's node ids relative to the rootdir, or None when there is none to
    select by (no ``::`` argument) or one cannot be placed under the rootdir."""
    if not any("::" in arg for arg in config.args):
        return None
    here = config.invocation_params.dir
    root = config.rootpath.resolve()
    ids = []
    for arg in config.args:
        path, sep, rest = arg.partition("::")
        try:
            relative = (here / path).resolve().relative_to(root).as_posix()
        except (ValueError, OSError):
            return None
        ids.append(relative + sep + rest if relative != "." else rest)
    return ids
