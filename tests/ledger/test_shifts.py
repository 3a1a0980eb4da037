"""Shift plans, and a table's figures per shift: the closer of one shift rolls to the
opener of the next."""

from __future__ import annotations

import doctest
from datetime import UTC, datetime

import pytest

from audit.record import shifts
from ledger.books import ShiftPlan, fold, reconcile

from .helpers import DAY, Table


def test_an_8_hour_plan_from_the_day_s_start() -> None:
    plan = ShiftPlan.parse("8h", day_start="06:00", zone="Europe/Prague")
    assert plan.labels == ("06:00", "14:00", "22:00")
    # 05:30 UTC is 06:30 in Prague in November (UTC+1)
    assert plan.shift_of(datetime(2026, 11, 29, 5, 30, tzinfo=UTC)) == "06:00"
    assert plan.shift_of(datetime(2026, 11, 29, 4, 30, tzinfo=UTC)) == "22:00"
    assert str(plan.gaming_day_of(datetime(2026, 11, 29, 4, 30, tzinfo=UTC))) == "2026-11-28"


def test_a_named_list_of_starts_and_a_24_hour_plan() -> None:
    plan = ShiftPlan.parse("day=08:00, swing=16:00, grave=00:00")
    assert plan.shift_of(datetime(2026, 11, 29, 7, 59, tzinfo=UTC)) == "grave"
    assert plan.shift_of(datetime(2026, 11, 29, 16, 0, tzinfo=UTC)) == "swing"
    assert ShiftPlan.parse("24h").labels == ("06:00",)


@pytest.mark.parametrize(
    ("text", "says"),
    [
        ("7h", "must divide 24"),
        ("06:00,05:00,07:00", "follow each other"),
        ("25:00", "HH:MM"),
        ("a=06:00,a=14:00", "distinct"),
        ("6", "HH:MM"),
    ],
)
def test_a_plan_that_makes_no_sense_is_refused_saying_why(text: str, says: str) -> None:
    with pytest.raises(ValueError, match=says):
        ShiftPlan.parse(text)


def test_an_unknown_zone_and_a_naive_time_are_refused() -> None:
    with pytest.raises(ValueError, match="time zone"):
        ShiftPlan.parse("8h", zone="Mars/Olympus")
    with pytest.raises(ValueError, match="naive"):
        ShiftPlan.parse("8h").shift_of(datetime(2026, 11, 29, 6, 0))


def two_shifts() -> Table:
    t = Table()
    t.open()
    t.count("opening", {5_000: 100}, shift="06:00")
    t.buyin(50_000)
    t.play((20_000, -20_000))
    t.count("closing", {5_000: 94}, shift="06:00")  # 500,000 - 50,000 + 20,000
    t.drop(50_000, shift="06:00")
    t.count("opening", {5_000: 94}, shift="14:00")
    t.play((10_000, 10_000))
    t.count("closing", {5_000: 92}, shift="14:00")
    t.drop(0, shift="14:00")
    t.close()
    return t


def test_each_shift_is_reconciled_from_its_opener_to_its_closer_and_the_day_from_first_to_last() -> (
    None
):
    books = fold(two_shifts().events)
    first, second = books.shifts_of(DAY)
    assert (first.shift, first.chip_win, first.recorded_win, first.drop) == (
        "06:00",
        20_000,
        20_000,
        50_000,
    )
    assert (second.shift, second.chip_win, second.recorded_win, second.drop) == (
        "14:00",
        -10_000,
        -10_000,
        0,
    )
    day = books.day(DAY)
    assert (day.opener, day.closer, day.chip_win, day.recorded_win) == (
        500_000,
        460_000,
        10_000,
        10_000,
    )
    assert books.findings == () and reconcile(day).findings == ()


def test_a_table_without_counts_takes_its_shifts_from_the_plan_s_clock() -> None:
    """A live game counts no chips: its rounds fall in the plan's shifts by their time."""
    t = Table()
    t.open()
    t.play((1_000, -1_000))
    t.wait(hours=8)
    t.play((1_000, 1_000))
    books = fold(t.events, plan=ShiftPlan.parse("8h"))
    assert [(f.shift, f.recorded_win, f.chip_win) for f in books.shifts_of(DAY)] == [
        ("06:00", 1_000, None),
        ("14:00", -1_000, None),
    ]


def test_docstring_examples_hold() -> None:
    failed, tried = doctest.testmod(shifts)
    assert tried > 0 and failed == 0


def test_a_day_whose_last_shift_has_no_closer_has_no_chip_count_win() -> None:
    """Shift 06:00 is counted 5,000.00 -> 4,700.00; shift 14:00 opens at 4,700.00, the
    house wins 100.00 and nobody counts the closer. The day has no closer: its
    chip-count win is n/a (the 06:00 closer would give 4,700 - 5,000 + 500 = +200.00, a
    figure of the wrong shift), and closer_missing names the 14:00 shift."""
    t = Table()
    t.open()
    t.count("opening", {5_000: 100}, shift="06:00")
    t.buyin(50_000)
    t.play((20_000, -20_000))
    t.count("closing", {5_000: 94}, shift="06:00")
    t.count("opening", {5_000: 94}, shift="14:00")
    t.play((10_000, -10_000))
    t.close()
    t.drop(50_000, shift=None)
    books = fold(t.events, drop_box={DAY})
    first, second = books.shifts_of(DAY)
    assert (first.chip_win, second.opener, second.closer, second.chip_win) == (
        None,
        470_000,
        None,
        None,
    )
    day = books.day(DAY)
    assert (day.opener, day.closer, day.drop, day.recorded_win, day.chip_win) == (
        500_000,
        None,
        50_000,
        30_000,
        None,
    )
    result = reconcile(day)
    assert (result.chip_win, result.hold, result.chip_variance) == (None, None, None)
    assert [(f.kind, f.shift) for f in books.findings] == [("closer_missing", "14:00")]
