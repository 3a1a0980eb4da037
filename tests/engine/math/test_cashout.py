"""Seed 000's cash-out offers and their replay check."""

import dataclasses
from fractions import Fraction

import pytest

from tables.engine.math.cashout import (
    RETURN_QUANTUM,
    cashout_offer,
    check_offer,
    expected_return,
    offer_due,
    offer_share,
)
from tables.engine.math.composition import remaining
from tables.engine.math.ev import Position
from tables.engine.math.rulesview import PlayRules
from tables.engine.presets import PRESETS

LIVE = PRESETS["it-live"]
HANDS = [
    (["TS", "2H"], "2D", ["7C", "KD"]),
    (["8S", "8H"], "TD", []),
    (["5S", "6H"], "AD", ["QC", "QH", "4S"]),
    (["9S", "4H", "2C"], "7D", ["3C"]),
    (["AS", "4H"], "5D", []),
    (["TC", "6D"], "9H", ["2S", "2C", "3D", "4H", "5C"]),
]


@pytest.mark.parametrize(("cards", "up", "others"), HANDS)
@pytest.mark.parametrize("stake", [1, 999, 1000, 12345])
def test_offer_is_the_rounded_fair_value_less_the_margin(
    cards: list[str], up: str, others: list[str], stake: int
) -> None:
    """offer = floor(stake x expected return x (1 - margin)) for it-live's rounding
    ``down``, with the expected return kept to 9 decimals; never above the fair value."""
    left = remaining(6, cards + [up] + others)
    offer = cashout_offer(cards, up, left, stake=stake, rules=LIVE, margin=(1, 40))
    value, _action = expected_return(cards, up, left, LIVE)
    quantised = Fraction(round(value * RETURN_QUANTUM), RETURN_QUANTUM)
    assert offer.expected_return == quantised
    exact = quantised * stake * (1 - Fraction(1, 40))
    assert offer.amount == exact.numerator // exact.denominator
    assert offer.amount <= offer.fair_value
    assert 0 <= offer.amount <= 3 * stake


def test_check_offer_accepts_the_right_amount_and_flags_any_other() -> None:
    """The replay check is true for the computed amount and false one unit off."""
    cards, up = ["TC", "6D"], "9H"
    left = remaining(6, cards + [up])
    offer = cashout_offer(cards, up, left, stake=5000, rules=LIVE, margin=(3, 100))
    kwargs = {"stake": 5000, "rules": LIVE, "margin": (3, 100)}
    assert check_offer(offer.amount, cards, up, left, **kwargs)  # type: ignore[arg-type]
    assert not check_offer(offer.amount + 1, cards, up, left, **kwargs)  # type: ignore[arg-type]
    assert not check_offer(offer.amount - 1, cards, up, left, **kwargs)  # type: ignore[arg-type]
    # a different shoe is a different offer (here: two tens fewer left)
    other = remaining(6, cards + [up, "KS", "KH"])
    assert (
        cashout_offer(cards, up, other, stake=5000, rules=LIVE, margin=(3, 100)).amount
        != offer.amount
    )


def test_value_is_the_hands_expected_value_played_by_the_chart() -> None:
    """16 against a ten: the chart hits, and the return is 1 + the value of hitting on by
    the chart (no hole card: a dealer natural takes the stake)."""
    cards, up = ["TC", "6D"], "TH"
    left = remaining(6, cards + [up])
    value, action = expected_return(cards, up, left, LIVE)
    position = Position(PlayRules.of(LIVE), 10, left)
    assert action == "hit"
    from tables.engine.math.strategy import chart_for

    assert value == pytest.approx(
        1 + position.final(position.hit(16, False, chart_for(LIVE))), abs=1e-15
    )
    assert 0.2 < value < 0.6


def test_rounding_policy_and_margin() -> None:
    """``up`` rounding is never below ``down``; a larger margin never raises the offer;
    without a margin argument the rule set's cashout_margin applies (it-live: 2%)."""
    cards, up = ["9S", "4H"], "8D"
    left = remaining(6, cards + [up])
    down = cashout_offer(cards, up, left, stake=777, rules=LIVE, margin=(1, 20))
    up_rules = dataclasses.replace(LIVE, rounding="up")
    rounded_up = cashout_offer(cards, up, left, stake=777, rules=up_rules, margin=(1, 20))
    assert rounded_up.amount in (down.amount, down.amount + 1)
    assert (
        cashout_offer(cards, up, left, stake=777, rules=LIVE, margin=(1, 10)).amount <= down.amount
    )
    assert LIVE.cashout_margin == (1, 50)
    assert cashout_offer(cards, up, left, stake=777, rules=LIVE) == cashout_offer(
        cards, up, left, stake=777, rules=LIVE, margin=(1, 50)
    )
    five = dataclasses.replace(LIVE, cashout_margin=(1, 20))
    assert cashout_offer(cards, up, left, stake=777, rules=five) == down
    with pytest.raises(ValueError, match="margin"):
        cashout_offer(cards, up, left, stake=777, rules=LIVE, margin=(1, 1))


def test_offer_due_follows_the_house_rules() -> None:
    """Seed 000: no offer below 11 or from 17 on; soft totals count as the best total."""
    assert offer_due(["TS", "2H"], LIVE)
    assert offer_due(["5S", "6H"], LIVE)
    assert not offer_due(["5S", "4H"], LIVE)
    assert not offer_due(["TS", "7H"], LIVE)
    assert not offer_due(["AS", "6H"], LIVE)  # soft 17
    assert offer_due(["AS", "2H"], LIVE)  # soft 13
    assert not offer_due(["TS", "2H"], PRESETS["hoyle"])  # no cash-out game


def test_offers_are_cached_by_composition_and_the_cache_changes_no_offer() -> None:
    """Two hands of one shape valued from one composition (two boxes at one moment: both
    hands' cards are out of the shoe) share one valuation; a valuation from the cache is
    the one computed afresh; the caches are bounded."""
    from tables.engine.math import cashout

    first, second, up = ["TS", "6H"], ["9C", "7D"], "8S"
    left = remaining(6, first + second + [up])
    cashout.clear_caches()
    offer = cashout_offer(first, up, left, stake=2500, rules=LIVE)
    positions = cashout.position.cache_info()
    assert (positions.misses, positions.currsize) == (1, 1)
    other = cashout_offer(second, up, left, stake=2500, rules=LIVE)
    assert other == offer  # hard 16 of two cards, no pair: the same hand to the mathematics
    assert cashout.position.cache_info().misses == 1
    assert cashout._quantised_return.cache_info().hits >= 1
    # a soft hand of the same total is another shape: its own return, the same position
    soft = cashout_offer(["AS", "5H"], up, remaining(6, ["AS", "5H", up]), stake=2500, rules=LIVE)
    assert soft.expected_return != offer.expected_return
    cashout.clear_caches()
    assert cashout_offer(second, up, left, stake=2500, rules=LIVE) == offer
    assert cashout.position.cache_info().maxsize == cashout.POSITIONS
    assert cashout._shares(LIVE).cache_info().maxsize == cashout.SHARES  # type: ignore[attr-defined]


def test_a_share_is_its_return_less_each_margin_asked_in_turn() -> None:
    """offer_share keeps 1 - margin per margin: asked with margins in turn (more than it
    keeps, and again), each share is still the quantised return times 1 - that margin."""
    cards, up, others = HANDS[0]
    left = remaining(LIVE.decks, cards + [up] + others)
    whole = offer_share(cards, up, left, rules=LIVE, margin=(0, 1))
    assert whole.denominator <= RETURN_QUANTUM
    margins: list[tuple[int, int] | Fraction | None] = [(k, 100) for k in range(20)]
    margins += [Fraction(1, 40), None, (3, 100), (0, 1)]
    for margin in margins + margins:
        cut = (
            Fraction(*LIVE.cashout_margin)
            if margin is None
            else (Fraction(*margin) if isinstance(margin, tuple) else margin)
        )
        assert offer_share(cards, up, left, rules=LIVE, margin=margin) == whole * (1 - cut)
