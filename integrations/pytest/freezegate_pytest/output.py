"""What the plugin leaves behind: the applied record and the samples artifact.

Both are JSON files written once, at the end of the session, by renaming a complete
temporary file over the target: a reader (the merge queue's ``freezegate queue check``, the
deposit gate) sees the previous file or the new one, never half of one. Their paths are
checked, and any file left by an earlier run is removed, BEFORE tests run, so that a run
that cannot write (or that stops early) leaves no record that could be mistaken for its own.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from pathlib import Path
from typing import Any, Dict, Iterable, Mapping, Optional, Tuple

RECORD_VERSION = 1
SAMPLES_VERSION = 2
TOOL = "pytest-freezegate"
DEFAULT_RECORD_PATH = ".freezegate/applied.json"
DEFAULT_SAMPLES_PATH = ".freezegate/samples.json"


class OutputError(Exception):
    """An output path that cannot be written; the message says which and why."""


def display_path(path: Path, base: Path) -> str:
    """``path`` relative to ``base`` when it is inside it (POSIX separators), else absolute."""
    try:
        return path.resolve().relative_to(base.resolve()).as_posix()
    except ValueError:
        return path.resolve().as_posix()


def prepare_output(
    path: Path, what: str, label: str, option: str, remove_earlier: bool = True
) -> None:
    """Make sure ``path`` can be written at the end, and remove what an earlier run left.

    ``remove_earlier=False`` keeps the earlier file: the sweep record is evidence that stays
    until a later sweep clears it, also when that sweep stops early.
    """
    fix = f"(fix: pass {option} PATH in a writable directory)"
    if path.is_dir():
        raise OutputError(f"the {what} path {label} is a directory {fix}")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, probe = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".probe")
        os.close(fd)
        os.unlink(probe)
        # A stale file from an earlier run would pass for this run's if this run stops early.
        if remove_earlier:
            path.unlink(missing_ok=True)
    except OSError as exc:
        reason = exc.strerror or str(exc)
        raise OutputError(f"cannot write the {what} {label}: {reason} {fix}") from None


def read_earlier(path: Path) -> Optional[Dict[str, Any]]:
    """The JSON object an earlier run left at ``path``, or None (none, unreadable, not ours)."""
    try:
        value = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) and value.get("tool") == TOOL else None


def merge_with_earlier(
    earlier: Optional[Tuple[Dict[str, Any], Dict[str, Any]]],
    record: Dict[str, Any],
    samples: Dict[str, Any],
    ran: Iterable[str],
) -> Tuple[Dict[str, Any], Dict[str, Any], bool]:
    """This run's record and samples, merged with an earlier run's of the same commit.

    A CI step may run pytest twice on one commit (unit tests, then properties, with
    ``--cov-append``): the coverage data then holds both runs, and so must the record, or a
    test the first run muted would count as live. Merged only when the earlier record names
    the same commit, ledger (path and bytes) and mode: lists are united (what any run muted
    stays muted, and what either run did not run stays "not run"), and the earlier
    run's counts are kept for the properties this run did not run (this run's word, a
    count or none, replaces them for those it ran). Returns (record, samples, merged).
    """
    if earlier is None or record.get("commit") is None:
        return record, samples, False
    before, before_samples = earlier
    if (
        before.get("commit") != record["commit"]
        or before.get("ledger") != record["ledger"]
        or before.get("mode") != record["mode"]
        or before_samples.get("commit") != record["commit"]
    ):
        return record, samples, False

    def ids(value: Any) -> set:
        return {v for v in value if isinstance(v, str)} if isinstance(value, list) else set()

    def counts(value: Any) -> Dict[str, Any]:
        return dict(value) if isinstance(value, dict) else {}

    applied = ids(before.get("applied")) | set(record["applied"])
    outcomes = {**counts(before.get("outcomes")), **record["outcomes"]}
    # A frozen test one run left out stays listed even when the other ran it: the coverage
    # data may hold only one of the runs (no --cov-append, or a run without --cov), and
    # freezegate check excuses every listed test the data has.
    deselected = ids(before.get("deselected_frozen")) | set(record["deselected_frozen"])
    merged = dict(record)
    merged.update(
        applied=sorted(applied),
        expired=sorted(ids(before.get("expired")) | set(record["expired"])),
        outcomes={k: outcomes[k] for k in sorted(outcomes)},
        muted=sorted(ids(before.get("muted")) | set(record["muted"])),
        # A test the earlier run skipped that this one ran (pytest --runslow in a second run)
        # is skipped no more; one this run skipped stays listed, even if the earlier run ran it
        # (its record does not say what ran): check then fails, closed.
        skipped=sorted(
            (ids(before.get("skipped")) - (set(ran) - set(record["skipped"])))
            | set(record["skipped"])
        ),
        deselected_frozen=sorted(deselected),
    )
    this_run = set(ran)
    properties = {
        k: v for k, v in counts(before_samples.get("properties")).items() if k not in this_run
    }
    properties.update(samples["properties"])
    merged_samples = dict(samples)
    merged_samples["properties"] = {k: properties[k] for k in sorted(properties)}
    return merged, merged_samples, True


def write_json_atomic(path: Path, value: Any) -> None:
    text = json.dumps(value, indent=2, ensure_ascii=False) + "\n"
    fd, temp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text)
            handle.flush()
            os.fsync(handle.fileno())
        # mkstemp creates 0600; the record is an ordinary artifact others (CI uploads) read.
        os.chmod(temp, 0o644)
        os.replace(temp, path)
    except BaseException:
        try:
            os.unlink(temp)
        except FileNotFoundError:
            pass
        raise


def _git(args: Iterable[str], cwd: Path) -> Optional[str]:
    try:
        done = subprocess.run(
            ["git", *args],
            cwd=str(cwd),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    out = done.stdout.strip()
    return out if done.returncode == 0 and out else None


def git_facts(start: Path) -> Tuple[Optional[Path], Optional[str]]:
    """(work tree root, HEAD commit sha) of the repository ``start`` is in; None when unknown."""
    top = _git(["rev-parse", "--show-toplevel"], start)
    if top is None:
        return None, None
    head = _git(["rev-parse", "--verify", "--quiet", "HEAD^{commit}"], start)
    return Path(top), head


def applied_record(
    *,
    commit: Optional[str],
    ledger_path: str,
    ledger_sha256: str,
    mode: str,
    applied: Iterable[str],
    expired: Iterable[str],
    outcomes: Mapping[str, str],
    muted: Iterable[str],
    deselected_frozen: Iterable[str],
    skipped: Iterable[str] = (),
) -> Dict[str, Any]:
    """The applied record (docs/merge-queue.md).

    ``muted``: tests this run did not freeze whose outcome an xfail (a marker from anywhere,
    or ``pytest.xfail()``) turned into xfailed or xpassed: their failure cannot fail the run,
    so ``freezegate check`` counts them as frozen. ``deselected_frozen``: tests the ledger
    freezes that this session collected but did not run (deselected, or dropped from the
    items): they leave no coverage context, so their lines would read "uncovered", not
    "shadowed"; ``check`` refuses such a run. ``skipped``: tests this run did not freeze that a
    skip stopped (a marker, or ``pytest.skip()`` in the body): they witness nothing, so
    ``check`` counts a skipped witness of a property as frozen.
    """
    return {
        "version": RECORD_VERSION,
        "tool": TOOL,
        "commit": commit,
        "ledger": {"path": ledger_path, "sha256": ledger_sha256},
        "mode": mode,
        "applied": sorted(applied),
        "expired": sorted(expired),
        "outcomes": {nodeid: outcomes[nodeid] for nodeid in sorted(outcomes)},
        "muted": sorted(set(muted)),
        "skipped": sorted(set(skipped)),
        "deselected_frozen": sorted(set(deselected_frozen)),
    }


def samples_artifact(commit: Optional[str], counts: Mapping[str, int]) -> Dict[str, Any]:
    """The version-2 samples artifact (docs/samples-artifact.md).

    ``commit`` is the HEAD the tests ran at (None outside git): the deposit gate refuses
    counts recorded at another commit than the one it gates. Only ids shaped like node ids
    (``path::name``) are written: the deposit gate refuses the whole file over one that is
    not, and such items (custom collectors) are no properties.
    """
    ids = sorted(n for n in counts if n.strip() == n and n.find("::") > 0)
    return {
        "version": SAMPLES_VERSION,
        "tool": TOOL,
        "commit": commit,
        "properties": {nodeid: {"distinct": counts[nodeid]} for nodeid in ids},
    }
