"""The dealer's exact outcome probabilities.

For an up card and the composition of the cards the dealer draws from (the up card and
every card already seen removed), :func:`dealer_odds` gives the probabilities of the
dealer finishing on 17, 18, 19, 20, 21, busting, or holding a natural (an ace and a
ten-value card as the first two cards), under S17 or H17. They are exact: the dealer
draws without replacement from the composition.

Method. Under sampling without replacement every *ordering* of a multiset ``M`` of
drawn cards has the same probability, ``prod(fall(c_v, m_v)) / fall(n, |M|)`` with
``fall(x, k) = x (x - 1) ... (x - k + 1)``. So the dealer's draws are grouped once per
(up card, S17/H17) into the multisets that end the hand, each with its outcome and the
number of its orderings the dealer can actually draw (no ordering may stop early - the
count comes from a recursion over multisets, not from listing sequences). Evaluating a
composition is then a sum of products of small integers: exact (integers, divided once
per hand size), and fast enough for pure Python (about 1,800 multisets for a 2 up): the
multisets share their prefixes, each prefix's product is its parent's times one falling
factor, made level by level with ``map`` (:func:`_plan`), so the loop over multisets runs
in C.

When the dealer has peeked and has no natural, the odds are conditioned on it with
:func:`given_no_natural`: a natural ends the hand at two cards, so removing its mass and
renormalising is exact.

>>> odds = dealer_odds(6, (4 * 10**6,) * 9 + (16 * 10**6,), hits_soft_17=False)
>>> round(odds[BUST], 4)  # infinite deck, up card 6: busts 42.3% (Wizard of Odds)
0.4232
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from fractions import Fraction
from functools import cache, lru_cache
from operator import itemgetter, mul
from typing import NamedTuple

from .composition import Composition

# indices into an odds tuple
OUTCOMES = ("17", "18", "19", "20", "21", "bust", "natural")
BUST = 5
NATURAL = 6

Odds = tuple[float, ...]

_MAXM = 24  # highest multiplicity of one value in a dealer hand we tabulate


def _status(up: int, counts: Sequence[int], size: int, hits_soft_17: bool) -> int | None:
    """The outcome index of a finished dealer hand, or None if the dealer draws."""
    hard = up + sum((i + 1) * m for i, m in enumerate(counts))
    if hard > 21:
        return BUST
    ace = up == 1 or counts[0] > 0
    soft = ace and hard + 10 <= 21
    best = hard + 10 if soft else hard
    if size == 1 and best == 21:
        return NATURAL
    if best >= 18 or (best == 17 and not (soft and hits_soft_17)):
        return best - 17
    return None


Table = tuple[tuple[int, int, tuple[tuple[int, tuple[int, ...]], ...]], ...]


@cache
def _table(up: int, hits_soft_17: bool) -> Table:
    """Every finishing multiset for ``up``, grouped by (outcome, size):
    ``((outcome, size, ((orderings, flat factor indices), ...)), ...)``."""
    drawing: dict[Composition, int] = {(0,) * 10: 1}
    finished: dict[Composition, tuple[int, int]] = {}
    size = 0
    while drawing:
        size += 1
        nxt: dict[Composition, int] = {}
        for counts, orders in drawing.items():
            for i in range(10):
                grown = list(counts)
                grown[i] += 1
                key = tuple(grown)
                outcome = _status(up, grown, size, hits_soft_17)
                if outcome is None:
                    nxt[key] = nxt.get(key, 0) + orders
                else:
                    prior = finished.get(key, (outcome, 0))[1]
                    finished[key] = (outcome, prior + orders)
        drawing = nxt
    groups: dict[tuple[int, int], list[tuple[int, tuple[int, ...]]]] = {}
    for counts, (outcome, orders) in finished.items():
        index = tuple(i * _MAXM + m for i, m in enumerate(counts) if m)
        groups.setdefault((outcome, sum(counts)), []).append((orders, index))
    return tuple((o, k, tuple(entries)) for (o, k), entries in sorted(groups.items()))


class _Plan(NamedTuple):
    """:func:`_table` laid out for evaluation in C. Every multiset is a path of (value,
    multiplicity) steps, tens first; paths share their prefixes, and a prefix's product is
    its parent's times one falling factor, so each product is one multiplication, made
    level by level with ``map`` (``levels``: each level's parents and factors, gathered by
    one ``itemgetter`` call each). A multiset's term is its node's product times its
    orderings; a group's terms are gathered by its own getter (``groups``: outcome, size,
    the getter of its multisets' nodes, their orderings). The factors are read from one
    tuple of each value's falling factors in turn (``tops``: each value's highest
    multiplicity any multiset draws; a value's factors start where the one before ends)."""

    levels: tuple[
        tuple[
            Callable[[Sequence[int]], tuple[int, ...]], Callable[[Sequence[int]], tuple[int, ...]]
        ],
        ...,
    ]
    groups: tuple[tuple[int, int, Callable[[Sequence[int]], tuple[int, ...]], tuple[int, ...]], ...]
    tops: tuple[int, ...]
    size: int  # the most cards any multiset draws


def _getter(indices: Sequence[int]) -> Callable[[Sequence[int]], tuple[int, ...]]:
    """``seq -> tuple(seq[i] for i in indices)`` in one C call (``itemgetter`` of one
    index gives the item, not a tuple of it)."""
    if len(indices) == 1:
        only = indices[0]
        return lambda seq: (seq[only],)
    return itemgetter(*indices)


@cache
def _plan(up: int, hits_soft_17: bool) -> _Plan:
    table = _table(up, hits_soft_17)
    nodes: dict[tuple[int, ...], int] = {(): 0}  # path of factor indices -> node (0: the root, 1)
    highest = [0] * 10
    for _outcome, _size, entries in table:
        for _orders, index in entries:
            path = tuple(sorted(index, reverse=True))  # tens first: the fewest nodes
            for depth in range(1, len(path) + 1):
                if path[:depth] not in nodes:
                    nodes[path[:depth]] = -1  # numbered below, level by level
            for flat in index:
                i, m = divmod(flat, _MAXM)
                highest[i] = max(highest[i], m)
    # where each value's falling factors start in the tuple _factors makes
    starts = [sum(top + 1 for top in highest[:i]) for i in range(10)]

    def at(flat: int) -> int:
        i, m = divmod(flat, _MAXM)
        return starts[i] + m

    # number the nodes level by level: node k is the k-th product of the list of all
    levels = []
    number = 1
    depth = 1
    while True:
        level = [path for path in nodes if len(path) == depth]
        if not level:
            break
        parents, factors = [], []
        for path in level:
            nodes[path] = number
            number += 1
            parents.append(nodes[path[:-1]])
            factors.append(at(path[-1]))
        levels.append((_getter(parents), _getter(factors)))
        depth += 1
    groups = []
    for outcome, size, entries in table:
        leaves = [nodes[tuple(sorted(index, reverse=True))] for _orders, index in entries]
        groups.append((outcome, size, _getter(leaves), tuple(orders for orders, _index in entries)))
    return _Plan(
        tuple(levels), tuple(groups), tuple(highest), max((size for _, size, _ in table), default=0)
    )


@lru_cache(maxsize=4096)
def _fall_row(count: int, top: int) -> tuple[int, ...]:
    """``fall(count, m)`` for ``m`` from 0 to ``top``: one value's falling factors (a
    shoe's counts are few, so the rows are too)."""
    row = [1]
    value = 1
    for m in range(1, top + 1):
        value *= max(count - m + 1, 0)
        row.append(value)
    return tuple(row)


def _factors(comp: Composition, tops: Sequence[int]) -> tuple[int, ...]:
    """Every value's falling factors, one after another (:attr:`_Plan.tops`)."""
    out: tuple[int, ...] = ()
    for count, top in zip(comp, tops, strict=True):
        out += _fall_row(count, top)
    return out


def _sums(up: int, comp: Composition, hits_soft_17: bool) -> list[list[tuple[int, int]]]:
    """Per outcome, (numerator, size) pairs: P = numerator / fall(n, size)."""
    plan = _plan(up, hits_soft_17)
    factors = _factors(comp, plan.tops)
    # every prefix's product, in C: the same integers (exact) as multiplying each
    # multiset's factors one by one
    products = [1]
    for parents, factor in plan.levels:
        products.extend(map(mul, parents(products), factor(factors)))
    out: list[list[tuple[int, int]]] = [[] for _ in OUTCOMES]
    for outcome, size, leaves, orders in plan.groups:
        out[outcome].append((sum(map(mul, leaves(products), orders)), size))
    return out


def _check(up: int, comp: Composition) -> None:
    if not 1 <= up <= 10:
        raise ValueError("up card value must be 1 (ace) to 10")
    if len(comp) != 10 or min(comp) < 0:
        raise ValueError("a composition is ten non-negative counts")


@lru_cache(maxsize=65536)
def dealer_odds(up: int, comp: Composition, *, hits_soft_17: bool) -> Odds:
    """P(17), P(18), P(19), P(20), P(21), P(bust), P(natural) for up card value ``up``
    (ace = 1) drawing from ``comp`` (the up card already removed), before any peek."""
    _check(up, comp)
    n = sum(comp)
    falls = [1]
    for k in range(1, _plan(up, hits_soft_17).size + 1):
        falls.append(falls[-1] * max(n - k + 1, 0))
    odds = []
    for pairs in _sums(up, comp, hits_soft_17):
        odds.append(sum(num / falls[size] for num, size in pairs if num))
    return tuple(odds)


def dealer_odds_exact(up: int, comp: Composition, *, hits_soft_17: bool) -> tuple[Fraction, ...]:
    """:func:`dealer_odds` as exact fractions (slower; for tests and audits)."""
    _check(up, comp)
    n = sum(comp)
    falls = [1]
    for k in range(1, 40):
        falls.append(falls[-1] * max(n - k + 1, 0))
    return tuple(
        sum((Fraction(num, falls[size]) for num, size in pairs if num), Fraction(0))
        for pairs in _sums(up, comp, hits_soft_17)
    )


@lru_cache(maxsize=64)
def dealer_odds_infinite(up: int, *, hits_soft_17: bool) -> Odds:
    """The same for an infinite deck (each draw: 1/13 per value, 4/13 for a ten)."""
    q = [1 / 13] * 9 + [4 / 13]
    odds = [0.0] * len(OUTCOMES)
    for outcome, _size, entries in _table(up, hits_soft_17):
        for orders, index in entries:
            term = float(orders)
            for flat in index:
                i, m = divmod(flat, _MAXM)
                term *= q[i] ** m
            odds[outcome] += term
    return tuple(odds)


def given_no_natural(odds: Odds) -> Odds:
    """The odds once the dealer has peeked and has no natural."""
    rest = 1.0 - odds[NATURAL]
    if rest <= 0.0:
        raise ValueError("the dealer certainly has a natural")
    return tuple(p / rest for p in odds[:NATURAL]) + (0.0,)


def stand_value(probs: Sequence[float], total: int) -> float:
    """Standing on ``total`` (not a natural) against these odds, for one unit: a dealer
    natural counts as a loss (the caller settles what it costs)."""
    win = probs[BUST]
    lose = probs[NATURAL]
    for k in range(5):
        if 17 + k < total:
            win += probs[k]
        elif 17 + k > total:
            lose += probs[k]
    return win - lose


# :func:`stand_value` unrolled per total (16 or less: index 16), the same additions in
# the same order, so the same float: the exact analysis asks it some 200,000 times per
# rule set, and the loop costs four times the arithmetic
_STAND_BY_TOTAL: dict[int, Callable[[Sequence[float]], float]] = {
    16: lambda p: p[5] - (p[6] + p[0] + p[1] + p[2] + p[3] + p[4]),
    17: lambda p: p[5] - (p[6] + p[1] + p[2] + p[3] + p[4]),
    18: lambda p: (p[5] + p[0]) - (p[6] + p[2] + p[3] + p[4]),
    19: lambda p: (p[5] + p[0] + p[1]) - (p[6] + p[3] + p[4]),
    20: lambda p: (p[5] + p[0] + p[1] + p[2]) - (p[6] + p[4]),
    21: lambda p: (p[5] + p[0] + p[1] + p[2] + p[3]) - p[6],
}


def stand_function(total: int) -> Callable[[Sequence[float]], float]:
    """``probs -> stand_value(probs, total)`` for a total of 21 or less, bit for bit."""
    if total > 21:
        raise ValueError("a standing hand totals 21 or less")
    return _STAND_BY_TOTAL[max(total, 16)]


def push_probability(probs: Sequence[float], total: int) -> float:
    return probs[total - 17] if 17 <= total <= 21 else 0.0
