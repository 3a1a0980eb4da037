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
        assert played.recorded == {s.bet: (s.outcome, s.net) for s in table.settlements[played.number]}
