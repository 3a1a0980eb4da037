"""What a rule set lets a hand do, read once from a :class:`RuleSet` into plain fields.

An adapter: the engine's ``RuleSet`` keeps every seed's wording; the mathematics needs a
few derived facts (does the dealer peek at this up card, may a hard 9 double after a
split, how many hands may a pair become). Where the rule set leaves a reading open this
module states the one it takes.
"""
from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

from ..rules import RuleSet

# "max_split_hands = None" (no limit): the resplit recursion stops here; the
# probability of a seventh hand is below 1e-6 for every pair.
UNLIMITED_HANDS = 6


@dataclass(frozen=True, slots=True)
class PlayRules:
    decks: int
    hits_soft_17: bool
    peek_ups: frozenset[int]  # up values at which the dealer checks for a natural
    natural_takes_all: bool  # unchecked dealer natural takes doubles and splits too
    natural_pays: Fraction
    double_on: frozenset[int] | None
    double_hard_only: bool
    double_after_split: bool
    split_by_rank: bool
    no_split_values: frozenset[int]
    max_hands: int  # 1: no split
    resplit_aces: bool
    split_aces_one_card: bool
    split_21_is_natural: bool
    surrender: str
    surrender_returns: Fraction
    # seed 000's live game: below this a hand must draw, from this on it gets no card
    must_hit_below: int | None
    stand_from: int | None

    @classmethod
    def of(cls, rules: RuleSet) -> PlayRules:
        peek = {"peek": frozenset({1, 10}), "peek_ace": frozenset({1})}
        live = rules.dealer_plays_basic_strategy
        return cls(
            decks=rules.decks,
            hits_soft_17=rules.dealer_hits_soft_17,
            peek_ups=peek.get(rules.hole_card, frozenset()),
            natural_takes_all=rules.dealer_natural_takes == "all",
            natural_pays=Fraction(*rules.natural_pays),
            double_on=rules.double_on,
            double_hard_only=rules.double_hard_only,
            double_after_split=rules.double_after_split,
            split_by_rank=rules.split_by == "rank",
            no_split_values=rules.no_split_values,
            max_hands=(
                UNLIMITED_HANDS if rules.max_split_hands is None
                else min(rules.max_split_hands, UNLIMITED_HANDS)
            ),
            resplit_aces=rules.resplit_aces,
            split_aces_one_card=rules.split_aces_one_card,
            split_21_is_natural=rules.split_21_is_natural,
            surrender=rules.surrender,
            surrender_returns=Fraction(*rules.surrender_returns),
            must_hit_below=rules.live_must_hit_below if live else None,
            stand_from=rules.live_stand_from if live else None,
        )

    def can_double(self, hard: int, soft: bool, *, after_split: bool) -> bool:
        """May a two-card hand of hard total ``hard`` (soft: an ace counts 11) double?

        As the engine's legality check (table_round.py ``_rule_check``): ``double_on``
        lists *best* totals (a soft A-8 is 19, not 9), ``double_hard_only`` refuses
        soft hands, and a split hand doubles only with ``double_after_split``.
        """
        if after_split and not self.double_after_split:
            return False
        if soft and self.double_hard_only:
            return False
        if self.double_on is None:
            return True
        return (hard + 10 if soft else hard) in self.double_on

    def can_split(self, value: int) -> bool:
        """May a first-two-card pair of ``value`` split (ranks aside, see split_by_rank)?"""
        return self.max_hands >= 2 and value not in self.no_split_values

    def can_resplit(self, value: int, hands: int) -> bool:
        if hands >= self.max_hands:
            return False
        return value != 1 or self.resplit_aces

    def surrender_offered(self, up: int) -> bool:
        if self.surrender == "late":
            return True
        if self.surrender == "vs_non_ace":
            return up != 1
        return False  # "none", and "cash_out" (seed 000: an offer, not an action)

    def peeks(self, up: int) -> bool:
        return up in self.peek_ups
