"""Whole tables dealt by the engine: shuffles, cuts, burns and rounds until the cut
card, then a new shoe - for tests, the benchmark and simulations.

Every random choice comes from one ``random.Random(seed)`` made here from the seed the
caller gives; the shoes' seeds are derived from it and recorded in ``shoe.shuffled``.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from audit.record.events.fields import HandAction

from .dealing import OptIn, Seats, ShoeCursor, Stake, SystemOffer, deal_round, shuffle_burns
from .envelope import EnvelopeWriter
from .money import apply_ratio
from .rules import RuleSet
from .shoes import Shoe, commitment
from .table_round import Bet, Hand, Settlement


class RandomSeats(Seats):
    """Players who pick any legal action (the widest test of the rules) and take
    insurance, even money, opt-ins and cash-outs at random; with ``offers`` the system
    offers half the eligible bets a cash-out, for the amount it computes
    (``Round.system_offer``)."""

    def __init__(self, rng: random.Random, rules: RuleSet, *, offers: bool = True) -> None:
        self.rng = rng
        self.rules = rules
        self.offers = offers

    def decide(self, bet: Bet, hand: Hand, up: str, legal: frozenset[HandAction]) -> HandAction:
        return self.rng.choice(sorted(legal))

    def insure(self, bet: Bet) -> int:
        rng, rules = self.rng, self.rules
        if rng.random() < 0.5:
            return 0
        if rules.insurance_stake == "half":
            return apply_ratio(bet.amount, (1, 2), rules.rounding)
        return rng.randint(1, bet.amount // 2) if bet.amount >= 2 else 0

    def even_money(self, bet: Bet) -> bool:
        return self.rng.random() < 0.5

    def opt_in(self, bet: Bet, action: OptIn) -> bool:
        return self.rng.random() < 0.6

    def offer(self, bet: Bet, hand: Hand, up: str, system: SystemOffer) -> int | None:
        return system(bet) if self.offers and self.rng.random() < 0.5 else None

    def accept(self, bet: Bet, amount: int) -> bool:
        return self.rng.random() < 0.4


@dataclass(frozen=True, slots=True)
class DealtTable:
    events: list[dict[str, Any]]
    settlements: dict[int, list[Settlement]]


def deal_table(
    rules: RuleSet,
    *,
    seed: str,
    rounds: int,
    boxes: int = 3,
    table: str = "T1",
    start: datetime,
    seats: Seats | None = None,
    bettors: int = 1,
    hashed: bool = True,
    order_known: bool = True,
) -> DealtTable:
    """Deal ``rounds`` rounds of ``boxes`` boxes (``bettors`` per box where the game
    takes several; by default :class:`RandomSeats`) and return the table's events in
    the envelope format."""
    rng = random.Random(seed)
    seats = seats or RandomSeats(rng, rules)
    writer = EnvelopeWriter(table, start=start, name=f"{table}:{seed}", hashed=hashed)
    events: list[dict[str, Any]] = []
    write: Callable[[str, dict[str, Any]], None] = lambda kind, payload: events.append(
        writer.write(kind, payload)
    )
    write(
        "table.opened",
        {
            "table": table,
            "ruleset": rules.name,
            "min_bet": rules.min_bet,
            "max_bet": rules.max_bet,
            "currency": "EUR",
            "gaming_day": start.date().isoformat(),
            "rules": {},
        },
    )
    settled: dict[int, list[Settlement]] = {}
    shoe_no = 0
    cursor: ShoeCursor | None = None
    cut_card = 0
    carried: list[Stake] = []
    several = rules.back_betting or rules.dealer_plays_basic_strategy
    low = rules.min_bet
    high = min(rules.max_bet, max(low, 1) * 20)

    def new_shoe() -> ShoeCursor:
        nonlocal shoe_no, cut_card
        shoe_no += 1
        shoe = Shoe.shuffled(f"{table}-S{shoe_no}", decks=rules.decks, seed=f"{seed}/{shoe_no}")
        assert shoe.order is not None
        write(
            "shoe.shuffled",
            {
                "shoe": shoe.id,
                "decks": rules.decks,
                "method": "rng",
                "order": list(shoe.order) if order_known else None,
                "commitment": commitment(shoe.order),
                "seed": shoe.seed,
            },
        )
        size = 52 * rules.decks
        behind = rng.randint(*rules.penetration) if rules.penetration else max(size // 4, 20)
        cut_card = size - behind
        write("shoe.cut", {"shoe": shoe.id, "position": 0, "cut_card": cut_card})
        fresh = ShoeCursor(shoe)
        for _ in range(shuffle_burns(rules)):
            write(
                "card.burned",
                {
                    "shoe": shoe.id,
                    "round": None,
                    "card": fresh.next(),
                    "face": "down",
                    "reason": "after_shuffle",
                },
            )
        return fresh

    for number in range(1, rounds + 1):
        if cursor is None or cursor.pos >= cut_card:
            cursor = new_shoe()
        stakes = list(carried)
        taken = {s.box for s in stakes}
        for box in range(1, boxes + 1):
            for k in range(bettors if several else 1):
                if k == 0 and box in taken:
                    continue
                stakes.append(
                    Stake(f"r{number}b{box}p{k}", box, rng.randint(low, high), player=f"P{box}{k}")
                )
        while True:
            try:
                dealt = deal_round(rules, cursor, number, stakes, seats)
                break
            except (
                IndexError
            ):  # the shoe ran out mid-round (one deck, five boxes): dealt again from a new one
                cursor = new_shoe()
        for kind, payload in dealt.events:
            write(kind, payload)
        settled[number] = dealt.settlements
        assert dealt.round is not None
        carried = [
            Stake(f"r{number + 1}c{i}", bet.box, bet.amount, player=bet.player, parent=s.bet)
            for i, s in enumerate(dealt.settlements)
            if s.outcome == "carried" and (bet := dealt.round.bets[s.bet]).kind != "insurance"
        ]
    return DealtTable(events, settled)
