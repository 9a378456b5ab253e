// The ledger service of the example.
//
// Two invariants matter here: the balance never goes negative, and a rejected withdrawal is a
// no-op (it changes neither the balance nor the entries).

/** A withdrawal larger than the balance; the ledger is left as it was. */
export class InsufficientFunds extends Error {
  readonly amount: number;
  readonly balance: number;

  constructor(amount: number, balance: number) {
    super(`cannot withdraw ${amount}: the balance is ${balance}`);
    this.name = "InsufficientFunds";
    this.amount = amount;
    this.balance = balance;
  }
}

/** The balance and the entries at one moment. */
export interface Snapshot {
  balance: number;
  entries: readonly number[];
}

export class Ledger {
  #balance: number;
  readonly #entries: number[] = [];

  constructor(initial = 0) {
    if (initial < 0) throw new RangeError("the initial balance cannot be negative");
    this.#balance = initial;
  }

  get balance(): number {
    return this.#balance;
  }

  /** Deposit (amount > 0) or withdraw (amount < 0). */
  apply(amount: number): void {
    if (amount < 0 && -amount > this.#balance) {
      throw new InsufficientFunds(-amount, this.#balance);
    }
    this.#balance += amount;
    this.#entries.push(amount);
  }

  /** The balance and the entries, as a value that later changes cannot touch. */
  snapshot(): Snapshot {
    return { balance: this.#balance, entries: [...this.#entries] };
  }

  /** The entries, one line each, then the balance. */
  statement(): string[] {
    const lines: string[] = [];
    let running = 0;
    for (const amount of this.#entries) {
      running += amount;
      lines.push(`${amount < 0 ? amount : `+${amount}`} -> ${running}`);
    }
    lines.push(`balance ${this.#balance}`);
    return lines;
  }
}
