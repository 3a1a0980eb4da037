"""Every hand a player can hold: the card-value multisets of hard total 21 or less.

The exact analysis (:mod:`.cdz`) values a hand by its *composition* - which cards it
holds, not the order they came in - so the hands form a lattice: a hand and the ten hands
one card larger. A single deck holds 2,008 hands of two or more cards, a shoe of two or
more decks 3,072 (no value is then exhausted by one hand).

A hand is also a *key*, an integer packing its ten counts five bits each (aces in the
lowest bits), so a card is added by adding ``CARD[value]``; a dict keyed by it is the
fastest exact-composition memo pure Python offers.

>>> lattice = hands_of(1)
>>> sum(1 for size in lattice.size if size >= 2)
2008
>>> h = lattice.index[key_of((0, 0, 0, 0, 0, 0, 0, 1, 0, 1))]  # 8 and a ten
>>> lattice.hard[h], lattice.soft[h], lattice.size[h]
(18, False, 2)
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache

from .composition import Composition, shoe

BITS = 5
MASK = (1 << BITS) - 1
CARD = (0,) + tuple(1 << (BITS * (value - 1)) for value in range(1, 11))  # CARD[value]


def key_of(counts: Sequence[int]) -> int:
    """The key of a hand (or any multiset of at most 31 cards of each value)."""
    key = 0
    for i, count in enumerate(counts):
        key |= count << (BITS * i)
    return key


def counts_of(key: int) -> Composition:
    return tuple((key >> (BITS * i)) & MASK for i in range(10))


def count_in(key: int, value: int) -> int:
    """How many cards of ``value`` the multiset ``key`` holds."""
    return (key >> (BITS * (value - 1))) & MASK


def best_total(hard: int, has_ace: bool) -> tuple[int, bool]:
    """(best total, soft?) of a hand of hard total ``hard``."""
    if has_ace and hard + 10 <= 21:
        return hard + 10, True
    return hard, False


@dataclass(frozen=True, slots=True)
class Lattice:
    """The hands of one to twenty-one cards a ``decks``-deck shoe can deal, in the order
    a depth-first walk adding cards of non-decreasing value meets them (every hand after
    the hand it extends), with their totals and the index of each one-card extension."""

    decks: int
    keys: tuple[int, ...]
    hard: tuple[int, ...]
    soft: tuple[bool, ...]  # an ace counts 11
    best: tuple[int, ...]
    has_ace: tuple[bool, ...]
    size: tuple[int, ...]
    child: tuple[tuple[int, ...], ...]  # child[h][value]: the hand plus that card, -1 if over 21
    index: dict[int, int]
    cards: tuple[Composition, ...]  # cards[h][value]: how many of that value (index 0 unused)

    def counts(self, h: int) -> Composition:
        return counts_of(self.keys[h])


@lru_cache(maxsize=16)
def hands_of(decks: int) -> Lattice:
    full = shoe(decks)
    keys: list[int] = []
    hard: list[int] = []

    def walk(key: int, total: int, start: int) -> None:
        for value in range(start, 11):
            if total + value > 21:
                break
            grown = key + CARD[value]
            if count_in(grown, value) > full[value - 1]:
                continue
            keys.append(grown)
            hard.append(total + value)
            walk(grown, total + value, value)

    walk(0, 0, 1)
    index = {key: h for h, key in enumerate(keys)}
    has_ace = tuple(count_in(key, 1) > 0 for key in keys)
    totals = [best_total(total, ace) for total, ace in zip(hard, has_ace, strict=True)]
    child = tuple(
        tuple([-1] + [index.get(key + CARD[value], -1) for value in range(1, 11)]) for key in keys
    )
    return Lattice(
        decks=decks,
        keys=tuple(keys),
        hard=tuple(hard),
        soft=tuple(soft for _best, soft in totals),
        best=tuple(best for best, _soft in totals),
        has_ace=has_ace,
        size=tuple(sum(counts_of(key)) for key in keys),
        child=child,
        index=index,
        cards=tuple((0, *counts_of(key)) for key in keys),
    )
