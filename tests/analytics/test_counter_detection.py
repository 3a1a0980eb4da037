"""Counter detection on simulated days where the answer is planted: the simulator's
Hi-Lo counters who had a count to bet on are flagged, its basic-strategy players never
are, and the casual players (who bet by mood) are not either."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tables.analytics.counters import ALPHA, MIN_BETS, assess
from tables.analytics.counting import counted_bets
from tables.analytics.significance import ranks, spearman
from tables.engine.cards import HI_LO

from .helpers import kinds, simulated

SEEDS = ("count-1", "count-2", "count-3")


@pytest.fixture(scope="module")
def assessed():
    out = []
    for seed in SEEDS:
        streams, manifest = simulated(seed)
        bets = [b for events in streams.values() for b in counted_bets(events)]
        out.append((seed, assess(bets), kinds(manifest)))
    return out


def test_counters_with_a_count_to_bet_on_are_flagged(assessed) -> None:
    """A counter who sat through at least ten bets at a true count of +2 or more, over at
    least MIN_BETS bets, is flagged at every seed; so is at least one counter per seed."""
    for seed, rows, kind in assessed:
        counters = [r for r in rows if kind[r.player] == "counter"]
        assert any(r.flagged for r in counters), seed
        for row in counters:
            if row.bets >= MIN_BETS and row.high_bets >= 10:
                assert row.flagged, (seed, row.player, row.rho, row.p_value)
                assert (
                    row.mean_high is not None
                    and row.mean_low is not None
                    and row.mean_high > row.mean_low
                )
                assert row.verdict == "bets rise with the true count"


def test_players_who_do_not_count_are_not_flagged(assessed) -> None:
    """Basic-strategy and casual players are never flagged (the measured false-positive
    rate over these seeds is 0 of the players assessed, against ALPHA by design)."""
    assessed_players = 0
    for seed, rows, kind in assessed:
        for row in rows:
            if kind[row.player] in ("basic", "casual"):
                assert not row.flagged, (seed, row.player, row.rho, row.p_value)
                assessed_players += row.bets >= MIN_BETS
    assert (
        assessed_players >= 60
    )  # enough players with enough bets for the statement to mean something


def test_a_flag_needs_enough_bets_and_significance(assessed) -> None:
    for _seed, rows, _kind in assessed:
        for row in rows:
            if row.flagged:
                assert (
                    row.bets >= MIN_BETS
                    and row.p_value is not None
                    and row.p_value <= ALPHA
                    and row.rho > 0
                )
            if row.bets < MIN_BETS:
                assert not row.flagged and "too few bets" in row.verdict
            assert row.spread == Fraction(row.max_bet, row.min_bet)


def test_the_true_count_is_the_running_count_over_the_decks_left() -> None:
    """Recomputed here from the cards each round shows: the count before a round's bets
    is the tags of every card of the shoe's earlier rounds over the decks not yet dealt."""
    streams, _ = simulated("count-1")
    events = streams["BJ-01"]
    bets = {(b.round, b.bet): b.true_count for b in counted_bets(events)}
    running = out = decks = 0
    seen: list[str] = []
    checked = 0
    for event in events:
        p = event["payload"]
        if event["type"] == "shoe.shuffled":
            running, out, decks, seen = 0, 0, p["decks"], []
        elif event["type"] == "card.burned":
            out += 1
        elif event["type"] == "card.dealt":
            out += 1
            seen.append(p["card"])
        elif event["type"] == "round.settled":
            running += sum(HI_LO[c] for c in seen)
            seen = []
        elif event["type"] == "bet.placed" and (p["round"], p["bet"]) in bets:
            left = max((decks * 52 - out) / 52, 0.25)
            assert bets[(p["round"], p["bet"])] == pytest.approx(running / left)
            checked += 1
    assert checked == len(bets) > 100


def test_spearman_against_a_worked_example() -> None:
    """Ties take the mean rank; rho is Pearson's r of the ranks; a perfect rise is
    significant, a shuffle of it is not, and the p-value is reproducible."""
    assert ranks([3, 1, 3, 2]) == [3.5, 1.0, 3.5, 2.0]
    x = list(range(40))
    rising = spearman(x, [v // 5 for v in x], seed="s")
    assert (
        rising.rho == pytest.approx(1.0, abs=0.03)
        and rising.p_value is not None
        and rising.p_value < 0.001
    )
    mixed = [7, 1, 9, 3, 3, 8, 2, 6, 5, 4] * 4
    unrelated = spearman(x, mixed, seed="s")
    assert unrelated.p_value is not None and unrelated.p_value > 0.05
    assert spearman(x, mixed, seed="s") == unrelated
    assert spearman(x, [5] * 40, seed="s").rho is None
