"""The dealer's outcome probabilities against published tables."""

from fractions import Fraction

import pytest

from tables.engine.math.composition import remove, shoe
from tables.engine.math.dealer import (
    BUST,
    NATURAL,
    dealer_odds,
    dealer_odds_exact,
    dealer_odds_infinite,
    given_no_natural,
    stand_function,
    stand_value,
)

# Wizard of Odds, "Dealer Probabilities in Blackjack", appendix 2B
# (https://wizardofodds.com/games/blackjack/appendix/2b/), before the peek, columns
# 17, 18, 19, 20, 21, BJ, bust; composition: the full shoe less the up card.
WIZARD_1D_S17 = {
    1: (0.126128, 0.131003, 0.129486, 0.131553, 0.0515646, 0.313726, 0.11654),
    2: (0.138976, 0.131762, 0.131815, 0.123948, 0.120526, 0, 0.352973),
    3: (0.130313, 0.130946, 0.123761, 0.123345, 0.116047, 0, 0.375588),
    4: (0.130973, 0.114163, 0.120679, 0.116286, 0.115096, 0, 0.402803),
    5: (0.119687, 0.123483, 0.116909, 0.104694, 0.106321, 0, 0.428905),
    6: (0.166948, 0.106454, 0.107192, 0.100705, 0.0978785, 0, 0.420823),
    7: (0.372345, 0.138583, 0.0773344, 0.0788967, 0.072987, 0, 0.259854),
    8: (0.130857, 0.362989, 0.129445, 0.0682898, 0.0697914, 0, 0.238627),
    9: (0.121886, 0.103921, 0.357391, 0.12225, 0.0611088, 0, 0.233442),
    10: (0.114418, 0.112879, 0.114662, 0.328879, 0.0364661, 0.0784314, 0.214264),
}
WIZARD_2D_S17 = {
    1: (0.128467, 0.13089, 0.130179, 0.131159, 0.0527542, 0.31068, 0.115872),
    2: (0.139367, 0.133348, 0.130744, 0.123997, 0.119254, 0, 0.353291),
    3: (0.132764, 0.130676, 0.124575, 0.121811, 0.11538, 0, 0.374794),
    4: (0.130704, 0.120208, 0.121038, 0.116366, 0.113145, 0, 0.39854),
    5: (0.121005, 0.122831, 0.117318, 0.109022, 0.10732, 0, 0.422505),
}


def _wizard_order(odds: tuple[float, ...]) -> tuple[float, ...]:
    return odds[:5] + (odds[NATURAL], odds[BUST])


@pytest.mark.parametrize(("decks", "table"), [(1, WIZARD_1D_S17), (2, WIZARD_2D_S17)])
def test_matches_wizard_of_odds_appendix_2b(
    decks: int, table: dict[int, tuple[float, ...]]
) -> None:
    """Every S17 outcome probability for 1 and 2 decks equals Wizard of Odds appendix 2B
    to the 6 significant digits it prints (tolerance 1e-6 absolute)."""
    for up, expected in table.items():
        odds = dealer_odds(up, remove(shoe(decks), up), hits_soft_17=False)
        assert _wizard_order(odds) == pytest.approx(expected, abs=1e-6), up


# blackjackinfo.com, "Blackjack Dealer Outcome Probabilities"
# (https://www.blackjackinfo.com/dealer-outcome-probabilities/): single deck, dealer hits
# soft 17, full deck less the up card, after a peek for blackjack (2 decimals of %).
BJINFO_1D_H17_BUST = {
    2: 35.63,
    3: 37.81,
    4: 40.58,
    5: 43.00,
    6: 43.78,
    7: 25.99,
    8: 23.86,
    9: 23.34,
    10: 23.25,
    1: 20.46,
}
BJINFO_1D_H17_ACE = {"17": 8.18, "18": 20.54, "19": 20.62, "20": 20.95, "21": 9.26}


def test_h17_after_peek_matches_blackjackinfo() -> None:
    """H17 single deck, conditioned on no dealer natural: busts per up card and the ace's
    totals equal blackjackinfo.com's table within its rounding (0.005 percentage points)."""
    for up, bust in BJINFO_1D_H17_BUST.items():
        odds = given_no_natural(dealer_odds(up, remove(shoe(1), up), hits_soft_17=True))
        assert 100 * odds[BUST] == pytest.approx(bust, abs=0.005), up
    ace = given_no_natural(dealer_odds(1, remove(shoe(1), 1), hits_soft_17=True))
    for i, label in enumerate(("17", "18", "19", "20", "21")):
        assert 100 * ace[i] == pytest.approx(BJINFO_1D_H17_ACE[label], abs=0.005)


def test_infinite_deck_six_busts_42_3_percent() -> None:
    """Infinite deck, S17: a 6 up busts 42.32% (Wizard of Odds' infinite-deck dealer
    table, 0.423; Griffin, The Theory of Blackjack, ch. 3); tolerance 1e-4. A finite shoe
    of a million decks gives the same figure within 1e-6."""
    odds = dealer_odds_infinite(6, hits_soft_17=False)
    assert odds[BUST] == pytest.approx(0.4232, abs=1e-4)
    huge = dealer_odds(6, (4 * 10**6,) * 9 + (16 * 10**6,), hits_soft_17=False)
    assert huge == pytest.approx(odds, abs=1e-6)


def test_exact_fractions_sum_to_one_and_agree_with_floats() -> None:
    """The exact computation is a probability distribution, and the float one is it."""
    comp = remove(shoe(6), 7, 9, 2)
    for up in range(1, 11):
        exact = dealer_odds_exact(up, remove(comp, up), hits_soft_17=True)
        assert sum(exact) == Fraction(1)
        assert [float(x) for x in exact] == pytest.approx(
            dealer_odds(up, remove(comp, up), hits_soft_17=True), abs=1e-15
        )


def test_depleted_shoe_and_peek_conditioning() -> None:
    """A shoe of tens only: a ten up makes 20 surely; an ace up always has a natural,
    which conditioning refuses. A peeked-at ace never shows a natural afterwards."""
    tens = (0,) * 9 + (5,)
    assert dealer_odds(10, tens, hits_soft_17=False)[3] == 1.0
    assert dealer_odds(1, tens, hits_soft_17=False)[NATURAL] == 1.0
    with pytest.raises(ValueError):
        given_no_natural(dealer_odds(1, tens, hits_soft_17=False))
    odds = given_no_natural(dealer_odds(1, remove(shoe(6), 1), hits_soft_17=False))
    assert odds[NATURAL] == 0.0 and sum(odds) == pytest.approx(1.0)


def test_stand_function_is_stand_value_bit_for_bit() -> None:
    """The unrolled stand values (the exact analysis's) are the loop's floats exactly,
    for every total, on odds whose additions round (real dealer odds, and scaled ones)."""
    comp = remove(shoe(6), 7, 9, 2)
    for up in range(1, 11):
        odds = dealer_odds(up, remove(comp, up), hits_soft_17=up % 2 == 0)
        for probs in (odds, [p * 3.7e-3 for p in odds], [p + 1e-9 * k for k, p in enumerate(odds)]):
            for total in range(2, 22):
                assert stand_function(total)(probs) == stand_value(probs, total), (up, total)
    with pytest.raises(ValueError):
        stand_function(22)


def test_numerators_are_each_multisets_factors_multiplied_one_by_one() -> None:
    """The evaluation in C (shared prefixes, factors gathered by getters) gives, for every
    outcome and hand size, the same integer as the finishing multisets' orderings times
    their falling factors multiplied out one multiset at a time - on shoes of one to
    eight decks, depleted at random (some values used up), every up card, S17 and H17."""
    import math
    import random

    from tables.engine.math.dealer import _MAXM, OUTCOMES, _sums, _table

    draw = random.Random(7)
    for decks in (1, 2, 6, 8):
        full = list(shoe(decks))
        for _ in range(6):
            comp = list(full)
            for _ in range(draw.randrange(0, 40 * decks)):
                value = draw.randrange(10)
                comp[value] = max(comp[value] - 1, 0)
            for up in range(1, 11):
                for h17 in (False, True):
                    expected: list[list[tuple[int, int]]] = [[] for _ in OUTCOMES]
                    for outcome, size, entries in _table(up, h17):
                        total = 0
                        for orders, index in entries:
                            term = orders
                            for flat in index:
                                value, times = divmod(flat, _MAXM)
                                term *= math.perm(comp[value], times)  # 0 where fewer are left
                            total += term
                        expected[outcome].append((total, size))
                    assert _sums(up, tuple(comp), h17) == expected, (decks, comp, up, h17)


def test_stand_table_is_stand_value_at_every_total() -> None:
    """A position's stand values by total (0 to 21) are stand_value's floats, bit for bit."""
    from tables.engine.math.ev import _stand_table

    comp = remove(shoe(6), 7, 9, 2)
    for up in range(1, 11):
        odds = dealer_odds(up, remove(comp, up), hits_soft_17=up % 2 == 1)
        assert _stand_table(odds) == [stand_value(odds, total) for total in range(22)], up
