"""pytest --lf with the plugin : a rerun of the last failures
collects the other files as empty and drops the other tests of a failed file, so a frozen test
that exists must not be called a typo there (it stopped the rerun with exit 4)."""

import pytest
from fz_helpers import TODAY, freeze, write_ledger


def run_with_cache(pytester, *args):
    return pytester.runpytest(
        "-W", "ignore::pytest.PytestAssertRewriteWarning", "-p", "freezegate_pytest",
        "--freezegate-today", TODAY, *args,
    )


@pytest.mark.parametrize("frozen_in", ["test_b.py", "test_a.py"])
def test_a_last_failed_rerun_does_not_call_a_frozen_test_a_typo(pytester, frozen_in):
    pytester.makepyfile(
        test_a="def test_flaky():\n    assert False\n\ndef test_fine():\n    pass\n",
        test_b="def test_frozen():\n    pass\n\ndef test_other():\n    pass\n",
    )
    target = "test_b.py::test_frozen" if frozen_in == "test_b.py" else "test_a.py::test_fine"
    write_ledger(pytester, freeze(target))
    first = run_with_cache(pytester)
    assert first.ret == 1, first.stdout.str()
    rerun = run_with_cache(pytester, "--lf")
    assert rerun.ret == 1, rerun.stdout.str()
    rerun.assert_outcomes(failed=1)
    assert "matches no collected test" not in rerun.stdout.str()


def test_a_typo_in_a_file_that_does_not_exist_is_still_refused_under_lf(pytester):
    pytester.makepyfile(test_a="def test_flaky():\n    assert False\n")
    write_ledger(pytester, freeze("test_gone.py::test_x"))
    run_with_cache(pytester)
    rerun = run_with_cache(pytester, "--lf")
    assert rerun.ret == pytest.ExitCode.USAGE_ERROR
    rerun.stderr.fnmatch_lines(["*1 frozen test id matches no collected test: test_gone.py::test_x (no file test_gone.py)*"])
