"""The covariance of two boxes of one round (``tables.engine.math.covariance``) and the
win's variance the ledger builds from it (``ledger.books.stats.win_variance``, the books'
per-box sums)."""

from __future__ import annotations

import io
import json
import math
from collections import defaultdict
from fractions import Fraction

import pytest

from audit.record.events import read_current
from ledger.books import fold
from ledger.books.stats import theoretical, win_variance
from tables.engine.math import covariance as cov
from tables.engine.math.house_edge import house_edge
from tables.engine.presets import PRESETS
from tables.simulator.config import SimConfig
from tables.simulator.run import FileSink, simulate


def test_the_stored_figures_are_those_of_every_preset_and_near_a_published_one() -> None:
    assert set(cov.PRESET_FIGURES) == set(PRESETS)
    for covariance, error in cov.PRESET_FIGURES.values():
        assert 0 < error < 0.01
        # a box's result is correlated with another's, but far less than with itself
        # (one box's variance is 1.17-1.59 in these games)
        assert 0.3 < covariance < 0.6
    # The Wizard of Odds' blackjack variance page (six decks): one hand's variance 1.31,
    # two hands a round 3.565 by simulation, so a covariance of (3.565 - 2.62) / 2 =
    # 0.4725. Our six-deck S17 game with surrender, by five boxes' pairs:
    assert cov.PRESET_FIGURES["vegas-s17-das-ls"][0] == pytest.approx(0.4725, abs=0.02)


def test_a_fresh_estimate_of_another_seed_agrees_with_the_stored_one_and_the_exact_variance() -> (
    None
):
    rules = PRESETS["eu-online"]
    fresh = cov.estimate(rules, rounds=3_000, seed="another")
    stored, stored_error = cov.PRESET_FIGURES["eu-online"]
    assert fresh.rounds == 3_000 and fresh.boxes == 5
    assert abs(fresh.covariance - stored) < 4 * math.hypot(fresh.standard_error, stored_error)
    # the same rounds give one box's variance as the combinatorial analysis does (a
    # check of the simulation itself: the SE of a variance of 15,000 results is about 0.02)
    assert fresh.variance == pytest.approx(house_edge(rules).variance, abs=0.08)


def test_a_preset_gives_its_stored_figure_and_a_rule_set_with_overrides_is_estimated(
    monkeypatch,
) -> None:
    cov.box_covariance.cache_clear()
    assert cov.box_covariance(PRESETS["hoyle"]) == cov.PRESET_FIGURES["hoyle"][0]
    monkeypatch.setattr(cov, "ROUNDS", 500)
    altered = PRESETS["hoyle"].with_overrides({"decks": 2})
    assert altered != PRESETS["hoyle"]
    assert cov.box_covariance(altered) == cov.estimate(altered, rounds=500).covariance
    cov.box_covariance.cache_clear()


def test_the_win_variance_of_boxes_played_together() -> None:
    v, c = Fraction(13, 10), Fraction(1, 2)
    # one round of two boxes staked 100 and 300: V (100^2 + 300^2) + C 2 (100 x 300)
    assert (
        win_variance(v, c, hand_squares=100_000, round_squares=160_000) == v * 100_000 + c * 60_000
    )
    assert cov.round_variance(1.3, 0.5, [100, 300]) == pytest.approx(1.3 * 100_000 + 0.5 * 60_000)
    # no covariance known: each box independent
    assert win_variance(v, None, hand_squares=100_000, round_squares=160_000) == v * 100_000
    # one box a round: the covariance changes nothing
    one = theoretical(400, Fraction(1, 100), v, c, hand_squares=160_000, round_squares=160_000)
    assert one is not None and one.variance == v * 160_000


def test_the_books_sum_each_rounds_boxes_as_the_record_has_them() -> None:
    """hand_squares and round_squares of each table-day, against the same sums worked out
    here from the events: per round, the main stakes and the bets behind grouped by box
    (doubles, splits and insurance are not initial stakes); it-sabot has bets behind."""
    config = SimConfig(tables=3, presets=("it-sabot", "hoyle"), rounds=40, days=2, seed="squares")
    out = io.BytesIO()
    simulate(config, FileSink(out, config))
    streams: dict[str, list[dict]] = defaultdict(list)
    for line in out.getvalue().splitlines():
        event = read_current(json.loads(line))  # read as the readers read a file
        streams[event["stream"]].append(event)
    behind = 0
    for events in streams.values():
        boxes: dict[tuple[str, int], dict[int, int]] = defaultdict(lambda: defaultdict(int))
        day = ""
        for e in events:
            p = e["payload"]
            if e["type"] == "table.opened":
                day = p["gaming_day"]
            elif e["type"] == "bet.placed" and p["kind"] in ("main", "behind"):
                boxes[(day, p["round"])][p["box"]] += p["amount"]
                behind += p["kind"] == "behind"
        books = fold(events)
        for gaming_day in books.days():
            figures = books.day(gaming_day)
            rounds = [b for (d, _), b in boxes.items() if d == gaming_day]
            assert figures.hand_squares == sum(s * s for b in rounds for s in b.values()) > 0
            assert (
                figures.round_squares
                == sum(sum(b.values()) ** 2 for b in rounds)
                > figures.hand_squares
            )
    assert behind > 0
