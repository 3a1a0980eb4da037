"""How a split grows into hands (tables/engine/math/splits.py)."""

import pytest

from tables.engine.math.splits import _orders, combine, extra_pairs_needed, growth


@pytest.mark.parametrize(("hands", "catalan"), [(2, 1), (3, 2), (4, 5), (5, 14), (6, 42)])
def test_orders_of_an_exact_number_of_hands_are_catalan_numbers(hands: int, catalan: int) -> None:
    """A split ending with ``hands`` hands has ``hands - 2`` resplit cards and ``hands``
    completing cards in an order that keeps a hand waiting to the end: the Catalan number
    C(hands - 1) of such orders."""
    assert _orders(hands - 2, hands - 1) == catalan


@pytest.mark.parametrize(
    ("pairs", "cards", "limit"), [(2, 49, 4), (22, 309, 4), (22, 309, 8), (14, 205, 3), (1, 48, 4)]
)
def test_the_ways_a_split_ends_cover_every_case(pairs: int, cards: int, limit: int) -> None:
    """Ending with 2 .. limit - 1 hands or reaching the limit: probabilities summing to 1."""
    grow = growth(pairs, cards, limit)
    assert sum(grow.ends.values()) + sum(grow.full.values()) == pytest.approx(1.0, abs=1e-12)


def test_three_hands_at_most() -> None:
    """Up to three hands: two hands if the first two second cards are not pair cards (N N);
    three if a pair card comes first (P) or second (N P)."""
    pairs, cards = 3, 49
    grow = growth(pairs, cards, 3)
    others = cards - pairs
    assert grow.ends[2] == pytest.approx(others * (others - 1) / (cards * (cards - 1)), abs=1e-15)
    assert grow.full[0] == pytest.approx(pairs / cards, abs=1e-15)
    assert grow.full[1] == pytest.approx(others * pairs / (cards * (cards - 1)), abs=1e-15)
    assert grow.expected_hands() == pytest.approx(
        2 * grow.ends[2] + 3 * (grow.full[0] + grow.full[1]), abs=1e-15
    )


def test_a_quantity_that_does_not_depend_on_the_cards_is_counted_once_per_hand() -> None:
    """If every hand is worth the same whatever its cards, the split is worth that times the
    expected number of hands."""
    for limit in (2, 3, 4, 6):
        grow = growth(7, 101, limit)
        assert combine(lambda a: 0.25, lambda a: 0.25, 7, 101, limit) == pytest.approx(
            0.25 * grow.expected_hands(), abs=1e-12
        )


def test_no_resplits_is_twice_one_hand() -> None:
    """Split once: two hands, each any second card, no extra pair card out."""
    asked = []

    def x(a: int) -> float:
        asked.append(a)
        return 0.1

    assert combine(x, lambda a: 9.0, 5, 100, 2) == pytest.approx(0.2, abs=1e-15)
    assert asked == [0]
    assert (
        extra_pairs_needed(5, 2) == 0
        and extra_pairs_needed(5, 4) == 4
        and extra_pairs_needed(2, 4) == 2
    )
