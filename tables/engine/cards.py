"""Cards and decks.

A card is two characters, rank then suit, as in the event catalogue
(``audit/events/fields.py``): ranks ``2``-``9``, ``T``, ``J``, ``Q``, ``K``, ``A``; suits
``S``, ``H``, ``D``, ``C``. Suits never matter to the game; ranks matter only where a rule
set splits by rank (seed 004).

>>> VALUE["KD"], VALUE["AS"], VALUE["7C"]
(10, 1, 7)
>>> len(deck())
52
>>> whole_decks(deck() * 2, 2), whole_decks(deck()[1:] + ("AS",), 1)
(True, False)
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

RANKS = "23456789TJQKA"
SUITS = "SHDC"
TEN_RANKS = frozenset("TJQK")


def _rank_value(rank: str) -> int:
    if rank == "A":
        return 1  # an ace counts 1 here; hands add 10 when that does not bust them
    if rank in TEN_RANKS:
        return 10
    return int(rank)


# every card's value, ace as 1: the one lookup the hot path does per card
VALUE: dict[str, int] = {rank + suit: _rank_value(rank) for rank in RANKS for suit in SUITS}

# Hi-Lo count tags by card: 2-6 count +1, 7-9 nothing, tens and aces -1 (the counter the
# simulator plants and the analytics' counter detection both count with these)
HI_LO_BY_VALUE: dict[int, int] = {1: -1, 2: 1, 3: 1, 4: 1, 5: 1, 6: 1, 7: 0, 8: 0, 9: 0, 10: -1}
HI_LO: dict[str, int] = {card: HI_LO_BY_VALUE[value] for card, value in VALUE.items()}


def deck() -> tuple[str, ...]:
    """One 52-card deck in a fixed order (rank-major)."""
    return tuple(rank + suit for rank in RANKS for suit in SUITS)


def composition(decks: int) -> Counter[str]:
    """How many of each card a fresh shoe of ``decks`` decks holds."""
    return Counter({card: decks for card in VALUE})


def whole_decks(order: Iterable[str], decks: int) -> bool:
    """Does ``order`` hold every card ``decks`` times, and nothing else? One deck: its 52
    cards are the deck's 52, each once - a set, in C (a single-deck game shuffles every
    few rounds, and a Counter's Python set-up would be most of a shuffle's replay). More decks:
    the counts compared as plain dicts, in C (a Counter's own ``==`` walks both in
    Python; its count is C's, faster than a compiled loop of a dict's look-ups)."""
    if decks == 1:
        cards = tuple(order)
        return len(cards) == 52 and _DECK == set(cards)
    return dict(Counter(order)) == dict.fromkeys(VALUE, decks)


_DECK = frozenset(VALUE)
