"""The two house games that are not from a seed (see presets.py for their sources)."""

from __future__ import annotations

from tables.engine.presets import PRESETS

from .helpers import Table, actions_of, first_legal, layout, nets

VEGAS = PRESETS["vegas-s17-das-ls"]
SIX_FIVE = PRESETS["vegas-6to5-single-deck"]


def test_late_surrender_after_the_peek() -> None:
    """Vegas S17 DAS LS: surrender on the first two cards after the dealer has checked for
    blackjack, half the stake back; against a dealer blackjack nobody may surrender."""
    table = Table(VEGAS, layout(VEGAS, ["TS 6H"], "TD 7D"))
    assert nets(table.deal([100], "surrender")) == {"r1b1": ("surrender", -50)}
    assert table.replay().findings == ()
    table = Table(VEGAS, layout(VEGAS, ["TS 6H"], "TD AD"))
    dealt = table.deal([100])
    assert actions_of(dealt) == [] and nets(dealt) == {"r1b1": ("lose", -100)}


def test_resplit_to_four_hands_and_double_after_split() -> None:
    """Vegas S17 DAS LS: pairs resplit to four hands, and split hands may double."""
    assert {"double", "split", "surrender"} <= first_legal(VEGAS, "8S 8H", "6D TD")
    table = Table(VEGAS, layout(VEGAS, ["8S 8H"], "6D TD", play="8C 8D 3C TC 9C 9D 9H", draws="TH"))
    dealt = table.deal([100], "split", "split", "split", "double")
    assert actions_of(dealt)[:4] == ["split", "split", "split", "double"]
    assert table.replay().findings == ()


def test_six_to_five_naturals_rounded_down() -> None:
    """6:5 single deck: a natural pays 6:5 (25 -> 30; 15 -> 18, the fraction to the house)."""
    table = Table(SIX_FIVE, layout(SIX_FIVE, ["AS KH", "AC QC"], "9D 8D"))
    assert nets(table.deal([25, 15])) == {"r1b1": ("natural", 30), "r1b2": ("natural", 18)}
    assert table.replay().findings == ()
