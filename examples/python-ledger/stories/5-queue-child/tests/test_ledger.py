import pytest

from app.ledger import InsufficientFunds, Ledger

def test_deposit_increases_balance():
    ledger = Ledger(initial=100)
    ledger.apply(50)
    assert ledger.balance == 150


def test_withdraw_more_than_balance():
    ledger = Ledger(initial=100)
    with pytest.raises(InsufficientFunds):
        ledger.apply(-120)
    assert ledger.balance == 100


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
