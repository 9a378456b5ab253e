from hypothesis import given, settings
from hypothesis import strategies as st

from app.ledger import InsufficientFunds, Ledger


@given(st.lists(st.integers(min_value=-10_000, max_value=10_000), max_size=64))
@settings(max_examples=300, derandomize=True)
def test_balance_never_negative(amounts):
    ledger = Ledger()
    for amount in amounts:
        try:
            ledger.apply(amount)
        except InsufficientFunds:
            pass
    assert ledger.balance >= 0


@given(st.integers(min_value=1, max_value=10_000))
@settings(max_examples=50, derandomize=True)
def test_rejected_withdrawal_is_a_noop(amount):
    ledger = Ledger(initial=0)
    before = ledger.snapshot()
    try:
        ledger.apply(-amount)
    except InsufficientFunds:
        pass
    assert ledger.snapshot() == before


@given(st.integers(min_value=0, max_value=10_000), st.integers(min_value=1, max_value=10_000))
@settings(max_examples=50, derandomize=True)
def test_withdrawal_beyond_balance_is_rejected(initial, excess):
    ledger = Ledger(initial=initial)
    try:
        ledger.apply(-(initial + excess))
    except InsufficientFunds:
        pass
    else:
        raise AssertionError("a withdrawal beyond the balance went through")
    assert ledger.balance == initial
