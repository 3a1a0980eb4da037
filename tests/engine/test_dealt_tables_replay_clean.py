"""Every table the engine deals replays with no finding, for every preset."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from tables.engine.presets import PRESETS
from tables.engine.replay import replay
from tables.engine.simulate import deal_table

START = datetime(2026, 11, 29, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_dealt_table_replays_clean(name: str) -> None:
    """Seeds 000-004 and the house games: 150 dealt rounds of three boxes replay with
    no finding, and replay recomputes exactly the settlements the dealer recorded."""
    table = deal_table(PRESETS[name], seed=f"clean-{name}", rounds=150, start=START, bettors=2)
    result = replay(table.events)
    assert result.findings == ()
    assert len(result.rounds) == 150
    for played in result.rounds:
        assert played.recorded == {
            s.bet: (s.outcome, s.net) for s in table.settlements[played.number]
        }


def test_a_round_that_runs_the_deck_out_is_dealt_again_from_a_new_shoe() -> None:
    """One deck, five boxes of two bettors and a cut card 20 to 30 cards from the end: the
    round of seed 3753 that starts with 21 cards left needs more (dealing it raised
    IndexError). It is dealt again from a new shoe, as the day simulator deals it, and
    the table replays clean."""
    table = deal_table(
        PRESETS["vegas-6to5-single-deck"],
        seed="3753",
        rounds=6,
        boxes=5,
        start=START,
        bettors=2,
        hashed=False,
    )
    left_early = []
    cut = used = 0
    for event in table.events:
        if event["type"] == "shoe.shuffled":
            left_early.append(0 < used < cut)
            used = 0
        elif event["type"] == "shoe.cut":
            cut = event["payload"]["cut_card"]
        elif event["type"] in ("card.dealt", "card.burned"):
            used += 1
    assert any(left_early)  # a shoe left before its cut card was reached
    result = replay(table.events)
    assert result.findings == ()
    assert [played.number for played in result.rounds] == [1, 2, 3, 4, 5, 6]
