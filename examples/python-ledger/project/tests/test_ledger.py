import pytest

from app.ledger import InsufficientFunds, Ledger

# One ledger for the two tests below, to save setting it up twice. This is the flake: in
# the full suite the deposit runs first, so test_withdraw_more_than_balance only passes
# when it runs on its own.
_shared = Ledger(initial=100)


def test_deposit_increases_balance():
    _shared.apply(50)
    assert _shared.balance == 150


def test_withdraw_more_than_balance():
    with pytest.raises(InsufficientFunds):
        _shared.apply(-120)
    assert _shared.balance == 100


def test_overdraft_rejected():
    ledger = Ledger(initial=0)
    before = ledger.snapshot()
    with pytest.raises(InsufficientFunds):
        ledger.apply(-1)
    assert ledger.balance == 0
    assert ledger.snapshot() == before


def test_statement_lists_entries():
    ledger = Ledger(initial=10)
    ledger.apply(5)
    ledger.apply(-3)
    assert ledger.statement() == ["+5", "-3", "balance 12"]


def test_negative_initial_balance_refused():
    with pytest.raises(ValueError):
        Ledger(initial=-1)
