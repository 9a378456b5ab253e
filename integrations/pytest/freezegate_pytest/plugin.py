"""The pytest hooks: apply the freeze ledger in one place and record what was applied.

Frozen tests keep RUNNING (their coverage contexts are still recorded, so the audit can see
what only they cover) but do not gate. The ledger is applied by one hook, the hook records what it
did (the applied record), and compensating properties deposit evidence of their inputs (the
samples artifact). Only a test that gates and passed is evidence: the samples artifact leaves
out tests that failed in any phase, did not pass their call (skipped, xfailed) or are frozen
in this run (their failures are muted, so their inputs vouch for nothing).

Who does what, with and without pytest-xdist:
- the process that collects (the only one, or each xdist worker) matches freezes to items,
  marks them (mode skip) or turns their failures into expected failures (mode run), counts
  property inputs, and tags each frozen test's reports with ``freezegate_phase``;
- the process that reports (the only one, or the xdist controller) checks the output
  paths before anything runs, refuses ledger ids that match no collected test, gathers the
  outcomes from the reports and the input sets from the workers, and writes ONE record and
  ONE samples artifact at the end.
An xdist worker tells the controller about its collection through a small file in a
directory the controller passes in ``workerinput``: xdist forwards only the final node ids,
and the controller needs the deselected ones too (``-k`` must not turn a freeze into an
unknown id).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Set, Tuple

import pytest

from . import inputs as _inputs
from . import sweep as _sweep
from .ledger import (
    DEFAULT_LEDGER_PATH,
    Freeze,
    LedgerError,
    LoadedLedger,
    Matcher,
    load_ledger,
    resolve_today,
    unmatched_message,
)
from .output import (
    DEFAULT_RECORD_PATH,
    DEFAULT_SAMPLES_PATH,
    OutputError,
    applied_record,
    display_path,
    git_facts,
    merge_with_earlier,
    prepare_output,
    read_earlier,
    samples_artifact,
    write_json_atomic,
)

MODES = ("run", "skip")
_CHANNEL_KEY = "freezegate_channel"
_INPUTS_KEY = "freezegate_inputs"
# Exit statuses after which the run's record is worth keeping: the tests ran (or there were
# none). Interrupted, internal and usage errors leave no record (and the old one is gone).
_RECORDED_EXITS = (
    pytest.ExitCode.OK,
    pytest.ExitCode.TESTS_FAILED,
    pytest.ExitCode.NO_TESTS_COLLECTED,
)


# Options under which pytest runs no test (dest -> flag). Such a session has no record to
# give: writing one would replace the last test run's artifacts with empty ones (a
# `pytest --collect-only -q > collected.txt` after the tests would empty the samples).
_NO_RUN_OPTIONS = (
    ("collectonly", "--collect-only"),
    ("setupplan", "--setup-plan"),
    ("showfixtures", "--fixtures"),
    ("show_fixtures_per_test", "--fixtures-per-test"),
    ("markers", "--markers"),
)


def _no_run_flag(config: pytest.Config) -> Optional[str]:
    """The option that keeps this session from running tests, or None."""
    for dest, flag in _NO_RUN_OPTIONS:
        if getattr(config.option, dest, False):
            return flag
    return None


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("freezegate", "freezegate: apply the freeze ledger")
    group.addoption(
        "--freezegate-ledger",
        metavar="PATH",
        default=None,
        help=f"the freeze ledger (default: ini freezegate_ledger, else {DEFAULT_LEDGER_PATH} "
        "in the rootdir; without a ledger there the plugin is inactive)",
    )
    group.addoption(
        "--freezegate-mode",
        metavar="run|skip",
        default=None,
        help="run: frozen tests run but their failures do not fail the session (default); "
        "skip: frozen tests are skipped",
    )
    group.addoption(
        "--freezegate-today",
        metavar="YYYY-MM-DD",
        default=None,
        help="the day expiry is judged against (default: today's UTC date)",
    )
    group.addoption(
        "--freezegate-record",
        metavar="PATH",
        default=None,
        help=f"where the applied record is written (default: {DEFAULT_RECORD_PATH} in the rootdir)",
    )
    group.addoption(
        "--freezegate-samples",
        metavar="PATH",
        default=None,
        help="where the distinct-inputs samples artifact is written "
        f"(default: {DEFAULT_SAMPLES_PATH} in the rootdir)",
    )
    group.addoption(
        "--freezegate-sweep",
        action="store_true",
        default=False,
        help="run only the ledger's properties, with many more examples and fresh seeds, and "
        f"write the sweep record (default {_sweep.DEFAULT_SWEEP_PATH}): for a nightly job",
    )
    group.addoption(
        "--freezegate-sweep-examples",
        metavar="N",
        default=None,
        help="with --freezegate-sweep: at least N examples per Hypothesis test "
        f"(default {_sweep.DEFAULT_EXAMPLES})",
    )
    group.addoption(
        "--freezegate-sweep-record",
        metavar="PATH",
        default=None,
        help="with --freezegate-sweep: where the sweep record is written "
        f"(default: {_sweep.DEFAULT_SWEEP_PATH} in the rootdir; its samples artifact beside it)",
    )
    parser.addini("freezegate_ledger", "freeze ledger path, relative to the ini file")
    parser.addini("freezegate_mode", "run (default) or skip")
    parser.addini("freezegate_record", "applied record path, relative to the ini file")
    parser.addini("freezegate_samples", "samples artifact path, relative to the ini file")


def pytest_configure(config: pytest.Config) -> None:
    if getattr(config.option, "help", False):
        return
    try:
        plugin = _make_plugin(config)
    except (LedgerError, OutputError) as exc:
        raise pytest.UsageError(f"freezegate: {exc}") from None
    config.pluginmanager.register(plugin, "freezegate-session")


@dataclass
class _Sweep:
    """How this session sweeps (``--freezegate-sweep``)."""

    examples: int
    record: Path
    record_label: str
    samples: Path
    samples_label: str
    #: ``--hypothesis-seed``: every swept test runs at this seed.
    seed: Optional[int]
    #: The last sweep record's failures (same ledger file), by test id.
    earlier: Dict[str, Dict[str, Any]]
    #: pytest arguments the reproduction command repeats (how the plugin and ledger were given).
    extra_args: List[str]
    #: This session is a re-run that confirms a failure: it confirms nothing itself.
    confirming: bool


@dataclass
class _Paths:
    ledger: Path
    ledger_label: str
    record: Path
    record_label: str
    samples: Path
    samples_label: str


def _make_plugin(config: pytest.Config) -> Any:
    root = config.rootpath
    here = config.invocation_params.dir
    ini_base = config.inipath.parent if config.inipath else root

    def setting(option: str, ini: str) -> "tuple[Optional[Path], str]":
        flag = config.getoption(option)
        if flag:
            return here / flag, f"--{option.replace('_', '-')}"
        value = str(config.getini(ini) or "").strip()
        if value:
            return ini_base / value, f"ini {ini}"
        return None, ""

    mode_flag = config.getoption("freezegate_mode")
    mode = mode_flag or str(config.getini("freezegate_mode") or "").strip() or "run"
    if mode not in MODES:
        given = "--freezegate-mode" if mode_flag else "ini freezegate_mode"
        raise LedgerError(f'unknown mode "{mode}" ({given})', "use run or skip")
    today = resolve_today(config.getoption("freezegate_today"), os.environ.get("FREEZEGATE_NOW"))
    sweeping = _sweep_flags(config)

    ledger, given = setting("freezegate_ledger", "freezegate_ledger")
    if ledger is None:
        ledger = root / DEFAULT_LEDGER_PATH
        if not ledger.exists():
            if sweeping is not None:
                raise LedgerError(
                    "--freezegate-sweep runs the ledger's properties, and there is no ledger "
                    f"at {display_path(ledger, root)}",
                    "pass --freezegate-ledger PATH, or set freezegate_ledger in pytest's config",
                )
            return _Inactive(f"inactive: no ledger at {display_path(ledger, root)}")
    elif not ledger.exists():
        raise LedgerError(
            f"ledger not found: {display_path(ledger, root)} (given by {given})",
            "check the path, or drop the setting to use freeze-ledger.json in the rootdir",
        )

    worker = hasattr(config, "workerinput")
    record = setting("freezegate_record", "freezegate_record")[0] or root / DEFAULT_RECORD_PATH
    samples = setting("freezegate_samples", "freezegate_samples")[0] or root / DEFAULT_SAMPLES_PATH
    paths = _Paths(
        ledger=ledger,
        ledger_label=display_path(ledger, root),
        record=record,
        record_label=display_path(record, root),
        samples=samples,
        samples_label=display_path(samples, root),
    )
    no_run = _no_run_flag(config)
    earlier = None
    loaded = load_ledger(ledger, paths.ledger_label)
    if sweeping is not None:
        sweep = _sweep_settings(config, sweeping, paths, worker or no_run is not None)
        return FreezegatePlugin(config, paths, loaded, mode, today, worker, no_run, None, sweep)
    if not worker and no_run is None:
        targets = {p.resolve() for p in (paths.ledger, paths.record, paths.samples)}
        if len(targets) < 3:
            raise OutputError(
                "the ledger, the applied record and the samples artifact must be three "
                f"different files (ledger {paths.ledger_label}, record {paths.record_label}, "
                f"samples {paths.samples_label}) (fix: give --freezegate-record and "
                "--freezegate-samples their own paths)"
            )
        # An earlier run's outputs, read before they are removed: a second pytest run on the
        # same commit adds to them (see merge_with_earlier).
        record_before, samples_before = read_earlier(paths.record), read_earlier(paths.samples)
        if record_before is not None and samples_before is not None:
            earlier = (record_before, samples_before)
            _refuse_other_mode(record_before, mode, paths, loaded.sha256, root)
        prepare_output(paths.record, "applied record", paths.record_label, "--freezegate-record")
        prepare_output(
            paths.samples, "samples artifact", paths.samples_label, "--freezegate-samples"
        )
    return FreezegatePlugin(config, paths, loaded, mode, today, worker, no_run, earlier)


def _sweep_flags(config: pytest.Config) -> Optional[int]:
    """The sweep's example count when ``--freezegate-sweep`` is given, else None."""
    raw = config.getoption("freezegate_sweep_examples")
    if not config.getoption("freezegate_sweep"):
        for flag, value in (
            ("--freezegate-sweep-examples", raw),
            ("--freezegate-sweep-record", config.getoption("freezegate_sweep_record")),
        ):
            if value is not None:
                raise LedgerError(f"{flag} needs --freezegate-sweep", f"add --freezegate-sweep or drop {flag}")
        return None
    if raw is None:
        return _sweep.DEFAULT_EXAMPLES
    text = str(raw).strip()
    if not text.isascii() or not text.isdigit() or int(text) < 1:
        raise LedgerError(
            f'--freezegate-sweep-examples "{raw}" is not a whole number >= 1',
            "write e.g. --freezegate-sweep-examples 1000",
        )
    return int(text)


def _sweep_settings(
    config: pytest.Config, examples: int, paths: _Paths, no_output: bool
) -> _Sweep:
    root = config.rootpath
    here = config.invocation_params.dir
    if _sweep.hypothesis_version() is None:
        raise LedgerError(
            "--freezegate-sweep needs Hypothesis, which this Python cannot import",
            "install hypothesis in the environment pytest runs in",
        )
    given = config.getoption("freezegate_sweep_record")
    record = here / given if given else root / _sweep.DEFAULT_SWEEP_PATH
    samples = _sweep.samples_path_of(record)
    seed: Optional[int] = None
    try:
        raw_seed = config.getoption("hypothesis_seed")
    except ValueError:  # Hypothesis's pytest plugin is not loaded
        raw_seed = None
    if raw_seed is not None:
        text = str(raw_seed).strip()
        if not text.isascii() or not text.isdigit():
            raise LedgerError(
                f'--hypothesis-seed "{raw_seed}" is not a whole number: the sweep records '
                "the seed of every run",
                "pass a whole number, e.g. --hypothesis-seed=12345",
            )
        seed = int(text)
    sweep = _Sweep(
        examples=examples,
        record=record,
        record_label=display_path(record, root),
        samples=samples,
        samples_label=display_path(samples, root),
        seed=seed,
        earlier={},
        extra_args=_reproduction_extras(config, paths),
        confirming=os.environ.get(_sweep.CONFIRMING_ENV) == "1",
    )
    if record.resolve() in (paths.ledger.resolve(), samples.resolve()):
        raise OutputError(
            f"the sweep record {sweep.record_label} must not be the ledger or its samples "
            "artifact (fix: pass --freezegate-sweep-record a path of its own)"
        )
    sweep.earlier = _sweep.earlier_failures(read_earlier(record), _ledger_key(paths, root))
    if not no_output:
        prepare_output(
            record, "sweep record", sweep.record_label, "--freezegate-sweep-record", False
        )
        prepare_output(
            samples, "sweep samples artifact", sweep.samples_label, "--freezegate-sweep-record"
        )
    return sweep


def _ledger_key(paths: _Paths, root: Path) -> Dict[str, str]:
    """How the records name the ledger: its path in the repository (else absolute)."""
    top, _ = git_facts(root)
    path = display_path(paths.ledger, top) if top is not None else paths.ledger.resolve().as_posix()
    return {"path": path}


def _reproduction_extras(config: pytest.Config, paths: _Paths) -> List[str]:
    """What the reproduction command must repeat of this command line, run in the rootdir."""
    root = config.rootpath
    args = [str(a) for a in config.invocation_params.args]
    extras: List[str] = []
    for i, arg in enumerate(args):
        if arg in ("-pfreezegate_pytest",) or (
            arg == "-p" and i + 1 < len(args) and args[i + 1] == "freezegate_pytest"
        ):
            extras += ["-p", "freezegate_pytest"]
            break
    if config.getoption("freezegate_ledger"):
        extras += ["--freezegate-ledger", display_path(paths.ledger, root)]
    given = config.getoption("freezegate_sweep_record")
    if given:
        record = config.invocation_params.dir / given
        extras += ["--freezegate-sweep-record", display_path(record, root)]
    return extras


def _refuse_other_mode(
    before: Dict[str, Any], mode: str, paths: _Paths, ledger_sha256: str, root: Path
) -> None:
    """An earlier run's record this run would merge with but for its mode: a usage error.

    Runs of one commit and ledger merge their records (merge_with_earlier), because the
    coverage data may hold both (``--cov-append``). Runs in two modes do not merge, and
    replacing the earlier record would drop what that run muted or skipped.
    """
    if before.get("mode") == mode:
        return
    top, commit = git_facts(root)
    if commit is None or before.get("commit") != commit:
        return
    ledger_path = (
        display_path(paths.ledger, top) if top is not None else paths.ledger.resolve().as_posix()
    )
    if before.get("ledger") != {"path": ledger_path, "sha256": ledger_sha256}:
        return
    raise OutputError(
        f"an earlier run at this commit wrote {paths.record_label} in mode {before.get('mode')}, "
        f"and this run is in mode {mode}: the coverage data may hold both runs (--cov-append), "
        "and a record of one alone would hide what the other muted or skipped "
        "(fix: run every pytest of a commit in one --freezegate-mode, or remove "
        f"{paths.record_label} and {paths.samples_label} first)"
    )


class _Inactive:
    """No ledger where the plugin looks by default: say so once, do nothing else."""

    def __init__(self, why: str) -> None:
        self.why = why

    def pytest_report_header(self) -> str:
        return f"freezegate: {self.why}"


def _run_reason(freeze: Freeze) -> str:
    owner = freeze.owner or "no owner"
    expires = f"expires {freeze.expires}" if freeze.expires else "no expiry"
    return f"frozen: {owner}, {expires}"


def _phase_outcome(report: pytest.TestReport) -> str:
    """What one phase of a frozen test did, before the plugin changes the report."""
    if report.failed:
        return "failed"
    if report.skipped:
        # An xfail-marked test that failed as expected ran, and failed.
        return "failed" if hasattr(report, "wasxfail") else "skipped"
    return "passed"


_RANK = {"passed": 0, "skipped": 1, "failed": 2}


def _crash_line(report: pytest.TestReport) -> str:
    crash = getattr(report.longrepr, "reprcrash", None)
    message = getattr(crash, "message", None)
    if not message:
        lines = [line for line in str(report.longrepr or "").splitlines() if line.strip()]
        message = lines[-1] if lines else "failed"
    first = message.strip().splitlines()[0] if message.strip() else "failed"
    return first if len(first) <= 120 else first[:117] + "..."


try:
    _PYTEST_MAJOR = int(str(pytest.__version__).split(".")[0])
except ValueError:  # an unusual version string: assume the older behaviour (fail closed)
    _PYTEST_MAJOR = 0


def _own_fixture_failed(item: pytest.Item, call: Any) -> bool:
    """Whether a teardown failure came from the test's own (function-scoped) fixtures only.

    Its traceback passes through the code of one of them and through none of a wider scope's,
    and pytest (8 or later) raised every teardown exception. Anything else (a wider fixture's
    code, a finalizer registered with addfinalizer, an unreadable traceback, pytest 7) is not
    shown to be the test's own.
    """
    # pytest before 8 raises only the first teardown exception and drops the others: a wider
    # fixture's failure behind the test's own cannot be seen, so nothing is shown.
    if _PYTEST_MAJOR < 8:
        return False
    excinfo = getattr(call, "excinfo", None)
    info = getattr(item, "_fixtureinfo", None)
    if excinfo is None or info is None:
        return False
    own, wider = set(), set()
    for fixturedefs in info.name2fixturedefs.values():
        for fixturedef in fixturedefs:
            code = getattr(getattr(fixturedef, "func", None), "__code__", None)
            if code is not None:
                scope = getattr(fixturedef, "scope", None)
                (own if str(getattr(scope, "value", scope)) == "function" else wider).add(code)
    try:
        codes = [entry.frame.code.raw for entry in excinfo.traceback]
    except Exception:  # noqa: BLE001 - an unreadable traceback proves nothing
        return False
    return any(c in own for c in codes) and not any(c in wider for c in codes)


class FreezegatePlugin:
    def __init__(
        self,
        config: pytest.Config,
        paths: _Paths,
        loaded: LoadedLedger,
        mode: str,
        today: str,
        worker: bool,
        no_run: Optional[str] = None,
        earlier: Optional[Tuple[Dict[str, Any], Dict[str, Any]]] = None,
        sweep: Optional[_Sweep] = None,
    ) -> None:
        self.config = config
        # --freezegate-sweep: only the ledger's properties run, and no freeze applies (a frozen
        # property's failure is a finding of the sweep like any other).
        self.sweep = sweep
        # The record and samples of an earlier run, to merge with at the end when they are of
        # the same commit, ledger and mode; whether they were.
        self.earlier = earlier
        self.merged = False
        # The flag that keeps the session from running tests: nothing is written then.
        self.no_run = no_run
        self.paths = paths
        self.sha256 = loaded.sha256
        self.freezes = loaded.ledger.freezes
        self.mode = mode
        self.today = today
        self.worker = worker
        in_force = [] if sweep is not None else self.freezes
        self.expired = [f for f in in_force if f.expired_on(today)]
        self.matcher = Matcher(f for f in in_force if not f.expired_on(today))
        self.properties = {f.compensating_property for f in self.freezes if f.compensating_property}
        # What the sweep runs: every property the ledger names, and every test an earlier
        # sweep found failing (it stays failing until a sweep passes it).
        self.swept_ids = (
            self.properties | set(loaded.ledger.checks) | set(sweep.earlier)
            if sweep is not None
            else set()
        )
        # nodeid -> (seed, examples) of the Hypothesis tests this process swept.
        self.sweep_runs: Dict[str, Tuple[int, int]] = {}
        # What the reporting process learned: per swept test its outcome, seed and examples,
        # and its first failure.
        self.sweep_outcomes: Dict[str, Dict[str, Any]] = {}
        self.sweep_failures: Dict[str, Dict[str, Any]] = {}
        self.sweep_written: Dict[str, _sweep.Failure] = {}
        self.sweep_kept: List[str] = []
        self.inputs = _inputs.InputLog()
        _inputs.activate(self.inputs)
        # Collection facts of this process.
        self.collected_files: Set[str] = set()
        self.deselected: Set[str] = set()
        # Every item collection produced, before any hook took items out of the run.
        self.itemcollected: Set[str] = set()
        # Frozen tests collected but not run (deselected, or dropped by a conftest.py): they
        # leave no coverage context, so the gate would read their lines as uncovered.
        self.deselected_frozen: Set[str] = set()
        # nodeid -> freeze, for the items this process runs (marks and report changes).
        self.local_applied: Dict[str, Freeze] = {}
        # Frozen items whose teardown also finalizes a wider scope (the last test of its
        # class, module or session): a failure there may be a shared fixture's, not theirs.
        self.wider_teardown: Set[str] = set()
        # What the record says (filled by the reporting process).
        self.final_ids: Optional[List[str]] = None
        self.applied: Dict[str, Freeze] = {}
        self.outcomes: Dict[str, str] = {}
        self.failures: Dict[str, str] = {}
        # Every test's result, for the samples artifact: whose call passed, who failed.
        self.call_passed: Set[str] = set()
        self.not_passed: Set[str] = set()
        # Tests an xfail turned into xfailed or xpassed (reports with wasxfail): their failures
        # cannot fail the run. The frozen ones among them are the plugin's own doing.
        self.xfail_reported: Set[str] = set()
        # Tests a skip (a marker, or pytest.skip() in the body) stopped: they witnessed nothing.
        self.skip_reported: Set[str] = set()
        self.channel: Optional[Path] = None
        self.written = False
        self.not_written = ""

    # -- header -----------------------------------------------------------------------------

    def pytest_report_header(self) -> str:
        if self.sweep is not None:
            seeds = f"seed {self.sweep.seed}" if self.sweep.seed is not None else "fresh seeds"
            return (
                f"freezegate: sweep of the properties of ledger {self.paths.ledger_label}: at "
                f"least {self.sweep.examples} examples per Hypothesis test, {seeds}, record "
                f"{self.sweep.record_label}"
            )
        n = len(self.freezes)
        expired = f", {len(self.expired)} expired as of {self.today}" if self.expired else ""
        return (
            f"freezegate: ledger {self.paths.ledger_label} ({n} freeze{'' if n == 1 else 's'}"
            f"{expired}), mode {self.mode}, record {self.paths.record_label}"
        )

    # -- collection (the collecting process) ------------------------------------------------

    def pytest_collectreport(self, report: pytest.CollectReport) -> None:
        # Files whose collection worked; a file that failed to import is reported by pytest.
        if report.passed and report.nodeid and "::" not in report.nodeid:
            self.collected_files.add(report.nodeid)

    def _last_failed_rerun(self) -> bool:
        """Whether pytest's --lf narrows this session's collection to last run's failures."""
        try:
            if not self.config.getoption("lf"):
                return False
        except ValueError:  # no cacheprovider (-p no:cacheprovider): no --lf
            return False
        lf = self.config.pluginmanager.get_plugin("lfplugin")
        return bool(getattr(lf, "lastfailed", None))

    def _swept(self, nodeid: str) -> bool:
        base = nodeid.split("[", 1)[0] if nodeid.endswith("]") else nodeid
        return nodeid in self.swept_ids or base in self.swept_ids

    @pytest.hookimpl(trylast=True)
    def pytest_collection_modifyitems(
        self, session: pytest.Session, config: pytest.Config, items: List[pytest.Item]
    ) -> None:
        if self.sweep is None:
            return
        # The sweep is not a full run: the ledger's properties only.
        kept = [item for item in items if self._swept(item.nodeid)]
        dropped = [item for item in items if not self._swept(item.nodeid)]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
            items[:] = kept

    def pytest_deselected(self, items: List[pytest.Item]) -> None:
        self.deselected.update(item.nodeid for item in items)

    def pytest_itemcollected(self, item: pytest.Item) -> None:
        self.itemcollected.add(item.nodeid)

    @pytest.hookimpl(tryfirst=True)
    def pytest_collection_finish(self, session: pytest.Session) -> None:
        ids = [item.nodeid for item in session.items]
        # Deselected tests exist too: a "*" entry naming one is that test, never a glob
        # (a shard that deselects it must not mute its siblings).
        self.matcher.collected([*ids, *self.deselected])
        kept = set(ids)
        self.deselected_frozen = {
            nodeid
            for nodeid in self.itemcollected | self.deselected
            if nodeid not in kept and self.matcher.match(nodeid) is not None
        }
        for item in session.items:
            freeze = self.matcher.match(item.nodeid)
            if freeze is None:
                continue
            self.local_applied[item.nodeid] = freeze
            if self.mode == "skip":
                item.add_marker(
                    pytest.mark.skip(
                        reason=f"frozen by {self.paths.ledger_label}: {freeze.test_id} "
                        f"({freeze.describe()})"
                    )
                )
        root = self.config.rootpath
        message = unmatched_message(
            self.freezes,
            [*ids, *self.deselected],
            # A --lf rerun collects only the tests that failed last: it passes the other
            # files as collected but empty, and drops the other tests of a failed one, so a
            # frozen test that exists would look like a typo there.
            set() if self._last_failed_rerun() else self.collected_files,
            lambda rel: (root / rel).exists(),
            self.paths.ledger_label,
        )
        if self.worker:
            self._tell_controller(message)
            return
        if message:
            raise pytest.UsageError(message)
        self._set_final(ids)

    def _set_final(self, ids: List[str]) -> None:
        self.final_ids = ids
        self.applied = {}
        self.matcher.collected([*ids, *self.deselected])
        for nodeid in ids:
            freeze = self.matcher.match(nodeid)
            if freeze is not None:
                self.applied[nodeid] = freeze

    def _tell_controller(self, message: Optional[str]) -> None:
        workerinput = getattr(self.config, "workerinput", {})
        channel = workerinput.get(_CHANNEL_KEY)
        if not channel:
            return  # the controller then reports that this worker said nothing
        target = Path(channel) / f"{workerinput.get('workerid', 'worker')}.json"
        write_json_atomic(
            target,
            {
                "sha256": self.sha256,
                "message": message,
                "deselected_frozen": sorted(self.deselected_frozen),
            },
        )

    # -- xdist controller -------------------------------------------------------------------

    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(self, node: Any) -> None:
        if self.channel is None:
            self.channel = Path(tempfile.mkdtemp(prefix="freezegate-xdist-"))
        node.workerinput[_CHANNEL_KEY] = str(self.channel)

    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_node_collection_finished(self, node: Any, ids: List[str]) -> None:
        worker = node.gateway.id
        report = self.channel / f"{worker}.json" if self.channel else None
        try:
            told = json.loads(report.read_text(encoding="utf-8")) if report else None
        except (OSError, ValueError):
            told = None
        if not isinstance(told, dict):
            raise pytest.UsageError(
                f"freezegate: pytest-xdist worker {worker} did not report its collection to "
                "the plugin (fix: run workers on this machine (-n N); the plugin does not "
                "support workers on other hosts)"
            )
        if told.get("sha256") != self.sha256:
            raise pytest.UsageError(
                f"freezegate: the ledger {self.paths.ledger_label} changed while pytest-xdist "
                f"workers started ({worker} read another version) (fix: do not edit the "
                "ledger during a run; run again)"
            )
        if told.get("message"):
            raise pytest.UsageError(str(told["message"]))
        self.deselected_frozen.update(str(n) for n in told.get("deselected_frozen") or [])
        if self.final_ids is None:
            self._set_final(list(ids))

    @pytest.hookimpl(optionalhook=True)
    def pytest_testnodedown(self, node: Any, error: Any) -> None:
        sent = getattr(node, "workeroutput", {}).get(_INPUTS_KEY)
        if sent:
            self.inputs.merge(sent)

    # -- running (the process that runs the test) -------------------------------------------

    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_protocol(self, item: pytest.Item, nextitem: Any) -> Any:
        self.inputs.current = item.nodeid
        try:
            yield
        finally:
            self.inputs.current = None

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_teardown(self, item: pytest.Item, nextitem: Any) -> None:
        if item.nodeid not in self.local_applied:
            return
        # pytest tears down every node of the item's chain the next item does not share:
        # more than the item itself means class, module or session fixtures end here.
        kept = set(nextitem.listchain()) if nextitem is not None else set()
        if any(node not in kept for node in item.listchain()[:-1]):
            self.wider_teardown.add(item.nodeid)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Any:
        test = getattr(item, "obj", None)
        if test is None or "hypothesis" not in sys.modules:
            yield
            return
        funcargs = getattr(item, "funcargs", {})
        with contextlib.ExitStack() as stack:
            if self.sweep is not None and _sweep.is_hypothesis_test(test):
                seed, examples = self._sweep_run(item.nodeid)
                self.sweep_runs[item.nodeid] = (seed, examples)
                stack.enter_context(_sweep.swept(test, examples, seed))
            stack.enter_context(
                _inputs.counting_generated_inputs(test, item.nodeid, funcargs, self.inputs)
            )
            yield

    def _sweep_run(self, nodeid: str) -> Tuple[int, int]:
        """The seed and example count a swept test runs with.

        The command line's --hypothesis-seed wins; else an earlier failure of the test runs
        again as it failed (only that can show it fixed); else a fresh seed.
        """
        sweep = self.sweep
        assert sweep is not None
        if sweep.seed is not None:
            return sweep.seed, sweep.examples
        pinned = _sweep.pinned_runs(sweep.earlier).get(nodeid)
        if pinned is not None:
            return pinned
        return _sweep.fresh_seed(), sweep.examples

    # tryfirst: the outermost wrapper, so it sees the report after pytest's own xfail handling.
    @pytest.hookimpl(hookwrapper=True, tryfirst=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: Any) -> Any:
        outcome = yield
        run = self.sweep_runs.get(item.nodeid)
        if run is not None and call.when != "setup":
            # Plain attributes travel with the report to an xdist controller.
            swept_report = outcome.get_result()
            swept_report.freezegate_seed, swept_report.freezegate_examples = run
        freeze = self.local_applied.get(item.nodeid)
        if freeze is None:
            return
        report = outcome.get_result()
        # Plain attributes of a report travel with it from an xdist worker to the controller.
        if (
            report.when == "teardown"
            and report.failed
            and item.nodeid in self.wider_teardown
            and not _own_fixture_failed(item, call)
        ):
            # A class, module or session fixture's finalizer may have failed here, about the
            # live tests that shared it: the failure stands (fail closed). The record says
            # "failed", as pytest's ERROR line does: the test is no candidate for unfreezing.
            report.freezegate_phase = _phase_outcome(report)
            report.freezegate_failure = (
                f"this teardown error stands (shared fixtures end here): {_crash_line(report)}"
            )
            return
        report.freezegate_phase = _phase_outcome(report)
        if self.mode == "run" and report.failed:
            report.freezegate_failure = _crash_line(report)
            report.outcome = "skipped"
            report.wasxfail = _run_reason(freeze)

    # -- reporting (the only process, or the xdist controller) ------------------------------

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        if self.sweep is not None:
            self._sweep_logreport(report)
        if getattr(report, "wasxfail", None) is not None and not report.failed:
            self.xfail_reported.add(report.nodeid)
        elif report.skipped:
            self.skip_reported.add(report.nodeid)
        if report.failed:
            self.not_passed.add(report.nodeid)
        elif report.when == "call" and report.passed:
            self.call_passed.add(report.nodeid)
        phase = getattr(report, "freezegate_phase", None)
        if phase not in _RANK:
            return
        before = self.outcomes.get(report.nodeid)
        if before is None or _RANK[phase] > _RANK[before]:
            self.outcomes[report.nodeid] = phase
        failure = getattr(report, "freezegate_failure", None)
        if failure and report.nodeid not in self.failures:
            self.failures[report.nodeid] = str(failure)

    def _sweep_logreport(self, report: pytest.TestReport) -> None:
        seen = self.sweep_outcomes.setdefault(
            report.nodeid, {"outcome": "passed", "seed": None, "examples": None}
        )
        seed = getattr(report, "freezegate_seed", None)
        if seed is not None:
            seen["seed"] = seed
            seen["examples"] = getattr(report, "freezegate_examples", None)
        if report.failed:
            seen["outcome"] = "failed"
            if report.nodeid not in self.sweep_failures:
                self.sweep_failures[report.nodeid] = {
                    "seed": seed,
                    "examples": getattr(report, "freezegate_examples", None),
                    "message": _crash_line(report),
                    "blob": _sweep.reproduce_failure_line(str(report.longreprtext or "")),
                }
        elif report.skipped and seen["outcome"] == "passed":
            seen["outcome"] = "skipped"

    def pytest_sessionfinish(self, session: pytest.Session, exitstatus: int) -> None:
        if self.worker:
            # xdist sends workeroutput to the controller when the worker finishes.
            self.config.workeroutput[_INPUTS_KEY] = self.inputs.export()  # type: ignore
            return
        if self.no_run is not None:
            return
        if exitstatus not in _RECORDED_EXITS or self.final_ids is None:
            try:
                name = f" ({pytest.ExitCode(exitstatus).name})"
            except ValueError:
                name = ""
            self.not_written = f"the session ended with exit status {int(exitstatus)}{name}"
            return
        try:
            if self.sweep is not None:
                self._write_sweep()
            else:
                self._write()
        except OSError as exc:
            self.not_written = f"writing failed: {exc.strerror or exc}"
            session.exitstatus = pytest.ExitCode.USAGE_ERROR
            return
        self.written = True

    def _evidence(self, nodeid: str) -> bool:
        """Whether a test's inputs count: it passed (every phase) and is not frozen or muted.

        A property that failed did not show its invariant holds on those inputs; a frozen
        one (mode run mutes its failures, mode skip never runs it) gates nothing, and so does
        one an xfail muted (an xpassed test passed, but its failure would not have counted).
        None may vouch for a freeze, so none gets a count, not even 0.
        """
        return (
            nodeid in self.call_passed
            and nodeid not in self.not_passed
            and nodeid not in self.applied
            and nodeid not in self.xfail_reported
        )

    def _is_property(self, nodeid: str) -> bool:
        base = nodeid.split("[", 1)[0] if nodeid.endswith("]") else nodeid
        return nodeid in self.properties or base in self.properties

    def _samples(self) -> Dict[str, int]:
        counts = {n: c for n, c in self.inputs.counts().items() if self._evidence(n)}
        # A compensating property that passed without recording anything ran on no counted
        # input: say 0, so the deposit gate names the problem instead of "no count".
        for nodeid in self.final_ids or []:
            if self._is_property(nodeid) and self._evidence(nodeid) and nodeid not in counts:
                counts[nodeid] = 0
        return counts

    def _muted(self) -> List[str]:
        """Tests an xfail this plugin did not apply muted: they defend nothing either."""
        return sorted(n for n in self.xfail_reported if n not in self.applied)

    def _skipped(self) -> List[str]:
        """Tests a skip this plugin did not apply stopped: they witnessed nothing."""
        return sorted(
            n for n in self.skip_reported if n not in self.applied and n not in self.xfail_reported
        )

    def _write(self) -> None:
        root = self.config.rootpath
        top, commit = git_facts(root)
        # Relative to the repository when inside it: the merge queue compares it with the
        # ledger checked in at the gated commit.
        ledger_path = (
            display_path(self.paths.ledger, top)
            if top is not None
            else self.paths.ledger.resolve().as_posix()
        )
        record = applied_record(
            commit=commit,
            ledger_path=ledger_path,
            ledger_sha256=self.sha256,
            mode=self.mode,
            applied=self.applied,
            expired=[f.test_id for f in self.expired],
            outcomes={k: v for k, v in self.outcomes.items() if k in self.applied},
            muted=self._muted(),
            skipped=self._skipped(),
            # A frozen test the session never reached (pytest.exit, -x) left no coverage
            # either: not run, like a deselected one.
            deselected_frozen=self.deselected_frozen
            | {n for n in self.applied if n not in self.outcomes},
        )
        samples = samples_artifact(commit, self._samples())
        record, samples, self.merged = merge_with_earlier(
            self.earlier, record, samples, self.final_ids or []
        )
        write_json_atomic(self.paths.samples, samples)
        # The record last: its presence says the whole run's outputs were written.
        write_json_atomic(self.paths.record, record)

    def _write_sweep(self) -> None:
        sweep = self.sweep
        assert sweep is not None
        root = self.config.rootpath
        top, commit = git_facts(root)
        ledger = _ledger_key(self.paths, root)
        ledger["sha256"] = self.sha256
        swept_at = _sweep.now_text(os.environ.get("FREEZEGATE_NOW"))
        for nodeid, seen in sorted(self.sweep_failures.items()):
            args = _sweep.reproduction_args(
                nodeid, seen["seed"], seen["examples"], sweep.extra_args
            )
            # Recorded only after a fresh pytest ran it again at its seed: a failure that
            # does not come back there is flaky, not a reproduced defect.
            reproduced = None if sweep.confirming else _sweep.confirm(args, root)
            self.sweep_written[nodeid] = _sweep.Failure(
                test_id=nodeid,
                seed=seen["seed"],
                examples=seen["examples"],
                command=_sweep.command_text(args),
                reproduce_failure=seen["blob"],
                message=seen["message"],
                reproduced=reproduced,
                commit=commit,
                found_at=swept_at,
            )
        properties = {
            n: v for n, v in self.sweep_outcomes.items() if n.strip() == n and n.find("::") > 0
        }
        record = _sweep.sweep_record(
            commit=commit,
            ledger=ledger,
            swept_at=swept_at,
            examples=sweep.examples,
            properties=properties,
            failures=self.sweep_written,
            earlier=sweep.earlier,
        )
        self.sweep_kept = [
            f["test_id"] for f in record["failures"] if f["test_id"] not in self.sweep_written
        ]
        write_json_atomic(sweep.samples, samples_artifact(commit, self._samples()))
        write_json_atomic(sweep.record, record)

    def _sweep_summary(self, tr: Any) -> None:
        sweep = self.sweep
        assert sweep is not None
        ran = len(self.sweep_outcomes)
        tr.write_line(
            f"sweep of ledger {self.paths.ledger_label}: {ran} propert{'y' if ran == 1 else 'ies'} "
            f"ran, at least {sweep.examples} examples per Hypothesis test"
        )
        if self.no_run is not None:
            tr.write_line(f"{self.no_run} runs no test: {sweep.record_label} was left as it was")
            return
        if not self.written:
            tr.write_line(
                f"no sweep record written ({sweep.record_label} left as it was): "
                f"{self.not_written}",
                red=True,
            )
            return
        for nodeid, failure in sorted(self.sweep_written.items()):
            seed = f" at seed {failure.seed}" if failure.seed is not None else ""
            again = {
                True: "failed again at its seed in a fresh pytest",
                False: "passed when run again at its seed: not reproduced (flaky)",
                None: "could not be run again to confirm it",
            }[failure.reproduced]
            tr.write_line(f"FAILED{seed}: {nodeid}: {failure.message}", red=True)
            tr.write_line(f"  {again}")
            where = (
                ""
                if self.config.invocation_params.dir == self.config.rootpath
                else f" (in {self.config.rootpath})"
            )
            tr.write_line(f"  reproduce{where}: {failure.command}")
            if failure.reproduce_failure:
                tr.write_line(f"  or decorate the test with {failure.reproduce_failure}")
        if self.sweep_kept:
            tr.write_line(
                "failures of earlier sweeps that stand (this sweep did not pass them at their "
                f"seeds; commands in {sweep.record_label}):"
            )
            for nodeid in self.sweep_kept:
                tr.write_line(f"  {nodeid}")
        tr.write_line(
            f"sweep record: {sweep.record_label}; samples: {sweep.samples_label}"
        )

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if self.worker:
            return
        tr = terminalreporter
        tr.write_sep("=", "freezegate")
        if self.final_ids is None:
            # Stopped before the tests were known (a usage error, an interrupted collection).
            tr.write_line(f"no record written: {self.not_written}", red=True)
            return
        if self.sweep is not None:
            self._sweep_summary(tr)
            return
        tr.write_line(
            f"ledger {self.paths.ledger_label}, mode {self.mode}, today {self.today}: "
            f"{len(self.applied)} frozen test{'' if len(self.applied) == 1 else 's'} in this run, "
            f"{len(self.expired)} expired freeze{'' if len(self.expired) == 1 else 's'}"
        )
        if self.no_run is not None:
            tr.write_line(
                f"{self.no_run} runs no test: {self.paths.record_label} and "
                f"{self.paths.samples_label} were left as they were"
            )
            return
        groups: Dict[str, List[str]] = {}
        for nodeid in sorted(self.applied):
            freeze = self.applied[nodeid]
            outcome = self.outcomes.get(nodeid)
            if self.mode == "skip" and outcome == "skipped":
                key = "frozen-skipped"
            elif outcome is None:
                key = "frozen-not-run"
            else:
                key = f"frozen-{outcome}"
            line = f"  {nodeid} ({freeze.describe()})"
            if nodeid in self.failures:
                line += f": {self.failures[nodeid]}"
            groups.setdefault(key, []).append(line)
        titles = {
            "frozen-failed": "frozen-failed (these failures do not fail the session):",
            "frozen-passed": "frozen-passed:",
            "frozen-skipped": "frozen-skipped:",
            "frozen-not-run": "frozen-not-run:",
        }
        for key, title in titles.items():
            if key in groups:
                tr.write_line(title)
                for line in groups[key]:
                    tr.write_line(line)
        if self.expired:
            tr.write_line("expired (not applied: these tests gate again):")
            for freeze in sorted(self.expired, key=lambda f: f.test_id):
                owner = f"owner {freeze.owner}, " if freeze.owner else ""
                tr.write_line(
                    f"  {freeze.test_id} ({owner}expired {freeze.expires}, today is {self.today})"
                )
        if self.deselected_frozen:
            tr.write_line(
                "frozen but not run (deselected): they leave no coverage, so freezegate check "
                "refuses this run; let frozen tests run:",
                red=True,
            )
            for nodeid in sorted(self.deselected_frozen):
                tr.write_line(f"  {nodeid}")
        muted = self._muted()
        if muted:
            tr.write_line(
                f"muted by xfail outside the ledger ({len(muted)}; their failures cannot fail "
                "the run, so freezegate check counts them as frozen):"
            )
            for nodeid in muted[:10]:
                tr.write_line(f"  {nodeid}")
            if len(muted) > 10:
                tr.write_line(f"  ... and {len(muted) - 10} more (see {self.paths.record_label})")
        if self.written:
            n = len(self._samples())
            tr.write_line(
                f"record: {self.paths.record_label}; samples: {self.paths.samples_label} "
                f"({n} test{'' if n == 1 else 's'} with counted inputs)"
            )
            if self.merged:
                tr.write_line(
                    "merged with the record and samples of an earlier run at this commit "
                    "(same ledger and mode): what either run muted or froze is in the record"
                )
            uncounted = [
                n for n in self.final_ids if self._is_property(n) and not self._evidence(n)
            ]
            if uncounted:
                tr.write_line(
                    "compensating properties without a count (failed, not run or frozen in "
                    "this run; they cannot vouch for a freeze):",
                    red=True,
                )
                for nodeid in sorted(uncounted):
                    tr.write_line(f"  {nodeid}")
        else:
            tr.write_line(f"no record written: {self.not_written}", red=True)

    def pytest_unconfigure(self, config: pytest.Config) -> None:
        if _inputs.active() is self.inputs:
            _inputs.activate(None)
        if self.channel is not None:
            shutil.rmtree(self.channel, ignore_errors=True)
