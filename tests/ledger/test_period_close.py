"""Period close: a signed day keeps its figures as signed; events that arrive for it later
are posted as an adjustment into the first open day of its table, with a reference back,
on both days' pages and in the reports; reopening needs the role and a note, and a day
whose later events a signed day carries is reopened only after that day. Figures by hand
from the worked example (13 Miss. Code R. 7-3.3): opener 20,000.00, fills 5,000.00,
credits 2,000.00, closer 18,000.00, drop 9,000.00, the rounds win 4,000.00."""

from __future__ import annotations

from datetime import date

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from django.test import Client

from audit.feed.subscribers import catch_up
from audit.models import Event, Finding
from audit.store.errors import StoreError
from ledger import models as m
from ledger import reports
from ledger.signoff import LEDGER_STREAM, NoteRequired, SignOffError, day_reopen, day_sign_off
from tests.back_office.helpers import append

from .helpers import DAY, Table, worked_example

pytestmark = pytest.mark.django_db
NEXT, THIRD = "2026-11-30", "2026-12-01"
D, E, F = date(2026, 11, 29), date(2026, 11, 30), date(2026, 12, 1)


@pytest.fixture(autouse=True)
def _no_projection_on_append(settings) -> None:
    settings.PROJECT_ON_APPEND = False


@pytest.fixture
def carol():
    user = get_user_model().objects.create_user("carol", is_staff=True)
    user.groups.add(Group.objects.get(name="accounting"))
    return user


def follow(t: Table, fake_game, since: int = 0) -> None:
    """Append the events from ``since``; replay agrees with the settlements, corrections
    applied (the fake replays settlements only)."""
    fake_game.rounds.clear()
    fake_game.record(t.code, t.events)
    for event in t.events:
        if event["type"] == "correction.recorded":
            fake_game.rounds[("BJ-01", DAY, event["payload"]["round"])] -= 10_000
    append(t.code, t.events[since:])
    catch_up("ledger.books")


def next_day(t: Table, day: str, closer: dict[int, int]) -> None:
    """A quiet day: opened and closed on the same tray, an empty drop box counted and posted."""
    t.open(day)
    t.count("opening", closer, day=day)
    t.count("closing", closer, day=day)
    t.close(day)
    t.drop(0, day=day)


def row(day: date) -> m.Reconciliation:
    return m.Reconciliation.objects.select_related("table").get(gaming_day=day, shift="")


def late_correction(t: Table) -> None:
    """The first round's stake was 2,900.00, not 3,000.00: the house won 100.00 less,
    refunded at the cage (the chips never see it)."""
    t.add(
        "correction.recorded",
        {
            "round": 1,
            "corrects": None,
            "settlements": [{"bet": "r1-b1", "outcome": "lose", "net": -290_000}],
            "reason": "stake misread: 2,900.00, not 3,000.00",
            "authorised_by": "PB-1",
        },
    )


def test_a_late_correction_after_sign_off_leaves_the_signed_figures_and_posts_into_the_next_open_day(
    fake_game, carol
) -> None:
    t = worked_example()
    next_day(t, NEXT, {100_000: 18})
    follow(t, fake_game)
    day_sign_off(table="BJ-01", gaming_day=D, user=carol)
    signed = dict(m.SignOff.objects.get().figures)

    before = len(t.events)
    late_correction(t)
    follow(t, fake_game, before)
    kept = row(D)
    # the signed day's row: its figures as signed, by hand
    assert (kept.recorded_win, kept.chip_win, kept.replayed_win, kept.drop) == (
        400_000,
        400_000,
        400_000,
        900_000,
    )
    assert m.SignOff.objects.get().figures == signed
    assert (kept.state, kept.adjusted_into) == ("adjusted", E)
    # recorded 4,000.00 -> 3,900.00 (replay agrees with it): the house result moves by
    # -100.00; the chip-count win does not (the refund was paid at the cage)
    assert kept.late == {
        "figures": {"recorded_win": -10_000, "replayed_win": -10_000},
        "win": 0,
        "drop": 0,
        "house_result": -10_000,
    }
    into = row(E)
    assert into.adjustments == [
        {
            "gaming_day": DAY,
            "figures": {"recorded_win": -10_000, "replayed_win": -10_000},
            "win": 0,
            "drop": 0,
            "house_result": -10_000,
        }
    ]
    assert (into.adjustment_win, into.adjustment_drop, into.adjustment_house_result) == (
        0,
        0,
        -10_000,
    )
    # the open day's own figures are its own
    assert (into.recorded_win, into.chip_win, into.state) == (0, 0, "reconciled")
    [flag] = Finding.objects.filter(superseded_by__isnull=True, kind="signed_day_changed")
    assert "posted as an adjustment into gaming day 2026-11-30" in flag.message
    assert flag.expected == "recorded_win +EUR 4,000.00, replayed_win +EUR 4,000.00"
    assert flag.recorded == "recorded_win +EUR 3,900.00, replayed_win +EUR 3,900.00"


def signed_without_its_drop(t: Table, fake_game, carol) -> int:
    """The worked example signed off before its drop was counted (with a note); the
    index of the events that come later: the count and its posting."""
    t.events = [e for e in t.events if e["type"] not in ("drop.counted", "drop.posted")]
    next_day(t, NEXT, {100_000: 18})
    follow(t, fake_game)
    assert row(D).state == "incomplete"
    day_sign_off(table="BJ-01", gaming_day=D, user=carol, note="the count room counts it on Monday")
    before = len(t.events)
    t.drop(900_000, steps=("counted", "posted"))
    follow(t, fake_game, before)
    return before


def test_a_late_drop_is_posted_into_the_next_open_day_and_the_reports_count_it_there(
    fake_game, carol
) -> None:
    t = worked_example()
    signed_without_its_drop(t, fake_game, carol)
    kept = row(D)
    assert (kept.drop, kept.chip_win, kept.recorded_win, kept.state, kept.missing) == (
        None,
        None,
        400_000,
        "adjusted",
        ["drop_not_counted"],
    )
    # signed without a drop or a chip-count win; now the drop is 9,000.00 and the chips
    # give 4,000.00: both posted into the next day, the house result unchanged
    assert kept.late == {
        "figures": {"drop": 900_000, "chip_win": 400_000},
        "win": 400_000,
        "drop": 900_000,
        "house_result": 0,
    }
    into = row(E)
    assert (into.adjustment_drop, into.adjustment_win, into.adjustment_house_result, into.drop) == (
        900_000,
        400_000,
        0,
        0,
    )
    # the drop_not_counted of the signed day is gone from its findings (the record has the count)
    assert not Finding.objects.filter(superseded_by__isnull=True, kind="drop_not_counted").exists()

    daily = {r["gaming_day"]: r for r in reports.daily(day_from=D, day_to=E).rows}
    # as signed: no drop, no chip-count win (out of the hold), the rounds' 4,000.00
    assert (daily[DAY]["drop"], daily[DAY]["win"], daily[DAY]["house_result"]) == (
        None,
        None,
        400_000,
    )
    # the next day's own 0.00 and 0.00, and the adjustment: the hold 4,000.00 / 9,000.00
    assert (daily[NEXT]["drop"], daily[NEXT]["win"], daily[NEXT]["house_result"]) == (
        900_000,
        400_000,
        0,
    )
    [held] = reports.hold(day_from=D, day_to=E).rows
    assert (held["drop"], held["win"], held["hold"]) == (
        900_000,
        400_000,
        pytest.approx(400_000 / 900_000),
    )


def test_both_days_pages_say_it_and_link_to_each_other(fake_game, carol) -> None:
    t = worked_example()
    signed_without_its_drop(t, fake_game, carol)
    client = Client()
    client.force_login(carol)
    signed = client.get(f"/admin/ledger/reconciliation/BJ-01/{DAY}/").content.decode()
    assert (
        "Events after sign-off" in signed
        and 'href="/admin/ledger/reconciliation/BJ-01/2026-11-30/"' in signed
    )
    assert "drop +EUR 9,000.00" in signed and "signed off, adjusted" in signed
    assert "Signed off as an exception, over: the drop not counted." in signed
    into = client.get(f"/admin/ledger/reconciliation/BJ-01/{NEXT}/").content.decode()
    assert (
        "Adjustments posted into this day" in into
        and 'href="/admin/ledger/reconciliation/BJ-01/2026-11-29/"' in into
    )
    assert "+EUR 9,000.00" in into


def test_a_day_signed_with_an_adjustment_keeps_it_and_what_comes_after_goes_to_the_next_open_day(
    fake_game, carol
) -> None:
    """E signed carrying D's late drop; a second late event for D then goes to F; D is
    reopened only after E (409 before)."""
    t = worked_example()
    signed_without_its_drop(t, fake_game, carol)
    next_day(t, THIRD, {100_000: 18})
    follow(t, fake_game, len(t.events) - 5)
    day_sign_off(
        table="BJ-01", gaming_day=E, user=carol, note="the adjustment from the 29th checked"
    )
    [signed_e] = Event.objects.filter(
        stream=LEDGER_STREAM, type="ledger.signed_off", payload__gaming_day=NEXT
    )
    assert signed_e.payload["adjustments"] == [
        {
            "gaming_day": DAY,
            "figures": {"drop": 900_000, "chip_win": 400_000},
            "win": 400_000,
            "drop": 900_000,
            "house_result": 0,
        }
    ]
    before = len(t.events)
    late_correction(t)
    follow(t, fake_game, before)
    assert row(E).adjustments == signed_e.payload["adjustments"]  # kept as signed
    assert row(F).adjustments == [
        {
            "gaming_day": DAY,
            "figures": {"recorded_win": -10_000, "replayed_win": -10_000},
            "win": 0,
            "drop": 0,
            "house_result": -10_000,
        }
    ]
    assert row(D).adjusted_into == F

    with pytest.raises(SignOffError) as refused:
        day_reopen(table="BJ-01", gaming_day=D, user=carol, note="restate the 29th")
    assert "reopen 2026-11-30 first" in str(refused.value)
    with pytest.raises(NoteRequired):
        day_reopen(table="BJ-01", gaming_day=E, user=carol, note=" ")
    day_reopen(table="BJ-01", gaming_day=E, user=carol, note="the 29th is restated")
    day_reopen(
        table="BJ-01",
        gaming_day=D,
        user=carol,
        note="restate the 29th with its drop and correction",
    )
    # reopened, the day is the record as it is now, and nothing is posted forward
    again = row(D)
    assert (again.state, again.drop, again.chip_win, again.recorded_win) == (
        "reconciled",
        900_000,
        400_000,
        390_000,
    )
    assert row(E).adjustments == [] and row(F).adjustments == []
    assert not Finding.objects.filter(
        superseded_by__isnull=True, kind="signed_day_changed"
    ).exists()


def test_reopening_needs_the_role(fake_game, carol) -> None:
    t = worked_example()
    next_day(t, NEXT, {100_000: 18})
    follow(t, fake_game)
    day_sign_off(table="BJ-01", gaming_day=D, user=carol)
    clerk = get_user_model().objects.create_user("dave", is_staff=True)
    with pytest.raises(StoreError) as refused:
        day_reopen(table="BJ-01", gaming_day=D, user=clerk, note="I would like to")
    assert refused.value.http_status == 403
    assert list(Event.objects.filter(stream=LEDGER_STREAM).values_list("type", flat=True)) == [
        "ledger.signed_off"
    ]


def test_a_late_correction_of_the_live_game_moves_the_win_of_the_next_open_day_in_the_reports(
    fake_game, carol
) -> None:
    """The live game (no drop box: its win is the recorded one) wins 500.00 on the 29th
    and 100.00 on the 30th; the 29th signed, a late correction takes 100.00 of its win:
    the 29th stays +500.00, the 30th reports a house result of +100.00 - 100.00 = 0.00."""
    t = Table("BJ-09")
    t.open(ruleset="it-live")
    t.play((100_000, -100_000), (50_000, 50_000))
    t.close()
    t.open(NEXT, ruleset="it-live")
    t.play((10_000, -10_000))
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    day_sign_off(table="BJ-09", gaming_day=D, user=carol, note="the live game: no drop box")
    t.add(
        "correction.recorded",
        {
            "round": 1,
            "corrects": None,
            "settlements": [{"bet": "r1-b1", "outcome": "lose", "net": -90_000}],
            "reason": "stake misread",
            "authorised_by": "PB-1",
        },
    )
    fake_game.rounds[("BJ-09", DAY, 1)] -= 10_000
    append(t.code, t.events[-1:])
    catch_up("ledger.books")
    assert (row(D).recorded_win, row(D).state) == (50_000, "adjusted")
    assert (row(E).recorded_win, row(E).adjustment_house_result, row(E).adjustment_win) == (
        10_000,
        -10_000,
        0,
    )
    daily = {
        r["gaming_day"]: (r["house_result"], r["drop"], r["hold"])
        for r in reports.daily(day_from=D, day_to=E).rows
    }
    assert daily == {DAY: (50_000, None, None), NEXT: (0, None, None)}  # never in a hold
