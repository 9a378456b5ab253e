"""Counting how many distinct inputs each property test ran on (the samples artifact).

A compensating property that ran on one hard-coded tuple is a renamed example test (seed
004); the deposit gate reads these counts to tell the two apart. Inputs are distinct by
``repr`` and kept as digests of it, so that pytest-xdist workers can send their sets to the
controller, which merges SETS: a count cannot be merged without claiming inputs twice.

Two sources, per test:
- explicit: every ``record(value)`` call made while the test runs;
- automatic: for Hypothesis ``@given`` tests, the generated arguments of every call of the
  test body (explicit examples and shrinking included: each is an input the body ran on),
  except the calls the body rejected with ``assume()`` or ``reject()``: those inputs never
  reached the property's assertion.
When a test recorded explicitly, only its explicit values count: the test author said what
an input is, and a property that ignores its arguments must not be credited with them.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
from typing import Any, Dict, Iterable, Iterator, List, Mapping, Optional, Set

#: The log of the running session, or None when the plugin is not active.
_active: Optional["InputLog"] = None


def _digest(value: Any) -> Optional[str]:
    try:
        text = repr(value)
    except Exception:
        # An input whose repr fails cannot be told apart from another; leaving it out can
        # only lower the count, which makes the deposit gate stricter, never looser.
        return None
    return hashlib.blake2b(text.encode("utf-8", "backslashreplace"), digest_size=16).hexdigest()


def generated_digest(generated: Mapping[str, Any]) -> Optional[str]:
    """The digest of one call's generated arguments, by name."""
    return _digest([(name, generated[name]) for name in sorted(generated)])


def _rejected(exc: BaseException) -> bool:
    """Hypothesis's UnsatisfiedAssumption (``assume(False)``, ``reject()``), by name: this
    module never imports Hypothesis."""
    kind = type(exc)
    return kind.__name__ == "UnsatisfiedAssumption" and kind.__module__.startswith("hypothesis")


class InputLog:
    """Per-test sets of input digests, for one process."""

    def __init__(self) -> None:
        self.current: Optional[str] = None
        self.explicit: Dict[str, Set[str]] = {}
        self.auto: Dict[str, Set[str]] = {}

    def add_explicit(self, value: Any) -> None:
        if self.current is None:
            raise RuntimeError(
                "freezegate_pytest.record() was called outside a running test; call it from "
                "the test body (or a function-scoped fixture) whose inputs it counts"
            )
        digest = _digest(value)
        bucket = self.explicit.setdefault(self.current, set())
        if digest is not None:
            bucket.add(digest)

    def add_generated(self, nodeid: str, generated: Mapping[str, Any]) -> None:
        self.add_generated_digest(nodeid, generated_digest(generated))

    def add_generated_digest(self, nodeid: str, digest: Optional[str]) -> None:
        bucket = self.auto.setdefault(nodeid, set())
        if digest is not None:
            bucket.add(digest)

    def export(self) -> Dict[str, Dict[str, List[str]]]:
        """Plain data (lists of strings) that xdist can send from a worker."""
        out: Dict[str, Dict[str, List[str]]] = {}
        for kind, table in (("explicit", self.explicit), ("auto", self.auto)):
            for nodeid, digests in table.items():
                out.setdefault(nodeid, {})[kind] = sorted(digests)
        return out

    def merge(self, exported: Mapping[str, Mapping[str, Iterable[str]]]) -> None:
        for nodeid, kinds in exported.items():
            for kind, table in (("explicit", self.explicit), ("auto", self.auto)):
                if kind in kinds:
                    table.setdefault(nodeid, set()).update(kinds[kind])

    def counts(self) -> Dict[str, int]:
        """Distinct inputs per test that recorded any."""
        out: Dict[str, int] = {}
        for nodeid in set(self.explicit) | set(self.auto):
            explicit = self.explicit.get(nodeid)
            out[nodeid] = len(explicit) if explicit is not None else len(self.auto[nodeid])
        return out


def record(value: Any) -> None:
    """Count ``value`` (by its ``repr``) as one input of the test that is running.

    For property tests that Hypothesis does not drive; in a ``@given`` test it replaces the
    automatic count (only recorded values count for a test that records). When the plugin
    is not active (no ledger) this does nothing; outside a test it raises RuntimeError.
    """
    log = _active
    if log is not None:
        log.add_explicit(value)


def activate(log: Optional[InputLog]) -> None:
    global _active
    _active = log


def active() -> Optional[InputLog]:
    return _active


@contextlib.contextmanager
def counting_generated_inputs(
    test_object: Any, nodeid: str, fixture_names: Iterable[str], log: InputLog
) -> Iterator[None]:
    """While the block runs, count the arguments Hypothesis generates for ``test_object``.

    Hypothesis documents ``test.hypothesis.inner_test`` as replaceable (plugins wrap the
    body this way); the body is looked up on every call, so swapping it around one pytest
    call sees every example. Hypothesis is never imported here: tests that do not use it
    pay nothing.
    """
    handle = getattr(test_object, "hypothesis", None)
    inner = getattr(handle, "inner_test", None)
    if (
        not getattr(test_object, "is_hypothesis_test", False)
        or inner is None
        or inspect.iscoroutinefunction(inner)
    ):
        yield
        return
    fixtures = frozenset(fixture_names)

    # functools.wraps keeps __wrapped__ and the body's attributes, so Hypothesis derives the
    # same database key and derandomized seed from the wrapper as from the body itself.
    @functools.wraps(inner)
    def counted(*args: Any, **kwargs: Any) -> Any:
        # Generated arguments arrive as keywords (Hypothesis turns positional strategies
        # into keywords); pytest's fixture values are the same for every example. Their
        # digest is taken before the body runs (it may change them).
        digest = generated_digest({k: v for k, v in kwargs.items() if k not in fixtures})
        try:
            result = inner(*args, **kwargs)
        except BaseException as exc:
            # An input the body rejected with assume() never reached the property's assertion.
            if not _rejected(exc):
                log.add_generated_digest(nodeid, digest)
            raise
        log.add_generated_digest(nodeid, digest)
        return result

    handle.inner_test = counted
    try:
        yield
    finally:
        if handle.inner_test is counted:
            handle.inner_test = inner
