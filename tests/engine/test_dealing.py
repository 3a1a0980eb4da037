"""The one dealer (``tables.engine.dealing``): the people at the table asked through
one protocol with defaults, the dealer's mistakes dealt through a hook and closed as
replay closes them, offers only where the round allows them, for the system's amount."""

from __future__ import annotations

import pytest

from tables.engine.dealing import DealerMistake, Seats, ShoeCursor, Stake, SystemOffer, deal_round
from tables.engine.math.cashout import cashout_offer
from tables.engine.presets import PRESETS
from tables.engine.shoes import Shoe, left_in
from tables.engine.table_round import DRAW, Bet, Hand, Round

from .helpers import Choices, Table, kinds, layout, nets

HOYLE = PRESETS["hoyle"]
LIVE = PRESETS["it-live"]


class StopsOn16(DealerMistake):
    def stops(self, round: Round) -> bool:
        return round.dealer_best == 16


class DrawsOn17(DealerMistake):
    def draws(self, round: Round) -> bool:
        return round.dealer_mode == DRAW and round.dealer_best == 17


def test_nobody_at_the_table_takes_any_option() -> None:
    """The protocol's defaults: a hand stands, nobody insures, takes even money, opts in,
    is offered a cash-out or accepts one."""
    table = Table(LIVE, layout(LIVE, ["TS 3H"], "AD TD", play="2C 5C"))
    dealt = table.deal([Stake("a", 1, 100)], choices=Choices())
    assert [kind for kind, _ in dealt.events].count("bet.placed") == 1
    assert not any(kind.startswith("cashout.") for kind, _ in dealt.events)
    seats = Seats()
    assert (
        seats.decide(
            Bet("a", 1, 0, None, 100, "main", None), Hand(1, 0), "7D", frozenset({"hit", "stand"})
        )
        == "stand"
    )
    assert table.replay().findings == ()


def test_a_dealer_who_stops_on_16_is_closed_as_replay_closes_the_round() -> None:
    """A dealer mistake that stops on 16: no more dealer card, the round settled on the 16
    exactly as replay settles it, and replay's one finding is the dealer's procedure."""
    table = Table(HOYLE, layout(HOYLE, ["TS 8H"], "9D 7D", draws="5C"))
    dealt = table.deal([1000], mistake=StopsOn16())
    assert dealt.mistaken
    assert sum(1 for kind, p in dealt.events if kind == "card.dealt" and p["box"] is None) == 2
    assert nets(dealt) == {"r1b1": ("win", 1000)}
    result = table.replay()
    assert kinds(result.findings) == ["dealer_procedure"]
    assert {bet: (s.outcome, s.net) for bet, s in result.rounds[0].expected.items()} == nets(dealt)


def test_a_dealer_who_draws_on_17_deals_the_shoes_next_card_and_settles_on_17() -> None:
    """A dealer mistake that draws on a standing 17: the shoe's next card is dealt to the
    dealer after the hand is finished (so the shoe stays in order), the round settled on
    the 17; replay's one finding is the dealer's procedure."""
    table = Table(HOYLE, layout(HOYLE, ["TS 9H"], "TD 7D", draws="4C"))
    dealt = table.deal([1000], mistake=DrawsOn17())
    assert dealt.mistaken
    dealer = [p["card"] for kind, p in dealt.events if kind == "card.dealt" and p["box"] is None]
    assert dealer == ["TD", "7D", "4C"]
    assert nets(dealt) == {"r1b1": ("win", 1000)}
    assert kinds(table.replay().findings) == ["dealer_procedure"]


def test_a_mistake_the_round_gives_no_occasion_for_is_not_made() -> None:
    """The hook is asked, but a dealer who never reaches 16 never stops on it."""
    table = Table(HOYLE, layout(HOYLE, ["TS 9H"], "TD 8D"))
    dealt = table.deal([1000], mistake=StopsOn16())
    assert not dealt.mistaken
    assert table.replay().findings == ()


def test_a_decision_the_rules_do_not_allow_is_refused() -> None:
    """The dealer deals only legal decisions: a seat that answers outside ``legal`` is
    refused with the hand and what was legal."""

    class Stubborn(Seats):
        def decide(self, bet: Bet, hand: Hand, up: str, legal: frozenset[str]) -> str:  # type: ignore[override]
            return "surrender"

    cursor = ShoeCursor(Shoe.arranged("S1", ["TS", "TD", "9H", "7D"], decks=6))
    with pytest.raises(ValueError, match="cannot surrender"):
        deal_round(HOYLE, cursor, 1, [Stake("a", 1, 1000)], Stubborn())


def test_offers_are_asked_only_where_the_round_allows_them_for_the_systems_amount() -> None:
    """The live game asks a seat for an offer only on a hand of 11-16 waiting for its
    decision (box 1 at 13 and, after a hit, at 15; never box 2's 19, box 3's 9 or 19);
    ``system(bet)`` is the mathematics' ``cashout_offer`` from the cards left in the
    shoe, less the rule set's margin."""
    asked: list[tuple[tuple[str, ...], int, tuple[int, ...]]] = []
    table = Table(LIVE, layout(LIVE, ["TS 3H", "TC 9H", "4S 5H"], "7D TD", play="2C 5C"))

    def offer(bet: Bet, hand: Hand, up: str, system: SystemOffer) -> int:
        asked.append(
            (tuple(hand.cards), system(bet), left_in(table.cursor.order, table.cursor.pos))
        )
        return system(bet)

    table.deal(
        [Stake("a", 1, 100), Stake("b", 2, 100), Stake("c", 3, 100)], choices=Choices(offer=offer)
    )
    assert [cards for cards, _, _ in asked] == [("TS", "3H"), ("TS", "3H", "2C")]
    for cards, amount, left in asked:
        assert amount == cashout_offer(cards, "7D", left, stake=100, rules=LIVE).amount
    assert table.replay().findings == ()


def test_the_cards_left_follow_the_shoe_as_replay_counts_it() -> None:
    """A cursor counts the cards left as replay's ``ShoeTrack`` does: by default from the
    shoe's recorded order."""
    table = Table(HOYLE, layout(HOYLE, ["TS 9H"], "TD 8D"))
    table.deal([1000])
    cursor = table.cursor
    assert cursor.left_by_value() == left_in(cursor.order, cursor.pos)
