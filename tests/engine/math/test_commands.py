"""The strategy and house_edge management commands (no database needed)."""
import json
from io import StringIO

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError


def run(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_house_edge_json_is_a_fraction_of_the_stake() -> None:
    """--json gives house_edge as a decimal fraction (0.0045 = 0.45%) and its parts."""
    payload = json.loads(run("house_edge", "--ruleset", "vegas-s17-das-ls", "--json"))
    assert payload["house_edge"] == pytest.approx(0.0033, abs=0.0003)
    assert set(payload["parts"]) == {"natural", "stand", "hit", "double", "split", "surrender"}
    assert payload["rules"]["decks"] == 6


def test_set_changes_the_rule_set() -> None:
    """--set decks=2 --set dealer_hits_soft_17=true is the H17 two-deck game."""
    payload = json.loads(run("house_edge", "--ruleset", "hoyle", "--set", "decks=2",
                             "--set", "dealer_hits_soft_17=true", "--json"))
    assert payload["decks"] == 2 and payload["rules"]["dealer_hits_soft_17"] is True


def test_strategy_prints_the_chart() -> None:
    """The text chart has the three sections; JSON has every row by up card."""
    text = run("strategy", "--ruleset", "it-live")
    assert "Hard" in text and "Soft" in text and "Pairs" in text
    payload = json.loads(run("strategy", "--ruleset", "it-live", "--json"))
    assert payload["chart"]["columns"] == ["2", "3", "4", "5", "6", "7", "8", "9", "T", "A"]
    assert payload["chart"]["pairs"]["8"][0] == "P"


@pytest.mark.parametrize(
    ("args", "named"),
    [
        (["--ruleset", "no-such-game"], "no-such-game"),
        (["--ruleset", "hoyle", "--set", "deckz=2"], "deckz"),
        (["--ruleset", "hoyle", "--set", "decks=two"], "decks"),
        (["--ruleset", "hoyle", "--set", "dealer_hits_soft_17=maybe"], "dealer_hits_soft_17"),
        (["--ruleset", "hoyle", "--set", "hole_card=sideways"], "hole_card"),
        (["--ruleset", "hoyle", "--set", "decks"], "decks"),
    ],
)
@pytest.mark.parametrize("command", ["strategy", "house_edge"])
def test_bad_input_is_a_command_error_naming_it(command: str, args: list[str], named: str) -> None:
    """An unknown rule set, parameter or value stops with exit code 2 and names it."""
    with pytest.raises(CommandError, match=named) as caught:
        call_command(command, *args, stdout=StringIO())
    assert caught.value.returncode == 2
