"""Chips found in the drop box are part of the drop and of the explanation: the books post
them from the players to the box with no over/short, and the reconciliation names them as
a known difference, so they are never a variance "not explained"."""

from __future__ import annotations

from datetime import date

import pytest

from audit.feed.subscribers import catch_up
from audit.models import Finding
from ledger import models as m
from ledger.books import fold, reconcile
from tests.back_office.helpers import append

from .helpers import DAY, Table


def chips_in_the_box() -> Table:
    """13 Miss. Code R. 7-3.3's worked example, with 100.00 of chips a player dropped into
    the box beside the 9,000.00 of cash: opener 20,000.00; fills 5,000.00; credits
    2,000.00; closer 18,000.00; drop 9,000.00 cash + 100.00 chips = 9,100.00. Chip-count
    win = 18,000 - 20,000 + 2,000 - 5,000 + 9,100 = 4,100.00; the rounds won 4,000.00; the
    100.00 of chips explains the rest: variance 0."""
    t = Table()
    t.open()
    t.count("opening", {100_000: 20})
    t.buyin(900_000)
    t.fill("F-1", {100_000: 5})
    t.play((300_000, -300_000), (100_000, 100_000), (200_000, -200_000))
    t.credit("C-1", {100_000: 2})
    t.count("closing", {100_000: 18})
    t.close()
    t.drop(900_000, chips=10_000)
    return t


def test_chips_in_the_drop_are_explained_to_the_cent() -> None:
    books = fold(chips_in_the_box().events)
    figures = books.day(DAY)
    assert (figures.drop_cash, figures.drop_chips, figures.drop) == (900_000, 10_000, 910_000)
    result = reconcile(figures)
    assert (result.chip_win, result.recorded_win) == (410_000, 400_000)
    [known] = result.chip_known
    assert (known.kind, known.amount, known.effect) == ("drop_chips", 10_000, 10_000)
    assert "EUR 100.00" in known.what
    assert result.chip_variance == 0 and result.findings == ()
    # the books: players -> drop box chips -> cage; nothing to over/short
    balances = books.trial_balance(DAY)
    assert balances.get("over_short:BJ-01", 0) == 0 and sum(balances.values()) == 0
    assert books.findings == ()


def test_without_the_explanation_the_same_chips_would_be_a_variance() -> None:
    """The chips are the whole of the difference: a box with 100.00 of chips and a closer
    100.00 short (chips that left the tray unrecorded) leaves -100.00 unexplained."""
    t = chips_in_the_box()
    closer = next(
        e
        for e in t.events
        if e["type"] == "inventory.counted" and e["payload"]["kind"] == "closing"
    )
    closer["payload"]["chips"] = [
        {"denomination": 5_000, "count": 18},
        {"denomination": 100_000, "count": 17},
    ]
    result = reconcile(fold(t.events).day(DAY))
    assert result.chip_win == 410_000 - 10_000 and result.chip_variance == -10_000
    assert [f.kind for f in result.findings] == ["chip_variance"]


@pytest.mark.django_db
def test_chips_in_the_drop_explained_through_the_store(settings, fake_game) -> None:
    settings.PROJECT_ON_APPEND = False
    t = chips_in_the_box()
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    day = m.Reconciliation.objects.get(
        table__stream="BJ-01", gaming_day=date(2026, 11, 29), shift=""
    )
    assert (day.drop, day.chip_win, day.recorded_win, day.chip_variance) == (
        910_000,
        410_000,
        400_000,
        0,
    )
    assert not day.unexplained
    assert [k["kind"] for k in day.explanations["chip"]] == ["drop_chips"]
    assert not Finding.objects.filter(stream="BJ-01", kind="chip_variance").exists()
