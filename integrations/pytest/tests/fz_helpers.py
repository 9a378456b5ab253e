"""Helpers for the plugin's tests: ledgers, runs, git. Inner pytester projects get no
conftest.py of their own (an inner "conftest" module would clash with this suite's)."""

import hashlib
import json
import subprocess
from pathlib import Path

TODAY = "2026-10-18"


def freeze(test_id, owner="finley", expires="2026-10-26", opened="2026-10-12", **extra):
    entry = {
        "test_id": test_id,
        "reason": "flaky in the full suite",
        "owner": owner,
        "opened": opened,
        "expires": expires,
        "invariant": "something that must hold",
        "compensating_property": extra.pop("compensating_property", ""),
        "reused_property": False,
    }
    entry.update(extra)
    return entry


def write_ledger(pytester, *freezes, name="freeze-ledger.json", raw=None):
    """Write a freezegate ledger (or ``raw`` text as it is) and return its path."""
    path = pytester.path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    text = raw if raw is not None else json.dumps({"version": 1, "freezes": list(freezes)}, indent=2)
    path.write_text(text, encoding="utf-8")
    return path


def read_json(path):
    return json.loads(Path(path).read_text(encoding="utf-8"))


def sha256_of(path):
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def run(pytester, *args, today=TODAY, subprocess_run=False):
    argv = ["-p", "freezegate_pytest", "-p", "no:cacheprovider", "-ra"]
    if today is not None:
        argv += ["--freezegate-today", today]
    argv += list(args)
    if subprocess_run:
        return pytester.runpytest_subprocess(*argv)
    # In-process runs share this process's already imported (so not rewritten) plugin module.
    return pytester.runpytest("-W", "ignore::pytest.PytestAssertRewriteWarning", *argv)


def git(cwd, *args):
    return subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "commit.gpgsign=false", *args],
        cwd=str(cwd),
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()


def has_module(name):
    try:
        __import__(name)
    except ImportError:
        return False
    return True
