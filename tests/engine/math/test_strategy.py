"""The generated basic-strategy charts against published ones, and ComputedStrategy."""

import pytest

from tables.engine.math.strategy import UPS, ComputedStrategy, chart_for
from tables.engine.presets import PRESETS
from tables.engine.rules import RuleSet

# blackjack-chart.com, "Blackjack Strategy Chart: Dealer Stands on Soft 17" (multiple
# decks, double any two, double after split, S17; X/H = surrender else hit, written Rh
# here). Columns 2..A.
PUBLISHED_S17_DAS = """
8    H  H  H  H  H  H  H  H  H  H
9    H  D  D  D  D  H  H  H  H  H
10   D  D  D  D  D  D  D  D  H  H
11   D  D  D  D  D  D  D  D  D  H
12   H  H  S  S  S  H  H  H  H  H
13   S  S  S  S  S  H  H  H  H  H
14   S  S  S  S  S  H  H  H  H  H
15   S  S  S  S  S  H  H  H  Rh H
16   S  S  S  S  S  H  H  Rh Rh Rh
17   S  S  S  S  S  S  S  S  S  S
A,2  H  H  H  D  D  H  H  H  H  H
A,3  H  H  H  D  D  H  H  H  H  H
A,4  H  H  D  D  D  H  H  H  H  H
A,5  H  H  D  D  D  H  H  H  H  H
A,6  H  D  D  D  D  H  H  H  H  H
A,7  S  Ds Ds Ds Ds S  S  H  H  H
A,8  S  S  S  S  S  S  S  S  S  S
A,9  S  S  S  S  S  S  S  S  S  S
2,2  P  P  P  P  P  P  H  H  H  H
3,3  P  P  P  P  P  P  H  H  H  H
4,4  H  H  H  P  P  H  H  H  H  H
5,5  D  D  D  D  D  D  D  D  H  H
6,6  P  P  P  P  P  H  H  H  H  H
7,7  P  P  P  P  P  P  H  H  H  H
8,8  P  P  P  P  P  P  P  P  P  P
9,9  P  P  P  P  P  S  P  P  S  S
T,T  S  S  S  S  S  S  S  S  S  S
A,A  P  P  P  P  P  P  P  P  P  P
"""


def _row(chart_rules: RuleSet, label: str) -> tuple[str, ...]:
    chart = chart_for(chart_rules)
    if "," not in label:
        return tuple(chart.hard[int(label)])
    first, second = label.split(",")
    value = {"A": 1, "T": 10}
    if first == second:
        return tuple(chart.pairs[value.get(first, 0) or int(first)])
    return tuple(chart.soft[11 + int(second)])


def test_six_deck_s17_das_chart_equals_the_published_one() -> None:
    """Six decks, S17, DAS, late surrender: every cell of hard 8-17, soft A,2-A,9 and
    every pair equals blackjack-chart.com's multi-deck S17 chart (exact match)."""
    six = RuleSet(name="6d", decks=6, double_after_split=True, max_split_hands=4, surrender="late")
    for line in PUBLISHED_S17_DAS.strip().splitlines():
        label, *codes = line.split()
        assert _row(six, label) == tuple(codes), label


def _cell(chart_rules: RuleSet, label: str, up: int) -> str:
    return _row(chart_rules, label)[UPS.index(up)]


def test_known_cells_across_rule_sets() -> None:
    """Cells that distinguish the usual published charts (Wizard of Odds' basic strategy
    pages for 4-8 decks S17/H17, single deck S17, and European no-hole-card rules; Thorp,
    Beat the Dealer, for single deck): exact match.

    * 4-8 decks S17: hard 12 vs 2 hits, vs 4-6 stands; soft 18 vs 9 hits; 11 vs A hits;
      pair of 8s always split;
    * 4-8 decks H17: 11 vs A doubles; A,7 vs 2 and A,8 vs 6 double else stand; with late
      surrender 17 vs A and 15 vs A surrender, 8,8 vs A surrenders else splits;
    * single deck S17: 11 vs A and 9 vs 2 double; 7,7 vs T stands; A,6 vs 2 doubles;
    * no hole card, every stake lost to a natural: 11 vs T and 8,8 vs T hit.
    """
    s17 = RuleSet(name="s17", decks=6, double_after_split=True, max_split_hands=4)
    assert _cell(s17, "12", 2) == "H"
    assert [_cell(s17, "12", up) for up in (4, 5, 6)] == ["S", "S", "S"]
    assert _cell(s17, "A,7", 9) == "H"
    assert _cell(s17, "11", 1) == "H"
    assert set(_row(s17, "8,8")) == {"P"}

    h17 = RuleSet(
        name="h17",
        decks=6,
        dealer_hits_soft_17=True,
        double_after_split=True,
        max_split_hands=4,
        surrender="late",
    )
    assert _cell(h17, "11", 1) == "D"
    assert _cell(h17, "A,7", 2) == "Ds"
    assert _cell(h17, "A,8", 6) == "Ds"
    assert _cell(h17, "17", 1) == "Rs"
    assert _cell(h17, "15", 1) == "Rh"
    assert _cell(h17, "8,8", 1) == "Rp"

    single = RuleSet(name="1d", decks=1, double_after_split=False, max_split_hands=4)
    assert _cell(single, "11", 1) == "D"
    assert _cell(single, "9", 2) == "D"
    assert _cell(single, "7,7", 10) == "S"
    assert _cell(single, "A,6", 2) == "D"

    enhc = RuleSet(
        name="enhc", decks=6, hole_card="none", double_after_split=True, max_split_hands=4
    )
    assert _cell(enhc, "11", 10) == "H"
    assert _cell(enhc, "8,8", 10) == "H"


def test_live_game_rules_shape_the_chart() -> None:
    """Seed 000 (it-live): a hand of 17 or more gets no card, so soft 17 and 18 stand
    against everything and 9,9 never splits (as the engine's live_action); below 11 a
    hand never stands; without DAS 4,4 never splits."""
    chart = chart_for(PRESETS["it-live"])
    assert set(chart.soft[17]) == set(chart.soft[18]) == set(chart.pairs[9]) == {"S"}
    for total in range(4, 11):
        assert "S" not in chart.hard[total] and "Ds" not in chart.hard[total]
    assert "P" not in chart.pairs[4]


def test_chart_is_generated_per_rule_set() -> None:
    """Doubling restricted to 9-11 (hoyle) leaves no soft double in the chart."""
    chart = chart_for(PRESETS["hoyle"])
    assert not any(code.startswith("D") for row in chart.soft.values() for code in row)


LEGAL_FIRST = frozenset({"hit", "stand", "double", "split", "surrender"})


@pytest.mark.parametrize(
    ("cards", "up", "legal", "expected"),
    [
        (("TS", "6H"), "TD", {"hit", "stand"}, "hit"),
        (("TS", "6H"), "TD", LEGAL_FIRST - {"split"}, "surrender"),
        (("8S", "8H"), "TD", LEGAL_FIRST, "split"),
        (("8S", "8H"), "TD", {"hit", "stand"}, "hit"),
        (("5S", "6H"), "6D", LEGAL_FIRST - {"split"}, "double"),
        (("5S", "4H", "2C"), "6D", {"hit", "stand"}, "hit"),
        (("AS", "7H"), "4D", LEGAL_FIRST - {"split"}, "double"),
        (("AS", "7H"), "4D", {"hit", "stand"}, "stand"),
        (("AS", "7H"), "9D", {"hit", "stand"}, "hit"),
        (("TS", "2H"), "4D", {"hit", "stand"}, "stand"),
    ],
)
def test_computed_strategy_plays_the_chart(
    cards: tuple[str, ...], up: str, legal: set[str], expected: str
) -> None:
    """ComputedStrategy (the engine's Strategy protocol: action(cards, up, legal, *,
    split_done)) returns the chart's first legal choice: D falls back to hit, Ds to stand,
    Rh to hit, P to the pair's total."""
    strategy = ComputedStrategy(PRESETS["vegas-s17-das-ls"])
    assert strategy.action(cards, up, frozenset(legal), split_done=False) == expected
    assert strategy.decide(cards, up, frozenset(legal)) == expected
