"""The variance of one round of a rule set played by its chart, per unit of initial stake:
what accounting needs to give theoretical win a standard deviation.

``round_variance(rules)`` is ``E[X^2] - E[X]^2`` for ``X`` the net result of a round on a
one-unit initial stake (doubles and splits add stakes; a natural pays ``natural_pays``;
insurance is never taken), every decision by the rule set's chart, every card drawn
without replacement from the full shoe (:mod:`.cdz`). It is a pure number, not money:
the variance of a round staked ``b`` minor units is ``b^2`` times it.

What is exact: the second moment of every hand that is not split - stand, hit, double
(``4 (1 - P(push))``, less ``3 P(natural)`` where a dealer natural costs the original stake
only), surrender, naturals - and, for a split, the sum of the hands' own second moments
(linear in one hand's play, combined like the values, :mod:`.splits`).

What is approximated: the covariance of two hands of one split. They are correlated
through the dealer's hand (a dealer bust pays both); that is kept exactly, as
``sum over the dealer's outcomes o of E[X 1{o}]^2 / P(o)`` for one hand, but the hands are
taken as independent given the dealer's outcome, which ignores that they draw from one
shoe. Against an exact enumeration of both hands of a split (tests/engine/math/
test_variance.py) this overstates a split round's second moment by about 0.01 (of about
4), so the variance of a round by about 3e-4 (0.02%) in a single-deck game, less with
more decks.
"""

from __future__ import annotations

import math

from ..rules import RuleSet
from .house_edge import house_edge


def round_variance(rules: RuleSet) -> float:
    """The variance of one round's net result per unit of initial stake (a pure number)."""
    return house_edge(rules).variance


def round_sd(rules: RuleSet) -> float:
    """Its standard deviation."""
    return math.sqrt(round_variance(rules))
