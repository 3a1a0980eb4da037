"""The access log: every read by a person is recorded, append-only, and sealed into the
record so that a changed, removed or slipped-in row is found."""

from __future__ import annotations

import io
from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, transaction
from django.test import Client

from audit.access.devices import device_ensure
from audit.access.log import ACCESS_STREAM, access_purge, access_seal, access_seals_problems
from audit.models import AccessRecord, Event
from tests.audit.tampering import tamper

pytestmark = pytest.mark.django_db


def test_a_persons_reads_are_recorded_with_who_what_and_outcome(admin_client) -> None:
    """An admin page and an API read by a logged-in person: one row each, with the
    principal, the path and query, the view and its arguments, the status."""
    admin_client.get("/admin/audit/event/?stream=BJ-01")
    admin_client.get("/api/streams/BJ-01/events", {"from_version": 1})
    rows = list(AccessRecord.objects.order_by("id"))
    assert [(r.principal, r.method, r.path, r.status) for r in rows] == [
        ("user:admin", "GET", "/admin/audit/event/", 200),
        ("user:admin", "GET", "/api/streams/BJ-01/events", 200),
    ]
    assert rows[0].query == "stream=BJ-01"
    assert rows[1].what == "stream-events BJ-01" and rows[1].query == "from_version=1"
    assert rows[1].address == "127.0.0.1"


def test_refused_reads_are_recorded_and_devices_and_writes_are_not() -> None:
    """An anonymous read is recorded with its refusal; a table device's reads of its own
    stream are not (it is not a person); a POST is a write (in the store), not a read."""
    Client().get("/api/events")
    token = device_ensure(stream="BJ-01").token
    device = Client(HTTP_AUTHORIZATION=f"Token {token}")
    device.get("/api/streams/BJ-01/events")
    device.post(
        "/api/streams/BJ-01/events",
        data={"expected_version": 0, "events": []},
        content_type="application/json",
    )
    assert list(AccessRecord.objects.values_list("principal", "path", "status")) == [
        ("anonymous", "/api/events", 401)
    ]


def test_the_database_refuses_to_change_a_record(admin_client) -> None:
    admin_client.get("/admin/")
    with pytest.raises(DatabaseError, match="append-only"), transaction.atomic():
        AccessRecord.objects.update(principal="user:nobody")
    assert AccessRecord.objects.get().principal == "user:admin"


def test_a_seal_covers_the_rows_and_finds_a_change_a_removal_and_an_insertion(admin_client) -> None:
    """Sealed rows verify; a row changed, removed or slipped in behind the database's
    back breaks its seal, named by its rows."""
    for _ in range(3):
        admin_client.get("/admin/")
    sealed = access_seal()
    assert sealed is not None and sealed.stream == ACCESS_STREAM
    assert sealed.payload["count"] == 3
    assert access_seal() is None  # nothing new
    assert access_seals_problems() == []
    first, last = sealed.payload["first"], sealed.payload["last"]
    ids = list(AccessRecord.objects.order_by("id").values_list("id", flat=True))
    tamper(f"UPDATE audit_access SET principal = 'user:someone' WHERE id = {ids[1]}")
    assert [str(p) for p in access_seals_problems()] == [
        f"access log rows {first}..{last}: the rows no longer match their seal (one was changed)"
    ]
    tamper(f"DELETE FROM audit_access WHERE id = {ids[0]}")
    assert "2 rows where 3 were sealed" in str(access_seals_problems()[0])
    tamper(
        f"INSERT INTO audit_access (id, at, principal, method, path, query, what, status, address) "
        f"VALUES ({ids[0]}, '2026-11-30 10:00:00+00', 'user:ghost', 'GET', '/admin/', '', '', 200, '')"
    )
    assert "rows no longer match" in str(access_seals_problems()[0])
    with pytest.raises(CommandError) as caught:
        call_command("access_log", "--check", stdout=io.StringIO(), stderr=io.StringIO())
    assert caught.value.returncode == 1


def test_rows_recorded_after_a_seal_go_into_the_next_one(admin_client) -> None:
    admin_client.get("/admin/")
    one = access_seal()
    admin_client.get("/admin/")
    admin_client.get("/admin/")
    two = access_seal()
    assert two.payload["first"] == one.payload["last"] + 1 and two.payload["count"] == 2
    assert Event.objects.filter(stream=ACCESS_STREAM).count() == 2


def test_the_purge_keeps_at_least_ninety_days_and_records_what_went(admin_client) -> None:
    """Rows older than the retention and already sealed go; the purge is an event; a
    retention under 90 days is refused."""
    old = datetime.now(UTC) - timedelta(days=200)
    admin_client.get("/admin/")
    tamper(f"UPDATE audit_access SET at = '{old.isoformat()}'")
    access_seal()
    admin_client.get("/admin/")  # recent: stays, with its seal
    access_seal()
    with pytest.raises(ValueError, match="90 days"):
        access_purge(retention_days=30)
    assert access_purge(retention_days=100) == 1
    assert AccessRecord.objects.count() == 1
    purged = Event.objects.get(stream=ACCESS_STREAM, type="access.purged")
    assert purged.payload["count"] == 1
    assert access_seals_problems() == []  # the purged seal is no longer checked


@pytest.mark.django_db(transaction=True)
def test_outside_a_transaction_every_read_is_recorded_once_and_a_devices_never(
    django_user_model,
) -> None:
    """As a server runs (no test transaction around the request: on PostgreSQL the row
    goes in one round trip, the device check in the same statement): a person's and the
    anonymous reads are rows with who, what and outcome; a device's are not, whether its
    account was looked up already (the API's token) or not (a session on an admin page)."""
    person = django_user_model.objects.create_user("carol", is_staff=True, is_superuser=True)
    client = Client()
    client.force_login(person)
    client.get("/admin/audit/event/?stream=BJ-01")
    client.get("/api/streams/BJ-01/events", {"from_version": 1})
    Client().get("/api/events")
    issued = device_ensure(stream="BJ-01")
    Client(HTTP_AUTHORIZATION=f"Token {issued.token}").get("/api/streams/BJ-01/events")
    by_session = Client()
    by_session.force_login(issued.account.user)
    by_session.get("/admin/")
    rows = list(
        AccessRecord.objects.order_by("id").values_list(
            "principal", "path", "query", "what", "status"
        )
    )
    assert rows == [
        ("user:carol", "/admin/audit/event/", "stream=BJ-01", "admin:audit_event_changelist", 200),
        ("user:carol", "/api/streams/BJ-01/events", "from_version=1", "stream-events BJ-01", 200),
        ("anonymous", "/api/events", "", "events-feed", 401),
    ]
