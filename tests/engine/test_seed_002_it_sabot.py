"""Seed 002: the sabot game with pushes frozen on the layout (preset it-sabot)."""

from __future__ import annotations

from tables.engine.dealing import Stake
from tables.engine.presets import PRESETS
from tables.engine.replay import replay

from .helpers import (
    Choices,
    Table,
    actions_of,
    edit,
    find,
    first_legal,
    kinds,
    layout,
    nets,
    rewrap,
    targets,
)

RULES = PRESETS["it-sabot"]


def test_five_cards_burned_from_the_sabot_once_the_bets_are_down() -> None:
    """Seed 002 (002:10-11, "Finite le puntate, il mazziere sfila le prime cinque carte dal
    sabot e le brucia"): once the first round's bets are down, before the first card, the
    dealer burns five cards. Replay accepts that order; the same burns before the round
    (the order of a game that burns after the shuffle) or four of them are each exactly
    one shoe procedure finding."""
    assert (RULES.burn_on_shuffle, RULES.burn_when) == (5, "bets_down")
    table = Table(RULES, layout(RULES, ["TS 9H"], "7D TD"))
    table.deal([100])
    types = [e["type"] for e in table.events]
    closed, first = types.index("betting.closed"), types.index("card.dealt")
    assert types[closed + 1 : first] == ["card.burned"] * 5
    assert all(e["payload"]["round"] == 1 for e in table.events[closed + 1 : first])
    assert table.replay().findings == ()
    table.deal([100])  # the next round of the shoe burns nothing
    assert [e["type"] for e in table.events].count("card.burned") == 5
    assert table.replay().findings == ()
    burns = table.events[closed + 1 : first]
    started = types.index("round.started")
    before = (
        table.events[:started]
        + [{**b, "payload": {**b["payload"], "round": None}} for b in burns]
        + table.events[started : closed + 1]
        + table.events[first:]
    )
    found = replay(rewrap(before)).findings
    assert kinds(found) == ["shoe_procedure"]
    assert "before the bets were down" in found[0].message
    four = Table(RULES, layout(RULES, ["TS 9H"], "7D TD"), burns=4)
    four.deal([100])
    assert kinds(four.replay().findings) == ["shoe_procedure"]


def test_a_game_that_burns_after_the_shuffle_flags_burns_in_the_round() -> None:
    """The other order: a game that burns right after the shuffle (it-classic, 001:9)
    gets exactly one shoe procedure finding when its burns come once the bets are down."""
    rules = PRESETS["it-classic"]
    late = Table(
        rules.with_overrides({"burn_when": "bets_down"}), layout(rules, ["TS 9H"], "7D TD")
    )
    late.deal([100])
    assert replay(late.events).findings == ()
    found = replay(rewrap([e for e in late.events if e["type"] != "table.opened"]), rules).findings
    assert kinds(found) == ["shoe_procedure"]
    assert "0 cards were burned right after the shuffle" in found[0].message


def test_hole_card_face_down_and_a_late_natural_takes_every_stake() -> None:
    """Seed 002 (002:13-14, 002:24-25): the dealer's second card is dealt face down and
    looked at only at the end; play goes on, and a dealer blackjack found then takes all
    the stakes on the hand, the double too (dealer_natural_takes: all, the default)."""
    table = Table(RULES, layout(RULES, ["6S 4H"], "TD AS", play="5C"))
    dealt = table.deal([100], "double")
    assert targets(dealt)[3] == (None, None, "down")
    assert actions_of(dealt) == ["double"]
    assert nets(dealt) == {"r1b1": ("lose", -100), "r1b1-d": ("lose", -100)}
    assert table.replay().findings == ()


def test_double_only_on_9_to_11() -> None:
    """Seed 002 (002:34-36): a player may double only on a first-two-card total of 9 to 11."""
    assert "double" in first_legal(RULES, "5S 4H", "7D TD")
    assert "double" not in first_legal(RULES, "TS 2H", "7D TD")
    table = Table(RULES, layout(RULES, ["TS 2H"], "7D TD", play="5C"))
    table.deal([100], "hit")
    index = find(table.events, "decision.made")
    assert kinds(replay(edit(table.events, index, action="double")).findings) == [
        "illegal_decision"
    ]


def test_insurance_up_to_half() -> None:
    """Seed 002 (002:53-54): insurance may not exceed half the stake on the box."""
    table = Table(RULES, layout(RULES, ["TS 9H"], "AD 7D"))
    dealt = table.deal([100], choices=Choices(insure=lambda bet: 30))
    assert nets(dealt) == {"r1b1": ("win", 100), "r1b1-i": ("lose", -30)}
    assert table.replay().findings == ()
    index = find(table.events, "bet.placed", kind="insurance")
    assert kinds(replay(edit(table.events, index, amount=60)).findings) == [
        "illegal_bet",
        "wrong_payout",
    ]


def test_pushes_stay_on_the_layout_for_the_next_round() -> None:
    """Seed 002 (002:29-30, 002:40): a push is frozen on the layout for the next round
    (natural against dealer natural too); the next round must carry that stake."""
    shoe = layout(RULES, ["TS 8H"], "TD 8S") + " " + layout(RULES, ["TC 9C"], "7H TH")
    table = Table(RULES, shoe)
    dealt = table.deal([100])
    assert nets(dealt) == {"r1b1": ("carried", 0)}
    table.deal([Stake("r2c", 1, 100, parent="r1b1")])
    assert table.replay().findings == ()
    missing = Table(RULES, shoe)
    missing.deal([100])
    missing.deal([Stake("r2new", 2, 100)])
    assert kinds(missing.replay().findings) == ["missing_event"]


def test_back_betting_the_highest_stake_decides() -> None:
    """Seed 002 (002:4-9): anyone may bet on any box; among several bettors the one who
    staked most plays the hand, and a decision in another bettor's name is illegal."""
    table = Table(RULES, layout(RULES, ["TS 2H"], "7D TD", play="8C"))
    dealt = table.deal([Stake("a", 1, 100, player="A"), Stake("b", 1, 200, player="B")], "hit")
    index = find(table.events, "decision.made")
    assert table.events[index]["payload"]["bet"] == "b"
    assert nets(dealt) == {"a": ("win", 100), "b": ("win", 200)}
    assert table.replay().findings == ()
    assert kinds(replay(edit(table.events, index, bet="a")).findings) == ["illegal_decision"]


def test_split_by_value_with_a_rank_only_variant() -> None:
    """Seed 002 (002:42, 002:45-48): two cards of the same value split (a king and a ten);
    in some casinos only identical cards, which the rank variant enforces."""
    assert "split" in first_legal(RULES, "KS TH", "7D TD")
    assert "split" not in first_legal(RULES.with_overrides({"split_by": "rank"}), "KS TH", "7D TD")
    assert "split" in first_legal(RULES.with_overrides({"split_by": "rank"}), "KS KH", "7D TD")


def test_split_aces_take_one_call() -> None:
    """Seed 002 (002:48-49): two aces may split but each gets a single card."""
    table = Table(RULES, layout(RULES, ["AS AH"], "7D TD", play="5C 6C"))
    dealt = table.deal([100], "split")
    assert actions_of(dealt) == ["split"]
    assert table.replay().findings == ()


def test_dealer_does_not_play_when_no_player_is_left() -> None:
    """Seed 002 (002:24): the dealer turns the second card and plays only if players are
    left in the game."""
    table = Table(RULES, layout(RULES, ["TS 6H"], "5D 7S", play="KC", draws="9C"))
    dealt = table.deal([100], "hit")
    assert dealt.round is not None and dealt.round.dealer == ["5D", "7S"]
    assert table.replay().findings == ()
