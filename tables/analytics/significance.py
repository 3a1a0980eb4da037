"""Spearman's rank correlation and a one-sided permutation test of it, in pure Python.

Bets take few distinct values (a steady player's two), so ranks are full of ties: the
permutation test is exact about that where the usual normal or t approximations are not.
The test is sequential (Besag and Clifford, 1991): it stops once ``stop_after``
permutations have reached the observed statistic (the p-value is then plainly large)
and otherwise runs ``permutations`` of them, so a player who does not count costs a few
dozen shuffles and one who does the full run. The shuffles come from a generator seeded
by the caller: the same data give the same p-value every time.
"""

from __future__ import annotations

import math
import random
from collections.abc import Sequence
from dataclasses import dataclass


def ranks(values: Sequence[float]) -> list[float]:
    """Ranks 1..n, ties given the mean of the ranks they span.

    >>> ranks([10, 20, 10, 30])
    [1.5, 3.0, 1.5, 4.0]
    """
    order = sorted(range(len(values)), key=values.__getitem__)
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        mean = (i + j) / 2 + 1
        for k in range(i, j + 1):
            out[order[k]] = mean
        i = j + 1
    return out


@dataclass(frozen=True)
class Correlation:
    rho: float | None  # None: one of the two never varies
    p_value: (
        float | None
    )  # one-sided: the chance of a rho this high if bet and count were unrelated
    permutations: int


def spearman(
    x: Sequence[float],
    y: Sequence[float],
    *,
    seed: str,
    permutations: int = 4999,
    stop_after: int = 20,
) -> Correlation:
    """Spearman's rho of ``x`` and ``y`` and its one-sided permutation p-value.

    >>> c = spearman([1, 2, 3, 4, 5, 6, 7, 8], [1, 1, 1, 2, 2, 3, 4, 6], seed="doc")
    >>> round(c.rho, 3), c.p_value < 0.01
    (0.978, True)
    """
    n = len(x)
    if n != len(y):
        raise ValueError("x and y differ in length")
    if n < 3:
        return Correlation(None, None, 0)
    rx, ry = ranks(x), ranks(y)
    mx, my = sum(rx) / n, sum(ry) / n
    cx = [v - mx for v in rx]
    cy = [v - my for v in ry]
    sx = math.sqrt(sum(v * v for v in cx))
    sy = math.sqrt(sum(v * v for v in cy))
    if sx == 0 or sy == 0:
        return Correlation(None, None, 0)
    observed = sum(a * b for a, b in zip(cx, cy, strict=True))
    # a permuted statistic within rounding of the observed one counts as reaching it
    reach = observed - 1e-9 * sx * sy
    rng = random.Random(seed)
    shuffled = list(cy)
    hits = 0
    done = 0
    while done < permutations:
        rng.shuffle(shuffled)
        done += 1
        if sum(a * b for a, b in zip(cx, shuffled, strict=True)) >= reach:
            hits += 1
            if hits >= stop_after:
                return Correlation(observed / (sx * sy), hits / done, done)
    return Correlation(observed / (sx * sy), (hits + 1) / (done + 1), done)
