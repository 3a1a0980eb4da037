"""The presets' figures are stored in the engine (tables/engine/math/preset_figures.py) so
that no process pays the analysis for them; every one is what the engine's analysis gives
today, so a change to the mathematics that moves a figure fails here until the file is
written again."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest

from tables.engine.math import figures, preset_figures
from tables.engine.math.covariance import box_covariance
from tables.engine.math.house_edge import house_edge
from tables.engine.presets import PRESETS

REGENERATE = "the engine's analysis moved: write the stored figures again with python -m tables.engine.math.figures"


def test_every_preset_has_stored_figures_and_the_file_is_as_the_generator_writes_it() -> None:
    assert list(preset_figures.PRESET_FIGURES) == list(PRESETS), REGENERATE
    text = Path(preset_figures.__file__).read_text(encoding="utf-8")
    assert text == figures.preset_figures_source(preset_figures.PRESET_FIGURES), REGENERATE


@pytest.mark.parametrize("name", sorted(PRESETS))
def test_a_presets_stored_figures_are_the_engines_analysis(name: str) -> None:
    """Bit for bit: the float the analysis gives, hence the same exact fraction."""
    rules = PRESETS[name]
    result = house_edge(rules)
    assert preset_figures.PRESET_FIGURES[name] == (result.house_edge, result.variance), REGENERATE
    covariance = Fraction(str(box_covariance(rules)))
    expected = (Fraction(str(result.house_edge)), Fraction(str(result.variance)), covariance)
    assert figures.engine_math(name, {}) == expected
    assert figures.analysed_math(name, {}) == expected


def test_the_stored_figures_serve_a_preset_played_as_it_is_and_only_that(monkeypatch) -> None:
    analysed: list[tuple[str, dict]] = []

    def analyse(name: str, overrides: dict) -> figures.Figures | None:
        analysed.append((name, dict(overrides)))
        return (Fraction(1), Fraction(2), None)

    monkeypatch.setattr(figures, "analysed_math", analyse)
    edge, variance = preset_figures.PRESET_FIGURES["hoyle"]
    stored = figures.engine_math("hoyle", {})
    assert stored is not None and stored[:2] == (Fraction(str(edge)), Fraction(str(variance)))
    # an override that leaves the rule set as it is changes nothing
    assert figures.engine_math("hoyle", {"decks": PRESETS["hoyle"].decks}) == stored
    assert analysed == []
    assert figures.engine_math("hoyle", {"decks": PRESETS["hoyle"].decks + 2}) == (
        Fraction(1),
        Fraction(2),
        None,
    )
    assert figures.engine_math("no-such-preset", {}) == (Fraction(1), Fraction(2), None)
    assert analysed == [("hoyle", {"decks": PRESETS["hoyle"].decks + 2}), ("no-such-preset", {})]


def test_a_rule_set_the_engine_does_not_know_has_no_figures() -> None:
    assert figures.engine_math("no-such-preset", {}) is None
    assert figures.engine_math("hoyle", {"no_such_rule": 1}) is None
