"""A rule set's figures as the books use them, exact: the house edge of the chart played,
the variance of one round's result per unit staked (:func:`.house_edge.house_edge`) and
the covariance of two boxes of one round (:func:`.covariance.box_covariance`, a seeded
estimate, stored for the presets). One function for the back-office's theoretical win and
the regulator's package, which the offline auditor recomputes."""
from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import lru_cache
from typing import Any

from ..presets import PRESETS

# edge, variance per unit staked, covariance of two boxes per unit staked (None: the
# boxes taken as independent)
Figures = tuple[Fraction, Fraction, Fraction | None]


@lru_cache(maxsize=64)
def _figures(name: str, overrides: tuple[tuple[str, Any], ...]) -> Figures | None:
    from .covariance import box_covariance
    from .house_edge import house_edge

    base = PRESETS.get(name)
    try:
        rules = base.with_overrides(dict(overrides)) if base is not None else None
    except ValueError:
        rules = None
    if rules is None:
        return None
    # the analysis gives floats; their decimal text made exact (never a float near money)
    figures = house_edge(rules)
    return (Fraction(str(figures.house_edge)), Fraction(str(figures.variance)),
            Fraction(str(box_covariance(rules))))


def engine_math(name: str, overrides: Mapping[str, Any]) -> Figures | None:
    """The figures of preset ``name`` with ``overrides`` (once per rule set and process:
    the analysis takes seconds); None for a rule set the engine does not know."""
    return _figures(name, tuple(sorted(overrides.items())))
