"""Basic strategy behind an interface.

The live game of seed 000 plays every hand "seguendo le regole della basic strategy"
(000:92). The strategy it plays is the one generated from the rule set by the
mathematics (``tables.engine.math.strategy.ComputedStrategy``): :func:`computed_strategy`
makes it once per rule set and process, and :class:`~.table_round.Round` uses it unless a
``strategy=`` is given. Anything with the :class:`Strategy` protocol's ``action`` can
stand in for it.

:class:`ChartStrategy` is the typed-in multi-deck stand-on-soft-17 chart (with and
without double after split) the engine played before the mathematics existed; it stays
as a fixture for tests that want a fixed, hand-checkable chart, and is no longer any
rule set's default.

Chart codes: ``H`` hit, ``S`` stand, ``D`` double or else hit, ``Ds`` double or else
stand, ``P`` split, ``R`` surrender or else hit.

>>> CHART.action(("TS", "6H"), "TD", frozenset({"hit", "stand"}), split_done=False)
'hit'
>>> CHART.action(("8S", "8H"), "TD", frozenset({"hit", "stand", "split"}), split_done=False)
'split'
>>> CHART.action(("AS", "7H"), "5D", frozenset({"hit", "stand"}), split_done=False)
'stand'
"""
from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from typing import Protocol

from .cards import VALUE
from .hands import total
from .rules import RuleSet

UP_COLUMNS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)  # dealer up card: 2..10, ace (value 1)


class Strategy(Protocol):
    """What a hand should do: one of ``legal`` (hit, stand, double, split, surrender)."""

    def action(
        self, cards: Sequence[str], up: str, legal: Collection[str], *, split_done: bool
    ) -> str: ...


def _rows(text: str) -> dict[int, tuple[str, ...]]:
    rows: dict[int, tuple[str, ...]] = {}
    for line in text.strip().splitlines():
        key, *codes = line.split()
        rows[int(key)] = tuple(codes)
    return rows


#         2  3  4  5  6  7  8  9  T  A
_HARD = _rows("""
 8 H  H  H  H  H  H  H  H  H  H
 9 H  D  D  D  D  H  H  H  H  H
10 D  D  D  D  D  D  D  D  H  H
11 D  D  D  D  D  D  D  D  D  H
12 H  H  S  S  S  H  H  H  H  H
13 S  S  S  S  S  H  H  H  H  H
14 S  S  S  S  S  H  H  H  H  H
15 S  S  S  S  S  H  H  H  R  H
16 S  S  S  S  S  H  H  R  R  R
17 S  S  S  S  S  S  S  S  S  S
""")
_SOFT = _rows("""
13 H  H  H  D  D  H  H  H  H  H
14 H  H  H  D  D  H  H  H  H  H
15 H  H  D  D  D  H  H  H  H  H
16 H  H  D  D  D  H  H  H  H  H
17 H  D  D  D  D  H  H  H  H  H
18 S  Ds Ds Ds Ds S  S  H  H  H
19 S  S  S  S  S  S  S  S  S  S
20 S  S  S  S  S  S  S  S  S  S
21 S  S  S  S  S  S  S  S  S  S
""")
# pair value (ace = 1) -> codes, where double after split is allowed ...
_PAIRS_DAS = _rows("""
 1 P  P  P  P  P  P  P  P  P  P
 2 P  P  P  P  P  P  H  H  H  H
 3 P  P  P  P  P  P  H  H  H  H
 4 H  H  H  P  P  H  H  H  H  H
 6 P  P  P  P  P  H  H  H  H  H
 7 P  P  P  P  P  P  H  H  H  H
 8 P  P  P  P  P  P  P  P  P  P
 9 P  P  P  P  P  S  P  P  S  S
""")
# ... and where it is not
_PAIRS = _rows("""
 1 P  P  P  P  P  P  P  P  P  P
 2 H  H  P  P  P  P  H  H  H  H
 3 H  H  P  P  P  P  H  H  H  H
 6 H  P  P  P  P  H  H  H  H  H
 7 P  P  P  P  P  P  H  H  H  H
 8 P  P  P  P  P  P  P  P  P  P
 9 P  P  P  P  P  S  P  P  S  S
""")

_PREFERENCES: Mapping[str, tuple[str, ...]] = {
    "H": ("hit",),
    "S": ("stand",),
    "D": ("double", "hit"),
    "Ds": ("double", "stand"),
    "R": ("surrender", "hit"),
}


class ChartStrategy:
    """The static chart. ``das`` picks the pair table for double after split."""

    def __init__(self, *, das: bool) -> None:
        self.pairs = _PAIRS_DAS if das else _PAIRS

    def code(self, cards: Sequence[str], up: str) -> str:
        column = UP_COLUMNS.index(VALUE[up])
        if len(cards) == 2 and VALUE[cards[0]] == VALUE[cards[1]] and VALUE[cards[0]] in self.pairs:
            code = self.pairs[VALUE[cards[0]]][column]
            if code == "P":
                return code
        best, soft = total(cards)
        if soft and best in _SOFT:
            return _SOFT[best][column]
        return _HARD[min(max(best, 8), 17)][column]

    def action(
        self, cards: Sequence[str], up: str, legal: Collection[str], *, split_done: bool
    ) -> str:
        code = self.code(cards, up)
        if code == "P":
            if "split" in legal:
                return "split"
            # a pair that may not split plays as its total
            best, soft = total(cards)
            code = (_SOFT[best] if soft and best in _SOFT else _HARD[min(max(best, 8), 17)])[
                UP_COLUMNS.index(VALUE[up])
            ]
        for choice in _PREFERENCES[code]:
            if choice in legal:
                return choice
        return "stand" if "stand" in legal else "hit"


CHART = ChartStrategy(das=True)
CHART_NO_DAS = ChartStrategy(das=False)


def chart_for(double_after_split: bool) -> ChartStrategy:
    return CHART if double_after_split else CHART_NO_DAS


_COMPUTED: dict[RuleSet, Strategy] = {}


def computed_strategy(rules: RuleSet) -> Strategy:
    """The basic strategy generated from ``rules`` (the live game's default), made once
    per rule set and process: the first call for a rule set computes its chart
    (0.2-0.6 s), later ones find it here.

    The mathematics imports the engine (cards, rules), so it is imported here only when
    first needed, never while the engine's modules are loading.
    """
    found = _COMPUTED.get(rules)
    if found is None:
        from .math.strategy import ComputedStrategy

        found = _COMPUTED[rules] = ComputedStrategy(rules)
    return found
