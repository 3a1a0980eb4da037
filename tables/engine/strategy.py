"""Basic strategy behind an interface.

The live game of seed 000 plays every hand "seguendo le regole della basic strategy"
(000:92). The strategy it plays is the one generated from the rule set by the
mathematics (``tables.engine.math.strategy.ComputedStrategy``): :func:`computed_strategy`
makes it once per rule set and process, and :class:`~.table_round.Round` uses it unless a
``strategy=`` is given. Anything with the :class:`Strategy` protocol's ``action`` can
stand in for it.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Protocol

from audit.record.events.fields import HandAction

from .rules import RuleSet


class Strategy(Protocol):
    """What a hand should do: one of ``legal`` (hit, stand, double, split, surrender)."""

    def action(
        self, cards: Sequence[str], up: str, legal: Collection[str], *, split_done: bool
    ) -> HandAction: ...


_COMPUTED: dict[RuleSet, Strategy] = {}


def computed_strategy(rules: RuleSet) -> Strategy:
    """The basic strategy generated from ``rules`` (the live game's default), made once
    per rule set and process: the first call for a rule set computes its chart (the
    exact analysis of every hand against every up card), later ones find it here.

    The mathematics imports the engine (cards, rules), so it is imported here only when
    first needed, never while the engine's modules are loading.
    """
    found = _COMPUTED.get(rules)
    if found is None:
        from .math.strategy import ComputedStrategy

        found = _COMPUTED[rules] = ComputedStrategy(rules)
    return found
