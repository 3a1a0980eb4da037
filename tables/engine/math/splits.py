"""How a split pair grows into hands, and the exact value of all of them together.

After a pair of value ``p`` is split against an up card, each hand gets a second card in
turn; while fewer than ``limit`` hands exist a ``p`` starts a new hand instead (a resplit).
``pairs`` and ``cards`` count the pair cards and all cards left once the up card and the
two pair cards are out.

The value of the split is the expected sum over the hands. With a *fixed* strategy (each
hand played from its own cards and the up card only) every hand's value depends on the
others only through the pair cards they took and the fact that their second cards were
not pair cards: cards a hand never sees, drawn without condition, do not change its
expectation (a burned card does not), so the other hands' hit cards and the dealer's
position in the shoe do not matter. Following E. Farmer ("Exact pair splitting",
blackjack_split.pdf with his combinatorial analyzer, github.com/possibly-wrong/blackjack),
with ``a`` extra pair cards out and ``b`` random non-pair cards out:

* ``X[a]``: a hand whose second card may be anything (played, not resplit, if a pair);
  ``P[a]``: a hand whose second card is a pair card (the pair, played on);
* ``N(a, 0) = (X[a] - v P[a]) / (1 - v)``, ``v = (pairs - a) / (cards - a)``: second card
  not a pair card;
* one more random non-pair card out, from ``a`` pair and ``b - 1`` non-pair cards out:
  ``X(a, b) = (X(a, b-1) - w X(a+1, b-1)) / (1 - w)``, ``w = (pairs - a) / (cards - a - b + 1)``,
  and the same for ``N`` with ``w = (pairs - a) / (cards - a - b)`` (its own card is out too);
* a split ends with ``h < limit`` hands after ``h - 2`` resplits, every hand holding a
  non-pair second card: ``h N(h-2, h-1)``; or it reaches ``limit`` hands after ``k`` hands
  were completed: those ``k`` are ``N(limit-2, k-1)``, the ``limit - k`` others take any
  card, ``X(limit-2, k)``. The probability of each case counts the orders of resplit (P)
  and completing (N) cards that keep a hand waiting until the end, times the probability
  of drawing that many of each.

The same combination holds for any quantity linear in one hand's play (its expected
result, its second moment): :func:`combine` takes the per-hand values as arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache


@cache
def _orders(resplits: int, completed: int) -> int:
    """Orders of ``resplits`` P and ``completed`` N draws after which a hand is still
    waiting at every step (2 + P drawn - N drawn >= 1 throughout)."""
    if resplits < 0 or completed < 0 or 2 + resplits - completed < 1:
        return 0
    if resplits == completed == 0:
        return 1
    return _orders(resplits - 1, completed) + _orders(resplits, completed - 1)


def _draw(pairs: int, cards: int, p_count: int, n_count: int) -> float:
    """Probability that the first p_count + n_count cards hold exactly those counts in a
    given order."""
    others = cards - pairs
    if p_count > pairs or n_count > others:
        return 0.0
    prob = 1.0
    left = cards
    for i in range(p_count):
        prob *= (pairs - i) / left
        left -= 1
    for i in range(n_count):
        prob *= (others - i) / left
        left -= 1
    return prob


@dataclass(frozen=True, slots=True)
class Growth:
    """The ways a split ends: ``ends[h]`` the probability of exactly ``h < limit`` hands;
    ``full[k]`` the probability of reaching ``limit`` hands with ``k`` completed first."""

    limit: int
    ends: dict[int, float]
    full: dict[int, float]

    def expected_hands(self) -> float:
        return sum(h * p for h, p in self.ends.items()) + self.limit * sum(self.full.values())

    def expected_pairs_of_hands(self) -> float:
        """E[H (H - 1)]: ordered pairs of distinct hands."""
        return sum(h * (h - 1) * p for h, p in self.ends.items()) + self.limit * (
            self.limit - 1
        ) * sum(self.full.values())


def growth(pairs: int, cards: int, limit: int) -> Growth:
    """How a split grows when ``pairs`` of the ``cards`` left are pair cards."""
    if limit <= 2:
        return Growth(2, {}, {0: 1.0})
    ends = {}
    for h in range(2, limit):
        p = _orders(h - 2, h - 1) * _draw(pairs, cards, h - 2, h)
        if p > 0.0:
            ends[h] = p
    full = {}
    for k in range(limit - 1):
        p = _orders(limit - 3, k) * _draw(pairs, cards, limit - 2, k)
        if p > 0.0:
            full[k] = p
    return Growth(limit, ends, full)


def combine(
    x: Callable[[int], float], p: Callable[[int], float], pairs: int, cards: int, limit: int
) -> float:
    """The sum over all hands of a split of a per-hand quantity, given per extra pair
    cards out ``a``: ``x(a)`` for a hand with any second card, ``p(a)`` for a hand whose
    second card is a pair card. ``x`` and ``p`` are only called for ``a`` that can occur."""
    grow = growth(pairs, cards, limit)
    base_x: dict[int, float] = {}
    base_p: dict[int, float] = {}

    def bx(a: int) -> float:
        if a not in base_x:
            base_x[a] = x(a)
        return base_x[a]

    def bp(a: int) -> float:
        if a not in base_p:
            base_p[a] = p(a)
        return base_p[a]

    @cache
    def ev_x(a: int, b: int) -> float:
        if b == 0:
            return bx(a)
        w = (pairs - a) / (cards - a - b + 1)
        if w <= 0.0:
            return ev_x(a, b - 1)
        return (ev_x(a, b - 1) - w * ev_x(a + 1, b - 1)) / (1.0 - w)

    @cache
    def ev_n(a: int, b: int) -> float:
        if b == 0:
            v = (pairs - a) / (cards - a)
            if v <= 0.0:
                return bx(a)
            return (bx(a) - v * bp(a)) / (1.0 - v)
        w = (pairs - a) / (cards - a - b)
        if w <= 0.0:
            return ev_n(a, b - 1)
        return (ev_n(a, b - 1) - w * ev_n(a + 1, b - 1)) / (1.0 - w)

    if grow.limit == 2:
        return 2.0 * bx(0)
    total = 0.0
    for h, prob in grow.ends.items():
        total += prob * h * ev_n(h - 2, h - 1)
    top = grow.limit
    for k, prob in grow.full.items():
        if k > 0:
            total += prob * k * ev_n(top - 2, k - 1)
        total += prob * (top - k) * ev_x(top - 2, k)
    return total


def extra_pairs_needed(pairs: int, limit: int) -> int:
    """The most extra pair cards :func:`combine` may ask about."""
    return max(0, min(pairs, 2 * limit - 4))


def weights(values: Sequence[float]) -> Callable[[int], float]:
    """``values[a]`` as a function (for :func:`combine`)."""
    return values.__getitem__
