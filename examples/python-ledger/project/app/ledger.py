"""The ledger service of the example.

Two invariants matter here: the balance never goes negative, and a rejected withdrawal is a
no-op (it changes neither the balance nor the entries).
"""


class InsufficientFunds(Exception):
    """A withdrawal larger than the balance; the ledger is left as it was."""

    def __init__(self, amount: int, balance: int) -> None:
        super().__init__(f"cannot withdraw {amount}: the balance is {balance}")
        self.amount = amount
        self.balance = balance


class Ledger:
    def __init__(self, initial: int = 0) -> None:
        if initial < 0:
            raise ValueError("the initial balance cannot be negative")
        self._balance = initial
        self._entries: list[int] = []

    @property
    def balance(self) -> int:
        return self._balance

    def apply(self, amount: int) -> None:
        """Deposit (amount > 0) or withdraw (amount < 0)."""
        if amount < 0 and -amount > self._balance:
            raise InsufficientFunds(-amount, self._balance)
        self._balance += amount
        self._entries.append(amount)

    def snapshot(self) -> tuple[int, tuple[int, ...]]:
        """The balance and the entries, as a value that later changes cannot touch."""
        return (self._balance, tuple(self._entries))

    def statement(self) -> list[str]:
        """The entries, one line each, then the balance."""
        lines = [f"{amount:+d}" for amount in self._entries]
        lines.append(f"balance {self._balance}")
        return lines
