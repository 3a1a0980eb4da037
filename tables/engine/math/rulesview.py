"""What a rule set lets a hand do, read once from a :class:`RuleSet` into plain fields.

An adapter: the engine's ``RuleSet`` keeps every seed's wording; the mathematics needs a
few derived facts (does the dealer peek at this up card, may a hard 9 double after a
split, how many hands may a pair become). Whether a hand may double, split or surrender
is not decided here: it asks the engine's one set of legality rules
(:mod:`tables.engine.legality`, which the round at the table asks too) with the facts
of an abstract hand. Where the rule set leaves a reading open this module states the one
it takes.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

from ..legality import double_refusal, split_refusal, surrender_refusal
from ..rules import RuleSet

# "max_split_hands = None" (no limit): the resplit recursion stops here; the
# probability of a seventh hand is below 1e-6 for every pair.
UNLIMITED_HANDS = 6


@dataclass(frozen=True, slots=True)
class PlayRules:
    rules: RuleSet  # what the legality rules are asked about
    decks: int
    hits_soft_17: bool
    peek_ups: frozenset[int]  # up values at which the dealer checks for a natural
    natural_takes_all: bool  # unchecked dealer natural takes doubles and splits too
    natural_pays: Fraction
    split_by_rank: bool
    max_hands: int  # 1: no split
    split_aces_one_card: bool
    split_21_is_natural: bool
    surrender_returns: Fraction
    # seed 000's live game: below this a hand must draw, from this on it gets no card
    must_hit_below: int | None
    stand_from: int | None
    # the two ratios as the valuations use them, made floats once from the fields above
    # (a position is valued per composition: thousands of times a shoe in the live game):
    # a natural's payout, and what a surrender costs, -(1 - returns)
    natural_pays_float: float = field(init=False)
    surrender_loss: float = field(init=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "natural_pays_float", float(self.natural_pays))
        object.__setattr__(self, "surrender_loss", -float(1 - self.surrender_returns))

    @classmethod
    def of(cls, rules: RuleSet) -> PlayRules:
        peek = {"peek": frozenset({1, 10}), "peek_ace": frozenset({1})}
        live = rules.dealer_plays_basic_strategy
        return cls(
            rules=rules,
            decks=rules.decks,
            hits_soft_17=rules.dealer_hits_soft_17,
            peek_ups=peek.get(rules.hole_card, frozenset()),
            natural_takes_all=rules.dealer_natural_takes == "all",
            natural_pays=Fraction(*rules.natural_pays),
            split_by_rank=rules.split_by == "rank",
            max_hands=(
                UNLIMITED_HANDS
                if rules.max_split_hands is None
                else min(rules.max_split_hands, UNLIMITED_HANDS)
            ),
            split_aces_one_card=rules.split_aces_one_card,
            split_21_is_natural=rules.split_21_is_natural,
            surrender_returns=Fraction(*rules.surrender_returns),
            must_hit_below=rules.live_must_hit_below if live else None,
            stand_from=rules.live_stand_from if live else None,
        )

    def can_double(self, hard: int, soft: bool, *, after_split: bool) -> bool:
        """May a two-card hand of hard total ``hard`` (soft: an ace counts 11) double?
        (Split aces that take one card are valued apart and never asked.)"""
        best = hard + 10 if soft else hard
        return (
            double_refusal(
                self.rules,
                first_two=True,
                from_split=after_split,
                split_ace=False,
                soft=soft,
                best=best,
            )
            is None
        )

    def can_split(self, value: int) -> bool:
        """May a first-two-card pair of ``value`` split (ranks aside, see split_by_rank)?"""
        return (
            split_refusal(self.rules, first_two=True, pair=value, hands=1, from_split=False) is None
        )

    def can_resplit(self, value: int, hands: int) -> bool:
        """May one of ``hands`` split hands, a pair of ``value`` again, split once more?
        ``max_hands`` bounds the recursion where the rule set sets no limit."""
        if hands >= self.max_hands:
            return False
        return (
            split_refusal(self.rules, first_two=True, pair=value, hands=hands, from_split=True)
            is None
        )

    def surrender_offered(self, up: int) -> bool:
        """May an original two-card hand surrender against an up card of value ``up``?"""
        return surrender_refusal(self.rules, first_two=True, from_split=False, up=up) is None

    def peeks(self, up: int) -> bool:
        return up in self.peek_ups
