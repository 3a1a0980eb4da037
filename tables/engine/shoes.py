"""Shoes: n decks in a known order (from a shuffle record) or known only by composition.

Randomness comes from outside: :meth:`Shoe.shuffled` takes the seed, and the seed and
the order it made are both part of the record (``shoe.shuffled``), so an auditor can
make the same shoe again. The commitment is SHA-256 of the order's cards joined by ",".

>>> shoe = Shoe.shuffled("S1", decks=1, seed="demo")
>>> len(shoe.order or ()), shoe.order == Shoe.shuffled("S1", decks=1, seed="demo").order
(52, True)
>>> cut(("2S", "3S", "4S", "5S"), 1)
('3S', '4S', '5S', '2S')
"""

from __future__ import annotations

import hashlib
import random
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from tables.engine.illegal import Illegal

from .cards import VALUE, composition, deck


def value_counts(cards: Iterable[str]) -> list[int]:
    """Ten counts by card value - aces first, ten-value cards last - the composition the
    mathematics (``tables.engine.math.composition``) works with.

    >>> value_counts(["AS", "KD", "TC", "5H"])
    [1, 0, 0, 0, 1, 0, 0, 0, 0, 2]
    """
    counts = [0] * 10
    value = VALUE
    for card in cards:
        counts[value[card] - 1] += 1
    return counts


def left_in(order: Sequence[str], pos: int) -> tuple[int, ...]:
    """The cards still in a shoe of known ``order`` once ``pos`` of them are out (dealt or
    burned), as ten counts by value: what a cash-out offer is computed from.

    >>> left_in(("AS", "KD", "TC", "5H"), 1)
    (0, 0, 0, 0, 1, 0, 0, 0, 0, 2)
    """
    return tuple(value_counts(order[pos:]))


class LeftCounter:
    """``left_in(order, pos)`` kept up to date as ``pos`` only moves forward: each call
    counts only the cards drawn since the last one (a replay or a dealer asks at every
    cash-out offer, and a shoe holds up to 624 cards)."""

    __slots__ = ("counted", "counts", "order")

    def __init__(self, order: Sequence[str]) -> None:
        self.order = order
        self.counts = value_counts(order)
        self.counted = 0

    def at(self, pos: int) -> tuple[int, ...]:
        counts = self.counts
        value = VALUE
        for card in self.order[self.counted : pos]:
            counts[value[card] - 1] -= 1
        self.counted = max(self.counted, pos)
        return tuple(counts)


def commitment(order: tuple[str, ...] | list[str]) -> str:
    return hashlib.sha256(",".join(order).encode("ascii")).hexdigest()


def cut(order: tuple[str, ...], position: int) -> tuple[str, ...]:
    """The order after a cut that moves ``position`` cards from the front to the back."""
    position %= len(order) or 1
    return order[position:] + order[:position]


@dataclass(frozen=True, slots=True)
class Shoe:
    id: str
    decks: int
    order: tuple[str, ...] | None
    seed: str | None = None

    @classmethod
    def shuffled(cls, id: str, *, decks: int, seed: str) -> Shoe:
        cards = list(deck() * decks)
        random.Random(seed).shuffle(cards)
        return cls(id, decks, tuple(cards), seed)

    @classmethod
    def arranged(
        cls, id: str, cards: tuple[str, ...] | list[str], *, decks: int, seed: str | None = None
    ) -> Shoe:
        """A shoe whose first cards are ``cards`` (tests fix the shoe this way); the rest
        of the decks follow in a fixed order so the composition stays whole."""
        rest = composition(decks)
        rest.subtract(Counter(cards))
        if any(n < 0 for n in rest.values()):
            raise ValueError("more copies of a card than the decks hold")
        tail = [card for card in deck() for _ in range(rest[card])]
        return cls(id, decks, tuple(cards) + tuple(tail), seed)


class ShoeTrack:
    """The shoe as replay follows it: where the recorded order is, or what is left."""

    __slots__ = (
        "burns",
        "burns_checked",
        "burns_flagged",
        "cut_card",
        "decks",
        "id",
        "left_counter",
        "order",
        "pos",
        "remaining",
        "rounds",
    )

    def __init__(self, id: str, decks: int, order: list[str] | tuple[str, ...] | None) -> None:
        self.id = id
        self.decks = decks
        self.order = tuple(order) if order is not None else None
        self.pos = 0
        self.remaining: Counter[str] | None = None if order is not None else composition(decks)
        self.cut_card: int | None = None
        self.burns = 0
        # the after-shuffle burns were counted; a finding on them was made (one a shoe)
        self.burns_checked = False
        self.burns_flagged = False
        self.rounds = 0
        self.left_counter: LeftCounter | None = None

    @property
    def size(self) -> int:
        return 52 * self.decks

    def left_by_value(self) -> tuple[int, ...]:
        """The cards still in the shoe as ten counts by value (see :func:`left_in`): with
        a recorded order, the cards from the current position on (counted incrementally);
        without one, every card the shoe can still hold.

        >>> track = ShoeTrack("S1", 1, None)
        >>> _ = track.draw("AS"), track.draw("KD")
        >>> track.left_by_value()
        (3, 4, 4, 4, 4, 4, 4, 4, 4, 15)
        """
        order = self.order
        if order is None:
            remaining = self.remaining
            assert remaining is not None
            counts = [0] * 10
            value = VALUE
            for card, count in remaining.items():
                counts[value[card] - 1] += count
            return tuple(counts)
        counter = self.left_counter
        if counter is None or counter.order is not order:  # first call, or a cut since
            counter = self.left_counter = LeftCounter(order)
        return counter.at(self.pos)

    def draw(self, card: str | None) -> tuple[str | None, Illegal | None]:
        """Take the next card; return the card the shoe gave (the recorded order's, where
        known) and what was wrong with ``card``, if anything."""
        order = self.order
        if order is not None:
            pos = self.pos
            if pos >= len(order):
                return card, Illegal(
                    "impossible_card", f"{card} was dealt from an empty shoe.", recorded=card
                )
            self.pos = pos + 1
            expected = order[pos]
            if card is not None and card != expected:
                return expected, Illegal(
                    "card_out_of_sequence",
                    f"{card} was recorded where the shoe's next card is {expected} (card {pos + 1} of shoe {self.id}).",
                    expected=expected,
                    recorded=card,
                )
            return expected, None
        self.pos += 1
        remaining = self.remaining
        assert remaining is not None
        if card is None:
            return None, None
        if card not in VALUE:
            return card, Illegal("impossible_card", f"{card!r} is not a card.", recorded=card)
        left = remaining[card]
        if left <= 0:
            return card, Illegal(
                "impossible_card",
                f"{card} was dealt but shoe {self.id} of {self.decks} decks holds no more of it.",
                recorded=card,
            )
        remaining[card] = left - 1
        return card, None
