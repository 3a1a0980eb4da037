"""A rule set's figures as the books use them, exact: the house edge of the chart played,
the variance of one round's result per unit of initial stake (:func:`.house_edge.house_edge`)
and the covariance of two boxes of one round (:func:`.covariance.box_covariance`, a seeded
estimate, stored for the presets); and insurance's own edge and variance
(:func:`insurance_math`). One function for the back-office's theoretical win and
the regulator's package, which the offline auditor recomputes.

The analysis takes seconds of CPU a rule set (tens for the seven presets) and hundreds of
MiB at its peak, so the presets' edge and variance are stored (:mod:`.preset_figures`,
written by ``python -m tables.engine.math.figures``): :func:`engine_math` reads them for a
preset played as it is, and analyses any other rule set (a table's overrides) once per
process. :func:`analysed_math` always analyses - the regulator's independent check
(``blackjack-audit verify --edges``) - and a test analyses every preset again and compares,
so a change to the mathematics that moves a figure fails until the file is written anew.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from pathlib import Path
from typing import Any

from ..presets import PRESETS
from ..rules import RuleSet
from .preset_figures import PRESET_FIGURES

# edge, variance per unit staked, covariance of two boxes per unit staked (None: the
# boxes taken as independent)
Figures = tuple[Fraction, Fraction, Fraction | None]


def _rules(name: str, overrides: tuple[tuple[str, Any], ...]) -> RuleSet | None:
    base = PRESETS.get(name)
    try:
        return base.with_overrides(dict(overrides)) if base is not None else None
    except ValueError:
        return None


def _exact(edge: float, variance: float, covariance: float) -> Figures:
    # the analysis gives floats; their decimal text made exact (never a float near money)
    return Fraction(str(edge)), Fraction(str(variance)), Fraction(str(covariance))


@lru_cache(maxsize=64)
def _analysed(name: str, overrides: tuple[tuple[str, Any], ...]) -> Figures | None:
    from .covariance import box_covariance
    from .house_edge import house_edge

    rules = _rules(name, overrides)
    if rules is None:
        return None
    figures = house_edge(rules)
    return _exact(figures.house_edge, figures.variance, box_covariance(rules))


def analysed_math(name: str, overrides: Mapping[str, Any]) -> Figures | None:
    """The figures of preset ``name`` with ``overrides``, analysed by the engine (once per
    rule set and process); None for a rule set the engine does not know."""
    return _analysed(name, tuple(sorted(overrides.items())))


def engine_math(name: str, overrides: Mapping[str, Any]) -> Figures | None:
    """The figures of preset ``name`` with ``overrides``: the stored ones of a preset
    played as it is (an override that changes nothing included), else
    :func:`analysed_math`; None for a rule set the engine does not know."""
    stored = PRESET_FIGURES.get(name)
    if stored is not None:
        rules = _rules(name, tuple(sorted(overrides.items())))
        if rules is not None and rules == PRESETS[name]:
            from .covariance import box_covariance

            return _exact(*stored, box_covariance(rules))
    return analysed_math(name, overrides)


def insurance_math(name: str, overrides: Mapping[str, Any]) -> tuple[Fraction, Fraction] | None:
    """Insurance's own house edge and variance per unit of insurance stake under preset
    ``name`` with ``overrides`` (:mod:`.insurance`: exact, from the decks and the payout);
    None for a rule set the engine does not know, or one without insurance."""
    from .insurance import insurance_figures

    rules = _rules(name, tuple(sorted(overrides.items())))
    return None if rules is None else insurance_figures(rules)


def preset_figures_source(figures: Mapping[str, tuple[float, float]] | None = None) -> str:
    """The text of :mod:`.preset_figures` for ``figures`` (preset: edge, variance);
    by default every preset analysed afresh."""
    if figures is None:
        from .house_edge import house_edge

        figures = {
            name: (result.house_edge, result.variance)
            for name, result in ((name, house_edge(rules)) for name, rules in PRESETS.items())
        }
    lines = [
        '"""The presets\' house edge and variance per unit staked, as',
        ":func:`tables.engine.math.house_edge.house_edge` gives them (floats; the books make",
        "their decimal text exact, :mod:`.figures`). Written by",
        "``python -m tables.engine.math.figures``: do not edit; the tests analyse every preset",
        'again and compare."""',
        "",
        "# preset: (house edge, variance)",
        "PRESET_FIGURES: dict[str, tuple[float, float]] = {",
        *(f'    "{name}": ({edge!r}, {variance!r}),' for name, (edge, variance) in figures.items()),
        "}",
    ]
    return "\n".join(lines) + "\n"


def main() -> None:
    from .strategy import preset_charts_source

    for name, source in (
        ("preset_figures.py", preset_figures_source()),
        ("preset_charts.py", preset_charts_source()),
    ):
        target = Path(__file__).with_name(name)
        target.write_text(source, encoding="utf-8")
        print(f"wrote {target}", file=sys.stderr)


if __name__ == "__main__":
    main()
