"""Writing event rows fast: PostgreSQL's COPY, SQLite's executemany.

The ORM's ``bulk_create`` spends most of an append preparing each value through the
field machinery; these paths hand the driver plain values, adapted exactly as Django
would store them, so rows read back through the ORM are identical.
"""

from __future__ import annotations

import struct
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

import msgspec
from django.db import connection

from audit.models import Event
from audit.record.chain import format_timestamp
from audit.record.envelope import Envelope

from .seals import seal_of

COLUMNS = (
    "event_id",
    "stream",
    "version",
    "type",
    "schema_version",
    "occurred_at",
    "recorded_at",
    "actor",
    "source",
    "payload",
    "prev_hash",
    "hash",
    "principal",
    "seal",
)


_encode = msgspec.json.Encoder().encode


def _json(value: dict[str, Any]) -> str:
    return _encode(value).decode()


def db_values(row: Envelope, vendor: str, principal: str) -> tuple[object, ...]:
    """A sealed envelope's column values as the driver takes them, in ``COLUMNS`` order
    (``position`` is the database's to give), with who appended it and the store's seal."""
    payload = _json(row.payload)
    seal = seal_of(row.hash, principal)
    if vendor == "sqlite":
        return (
            row.id.hex,
            row.stream,
            row.version,
            row.type,
            row.schema_version,
            _sqlite_datetime(row.occurred_at),
            _sqlite_datetime(row.recorded_at),
            row.actor,
            row.source,
            payload,
            row.prev_hash,
            row.hash,
            principal,
            seal,
        )
    return (
        str(row.id),
        row.stream,
        row.version,
        row.type,
        row.schema_version,
        format_timestamp(row.occurred_at),
        format_timestamp(row.recorded_at),
        row.actor,
        row.source,
        payload,
        row.prev_hash,
        row.hash,
        principal,
        seal,
    )


def sqlite_values(
    id: str,
    stream: str,
    version: int,
    type: str,
    schema_version: int,
    occurred_at: bytes,
    recorded_at: bytes,
    actor: str,
    source: str,
    payload: dict[str, Any],
    prev_hash: str,
    hash: str,
    principal: str,
    seal: str,
) -> tuple[object, ...]:
    """:func:`db_values`' SQLite row from members the caller has made already: ``id`` as
    ``uuid.hex``, the moments as the chain writes them (``format_timestamp``'s text, as
    bytes), and the seal (``seal_of(hash, principal)``) - the same values, none made twice."""
    return (
        id,
        stream,
        version,
        type,
        schema_version,
        _sqlite_text(occurred_at),
        _sqlite_text(recorded_at),
        actor,
        source,
        _json(payload),
        prev_hash,
        hash,
        principal,
        seal,
    )


def insert_rows(rows: Sequence[Envelope], principal: str) -> None:
    vendor = connection.vendor
    insert_values([db_values(row, vendor, principal) for row in rows])


# PostgreSQL's binary COPY: a header, each row as its number of fields and each field
# length-prefixed in its type's binary form, and a trailer. The server reads no text for
# the uuid, the integers and the moments (less of the server's CPU an event than the
# text format's rows); jsonb's binary form is a version byte and the JSON text
_BINARY_HEADER = b"PGCOPY\n\xff\r\n\x00" + struct.pack(">ii", 0, 0)
_BINARY_TRAILER = struct.pack(">h", -1)
_PG_EPOCH = datetime(2000, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_FIELD = struct.Struct(">i").pack
_ID = struct.Struct(">hi16s").pack  # the row's fields, event_id
_VERSION = struct.Struct(">iq").pack
_MOMENTS = struct.Struct(">ihiqiq").pack  # schema_version (smallint), occurred_at, recorded_at
_PAYLOAD = struct.Struct(">ib").pack  # jsonb: its length, the format's version (1)
_HEX = _FIELD(64)  # a hash or a seal: 64 hex digits


def binary_text(text: bytes) -> bytes:
    """A text field of :func:`binary_row`: its length, then its UTF-8 bytes."""
    return _FIELD(len(text)) + text


def binary_moment(moment: datetime) -> int:
    """A timestamptz field's value in :func:`binary_row`: microseconds since 2000-01-01 UTC."""
    return (moment - _PG_EPOCH) // _MICROSECOND


def binary_row(
    id: bytes,
    stream: bytes,
    version: int,
    type: bytes,
    schema_version: int,
    occurred_at: int,
    recorded_at: int,
    actor: bytes,
    source: bytes,
    payload: bytes,
    prev_hash: bytes,
    hash: bytes,
    principal: bytes,
    seal: bytes,
) -> bytes:
    """One event row for :func:`copy_rows` in COPY's binary format, in ``COLUMNS``
    order: ``id`` the UUID's 16 bytes; ``stream``, ``type``, ``actor``, ``source`` and
    ``principal`` already :func:`binary_text` (a caller makes each once, not once a row);
    the moments :func:`binary_moment`; ``payload`` the canonical JSON; ``hash`` and
    ``seal`` 64 hex digits each (SHA-256 and HMAC-SHA256, as bytes), ``prev_hash`` as bytes."""
    return b"".join(
        (
            _ID(14, 16, id),
            stream,
            _VERSION(8, version),
            type,
            _MOMENTS(2, schema_version, 8, occurred_at, 8, recorded_at),
            actor,
            source,
            _PAYLOAD(len(payload) + 1, 1),
            payload,
            _FIELD(len(prev_hash)),
            prev_hash,
            _HEX,
            hash,
            principal,
            _HEX,
            seal,
        )
    )


def copy_rows(rows: Sequence[bytes]) -> None:
    """Write rows made by :func:`binary_row` (PostgreSQL): the bytes go to the server as
    they are, with no per-value work in the driver."""
    if not rows:
        return
    sql = f"COPY {Event._meta.db_table} ({', '.join(COLUMNS)}) FROM STDIN (FORMAT BINARY)"
    with (
        connection.cursor() as cursor,
        connection.wrap_database_errors,
        cursor.cursor.copy(sql) as copy,
    ):
        copy.write(_BINARY_HEADER)
        copy.write(b"".join(rows))
        copy.write(_BINARY_TRAILER)


def insert_values(values: Sequence[Sequence[object]]) -> None:
    """Write rows already in :func:`db_values` form."""
    if not values:
        return
    table = Event._meta.db_table
    if connection.vendor == "postgresql":
        sql = f"COPY {table} ({', '.join(COLUMNS)}) FROM STDIN"
        # the psycopg 3 cursor under Django's wrapper; its errors wrapped as Django's
        # (a unique violation is an IntegrityError to the store, as through the ORM)
        with (
            connection.cursor() as cursor,
            connection.wrap_database_errors,
            cursor.cursor.copy(sql) as copy,
        ):
            for row in values:
                copy.write_row(row)
    elif connection.vendor == "sqlite":
        sql = f"INSERT INTO {table} ({', '.join(COLUMNS)}) VALUES ({', '.join(['%s'] * len(COLUMNS))})"
        with connection.cursor() as cursor:
            cursor.executemany(sql, values)
    else:  # pragma: no cover - other vendors are refused by the migrations
        raise NotImplementedError(connection.vendor)


def _sqlite_datetime(moment: datetime) -> str:
    """What Django's SQLite backend stores for an aware datetime (USE_TZ): naive UTC text,
    ``YYYY-MM-DD HH:MM:SS.ffffff`` (Django drops a zero fraction; its reader takes both,
    and the text still sorts in time order)."""
    text = format_timestamp(moment)
    return f"{text[:10]} {text[11:-1]}"


def _sqlite_text(text: bytes) -> str:
    """:func:`_sqlite_datetime` of the moment whose ``format_timestamp`` is ``text``."""
    return f"{text[:10].decode()} {text[11:-1].decode()}"
