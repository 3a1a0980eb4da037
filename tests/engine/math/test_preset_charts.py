"""The presets' basic-strategy charts are stored in the engine
(tables/engine/math/preset_charts.py) so that no process valuing cash-out offers pays the
analysis for them; each is what the engine's analysis gives today, so a change to the
mathematics that moves a cell fails here until the file is written again."""

from __future__ import annotations

from pathlib import Path

import pytest

from tables.engine.math import preset_charts, strategy
from tables.engine.presets import PRESETS

REGENERATE = "the engine's analysis moved: write the stored charts again with python -m tables.engine.math.figures"


def test_every_preset_has_a_stored_chart_and_the_file_is_as_the_generator_writes_it() -> None:
    assert list(preset_charts.PRESET_CHARTS) == list(PRESETS), REGENERATE
    stored = {name: strategy.chart_for(rules) for name, rules in PRESETS.items()}
    text = Path(preset_charts.__file__).read_text(encoding="utf-8")
    assert text == strategy.preset_charts_source(stored), REGENERATE


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_presets_stored_chart_is_the_engines_analysis(name: str) -> None:
    strategy.chart_for.cache_clear()
    chart = strategy.chart_for(PRESETS[name])
    assert chart == strategy.analyse(PRESETS[name]).chart, REGENERATE
    assert chart.name == name


def test_the_stored_chart_serves_a_preset_played_as_it_is_and_only_that(monkeypatch) -> None:
    analysed: list[str] = []
    real = strategy.analyse

    def analyse(rules):
        analysed.append(rules.name)
        return real(rules)

    monkeypatch.setattr(strategy, "analyse", analyse)
    strategy.chart_for.cache_clear()
    live = PRESETS["it-live"]
    strategy.chart_for(live)
    # an override that leaves the rule set as it is changes nothing
    strategy.chart_for(live.with_overrides({"decks": live.decks}))
    assert analysed == []
    # a table's overrides make another game: its chart is analysed, not taken from the preset
    other = live.with_overrides({"decks": 2, "double_after_split": not live.double_after_split})
    assert strategy.chart_for(other) == real(other).chart
    assert analysed == ["it-live"]
    strategy.chart_for.cache_clear()
