"""Reading the freeze ledger inside pytest, and matching its freezes to collected tests.

The ledger is the same file the freezegate CLI reads, so it is validated the same way
(src/core/ledger.ts, ``parseLedger``): strict about structure (unknown keys, wrong types,
unknown versions stop the run), because a misread ledger would silently loosen the gate.
On top of that the plugin refuses what it cannot apply without guessing: a freeze without a
test id, a date that is not a real day, a test frozen twice. Nothing here touches pytest,
so the rules can be tested as plain functions.
"""

from __future__ import annotations

import codecs
import datetime as _dt
import hashlib
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, Iterable, List, Optional, Sequence, Set, Tuple

LEDGER_VERSION = 1
DEFAULT_LEDGER_PATH = "freeze-ledger.json"

_TOP_KEYS = ("$schema", "version", "policy", "freezes", "properties")
_POLICY_KEYS = (
    "max_window_days",
    "min_distinct",
    "blocking",
    "generator_lock",
    "require_approval",
    "min_compensation",
)
_GATES = ("shadow", "shape", "witness", "deposit", "lock", "ledger-changes")
_FREEZE_TEXT_FIELDS = (
    "test_id",
    "reason",
    "owner",
    "opened",
    "expires",
    "invariant",
    "compensating_property",
)
_FREEZE_KEYS = _FREEZE_TEXT_FIELDS + ("reused_property", "approved_by")
_PROPERTY_KEYS = ("id", "check", "witnessed_by", "invariant")
# ASCII digits only, matched whole (``fullmatch``): Python's ``\d`` also takes full-width and
# other Unicode digits, which ``int`` reads but which compare as strings after every ASCII
# day (so such a freeze would never expire), and ``$`` accepts a trailing newline.
_DAY = re.compile(r"([0-9]{4})-([0-9]{2})-([0-9]{2})")


class LedgerError(Exception):
    """The ledger (or a setting about it) cannot be used; ``fix`` says what to do."""

    def __init__(self, message: str, fix: str) -> None:
        super().__init__(message)
        self.message = message
        self.fix = fix

    def __str__(self) -> str:
        return f"{self.message} (fix: {self.fix})"


@dataclass(frozen=True)
class Freeze:
    test_id: str
    owner: str
    #: YYYY-MM-DD; "" when the file does not say. Checked, not applied.
    opened: str
    #: YYYY-MM-DD, the last day the freeze applies; "" when the file does not say.
    expires: str
    reason: str
    compensating_property: str
    #: Position in the ledger's list (messages, and which glob wins).
    index: int

    @property
    def is_glob(self) -> bool:
        return "*" in self.test_id

    def expired_on(self, today: str) -> bool:
        # An undated freeze (the seeds' id-only lists) never expires here; the CLI's shape
        # gate reports its missing fields.
        return self.expires != "" and self.expires < today

    def describe(self) -> str:
        owner = f"owner {self.owner}" if self.owner else "no owner"
        expires = f"expires {self.expires}" if self.expires else "no expiry"
        return f"{owner}, {expires}"


@dataclass(frozen=True)
class Ledger:
    #: "freezegate" | "seed-004-ledger" | "seed-003-properties" | "seed-000-quarantine"
    source: str
    freezes: Tuple[Freeze, ...]
    #: The ``check`` of each entry of ``properties`` (the property test), in file order.
    checks: Tuple[str, ...] = ()


@dataclass(frozen=True)
class LoadedLedger:
    ledger: Ledger
    sha256: str


# ---------------------------------------------------------------------------------------------
# Days.


def is_day(text: str) -> bool:
    """Whether ``text`` is a real calendar day written YYYY-MM-DD."""
    match = _DAY.fullmatch(text)
    if not match:
        return False
    try:
        _dt.date(int(match.group(1)), int(match.group(2)), int(match.group(3)))
    except ValueError:
        return False
    return True


def resolve_today(flag: Optional[str], now_env: Optional[str]) -> str:
    """The UTC day expiry is judged against: the flag, else FREEZEGATE_NOW, else the clock.

    Same rule as the CLI (``--today``, and the ``FREEZEGATE_NOW`` instant its tests set).
    """
    if flag is not None:
        if not is_day(flag):
            raise LedgerError(
                f'--freezegate-today "{flag}" is not a real day written YYYY-MM-DD',
                "write e.g. --freezegate-today 2026-10-18",
            )
        return flag
    if now_env:
        try:
            instant = _dt.datetime.fromisoformat(now_env.strip())
        except ValueError:
            raise LedgerError(
                f'FREEZEGATE_NOW "{now_env}" is not a date and time',
                "unset it, or write an ISO instant such as 2026-10-18T23:30:00Z",
            ) from None
        if instant.tzinfo is not None:
            instant = instant.astimezone(_dt.timezone.utc)
        return instant.date().isoformat()
    return _dt.datetime.now(_dt.timezone.utc).date().isoformat()


# ---------------------------------------------------------------------------------------------
# Parsing.


def load_ledger(path: Path, label: str) -> LoadedLedger:
    """Read, hash and parse a ledger file. ``label`` names it in messages."""
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        raise LedgerError(f"ledger not found: {label}", "check the path") from None
    except IsADirectoryError:
        raise LedgerError(f"ledger {label} is a directory, not a file", "check the path") from None
    except OSError as exc:
        raise LedgerError(f"cannot read ledger {label}: {exc.strerror}", "check the path") from None
    # The hash is of the file's bytes as they are (BOM included): the CLI's queue check
    # compares it with the sha256 of the checked-in file.
    digest = hashlib.sha256(data).hexdigest()
    try:
        # A leading byte-order mark is dropped, as the CLI drops it (Windows editors write one).
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bom = len(codecs.BOM_UTF8) if data.startswith(codecs.BOM_UTF8) else 0
        raise LedgerError(
            f"ledger {label} is not UTF-8 text (byte {exc.start + bom})",
            "save the ledger as UTF-8 JSON",
        ) from None
    try:
        pairs = json.loads(text, parse_constant=_reject_constant, object_pairs_hook=_Object)
    except ValueError as exc:
        where = (
            f" at line {exc.lineno} column {exc.colno}"
            if isinstance(exc, json.JSONDecodeError)
            else ""
        )
        reason = exc.msg if isinstance(exc, json.JSONDecodeError) else str(exc)
        raise LedgerError(
            f"ledger {label} is not valid JSON: {reason}{where}",
            "fix the JSON syntax; the ledger must be one JSON object",
        ) from None
    return LoadedLedger(parse_ledger(_unique_keys(pairs, "$", label), label), digest)


def _reject_constant(name: str) -> Any:
    # JSON has no NaN or Infinity; the CLI's JSON.parse refuses them, so must we.
    raise ValueError(f"{name} is not JSON")


class _Object:
    """A JSON object as json.loads read it: every member in file order, repeats included."""

    def __init__(self, pairs: List[Tuple[str, Any]]) -> None:
        self.pairs = pairs


def _unique_keys(value: Any, path: str, label: str) -> Any:
    """``value`` with its objects as dicts; an object that repeats a key is refused.

    json.loads keeps the last of two equal keys, so a reviewer reading ``"policy"`` at the top
    of a ledger would not see the ``"policy"`` at the bottom that takes effect. The first
    repeat in file order is reported, in the CLI's words and with the JSON path it names.
    """
    if isinstance(value, list):
        return [_unique_keys(item, f"{path}[{i}]", label) for i, item in enumerate(value)]
    if not isinstance(value, _Object):
        return value
    out: Dict[str, Any] = {}
    for key, item in value.pairs:
        if key in out:
            raise LedgerError(
                f"ledger {label} has the key {_json(key)} twice in {path}: JSON readers keep "
                "only the last one, a person reading the file sees the first",
                f"keep one {_json(key)} in {path}",
            )
        member = (
            f"{path}.{key}"
            if re.fullmatch(r"[A-Za-z_$][A-Za-z0-9_$]*", key)
            else f"{path}[{_json(key)}]"
        )
        out[key] = _unique_keys(item, member, label)
    return out


def parse_ledger(value: Any, label: str) -> Ledger:
    """Parse a decoded ledger in any format the CLI reads, then check what the plugin uses."""
    p = _Parser(label)
    top = p.object(value, "$")
    if "version" in top:
        ledger = _parse_own(p, top)
    elif "schema" in top:
        ledger = _parse_schema_ledger(p, top)
    elif "properties" in top or "frozen" in top:
        ledger = _parse_id_list(p, top)
    elif "freezes" in top:
        raise p.fail(
            "$",
            f'has "freezes" but no "version" (freezegate reads ledger version {LEDGER_VERSION})',
            f'add "version": {LEDGER_VERSION}',
        )
    else:
        raise p.fail(
            "$",
            'is not a freeze ledger: it has none of "version", "schema", "freezes", '
            '"properties", "frozen"',
            f'write {{"version": {LEDGER_VERSION}, "freezes": [], "properties": []}}, '
            "or run freezegate ledger migrate",
        )
    _check_applicable(ledger, label)
    return ledger


def _parse_own(p: "_Parser", top: Dict[str, Any]) -> Ledger:
    p.keys(top, "$", _TOP_KEYS)
    version = top["version"]
    if not _is_number(version) or version != LEDGER_VERSION:
        newer = _is_number(version) and version > LEDGER_VERSION
        raise p.fail(
            "$.version",
            f"is {_json(version)}; this freezegate reads ledger version {LEDGER_VERSION}",
            "upgrade freezegate (and this plugin) to read this ledger"
            if newer
            else f'set "version": {LEDGER_VERSION}',
        )
    if "$schema" in top:
        p.string(top["$schema"], "$.$schema")
    if "policy" in top:
        _parse_policy(p, top["policy"], "$.policy")
    freezes = _parse_freezes(p, top["freezes"], "$.freezes") if "freezes" in top else ()
    checks = _parse_properties(p, top["properties"], "$.properties") if "properties" in top else ()
    return Ledger("freezegate", freezes, checks)


def _parse_schema_ledger(p: "_Parser", top: Dict[str, Any]) -> Ledger:
    p.keys(top, "$", ("schema", "max_window_days", "freezes"))
    if top["schema"] != 1 or isinstance(top["schema"], bool):
        raise p.fail(
            "$.schema",
            f'is {_json(top["schema"])}; freezegate reads seed-004 ledgers with "schema": 1 '
            f'(and its own format, "version": {LEDGER_VERSION})',
            'set "schema": 1, or run freezegate ledger migrate',
        )
    if "max_window_days" in top:
        p.positive_integer(top["max_window_days"], "$.max_window_days")
    if "freezes" not in top:
        raise p.fail("$", 'has no "freezes" list', 'add "freezes": []')
    return Ledger("seed-004-ledger", _parse_freezes(p, top["freezes"], "$.freezes"))


def _parse_id_list(p: "_Parser", top: Dict[str, Any]) -> Ledger:
    p.keys(top, "$", ("properties", "frozen"))
    frozen = p.array(top["frozen"], "$.frozen") if "frozen" in top else []
    freezes = tuple(
        Freeze(p.non_empty(item, f"$.frozen[{i}]"), "", "", "", "", "", i)
        for i, item in enumerate(frozen)
    )
    if "properties" in top:
        checks = _parse_properties(p, top["properties"], "$.properties")
        return Ledger("seed-003-properties", freezes, checks)
    return Ledger("seed-000-quarantine", freezes)


def _parse_policy(p: "_Parser", value: Any, path: str) -> None:
    raw = p.object(value, path)
    p.keys(raw, path, _POLICY_KEYS)
    for key in ("max_window_days", "min_distinct"):
        if key in raw:
            p.positive_integer(raw[key], f"{path}.{key}")
    if "blocking" in raw:
        seen = set()
        for i, item in enumerate(p.array(raw["blocking"], f"{path}.blocking")):
            at = f"{path}.blocking[{i}]"
            if not isinstance(item, str) or item not in _GATES:
                raise p.fail(
                    at, f"is {_json(item)}, not a gate", f"use any of: {', '.join(_GATES)}"
                )
            if item in seen:
                raise p.fail(at, f'repeats "{item}"', "list each gate once")
            seen.add(item)
    if "generator_lock" in raw:
        for i, item in enumerate(p.array(raw["generator_lock"], f"{path}.generator_lock")):
            _check_repo_path(p, item, f"{path}.generator_lock[{i}]")
    if "require_approval" in raw:
        p.boolean(raw["require_approval"], f"{path}.require_approval")
    if "min_compensation" in raw:
        p.fraction(raw["min_compensation"], f"{path}.min_compensation")


def _check_repo_path(p: "_Parser", value: Any, path: str) -> None:
    text = p.non_empty(value, path)
    fix = (
        'write a path relative to the repository root, with "/" separators, '
        'e.g. "tests/strategies.py"'
    )
    if "\\" in text:
        raise p.fail(path, f'"{text}" contains a backslash', fix)
    if text.startswith("/") or re.match(r"^[A-Za-z]:", text):
        raise p.fail(path, f'"{text}" is an absolute path', fix)
    if ".." in text.split("/"):
        raise p.fail(path, f'"{text}" escapes the repository ("..")', fix)


def _parse_freezes(p: "_Parser", value: Any, path: str) -> Tuple[Freeze, ...]:
    freezes = []
    for i, item in enumerate(p.array(value, path)):
        at = f"{path}[{i}]"
        raw = p.object(item, at)
        p.keys(raw, at, _FREEZE_KEYS)
        text = {field: "" for field in _FREEZE_TEXT_FIELDS}
        for field in _FREEZE_TEXT_FIELDS:
            if field in raw:
                text[field] = p.string(raw[field], f"{at}.{field}")
        if "reused_property" in raw:
            p.boolean(raw["reused_property"], f"{at}.reused_property")
        if "approved_by" in raw:
            p.string(raw["approved_by"], f"{at}.approved_by")
        freezes.append(
            Freeze(
                test_id=text["test_id"],
                owner=text["owner"],
                opened=text["opened"],
                expires=text["expires"],
                reason=text["reason"],
                compensating_property=text["compensating_property"],
                index=i,
            )
        )
    return tuple(freezes)


def _parse_properties(p: "_Parser", value: Any, path: str) -> Tuple[str, ...]:
    seen: Dict[str, int] = {}
    checks: List[str] = []
    for i, item in enumerate(p.array(value, path)):
        at = f"{path}[{i}]"
        raw = p.object(item, at)
        p.keys(raw, at, _PROPERTY_KEYS)
        prop_id = p.string(raw["id"], f"{at}.id") if "id" in raw else ""
        if "check" in raw:
            check = p.string(raw["check"], f"{at}.check").strip()
            if check:
                checks.append(check)
        if "witnessed_by" in raw:
            for j, w in enumerate(p.array(raw["witnessed_by"], f"{at}.witnessed_by")):
                p.non_empty(w, f"{at}.witnessed_by[{j}]")
        if "invariant" in raw:
            p.string(raw["invariant"], f"{at}.invariant")
        if prop_id != "" and prop_id in seen:
            raise p.fail(
                f"{at}.id",
                f'repeats the id "{prop_id}" of {path}[{seen[prop_id]}]',
                "give each property its own id, or merge the two entries",
            )
        seen[prop_id] = i
    return tuple(checks)


def _check_applicable(ledger: Ledger, label: str) -> None:
    """What the CLI leaves to its shape gate but the plugin must not guess about."""
    by_id: Dict[str, int] = {}
    for freeze in ledger.freezes:
        name = f"ledger {label}: freeze #{freeze.index + 1}"
        if freeze.test_id.strip() == "":
            raise LedgerError(
                f"{name} has no test_id, so the plugin cannot tell which test it freezes",
                "write the frozen test's node id in test_id, or remove the entry",
            )
        if freeze.test_id != freeze.test_id.strip():
            raise LedgerError(
                f'{name} has test_id "{freeze.test_id}" with leading or trailing spaces',
                "write the node id exactly as pytest --collect-only -q prints it",
            )
        for field, day in (("opened", freeze.opened), ("expires", freeze.expires)):
            if day != "" and not is_day(day):
                raise LedgerError(
                    f'{name} ({freeze.test_id}) has {field} "{day}", '
                    "which is not a real YYYY-MM-DD day",
                    f"write a real day such as 2026-10-26 in {field}",
                )
        first = by_id.get(freeze.test_id)
        if first is not None:
            raise LedgerError(
                f"ledger {label}: {freeze.test_id} is frozen twice "
                f"(freezes #{first + 1} and #{freeze.index + 1})",
                "keep one entry per test",
            )
        by_id[freeze.test_id] = freeze.index


class _Parser:
    """Structural checks that name the file and the JSON path of the first problem."""

    def __init__(self, label: str) -> None:
        self.label = label

    def fail(self, path: str, what: str, fix: str) -> LedgerError:
        return LedgerError(f"ledger {self.label}: {path} {what}", fix)

    def object(self, value: Any, path: str) -> Dict[str, Any]:
        if not isinstance(value, dict):
            raise self.fail(
                path, f"is {_describe(value)}, not an object", "fix the ledger's structure"
            )
        return value

    def keys(self, value: Dict[str, Any], path: str, allowed: Sequence[str]) -> None:
        for key in value:
            if key not in allowed:
                raise self.fail(
                    path,
                    f'has an unknown key "{key}"',
                    f"remove it or correct its spelling; allowed here: {', '.join(allowed)}",
                )

    def array(self, value: Any, path: str) -> List[Any]:
        if not isinstance(value, list):
            raise self.fail(path, f"is {_describe(value)}, not a list", "write a JSON array")
        return value

    def string(self, value: Any, path: str) -> str:
        if not isinstance(value, str):
            raise self.fail(path, f"is {_describe(value)}, not a string", 'write a string (or "")')
        return value

    def non_empty(self, value: Any, path: str) -> str:
        text = self.string(value, path)
        if text.strip() == "":
            raise self.fail(path, "is empty", "write a test id or remove the entry")
        return text

    def boolean(self, value: Any, path: str) -> bool:
        if not isinstance(value, bool):
            raise self.fail(
                path, f"is {_describe(value)}, not true or false", "write true or false"
            )
        return value

    def fraction(self, value: Any, path: str) -> float:
        if not (_is_number(value) and 0 <= value <= 1):
            raise self.fail(
                path,
                f"is {_describe(value)}, not a number from 0 to 1",
                "write a share, e.g. 0.5 for half of the withdrawn lines, "
                "or remove the key to judge none",
            )
        return float(value)

    def positive_integer(self, value: Any, path: str) -> int:
        # JSON has one number type: 14.0 is the integer 14 to the CLI, so it is here too.
        ok = _is_number(value) and float(value).is_integer() and 1 <= value <= 2**53 - 1
        if not ok:
            raise self.fail(
                path, f"is {_describe(value)}, not a whole number >= 1", "write e.g. 14"
            )
        return int(value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _describe(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, str):
        return _json(value if len(value) <= 40 else value[:40] + "...")
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


# ---------------------------------------------------------------------------------------------
# Matching freezes to node ids.


def _glob(pattern: str) -> "re.Pattern[str]":
    # The CLI's rule: "*" is any run of characters, everything else literal (so "[p1]" in a
    # parametrized id stays literal). No suffix matching: it would freeze unnamed tests.
    return re.compile("^" + ".*".join(re.escape(part) for part in pattern.split("*")) + "$", re.S)


class Matcher:
    """Which freeze applies to a node id: an exact entry first, else the first glob.

    An entry holding "*" is a glob unless it is itself a collected node id
    (``test_match[*.py]`` copied from ``pytest --collect-only -q``): then it freezes that
    test only, as the audit reads it. Tell the matcher the collected ids with ``collected``.
    """

    def __init__(self, freezes: Iterable[Freeze]) -> None:
        self._exact: Dict[str, Freeze] = {}
        self._globs: List[Tuple["re.Pattern[str]", Freeze]] = []
        self._collected: Set[str] = set()
        for freeze in freezes:
            self._exact.setdefault(freeze.test_id, freeze)
            if freeze.is_glob:
                self._globs.append((_glob(freeze.test_id), freeze))

    def collected(self, nodeids: Iterable[str]) -> None:
        """The node ids of this session: a "*" entry that is one of them is no glob."""
        self._collected = set(nodeids)

    def match(self, nodeid: str) -> Optional[Freeze]:
        exact = self._exact.get(nodeid)
        if exact is not None:
            return exact
        for regex, freeze in self._globs:
            if freeze.test_id not in self._collected and regex.match(nodeid):
                return freeze
        return None


def unmatched_message(
    freezes: Sequence[Freeze],
    collected: Iterable[str],
    collected_files: Iterable[str],
    file_exists: Callable[[str], bool],
    label: str,
) -> Optional[str]:
    """The error for ledger ids that match no collected test, or None.

    An id is judged only when its test file was collected in this session or does not
    exist at all: running a subset of the files must not fail on freezes elsewhere. A glob
    whose file part has a "*" is judged only when that part matches a collected file.
    """
    ids = list(collected)
    id_set = set(ids)
    files = set(collected_files)
    problems: List[str] = []
    for freeze in freezes:
        if freeze.test_id in id_set:
            continue
        if freeze.is_glob:
            regex = _glob(freeze.test_id)
            if any(regex.match(nodeid) for nodeid in ids):
                continue
        file_part = freeze.test_id.split("::", 1)[0]
        if "*" in file_part:
            file_regex = _glob(file_part)
            if not any(file_regex.match(f) for f in files):
                continue
        elif file_part not in files and file_exists(file_part):
            continue
        note = ""
        if not freeze.is_glob:
            cases = sorted(n for n in ids if n.startswith(freeze.test_id + "["))
            if cases:
                more = ", ..." if len(cases) > 3 else ""
                note = (
                    f" (a parametrized test: freeze its cases, e.g. {', '.join(cases[:3])}{more},"
                    f' or all of them with "{freeze.test_id}[*")'
                )
            elif not file_exists(file_part):
                note = f" (no file {file_part})"
        problems.append(f"{freeze.test_id}{note}")
    if not problems:
        return None
    count = len(problems)
    return (
        f"freezegate: ledger {label}: {count} frozen test id{'s' if count != 1 else ''} "
        f"match{'es' if count == 1 else ''} no collected test: {'; '.join(problems)} "
        "(fix: correct the ids (node ids relative to the rootdir, as pytest --collect-only -q "
        "prints them) or remove the freezes of tests that no longer exist)"
    )
