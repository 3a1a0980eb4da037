"""The insurance bet valued on its own: its house edge and variance per unit staked,
exact.

Insurance is offered when the dealer shows an ace and pays ``insurance_pays`` (2:1) when
the dealer's other card is ten-valued. The chart's house edge
(:func:`.house_edge.house_edge`) is of a hand played by the chart, which never insures,
per unit of initial stake; an insurance stake is a bet of its own, so the theoretical win
values it by its own edge, the full-shoe figure: with the ace out of ``d`` decks, the
chance of a ten is ``p = 16d / (52d - 1)`` (the players' cards are not known to it - a
counter's insurance against a rich shoe is worth more to them, which is what the
theoretical win cannot see). The player's result per unit is ``r`` with chance ``p`` and
``-1`` otherwise (``r`` the payout ratio), so

    edge = (1 - p) - r p,    variance = r^2 p + (1 - p) - (r p - (1 - p))^2.

Six decks at 2:1: p = 96/311, edge = 23/311 (7.40%), variance 599/311 - (23/311)^2
(1.9206); one deck: 1/17 (5.88%).

    >>> from tables.engine.presets import PRESETS
    >>> edge, variance = insurance_figures(PRESETS["hoyle"].with_overrides({"decks": 6}))
    >>> edge, round(float(variance), 4)
    (Fraction(23, 311), 1.9206)
"""

from __future__ import annotations

from fractions import Fraction

from ..rules import RuleSet


def insurance_figures(rules: RuleSet) -> tuple[Fraction, Fraction] | None:
    """(house edge, variance) of one unit of insurance under ``rules``, exact; None where
    the rules offer no insurance."""
    if not rules.insurance:
        return None
    decks = rules.decks
    p = Fraction(16 * decks, 52 * decks - 1)
    pays = Fraction(*rules.insurance_pays)
    mean = pays * p - (1 - p)  # the player's
    return -mean, pays * pays * p + (1 - p) - mean * mean
