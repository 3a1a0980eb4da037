"""The journal: an entry that does not balance cannot be made; balances sum to zero."""

from __future__ import annotations

import pytest

from ledger.books import journal as j
from ledger.books.journal import Entry, Line, UnbalancedEntry, moves, trial_balance


def entry(*lines: Line) -> Entry:
    return Entry("BJ-01", "2026-11-29", "06:00", None, "test", lines)


def test_an_entry_that_does_not_sum_to_zero_cannot_be_made() -> None:
    with pytest.raises(UnbalancedEntry, match="sum to 1"):
        entry(Line(j.CAGE, -100), Line(j.transit("BJ-01"), 101))


@pytest.mark.parametrize("amount", [1.0, True, "1"])
def test_an_amount_that_is_not_an_integer_cannot_be_posted(amount: object) -> None:
    with pytest.raises(UnbalancedEntry, match="non-integer"):
        entry(Line(j.CAGE, amount), Line(j.WORLD, -1))  # type: ignore[arg-type]


def test_transfers_make_balanced_lines_and_skip_zero() -> None:
    lines = moves((j.CAGE, j.transit("BJ-01"), 500), (j.WORLD, j.CAGE, 0))
    assert lines == (Line("cage", -500), Line("transit:BJ-01", 500))
    assert trial_balance(
        [entry(*lines), entry(*moves((j.transit("BJ-01"), j.tray("BJ-01", 500), 500)))]
    ) == {
        "cage": -500,
        "transit:BJ-01": 0,
        "tray:BJ-01:500": 500,
    }


def test_account_names_say_the_table_and_what() -> None:
    assert (j.tray("BJ-01", 2500), j.tray("BJ-01", None)) == (
        "tray:BJ-01:2500",
        "tray:BJ-01:unsorted",
    )
    assert (j.drop_box("BJ-01", "markers"), j.layout("BJ-01"), j.over_short("BJ-01")) == (
        "drop:BJ-01:markers",
        "layout:BJ-01",
        "over_short:BJ-01",
    )
