"""The plugin inside real pytest sessions (pytester): activation, errors, both modes, expiry,
unknown ids, and the applied record."""

import json
import os

import pytest
from fz_helpers import TODAY, freeze, git, read_json, run, sha256_of, write_ledger

USAGE_ERROR = pytest.ExitCode.USAGE_ERROR

SUITE = """
import pytest

def test_flaky():
    assert 1 == 2, "flaked"

def test_steady():
    pass

def test_plain():
    pass
"""


def record_of(pytester):
    return read_json(pytester.path / ".freezegate" / "applied.json")


def test_inactive_without_a_ledger_says_so_once_and_does_nothing(pytester):
    pytester.makepyfile(test_a=SUITE)
    result = run(pytester)
    result.stdout.fnmatch_lines(["freezegate: inactive: no ledger at freeze-ledger.json"])
    assert result.stdout.str().count("freezegate:") == 1
    result.assert_outcomes(passed=2, failed=1)
    assert not (pytester.path / ".freezegate").exists()


def test_a_ledger_given_explicitly_must_exist(pytester):
    pytester.makepyfile(test_a=SUITE)
    result = run(pytester, "--freezegate-ledger", "gate/ledger.json")
    assert result.ret == USAGE_ERROR
    result.stderr.fnmatch_lines(["ERROR: freezegate: ledger not found: gate/ledger.json (given by --freezegate-ledger)*"])
    pytester.makeini("[pytest]\nfreezegate_ledger = gate/ledger.json\n")
    result = run(pytester)
    assert result.ret == USAGE_ERROR
    result.stderr.fnmatch_lines(["*ledger not found: gate/ledger.json (given by ini freezegate_ledger)*"])


@pytest.mark.parametrize(
    "text, fragment",
    [
        ('{"version": 1, "freezes": [', "is not valid JSON"),
        ('{"version": 7, "freezes": []}', "$.version is 7; this freezegate reads ledger version 1"),
        ('{"version": 1, "freezes": [{"owner": "finley", "expires": "2026-10-26"}]}', "freeze #1 has no test_id"),
        ('{"version": 1, "freezes": [{"test_id": "test_a.py::test_flaky", "expires": "2026-02-30"}]}', 'expires "2026-02-30", which is not a real'),
        ('{"version": 1, "freezes": [{"test_id": "test_a.py::test_flaky", "ownr": "x"}]}', 'unknown key "ownr"'),
        ('{"freezes": []}', 'has "freezes" but no "version"'),
        # Full-width digits: read as a day, this freeze would never expire (compared as text).
        ('{"version": 1, "freezes": [{"test_id": "test_a.py::test_flaky", "expires": "２０２６-１０-１０"}]}', 'expires "２０２６-１０-１０", which is not a real'),
        ('{"version": 1, "freezes": [], "freezes": [{"test_id": "test_a.py::test_flaky"}]}', 'has the key "freezes" twice in $: JSON readers keep only the last one'),
    ],
)
def test_a_malformed_ledger_stops_the_session_before_any_test(pytester, text, fragment):
    pytester.makepyfile(test_a=SUITE + "\ndef test_marker(tmp_path_factory):\n    open('RAN', 'w').close()\n")
    write_ledger(pytester, raw=text)
    result = run(pytester)
    assert result.ret == USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1 and fragment in errors[0] and "(fix: " in errors[0], result.stderr.str()
    assert "Traceback" not in result.stderr.str() + result.stdout.str()
    assert not (pytester.path / "RAN").exists()
    assert not (pytester.path / ".freezegate" / "applied.json").exists()


@pytest.mark.parametrize(
    "args, ini, fragment",
    [
        (["--freezegate-mode", "gate"], "", 'unknown mode "gate" (--freezegate-mode) (fix: use run or skip)'),
        ([], "[pytest]\nfreezegate_mode = Skip\n", 'unknown mode "Skip" (ini freezegate_mode)'),
        (["--freezegate-today", "2026-13-01"], "", '--freezegate-today "2026-13-01" is not a real day'),
    ],
)
def test_bad_settings_are_usage_errors_even_without_a_ledger(pytester, args, ini, fragment):
    pytester.makepyfile(test_a=SUITE)
    if ini:
        pytester.makeini(ini)
    result = run(pytester, *args, today=None)
    assert result.ret == USAGE_ERROR
    assert fragment in result.stderr.str()


def test_freezegate_now_sets_the_day_when_no_flag_does(pytester, monkeypatch):
    pytester.makepyfile(test_a=SUITE)
    write_ledger(pytester, freeze("test_a.py::test_flaky", expires="2026-10-18"))
    monkeypatch.setenv("FREEZEGATE_NOW", "2026-10-18T23:59:00Z")
    result = run(pytester, today=None)
    assert result.ret == 0
    monkeypatch.setenv("FREEZEGATE_NOW", "2026-10-19T00:00:01Z")
    result = run(pytester, today=None)
    assert result.ret == 1
    result.stdout.fnmatch_lines(["*test_a.py::test_flaky (owner finley, expired 2026-10-18, today is 2026-10-19)"])
    monkeypatch.setenv("FREEZEGATE_NOW", "tomorrow")
    assert run(pytester, today=None).ret == USAGE_ERROR


def test_mode_run_keeps_frozen_tests_running_without_gating(pytester):
    pytester.makepyfile(
        test_a=SUITE
        + """
@pytest.fixture
def broken():
    raise RuntimeError("fixture broke")

def test_setup_breaks(broken):
    pass
"""
    )
    write_ledger(
        pytester,
        freeze("test_a.py::test_flaky"),
        freeze("test_a.py::test_steady", owner="sam", expires="2026-10-20"),
        freeze("test_a.py::test_setup_breaks"),
    )
    result = run(pytester, "-x")
    # -x would stop at the first failure: frozen failures are not failures.
    assert result.ret == 0, result.stdout.str()
    result.assert_outcomes(passed=2, xfailed=2)
    result.stdout.fnmatch_lines(
        [
            "freezegate: ledger freeze-ledger.json (3 freezes), mode run, record .freezegate/applied.json",
            "*= freezegate =*",
            f"ledger freeze-ledger.json, mode run, today {TODAY}: 3 frozen tests in this run, 0 expired freezes",
            "frozen-failed (these failures do not fail the session):",
            "  test_a.py::test_flaky (owner finley, expires 2026-10-26): AssertionError: flaked*",
            "  test_a.py::test_setup_breaks (owner finley, expires 2026-10-26): RuntimeError: fixture broke",
            "frozen-passed:",
            "  test_a.py::test_steady (owner sam, expires 2026-10-20)",
            "record: .freezegate/applied.json; samples: .freezegate/samples.json*",
        ]
    )
    result.stdout.fnmatch_lines(["XFAIL test_a.py::test_flaky - frozen: finley, expires 2026-10-26"])
    record = record_of(pytester)
    assert record["applied"] == ["test_a.py::test_flaky", "test_a.py::test_setup_breaks", "test_a.py::test_steady"]
    assert record["outcomes"] == {
        "test_a.py::test_flaky": "failed",
        "test_a.py::test_setup_breaks": "failed",
        "test_a.py::test_steady": "passed",
    }


def test_a_shared_fixture_failing_in_the_last_frozen_tests_teardown_is_not_muted(pytester):
    # pytest finalizes a module fixture in the teardown of the module's last test: when that
    # test is frozen, its failure (about the live tests that share the fixture) was muted and
    # the session passed. A frozen test's own fixture stays muted.
    pytester.makepyfile(
        test_shared="""
import pytest

@pytest.fixture(scope="module")
def shared():
    state = {"balance": 100}
    yield state
    assert state["balance"] == 100, "a test leaked a change"

@pytest.fixture
def own():
    yield
    raise RuntimeError("own teardown broke")

def test_live_leaks(shared):
    shared["balance"] += 5

def test_frozen_own(own):
    pass

def test_frozen_last(shared):
    pass
""",
        test_z="def test_after():\n    pass\n",
    )
    write_ledger(
        pytester,
        freeze("test_shared.py::test_frozen_own"),
        freeze("test_shared.py::test_frozen_last"),
    )
    result = run(pytester)
    assert result.ret == 1, result.stdout.str()
    result.stdout.fnmatch_lines(["ERROR test_shared.py::test_frozen_last - AssertionError: a test leaked a change*"])
    assert "ERROR test_shared.py::test_frozen_own" not in result.stdout.str()
    record = record_of(pytester)
    # The standing teardown error is the frozen test's outcome too, as pytest's ERROR line
    # says (it read "passed", and the summary listed the test as frozen-passed).
    assert record["outcomes"] == {
        "test_shared.py::test_frozen_last": "failed",
        "test_shared.py::test_frozen_own": "failed",
    }
    assert "frozen-passed" not in result.stdout.str()
    result.stdout.fnmatch_lines(
        [
            "  test_shared.py::test_frozen_last (*): this teardown error stands (shared fixtures end"
            " here): AssertionError: a test leaked a change*"
        ]
    )


def test_the_last_frozen_tests_own_fixture_failing_in_teardown_stays_muted(pytester):
    # The last test of a module ends the module's fixtures too; when only its own
    # function-scoped fixture failed, the failure is the frozen test's.
    pytester.makepyfile(
        test_own="""
import pytest

@pytest.fixture(scope="module")
def shared():
    yield {}

@pytest.fixture
def own():
    yield
    raise RuntimeError("own teardown broke")

def test_live(shared):
    pass

def test_frozen_last(shared, own):
    pass
""",
        test_z="def test_after():\n    pass\n",
    )
    write_ledger(pytester, freeze("test_own.py::test_frozen_last"))
    result = run(pytester)
    if int(pytest.__version__.split(".")[0]) >= 8:
        assert result.ret == 0, result.stdout.str()
        assert record_of(pytester)["outcomes"] == {"test_own.py::test_frozen_last": "failed"}
    else:
        # pytest 7 raises only the first teardown exception: a shared fixture's failure behind
        # this one could not be seen, so the failure stands (fail closed).
        assert result.ret == 1, result.stdout.str()
        result.stdout.fnmatch_lines(["ERROR test_own.py::test_frozen_last - RuntimeError: own teardown broke*"])
        assert record_of(pytester)["outcomes"] == {"test_own.py::test_frozen_last": "failed"}


def test_mode_run_still_fails_on_tests_that_are_not_frozen(pytester):
    pytester.makepyfile(test_a=SUITE + "\ndef test_other():\n    assert False\n")
    write_ledger(pytester, freeze("test_a.py::test_flaky"))
    result = run(pytester)
    assert result.ret == 1
    result.assert_outcomes(passed=2, failed=1, xfailed=1)
    result.stdout.fnmatch_lines(["FAILED test_a.py::test_other*"])


def test_mode_skip_skips_with_a_reason_naming_the_ledger_entry(pytester):
    pytester.makepyfile(
        test_a="""
def test_flaky():
    open("RAN", "w").close()
    assert False

def test_plain():
    pass
"""
    )
    write_ledger(pytester, freeze("test_a.py::test_fl*", owner="finley"), name="gate/ledger.json")
    result = run(pytester, "--freezegate-mode", "skip", "--freezegate-ledger", "gate/ledger.json")
    assert result.ret == 0
    result.assert_outcomes(passed=1, skipped=1)
    result.stdout.fnmatch_lines(
        [
            "frozen-skipped:",
            "  test_a.py::test_flaky (owner finley, expires 2026-10-26)",
            "SKIPPED [1] test_a.py: frozen by gate/ledger.json: test_a.py::test_fl* (owner finley, expires 2026-10-26)",
        ]
    )
    assert not (pytester.path / "RAN").exists()
    record = record_of(pytester)
    assert (record["mode"], record["applied"], record["outcomes"]) == (
        "skip",
        ["test_a.py::test_flaky"],
        {"test_a.py::test_flaky": "skipped"},
    )


def test_an_expired_freeze_is_not_applied_and_the_summary_says_when(pytester):
    pytester.makepyfile(test_a=SUITE)
    write_ledger(
        pytester,
        freeze("test_a.py::test_flaky", owner="finley", opened="2026-10-01", expires="2026-10-17"),
        freeze("test_a.py::test_steady", owner="sam", expires=TODAY),
    )
    result = run(pytester)
    assert result.ret == 1
    result.assert_outcomes(passed=2, failed=1)
    result.stdout.fnmatch_lines(
        [
            f"freezegate: ledger freeze-ledger.json (2 freezes, 1 expired as of {TODAY}), mode run*",
            "expired (not applied: these tests gate again):",
            f"  test_a.py::test_flaky (owner finley, expired 2026-10-17, today is {TODAY})",
            "FAILED test_a.py::test_flaky - AssertionError: flaked*",
        ]
    )
    record = record_of(pytester)
    assert record["applied"] == ["test_a.py::test_steady"]
    assert record["expired"] == ["test_a.py::test_flaky"]
    assert record["outcomes"] == {"test_a.py::test_steady": "passed"}


def test_the_seed_formats_apply_as_undated_freezes(pytester):
    pytester.makepyfile(test_a=SUITE)
    write_ledger(pytester, raw=json.dumps({"frozen": ["test_a.py::test_flaky"]}))
    result = run(pytester)
    assert result.ret == 0
    result.stdout.fnmatch_lines(
        ["  test_a.py::test_flaky (no owner, no expiry)*", "XFAIL test_a.py::test_flaky - frozen: no owner, no expiry"]
    )
    write_ledger(
        pytester,
        raw=json.dumps({"schema": 1, "max_window_days": 14, "freezes": [freeze("test_a.py::test_flaky", expires="2026-10-01")]}),
    )
    result = run(pytester)
    assert result.ret == 1
    assert record_of(pytester)["expired"] == ["test_a.py::test_flaky"]


def test_ledger_ids_that_match_no_collected_test_stop_the_session(pytester):
    pytester.makepyfile(
        test_a=SUITE + "\nimport pytest\n@pytest.mark.parametrize('n', [1, 2])\ndef test_param(n):\n    pass\n",
        test_b="def test_b():\n    pass\n",
    )
    write_ledger(
        pytester,
        freeze("test_a.py::test_flakey"),  # a typo, in a collected file
        freeze("test_a.py::test_param"),  # the cases are test_param[1], test_param[2]
        freeze("tests/test_gone.py::test_x"),  # the file does not exist
        freeze("test_b.py::test_renamed"),  # test_b.py exists but is not collected below
    )
    result = run(pytester, "test_a.py")
    assert result.ret == USAGE_ERROR
    errors = [line for line in result.stderr.lines if line.startswith("ERROR:")]
    assert len(errors) == 1
    assert errors[0].startswith(
        "ERROR: freezegate: ledger freeze-ledger.json: 3 frozen test ids match no collected test: "
        "test_a.py::test_flakey; test_a.py::test_param (a parametrized test: freeze its cases, e.g. "
        'test_a.py::test_param[1], test_a.py::test_param[2], or all of them with "test_a.py::test_param[*"); '
        "tests/test_gone.py::test_x (no file tests/test_gone.py) (fix: "
    ), errors[0]
    assert "test_b.py" not in errors[0]
    assert "passed" not in result.stdout.str()


def test_a_subset_of_files_or_a_deselection_does_not_fail_on_freezes_elsewhere(pytester):
    pytester.makepyfile(test_a=SUITE, test_b="def test_b():\n    assert False\n")
    write_ledger(pytester, freeze("test_a.py::test_flaky"), freeze("test_b.py::test_b"), freeze("test_a.py::test_st*"))
    result = run(pytester, "test_b.py")
    assert result.ret == 0
    assert record_of(pytester)["applied"] == ["test_b.py::test_b"]
    result = run(pytester, "-k", "plain")
    assert result.ret == 0
    result.assert_outcomes(passed=1, deselected=3)
    record = record_of(pytester)
    assert record["applied"] == [] and record["outcomes"] == {}
    # Not an error here, but the record names them: freezegate check refuses the run.
    assert record["deselected_frozen"] == ["test_a.py::test_flaky", "test_a.py::test_steady", "test_b.py::test_b"]


def test_a_star_entry_that_names_a_deselected_case_does_not_mute_its_siblings(pytester):
    # "test_match[*.py]" is a real case's id; a shard that deselects it runs "[a.py]", whose
    # failure must gate (the audit reads the entry as that one case).
    pytester.makepyfile(
        test_glob="import pytest\n@pytest.mark.parametrize('name', ['*.py', 'a.py'])\n"
        "def test_match(name):\n    assert name == '*.py'\n"
    )
    write_ledger(pytester, freeze("test_glob.py::test_match[*.py]"))
    result = run(pytester, "--deselect", "test_glob.py::test_match[*.py]")
    assert result.ret == 1, result.stdout.str()
    result.assert_outcomes(failed=1, deselected=1)
    assert record_of(pytester)["applied"] == []


def test_a_ledger_with_a_byte_order_mark_is_read_as_the_cli_reads_it(pytester):
    pytester.makepyfile(test_a=SUITE)
    ledger = write_ledger(pytester, raw="\ufeff" + json.dumps({"version": 1, "freezes": [freeze("test_a.py::test_flaky")]}))
    result = run(pytester)
    assert result.ret == 0, result.stdout.str() + result.stderr.str()
    record = record_of(pytester)
    assert record["applied"] == ["test_a.py::test_flaky"]
    # The hash is of the file's bytes, BOM included: the queue check hashes the checked-in file.
    assert record["ledger"]["sha256"] == sha256_of(ledger)


def test_the_record_lists_tests_a_skip_stopped_that_no_freeze_applies_to(pytester):
    # check counts a skipped witness of a property as frozen: a marker, a skip in
    # the body, and a frozen test skipped by mode skip (listed under applied, not here).
    pytester.makepyfile(
        test_a="""
import pytest

@pytest.mark.skip(reason="later")
def test_marked():
    pass

def test_in_body():
    pytest.skip("not today")

@pytest.mark.xfail(reason="known", strict=False)
def test_known():
    assert False

def test_flaky():
    pass

def test_plain():
    pass
"""
    )
    write_ledger(pytester, freeze("test_a.py::test_flaky"))
    result = run(pytester, "--freezegate-mode", "skip")
    assert result.ret == 0, result.stdout.str()
    record = record_of(pytester)
    assert record["skipped"] == ["test_a.py::test_in_body", "test_a.py::test_marked"]
    assert record["muted"] == ["test_a.py::test_known"]
    assert record["applied"] == ["test_a.py::test_flaky"]


def test_the_applied_record_names_commit_ledger_hash_mode_and_tests(pytester):
    pytester.makepyfile(test_a=SUITE)
    ledger = write_ledger(pytester, freeze("test_a.py::test_flaky"), freeze("test_a.py::test_plain", expires="2026-10-01"))
    git(pytester.path, "init", "-q")
    git(pytester.path, "add", "-A")
    git(pytester.path, "commit", "-qm", "init")
    head = git(pytester.path, "rev-parse", "HEAD")
    result = run(pytester)
    assert result.ret == 0
    raw = (pytester.path / ".freezegate" / "applied.json").read_text(encoding="utf-8")
    record = json.loads(raw)
    assert list(record) == [
        "version", "tool", "commit", "ledger", "mode", "applied", "expired", "outcomes", "muted", "skipped",
        "deselected_frozen",
    ]
    assert record == {
        "version": 1,
        "tool": "pytest-freezegate",
        "commit": head,
        "ledger": {"path": "freeze-ledger.json", "sha256": sha256_of(ledger)},
        "mode": "run",
        "applied": ["test_a.py::test_flaky"],
        "expired": ["test_a.py::test_plain"],
        "outcomes": {"test_a.py::test_flaky": "failed"},
        "muted": [],
        "skipped": [],
        "deselected_frozen": [],
    }
    assert raw.endswith("\n")
    leftovers = [p.name for p in (pytester.path / ".freezegate").iterdir()]
    assert sorted(leftovers) == ["applied.json", "samples.json"]
    # The samples artifact names the same commit: the deposit gate refuses one from another.
    samples = read_json(pytester.path / ".freezegate" / "samples.json")
    assert list(samples) == ["version", "tool", "commit", "properties"]
    assert samples == {"version": 2, "tool": "pytest-freezegate", "commit": head, "properties": {}}


def test_the_ledger_path_is_relative_to_the_git_root_and_absolute_outside_git(pytester, monkeypatch):
    project = pytester.path / "services" / "api"
    project.mkdir(parents=True)
    (project / "pytest.ini").write_text("[pytest]\n", encoding="utf-8")
    (project / "test_a.py").write_text(SUITE, encoding="utf-8")
    (project / "freeze-ledger.json").write_text(json.dumps({"version": 1, "freezes": [freeze("test_a.py::test_flaky")]}))
    git(pytester.path, "init", "-q")
    monkeypatch.chdir(project)
    result = run(pytester)
    assert result.ret == 0
    record = read_json(project / ".freezegate" / "applied.json")
    # No commit yet: HEAD does not point at one.
    assert record["commit"] is None
    assert read_json(project / ".freezegate" / "samples.json")["commit"] is None
    assert record["ledger"]["path"] == "services/api/freeze-ledger.json"
    (pytester.path / ".git").rename(pytester.path / "not-git")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(pytester.path.parent))
    result = run(pytester)
    record = read_json(project / ".freezegate" / "applied.json")
    assert record["commit"] is None
    assert record["ledger"]["path"] == (project / "freeze-ledger.json").resolve().as_posix()


@pytest.mark.parametrize(
    "args, fragment",
    [
        (["--freezegate-record", "blocker/applied.json"], "cannot write the applied record blocker/applied.json"),
        (["--freezegate-samples", "blocker/samples.json"], "cannot write the samples artifact blocker/samples.json"),
        (["--freezegate-record", "adir"], "the applied record path adir is a directory"),
        (["--freezegate-record", "freeze-ledger.json"], "must be three different files"),
    ],
)
def test_an_unwritable_output_path_stops_the_session_before_tests_run(pytester, args, fragment):
    pytester.makepyfile(test_a="def test_marker():\n    open('RAN', 'w').close()\n")
    write_ledger(pytester, freeze("test_a.py::test_marker"))
    (pytester.path / "blocker").write_text("a file, not a directory")
    (pytester.path / "adir").mkdir()
    result = run(pytester, *args)
    assert result.ret == USAGE_ERROR
    assert fragment in result.stderr.str()
    assert not (pytester.path / "RAN").exists()
    assert json.loads((pytester.path / "freeze-ledger.json").read_text())["version"] == 1


def test_a_run_that_stops_early_leaves_no_record_not_even_an_old_one(pytester):
    pytester.makepyfile(test_a=SUITE)
    write_ledger(pytester, freeze("test_a.py::test_flaky"))
    assert run(pytester).ret == 0
    assert (pytester.path / ".freezegate" / "applied.json").exists()
    write_ledger(pytester, freeze("test_a.py::test_flaky"), freeze("test_a.py::test_missing"))
    result = run(pytester)
    assert result.ret == USAGE_ERROR
    result.stdout.fnmatch_lines(["no record written: the session ended with exit status 4 (USAGE_ERROR)"])
    assert not (pytester.path / ".freezegate" / "applied.json").exists()
    assert not (pytester.path / ".freezegate" / "samples.json").exists()
    pytester.makepyfile(test_broken="import not_a_module_anywhere\n")
    write_ledger(pytester, freeze("test_a.py::test_flaky"))
    result = run(pytester)
    assert result.ret == pytest.ExitCode.INTERRUPTED
    assert not (pytester.path / ".freezegate" / "applied.json").exists()


@pytest.mark.parametrize("flag", ["--collect-only", "--setup-plan", "--fixtures", "--markers"])
def test_a_session_that_runs_no_test_leaves_the_last_runs_outputs_alone(pytester, flag):
    # `pytest --collect-only -q > collected.txt` after the tests (the CLI's --collected
    # input) must not replace their samples and record with empty ones.
    pytester.makepyfile(test_a=SUITE)
    write_ledger(pytester, freeze("test_a.py::test_flaky"))
    assert run(pytester).ret == 0
    out = pytester.path / ".freezegate"
    before = {name: (out / name).read_bytes() for name in ("applied.json", "samples.json")}
    assert read_json(out / "applied.json")["outcomes"] == {"test_a.py::test_flaky": "failed"}
    result = run(pytester, flag, "-q")
    assert result.ret == 0
    assert {name: (out / name).read_bytes() for name in before} == before
    assert sorted(p.name for p in out.iterdir()) == ["applied.json", "samples.json"]
    if flag in ("--collect-only", "--setup-plan"):
        result.stdout.fnmatch_lines(
            [f"{flag} runs no test: .freezegate/applied.json and .freezegate/samples.json were left as they were"]
        )
        result.stdout.no_fnmatch_line("*frozen-not-run*")


def test_ini_settings_are_relative_to_the_ini_file(pytester, monkeypatch):
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests" / "test_a.py").write_text(SUITE, encoding="utf-8")
    pytester.makeini(
        "[pytest]\nfreezegate_ledger = gate/ledger.json\nfreezegate_mode = skip\n"
        "freezegate_record = out/record.json\nfreezegate_samples = out/samples.json\n"
    )
    write_ledger(pytester, freeze("tests/test_a.py::test_flaky"), name="gate/ledger.json")
    monkeypatch.chdir(pytester.path / "tests")
    result = run(pytester, str(pytester.path / "tests"))
    assert result.ret == 0
    result.assert_outcomes(passed=2, skipped=1)
    record = read_json(pytester.path / "out" / "record.json")
    assert record["mode"] == "skip" and record["applied"] == ["tests/test_a.py::test_flaky"]
    assert read_json(pytester.path / "out" / "samples.json") == {
        "version": 2,
        "tool": "pytest-freezegate",
        "commit": None,
        "properties": {},
    }
    # Command-line paths are relative to where pytest was started.
    result = run(pytester, str(pytester.path / "tests"), "--freezegate-record", "here.json")
    assert result.ret == 0
    assert (pytester.path / "tests" / "here.json").exists()


def test_help_works_with_a_broken_ledger(pytester):
    write_ledger(pytester, raw="{")
    result = run(pytester, "--help")
    assert result.ret == 0
    result.stdout.fnmatch_lines(["*--freezegate-mode=run|skip*"])
    assert os.path.exists(pytester.path / "freeze-ledger.json")
