"""Every first deal - the player's two cards and the dealer's up card - from a full
shoe, with its exact probability (cards drawn without replacement).

>>> deals = initial_deals(6)
>>> len(deals), round(sum(d.probability for d in deals), 12)
(550, 1.0)
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from .composition import Composition, remove, shoe


@dataclass(frozen=True, slots=True)
class Deal:
    up: int
    first: int  # first <= second: the player's two card values
    second: int
    probability: float
    comp: Composition  # the shoe without these three cards

    @property
    def natural(self) -> bool:
        return {self.first, self.second} == {1, 10}

    @property
    def pair(self) -> int:
        return self.first if self.first == self.second else 0


@lru_cache(maxsize=16)
def initial_deals(decks: int) -> tuple[Deal, ...]:
    full = shoe(decks)
    n = sum(full)
    out = []
    for up in range(1, 11):
        for a in range(1, 11):
            for b in range(a, 11):
                try:
                    comp = remove(full, a, b, up)
                except ValueError:
                    continue
                ways = (
                    full[a - 1] * (full[b - 1] - (a == b)) * (full[up - 1] - (up == a) - (up == b))
                )
                probability = ways * (1 if a == b else 2) / (n * (n - 1) * (n - 2))
                out.append(Deal(up, a, b, probability, comp))
    return tuple(out)
