"""The people at a simulated table: how they bet, play and take insurance.

* ``basic`` plays the rule set's computed basic strategy (the engine's
  ``tables.engine.strategy.computed_strategy``, made once per rule set and process) and
  bets a steady amount;
* ``casual`` plays it too but makes mistakes (a random legal action now and then),
  takes insurance and bets by mood;
* ``counter`` plays basic strategy, counts Hi-Lo and raises the bet with the true count
  (and insures from a true count of +3);
* ``back`` bets behind a seated player on a back-betting table (seed 002): the seated
  player's play decides, the back bettor only chooses whether to follow a double or a
  split.

Every choice comes from the table's ``random.Random``; nothing reads a global RNG.
"""

from __future__ import annotations

import random
from collections.abc import Collection, Sequence

from audit.record.events.fields import HandAction
from tables.engine.money import apply_ratio
from tables.engine.rules import RuleSet
from tables.engine.strategy import Strategy


class Limits:
    """A table's limits and the chip step every stake is a multiple of."""

    __slots__ = ("high", "low", "step")

    def __init__(self, low: int, high: int, step: int) -> None:
        self.low, self.high, self.step = low, high, step

    def clamp(self, amount: int) -> int:
        amount = max(self.low, min(self.high, amount))
        amount -= amount % self.step
        if amount < self.low:
            amount += self.step
        return amount


class Player:
    __slots__ = ("box", "buyins", "id", "kind", "mood", "rng", "stack", "strategy", "unit")

    def __init__(
        self, id: str, kind: str, box: int, rng: random.Random, strategy: Strategy, limits: Limits
    ) -> None:
        self.id = id
        self.kind = kind
        self.box = box
        self.rng = rng
        self.strategy = strategy
        self.stack = 0
        self.buyins = 0
        # a player's usual stake: 1-5 table minimums
        self.unit = limits.clamp(limits.low * rng.choice((1, 1, 2, 2, 3, 5)))
        self.mood = 1.0

    # --- betting -------------------------------------------------------------------------

    def stake(self, limits: Limits, true_count: float) -> int:
        rng = self.rng
        if self.kind == "counter":
            units = max(1, min(12, int(true_count) - 1)) if true_count >= 2 else 1
            return limits.clamp(self.unit * units)
        if self.kind == "casual":
            return limits.clamp(self.unit * rng.choice((1, 1, 1, 2, 2, 3, 4)))
        if self.kind == "back":
            return limits.clamp(self.unit * rng.choice((1, 1, 2)))
        return limits.clamp(self.unit if rng.random() < 0.8 else self.unit * 2)

    # --- playing -------------------------------------------------------------------------

    def decide(
        self, cards: Sequence[str], up: str, legal: Collection[HandAction], split_done: bool
    ) -> HandAction:
        if self.kind == "casual" and self.rng.random() < 0.1:
            return self.rng.choice(sorted(legal))
        return self.strategy.action(cards, up, legal, split_done=split_done)

    def insurance(self, amount: int, rules: RuleSet, true_count: float) -> int:
        """The insurance stake this player puts on a main stake of ``amount`` (0: none)."""
        if self.kind == "counter":
            wants = true_count >= 3
        elif self.kind == "casual":
            wants = self.rng.random() < 0.2
        else:
            wants = False
        if not wants:
            return 0
        half = apply_ratio(amount, (1, 2), rules.rounding)
        if rules.insurance_stake == "half":
            return half
        return max(half - half % 100, 50) if half >= 100 else half

    def even_money(self) -> bool:
        return self.kind == "casual" and self.rng.random() < 0.5

    def follows(self, action: str) -> bool:
        """A back bettor follows a double or split of the box with a stake of its own."""
        return self.rng.random() < (0.7 if action == "double" else 0.5)
