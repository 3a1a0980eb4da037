"""The folds' reader of a stream (audit.store.reading): on either database the dicts the ORM
would give - the id as text, the payload as builtins, the moment to the microsecond and
aware - in version order, within the versions asked, of the types asked."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from audit.models import Event
from audit.store.reading import stream_events
from audit.store.streams import events_append
from tests.samples import round_events, table_opened

pytestmark = pytest.mark.django_db

AT = datetime(2026, 11, 29, 20, 0, 0, 123456, tzinfo=UTC)


def _expected(stream: str, low: int, high: int, types: set[str] | None = None) -> list[dict]:
    rows = Event.objects.filter(stream=stream, version__gte=low, version__lte=high).order_by(
        "version"
    )
    return [
        {
            "id": str(e.event_id),
            "version": e.version,
            "type": e.type,
            "schema_version": e.schema_version,
            "payload": e.payload,
            "occurred_at": e.occurred_at,
        }
        for e in rows
        if types is None or e.type in types
    ]


def test_the_reader_gives_what_the_orm_gives() -> None:
    events = [table_opened("T1", at=AT), *round_events(1, at=AT)]
    # moments with and without a fraction of a second, and one a whole second
    events = [
        replace(e, occurred_at=AT + timedelta(microseconds=i * 250_001))
        for i, e in enumerate(events)
    ]
    events[3] = replace(events[3], occurred_at=datetime(2026, 11, 29, 21, 0, tzinfo=UTC))
    events_append(stream="T1", expected_version=0, events=events, now=AT)
    read = list(stream_events("T1", 2, 20))
    assert read == _expected("T1", 2, 20) and [e["version"] for e in read] == list(range(2, 21))
    assert all(e["occurred_at"].utcoffset() == timedelta(0) for e in read)
    assert read[2]["occurred_at"] == datetime(2026, 11, 29, 21, 0, tzinfo=UTC)  # version 4
    assert read[0]["occurred_at"] == AT + timedelta(microseconds=250_001)
    types = {"bet.placed", "round.settled"}
    only = list(stream_events("T1", 1, 99, types=types))
    assert only == _expected("T1", 1, 99, types) and {e["type"] for e in only} == types
    assert list(stream_events("T1", 30, 40)) == [] and list(stream_events("T9", 1, 9)) == []


def test_an_older_version_or_a_member_left_out_is_read_in_the_current_form() -> None:
    """The folds read every payload in its type's current form: a bet.placed of version 1
    with ``parent`` None (the catalogue's upcaster), an inventory count stored without its
    None members with them None, each at the current schema version; stored as sent."""
    from tests.event_examples import EXAMPLES, V1_EXAMPLES
    from tests.samples import sample_event

    bet_v1 = replace(sample_event("bet.placed", V1_EXAMPLES["bet.placed"], at=AT), schema_version=1)
    count = {
        "kind": "opening",
        "chips": EXAMPLES["inventory.counted"]["chips"],
        "counted_by": "D-1",
        "witnessed_by": "PB-1",
        "gaming_day": "2026-11-29",
    }
    events = [table_opened("T1", at=AT), bet_v1, sample_event("inventory.counted", count, at=AT)]
    events_append(stream="T1", expected_version=0, events=events, now=AT)
    bet, counted = list(stream_events("T1", 2, 3))
    assert (bet["schema_version"], bet["payload"]) == (
        2,
        {**V1_EXAMPLES["bet.placed"], "parent": None},
    )
    assert (counted["schema_version"], counted["payload"]) == (
        2,
        {**count, "shift": None, "slip": None},
    )
    stored = dict(Event.objects.filter(stream="T1").values_list("version", "payload"))
    assert stored[2] == V1_EXAMPLES["bet.placed"] and stored[3] == count
    assert [e["payload"] for e in stream_events("T1", 2, 3, types={"inventory.counted"})] == [
        counted["payload"]
    ]


@pytest.mark.postgres
def test_a_reader_that_stops_early_reads_the_rest_rather_than_cancel_the_query(
    on_postgres, monkeypatch
) -> None:
    """PostgreSQL streams the rows; a reader that takes the first event only (a fold's
    opening) leaves the connection ready for its next query, its stream read to the end
    - not cancelled, a signal that could land on that next query - and an outer
    transaction untouched."""
    import psycopg
    from django.db import connection, transaction

    events_append(
        stream="T1",
        expected_version=0,
        events=[table_opened("T1", at=AT), *round_events(1, at=AT)],
        now=AT,
    )
    cancelled = []
    monkeypatch.setattr(psycopg.Connection, "cancel", lambda self: cancelled.append(1))
    monkeypatch.setattr(psycopg.Connection, "cancel_safe", lambda self, **_: cancelled.append(1))
    with transaction.atomic():
        reader = stream_events("T1", 1, 99)
        first = next(reader)
        reader.close()
        assert first == _expected("T1", 1, 1)[0] and cancelled == []
        assert [e["version"] for e in stream_events("T1", 2, 3)] == [2, 3]
        assert connection.in_atomic_block and Event.objects.filter(stream="T1").count() > 3


@pytest.mark.postgres
@pytest.mark.parametrize("zone", [None, "America/New_York"])
def test_the_moment_is_aware_in_utc_whatever_the_sessions_zone(on_postgres, zone) -> None:
    """PostgreSQL: the moment comes from psycopg's own loader of a timestamptz in the
    session's zone, which Django sets to UTC; a session in another zone (a SET TIME ZONE
    on the connection) still reads it in UTC, the same instant."""
    from django.db import connection

    events = [
        replace(e, occurred_at=AT + timedelta(microseconds=i))
        for i, e in enumerate([table_opened("T1", at=AT), *round_events(1, at=AT)])
    ]
    events_append(stream="T1", expected_version=0, events=events, now=AT)
    expected = _expected("T1", 1, 99)
    if zone is not None:
        with connection.cursor() as cursor:
            cursor.execute(f"SET TIME ZONE '{zone}'")
        assert connection.connection.info.timezone is not UTC
    read = list(stream_events("T1", 1, 99))
    assert read == expected and len(read) == len(events)
    assert all(e["occurred_at"].tzinfo is UTC for e in read)
    assert read[5]["occurred_at"] == AT + timedelta(microseconds=5)
