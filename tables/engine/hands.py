"""Totals of a hand: hard and soft, naturals, busts.

A hand is *soft* while one ace can count 11 without busting, *hard* otherwise
(the rules brief, "Common to every seed").

>>> total(("AH", "6C"))
(17, True)
>>> total(("AH", "2C", "TD", "5S"))
(18, False)
>>> total(("6S", "8H", "AD", "5C"))
(20, False)
>>> is_natural(("AS", "KD"), split=False), is_natural(("AS", "KD"), split=True)
(True, False)
"""

from __future__ import annotations

from collections.abc import Sequence

from .cards import VALUE


def total(cards: Sequence[str]) -> tuple[int, bool]:
    """(best total, soft?) of ``cards``."""
    hard = 0
    ace = False
    for card in cards:
        value = VALUE[card]
        hard += value
        if value == 1:
            ace = True
    if ace and hard <= 11:
        return hard + 10, True
    return hard, False


def hard_total(cards: Sequence[str]) -> int:
    return sum(VALUE[card] for card in cards)


def is_natural(cards: Sequence[str], *, split: bool) -> bool:
    """An ace and a ten-value card as the first two cards of an original hand
    (``split=True``: the hand came from a split, so it is 21, not a natural, unless the
    rule set says ``split_21_is_natural``)."""
    return not split and len(cards) == 2 and total(cards)[0] == 21


def is_bust(cards: Sequence[str]) -> bool:
    return hard_total(cards) > 21
