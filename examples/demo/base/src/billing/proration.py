"""Proration of subscription charges, in integer cents."""

ROUND_DOWN = "down"
ROUND_HALF_UP = "half-up"


def prorate(amount_cents, days_used, days_in_period, mode=ROUND_DOWN):
    """Charge for the days used of a period."""
    if days_in_period <= 0:
        raise ValueError("a period has at least one day")
    share = amount_cents * days_used
    if mode == ROUND_HALF_UP:
        return (share + days_in_period // 2) // days_in_period
    return int(share // days_in_period)


def refund(amount_cents, days_used, days_in_period):
    charged = prorate(amount_cents, days_used, days_in_period)
    return amount_cents - charged
