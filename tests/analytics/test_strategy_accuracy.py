"""Strategy accuracy on simulated days where the answer is planted: the decisions found
off the chart are exactly the casual players' planted errors (the simulator's manifest
lists each), basic-strategy players and counters make none, and each error's cost is
the chart play's expected value less the play made, times the stake - recomputed here
from the engine's mathematics."""

from __future__ import annotations

from fractions import Fraction

import pytest

from tables.analytics.accuracy import accuracy, decisions
from tables.engine.cards import VALUE
from tables.engine.math.composition import remaining
from tables.engine.math.ev import Position
from tables.engine.math.rulesview import PlayRules
from tables.engine.math.strategy import chart_for
from tables.engine.presets import PRESETS

from .helpers import kinds, simulated

SEEDS = ("play-1", "play-2")


@pytest.fixture(scope="module", params=SEEDS)
def day(request):
    streams, manifest = simulated(request.param)
    rows = [d for events in streams.values() for d in decisions(events)]
    return streams, manifest, rows


def _key(table, round, box, hand, action, chart):
    return (table, round, box, hand, action, chart)


def test_the_errors_found_are_the_errors_planted(day) -> None:
    _streams, manifest, rows = day
    found = sorted(
        _key(d.table, d.round, d.box, d.hand, d.action, d.chart) for d in rows if d.error
    )
    planted = sorted(
        _key(e["table"], e["round"], e["box"], e["hand"], e["action"], e["chart"])
        for e in manifest["strategy_errors"]
    )
    assert len(planted) > 50
    assert found == planted


def test_error_counts_per_player_match_and_only_casual_players_err(day) -> None:
    _streams, manifest, rows = day
    kind = kinds(manifest)
    planted: dict[str, int] = {}
    for e in manifest["strategy_errors"]:
        planted[e["player"]] = planted.get(e["player"], 0) + 1
    summary = accuracy(rows)
    assert {r.player: r.errors for r in summary if r.errors} == planted
    for row in summary:
        assert row.decisions > 0 and row.accuracy == Fraction(
            row.decisions - row.errors, row.decisions
        )
        if kind[row.player] in ("basic", "counter"):
            assert row.errors == 0 and row.cost == 0
    assert any(kind[r.player] == "basic" for r in summary) and any(
        kind[r.player] == "counter" for r in summary
    )


def test_the_cost_of_each_planted_error_is_its_expected_value_lost(day) -> None:
    _streams, manifest, rows = day
    rules_of = {t["table"]: PRESETS[t["ruleset"]] for t in manifest["tables"]}
    by_key = {(d.table, d.round, d.box, d.hand, d.cards): d for d in rows if d.error}
    total = 0
    for e in manifest["strategy_errors"]:
        rules = rules_of[e["table"]]
        cards, up = e["cards"], e["up"]
        values = [VALUE[c] for c in cards]
        pair = values[0] if len(values) == 2 and values[0] == values[1] else 0
        position = Position(PlayRules.of(rules), VALUE[up], remaining(rules.decks, [up, *cards]))
        found = by_key[(e["table"], e["round"], e["box"], e["hand"], tuple(cards))]
        ev = position.values(
            sum(values),
            1 in values,
            len(cards),
            pair,
            after_split=e["from_split"],
            policy=chart_for(rules),
            legal=frozenset((e["action"], e["chart"])),
        )
        expected = round((Fraction(ev[e["chart"]]) - Fraction(ev[e["action"]])) * found.stake)
        assert found.cost == expected, e
        total += expected
    by_player = sum(r.cost for r in accuracy(rows))
    assert by_player == total
    assert total > 0  # errors cost the players money overall
