"""The ledger over REST: who may read and sign (anonymous, a device, a pit boss,
accounting, a superuser), sign-off and reopen as events in ``audit.ledger``, a signed-off
day changed later flagged, the reports and their CSV, and bad input answered in the
project's error shape."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group
from rest_framework.test import APIClient

from audit.access.devices import device_ensure
from audit.feed.subscribers import catch_up
from audit.models import Event, Finding
from ledger import models as m
from ledger.reconciliation import figures_hash
from ledger.signoff import LEDGER_STREAM
from tests.back_office.helpers import append

from .helpers import DAY, Table, worked_example

pytestmark = pytest.mark.django_db
NEXT = "2026-11-30"
DETAIL = f"/api/ledger/reconciliations/BJ-01/{DAY}"


@pytest.fixture
def books(settings, fake_game) -> Table:
    """The worked example, and the next day opened (so the first is complete)."""
    settings.PROJECT_ON_APPEND = False
    t = worked_example()
    t.open(NEXT)
    t.count("opening", {100_000: 18}, day=NEXT)
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    return t


def client_of(user) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)
    return client


@pytest.fixture
def accounting() -> APIClient:
    user = get_user_model().objects.create_user("carol", is_staff=True)
    user.groups.add(Group.objects.get(name="accounting"))
    return client_of(user)


@pytest.fixture
def pit_boss() -> APIClient:
    user = get_user_model().objects.create_user("alice", is_staff=True)
    user.groups.add(Group.objects.get(name="pit_boss"))
    return client_of(user)


@pytest.fixture
def superuser() -> APIClient:
    return client_of(get_user_model().objects.create_superuser("root", "root@example.com", "x"))


@pytest.fixture
def device() -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {device_ensure(stream='BJ-01').token}")
    return client


READS = [
    "/api/ledger/reconciliations",
    DETAIL,
    "/api/ledger/slips",
    f"/api/ledger/reports/statistics?day={DAY}",
    f"/api/ledger/reports/hold?from={DAY}&to={DAY}",
    f"/api/ledger/reports/daily?from={DAY}&to={DAY}",
    f"/api/ledger/reports/drop?from={DAY}&to={DAY}",
]


@pytest.mark.parametrize("path", READS)
def test_who_may_read_the_ledger(books, path, accounting, pit_boss, superuser, device) -> None:
    """Accounting and a superuser read; a pit boss (staff without the ledger's
    permission), a device and an anonymous client do not."""
    assert accounting.get(path).status_code == 200
    assert superuser.get(path).status_code == 200
    for client, status in ((pit_boss, 403), (device, 403), (APIClient(), 401)):
        answer = client.get(path)
        assert answer.status_code == status, (path, answer.content)
        assert answer.json()["code"] in ("permission_denied", "not_authenticated")


def test_who_may_sign_off(books, accounting, pit_boss, superuser, device) -> None:
    for client, status in ((pit_boss, 403), (device, 403), (APIClient(), 401)):
        assert client.post(f"{DETAIL}/sign-off", {}, format="json").status_code == status
    assert not m.SignOff.objects.exists()
    assert superuser.post(f"{DETAIL}/sign-off", {}, format="json").status_code == 200
    assert (
        superuser.post(f"{DETAIL}/reopen", {"note": "the superuser may"}, format="json").status_code
        == 200
    )
    assert accounting.post(f"{DETAIL}/sign-off", {}, format="json").status_code == 200


def test_sign_off_and_reopen_are_events(books, accounting) -> None:
    """Signing appends ledger.signed_off with the figures and their hash; a second
    sign-off is refused; reopening needs a note and appends ledger.reopened."""
    body = accounting.post(
        f"{DETAIL}/sign-off", {"note": "reconciled, nothing open"}, format="json"
    ).json()
    assert body["signed_off"]["status"] == "signed" and body["signed_off"]["by"] == "carol"
    [signed] = Event.objects.filter(stream=LEDGER_STREAM)
    assert (signed.type, signed.actor, signed.payload["by"]) == (
        "ledger.signed_off",
        "user:carol",
        "carol",
    )
    figures = signed.payload["figures"]
    assert (figures["chip_win"], figures["drop"], figures["recorded_win"]) == (
        400_000,
        900_000,
        400_000,
    )
    assert (
        signed.payload["figures_hash"]
        == figures_hash(figures)
        == m.SignOff.objects.get().figures_hash
    )

    again = accounting.post(f"{DETAIL}/sign-off", {}, format="json")
    assert again.status_code == 409 and again.json()["code"] == "sign_off_state"
    no_note = accounting.post(f"{DETAIL}/reopen", {}, format="json")
    assert no_note.status_code == 400 and no_note.json()["code"] == "note_required"
    assert no_note.json()["errors"]["note"]
    body = accounting.post(
        f"{DETAIL}/reopen", {"note": "a second bag of the drop turned up"}, format="json"
    ).json()
    assert body["signed_off"]["status"] == "reopened" and body["signed_off"][
        "reopen_note"
    ].startswith("a second bag")
    assert list(Event.objects.filter(stream=LEDGER_STREAM).values_list("type", flat=True)) == [
        "ledger.signed_off",
        "ledger.reopened",
    ]
    assert accounting.post(f"{DETAIL}/reopen", {"note": "twice"}, format="json").status_code == 409


def test_a_day_not_complete_or_unexplained_is_signed_only_with_a_note(books, accounting) -> None:
    today = f"/api/ledger/reconciliations/BJ-01/{NEXT}/sign-off"
    refused = accounting.post(today, {}, format="json")
    assert refused.status_code == 400 and refused.json()["detail"] == (
        "BJ-01 2026-11-30 is open: no closing count; the drop not counted; the table has not opened a later "
        "gaming day. Signing it off needs a note saying why."
    )
    assert (
        accounting.post(
            today, {"note": "signed early: the table closed for the night"}, format="json"
        ).status_code
        == 200
    )
    missing = accounting.post(
        "/api/ledger/reconciliations/BJ-01/2026-11-01/sign-off", {}, format="json"
    )
    assert missing.status_code == 404 and missing.json()["code"] == "not_found"


def test_a_signed_off_day_changed_later_is_flagged(books, accounting, fake_game) -> None:
    """A late correction of a settlement of the signed day: one open signed_day_changed
    naming the figure that moved; reopening the day supersedes it."""
    accounting.post(f"{DETAIL}/sign-off", {}, format="json")
    assert not Finding.objects.filter(superseded_by__isnull=True).exists()
    t = books
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
    append(t.code, t.events[-1:])
    catch_up("ledger.books")
    [flag] = Finding.objects.filter(superseded_by__isnull=True, kind="signed_day_changed")
    assert flag.status == "open" and flag.severity == "high" and str(flag.gaming_day) == DAY
    assert (
        "recorded_win +EUR 4,000.00" in flag.expected
        and "recorded_win +EUR 3,900.00" in flag.recorded
    )
    accounting.post(f"{DETAIL}/reopen", {"note": "the stake was corrected"}, format="json")
    flag.refresh_from_db()
    assert flag.superseded_by is not None


def test_the_day_in_full(books, accounting) -> None:
    body = accounting.get(DETAIL).json()
    assert (body["chip_count_win"], body["hold"], body["final"]) == (400_000, "44.4%", True)
    assert body["display"]["drop"] == "EUR 9,000.00"
    assert [s["number"] for s in body["slips"]] == ["C-1", "F-1"]
    assert [c["kind"] for c in body["inventory_slips"]] == ["opening", "closing"]
    assert body["drops"][0]["state"] == "posted" and body["shifts"][0]["shift"] == "06:00"
    assert accounting.get("/api/ledger/reconciliations/BJ-01/2026-02-30").status_code == 404


def test_reports_and_their_csv(books, accounting) -> None:
    body = accounting.get("/api/ledger/reports/hold", {"from": DAY, "to": NEXT}).json()
    [row] = body["rows"]
    assert (row["table"], row["drop"], row["win"], row["hold"]) == (
        "BJ-01",
        900_000,
        400_000,
        "44.4%",
    )
    assert row["display"]["win"] == "+EUR 4,000.00"
    text = accounting.get("/api/ledger/reports/hold", {"from": DAY, "to": NEXT, "format": "csv"})
    assert text["Content-Type"].startswith("text/csv")
    line, total = list(csv.DictReader(io.StringIO(text.content.decode())))
    assert (
        line["table"],
        line["win"],
        line["win_amount"],
        line["win_minor"],
        line["hold"],
        line["hold_bp"],
    ) == ("BJ-01", "+EUR 4,000.00", "4000.00", "400000", "44.4%", "4444")
    assert (
        total["table"],
        total["currency"],
        total["drop_amount"],
        total["win_amount"],
        total["hold"],
    ) == ("total", "EUR", "9000.00", "4000.00", "44.4%")
    stats = accounting.get(
        "/api/ledger/reports/statistics", {"group": "casino", "period": "mtd", "day": DAY}
    ).json()
    assert stats["rows"][0]["group"] == "casino" and stats["rows"][0]["hold"] == "44.4%"
    assert stats["rows"][0]["before_drop"] is None  # no day a year before: n/a, not 0
    for group in ("casino", "table", "game", "pit"):
        by_shift = accounting.get(
            "/api/ledger/reports/statistics", {"group": group, "period": "shift", "day": DAY}
        )
        [row] = by_shift.json()["rows"]
        assert row["shift"] == "06:00" and row["win"] == 400_000, group
    assert (
        accounting.get("/api/ledger/reports/statistics", {"group": "game", "day": DAY}).json()[
            "rows"
        ][0]["group"]
        == "hoyle"
    )
    listed = accounting.get(
        "/api/ledger/reconciliations", {"format": "csv", "day": DAY}
    ).content.decode()
    assert "chip_count_win" in listed and "+EUR 4,000.00" in listed


@pytest.mark.parametrize(
    "params, field",
    [
        ({"period": "weekly", "day": DAY}, "period"),
        ({"group": "colour", "day": DAY}, "group"),
        ({"period": "day"}, "query"),
        ({"period": "range", "from": NEXT, "to": DAY}, "query"),
        ({"day": DAY, "colour": "red"}, "colour"),
    ],
)
def test_bad_report_parameters_are_a_400_naming_them(books, accounting, params, field) -> None:
    answer = accounting.get("/api/ledger/reports/statistics", params)
    assert answer.status_code == 400, answer.content
    assert answer.json()["code"] == "invalid_request" and field in answer.json()["errors"]
    assert accounting.get("/api/ledger/reports/hold", {"from": NEXT, "to": DAY}).json()["errors"][
        "from"
    ]
