"""The engine deals seed 000's live game with the generated strategy and the computed
cash-out offers (issue 4, item 6)."""
import random

from tables.engine.dealing import Choices, ShoeCursor, Stake, deal_round
from tables.engine.math.cashout import cashout_offer, check_offer, offer_due
from tables.engine.math.composition import of_cards
from tables.engine.math.strategy import ComputedStrategy
from tables.engine.presets import PRESETS
from tables.engine.shoes import Shoe
from tables.engine.simulate import random_policy

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

    def offer(view, bet):  # type: ignore[no-untyped-def]
        if not offer_due(view.cards, LIVE):
            return None
        left = of_cards(cursor.order[cursor.pos:])  # no hole card: unseen = undealt
        amount = cashout_offer(view.cards, view.up, left, stake=bet.amount, rules=LIVE,
                               margin=(1, 40), split_done=view.split_done).amount
        made.append((amount, view.cards, view.up, left, bet.amount, view.split_done))
        return amount

    choices = Choices(offer=offer, accept=lambda bet, amount: rng.random() < 0.2,
                      opt_in=lambda bet, action: rng.random() < 0.7)
    for number in range(1, 61):
        if cursor.pos > 230:
            shoe_no += 1
            cursor = ShoeCursor(Shoe.shuffled(f"S{shoe_no}", decks=LIVE.decks, seed=f"math/{shoe_no}"))
        stakes = [Stake(f"r{number}b{box}", box, rng.randint(1, 50) * 100, player=f"P{box}") for box in (1, 2, 3, 4)]
        dealt = deal_round(LIVE, cursor, number, stakes, random_policy(rng), choices=choices, strategy=strategy)
        assert dealt.settlements
    assert len(made) > 20
    for amount, cards, up, left, stake, split_done in made:
        assert check_offer(amount, cards, up, left, stake=stake, rules=LIVE, margin=(1, 40), split_done=split_done)
        assert not check_offer(amount + 1, cards, up, left, stake=stake, rules=LIVE, margin=(1, 40), split_done=split_done)
