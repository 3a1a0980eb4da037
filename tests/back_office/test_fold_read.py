"""The fold reads a stream's events without the ORM's converters (SQLite's, and
PostgreSQL's timestamptz loader): what it reads is what the ORM read (the id's text, the
aware moment in UTC, the payload's value), event by event."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest
from django.db import connection

from audit.models import Event
from audit.store import reading
from audit.store.inserts import _sqlite_datetime
from tables.simulator.config import SimConfig
from tables.simulator.run import simulate
from tables.simulator.store import StoreSink

pytestmark = pytest.mark.django_db


def _orm_events(stream: str, low: int, high: int) -> list[dict[str, Any]]:
    """The reading through the ORM (what the fold did before)."""
    rows = (
        Event.objects.filter(stream=stream, version__gte=low, version__lte=high)
        .order_by("version")
        .values_list(*reading.FIELDS)
    )
    return [
        {
            "id": str(event_id),
            "version": version,
            "type": type_,
            "schema_version": schema_version,
            "payload": payload,
            "occurred_at": occurred_at,
        }
        for event_id, version, type_, schema_version, payload, occurred_at in rows.iterator(
            chunk_size=7
        )
    ]


@pytest.fixture
def sqlite() -> None:
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's reader (PostgreSQL has its own)")


def test_a_stream_reads_as_the_orm_read_it(settings) -> None:
    settings.PROJECT_ON_APPEND = False
    config = SimConfig(
        tables=1, presets=("it-live",), rounds=3, seed="fold-read", live_bets=30, prefix="FR-"
    )
    simulate(config, StoreSink(config))
    stream = config.table_specs()[0].code
    head = Event.objects.filter(stream=stream).count()
    assert head > 100
    for low, high in ((1, head), (5, 40), (head, head)):
        mine = list(reading.stream_events(stream, low, high))
        theirs = _orm_events(stream, low, high)
        assert mine == theirs
        assert [type(e["occurred_at"].tzinfo) for e in mine] == [
            type(e["occurred_at"].tzinfo) for e in theirs
        ]
        assert all(e["occurred_at"].utcoffset() == timedelta(0) for e in mine)


def test_the_id_text_is_the_uuid_s() -> None:
    for key in (
        uuid.uuid4(),
        uuid.UUID(int=0),
        uuid.UUID(int=2**128 - 1),
        uuid.UUID("12345678123456781234567812345678"),
    ):
        assert reading._id_text(key.hex) == str(key)
        # written otherwise (upper case, dashes): read as the ORM reads it
        assert reading._id_text(key.hex.upper()) == str(key)
        assert reading._id_text(str(key)) == str(key)
    with pytest.raises(ValueError):
        reading._id_text("not an id")


def test_the_moment_is_the_orm_s(sqlite) -> None:
    convert = connection.ops.convert_datetimefield_value
    moments = [
        datetime(2026, 11, 29, 6, 0, tzinfo=UTC),
        datetime(2026, 11, 29, 6, 0, 0, 123456, tzinfo=UTC),
        datetime(1900, 1, 1, tzinfo=UTC),
        datetime(2026, 3, 29, 1, 30, 5, 1, tzinfo=UTC),
    ]
    texts = [_sqlite_datetime(m) for m in moments] + [
        "2026-11-29 06:00:00",
        "2026-11-29 06:00:00.5",
        "2026-11-29T06:00:00",
        "2026-11-29 06:00:00+02:00",
    ]
    for text in texts:
        mine, theirs = reading._sqlite_moment(text), convert(text, None, connection)
        assert mine == theirs and mine.utcoffset() == theirs.utcoffset(), text
    assert reading._sqlite_moment("2026-11-29 06:00:00+02:00").tzinfo == timezone(
        timedelta(hours=2)
    )


def test_the_payload_is_the_json_field_s() -> None:
    field = Event._meta.get_field("payload")
    for text in (
        '{"a": 1, "b": [true, null, "x"]}',
        '{"nested": {"k": -3}}',
        "[]",
        "not json",
        '{"a": ',
    ):
        assert reading._json_value(text) == field.from_db_value(text, None, connection), text
