"""The rules brief's parameters every preset must expose even where no seed uses a value:
peek on ace only, and natural ratios 3:2, 6:5, 2:1, 3:1."""

from __future__ import annotations

import pytest

from tables.engine.presets import PRESETS

from .helpers import Table, actions_of, layout, nets, targets

HOYLE = PRESETS["hoyle"]


def test_peek_ace_does_not_peek_under_a_ten() -> None:
    """The rules brief, hole_card peek_ace: the dealer looks only under an ace; with a ten up
    play goes on, and a natural found at the end takes every stake on the hand."""
    rules = HOYLE.with_overrides({"hole_card": "peek_ace"})
    table = Table(rules, layout(rules, ["5S 5H"], "TD AS", play="9C"))
    dealt = table.deal([1000], "double")
    assert actions_of(dealt) == ["double"]
    assert targets(dealt)[3] == (None, None, "down")
    assert nets(dealt) == {"r1b1": ("lose", -1000), "r1b1-d": ("lose", -1000)}
    assert table.replay().findings == ()
    table = Table(rules, layout(rules, ["5S 5H"], "AD KS"))
    assert actions_of(table.deal([1000], "double")) == []  # under an ace it peeks


@pytest.mark.parametrize(
    ("ratio", "stake", "paid"), [("3:2", 25, 37), ("6:5", 25, 30), ("2:1", 25, 50), ("3:1", 25, 75)]
)
def test_natural_ratios(ratio: str, stake: int, paid: int) -> None:
    """The rules brief, natural_pays: 3:2 (000, 002, 003, 004), 3:1 (001 as written), and 6:5 and
    2:1 must work too; fractions of a minor unit go to the house."""
    rules = HOYLE.with_overrides({"natural_pays": ratio, "min_bet": 1})
    table = Table(rules, layout(rules, ["AS KH"], "9D 8D"))
    assert nets(table.deal([stake])) == {"r1b1": ("natural", paid)}
    assert table.replay().findings == ()


def test_rounding_policy_is_the_rule_sets() -> None:
    """The design, Money: a payout that is not a whole minor unit follows the rule set's
    rounding policy (3:2 on 25 is 37.5)."""
    for policy, paid in (("down", 37), ("up", 38), ("half_up", 38), ("half_even", 38)):
        rules = HOYLE.with_overrides({"rounding": policy, "min_bet": 1})
        table = Table(rules, layout(rules, ["AS KH"], "9D 8D"))
        assert nets(table.deal([25])) == {"r1b1": ("natural", paid)}, policy
