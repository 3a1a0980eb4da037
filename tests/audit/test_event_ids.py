"""Events found by their ids (audit.store.event_ids.with_ids): on PostgreSQL through the key
table, the record's one index of ids (the partitions keep none); on SQLite through the
table's own unique index. The same events either way."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.db.models import Q

from audit.models import Event
from audit.store import partitions
from audit.store.event_ids import with_ids
from audit.store.streams import events_append
from tests.samples import round_events, table_opened

pytestmark = pytest.mark.django_db

NOW = datetime.now(UTC)


def _stored() -> tuple[list[Event], list[Event]]:
    """Two tables' events, the second table's on a later day (another partition on PostgreSQL)."""
    one = events_append(
        stream="T1", expected_version=0, events=[table_opened("T1"), *round_events(1)], now=NOW
    )
    two = events_append(
        stream="T2",
        expected_version=0,
        events=[table_opened("T2"), *round_events(1)],
        now=NOW + timedelta(days=1),
    )
    return one, two


def test_the_events_with_the_ids_asked_are_found_in_every_stream_and_day() -> None:
    one, two = _stored()
    asked = [
        one[3].event_id,
        str(two[0].event_id),
        str(two[7].event_id).upper(),
        uuid.uuid4(),
        "not an id",
    ]
    found = Event.objects.filter(with_ids(asked)).order_by("position")
    assert [(e.stream, e.version) for e in found] == [("T1", 4), ("T2", 1), ("T2", 8)]


def test_no_id_known_or_none_asked_finds_nothing() -> None:
    _stored()
    assert not Event.objects.filter(with_ids([])).exists()
    assert not Event.objects.filter(with_ids([uuid.uuid4(), "42"])).exists()


def test_the_filter_combines_with_others() -> None:
    one, two = _stored()
    ids = [one[0].event_id, two[0].event_id, two[5].event_id]
    assert list(
        Event.objects.filter(with_ids(ids), stream="T2")
        .order_by("version")
        .values_list("version", flat=True)
    ) == [1, 6]
    either = (
        Event.objects.filter(stream="T1").filter(Q(version=2) | with_ids(ids)).order_by("version")
    )
    assert list(either.values_list("version", flat=True)) == [1, 2]
    nothing_known = Event.objects.filter(stream="T1").filter(
        Q(version=2) | with_ids([uuid.uuid4()])
    )
    assert list(nothing_known.values_list("version", flat=True)) == [2]


def test_the_partitions_keep_no_index_of_ids(on_postgres) -> None:
    """The key table's primary key is the only index of event ids on PostgreSQL: none on
    the partitioned table, none on any of its partitions (migration 0019)."""
    _stored()
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT c.relname, i.indexrelid::regclass::text FROM pg_index i
               JOIN pg_class c ON c.oid = i.indrelid
               JOIN pg_attribute a ON a.attrelid = i.indrelid AND a.attnum = ANY(i.indkey)
               WHERE a.attname = 'event_id' AND c.relname LIKE %s""",
            [f"{partitions.TABLE}%"],
        )
        indexed = sorted(cursor.fetchall())
    assert indexed == [(partitions.KEY_TABLE, f"{partitions.KEY_TABLE}_pkey")]
