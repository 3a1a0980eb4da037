"""The basic-strategy chart of a rule set, generated from the rules, and
:class:`ComputedStrategy`, which plays it for the engine.

Method. Every first deal (two player cards against an up card, from the full shoe with
exact removal) is valued by :mod:`.ev` for each legal action, playing on optimally. A
chart cell is the action of highest probability-weighted value over the two-card hands
of that row: hard and soft totals from the hands that are not pairs, pairs from the pair
alone. Rows no two-card hand reaches (hard 21, soft 21) are valued from the shoe less the
up card. The result is a *total-dependent* basic strategy, like the published charts.

Codes, as in the usual charts:

====  ================================================================
H     hit
S     stand
D     double, else hit
Ds    double, else stand
P     split
Rh    surrender, else hit
Rs    surrender, else stand
Rp    surrender, else split
====  ================================================================

The chart is for one rule set, so a code never hedges on a rule (no "Ph: split if double
after split is allowed"): it is P or H as the rule set's ``double_after_split`` decides.
Live-game rules (seed 000: below 11 must draw, 17 or more stands) are part of the
rules, so they shape the chart too.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from audit.record.events.fields import HandAction

from ..cards import VALUE
from ..presets import PRESETS
from ..rules import RuleSet
from .composition import remove, shoe
from .deals import initial_deals
from .ev import DOUBLE, HIT, SPLIT, STAND, SURRENDER, Position, best
from .hands import best_total
from .preset_charts import PRESET_CHARTS
from .rulesview import PlayRules

UPS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)  # chart columns: 2..10, then the ace
HARD_ROWS = tuple(range(4, 22))
SOFT_ROWS = tuple(range(12, 22))
PAIR_ROWS = (2, 3, 4, 5, 6, 7, 8, 9, 10, 1)

_PREFERENCES: Mapping[str, tuple[HandAction, ...]] = {
    "H": (HIT, STAND),
    "S": (STAND, HIT),
    "D": (DOUBLE, HIT, STAND),
    "Ds": (DOUBLE, STAND, HIT),
    "P": (SPLIT,),
    "Rh": (SURRENDER, HIT, STAND),
    "Rs": (SURRENDER, STAND, HIT),
    "Rp": (SURRENDER, SPLIT),
}
CODES = tuple(_PREFERENCES)

Row = tuple[str, ...]


def _column(up: int) -> int:
    return UPS.index(up)


def code_of(values: Mapping[str, float]) -> str:
    """The chart code for one cell's action values."""
    top = best(dict(values))
    if top == DOUBLE:
        return "D" if values.get(HIT, -9.0) >= values.get(STAND, -9.0) else "Ds"
    if top == SURRENDER:
        rest = {a: v for a, v in values.items() if a in (HIT, STAND, SPLIT)}
        if not rest:
            return "Rs"
        return {HIT: "Rh", STAND: "Rs", SPLIT: "Rp"}[best(rest)]
    return {STAND: "S", HIT: "H", SPLIT: "P"}[top]


@dataclass(frozen=True)
class Chart:
    """A basic-strategy chart: rows of codes, one per up card in :data:`UPS` order."""

    name: str
    hard: Mapping[int, Row]
    soft: Mapping[int, Row]
    pairs: Mapping[int, Row]

    def code(self, up: int, hard: int, soft: bool, pair: int = 0) -> str:
        """The cell for a hand: its pair row for a two-card pair, else its total row."""
        column = _column(up)
        if pair:
            return self.pairs[pair][column]
        best_value, is_soft = best_total(hard, soft)
        if is_soft:
            return self.soft[best_value][column]
        return self.hard[min(max(best_value, HARD_ROWS[0]), HARD_ROWS[-1])][column]

    def decide(
        self, up: int, hard: int, soft: bool, pair: int, legal: frozenset[str]
    ) -> HandAction:
        """One of ``legal`` (ev.Policy). ``soft``: the hand holds an ace."""
        if pair:
            code = self.code(up, hard, soft, pair)
            if code in ("P", "Rp"):
                if code == "Rp" and SURRENDER in legal:
                    return SURRENDER
                if SPLIT in legal:
                    return SPLIT
            else:
                choice = _first(code, legal)
                if choice is not None:
                    return choice
        choice = _first(self.code(up, hard, soft), legal)
        if choice is not None:
            return choice
        fallbacks: tuple[HandAction, ...] = (STAND, HIT, DOUBLE, SPLIT, SURRENDER)
        for fallback in fallbacks:
            if fallback in legal:
                return fallback
        raise ValueError("no legal action")

    def rows(self) -> list[tuple[str, Row]]:
        out = [(f"{t}", self.hard[t]) for t in HARD_ROWS]
        out += [(f"soft {t}", self.soft[t]) for t in SOFT_ROWS]
        out += [(f"{_label(v)},{_label(v)}", self.pairs[v]) for v in PAIR_ROWS]
        return out

    def as_dict(self) -> dict[str, dict[str, list[str]]]:
        return {
            "columns": [_label(u) for u in UPS],  # type: ignore[dict-item]
            "hard": {str(t): list(r) for t, r in self.hard.items()},
            "soft": {str(t): list(r) for t, r in self.soft.items()},
            "pairs": {_label(v): list(r) for v, r in self.pairs.items()},
        }

    def format(self) -> str:
        """The chart as text: hard totals, soft totals, pairs; columns 2..A."""
        head = "         " + " ".join(f"{_label(u):>3}" for u in UPS)
        lines = [f"Basic strategy for {self.name}", ""]
        sections = (
            ("Hard", [(str(t), self.hard[t]) for t in HARD_ROWS]),
            ("Soft", [(_soft_label(t), self.soft[t]) for t in SOFT_ROWS]),
            ("Pairs", [(f"{_label(v)},{_label(v)}", self.pairs[v]) for v in PAIR_ROWS]),
        )
        for title, rows in sections:
            lines.append(title)
            lines.append(head)
            for label, row in rows:
                lines.append(f"{label:>8} " + " ".join(f"{c:>3}" for c in row))
            lines.append("")
        lines.append("H hit, S stand, D double else hit, Ds double else stand, P split,")
        lines.append("Rh/Rs/Rp surrender else hit/stand/split")
        return "\n".join(lines)


def _soft_label(total: int) -> str:
    """Soft 13 is "13 A,2"; soft 12 (A,A not split) and soft 21 have no such pair."""
    return f"{total} A,{total - 11}" if 13 <= total <= 20 else str(total)


def _label(value: int) -> str:
    return {1: "A", 10: "T"}.get(value, str(value))


def _first(code: str, legal: Collection[str]) -> HandAction | None:
    for choice in _PREFERENCES[code]:
        if choice in legal:
            return choice
    return None


@dataclass(frozen=True)
class Analysis:
    """The chart and, from the same pass, the player's return when every first deal
    is played by its own best action (a two-card composition-dependent strategy)."""

    chart: Chart
    optimal_return: float


@lru_cache(maxsize=32)
def analyse(rules: RuleSet) -> Analysis:
    play = PlayRules.of(rules)
    Acc = dict[str, float]
    total_rows: dict[tuple[bool, int, int], Acc] = {}  # (soft, total, up)
    pair_total_rows: dict[tuple[bool, int, int], Acc] = {}
    pair_rows: dict[tuple[int, int], Acc] = {}
    optimal = 0.0
    for deal in initial_deals(rules.decks):
        position = Position(play, deal.up, deal.comp)
        if deal.natural:
            optimal += deal.probability * position.natural_value()
            continue
        hard = deal.first + deal.second
        ace = deal.first == 1
        best_value, soft = best_total(hard, ace)
        values = position.values(hard, ace, 2, deal.pair)
        optimal += deal.probability * max(values.values())
        if deal.pair:
            _add(pair_rows, (deal.pair, deal.up), values, deal.probability)
            no_split = {a: v for a, v in values.items() if a != SPLIT}
            _add(pair_total_rows, (soft, best_value, deal.up), no_split, deal.probability)
        else:
            _add(total_rows, (soft, best_value, deal.up), values, deal.probability)
    hard_rows: dict[int, Row] = {}
    soft_rows: dict[int, Row] = {}
    for is_soft, totals, target in ((False, HARD_ROWS, hard_rows), (True, SOFT_ROWS, soft_rows)):
        for total in totals:
            row = []
            for up in UPS:
                key = (is_soft, total, up)
                acc = (
                    total_rows.get(key)
                    or pair_total_rows.get(key)
                    or _fallback(play, up, total, is_soft)
                )
                row.append(code_of(acc))
            target[total] = tuple(row)
    pairs = {v: tuple(code_of(pair_rows[(v, up)]) for up in UPS) for v in PAIR_ROWS}
    chart = Chart(rules.name, hard_rows, soft_rows, pairs)
    return Analysis(chart, optimal)


def _add(
    table: dict[tuple[bool, int, int], dict[str, float]] | dict[tuple[int, int], dict[str, float]],
    key: tuple[bool, int, int] | tuple[int, int],
    values: Mapping[str, float],
    weight: float,
) -> None:
    acc = table.setdefault(key, {})  # type: ignore[arg-type]
    for action, value in values.items():
        acc[action] = acc.get(action, 0.0) + weight * value


def _fallback(play: PlayRules, up: int, total: int, is_soft: bool) -> dict[str, float]:
    """A row no two-card hand reaches: hit or stand, from the shoe less the up card."""
    position = Position(play, up, remove(shoe(play.decks), up))
    hard = total - 10 if is_soft else total
    return position.values(hard, is_soft, 3, 0)


@lru_cache(maxsize=32)
def chart_for(rules: RuleSet) -> Chart:
    """The rule set's basic-strategy chart: a preset's as stored (:mod:`.preset_charts`),
    any other rule set's analysed once per process. The analysis is a fifth of a second
    that every process valuing cash-out offers paid before its first (the offline
    auditor's workers, the replay); a test analyses every preset again and compares."""
    stored = PRESET_CHARTS.get(rules.name)
    if stored is not None and rules == PRESETS.get(rules.name):
        hard, soft, pairs = (
            dict(zip(keys, (tuple(row.split()) for row in rows), strict=True))
            for keys, rows in zip((HARD_ROWS, SOFT_ROWS, PAIR_ROWS), stored, strict=True)
        )
        return Chart(rules.name, hard, soft, pairs)
    return analyse(rules).chart


def preset_charts_source(charts: Mapping[str, Chart] | None = None) -> str:
    """The text of :mod:`.preset_charts` for ``charts`` (by preset); by default every
    preset analysed afresh."""
    if charts is None:
        charts = {name: analyse(rules).chart for name, rules in PRESETS.items()}
    lines = [
        '"""The presets\' basic-strategy charts, as :func:`tables.engine.math.strategy.analyse`',
        "gives them. Written by ``python -m tables.engine.math.figures``: do not edit; the tests",
        'analyse every preset again and compare."""',
        "",
        "# preset: (hard 4..21, soft 12..21, pairs 2,2..T,T then A,A), each row its codes",
        "# against the up cards 2..10 then the ace (strategy.CODES)",
        "PRESET_CHARTS: dict[str, tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = {",
    ]
    for name, chart in charts.items():
        lines.append(f'    "{name}": (')
        labelled = iter(chart.rows())  # hard, soft, pairs: the sections' order here
        for keys in (HARD_ROWS, SOFT_ROWS, PAIR_ROWS):
            lines.append("        (")
            for _ in keys:
                label, row = next(labelled)
                lines.append(f'            "{" ".join(row)}",  # {label}')
            lines.append("        ),")
        lines.append("    ),")
    lines.append("}")
    return "\n".join(lines) + "\n"


class ComputedStrategy:
    """The engine's ``Strategy`` (tables/engine/strategy.py) played from the chart
    generated for ``rules``.

    >>> from ..presets import PRESETS
    >>> s = ComputedStrategy(PRESETS["hoyle"])
    >>> s.action(("TS", "6H"), "TD", frozenset({"hit", "stand"}), split_done=False)
    'hit'
    """

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.chart = chart_for(rules)

    def code(self, cards: Sequence[str], up: str) -> str:
        hard, ace, pair = _hand(cards)
        return self.chart.code(VALUE[up], hard, ace, pair)

    def action(
        self, cards: Sequence[str], up: str, legal: Collection[str], *, split_done: bool
    ) -> HandAction:
        hard, ace, pair = _hand(cards)
        return self.chart.decide(VALUE[up], hard, ace, pair, frozenset(legal))

    # the name the brief uses
    def decide(
        self, hand_cards: Sequence[str], up_card: str, options: Collection[str]
    ) -> HandAction:
        return self.action(hand_cards, up_card, options, split_done=False)


def _hand(cards: Sequence[str]) -> tuple[int, bool, int]:
    values = [VALUE[c] for c in cards]
    pair = values[0] if len(values) == 2 and values[0] == values[1] else 0
    return sum(values), 1 in values, pair
