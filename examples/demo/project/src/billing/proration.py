"""Proration of subscription charges, in integer cents."""

ROUND_DOWN = "down"
ROUND_HALF_UP = "half-up"


def prorate(amount_cents, days_used, days_in_period, mode=ROUND_DOWN):
    """Charge for the days used of a period."""
    if days_in_period <= 0:
        raise ValueError("a period has at least one day")
    share = amount_cents * days_used
    if mode == ROUND_HALF_UP:
        return (2 * share + days_in_period) // (2 * days_in_period)
    return share // days_in_period


def refund(amount_cents, days_used, days_in_period):
    charged = prorate(amount_cents, days_used, days_in_period)
    # the customer gets back what was not used
    return amount_cents - charged


def credit_note(amount_cents, reason):
    if not reason:
        raise ValueError("a credit note needs a reason")
    return {
        "amount": -amount_cents,
        "reason": reason.strip(),
    }
