"""The covariance of two boxes' results in one round, per unit of initial stake: what the
variance of a table's win needs besides one box's variance (:mod:`.variance`).

Several boxes of one round share the dealer's hand and the shoe: a dealer bust pays
them all, a dealer 21 beats them all. So the house result of ``k`` boxes staked ``s_i``
in one round has the variance ``V * sum(s_i^2) + C * sum over i != j of s_i s_j``, with
``V`` one box's variance (exact, :mod:`.variance`) and ``C`` the covariance of two
boxes' results per unit of initial stake - about 0.5 for the presets, so four equal
boxes have about 2.2 times the variance the independent ``4 V`` gives (an SD about 1.5
times wider).

``C`` is not computed exactly: the engine's combinatorial analysis values one box (and
the hands of one split) against the dealer, not two boxes drawing from one shoe. It is
**estimated** once per rule set by a seeded simulation through the engine's one dealer
(:func:`tables.engine.dealing.deal_round`): ``ROUNDS`` rounds of ``BOXES`` boxes, each
round dealt from a freshly shuffled full shoe (as the exact variance is taken from the
full shoe), every box played by the rule set's chart, staked one unit, no insurance;
each box's result the sum of its bets' nets (doubles and splits included; a push
carried to the next round counts 0). The estimate is the mean product of two different
boxes' results less the squared mean result, and its standard error that of the
per-round mean of the pair products (rounds are independent: each has its own shoe).
With 20,000 rounds of five boxes the standard error is about 0.005 (about 1% of ``C``);
the SD of a day's win moves by under half of that share. Seeded, so the figure is the
same on every machine and run: the presets' figures are stored (:data:`PRESET_FIGURES`,
checked against a fresh estimate by the tests); any other rule set (a table's
overrides) is estimated when first asked, once per process.
"""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from functools import lru_cache

from audit.record.events.fields import HandAction

from ..cards import deck
from ..dealing import Seats, ShoeCursor, Stake, deal_round
from ..rules import RuleSet
from ..shoes import Shoe
from ..strategy import Strategy, computed_strategy
from ..table_round import Bet, Hand

ROUNDS = 20_000
BOXES = 5
SEED = "box-covariance"
_UNIT = 1_000  # a stake every payout ratio of the presets divides into whole minor units


@dataclass(frozen=True, slots=True)
class BoxCovariance:
    """The estimate for one rule set: ``covariance`` of two boxes' results in one round
    per unit of initial stake, with its ``standard_error``; ``variance`` of one box's
    result as the same rounds show it (a check against the exact figure)."""

    ruleset: str
    covariance: float
    standard_error: float
    variance: float
    rounds: int
    boxes: int


class _Chart(Seats):
    """Every box played by the chart; every stake the chart calls for placed (the live
    game's bettors follow its dealer's doubles and splits)."""

    def __init__(self, strategy: Strategy) -> None:
        self.strategy = strategy

    def decide(self, bet: Bet, hand: Hand, up: str, legal: frozenset[HandAction]) -> HandAction:
        return self.strategy.action(hand.cards, up, legal, split_done=hand.from_split)

    def opt_in(self, bet: Bet, action: object) -> bool:
        return True


def estimate(
    rules: RuleSet, *, rounds: int = ROUNDS, boxes: int = BOXES, seed: str = SEED
) -> BoxCovariance:
    """Estimate the covariance of two boxes of ``rules`` by a seeded simulation (see the
    module's text)."""
    boxes = max(2, min(boxes, rules.boxes))
    strategy = computed_strategy(rules)
    seats = _Chart(strategy)
    rng = random.Random(f"{seed}/{rules.name}")
    cards = list(deck() * rules.decks)
    stakes = [Stake(f"b{box}", box, _UNIT, f"P{box}") for box in range(1, boxes + 1)]
    live = rules.dealer_plays_basic_strategy
    pairs = boxes * (boxes - 1) // 2
    total = square = pair_sum = pair_square = 0.0
    done = 0
    while done < rounds:
        rng.shuffle(cards)
        shoe = ShoeCursor(Shoe("cov", rules.decks, tuple(cards), None))
        try:
            dealt = deal_round(
                rules, shoe, 1, stakes, seats, strategy=strategy if live else None, burns=0
            )
        except IndexError:  # a single deck run out by five boxes: dealt again from a new shoe
            continue
        r = dealt.round
        assert r is not None
        by_box = [0] * (boxes + 1)
        for s in dealt.settlements:
            by_box[r.bets[s.bet].box] += s.net
        results = [net / _UNIT for net in by_box[1:]]
        s1 = sum(results)
        s2 = sum(x * x for x in results)
        products = (s1 * s1 - s2) / 2 / pairs  # the mean product of two different boxes
        total += s1
        square += s2
        pair_sum += products
        pair_square += products * products
        done += 1
    mean = total / (done * boxes)
    variance = square / (done * boxes) - mean * mean
    pair_mean = pair_sum / done
    spread = max(pair_square / done - pair_mean * pair_mean, 0.0)
    return BoxCovariance(
        rules.name, pair_mean - mean * mean, math.sqrt(spread / done), variance, done, boxes
    )


# The presets' estimates, as :func:`estimate` gives them with its defaults (the tests
# estimate one again and compare; ``bench/box_covariance.py`` prints them all).
# (covariance, standard error): stored because each estimate deals many rounds.
PRESET_FIGURES: dict[str, tuple[float, float]] = {
    "it-live": (0.4645859749749855, 0.004762630719991243),
    "it-classic": (0.4762609870999732, 0.005868428664366385),
    "it-sabot": (0.43772371309999375, 0.004590417411704006),
    "eu-online": (0.42673649999998364, 0.004665864361500913),
    "hoyle": (0.45072141989998693, 0.004673124054601049),
    "vegas-s17-das-ls": (0.47810480159997804, 0.005174944216607903),
    "vegas-6to5-single-deck": (0.4835215318239794, 0.004937817834501692),
}


@lru_cache(maxsize=64)
def box_covariance(rules: RuleSet) -> float:
    """The covariance of two boxes' results in one round per unit of initial stake: the
    stored estimate of a preset, else a fresh one (once per rule set and process)."""
    from ..presets import PRESETS

    stored = PRESET_FIGURES.get(rules.name)
    if stored is not None and PRESETS.get(rules.name) == rules:
        return stored[0]
    return estimate(rules, rounds=ROUNDS).covariance


def round_variance(
    variance: float, covariance: float, stakes: list[int] | tuple[int, ...]
) -> float:
    """The variance of one round's result (stake units squared) for boxes staked
    ``stakes``: ``V * sum(s^2) + C * ((sum s)^2 - sum(s^2))``."""
    squares = sum(s * s for s in stakes)
    handle = sum(stakes)
    return variance * squares + covariance * (handle * handle - squares)
