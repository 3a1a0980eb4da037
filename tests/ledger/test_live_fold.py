"""The fold as a live projection uses it: asked for its books at any point, it goes on
with more events and ends with the books one fold of the whole record gives; the balances
it keeps per day and shift are the trial balances of the entries."""

from __future__ import annotations

from datetime import date
from fractions import Fraction
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from audit.record.corrections import struck_events
from ledger.books import fold, reconcile
from ledger.books.fold import Fold
from ledger.books.stats import TableDay, aggregate, theoretical

from .helpers import DAY, Table, worked_example
from .test_properties import build, record


@settings(max_examples=40, deadline=None)
@given(record, st.lists(st.integers(min_value=0, max_value=400), max_size=4))
def test_a_fold_asked_on_the_way_ends_with_the_books_of_one_fold(
    days: Any, cuts: list[int]
) -> None:
    events = build(days).events
    state = Fold(struck=struck_events(events))
    stops = sorted({min(c, len(events)) for c in cuts})
    done = 0
    for stop in [*stops, len(events)]:
        for event in events[done:stop]:
            state.apply(event)
        done = stop
        state.books(final=False)  # asked on the way: changes nothing
    live, whole = state.books(final=True), fold(events)
    lean = state.books(final=True, entries=False)
    assert lean.entries == () and lean.balances == live.balances
    with pytest.raises(ValueError, match="without their entries"):
        lean.trial_balance()
    assert (live.entries, live.findings, dict(live.shifts)) == (
        whole.entries,
        whole.findings,
        dict(whole.shifts),
    )
    for day in whole.days():
        assert live.balances_of(day) == whole.trial_balance(day)
        for figures in whole.shifts_of(day):
            assert live.balances_of(day, figures.shift) == whole.trial_balance(day, figures.shift)


def test_the_closing_checks_of_a_kept_fold_are_made_each_time_asked_and_never_twice_kept() -> None:
    """A drop removed but never counted: each books(final=True) reports it once."""
    t = Table()
    t.open()
    t.count("opening", {100_000: 20})
    t.count("closing", {100_000: 20})
    t.drop(0, steps=("removed",))
    state = Fold()
    for event in t.events:
        state.apply(event)
    assert state.books(final=False).findings == ()
    first = [f.kind for f in state.books(final=True).findings]
    assert first == [f.kind for f in state.books(final=[DAY]).findings] == ["drop_not_counted"]
    assert state.books(final=["2026-11-30"]).findings == ()


def test_the_day_s_game_and_the_shift_of_each_round_are_kept() -> None:
    books = fold(worked_example().events)
    assert books.games[DAY] == ("hoyle", {})
    assert books.round_shifts == {(DAY, 1): "06:00"}


def test_without_the_game_s_variance_the_theoretical_win_has_no_sd_and_nothing_is_outside() -> None:
    theory = theoretical(600_000, Fraction(1, 200), None, hand_squares=140_000_000_000)
    assert theory is not None
    assert (theory.win, theory.sd, theory.interval(), theory.contains(0)) == (
        3_000,
        None,
        None,
        None,
    )
    result = reconcile(
        fold(worked_example().events).day(DAY), edge=Fraction(1, 2)
    )  # the house won 4,000 of 300,000
    assert result.theoretical is not None and result.theoretical.win == 300_000
    assert result.theoretical.sd is None and result.findings == ()
    row = TableDay(
        "BJ-01",
        date(2026, 11, 29),
        "hoyle",
        "P1",
        "EUR",
        900_000,
        400_000,
        400_000,
        600_000,
        Fraction(300_000),
        None,
    )
    known = TableDay(
        "BJ-02", row.gaming_day, "hoyle", "P1", "EUR", 1, 1, 1, 1, Fraction(1), Fraction(4)
    )
    totals = aggregate([row, known])[()]
    assert (
        totals.theoretical_variance is None
        and totals.interval() is None
        and totals.theoretical_sd is None
    )
    assert aggregate([known])[()].theoretical_sd == 2
