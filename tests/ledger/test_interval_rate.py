"""The theoretical win's 95% interval holds about 95% of clean table-days.

Many simulated days of one box played by the basic-strategy chart, each table-day folded
by the ledger's books, its theoretical win and SD from the engine's exact house edge and
round variance of the rule set: the actual (recorded) win falls inside the interval at
about the rate the interval promises, and the interval is not so wide that it holds
everything (the mean |z| of a normal variable is 0.80)."""
from __future__ import annotations

import io
import json
import math
from collections import defaultdict
from fractions import Fraction

from ledger.books import fold
from ledger.books.stats import theoretical
from tables.engine.math.house_edge import house_edge
from tables.engine.presets import PRESETS
from tables.simulator.config import SimConfig
from tables.simulator.run import FileSink, simulate


def test_the_actual_win_falls_inside_its_95_percent_interval_at_about_that_rate() -> None:
    config = SimConfig(tables=6, presets=("hoyle",), rounds=150, days=10, seats=1, players=("basic",), seed="interval")
    out = io.BytesIO()
    simulate(config, FileSink(out, config))
    streams: dict[str, list[dict]] = defaultdict(list)
    for line in out.getvalue().splitlines():
        event = json.loads(line)
        streams[event["stream"]].append(event)
    figures = house_edge(PRESETS["hoyle"])
    edge, variance = Fraction(str(figures.house_edge)), Fraction(str(figures.variance))

    inside, z_scores = 0, []
    for events in streams.values():
        books = fold(events)
        for day in books.days():
            day_figures = books.day(day)
            theory = theoretical(day_figures.handle, day_figures.stake_squares, edge, variance)
            assert theory.sd is not None and theory.sd > 0
            inside += bool(theory.contains(day_figures.recorded_win))
            z_scores.append(float(day_figures.recorded_win - theory.mean) / math.sqrt(theory.variance))
    days = len(z_scores)
    assert days == 60
    rate = inside / days
    mean_abs_z = sum(abs(z) for z in z_scores) / days
    print(f"inside the 95% interval: {inside} of {days} table-days ({rate:.1%}); mean |z| {mean_abs_z:.2f}")
    # 57 of 60 expected (binomial SD 1.7): at least 51; and not an interval that holds
    # anything (mean |z| of a normal variable 0.80, SD of the mean over 60 days about 0.08)
    assert rate >= 0.85
    assert 0.55 <= mean_abs_z <= 1.10
