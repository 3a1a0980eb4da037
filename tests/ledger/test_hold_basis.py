"""Hold is the chip-count win over the drop, taken only over table-days that have both;
the others are listed as left out, never averaged in. The rounds' house result over their
handle is a figure of its own ("house result % of handle"), never called a hold."""

from __future__ import annotations

import csv
import io
from datetime import date
from fractions import Fraction

import pytest

from audit.feed.subscribers import catch_up
from ledger import reports
from ledger.books.stats import TableDay, aggregate, left_out_text, percent
from tests.back_office.helpers import append
from tests.commands import run_command

from .helpers import DAY, worked_example

NEXT = "2026-11-30"


def test_a_day_without_a_drop_is_left_out_of_a_two_day_hold() -> None:
    """Day 1 is counted: drop 10,000.00, chip-count win -9,880.00. Day 2 has no drop box
    count; its rounds won 70,260.00 for the house. Adding day 2's recorded win over a
    drop of 0 read (-9,880 + 70,260) / 10,000 = 603.8%; the hold is -9,880 / 10,000 =
    -98.8%, with day 2 named as left out."""
    counted = TableDay(
        "BJ-01",
        date(2026, 11, 29),
        "hoyle",
        "P1",
        "EUR",
        1_000_000,
        -988_000,
        -990_000,
        2_000_000,
        None,
        None,
    )
    no_drop = TableDay(
        "BJ-01",
        date(2026, 11, 30),
        "hoyle",
        "P1",
        "EUR",
        None,
        None,
        7_026_000,
        9_000_000,
        None,
        None,
        missing=("no drop count",),
    )
    totals = aggregate([counted, no_drop])[()]
    assert totals.hold == Fraction(-988_000, 1_000_000) and percent(totals.hold) == "-98.8%"
    assert (totals.rows, totals.complete, totals.drop, totals.win) == (2, 1, 1_000_000, -988_000)
    assert (
        totals.left_out == (no_drop,)
        and left_out_text(totals.left_out) == "BJ-01 2026-11-30 (no drop count)"
    )
    # the rounds' basis takes every day: (-9,900 + 70,260) / (20,000 + 90,000)
    assert totals.house_result == 6_036_000 and totals.result_of_handle == Fraction(
        6_036_000, 11_000_000
    )
    # with no complete day there is no hold at all, not 0%
    alone = aggregate([no_drop])[()]
    assert alone.hold is None and alone.theoretical_hold is None and percent(alone.hold) == "n/a"


def test_left_out_days_are_grouped_by_table_and_reason() -> None:
    def live(day: int) -> TableDay:
        return TableDay(
            "BJ-LIVE",
            date(2026, 11, day),
            "it-live",
            "P9",
            "EUR",
            None,
            None,
            100,
            1_000,
            None,
            None,
            missing=("no opener count", "no closer count", "no drop count"),
        )

    short = TableDay(
        "BJ-02",
        date(2026, 11, 3),
        "hoyle",
        "P1",
        "EUR",
        50_000,
        None,
        0,
        0,
        None,
        None,
        missing=("no closer count",),
    )
    assert left_out_text([live(1), live(2), live(30), short]) == (
        "BJ-02 2026-11-03 (no closer count); "
        "BJ-LIVE 3 days, 2026-11-01 to 2026-11-30 (no opener count, no closer count, no drop count)"
    )


def test_the_theoretical_hold_is_of_the_complete_days_and_n_a_where_an_edge_is_not_known() -> None:
    complete = TableDay(
        "BJ-01",
        date(2026, 11, 29),
        "hoyle",
        "P1",
        "EUR",
        900_000,
        400_000,
        400_000,
        600_000,
        Fraction(3_000),
        Fraction(10**10),
    )
    incomplete = TableDay(
        "BJ-01",
        date(2026, 11, 30),
        "hoyle",
        "P1",
        "EUR",
        None,
        None,
        -150_000,
        100_000,
        Fraction(500),
        Fraction(10**9),
    )
    totals = aggregate([complete, incomplete])[()]
    assert totals.theoretical_hold == Fraction(3_000, 900_000) and totals.theoretical == 3_500
    unknown = TableDay("BJ-02", date(2026, 11, 29), "unknown", "P1", "EUR", 1, 1, 1, 1, None, None)
    assert aggregate([complete, unknown])[()].theoretical is None
    assert aggregate([complete, unknown])[()].interval() is None


@pytest.mark.django_db
def test_the_reports_take_the_hold_over_the_complete_day_and_name_the_other(
    settings, fake_game
) -> None:
    """The worked example (chip-count win 4,000.00 on a drop of 9,000.00: 44.4%), then a
    day opened with 18,000.00 of chips on which the house lost 1,500.00 and that has no
    closer and no drop count yet. The hold over both days is 44.4%, with the second day
    left out and named; the rounds' house result is 4,000 - 1,500 = 2,500.00 on a handle
    of 6,000 + 1,000 = 7,000.00 (35.7% of handle). Before, the second day's recorded win
    was added over a drop of 0: (4,000 - 1,500) / 9,000 = 27.8%."""
    settings.PROJECT_ON_APPEND = False
    t = worked_example()
    t.open(NEXT)
    t.count("opening", {100_000: 18}, day=NEXT)
    t.play((100_000, 150_000))
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")

    [row] = reports.hold(day_from=date(2026, 11, 29), day_to=date(2026, 11, 30)).rows
    assert (row["drop"], row["win"], row["hold"], row["in_hold"], row["left_out"]) == (
        900_000,
        400_000,
        Fraction(4, 9),
        1,
        1,
    )
    assert row["left_out_days"] == "BJ-01 2026-11-30 (no closer count, no drop count)"
    assert (row["house_result"], row["handle"], row["result_of_handle"]) == (
        250_000,
        700_000,
        Fraction(5, 14),
    )
    assert percent(row["result_of_handle"]) == "35.7%"

    daily = {
        r["gaming_day"]: r
        for r in reports.daily(day_from=date(2026, 11, 29), day_to=date(2026, 11, 30)).rows
    }
    assert (
        daily[NEXT]["hold"] is None
        and daily[NEXT]["drop"] is None
        and daily[NEXT]["house_result"] == -150_000
    )
    assert daily[DAY]["hold"] == Fraction(4, 9)

    [stat] = reports.statistics(group="casino", period="mtd", day=date(2026, 11, 30)).rows
    assert (stat["hold"], stat["in_hold"], stat["left_out"]) == (Fraction(4, 9), 1, 1)

    made = reports.hold(day_from=date(2026, 11, 29), day_to=date(2026, 11, 30))
    line, total = list(csv.DictReader(io.StringIO(made.as_csv())))
    assert (line["hold"], line["hold_bp"], line["in_hold"], line["left_out"]) == (
        "44.4%",
        "4444",
        "1",
        "1",
    )
    assert (total["table"], total["hold_bp"], total["in_hold"], total["left_out"]) == (
        "total",
        "4444",
        "1",
        "1",
    )
    assert line["left_out_days"] == "BJ-01 2026-11-30 (no closer count, no drop count)"
    assert line["result_of_handle"] == "35.7%" and line["house_result"] == "+EUR 2,500.00"

    code, out, err = run_command("report", "hold", "--from", DAY, "--to", NEXT)
    assert code == 0, err
    assert "44.4%" in out and "27.8%" not in out and "house result % of handle" in out
    assert "Left out of the hold (no chip-count win or no drop):" in out
    assert "\n  BJ-01 2026-11-30 (no closer count, no drop count)" in out
