"""The house edge of a rule set played by its basic-strategy chart.

Combinatorial analysis from the full shoe: every first deal (the player's two cards and
the dealer's up card, drawn without replacement, :mod:`.deals`) is weighted by its exact
probability and valued by :mod:`.ev` with the cards of that deal removed, the player
playing the rule set's chart (:mod:`.strategy`) at every decision. Insurance and even
money are never taken. The house edge is minus the player's expected result per unit of
initial stake; it is split into parts by the first decision of the hand (naturals,
stands, hits, doubles, splits, surrenders).

Approximations (see :mod:`.ev`): the player's later cards and the split hands are drawn
from the composition after the first deal, the dealer's odds are exact for that
composition. Against published exact analyses this is within a few 0.01% for a six-deck
shoe and within about 0.05% for a single deck (tests/engine/math/test_house_edge.py).

Alongside the chart's figure, :attr:`HouseEdge.optimal_house_edge` is the edge against a
player who plays each first deal by its own best action (a two-card composition-
dependent strategy), which is what exact per-hand tables such as the Wizard of Odds'
appendix 9 sum to.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

from ..rules import RuleSet
from .deals import initial_deals
from .ev import Position
from .rulesview import PlayRules
from .strategy import Chart, analyse

PARTS = ("natural", "stand", "hit", "double", "split", "surrender")


@dataclass(frozen=True)
class Part:
    """The hands whose first decision was one action: how often, and what they bring
    the player per unit of initial stake (summed over every deal)."""

    probability: float
    player_return: float


@dataclass(frozen=True)
class HouseEdge:
    rules: str
    decks: int
    house_edge: float  # the house's expected gain per unit of initial stake
    parts: dict[str, Part] = field(default_factory=dict)
    optimal_house_edge: float = 0.0
    dealer_natural: float = 0.0  # probability of a dealer natural on a first deal

    def as_dict(self) -> dict[str, object]:
        return {
            "ruleset": self.rules,
            "decks": self.decks,
            "house_edge": self.house_edge,
            "optimal_house_edge": self.optimal_house_edge,
            "dealer_natural": self.dealer_natural,
            "parts": {
                name: {"probability": p.probability, "player_return": p.player_return}
                for name, p in self.parts.items()
            },
        }


@lru_cache(maxsize=32)
def house_edge(rules: RuleSet) -> HouseEdge:
    """The house edge of ``rules`` played by ``chart_for(rules)``."""
    analysis = analyse(rules)
    chart = analysis.chart
    play = PlayRules.of(rules)
    probability = dict.fromkeys(PARTS, 0.0)
    returns = dict.fromkeys(PARTS, 0.0)
    dealer_natural = 0.0
    # splitting by rank: a pair of ten-value cards is a pair only if both have one rank
    same_rank = (4 * rules.decks - 1) / (16 * rules.decks - 1)
    for deal in initial_deals(rules.decks):
        position = Position(play, deal.up, deal.comp)
        dealer_natural += deal.probability * position.p_natural
        if deal.natural:
            probability["natural"] += deal.probability
            returns["natural"] += deal.probability * position.natural_value()
            continue
        if play.split_by_rank and deal.pair == 10:
            outcomes = [(same_rank, 10), (1.0 - same_rank, 0)]
        else:
            outcomes = [(1.0, deal.pair)]
        for share, pair in outcomes:
            action, value = _play(position, chart, deal.first, deal.second, pair)
            probability[action] += share * deal.probability
            returns[action] += share * deal.probability * value
    player = sum(returns.values())
    parts = {name: Part(probability[name], returns[name]) for name in PARTS}
    return HouseEdge(
        rules=rules.name,
        decks=rules.decks,
        house_edge=-player,
        parts=parts,
        optimal_house_edge=-analysis.optimal_return,
        dealer_natural=dealer_natural,
    )


def _play(position: Position, chart: Chart, first: int, second: int, pair: int) -> tuple[str, float]:
    hard, ace = first + second, first == 1
    legal = position.legal(hard, ace, 2, pair, after_split=False)
    action = chart.decide(position.up, hard, ace, pair, legal)
    value = position.values(hard, ace, 2, pair, policy=chart, legal=frozenset({action}))[action]
    return action, value
