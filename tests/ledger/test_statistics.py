"""Hold, theoretical win and its interval, aggregation and periods (COMAR 36.05.03.25)."""

from __future__ import annotations

import doctest
import random
from datetime import date
from fractions import Fraction

import pytest

from ledger.books import fold, reconcile, stats, table_day
from ledger.books.stats import (
    TableDay,
    aggregate,
    basis_points,
    compare,
    hold,
    month_to_date,
    percent,
    statistical_report,
    theoretical,
    year_to_date,
)

from .helpers import worked_example


def test_the_worked_example_holds_44_4_percent() -> None:
    """13 Miss. Code R. 7-3.3's example, folded from its events: win 4,000, hold 44.4%."""
    books = fold(worked_example().events)
    result = reconcile(books.day("2026-11-29"))
    assert result.chip_win == 400_000 and result.drop == 900_000
    assert result.hold == Fraction(4, 9)
    assert percent(result.hold) == "44.4%" and basis_points(Fraction(4, 9)) == 4444


def test_a_reconciled_day_is_a_row_of_the_statistics() -> None:
    books = fold(worked_example().events)
    result = reconcile(books.day("2026-11-29"), edge=Fraction(1, 200), variance=Fraction(13, 10))
    row = table_day(result, game="hoyle", pit="P1")
    # one round of three boxes staked 3,000, 1,000 and 2,000 (all initial stakes); no covariance given:
    # the boxes taken as independent, V x (3,000^2 + 1,000^2 + 2,000^2)
    assert (row.table, row.gaming_day, row.drop, row.chip_win, row.house_result, row.handle) == (
        "BJ-01",
        date(2026, 11, 29),
        900_000,
        400_000,
        400_000,
        600_000,
    )
    assert row.complete and row.why_left_out == ""
    assert (
        row.theoretical == 3_000 and row.theoretical_variance == Fraction(13, 10) * 140_000_000_000
    )
    totals = aggregate([row], ("pit",))[("P1",)]
    assert percent(totals.hold) == "44.4%" and percent(totals.theoretical_hold) == "0.3%"


def test_hold_has_no_value_without_a_drop_and_rounds_half_away_from_zero() -> None:
    assert hold(100, 0) is None and percent(None) == "n/a"
    assert percent(Fraction(1, 2000)) == "0.1%"  # 0.05% rounds up
    assert percent(Fraction(-1, 2000)) == "-0.1%"
    assert percent(Fraction(-1, 100_000)) == "0.0%"
    assert basis_points(Fraction(-1, 20_000)) == -1


def test_the_theoretical_win_is_initial_stakes_times_edge_and_its_sd_sigma_times_root_of_the_boxes_squared() -> (
    None
):
    """Boxes of initial stakes 300 and 400 in rounds of their own (sum of squares
    250,000): SD = sigma x 500."""
    theory = theoretical(
        700, Fraction(1, 100), Fraction(1), hand_squares=300**2 + 400**2, round_squares=250_000
    )
    assert theory is not None
    assert theory.mean == 7 and theory.win == 7 and theory.sd == 500
    sigma_115 = theoretical(700, Fraction(1, 100), Fraction(13225, 10_000), hand_squares=250_000)
    assert sigma_115 is not None and sigma_115.sd == 575  # sigma 1.15
    low, high = theory.interval()
    assert (low, high) == (7 - 980, 7 + 980)
    assert theory.contains(7 + 980) and not theory.contains(7 + 981)


def test_a_float_rate_is_refused() -> None:
    with pytest.raises(TypeError):
        theoretical(100, 0.01, Fraction(1))  # type: ignore[arg-type]


def test_about_95_percent_of_simulated_outcomes_fall_inside_the_interval() -> None:
    """Each trial: 200 even-money stakes of random size, the player winning each with
    probability 49/100 - per unit staked the house's mean is 2/100 and the variance
    4 x 0.49 x 0.51. The wins of 3,000 trials (a seeded generator) fall inside their
    95% interval about 95% of the time."""
    rng = random.Random(20261129)
    p = Fraction(49, 100)
    edge, variance = 1 - 2 * p, 4 * p * (1 - p)
    trials, inside = 3_000, 0
    for _ in range(trials):
        stakes = [rng.choice((500, 1_000, 2_500, 5_000, 10_000)) for _ in range(200)]
        win = sum(-s if rng.random() < 0.49 else s for s in stakes)
        theory = theoretical(sum(stakes), edge, variance, hand_squares=sum(s * s for s in stakes))
        assert theory is not None
        inside += bool(theory.contains(win))
    assert 0.935 <= inside / trials <= 0.965, inside / trials


def row(
    table: str,
    day: date,
    *,
    game: str = "hoyle",
    pit: str = "P1",
    drop: int | None = 100_000,
    win: int | None = 10_000,
    result: int = 9_000,
    currency: str = "EUR",
) -> TableDay:
    return TableDay(
        table,
        day,
        game,
        pit,
        currency,
        drop,
        win,
        house_result=result,
        handle=500_000,
        theoretical=Fraction(5_000),
        theoretical_variance=Fraction(4_000_000),
    )


def test_aggregation_adds_the_sums_and_takes_rates_from_the_sums() -> None:
    rows = [
        row("BJ-01", date(2026, 11, 1), win=10_000),
        row("BJ-02", date(2026, 11, 1), pit="P2", win=30_000, drop=300_000),
        row("BJ-03", date(2026, 11, 2), game="it-classic", pit="P2", win=-5_000),
    ]
    casino = aggregate(rows)[()]
    assert (casino.rows, casino.complete, casino.drop, casino.win, casino.handle) == (
        3,
        3,
        500_000,
        35_000,
        1_500_000,
    )
    assert casino.house_result == 27_000 and casino.result_of_handle == Fraction(27_000, 1_500_000)
    assert casino.hold == Fraction(35_000, 500_000) and casino.theoretical_variance == 12_000_000
    assert casino.theoretical_hold == Fraction(15_000, 500_000)
    by_pit = aggregate(rows, ("pit",))
    assert set(by_pit) == {("P1",), ("P2",)} and by_pit[("P2",)].win == 25_000
    assert aggregate(rows, ("game", "gaming_day"))[("hoyle", date(2026, 11, 1))].rows == 2
    with pytest.raises(ValueError, match="cannot aggregate by"):
        aggregate(rows, ("colour",))


def test_different_currencies_are_not_added() -> None:
    with pytest.raises(ValueError, match="cannot add CZK"):
        aggregate(
            [row("BJ-01", date(2026, 11, 1)), row("BJ-02", date(2026, 11, 1), currency="CZK")]
        )


def test_periods_and_the_year_before() -> None:
    assert month_to_date(date(2026, 11, 29)).start == date(2026, 11, 1)
    assert year_to_date(date(2026, 11, 29)).start == date(2026, 1, 1)
    leap = month_to_date(date(2028, 2, 29)).year_before()
    assert (leap.start, leap.end) == (date(2027, 2, 1), date(2027, 2, 28))


def test_the_report_puts_each_period_beside_the_same_period_a_year_before() -> None:
    rows = [
        row("BJ-01", date(2026, 11, 29), win=20_000),
        row("BJ-01", date(2026, 11, 3), win=5_000),
        row("BJ-01", date(2025, 11, 29), win=8_000),
        row("BJ-01", date(2026, 2, 1), win=1_000),
    ]
    report = {c.period.name: c for c in statistical_report(rows, date(2026, 11, 29))}
    assert report["day"].now.win == 20_000 and report["day"].before.win == 8_000
    assert report["day"].win_change == 12_000 and report["day"].hold_change_bp == 1_200
    assert report["month to date"].now.win == 25_000
    assert report["year to date"].now.win == 26_000 and report["year to date"].before.win == 8_000
    assert compare(rows, month_to_date(date(2024, 5, 1))) == []


def test_docstring_examples_hold() -> None:
    failed, tried = doctest.testmod(stats)
    assert tried > 0 and failed == 0
