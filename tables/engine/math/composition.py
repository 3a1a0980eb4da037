"""A shoe as counts per card value.

A *composition* is a tuple of ten counts: index 0 holds the aces, index ``v - 1`` the
cards of value ``v`` (2-9), index 9 every ten-value card (T, J, Q, K). Suits and, except
for splitting by rank, ranks never matter to the odds.

>>> shoe(1)
(4, 4, 4, 4, 4, 4, 4, 4, 4, 16)
>>> remove(shoe(1), 1, 10, 10)
(3, 4, 4, 4, 4, 4, 4, 4, 4, 14)
>>> of_cards(["AS", "KD", "TC", "5H"])
(1, 0, 0, 0, 1, 0, 0, 0, 0, 2)
"""

from __future__ import annotations

from collections.abc import Iterable

from ..cards import VALUE

Composition = tuple[int, ...]

VALUES = tuple(range(1, 11))  # ace (1), 2 .. 9, ten-value (10)


def shoe(decks: int) -> Composition:
    """A full shoe of ``decks`` decks."""
    return (4 * decks,) * 9 + (16 * decks,)


def remove(comp: Composition, *values: int) -> Composition:
    """``comp`` without one card of each of ``values``; ValueError if one is missing."""
    counts = list(comp)
    for value in values:
        counts[value - 1] -= 1
        if counts[value - 1] < 0:
            raise ValueError(f"no card of value {value} left to remove")
    return tuple(counts)


def of_cards(cards: Iterable[str]) -> Composition:
    """The composition of some engine cards (``"AS"``, ``"TD"``, ...)."""
    counts = [0] * 10
    for card in cards:
        counts[VALUE[card] - 1] += 1
    return tuple(counts)


def minus(comp: Composition, other: Composition) -> Composition:
    """``comp`` less every card of ``other``; ValueError if that goes negative."""
    out = tuple(a - b for a, b in zip(comp, other, strict=True))
    if min(out) < 0:
        raise ValueError("more cards removed than the shoe holds")
    return out


def remaining(decks: int, seen: Iterable[str]) -> Composition:
    """What is left of a fresh ``decks``-deck shoe once ``seen`` cards are out."""
    return minus(shoe(decks), of_cards(seen))
