"""Before the auditor forks its workers it works out the chart of each cash-out game the
manifest lists, once for all of them; a rule set it cannot build is left to the checks."""
from __future__ import annotations

from auditor.check import _prepare_offers
from tables.engine.math.strategy import analyse
from tables.engine.presets import PRESETS


def test_only_a_cash_out_game_s_chart_is_worked_out_ahead() -> None:
    analyse.cache_clear()
    _prepare_offers({"rule_sets": {
        "hoyle@x": {"ruleset": "hoyle", "overrides": {}},
        "it-live@x": {"ruleset": "it-live", "overrides": {}},
        "no-such@x": {"ruleset": "no-such", "overrides": {}},
        "it-live@bad": {"ruleset": "it-live", "overrides": {"decks": "many"}},
        "broken": "not an entry",
    }})
    assert analyse.cache_info().currsize == 1
    before = analyse.cache_info().hits
    analyse(PRESETS["it-live"])
    assert analyse.cache_info().hits == before + 1
