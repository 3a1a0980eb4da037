"""A shuffle's recorded order is checked to be whole decks (``cards.whole_decks``): one
deck by its set of cards, more by their counts - both the same answer as counting every
card (hypothesis: shuffled decks, with a card dropped, added or repeated, a text that is
no card in place of one or added, the decks declared wrong)."""

from __future__ import annotations

from collections import Counter

from hypothesis import given, settings
from hypothesis import strategies as st

from tables.engine.cards import VALUE, deck, whole_decks

CARDS = sorted(VALUE)


def _counted(order: list[str], decks: int) -> bool:
    return Counter(order) == Counter({card: decks for card in CARDS})


@st.composite
def orders(draw: st.DrawFn) -> tuple[list[str], int]:
    decks = draw(st.integers(1, 3))
    order = draw(st.permutations(list(deck() * decks)))
    change = draw(
        st.sampled_from(["none", "drop", "add", "repeat", "not_a_card", "foreign", "declared"])
    )
    if change == "drop":
        order.pop(draw(st.integers(0, len(order) - 1)))
    elif change == "add":
        order.insert(draw(st.integers(0, len(order))), draw(st.sampled_from(CARDS)))
    elif change == "repeat":  # one card in place of another: the length stays
        order[draw(st.integers(0, len(order) - 1))] = draw(st.sampled_from(CARDS))
    elif change == "not_a_card":  # in place of a card: the length stays
        order[0] = "XX"
    elif change == "foreign":
        order.append("1S")
    elif change == "declared":
        decks = draw(st.integers(1, 4))
    return order, decks


@settings(max_examples=300, deadline=None)
@given(orders())
def test_whole_decks_is_counting_every_card(case: tuple[list[str], int]) -> None:
    order, decks = case
    assert whole_decks(order, decks) is _counted(order, decks)
    assert whole_decks(tuple(order), decks) is _counted(order, decks)
    assert whole_decks(iter(order), decks) is _counted(order, decks)


def test_a_single_deck_with_a_repeat_in_place_of_a_card_is_not_whole() -> None:
    order = list(deck())
    order[5] = order[6]
    assert not whole_decks(order, 1)
    assert whole_decks(deck(), 1)
    assert not whole_decks(deck(), 2)
    assert not whole_decks([], 1)
