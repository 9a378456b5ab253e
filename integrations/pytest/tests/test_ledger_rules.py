"""The ledger rules as plain functions: what is refused, what is accepted, how ids match."""

import json

import pytest

from freezegate_pytest.inputs import InputLog, choices_digest
from freezegate_pytest.ledger import (
    LedgerError,
    Matcher,
    load_ledger,
    parse_ledger,
    resolve_today,
    unmatched_message,
)


def own(*freezes, **top):
    return {"version": 1, "freezes": list(freezes), **top}


def entry(test_id="t.py::test_a", **fields):
    return {"test_id": test_id, "owner": "finley", "opened": "2026-10-12", "expires": "2026-10-26", **fields}


@pytest.mark.parametrize(
    "value, fragment",
    [
        ([], "$ is a list, not an object"),
        ({"nothing": 1}, 'none of "version"'),
        ({"freezes": []}, 'has "freezes" but no "version"'),
        ({"version": 2, "freezes": []}, "$.version is 2; this freezegate reads ledger version 1"),
        ({"version": "1"}, '$.version is "1"'),
        ({"version": True}, "$.version is true"),
        (own(entry(), extra=1), 'unknown key "extra"'),
        (own({**entry(), "ownr": "x"}), '$.freezes[0] has an unknown key "ownr"'),
        (own(entry(owner=3)), "$.freezes[0].owner is 3, not a string"),
        (own(entry(reused_property="no")), "reused_property is \"no\", not true or false"),
        ({"version": 1, "policy": {"min_distinct": 0}}, "min_distinct is 0, not a whole number >= 1"),
        ({"version": 1, "policy": {"blocking": ["shadow", "shadow"]}}, 'repeats "shadow"'),
        ({"version": 1, "policy": {"blocking": ["nope"]}}, '"nope", not a gate'),
        ({"version": 1, "policy": {"generator_lock": ["../x.py"]}}, 'escapes the repository'),
        ({"version": 1, "properties": [{"id": "p"}, {"id": "p"}]}, 'repeats the id "p"'),
        ({"schema": 2, "freezes": []}, '$.schema is 2'),
        ({"schema": 1}, 'has no "freezes" list'),
        ({"frozen": ["ok::x", " "]}, "$.frozen[1] is empty"),
        (own({"owner": "finley", "expires": "2026-10-26"}), "freeze #1 has no test_id"),
        (own(entry(test_id="")), "freeze #1 has no test_id"),
        (own(entry(test_id=" t.py::test_a")), "leading or trailing spaces"),
        (own(entry(expires="2026-02-30")), 'has expires "2026-02-30", which is not a real'),
        (own(entry(expires="26-10-2026")), 'has expires "26-10-2026"'),
        (own(entry(opened="yesterday")), 'has opened "yesterday"'),
        # Only ASCII digits, the whole text: Python's \d and int() take full-width digits, which
        # compare after every ASCII day as strings (never expired); "$" takes a final newline.
        (own(entry(expires="２０２６-１０-１０")), 'has expires "２０２６-１０-１０", which is not a real'),
        (own(entry(opened="٢٠٢٦-١٠-٠١")), 'has opened "٢٠٢٦-١٠-٠١"'),
        (own(entry(expires="2026-10-26\n")), 'has expires "2026-10-26\n"'),
        (own(entry(), entry()), "t.py::test_a is frozen twice (freezes #1 and #2)"),
    ],
)
def test_refuses_what_it_cannot_apply(value, fragment):
    with pytest.raises(LedgerError) as info:
        parse_ledger(value, "freeze-ledger.json")
    assert fragment in str(info.value)
    assert "(fix: " in str(info.value)


def test_reads_every_format_the_cli_reads():
    ours = parse_ledger(own(entry(), policy={"max_window_days": 14.0}, properties=[]), "l")
    assert ours.source == "freezegate"
    assert [(f.test_id, f.owner, f.expires) for f in ours.freezes] == [("t.py::test_a", "finley", "2026-10-26")]
    seed4 = parse_ledger({"schema": 1, "max_window_days": 14, "freezes": [entry()]}, "l")
    assert seed4.source == "seed-004-ledger" and seed4.freezes[0].owner == "finley"
    seed0 = parse_ledger({"frozen": ["t.py::test_a"]}, "l")
    assert seed0.source == "seed-000-quarantine"
    assert (seed0.freezes[0].owner, seed0.freezes[0].expires) == ("", "")
    seed3 = parse_ledger({"properties": [{"id": "p", "check": "t.py::p", "witnessed_by": []}], "frozen": ["t.py::x"]}, "l")
    assert seed3.source == "seed-003-properties" and seed3.freezes[0].test_id == "t.py::x"


def test_load_ledger_hashes_bytes_and_refuses_non_json(tmp_path):
    path = tmp_path / "freeze-ledger.json"
    path.write_bytes(json.dumps(own(entry())).encode())
    import hashlib

    assert load_ledger(path, "x").sha256 == hashlib.sha256(path.read_bytes()).hexdigest()
    for text, fragment in [
        ("{", "is not valid JSON"),
        ('{"version": NaN}', "is not valid JSON"),
        ("\ufeff\ufeff{}", "is not valid JSON"),
    ]:
        path.write_text(text, encoding="utf-8")
        with pytest.raises(LedgerError, match=fragment):
            load_ledger(path, "x")
    path.write_bytes(b'{"version": 1, "freezes": [{"test_id": "\xff"}]}')
    with pytest.raises(LedgerError, match="not UTF-8"):
        load_ledger(path, "x")
    path.write_bytes(b'\xef\xbb\xbf{"version": 1, "freezes": [{"test_id": "\xff"}]}')
    with pytest.raises(LedgerError, match=r"not UTF-8 text \(byte 43\)"):
        load_ledger(path, "x")


def test_load_ledger_ignores_a_bom_and_hashes_the_bytes_as_they_are(tmp_path):
    # As the CLI reads it (README: a BOM is ignored); the hash stays that of the file's bytes,
    # which is what the queue check compares with the checked-in ledger.
    import hashlib

    path = tmp_path / "freeze-ledger.json"
    data = b"\xef\xbb\xbf" + json.dumps(own(entry())).encode()
    path.write_bytes(data)
    loaded = load_ledger(path, "x")
    assert [f.test_id for f in loaded.ledger.freezes] == ["t.py::test_a"]
    assert loaded.sha256 == hashlib.sha256(data).hexdigest()


@pytest.mark.parametrize(
    "text, message",
    [
        (
            '{"version": 1, "policy": {"blocking": ["shadow"]}, "freezes": [],'
            ' "policy": {"blocking": []}}',
            'ledger x has the key "policy" twice in $: JSON readers keep only the last one, '
            "a person reading the file sees the first "
            '(fix: keep one "policy" in $)',
        ),
        (
            '{"version": 1, "freezes": [{"test_id": "t.py::a"}, '
            '{"test_id": "t.py::b", "expires": "2026-10-01", "expires": "2099-01-01"}]}',
            'ledger x has the key "expires" twice in $.freezes[1]: JSON readers keep only the '
            "last one, a person reading the file sees the first "
            '(fix: keep one "expires" in $.freezes[1])',
        ),
        (
            # Keys are compared decoded, and the first repeat in the file is the one named.
            '{"version": 1, "policy": {"\\u0062locking": [], "blocking": []}, "version": 1}',
            'ledger x has the key "blocking" twice in $.policy: JSON readers keep only the '
            "last one, a person reading the file sees the first "
            '(fix: keep one "blocking" in $.policy)',
        ),
        (
            '{"version": 1, "properties": [{"id": "p", "odd key": {"k": 1, "k": 2}}]}',
            'ledger x has the key "k" twice in $.properties[0]["odd key"]: JSON readers keep '
            "only the last one, a person reading the file sees the first "
            '(fix: keep one "k" in $.properties[0]["odd key"])',
        ),
    ],
)
def test_load_ledger_refuses_a_repeated_key(tmp_path, text, message):
    path = tmp_path / "freeze-ledger.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(LedgerError) as info:
        load_ledger(path, "x")
    assert str(info.value) == message


def test_expiry_is_inclusive_of_the_expires_day():
    ledger = parse_ledger(own(entry(expires="2026-10-18")), "l")
    assert not ledger.freezes[0].expired_on("2026-10-18")
    assert ledger.freezes[0].expired_on("2026-10-19")
    undated = parse_ledger({"frozen": ["t.py::x"]}, "l").freezes[0]
    assert not undated.expired_on("9999-12-31")


def test_today_comes_from_the_flag_then_freezegate_now():
    assert resolve_today("2026-10-18", "2020-01-01T00:00:00Z") == "2026-10-18"
    # 23:30 at UTC-5 is the next day in UTC.
    assert resolve_today(None, "2026-10-18T23:30:00-05:00") == "2026-10-19"
    assert resolve_today(None, "2026-10-18T23:30:00Z") == "2026-10-18"
    with pytest.raises(LedgerError, match="not a real day"):
        resolve_today("2026-02-30", None)
    with pytest.raises(LedgerError, match="not a real day"):
        resolve_today("２０２６-１０-１８", None)
    with pytest.raises(LedgerError, match="FREEZEGATE_NOW"):
        resolve_today(None, "soon")


def test_matching_is_exact_or_glob_and_exact_wins():
    ledger = parse_ledger(
        own(entry("t.py::test_*", owner="glob"), entry("t.py::test_a", owner="exact"), entry("t.py::test_b[*")),
        "l",
    )
    m = Matcher(ledger.freezes)
    assert m.match("t.py::test_a").owner == "exact"
    assert m.match("t.py::test_c").owner == "glob"
    assert m.match("u.py::test_a") is None
    # "[" is literal: no character classes, no suffix matching.
    assert Matcher(parse_ledger(own(entry("t.py::test_b[1]")), "l").freezes).match("t.py::test_b1") is None
    assert Matcher(parse_ledger(own(entry("test_a")), "l").freezes).match("t.py::test_a") is None


def test_an_entry_that_is_a_collected_id_is_exact_even_with_a_star():
    # pytest prints "t.py::test_match[*.py]" for a parametrized case: copied into the ledger,
    # it freezes that case, not its siblings (the audit reads it the same way).
    m = Matcher(parse_ledger(own(entry("t.py::test_match[*.py]")), "l").freezes)
    m.collected(["t.py::test_match[*.py]", "t.py::test_match[a.py]"])
    assert m.match("t.py::test_match[*.py]") is not None
    assert m.match("t.py::test_match[a.py]") is None
    # When no collected test has that id, it is a glob as before.
    m.collected(["t.py::test_match[a.py]"])
    assert m.match("t.py::test_match[a.py]") is not None


def test_unmatched_ids_are_judged_only_in_collected_or_missing_files():
    ledger = parse_ledger(
        own(
            entry("a.py::test_typo"),  # file collected, no such test
            entry("b.py::test_x"),  # file exists, not collected in this run
            entry("gone.py::test_x"),  # file does not exist
            entry("a.py::test_p"),  # parametrized: cases exist
            entry("c*.py::test_x"),  # glob over files none of which were collected
            entry("a.py::test_ok"),
        ),
        "l",
    )
    message = unmatched_message(
        ledger.freezes,
        ["a.py::test_ok", "a.py::test_p[1]", "a.py::test_p[2]"],
        {"a.py"},
        lambda rel: rel in {"a.py", "b.py", "c1.py"},
        "freeze-ledger.json",
    )
    assert message is not None
    assert "3 frozen test ids match no collected test" in message
    assert "a.py::test_typo" in message
    assert "gone.py::test_x (no file gone.py)" in message
    assert 'a.py::test_p (a parametrized test: freeze its cases, e.g. a.py::test_p[1], a.py::test_p[2], or all of them with "a.py::test_p[*")' in message
    assert "b.py" not in message and "c*.py" not in message
    assert unmatched_message(ledger.freezes[5:], ["a.py::test_ok"], {"a.py"}, lambda rel: True, "l") is None


def test_input_sets_merge_as_sets_not_counts():
    one, two, merged = InputLog(), InputLog(), InputLog()
    for log, values in ((one, [1, 2, 3]), (two, [2, 3, 4])):
        log.current = "p.py::test_p"
        for v in values:
            log.add_explicit(v)
        log.add_generated_digest("p.py::test_q", choices_digest((values[0],)))
    merged.merge(one.export())
    merged.merge(two.export())
    assert merged.counts() == {"p.py::test_p": 4, "p.py::test_q": 2}


def test_explicit_records_replace_generated_inputs():
    log = InputLog()
    for x in range(5):
        log.add_generated_digest("p.py::test_p", choices_digest((x,)))
    log.current = "p.py::test_p"
    log.add_explicit("constant")
    log.add_explicit("constant")
    assert log.counts() == {"p.py::test_p": 1}
    log.current = None
    with pytest.raises(RuntimeError, match="outside a running test"):
        log.add_explicit(1)
