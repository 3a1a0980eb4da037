"""The house edge of a rule set, exact: played by its chart, and by composition-dependent
play (CDZ-); and the variance of a round played by the chart.

Combinatorial analysis from the full shoe (:mod:`.cdz`): every first deal (the player's two
cards and the dealer's up card, drawn without replacement, :mod:`.deals`) is weighted by
its exact probability and valued from the exact remaining composition at every decision -
the shoe less the up card and every card of the hand, the player's own hit cards included;
split hands exactly (:mod:`.split_hands`, :mod:`.splits`). Insurance and even money are
never taken.

* ``house_edge``: minus the player's expected result per unit of initial stake when the
  rule set's chart (:mod:`.strategy`) is played at every decision - the figure theoretical
  win is computed from;
* ``cd_house_edge``: the same for CDZ- play, each decision the best for the hand's own
  cards (a split hand's decided at the split). Optimal play can only do better than the
  chart, so it is never above ``house_edge``;
* ``variance`` and ``sd``: of the net result of one round per unit of initial stake, by
  the chart (:mod:`.variance` says what is exact);
* the parts: the chart's first decisions (natural, stand, hit, double, split, surrender),
  their probability and what they bring the player.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from functools import lru_cache

from ..rules import RuleSet
from . import dealer, dealer_removal, deals, hands, split_hands, strategy
from .cdz import NATURAL_DEAL, Game, deal_values

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
    house_edge: float  # the house's expected gain per unit of initial stake, the chart played
    cd_house_edge: float  # the same, CDZ- play
    variance: float  # of one round's net result per unit of initial stake, the chart played
    sd: float
    parts: dict[str, Part] = field(default_factory=dict)
    dealer_natural: float = 0.0  # probability of a dealer natural on a first deal

    def as_dict(self) -> dict[str, object]:
        return {
            "ruleset": self.rules,
            "decks": self.decks,
            "house_edge": self.house_edge,
            "cd_house_edge": self.cd_house_edge,
            "variance": self.variance,
            "sd": self.sd,
            "dealer_natural": self.dealer_natural,
            "parts": {
                name: {"probability": p.probability, "player_return": p.player_return}
                for name, p in self.parts.items()
            },
        }


@lru_cache(maxsize=32)
def house_edge(rules: RuleSet) -> HouseEdge:
    """The exact house edges of ``rules`` (its chart; CDZ-) and the chart's variance."""
    game = Game(rules)  # its chart computed on first need (from nothing: while the workers start)
    values = deal_values(game)
    game.release()
    probability = dict.fromkeys(PARTS, 0.0)
    returns = dict.fromkeys(PARTS, 0.0)
    chart = optimal = square = natural = 0.0
    for deal in values:
        part = "natural" if deal.chart_action == NATURAL_DEAL else deal.chart_action
        probability[part] += deal.probability
        returns[part] += deal.probability * deal.chart
        chart += deal.probability * deal.chart
        optimal += deal.probability * deal.optimal
        square += deal.probability * deal.chart_square
        natural += deal.probability * deal.dealer_natural
    variance = square - chart * chart
    return HouseEdge(
        rules=rules.name,
        decks=rules.decks,
        house_edge=-chart,
        cd_house_edge=-optimal,
        variance=variance,
        sd=math.sqrt(variance),
        parts={name: Part(probability[name], returns[name]) for name in PARTS},
        dealer_natural=natural,
    )


def clear_caches() -> None:
    """Forget every analysis this module's figures are made of (charts, dealer odds,
    the stand table, the split analyses, the house edges), as a process starting
    afresh would have them: for benchmarks and tests of the from-nothing path."""
    for cached in (
        dealer.dealer_odds,
        dealer._table,
        dealer._plan,
        deals.initial_deals,
        strategy.analyse,
        house_edge,
        dealer_removal.stand_table,
        dealer_removal.stand_rows,
        dealer_removal.layout,
        dealer_removal._final_probabilities,
        dealer_removal._finals_cached,
        hands.hands_of,
        split_hands.pair_removal,
        split_hands.members_of,
        split_hands.stand_functions,
    ):
        cached.cache_clear()
    split_hands._SHARED.clear()
