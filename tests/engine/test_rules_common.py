"""The rules brief, "Common to every seed": the same behaviour under each seed's preset."""

from __future__ import annotations

import dataclasses

import pytest

from tables.engine.hands import is_bust, is_natural, total
from tables.engine.presets import PRESETS
from tables.engine.replay import replay

from .helpers import Table, insert_before_last, kinds, layout, nets

SEEDS = {
    "it-live": "000",
    "it-classic": "001",
    "it-sabot": "002",
    "eu-online": "003",
    "hoyle": "004",
}
PRESET_NAMES = sorted(SEEDS)


def test_card_values_soft_and_hard_totals() -> None:
    """Seed 000 (and every seed): 2-9 count face value, tens and faces 10, an ace 1 or 11;
    A-6 is soft 17, A-2-10-5 is hard 18, 6-8-A-5 is hard 20, 10-5 is hard 15."""
    assert total(["AH", "6C"]) == (17, True)
    assert total(["AH", "2C", "TD", "5S"]) == (18, False)
    assert total(["6S", "8H", "AD", "5C"]) == (20, False)
    assert total(["TS", "5C"]) == (15, False)
    assert total(["KS", "QD"]) == (20, False)
    assert total(["AS", "AD"]) == (12, True)


def test_naturals_and_busts() -> None:
    """Seed 000 (and every seed): a natural is an ace and a ten-value card as the first two
    cards of an original hand; a hand over 21 busts."""
    assert is_natural(["AS", "JD"], split=False)
    assert not is_natural(["AS", "JD"], split=True)
    assert not is_natural(["7S", "7D", "7C"], split=False)
    assert is_bust(["TS", "6D", "8C"]) and not is_bust(["AS", "AD", "9C"])


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_bust_loses_even_if_the_dealer_busts(name: str) -> None:
    """Every seed (000 rule 1, 001, 002, 003, 004): a hand over 21 loses at once, even if
    the dealer busts later."""
    rules = PRESETS[name]
    # box 1 hits 10-6 and busts with a ten; box 2 stands on 20; the dealer 10-6 draws and busts
    table = Table(rules, layout(rules, ["TS 6H", "TC KD"], "TD 6S", play="KH", draws="9C"))
    stake = max(100, rules.min_bet)
    dealt = table.deal([stake, stake], "hit")
    assert nets(dealt)["r1b1"] == ("lose", -stake)
    assert nets(dealt)["r1b2"] == ("win", stake)
    assert table.replay().findings == ()


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_dealer_draws_to_16_and_stands_on_soft_17(name: str) -> None:
    """Every seed (000:103-104, 001:33, 002:26-27, 003:33, 004:43): the dealer draws on 16
    or less and stands on 17 or more, counting an ace as 11 when that makes 17-21 (S17)."""
    rules = PRESETS[name]
    stake = max(100, rules.min_bet)
    # the dealer 5-A (soft 16) draws once: an ace makes soft 17 and the dealer stands
    table = Table(rules, layout(rules, ["TS 8H"], "5D AS", draws="AC"))
    dealt = table.deal([stake])
    assert nets(dealt)["r1b1"] == ("win", stake)
    assert dealt.round is not None and dealt.round.dealer == ["5D", "AS", "AC"]
    assert table.replay().findings == ()


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_a_dealer_draw_on_soft_17_is_a_procedure_error(name: str) -> None:
    """Every seed stands on soft 17 (dealer_hits_soft_17 is false): a card the dealer takes
    on A-6 is a dealer_procedure finding (000 house rule 5: such a card is burned)."""
    rules = PRESETS[name]
    stake = max(100, rules.min_bet)
    table = Table(rules, layout(rules, ["TS 8H"], "6D AS", draws="2C"))
    table.deal([stake])
    events = insert_before_last(
        table.events,
        "card.dealt",
        {"round": 1, "box": None, "hand": None, "card": "2C", "face": "up"},
    )
    assert kinds(replay(events).findings) == ["dealer_procedure"]


def test_hit_soft_17_when_the_rule_set_says_so() -> None:
    """The rules brief: dealer_hits_soft_17 must exist; with it (vegas 6:5 game) the dealer draws on A-6."""
    rules = PRESETS["vegas-6to5-single-deck"]
    table = Table(rules, layout(rules, ["TS 8H"], "6D AS", draws="2C"))
    dealt = table.deal([100])
    assert dealt.round is not None and dealt.round.dealer == ["6D", "AS", "2C"]
    assert nets(dealt)["r1b1"] == ("lose", -100)
    assert table.replay().findings == ()


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_equal_totals_push_higher_total_wins_even_money(name: str) -> None:
    """Every seed (000 rules 2-3, 001:36, 002:28-31, 003:35-36, 004:63): equal totals push
    (seed 002 leaves the pushed stake on the layout), a higher total wins even money, a
    lower one loses."""
    rules = PRESETS[name]
    stake = max(100, rules.min_bet)
    table = Table(rules, layout(rules, ["TS 8H", "TC 9D", "TH 7C"], "TD 8S"))
    dealt = table.deal([stake, stake, stake])
    push = "carried" if rules.push_carries_over else "push"
    assert nets(dealt) == {"r1b1": (push, 0), "r1b2": ("win", stake), "r1b3": ("lose", -stake)}


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_natural_beats_a_three_card_21_and_pushes_a_dealer_natural(name: str) -> None:
    """Every seed (000 rule 4, 001:23, 002:40, 003:30, 004:31): a natural is paid at the rule
    set's ratio, beats a 21 of three cards, and against a dealer natural is a push
    (seed 002: the stake stays frozen on the layout)."""
    rules = PRESETS[name]
    stake = max(100, rules.min_bet)
    # the dealer 7-4 draws a ten: 21 of three cards
    table = Table(rules, layout(rules, ["AS KH"], "7D 4S", draws="TC"))
    dealt = table.deal([stake])
    numerator, denominator = rules.natural_pays
    assert nets(dealt)["r1b1"] == ("natural", stake * numerator // denominator)
    table = Table(rules, layout(rules, ["AS KH"], "AD QS"))
    dealt = table.deal([stake])
    assert nets(dealt)["r1b1"] == ("carried" if rules.push_carries_over else "push", 0)


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_dealer_bust_pays_every_live_hand(name: str) -> None:
    """Every seed (000:43, 002:31-32, 003:34, 004:63): when the dealer busts every hand
    still standing is paid even money."""
    rules = PRESETS[name]
    stake = max(100, rules.min_bet)
    table = Table(rules, layout(rules, ["TS 2H", "TC 7D", "9H 8C"], "6S TD", draws="KC"))
    dealt = table.deal([stake, stake, stake], "stand", "stand")
    assert nets(dealt) == {"r1b1": ("win", stake), "r1b2": ("win", stake), "r1b3": ("win", stake)}


@pytest.mark.parametrize("name", PRESET_NAMES)
def test_insurance_pays_two_to_one_independently(name: str) -> None:
    """Every seed (000:127, 001:21, 002:51-56, 003:10, 004:59): insurance against an ace is
    a side bet paid 2:1 when the dealer has a natural and lost otherwise, settled apart
    from the main bet."""
    from .helpers import Choices

    rules = PRESETS[name]
    stake = max(100, rules.min_bet)
    insure = Choices(insure=lambda bet: bet.amount // 2)
    table = Table(rules, layout(rules, ["TS 9H"], "AD KS"))
    dealt = table.deal([stake], choices=insure)
    assert nets(dealt) == {"r1b1": ("lose", -stake), "r1b1-i": ("win", stake)}
    table = Table(rules, layout(rules, ["TS 9H"], "AD 7S"))
    dealt = table.deal([stake], choices=insure)
    assert nets(dealt) == {"r1b1": ("win", stake), "r1b1-i": ("lose", -(stake // 2))}
    assert table.replay().findings == ()


def test_a_rule_sets_hash_is_its_fields_and_stays_right_past_the_remembered() -> None:
    """RuleSet remembers its hash for a few rule sets (by identity, each held): the hash
    is still the frozen dataclass's (of every field, in order), equal rule sets hash
    alike, and rule sets past the remembered ones still hash by their own fields."""

    def by_fields(rules: object) -> int:
        return hash(tuple(getattr(rules, f.name) for f in dataclasses.fields(rules)))

    made = [
        PRESETS["hoyle"].with_overrides({"decks": decks % 8 + 1, "min_bet": 100 + decks})
        for decks in range(200)
    ]
    for rules in made + made:
        assert hash(rules) == by_fields(rules)
    for name, rules in PRESETS.items():
        assert hash(rules) == by_fields(rules) == hash(dataclasses.replace(rules)), name
        assert {rules: 1}[dataclasses.replace(rules)] == 1
