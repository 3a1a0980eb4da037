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
from dataclasses import dataclass

from .cards import VALUE, composition, deck
from .findings import Illegal


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
    def arranged(cls, id: str, cards: tuple[str, ...] | list[str], *, decks: int, seed: str | None = None) -> Shoe:
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

    __slots__ = ("burns", "cut_card", "decks", "id", "order", "pos", "remaining", "rounds")

    def __init__(self, id: str, decks: int, order: list[str] | tuple[str, ...] | None) -> None:
        self.id = id
        self.decks = decks
        self.order = tuple(order) if order is not None else None
        self.pos = 0
        self.remaining: Counter[str] | None = None if order is not None else composition(decks)
        self.cut_card: int | None = None
        self.burns = 0
        self.rounds = 0

    @property
    def size(self) -> int:
        return 52 * self.decks

    def draw(self, card: str | None) -> tuple[str | None, Illegal | None]:
        """Take the next card; return the card the shoe gave (the recorded order's, where
        known) and what was wrong with ``card``, if anything."""
        order = self.order
        if order is not None:
            pos = self.pos
            if pos >= len(order):
                return card, Illegal("impossible_card", f"{card} was dealt from an empty shoe.", recorded=card)
            self.pos = pos + 1
            expected = order[pos]
            if card is not None and card != expected:
                return expected, Illegal("card_out_of_sequence", f"{card} was recorded where the shoe's next card is {expected} (card {pos + 1} of shoe {self.id}).", expected=expected, recorded=card)
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
            return card, Illegal("impossible_card", f"{card} was dealt but shoe {self.id} of {self.decks} decks holds no more of it.", recorded=card)
        remaining[card] = left - 1
        return card, None
