"""The variance of a round played by the chart (tables/engine/math/variance.py)."""

from __future__ import annotations

import math

import pytest

from tables.engine.math.cdz import Game
from tables.engine.math.composition import Composition, shoe
from tables.engine.math.dealer import dealer_odds
from tables.engine.math.ev import DOUBLE, STAND, legal_actions
from tables.engine.math.house_edge import house_edge
from tables.engine.math.split_hands import CHART
from tables.engine.math.strategy import chart_for
from tables.engine.math.variance import round_sd, round_variance
from tables.engine.rules import RuleSet

# Six decks, S17, resplit to four hands, peek, no double after split, no surrender, no
# resplit of aces: Stanford Wong's "benchmark rules" as Wizard of Odds appendix 4 names them.
BENCHMARK = RuleSet(
    name="wong-benchmark",
    decks=6,
    hole_card="peek",
    double_after_split=False,
    max_split_hands=4,
    surrender="none",
)


def test_variance_against_wizard_appendix_4() -> None:
    """Wizard of Odds, blackjack appendix 4, "Variance in blackjack" (wizardofodds.com/games/
    blackjack/appendix/4/, Summary Table; basic strategy, a cut-card game, ten billion hands
    simulated per row): six decks S17 without DAS, surrender or resplitting aces, 1.295
    (Stanford Wong, Professional Blackjack p. 203: 1.28); with all three, 1.303. The exact
    figures for the chart from a full shoe are within 0.01 of the simulated ones (the cut
    card and the simulation's own strategy account for the rest), and their standard
    deviation is the familiar 1.14."""
    variance = round_variance(BENCHMARK)
    assert variance == pytest.approx(1.295, abs=0.01)
    assert 1.28 - 0.01 < variance
    generous = RuleSet(
        name="s17-das-ls-rsa",
        decks=6,
        hole_card="peek",
        double_after_split=True,
        max_split_hands=4,
        surrender="late",
        resplit_aces=True,
    )
    assert round_variance(generous) == pytest.approx(1.303, abs=0.01)
    assert round_sd(generous) == pytest.approx(math.sqrt(1.303), abs=0.005)


def test_variance_is_the_second_moment_less_the_squared_mean() -> None:
    """round_variance is house_edge's variance, E[X^2] - E[X]^2 of the chart's round, a
    plain number between 1 (a coin flip) and 2."""
    result = house_edge(BENCHMARK)
    assert round_variance(BENCHMARK) == result.variance
    assert result.sd == pytest.approx(math.sqrt(result.variance), abs=1e-15)
    assert 1.0 < result.variance < 2.0


# -- the covariance of two split hands against an enumeration of both ---------------------

State = tuple[Composition, int, bool]  # cards of the hand, stake, busted


def _finals(game: Game, up: int, pair: int, comp: Composition) -> dict[State, float]:
    """Every way a split hand of ``pair`` played by the chart can end, drawing from ``comp``
    (its own pair card already out), with its probability."""
    out: dict[State, float] = {}

    def add(state: State, p: float) -> None:
        out[state] = out.get(state, 0.0) + p

    def play(hand: tuple[int, ...], left: tuple[int, ...], p: float) -> None:
        hard = sum((i + 1) * m for i, m in enumerate(hand))
        if hard > 21:
            add((hand, 1, True), p)
            return
        size = sum(hand)
        if size == 2 and pair == 1 and game.rules.split_aces_one_card:
            add((hand, 1, False), p)
            return
        if size >= 2:
            legal = legal_actions(
                game.play, up, hard, hand[0] > 0, 2 if size == 2 else 3, 0, after_split=True
            )
            paired = pair if size == 2 and hand[pair - 1] == 2 else 0
            action = game.chart.decide(up, hard, hand[0] > 0, paired, legal)
            if action == STAND:
                add((hand, 1, False), p)
                return
        n = sum(left)
        for v in range(1, 11):
            if left[v - 1]:
                grown = tuple(m + (i == v - 1) for i, m in enumerate(hand))
                rest = tuple(m - (i == v - 1) for i, m in enumerate(left))
                q = p * left[v - 1] / n
                if size >= 2 and action == DOUBLE:
                    add((grown, 2, sum((i + 1) * m for i, m in enumerate(grown)) > 21), q)
                else:
                    play(grown, rest, q)

    play(tuple(int(i == pair - 1) for i in range(10)), comp, 1.0)
    return out


def _result(state: State, outcome: int) -> float:
    hand, stake, busted = state
    if busted:
        return -stake
    if outcome == 5:  # dealer bust
        return stake
    if outcome == 6:  # dealer natural (not against up cards 2-9)
        return -stake
    hard = sum((i + 1) * m for i, m in enumerate(hand))
    total = hard + 10 if hand[0] and hard + 10 <= 21 else hard
    dealer = 17 + outcome
    return stake * ((total > dealer) - (total < dealer))


def _enumerate_split(rules: RuleSet, up: int, pair: int) -> tuple[float, float]:
    """(E[X], E[X^2]) of a split into two hands (no resplit), both played by the chart: the
    second hand drawn from what the first left, the dealer from what both left."""
    game = Game(rules, chart_for(rules))
    comp = list(shoe(rules.decks))
    comp[up - 1] -= 1
    comp[pair - 1] -= 2
    first = tuple(comp)
    mean = square = 0.0
    for one, p1 in _finals(game, up, pair, first).items():
        after_one = tuple(
            c - m + (i == pair - 1) for i, (c, m) in enumerate(zip(first, one[0], strict=True))
        )
        for two, p2 in _finals(game, up, pair, after_one).items():
            left = tuple(
                c - m + (i == pair - 1)
                for i, (c, m) in enumerate(zip(after_one, two[0], strict=True))
            )
            for outcome, p in enumerate(
                dealer_odds(up, left, hits_soft_17=rules.dealer_hits_soft_17)
            ):
                x = _result(one, outcome) + _result(two, outcome)
                mean += p1 * p2 * p * x
                square += p1 * p2 * p * x * x
    return mean, square


@pytest.mark.parametrize(("up", "pair"), [(6, 8), (4, 9)])
def test_split_moments_against_an_enumeration_of_both_hands(up: int, pair: int) -> None:
    """One deck, split once, DAS: enumerating both hands (the second drawn from what the
    first left) and the dealer's odds after both gives the split's expected result - equal
    to ours within 1e-12, the split exact - and its second moment, which ours overstates by
    less than 0.02 (the two hands taken as independent given the dealer's outcome)."""
    rules = RuleSet(
        name="one-split", decks=1, hole_card="peek", double_after_split=True, max_split_hands=2
    )
    mean, square = _enumerate_split(rules, up, pair)
    ours = Game(rules, chart_for(rules)).up(up).split(pair, CHART)
    assert ours.value == pytest.approx(mean, abs=1e-12)
    assert 0.0 <= ours.square - square < 0.02
