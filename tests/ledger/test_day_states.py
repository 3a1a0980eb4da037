"""A table-day's accounting state, and what an incomplete one may not do: a day with no
closer, one whose drop was never counted and one whose drop was never posted each read
"incomplete" with the finding that names what is missing, make ``reconcile`` exit 1, and
are signed off only with a note - which the sign-off event records as its exception. A
game without a drop box (the live game) has a state of its own and no hold. Figures are
the worked example's (13 Miss. Code R. 7-3.3), by hand: opener 20,000.00, fills
5,000.00, credits 2,000.00, closer 18,000.00, drop 9,000.00, the rounds win 4,000.00."""

from __future__ import annotations

import json
from datetime import date

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group, Permission
from rest_framework.test import APIClient

from audit.access.authority import NotAllowed
from audit.feed.subscribers import catch_up
from audit.models import Event, Finding
from ledger import models as m
from ledger.signoff import LEDGER_STREAM, NoteRequired, day_sign_off
from tests.back_office.helpers import append
from tests.commands import run_command

from .helpers import DAY, Table, worked_example

pytestmark = pytest.mark.django_db
NEXT = "2026-11-30"
D = date(2026, 11, 29)


@pytest.fixture(autouse=True)
def _no_projection_on_append(settings) -> None:
    settings.PROJECT_ON_APPEND = False


def without(t: Table, type: str, kind: str | None = None) -> Table:
    """The table's events but the ones of ``type`` (and inventory ``kind``)."""
    t.events = [
        e
        for e in t.events
        if not (e["type"] == type and (kind is None or e["payload"]["kind"] == kind))
    ]
    return t


def stored(t: Table, fake_game) -> m.Reconciliation:
    """Append the day, open the next (so the day is final), follow the feed; the day's row."""
    t.open(NEXT)
    t.count("opening", {100_000: 18}, day=NEXT)
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    return m.Reconciliation.objects.get(gaming_day=D, shift="")


def no_closer() -> Table:
    return without(worked_example(), "inventory.counted", "closing")


def drop_never_counted() -> Table:
    t = without(worked_example(), "drop.counted")
    return without(t, "drop.posted")


def drop_not_posted() -> Table:
    return without(worked_example(), "drop.posted")


@pytest.fixture
def carol():
    user = get_user_model().objects.create_user("carol", is_staff=True)
    user.groups.add(Group.objects.get(name="accounting"))
    return user


def open_findings(day: date = D) -> list[str]:
    return sorted(
        Finding.objects.filter(gaming_day=day, superseded_by__isnull=True).values_list(
            "kind", flat=True
        )
    )


def test_the_worked_example_complete_is_reconciled(fake_game) -> None:
    day = stored(worked_example(), fake_game)
    assert (day.state, day.missing, day.chip_win, day.chip_variance) == (
        "reconciled",
        [],
        400_000,
        0,
    )
    assert open_findings() == []
    code, out, _ = run_command("reconcile", "--day", DAY)
    assert code == 0 and out.rstrip().endswith("hold 44.4%; reconciled")


@pytest.mark.parametrize(
    ("make", "kind", "words", "chip_win"),
    [
        (no_closer, "closer_missing", "no closing count", None),
        (drop_never_counted, "drop_not_counted", "the drop not counted", None),
        # the count is the drop the chip-count win needs: it is right, and the day still incomplete
        (drop_not_posted, "drop_not_posted", "the drop not posted", 400_000),
    ],
    ids=["no closer", "drop never counted", "drop not posted"],
)
def test_an_incomplete_day_is_said_found_exits_1_and_is_signed_only_with_a_note(
    fake_game, carol, make, kind, words, chip_win
) -> None:
    day = stored(make(), fake_game)
    assert (day.state, day.missing, day.chip_win, day.recorded_win) == (
        "incomplete",
        [kind],
        chip_win,
        400_000,
    )
    assert (
        not day.unexplained
    )  # no variance: what is missing is not a variance, and is not "explained" either
    assert open_findings() == [kind]

    code, out, err = run_command("reconcile", "--day", DAY)
    assert (
        code == 1 and f"; incomplete: {words}" in out and "1 of 1 table-day(s) lack a count" in err
    )
    code, out, _ = run_command("reconcile", "--day", DAY, "--json")
    [result] = json.loads(out)
    assert (result["state"], result["missing"], result["state_text"]) == (
        "incomplete",
        [kind],
        f"incomplete: {words}",
    )

    # the service refuses it without a note, naming what is missing; nothing is appended
    with pytest.raises(NoteRequired) as refused:
        day_sign_off(table="BJ-01", gaming_day=D, user=carol)
    assert (
        str(refused.value)
        == f"BJ-01 2026-11-29 is incomplete: {words}. Signing it off needs a note saying why."
    )
    # and over the API: 400 in the one error shape, naming the field
    client = APIClient()
    client.force_authenticate(carol)
    path = f"/api/ledger/reconciliations/BJ-01/{DAY}/sign-off"
    answer = client.post(path, {}, format="json")
    assert answer.status_code == 400 and answer.json()["code"] == "note_required"
    assert answer.json()["errors"]["note"] == [str(refused.value)]
    assert (
        not Event.objects.filter(stream=LEDGER_STREAM).exists() and not m.SignOff.objects.exists()
    )

    body = client.post(path, {"note": "the count room counts it on Monday"}, format="json").json()
    assert body["state"] == "signed" and body["signed_off"]["exceptions"] == [kind]
    [event] = Event.objects.filter(stream=LEDGER_STREAM)
    assert (
        event.schema_version,
        event.payload["state"],
        event.payload["exceptions"],
        event.payload["note"],
    ) == (2, "incomplete", [kind], "the count room counts it on Monday")
    signed = m.SignOff.objects.get()
    assert (signed.state, signed.exceptions, signed.note) == (
        "incomplete",
        [kind],
        "the count room counts it on Monday",
    )


def test_a_complete_day_is_signed_without_a_note_and_records_no_exception(fake_game, carol) -> None:
    stored(worked_example(), fake_game)
    day_sign_off(table="BJ-01", gaming_day=D, user=carol)
    [event] = Event.objects.filter(stream=LEDGER_STREAM)
    assert (event.payload["state"], event.payload["exceptions"], event.payload["note"]) == (
        "reconciled",
        [],
        None,
    )
    assert m.Reconciliation.objects.get(gaming_day=D, shift="").state == "signed"


def test_a_day_lacking_everything_names_each_thing_and_the_next_day_still_open_is_open(
    fake_game,
) -> None:
    """A day of rounds only (no count, no drop) at a table whose game has a drop box:
    opener, closer and drop each a finding; the next day, not final, lacks its closer and
    drop but is open - nothing found yet."""
    t = Table()
    t.open()
    t.play((100_000, -100_000))
    t.close()
    day = stored(t, fake_game)
    assert (day.state, day.missing) == (
        "incomplete",
        ["opener_missing", "closer_missing", "drop_not_counted"],
    )
    assert open_findings() == ["closer_missing", "drop_not_counted", "opener_missing"]
    following = m.Reconciliation.objects.get(gaming_day=date(2026, 11, 30), shift="")
    assert (following.state, following.missing) == ("open", ["closer_missing", "drop_not_counted"])
    assert open_findings(date(2026, 11, 30)) == []


def test_the_live_game_has_no_drop_box_no_hold_and_nothing_missing(fake_game) -> None:
    t = Table("BJ-09")
    t.open(ruleset="it-live")
    t.play((100_000, -100_000), (50_000, 50_000))  # the house wins 500.00
    t.close()
    t.open(NEXT, ruleset="it-live")
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    day = m.Reconciliation.objects.get(gaming_day=D, shift="")
    assert (day.state, day.drop_box, day.missing, day.chip_win, day.drop, day.recorded_win) == (
        "no_drop_box",
        False,
        [],
        None,
        None,
        50_000,
    )
    assert open_findings() == []
    code, out, _ = run_command("reconcile", "--day", DAY)
    assert code == 0 and out.rstrip().endswith("hold n/a; no drop box (a game without a chip tray)")


def test_a_device_or_a_person_without_the_role_may_not_sign_off_even_past_the_api(
    fake_game,
) -> None:
    from audit.access.devices import device_ensure

    stored(worked_example(), fake_game)
    clerk = get_user_model().objects.create_user("dave", is_staff=True)
    device = device_ensure(stream="BJ-01").account.user
    device.user_permissions.add(*Permission.objects.filter(codename="sign_off"))  # given by mistake
    for user in (clerk, device):
        with pytest.raises(NotAllowed):
            day_sign_off(table="BJ-01", gaming_day=D, user=user, note="signed by the wrong hand")
    assert not Event.objects.filter(stream=LEDGER_STREAM).exists()


def test_a_drop_posted_other_than_counted_is_counted_not_reconciled(fake_game, carol) -> None:
    """The count team counted 9,000.00 and accounting posted 8,950.00: the chip-count win
    (from the count) agrees with the record, but the day is not reconciled - the posting
    differs from the count and nothing explains it."""
    t = without(worked_example(), "drop.posted")
    t.drop(900_000, steps=("posted",), posted=(895_000, 0, 0))
    day = stored(t, fake_game)
    assert (day.state, day.missing, day.chip_win, day.chip_variance, day.unexplained) == (
        "counted",
        [],
        400_000,
        0,
        True,
    )
    assert open_findings() == ["drop_mismatch"]
    code, out, err = run_command("reconcile", "--day", DAY)
    assert (
        code == 1
        and out.splitlines()[0].endswith("; counted, a variance not explained")
        and "does not explain" in err
    )
    with pytest.raises(NoteRequired) as refused:
        day_sign_off(table="BJ-01", gaming_day=D, user=carol)
    assert "the drop posted differs from its count" in str(refused.value)


def test_a_fill_received_short_of_its_issue_is_counted_not_reconciled(fake_game, carol) -> None:
    """The cage issued fill F-1 for 5,000.00 and the table received 4,900.00 (the tray
    and its closer hold 100.00 fewer: 17,900.00). By hand: chip-count win = 17,900.00 -
    20,000.00 + 2,000.00 - 4,900.00 + 9,000.00 = 4,000.00 = the recorded win, variance
    0.00 - yet 100.00 left the cage and reached no table. The day is not reconciled."""
    t = Table()
    t.open()
    t.count("opening", {100_000: 20})
    t.buyin(900_000)
    t.fill("F-1", {100_000: 5}, received={100_000: 4, 10_000: 9})  # 4,900.00 of 5,000.00
    t.play((300_000, -300_000), (100_000, 100_000), (200_000, -200_000))
    t.credit("C-1", {100_000: 2})
    t.count("closing", {100_000: 17, 10_000: 9})  # 17,900.00
    t.close()
    t.drop(900_000)
    day = stored(t, fake_game)
    assert (day.fills, day.closer, day.chip_win, day.recorded_win, day.chip_variance) == (
        490_000,
        1_790_000,
        400_000,
        400_000,
        0,
    )
    assert (day.state, day.missing, day.unexplained) == ("counted", [], True)
    assert open_findings() == ["slip_mismatch"]
    code, out, _ = run_command("reconcile", "--day", DAY)
    assert code == 1 and out.splitlines()[0].endswith("; counted, a variance not explained")
    with pytest.raises(NoteRequired) as refused:
        day_sign_off(table="BJ-01", gaming_day=D, user=carol)
    assert "a fill or credit slip whose steps disagree" in str(refused.value)


def test_a_day_whose_last_shift_was_never_closed_has_no_chip_count_win_and_no_hold(
    fake_game,
) -> None:
    """Two shifts: 06:00 opens at 20,000.00, takes a 4,000.00 buy-in, the house wins
    2,000.00 and it closes at 18,000.00; 14:00 opens at 18,000.00, the house wins
    1,000.00 more, and no closer is counted; the day's box holds 4,000.00. The day's
    chip-count win is n/a - not 18,000 - 20,000 + 4,000 = +2,000.00 from the 06:00 closer
    - so it has no hold and is left out of the hold report, named."""
    from ledger.reports import hold

    t = Table()
    t.open()
    t.count("opening", {100_000: 20}, shift="06:00")
    t.buyin(400_000)
    t.play((200_000, -200_000))
    t.count("closing", {100_000: 18}, shift="06:00")
    t.count("opening", {100_000: 18}, shift="14:00")
    t.play((100_000, -100_000))
    t.close()
    t.drop(400_000, shift=None)
    day = stored(t, fake_game)
    assert (day.opener, day.closer, day.drop, day.recorded_win, day.chip_win) == (
        2_000_000,
        None,
        400_000,
        300_000,
        None,
    )
    assert (day.state, day.missing) == ("incomplete", ["closer_missing"])
    assert open_findings() == ["closer_missing"]
    [row] = hold(day_from=D, day_to=D).rows
    assert (row["hold"], row["in_hold"], row["left_out"], row["left_out_days"]) == (
        None,
        0,
        1,
        "BJ-01 2026-11-29 (no closer count)",
    )
    code, out, _ = run_command("reconcile", "--day", DAY)
    assert code == 1 and "chip-count n/a" in out and "hold n/a" in out
