"""Seed 001: the classic Italian casino game (preset it-classic)."""

from __future__ import annotations

from tables.engine.dealing import Stake
from tables.engine.presets import PRESETS
from tables.engine.replay import replay

from .helpers import (
    Choices,
    Table,
    actions_of,
    first_legal,
    insert_before_last,
    kinds,
    layout,
    nets,
    targets,
)

RULES = PRESETS["it-classic"]


def test_four_decks_burn_three_after_the_shuffle() -> None:
    """Seed 001 (001:7, 001:9): up to four decks (preset 4); after the shuffle three cards
    are burned, and any other number is a shoe procedure finding."""
    assert RULES.decks == 4 and RULES.burn_on_shuffle == 3
    table = Table(RULES, layout(RULES, ["TS 9H"], "7D TD"))
    table.deal([100])
    assert table.replay().findings == ()
    short = Table(RULES, layout(RULES, ["TS 9H"], "7D TD"), burns=2)
    short.deal([100])
    assert kinds(short.replay().findings) == ["shoe_procedure"]


def test_cut_card_about_40_from_the_end() -> None:
    """Seed 001 (001:9): the second marker goes about 40 cards from the end; a cut card
    100 from the end is a shoe procedure finding."""
    table = Table(RULES, layout(RULES, ["TS 9H"], "7D TD"), cut_card=208 - 100)
    table.deal([100])
    assert kinds(table.replay().findings) == ["shoe_procedure"]


def test_peek_on_a_ten_ends_the_round_on_a_dealer_natural() -> None:
    """Seed 001 (001:13): with a ten or an ace up the dealer looks at the hole card; with a
    blackjack the stakes of players without one are taken at once, a player blackjack
    gets its stake back, and nobody plays."""
    table = Table(RULES, layout(RULES, ["9S 7H", "AC KC"], "TD AS"))
    dealt = table.deal([100, 100], "hit")
    assert actions_of(dealt) == []
    assert nets(dealt) == {"r1b1": ("lose", -100), "r1b2": ("push", 0)}
    assert table.replay().findings == ()


def test_natural_pays_three_to_one_as_written() -> None:
    """Seed 001 (001:38): "I Black Jack sono pagati 3 a 1" - kept as written."""
    table = Table(RULES, layout(RULES, ["AS KH"], "9D 8D"))
    assert nets(table.deal([100])) == {"r1b1": ("natural", 300)}


def test_pairs_resplit_without_limit_but_aces_only_once() -> None:
    """Seed 001 (001:31): every new pair may be split again with a new equal stake; aces
    split once and take one card each."""
    table = Table(RULES, layout(RULES, ["8S 8H"], "6D TD", play="8C 3C 9C TC", draws="7D"))
    dealt = table.deal([100], "split", "split", "stand", "stand", "stand")
    assert actions_of(dealt) == ["split", "split", "stand", "stand", "stand"]
    assert nets(dealt) == {"r1b1": ("win", 100), "r1b1-s1": ("win", 100), "r1b1-s2": ("win", 100)}
    assert table.replay().findings == ()
    aces = Table(RULES, layout(RULES, ["AS AH"], "6D TD", play="AC 9C", draws="7D"))
    dealt = aces.deal([100], "split")
    assert actions_of(dealt) == ["split"]  # A-A after the split is not asked to split again
    assert aces.replay().findings == ()


def test_double_on_any_two_cards_with_the_card_face_down() -> None:
    """Seed 001 (001:29): a player may double on his first two cards and gets one card
    face down."""
    assert {"double"} <= first_legal(RULES, "5S 3H", "6D TD")
    table = Table(RULES, layout(RULES, ["5S 3H"], "6D TD", play="TC", draws="9D"))
    dealt = table.deal([100], "double")
    assert targets(dealt)[-2] == (1, 0, "down")
    assert nets(dealt) == {"r1b1": ("win", 100), "r1b1-d": ("win", 100)}


def test_dealer_does_not_draw_when_every_hand_has_busted() -> None:
    """Seed 001 (001:27): if every player busted, the dealer throws in his cards; a draw
    then is a dealer procedure finding."""
    table = Table(RULES, layout(RULES, ["TS 6H"], "7D 5S", play="KC", draws="9C"))
    dealt = table.deal([100], "hit")
    assert dealt.round is not None and dealt.round.dealer == ["7D", "5S"]
    assert table.replay().findings == ()
    events = insert_before_last(
        table.events,
        "card.dealt",
        {"round": 1, "box": None, "hand": None, "card": "9C", "face": "up"},
    )
    assert kinds(replay(events).findings) == ["dealer_procedure"]


def test_insurance_is_half_the_stake() -> None:
    """Seed 001 (001:21): insurance is half the player's stake, paid 2:1 on a dealer
    blackjack."""
    table = Table(RULES, layout(RULES, ["TS 9H"], "AD KD"))
    dealt = table.deal([100], choices=Choices(insure=lambda bet: 50))
    assert nets(dealt) == {"r1b1": ("lose", -100), "r1b1-i": ("win", 100)}
    assert table.replay().findings == ()


def test_a_player_may_take_several_boxes() -> None:
    """Seed 001 (001:13): a player may bet on more than one box and play each hand."""
    table = Table(RULES, layout(RULES, ["TS 9H", "TC 7C"], "7D TD"))
    dealt = table.deal([Stake("a", 1, 100, player="P"), Stake("b", 2, 100, player="P")])
    assert nets(dealt) == {"a": ("win", 100), "b": ("push", 0)}
    assert table.replay().findings == ()


def test_the_ten_or_eleven_double_variant() -> None:
    """Seed 001 (001:29): "A volte il raddoppio è ammesso solo quando il totale delle due
    carte è di 10 o 11 punti" - the variant, as an override of double_on."""
    variant = RULES.with_overrides({"double_on": "10,11"})
    assert "double" in first_legal(variant, "6S 4H", "6D TD")
    assert "double" not in first_legal(variant, "5S 4H", "6D TD")
    assert "double" in first_legal(RULES, "5S 4H", "6D TD")
