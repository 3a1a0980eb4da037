"""Writing event rows fast: PostgreSQL's COPY, SQLite's executemany.

The ORM's ``bulk_create`` spends most of an append preparing each value through the
field machinery; these paths hand the driver plain values, adapted exactly as Django
would store them, so rows read back through the ORM are identical.
"""
from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any, NamedTuple

from django.db import connection

from .models import Event

COLUMNS = (
    "event_id", "stream", "version", "type", "schema_version", "occurred_at", "recorded_at",
    "actor", "source", "payload", "prev_hash", "hash",
)


class Row(NamedTuple):
    event_id: uuid.UUID
    stream: str
    version: int
    type: str
    schema_version: int
    occurred_at: datetime
    recorded_at: datetime
    actor: str
    source: str
    payload: dict[str, Any]
    prev_hash: str
    hash: str


def _json(value: dict[str, Any]) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def insert_rows(rows: Sequence[Row]) -> None:
    if not rows:
        return
    table = Event._meta.db_table
    if connection.vendor == "postgresql":
        _copy_postgresql(table, rows)
    elif connection.vendor == "sqlite":
        _executemany_sqlite(table, rows)
    else:  # pragma: no cover - other vendors are refused by the migrations
        raise NotImplementedError(connection.vendor)


def _copy_postgresql(table: str, rows: Sequence[Row]) -> None:
    sql = f"COPY {table} ({', '.join(COLUMNS)}) FROM STDIN"
    with connection.cursor() as cursor:
        with cursor.cursor.copy(sql) as copy:  # the psycopg 3 cursor under Django's wrapper
            for row in rows:
                copy.write_row(row._replace(payload=_json(row.payload)))


def _sqlite_datetime(moment: datetime) -> str:
    """What Django's SQLite backend stores for an aware datetime (USE_TZ): naive UTC text."""
    if moment.utcoffset():
        moment = moment.astimezone(UTC)
    return str(moment.replace(tzinfo=None))


def _executemany_sqlite(table: str, rows: Sequence[Row]) -> None:
    adapt = _sqlite_datetime
    sql = f"INSERT INTO {table} ({', '.join(COLUMNS)}) VALUES ({', '.join(['%s'] * len(COLUMNS))})"
    values = [
        (row.event_id.hex, row.stream, row.version, row.type, row.schema_version,
         adapt(row.occurred_at), adapt(row.recorded_at), row.actor, row.source,
         _json(row.payload), row.prev_hash, row.hash)
        for row in rows
    ]
    with connection.cursor() as cursor:
        cursor.executemany(sql, values)
