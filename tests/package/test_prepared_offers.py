"""Before the auditor forks its workers it works out the chart of each cash-out game the
manifest lists, once for all of them (a preset's is stored: only a table's overrides
make one to analyse); a rule set it cannot build is left to the checks."""

from __future__ import annotations

from auditor.check import _prepare_offers
from tables.engine.math.strategy import analyse, chart_for
from tables.engine.presets import PRESETS


def test_only_a_cash_out_game_s_chart_is_worked_out_ahead() -> None:
    analyse.cache_clear()
    chart_for.cache_clear()
    _prepare_offers(
        {
            "rule_sets": {
                "hoyle@x": {"ruleset": "hoyle", "overrides": {}},
                "it-live@x": {"ruleset": "it-live", "overrides": {}},
                "it-live@2": {"ruleset": "it-live", "overrides": {"decks": 2}},
                "no-such@x": {"ruleset": "no-such", "overrides": {}},
                "it-live@bad": {"ruleset": "it-live", "overrides": {"decks": "many"}},
                "broken": "not an entry",
            }
        }
    )
    # the two cash-out games' charts: the preset's as stored, the two-deck game's analysed
    assert chart_for.cache_info().currsize == 2
    assert analyse.cache_info().currsize == 1
    before = chart_for.cache_info().hits
    chart_for(PRESETS["it-live"].with_overrides({"decks": 2}))
    chart_for(PRESETS["it-live"])
    assert chart_for.cache_info().hits == before + 2
    assert analyse.cache_info().currsize == 1
