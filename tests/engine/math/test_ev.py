"""Values of single hands against Wizard of Odds appendix 9, and the laws they obey."""

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from tables.engine.math.composition import remove, shoe
from tables.engine.math.ev import Position
from tables.engine.math.rulesview import PlayRules
from tables.engine.presets import PRESETS
from tables.engine.rules import RuleSet

SIX_ENHC_H17 = RuleSet(
    name="6d-enhc",
    decks=6,
    hole_card="none",
    dealer_hits_soft_17=True,
    double_after_split=True,
    max_split_hands=4,
)
ONE_S17 = RuleSet(name="1d", decks=1, hole_card="peek", double_after_split=True, max_split_hands=4)


@pytest.mark.parametrize(
    ("rules", "cards", "stand", "hit", "double"),
    [
        # https://wizardofodds.com/games/blackjack/appendix/9/ euro-6dh17r4, dealer ace
        (SIX_ENHC_H17, (6, 5), -0.720879, -0.235772, -0.535879),
        (SIX_ENHC_H17, (3, 2), -0.721887, -0.529734, -1.443774),
        (SIX_ENHC_H17, (6, 4), -0.720814, -0.286818, -0.639108),
        # 1ds17r4, dealer ace, "no dealer blackjack" table
        (ONE_S17, (6, 5), -0.634013, 0.172946, 0.240259),
        (ONE_S17, (6, 4), -0.636118, 0.081506, 0.048615),
        (ONE_S17, (3, 2), -0.659375, -0.291565, -1.318751),
    ],
)
def test_hand_values_against_wizard_appendix_9(
    rules: RuleSet, cards: tuple[int, int], stand: float, hit: float, double: float
) -> None:
    """Against an ace, from the shoe less the three cards: standing is exact (1e-6, the
    table's rounding); doubling is exact with ``exact_next_card`` (1e-6); hitting, whose
    later cards are drawn from the fixed composition, within 0.005 of the stake.
    Wizard's single-deck figures are after the peek, so ours are turned back from the
    final space (value = -p + (1 - p) x conditioned value)."""
    position = Position(
        PlayRules.of(rules), 1, remove(shoe(rules.decks), *cards, 1), exact_next_card=True
    )
    values = position.values(sum(cards), False, 2, 0)
    inner = {a: (v - position._a) / position._b for a, v in values.items()}
    assert inner["stand"] == pytest.approx(stand, abs=1e-6)
    assert inner["double"] == pytest.approx(double, abs=1e-6)
    assert inner["hit"] == pytest.approx(hit, abs=5e-3)


def test_laws_of_the_values() -> None:
    """Standing on 16 or less wins only by a dealer bust; doubling 11 is twice one card;
    splitting without resplits is twice one split hand; surrender gives back half."""
    play = PlayRules.of(RuleSet(name="x", decks=6, surrender="late", max_split_hands=2))
    position = Position(play, 6, remove(shoe(6), 8, 8, 6))
    bust = position.odds[5]
    assert position.stand(16, False) == pytest.approx(2 * bust - 1, abs=1e-15)
    assert position.stand(12, False) == position.stand(16, False)
    one_card = sum(position.q[i] * position.stand(11 + i + 1, i == 0) for i in range(10))
    assert position.double(11, False) == pytest.approx(2 * one_card, abs=1e-15)
    hands = sum(position.q[c - 1] * position._after_split(8, c, None) for c in range(1, 11))
    assert position.split(8) == pytest.approx(2 * hands, abs=1e-15)
    assert position.surrender_value == -0.5  # no peek at a 6: nothing to condition
    ten = Position(play, 10, remove(shoe(6), 8, 8, 10))  # late: after the peek at a ten
    assert ten.surrender_value == pytest.approx(
        -ten.p_natural - 0.5 * (1 - ten.p_natural), abs=1e-15
    )


def test_resplitting_is_worth_something_for_eights() -> None:
    """Splitting 8s against a 6 is worth more when resplits to four hands are allowed."""
    comp = remove(shoe(6), 8, 8, 6)
    once = Position(PlayRules.of(RuleSet(name="a", decks=6, max_split_hands=2)), 6, comp).split(8)
    four = Position(PlayRules.of(RuleSet(name="b", decks=6, max_split_hands=4)), 6, comp).split(8)
    assert four > once


@settings(max_examples=30, deadline=None)
@given(
    st.sampled_from(sorted(PRESETS)),
    st.integers(1, 10),
    st.lists(st.integers(0, 12), min_size=10, max_size=10),
    st.lists(st.tuples(st.integers(2, 21), st.booleans(), st.booleans()), min_size=1, max_size=12),
)
def test_a_positions_hit_and_stand_rows_are_the_same_floats_whatever_totals_are_asked_first(
    name: str, up: int, counts: list[int], asks: list[tuple[int, bool, bool]]
) -> None:
    """The rows are worked out only down to the lowest total asked so far: asked in any
    order, each value is the float the whole table (worked out to 2 at once) gives."""
    assume(sum(counts) > 0)
    rules = PlayRules.of(PRESETS[name])
    comp = tuple(counts)
    whole = Position(rules, up, comp)
    whole._hit_stand(None, 2)
    lazy = Position(rules, up, comp)
    for hard, ace, hitting in asks:
        if hitting:
            assert lazy.hit(hard, ace) == whole.hit(hard, ace)
        else:
            assert lazy.play_on(hard, ace) == whole.play_on(hard, ace)
    lowest = min(hard for hard, _, _ in asks)
    for lazy_row, whole_row in zip(lazy._hs[0][:4], whole._hs[0][:4], strict=True):
        assert lazy_row[lowest:22] == whole_row[lowest:22]
