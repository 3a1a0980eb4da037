"""The engine deals seed 000's live game with the generated strategy and the computed
cash-out offers (issue 4, item 6)."""

import random

from tables.engine.dealing import Seats, ShoeCursor, Stake, SystemOffer, deal_round
from tables.engine.math.cashout import cashout_offer, check_offer, offer_due
from tables.engine.math.composition import of_cards
from tables.engine.math.strategy import ComputedStrategy
from tables.engine.presets import PRESETS
from tables.engine.shoes import Shoe
from tables.engine.table_round import Bet, Hand

LIVE = PRESETS["it-live"]


def test_live_rounds_play_the_computed_chart_and_offers_check() -> None:
    """Sixty rounds of it-live dealt by the engine with ComputedStrategy as the dealer's
    strategy raise no illegal play; every offer is made on an eligible hand, from the
    cards left in the shoe, and passes check_offer; an offer one unit off fails it."""
    rng = random.Random(4)
    strategy = ComputedStrategy(LIVE)
    shoe_no = 1
    cursor = ShoeCursor(Shoe.shuffled("S1", decks=LIVE.decks, seed="math/1"))
    made: list[tuple[int, tuple[str, ...], str, tuple[int, ...], int, bool]] = []

    class Bettors(Seats):
        def offer(self, bet: Bet, hand: Hand, up: str, system: SystemOffer) -> int | None:
            assert offer_due(hand.cards, LIVE)  # the round asks only where an offer is due
            cards = tuple(hand.cards)
            left = of_cards(cursor.order[cursor.pos :])  # no hole card: unseen = undealt
            amount = cashout_offer(
                cards,
                up,
                left,
                stake=bet.amount,
                rules=LIVE,
                margin=(1, 40),
                split_done=hand.from_split,
            ).amount
            made.append((amount, cards, up, left, bet.amount, hand.from_split))
            return amount

        def accept(self, bet: Bet, amount: int) -> bool:
            return rng.random() < 0.2

        def opt_in(self, bet: Bet, action: str) -> bool:
            return rng.random() < 0.7

    seats = Bettors()
    for number in range(1, 61):
        if cursor.pos > 230:
            shoe_no += 1
            cursor = ShoeCursor(
                Shoe.shuffled(f"S{shoe_no}", decks=LIVE.decks, seed=f"math/{shoe_no}")
            )
        stakes = [
            Stake(f"r{number}b{box}", box, rng.randint(1, 50) * 100, player=f"P{box}")
            for box in (1, 2, 3, 4)
        ]
        dealt = deal_round(LIVE, cursor, number, stakes, seats, strategy=strategy)
        assert dealt.settlements
    assert len(made) > 20
    for amount, cards, up, left, stake, split_done in made:
        assert check_offer(
            amount, cards, up, left, stake=stake, rules=LIVE, margin=(1, 40), split_done=split_done
        )
        assert not check_offer(
            amount + 1,
            cards,
            up,
            left,
            stake=stake,
            rules=LIVE,
            margin=(1, 40),
            split_done=split_done,
        )
