"""The fold whose settled bets are put away on a shelf (``Fold(entries=False, shelf=...)``,
what the offline auditor folds with): the books of the fold that keeps them in memory,
for any order of placements, settlements, voids, corrections and repeats, with the
settled bets shelved one at a time; and what a long day keeps in memory of them."""

from __future__ import annotations

import dataclasses
from typing import Any
from unittest import mock

from hypothesis import given, settings
from hypothesis import strategies as st

from audit.record import shelf as shelving
from audit.record.corrections import struck_events
from audit.record.shelf import Shelf, ShelvedMap
from ledger.books import fold
from ledger.books.fold import Books, Fold

from .helpers import DAY, Table
from .test_lean_fold import messy, same_but_entries, step


def shelved_books(events: list[dict[str, Any]], *, batch: int = 1) -> Books:
    shelf = Shelf()
    try:
        with mock.patch.object(shelving, "BATCH", batch):
            state = Fold(struck=struck_events(events), entries=False, shelf=shelf)
        for event in events:
            state.apply(event)
        books = state.books(entries=False)
        # the rounds' shifts are read where they are, on the shelf: copied before it closes
        assert books.round_shifts is state.round_shifts and isinstance(
            books.round_shifts, ShelvedMap
        )
        return dataclasses.replace(books, round_shifts=dict(books.round_shifts))
    finally:
        shelf.close()


@settings(max_examples=150, deadline=None)
@given(st.lists(step, max_size=14))
def test_the_shelved_fold_gives_the_books_of_the_whole_fold_but_the_entries(
    steps: list[tuple[Any, ...]],
) -> None:
    events = messy(steps)
    same_but_entries(shelved_books(events), fold(events))


def test_a_correction_of_a_bet_shelved_long_before_finds_its_net_and_day() -> None:
    t = Table()
    t.open()
    [early] = t.play((10_000, -10_000))
    for _ in range(40):
        t.play((1_000, 1_000), (2_000, -2_000))
    t.open("2026-11-30")
    t.correct(1, early, 5_000)
    same_but_entries(shelved_books(t.events, batch=8), fold(t.events))
    assert shelved_books(t.events, batch=8).day(DAY).corrections == -15_000


def test_a_long_day_keeps_a_batch_of_settled_bets_in_memory() -> None:
    t = Table()
    t.open()
    for _ in range(50):
        t.play((1_000, 1_000), (2_000, -2_000), (500, 0))
    shelf = Shelf()
    try:
        with mock.patch.object(shelving, "BATCH", 16):
            state = Fold(entries=False, read_once=True, shelf=shelf)
        for event in t.events:
            state.apply(event)
        settled = state.settled
        assert isinstance(settled, ShelvedMap) and len(settled) == 150
        assert (len(settled.batches), len(settled.recent)) == (9, 6)
        shifts = state.round_shifts
        assert isinstance(shifts, ShelvedMap) and (len(shifts.batches), len(shifts.recent)) == (
            3,
            2,
        )
        assert list(shifts.items()) == [((DAY, n), "06:00") for n in range(1, 51)]
        assert state.books(entries=False).day(DAY).settled_win == 50 * (2_000 - 1_000)
    finally:
        shelf.close()
