"""Counting how many distinct inputs each property test ran on (the samples artifact).

A compensating property that ran on one hard-coded tuple is a renamed example test; the
deposit gate reads these counts to tell the two apart. Inputs are kept as digests, so that
pytest-xdist workers can send their sets to the controller, which merges SETS: a count
cannot be merged without claiming inputs twice.

Two sources, per test, each with its own notion of "distinct":
- explicit: every ``record(value)`` call made while the test runs, distinct by ``repr``
  (the test author chose the values and how they print);
- automatic: for Hypothesis ``@given`` tests, every example whose call of the test body
  returned, distinct by Hypothesis's own notion: the sequence of choices it drew for the
  example (the key under which it never runs the same example twice). ``repr`` is no identity
  for generated values: strategies that build classes or objects with a fixed ``__repr__``
  print a hundred different inputs the same. Calls that did not return are not examples the
  property held on: the body rejected them (``assume()``, ``reject()``), Hypothesis stopped
  them (an overrun in ``st.data()``), or the test failed (and then it counts for nothing).
  An example that drew no choices (an explicit ``@example``, a strategy such as ``st.just``)
  is told apart by the ``repr`` of its arguments, as is every example when this Hypothesis
  does not expose its choices: never more examples than ran, and equal reprs count once.
When a test recorded explicitly, only its explicit values count: the test author said what
an input is, and a property that ignores its arguments must not be credited with them.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import inspect
from typing import Any, Callable, Dict, Iterable, Iterator, List, Mapping, Optional, Set, Union

#: The log of the running session, or None when the plugin is not active.
_active: Optional["InputLog"] = None


def _digest_text(text: str) -> str:
    return hashlib.blake2b(text.encode("utf-8", "backslashreplace"), digest_size=16).hexdigest()


def _digest(value: Any) -> Optional[str]:
    try:
        text = repr(value)
    except Exception:
        # An input whose repr fails cannot be told apart from another; leaving it out can
        # only lower the count, which makes the deposit gate stricter, never looser.
        return None
    return _digest_text(text)


def generated_digest(generated: Mapping[str, Any]) -> Optional[str]:
    """The digest of one call's generated arguments, by name and ``repr``."""
    return _digest([(name, generated[name]) for name in sorted(generated)])


def choices_digest(choices: Optional[Union[bytes, bytearray, tuple]]) -> Optional[str]:
    """The digest of the choices Hypothesis drew for one example; None when it drew none.

    ``choices`` is what Hypothesis keeps for the running example: a tuple of drawn values
    (``ConjectureData.choices``) or, in Hypothesis before 6.120, a byte string
    (``ConjectureData.buffer``). Two different sequences never print the same. A prefix keeps
    these digests apart from the digests of reprs.
    """
    if not choices:
        return None
    try:
        text = repr(bytes(choices) if isinstance(choices, bytearray) else choices)
    except Exception:
        return None
    return _digest_text("choices:" + text)


def _running_example_reader() -> Optional[Callable[[], Any]]:
    """A function that returns the ``ConjectureData`` of the Hypothesis example running now
    (None when it cannot tell), or None when this Hypothesis has no way to ask.

    ``hypothesis.control.current_build_context()`` has been the way to the running example
    since Hypothesis 3; its ``data`` holds the choices. Anything unexpected makes the example
    count by the repr of its arguments instead.
    """
    try:
        from hypothesis.control import current_build_context
    except Exception:
        return None

    def running_data() -> Any:
        try:
            return current_build_context().data
        except Exception:
            return None

    return running_data


def _choices_of(data: Any) -> Any:
    """The choices drawn so far for ``data``'s example (see choices_digest), or None."""
    try:
        choices = getattr(data, "choices", None)
        if choices is None:
            choices = getattr(data, "buffer", None)
    except Exception:
        return None
    return choices if isinstance(choices, (bytes, bytearray, tuple)) else None


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
    """While the block runs, count the examples Hypothesis runs ``test_object`` on.

    Hypothesis documents ``test.hypothesis.inner_test`` as replaceable (plugins wrap the
    body this way); the body is looked up on every call, so swapping it around one pytest
    call sees every example. Hypothesis is imported only for tests that use it.
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
    running_data = _running_example_reader()

    # functools.wraps keeps __wrapped__ and the body's attributes, so Hypothesis derives the
    # same database key and derandomized seed from the wrapper as from the body itself.
    @functools.wraps(inner)
    def counted(*args: Any, **kwargs: Any) -> Any:
        data = running_data() if running_data is not None else None
        # The repr of the generated arguments is taken before the body runs (it may change
        # them), and only when the choices cannot tell this example apart: none drawn yet.
        by_repr = None
        if not _choices_of(data):
            # Generated arguments arrive as keywords (Hypothesis turns positional strategies
            # into keywords); pytest's fixture values are the same for every example.
            by_repr = generated_digest({k: v for k, v in kwargs.items() if k not in fixtures})
        result = inner(*args, **kwargs)
        # Read after the body: draws made in it (st.data()) belong to the example.
        by_choices = choices_digest(_choices_of(data))
        log.add_generated_digest(nodeid, by_choices if by_choices is not None else by_repr)
        return result

    handle.inner_test = counted
    try:
        yield
    finally:
        if handle.inner_test is counted:
            handle.inner_test = inner
