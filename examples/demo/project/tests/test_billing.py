import pytest

from billing.proration import ROUND_HALF_UP, prorate, refund


def test_full_period_charges_everything():
    assert prorate(3000, 30, 30) == 3000


def test_refund_of_unused_days():
    assert refund(3000, 10, 30) == 2000


def test_empty_period_is_refused():
    with pytest.raises(ValueError):
        prorate(3000, 1, 0)


def test_proration_rounds_half_up():
    # flaky in CI (order-dependent); frozen in quarantine.json
    assert prorate(1000, 1, 3, mode=ROUND_HALF_UP) == 333
