"""Seed 004: the Czech Hoyle-style shoe game (preset hoyle)."""

from __future__ import annotations

from tables.engine.dealing import Stake
from tables.engine.presets import PRESETS

from .helpers import Choices, Table, actions_of, first_legal, kinds, layout, nets, targets

RULES = PRESETS["hoyle"]
STAKE = 1000  # 10 USD in cents: inside the 2-500 USD limits


def test_six_decks_and_the_cut_card_60_to_75_from_the_end() -> None:
    """Seed 004 (004:7, 004:23): six decks; the plastic card leaves the last 60 to 75
    cards unplayed; elsewhere it is a shoe procedure finding."""
    assert RULES.decks == 6 and RULES.penetration == (60, 75)
    table = Table(RULES, layout(RULES, ["TS 9H"], "7D TD"), cut_card=312 - 40)
    table.deal([STAKE])
    assert kinds(table.replay().findings) == ["shoe_procedure"]


def test_after_the_cut_card_the_shoe_ends_with_that_round() -> None:
    """Seed 004 (004:67): when the plastic card comes out the round is finished and the
    cards reshuffled; another round from that shoe is a shoe procedure finding."""
    shoe = layout(RULES, ["TS 9H"], "7D TD") + " " + layout(RULES, ["TC 9C"], "7H TH")
    table = Table(RULES, shoe, cut_card=2)
    table.deal([STAKE])
    table.deal([STAKE])
    assert kinds(table.replay().findings) == [
        "shoe_procedure",
        "shoe_procedure",
    ]  # the cut itself, then no reshuffle


def test_peek_on_ten_or_ace() -> None:
    """Seed 004 (004:31, 004:33): with a ten or an ace up the dealer looks at the hole
    card; on a blackjack the stakes of players without one are collected at once."""
    table = Table(RULES, layout(RULES, ["9S 7H"], "AD KS"))
    dealt = table.deal([STAKE], "hit")
    assert actions_of(dealt) == []
    assert nets(dealt) == {"r1b1": ("lose", -STAKE)}
    assert table.replay().findings == ()


def test_natural_pays_three_to_two() -> None:
    """Seed 004 (004:31): a natural is paid one and a half times the stake."""
    table = Table(RULES, layout(RULES, ["AS KH"], "9D 8D"))
    assert nets(table.deal([STAKE])) == {"r1b1": ("natural", 1500)}


def test_split_identical_ranks_only() -> None:
    """Seed 004 (004:51): pairs of the same rank split (two jacks, two sixes)."""
    assert "split" in first_legal(RULES, "JS JH", "6D TD")
    assert "split" not in first_legal(RULES, "JS QH", "6D TD")


def test_a_ten_on_a_split_ace_pays_even_money() -> None:
    """Seed 004 (004:51): split aces get one card each; a ten on one pays the stake, not
    one and a half times."""
    table = Table(RULES, layout(RULES, ["AS AH"], "6D TD", play="KC 9C", draws="2D"))
    dealt = table.deal([STAKE], "split")
    assert nets(dealt) == {"r1b1": ("win", STAKE), "r1b1-s1": ("win", STAKE)}
    assert table.replay().findings == ()


def test_double_on_9_to_11_with_the_card_face_down() -> None:
    """Seed 004 (004:55): the player may double on 9, 10 or 11 and gets one card face down."""
    assert "double" not in first_legal(RULES, "TS 2H", "6D TD")
    table = Table(RULES, layout(RULES, ["5S 5H"], "6D TD", play="TC", draws="9D"))
    dealt = table.deal([STAKE], "double")
    assert targets(dealt)[4] == (1, 0, "down")
    assert nets(dealt) == {"r1b1": ("win", STAKE), "r1b1-d": ("win", STAKE)}


def test_insurance_up_to_half() -> None:
    """Seed 004 (004:59): any player may insure for up to half the stake, paid 2:1."""
    table = Table(RULES, layout(RULES, ["TS 9H"], "AD KD"))
    dealt = table.deal([STAKE], choices=Choices(insure=lambda bet: 300))
    assert nets(dealt) == {"r1b1": ("lose", -STAKE), "r1b1-i": ("win", 600)}
    assert table.replay().findings == ()


def test_table_limits_2_to_500() -> None:
    """Seed 004 (004:19): limits 2 to 500 USD (200-50000 cents); a stake outside is an
    illegal bet."""
    table = Table(RULES, layout(RULES, ["TS 9H", "TC 9C"], "7D TD"))
    dealt = table.deal([STAKE, STAKE])
    events = [dict(e) for e in table.events]
    from .helpers import edit, find

    events = edit(events, find(events, "bet.placed", bet="r1b2"), amount=100)
    from tables.engine.replay import replay

    found = kinds(replay(events).findings)
    assert found == ["illegal_bet", "wrong_payout"]
    assert nets(dealt)["r1b2"] == ("win", STAKE)


def test_dealer_stands_on_soft_17() -> None:
    """Seed 004 (004:43): an ace that makes 17-21 counts 11 and the dealer stands."""
    table = Table(RULES, layout(RULES, ["TS 8H"], "6D AS"))
    dealt = table.deal([Stake("b", 1, STAKE)])
    assert nets(dealt) == {"b": ("win", STAKE)}
