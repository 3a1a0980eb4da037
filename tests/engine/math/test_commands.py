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
    """--json gives house_edge (the chart's) and cd_house_edge (CDZ-) as decimal fractions
    (0.0045 = 0.45%), the variance and standard deviation of a round per unit staked, and
    the chart's parts; the text output shows both edges and the variance."""
    payload = json.loads(run("house_edge", "--ruleset", "vegas-6to5-single-deck", "--json"))
    # the 6:5 single-deck game: about 1.4% (Wizard of Odds: single deck H17 is about 0%,
    # and 6:5 naturals cost 1.39 points)
    assert payload["house_edge"] == pytest.approx(0.016, abs=0.001)
    assert payload["cd_house_edge"] < payload["house_edge"]
    assert payload["sd"] == pytest.approx(payload["variance"] ** 0.5, abs=1e-12)
    assert 1.2 < payload["variance"] < 1.4
    assert set(payload["parts"]) == {"natural", "stand", "hit", "double", "split", "surrender"}
    assert payload["rules"]["decks"] == 1
    text = run("house_edge", "--ruleset", "vegas-6to5-single-deck")
    assert f"{100 * payload['house_edge']:.4f}%" in text
    assert f"(CDZ-): {100 * payload['cd_house_edge']:.4f}%" in text
    assert f"variance of a round: {payload['variance']:.4f}" in text


def test_set_changes_the_rule_set() -> None:
    """--set decks=2 --set dealer_hits_soft_17=true is the H17 two-deck game."""
    payload = json.loads(
        run(
            "house_edge",
            "--ruleset",
            "hoyle",
            "--set",
            "decks=2",
            "--set",
            "dealer_hits_soft_17=true",
            "--json",
        )
    )
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
