"""The randomized sweep: the ledger's properties, many more examples, fresh seeds.

The gates on the merge path run properties as the project configures them (often
derandomized, with the default example count): fast and deterministic. The sweep is for a
nightly job. It runs only the ledger's properties (compensating ones, and the checks of
``properties``), each Hypothesis test with at least ``examples`` examples, a seed of its own
and no example database, so that every failure is a function of the seed and the code, and
the command it prints reproduces it on any machine. A failure is re-run at its seed in a
fresh pytest before it is recorded: ``reproduced`` says whether it failed again.

The sweep record (``.freezegate/sweep.json``) keeps a failure until a sweep runs that
property again at the failure's seed and example count and it passes: a fresh seed that
happens to pass says nothing about the example that failed. ``freezegate freeze`` and
``freezegate check`` read it.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import os
import re
import shlex
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, Iterator, List, Mapping, Optional

SWEEP_VERSION = 1
SWEEP_KIND = "sweep"
DEFAULT_SWEEP_PATH = ".freezegate/sweep.json"
#: Hypothesis's own default is 100; a nightly job can afford ten times that.
DEFAULT_EXAMPLES = 1000
#: A confirmation re-run that takes longer than this cannot tell (reproduced: null).
CONFIRM_TIMEOUT_SECONDS = 3600
#: Set in the environment of the confirmation re-run: it records nothing of its own that
#: matters and confirms nothing again.
CONFIRMING_ENV = "FREEZEGATE_SWEEP_CONFIRMING"

_BLOB = re.compile(r"@reproduce_failure\((['\"][^'\"]+['\"], b['\"][^'\"]*['\"])\)")


def samples_path_of(record: Path) -> Path:
    """The sweep's samples artifact, beside its record: never the merge-path run's file."""
    return record.with_name(f"{record.stem}-samples{record.suffix or '.json'}")


def hypothesis_version() -> Optional[str]:
    try:
        from hypothesis import __version__
    except ImportError:
        return None
    return str(__version__)


def is_hypothesis_test(function: Any) -> bool:
    return bool(getattr(function, "is_hypothesis_test", False))


@contextlib.contextmanager
def swept(function: Any, examples: int, seed: int) -> Iterator[None]:
    """Run a Hypothesis test with at least ``examples`` examples at ``seed``, no database.

    Hypothesis reads the settings and the seed from the wrapped test when it is called, so
    they are set there for the call and put back after it. ``derandomize`` is turned off (a
    derandomized test ignores seeds); ``print_blob`` is turned on, so Hypothesis prints its
    own ``@reproduce_failure`` line for a failure.
    """
    from hypothesis import settings as Settings

    target = getattr(function, "__func__", function)
    current = getattr(target, "_hypothesis_internal_use_settings", None) or Settings.default
    before = {
        name: getattr(target, name)
        for name in ("_hypothesis_internal_use_settings", "_hypothesis_internal_use_seed")
        if hasattr(target, name)
    }
    target._hypothesis_internal_use_settings = Settings(
        current,
        max_examples=max(examples, current.max_examples),
        derandomize=False,
        database=None,
        print_blob=True,
    )
    target._hypothesis_internal_use_seed = seed
    try:
        yield
    finally:
        for name in ("_hypothesis_internal_use_settings", "_hypothesis_internal_use_seed"):
            if name in before:
                setattr(target, name, before[name])
            else:
                with contextlib.suppress(AttributeError):
                    delattr(target, name)


def fresh_seed() -> int:
    """A seed no earlier run chose: from the operating system, small enough to type."""
    return int.from_bytes(os.urandom(6), "big")


def reproduce_failure_line(longrepr: str) -> Optional[str]:
    """Hypothesis's ``@reproduce_failure(...)`` decorator for a failure, when it printed one."""
    found = _BLOB.search(longrepr)
    return f"@reproduce_failure({found.group(1)})" if found else None


def reproduction_args(
    nodeid: str, seed: Optional[int], examples: Optional[int], extra: List[str]
) -> List[str]:
    """pytest's arguments that run ``nodeid`` again as the sweep ran it (in pytest's rootdir)."""
    args = [nodeid, *extra, "--freezegate-sweep"]
    if examples is not None:
        args += ["--freezegate-sweep-examples", str(examples)]
    if seed is not None:
        args.append(f"--hypothesis-seed={seed}")
    return args


def command_text(args: List[str]) -> str:
    return " ".join(["pytest", *(shlex.quote(a) for a in args)])


def confirm(args: List[str], cwd: Path) -> Optional[bool]:
    """Run the reproduction in a fresh pytest: True failed again, False passed, None unknown.

    Its record goes to a temporary directory (the sweep's own is written after), the cache
    and coverage of the sweep's process are left alone.
    """
    env = {k: v for k, v in os.environ.items() if not k.startswith("COV_CORE_")}
    with tempfile.TemporaryDirectory(prefix="freezegate-confirm-") as scratch:
        env[CONFIRMING_ENV] = "1"
        argv = [
            sys.executable,
            "-m",
            "pytest",
            *args,
            "--freezegate-sweep-record",
            str(Path(scratch) / "sweep.json"),
            "-p",
            "no:cacheprovider",
            "-q",
        ]
        try:
            done = subprocess.run(
                argv,
                cwd=str(cwd),
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
                timeout=CONFIRM_TIMEOUT_SECONDS,
                check=False,
            )
        except (OSError, subprocess.SubprocessError):
            return None
    if done.returncode == 1:
        return True
    if done.returncode == 0:
        return False
    return None


def now_text(now_env: Optional[str]) -> str:
    """The sweep's time, UTC, to the second: FREEZEGATE_NOW when set (as for ``today``)."""
    instant = None
    if now_env:
        with contextlib.suppress(ValueError):
            instant = _dt.datetime.fromisoformat(now_env.strip().replace("Z", "+00:00"))
    if instant is None:
        instant = _dt.datetime.now(_dt.timezone.utc)
    elif instant.tzinfo is None:
        instant = instant.replace(tzinfo=_dt.timezone.utc)
    return instant.astimezone(_dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class Failure:
    test_id: str
    seed: Optional[int]
    examples: Optional[int]
    command: str
    reproduce_failure: Optional[str]
    message: str
    reproduced: Optional[bool]
    commit: Optional[str]
    found_at: str

    def as_json(self) -> Dict[str, Any]:
        return {
            "test_id": self.test_id,
            "seed": self.seed,
            "examples": self.examples,
            "command": self.command,
            "reproduce_failure": self.reproduce_failure,
            "message": self.message,
            "reproduced": self.reproduced,
            "commit": self.commit,
            "found_at": self.found_at,
        }


def earlier_failures(
    earlier: Optional[Mapping[str, Any]], ledger: Mapping[str, str]
) -> Dict[str, Dict[str, Any]]:
    """An earlier sweep record's failures by test id, when it is of the same ledger file.

    Another ledger's record is replaced, not merged: its failures are about that ledger's
    properties.
    """
    if not earlier or earlier.get("kind") != SWEEP_KIND or earlier.get("version") != SWEEP_VERSION:
        return {}
    before = earlier.get("ledger")
    if not isinstance(before, dict) or before.get("path") != ledger.get("path"):
        return {}
    out: Dict[str, Dict[str, Any]] = {}
    for failure in earlier.get("failures") or []:
        if isinstance(failure, dict) and isinstance(failure.get("test_id"), str):
            out[failure["test_id"]] = failure
    return out


def pinned_runs(earlier: Mapping[str, Mapping[str, Any]]) -> Dict[str, "tuple[int, int]"]:
    """test id -> (seed, examples) of each earlier failure the sweep must run again as it was."""
    out = {}
    for test_id, failure in earlier.items():
        seed, examples = failure.get("seed"), failure.get("examples")
        if isinstance(seed, int) and isinstance(examples, int) and examples > 0:
            out[test_id] = (seed, examples)
    return out


def sweep_record(
    *,
    commit: Optional[str],
    ledger: Mapping[str, str],
    swept_at: str,
    examples: int,
    properties: Mapping[str, Mapping[str, Any]],
    failures: Mapping[str, Failure],
    earlier: Mapping[str, Mapping[str, Any]],
) -> Dict[str, Any]:
    """The sweep record (integrations/pytest/README.md, "The sweep record").

    ``failures``: this sweep's; ``earlier``: the last record's. An earlier failure stays
    unless this sweep ran its test at the failure's seed and example count and the test
    passed; a test this sweep ran and failed has this sweep's failure.
    """
    kept: Dict[str, Dict[str, Any]] = {}
    for test_id, failure in earlier.items():
        ran = properties.get(test_id)
        # A test Hypothesis does not drive has no seed: passing again is all it can show.
        cleared = (
            ran is not None
            and ran.get("outcome") == "passed"
            and ran.get("seed") == failure.get("seed")
            and (failure.get("seed") is None or ran.get("examples") == failure.get("examples"))
        )
        if not cleared:
            kept[test_id] = dict(failure)
    for test_id, failure in failures.items():
        kept[test_id] = failure.as_json()
    return {
        "version": SWEEP_VERSION,
        "tool": "pytest-freezegate",
        "kind": SWEEP_KIND,
        "commit": commit,
        "ledger": dict(ledger),
        "swept_at": swept_at,
        "hypothesis": hypothesis_version(),
        "examples": examples,
        "properties": {k: dict(properties[k]) for k in sorted(properties)},
        "failures": [kept[k] for k in sorted(kept)],
    }
