"""What-if re-settlement on a simulated day: under 6:5 naturals each table's and each
player's totals equal a re-settlement computed here by hand - every natural paid 6:5
instead (rounded down, the rule sets' policy), every other bet as the table's rules
settle it; insurance at 3:2 likewise; a change of the play is refused; nothing in the
events handed over is changed."""

from __future__ import annotations

import copy

import pytest

from tables.analytics.whatif import WhatIfError, resettle, totals
from tables.engine.replay import replay

from .helpers import simulated


@pytest.fixture(scope="module")
def day():
    streams, _manifest = simulated("what-if", tables=3, rounds=200)
    return streams


def _by_hand(streams, ratio: tuple[int, int], outcome: str, kinds: tuple[str, ...]):
    """Per table and per player: the players' net as the rules settle it, and under the change."""
    tables: dict[str, list[int]] = {}
    players: dict[str, list[int]] = {}
    for stream, events in streams.items():
        player_of = {
            (e["payload"]["round"], e["payload"]["bet"]): e["payload"]["player"] or ""
            for e in events
            if e["type"] == "bet.placed"
        }
        for result in replay(events, check_offers=False).rounds:
            if result.voided:
                continue
            for bet, settlement in result.expected.items():
                if bet not in result.bets:
                    continue
                amount, kind = result.bets[bet][3], result.bets[bet][2]
                after = settlement.net
                if settlement.outcome == outcome and kind in kinds:
                    after = amount * ratio[0] // ratio[1]
                for key, sums in (
                    (stream, tables),
                    (player_of.get((result.number, bet), ""), players),
                ):
                    pair = sums.setdefault(key, [0, 0])
                    pair[0] += settlement.net
                    pair[1] += after
    return tables, players


@pytest.mark.parametrize(
    ("changes", "ratio", "outcome", "kinds", "least"),
    [
        ({"natural_pays": "6:5"}, (6, 5), "natural", ("main", "split", "behind"), 30),
        ({"insurance_pays": "3:2"}, (3, 2), "win", ("insurance",), 1),  # insurance seldom wins
    ],
)
def test_totals_equal_an_independent_resettlement(
    day, changes, ratio, outcome, kinds, least
) -> None:
    rows = [r for events in day.values() for r in resettle(events, changes)]
    tables, players = _by_hand(day, ratio, outcome, kinds)
    assert {t.key: [t.net, t.what_if_net] for t in totals(rows, "table")} == tables
    assert {t.key: [t.net, t.what_if_net] for t in totals(rows, "player")} == players
    assert sum(1 for r in rows if r.net != r.what_if_net) >= least
    assert all(r.difference == r.net - r.what_if_net for r in rows)


def test_six_to_five_takes_from_the_players(day) -> None:
    rows = [r for events in day.values() for r in resettle(events, {"natural_pays": "6:5"})]
    changed = [r for r in rows if r.net != r.what_if_net]
    assert changed and all(r.outcome == "natural" and r.difference > 0 for r in changed)


def test_a_change_of_the_play_is_refused_and_the_record_untouched(day) -> None:
    events = day["BJ-01"]
    before = copy.deepcopy(events)
    with pytest.raises(WhatIfError, match="only payouts"):
        resettle(events, {"dealer_hits_soft_17": True})
    with pytest.raises(WhatIfError):
        resettle(events, {"natural_pays": "six to five"})
    resettle(events, {"natural_pays": "6:5"})
    assert events == before
