"""Seed 003: European online blackjack (preset eu-online)."""

from __future__ import annotations

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

RULES = PRESETS["eu-online"]


def test_dealer_takes_the_second_card_after_the_players() -> None:
    """Seed 003 (003:3, 003:32): no hole card; the dealer's second card comes only after
    the players have played."""
    table = Table(RULES, layout(RULES, ["TS 2H"], "7D TD", play="8C"))
    dealt = table.deal([100], "hit")
    assert [t[0] for t in targets(dealt)] == [1, None, 1, 1, None]
    assert table.replay().findings == ()


def test_surrender_returns_half_when_the_up_card_is_not_an_ace() -> None:
    """Seed 003 (003:7-8): against a non-ace the player without blackjack may surrender
    and loses half the stake (an odd half minor unit stays with the house)."""
    table = Table(RULES, layout(RULES, ["TS 6H", "9S 7C"], "TD 7D"))
    dealt = table.deal([100, 15], "surrender", "surrender")
    assert nets(dealt) == {"r1b1": ("surrender", -50), "r1b2": ("surrender", -8)}
    assert table.replay().findings == ()


def test_no_surrender_against_an_ace() -> None:
    """Seed 003 (003:7-9): surrender is not offered when the up card is an ace."""
    assert "surrender" not in first_legal(RULES, "TS 6H", "AD 7D")
    table = Table(RULES, layout(RULES, ["TS 6H"], "AD 7D", play="2C"))
    table.deal([100], "hit")
    index = find(table.events, "decision.made")
    assert kinds(replay(edit(table.events, index, action="surrender")).findings) == [
        "illegal_decision"
    ]


def test_even_money_against_an_ace() -> None:
    """Seed 003 (003:12-15): a player blackjack against an ace may take even money, paid
    1:1 at once whether or not the dealer has blackjack."""
    for dealer in ("AD KD", "AD 7D"):
        table = Table(RULES, layout(RULES, ["AS KH"], dealer, draws="2C"))
        dealt = table.deal([100], choices=Choices(even_money=lambda bet: True))
        assert nets(dealt) == {"r1b1": ("even_money", 100)}
        assert table.replay().findings == ()


def test_double_on_hard_9_to_11_also_after_a_split() -> None:
    """Seed 003 (003:19, 003:21, 003:24): doubles on a hard 9, 10 or 11, on original and
    split hands alike."""
    assert "double" not in first_legal(RULES, "TS 2H", "6D TD")
    table = Table(RULES, layout(RULES, ["3S 3H"], "6D TD", play="6C TC 8C", draws="9D"))
    dealt = table.deal([100], "split", "double", "stand")
    assert actions_of(dealt) == ["split", "double", "stand"]
    assert nets(dealt) == {"r1b1": ("win", 100), "r1b1-s1": ("win", 100), "r1b1-d": ("win", 100)}
    assert table.replay().findings == ()


def test_no_splitting_4s_5s_or_tens() -> None:
    """Seed 003 (003:22): no splitting 4s, 5s or tens."""
    for pair in ("4S 4H", "5S 5H", "KS TH", "TS TH"):
        assert "split" not in first_legal(RULES, pair, "6D TD"), pair
    assert "split" in first_legal(RULES, "8S 8H", "6D TD")


def test_split_once_and_aces_one_card() -> None:
    """Seed 003 (003:25): a hand splits once only - a third equal card does not make a
    third hand - and split aces take one card each."""
    table = Table(RULES, layout(RULES, ["8S 8H"], "6D TD", play="8C 9C", draws="9D"))
    dealt = table.deal([100], "split", "stand", "stand")
    assert actions_of(dealt) == ["split", "stand", "stand"]
    assert table.replay().findings == ()


def test_a_split_21_is_not_a_natural() -> None:
    """Seed 003 (003:26): 21 from two cards of a split hand is not a natural and is paid
    even money."""
    table = Table(RULES, layout(RULES, ["AS AH"], "6D TD", play="KC 2C", draws="4D"))
    dealt = table.deal([100], "split")
    assert nets(dealt) == {"r1b1": ("win", 100), "r1b1-s1": ("lose", -100)}


def test_dealer_natural_without_peek_takes_all_or_original_stakes() -> None:
    """Seed 003 (003:10) and the rules brief's dealer_natural_takes: with no hole card, a dealer
    blackjack takes every stake on the hand (default "all"), or only the original stake
    where the rule set says "original" (double and split stakes go back)."""
    table = Table(RULES, layout(RULES, ["5S 6H"], "TD AS", play="9C"))
    assert nets(table.deal([100], "double")) == {"r1b1": ("lose", -100), "r1b1-d": ("lose", -100)}
    original = RULES.with_overrides({"dealer_natural_takes": "original"})
    table = Table(original, layout(original, ["5S 6H"], "TD AS", play="9C"))
    assert nets(table.deal([100], "double")) == {"r1b1": ("lose", -100), "r1b1-d": ("push", 0)}
    assert table.replay().findings == ()


def test_insurance_half_against_an_ace() -> None:
    """Seed 003 (003:9-11): against an ace the player without blackjack may insure for
    half the stake, paid 2:1 if the dealer has blackjack."""
    table = Table(RULES, layout(RULES, ["TS 9H"], "AD KD"))
    dealt = table.deal([100], choices=Choices(insure=lambda bet: 50))
    assert nets(dealt) == {"r1b1": ("lose", -100), "r1b1-i": ("win", 100)}
    assert table.replay().findings == ()


def test_insurance_only_for_a_hand_without_blackjack() -> None:
    """Seed 003 (003:10, "quando la carta scoperta del Banco è un asso e il giocatore non fa
    Blackjack"; 003:13: the blackjack is offered even money): the dealer offers insurance
    only to the hand without blackjack, and insurance recorded on a blackjack is an
    illegal decision - only that."""
    assert RULES.insurance_on_natural is False
    table = Table(RULES, layout(RULES, ["AS KH", "TS 9H"], "AD 7D", draws="2C"))
    asked: list[str] = []
    dealt = table.deal([100, 100], choices=Choices(insure=lambda bet: asked.append(bet.id) or 50))
    assert asked == ["r1b2"]
    assert nets(dealt) == {"r1b1": ("natural", 150), "r1b2": ("win", 100), "r1b2-i": ("lose", -50)}
    assert table.replay().findings == ()
    # the same insurance recorded on box 1's blackjack instead
    decision = find(table.events, "decision.made", action="insurance")
    stake = find(table.events, "bet.placed", kind="insurance")
    planted = edit(edit(table.events, decision, box=1, bet="r1b1"), stake, box=1, parent="r1b1")
    found = replay(planted).findings
    assert kinds(found) == ["illegal_decision"]
    assert "blackjack" in found[0].message and found[0].bet == "r1b1"


def test_a_missing_insurance_stake_after_every_hand_busted_is_only_that() -> None:
    """Every hand busted, the dealer still draws its second card to settle the insurance
    decided on (no hole card: the natural is known only then). With the insurance stake
    and its settlement left out of the record, the decision still stands: replay reports
    the missing stake, and the dealer's draw is not a procedure error (found by the
    property test of one missing stake)."""
    table = Table(RULES, layout(RULES, ["TS 6H"], "AD 5D", play="KC"))
    dealt = table.deal([100], "hit", choices=Choices(insure=lambda bet: 50))
    assert nets(dealt) == {"r1b1": ("lose", -100), "r1b1-i": ("lose", -50)}
    assert table.replay().findings == ()
    stake = find(table.events, "bet.placed", kind="insurance")
    settled = find(table.events, "round.settled")
    kept = [s for s in table.events[settled]["payload"]["settlements"] if s["bet"] != "r1b1-i"]
    changed = edit(table.events, settled, settlements=kept)
    found = replay(rewrap([e for i, e in enumerate(changed) if i != stake])).findings
    assert kinds(found) == ["missing_stake"]
    assert found[0].bet == "r1b1"
