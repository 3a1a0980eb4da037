"""The theoretical win's 95% interval holds about 95% of clean table-days.

Many simulated days played by the basic-strategy chart, each table-day folded by the
ledger's books, its theoretical win and SD from the engine's exact house edge and round
variance of the rule set: the actual (recorded) win falls inside the interval at about
the rate the interval promises, and the interval is not so wide that it holds everything
(the mean |z| of a normal variable is 0.80). With one box a round the rounds are all
independent; with four boxes a round the boxes share the dealer's hand, and the interval
holds only with the covariance of two boxes of one round in the SD."""

from __future__ import annotations

import io
import json
import math
from collections import defaultdict
from fractions import Fraction

from audit.record.events import read_current
from ledger.books import fold
from ledger.books.stats import theoretical
from tables.engine.math.covariance import box_covariance
from tables.engine.math.house_edge import house_edge
from tables.engine.presets import PRESETS
from tables.simulator.config import SimConfig
from tables.simulator.run import FileSink, simulate


def test_the_actual_win_falls_inside_its_95_percent_interval_at_about_that_rate() -> None:
    config = SimConfig(
        tables=6,
        presets=("hoyle",),
        rounds=150,
        days=10,
        seats=1,
        players=("basic",),
        seed="interval",
    )
    out = io.BytesIO()
    simulate(config, FileSink(out, config))
    streams: dict[str, list[dict]] = defaultdict(list)
    for line in out.getvalue().splitlines():
        event = read_current(json.loads(line))  # read as the readers read a file
        streams[event["stream"]].append(event)
    figures = house_edge(PRESETS["hoyle"])
    edge, variance = Fraction(str(figures.house_edge)), Fraction(str(figures.variance))

    inside, z_scores = 0, []
    for events in streams.values():
        books = fold(events)
        for day in books.days():
            day_figures = books.day(day)
            theory = theoretical(
                day_figures.initial,
                edge,
                variance,
                hand_squares=day_figures.hand_squares,
                round_squares=day_figures.round_squares,
            )
            assert (
                theory is not None
                and theory.variance is not None
                and theory.sd is not None
                and theory.sd > 0
            )
            inside += bool(theory.contains(day_figures.recorded_win))
            z_scores.append(
                float(day_figures.recorded_win - theory.mean) / math.sqrt(theory.variance)
            )
    days = len(z_scores)
    assert days == 60
    rate = inside / days
    mean_abs_z = sum(abs(z) for z in z_scores) / days
    print(
        f"inside the 95% interval: {inside} of {days} table-days ({rate:.1%}); mean |z| {mean_abs_z:.2f}"
    )
    # 57 of 60 expected (binomial SD 1.7): at least 51; and not an interval that holds
    # anything (mean |z| of a normal variable 0.80, SD of the mean over 60 days about 0.08)
    assert rate >= 0.85
    assert 0.55 <= mean_abs_z <= 1.10


def test_with_four_boxes_a_round_the_interval_holds_at_about_that_rate_only_with_the_boxes_covariance() -> (
    None
):
    """Four basic-strategy players at every round: one round's boxes win and lose
    together (a dealer bust pays them all), so the win's variance is ``V sum(s_i^2) + C
    sum over i != j of s_i s_j`` per round, ``C`` the engine's covariance of two boxes
    (about 0.45 for hoyle, against one box's variance of 1.23). Without ``C`` (each box
    independent) the SD is too narrow: |z| runs large."""
    config = SimConfig(
        tables=6, presets=("hoyle",), rounds=150, days=10, seats=4, players=("basic",), seed="boxes"
    )
    out = io.BytesIO()
    simulate(config, FileSink(out, config))
    streams: dict[str, list[dict]] = defaultdict(list)
    for line in out.getvalue().splitlines():
        event = read_current(json.loads(line))  # read as the readers read a file
        streams[event["stream"]].append(event)
    rules = PRESETS["hoyle"]
    figures = house_edge(rules)
    edge, variance = Fraction(str(figures.house_edge)), Fraction(str(figures.variance))
    covariance = Fraction(str(box_covariance(rules)))
    assert Fraction(2, 5) < covariance < Fraction(1, 2)

    inside, z_scores, z_independent = 0, [], []
    for events in streams.values():
        books = fold(events)
        for day in books.days():
            d = books.day(day)
            # four boxes every round: the round's stakes summed and squared hold the cross terms
            assert d.round_squares > 2 * d.hand_squares > 0
            theory = theoretical(
                d.initial,
                edge,
                variance,
                covariance,
                hand_squares=d.hand_squares,
                round_squares=d.round_squares,
            )
            independent = theoretical(
                d.initial,
                edge,
                variance,
                hand_squares=d.hand_squares,
                round_squares=d.round_squares,
            )
            assert theory is not None and independent is not None
            assert theory.variance is not None and independent.variance is not None
            assert (
                theory.variance > Fraction(7, 5) * independent.variance
            )  # an SD over 1.18 times wider
            inside += bool(theory.contains(d.recorded_win))
            z_scores.append(float(d.recorded_win - theory.mean) / math.sqrt(theory.variance))
            z_independent.append(
                float(d.recorded_win - independent.mean) / math.sqrt(independent.variance)
            )
    days = len(z_scores)
    assert days == 60
    mean_abs_z = sum(abs(z) for z in z_scores) / days
    rms_z = math.sqrt(sum(z * z for z in z_scores) / days)
    rms_independent = math.sqrt(sum(z * z for z in z_independent) / days)
    print(
        f"four boxes: inside the 95% interval {inside} of {days} table-days; mean |z| {mean_abs_z:.2f}, "
        f"RMS z {rms_z:.2f} (stakes taken as independent: RMS z {rms_independent:.2f})"
    )
    # 57 of 60 expected (binomial SD 1.7); mean |z| 0.80 and RMS z 1 for a normal variable
    # (SD over 60 days about 0.08 and 0.09)
    assert inside >= 51
    assert 0.6 <= mean_abs_z <= 1.0 and 0.8 <= rms_z <= 1.25
    assert rms_independent > 1.15
