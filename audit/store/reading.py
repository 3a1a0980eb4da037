"""A stream's events read for a fold - the tables' replay (:mod:`tables.fold`) and the
ledger's books (:mod:`ledger.projection`) - as the dicts the folds read: ``id`` (text),
``version``, ``type``, ``schema_version``, ``payload`` (builtins) and ``occurred_at`` (an
aware datetime in UTC). Streamed, not held: a live game's day is close to a million
events. Each payload is in its type's current form (:func:`audit.record.events.current_form`:
an older version lifted by the catalogue's upcasters, a member left out as ``None`` put
back) and ``schema_version`` is the current version: the folds read no older version.

Read without the ORM's value converters, which cost more than the fold of an event:

- PostgreSQL, streamed as the server sends the rows: the id as text, the payload as its JSON text
  (decoded by msgspec: the same builtins as ``json.loads``, made in C), the
  moment by psycopg's own compiled loader of a timestamptz, aware in the session's zone,
  which Django sets to UTC (Django's loader, and a naive timestamp made aware, are each
  Python per value: docs/performance.md, "One reader for the folds");
- SQLite: the columns as Django's SQLite backend stores them - the id as its 32 hex
  digits, the moment as naive UTC text, the payload as JSON text - made into what its
  converters give (``str(uuid)``, an aware datetime in UTC, the JSON's builtins) without
  a converter call per value, which would cost more than the fold of the event.

``tests/audit/test_reading.py`` and ``tests/back_office/test_fold_read.py`` hold every
value equal to what the ORM reads.
"""

from __future__ import annotations

import re
import uuid
from collections.abc import Collection, Iterator
from datetime import UTC, datetime
from typing import Any

import msgspec
import psycopg
from django.db import connection
from django.utils.dateparse import parse_datetime

from audit.models import Event
from audit.record.events import LIFTED, current_form

__all__ = ["stream_events"]

FIELDS = ("event_id", "version", "type", "schema_version", "payload", "occurred_at")
_POSTGRESQL = (
    "SELECT event_id::text, version, type, schema_version, payload, {moment}"
    " FROM audit_event WHERE stream = %s AND version >= %s AND version <= %s{types} ORDER BY version"
)
# psycopg's compiled loader of a timestamptz, not the one Django registers on its connections
_MOMENT_LOADER = psycopg.adapters.get_loader(
    psycopg.adapters.types["timestamptz"].oid, psycopg.pq.Format.TEXT
)
_SQLITE = (
    "SELECT event_id, version, type, schema_version, payload, occurred_at FROM audit_event"
    " WHERE stream = %s AND version >= %s AND version <= %s{types} ORDER BY version"
)
_decode_json = msgspec.json.Decoder().decode
_HEX_ID = re.compile(r"[0-9a-f]{32}")
_CHUNK = 5000
# rows a chunk of PostgreSQL's stream: the fold starts on the first chunk while the
# server sends the next
_STREAMED = 500


def stream_events(
    stream: str, low: int, high: int, *, types: Collection[str] | None = None
) -> Iterator[dict[str, Any]]:
    """The events ``low``..``high`` of ``stream`` in version order (``types``: of these
    types only)."""
    if connection.vendor == "postgresql":
        yield from _postgresql(stream, low, high, types)
    elif connection.vendor == "sqlite":
        yield from _sqlite(stream, low, high, types)
    else:  # pragma: no cover - other vendors are refused by the migrations
        rows = Event.objects.filter(stream=stream, version__gte=low, version__lte=high)
        if types is not None:
            rows = rows.filter(type__in=list(types))
        for event_id, version, type_, schema_version, payload, occurred_at in (
            rows.order_by("version").values_list(*FIELDS).iterator(chunk_size=_CHUNK)
        ):
            if type_ in LIFTED:
                schema_version, payload = current_form(type_, schema_version, payload)
            yield {
                "id": str(event_id),
                "version": version,
                "type": type_,
                "schema_version": schema_version,
                "payload": payload,
                "occurred_at": occurred_at,
            }


def _postgresql(
    stream: str, low: int, high: int, types: Collection[str] | None
) -> Iterator[dict[str, Any]]:
    loads = _decode_json
    params: list[Any] = [stream, low, high]
    if types is not None:
        params.append(list(types))
    # streamed (psycopg's stream: libpq's rows in chunks as the server sends them), so the
    # server reads and sends the rows while the fold takes those that came: a server-side
    # cursor outside a transaction is WITH HOLD, and its query ran to the end, held in a
    # temporary store, before the first row came back (a live round's replay waited about
    # 0.02 s on it). Memory stays flat as with the cursor; no other query may run on the
    # connection until the rows are read, and no reader of a fold runs one
    with connection.cursor() as cursor:
        # the moment aware where the session's zone is UTC (Django sets it so with USE_TZ);
        # otherwise read as a UTC timestamp and made aware here
        in_utc = cursor.cursor.connection.info.timezone is UTC
        sql = _POSTGRESQL.format(
            types="" if types is None else " AND type = ANY(%s)",
            moment="occurred_at" if in_utc else "occurred_at AT TIME ZONE 'UTC'",
        )
        cursor.cursor.adapters.register_loader("timestamptz", _MOMENT_LOADER)  # this cursor's only
        rows = cursor.cursor.stream(sql, params, size=_STREAMED)
        try:
            for event_id, version, type_, schema_version, payload, occurred_at in rows:
                payload = loads(payload)
                if type_ in LIFTED:
                    schema_version, payload = current_form(type_, schema_version, payload)
                yield {
                    "id": event_id,
                    "version": version,
                    "type": type_,
                    "schema_version": schema_version,
                    "payload": payload,
                    "occurred_at": occurred_at if in_utc else occurred_at.replace(tzinfo=UTC),
                }
        finally:
            # a reader that stops early (the first event only, an error in the fold): the
            # rest read to the end, where closing the stream would cancel the query by a
            # signal that might land on the connection's next one
            for _ in rows:
                pass


def _sqlite(
    stream: str, low: int, high: int, types: Collection[str] | None
) -> Iterator[dict[str, Any]]:
    loads = _json_value
    params: list[Any] = [stream, low, high]
    marks = ""
    if types is not None:
        params.extend(types)
        marks = f" AND type IN ({', '.join(['%s'] * len(types))})"
    with connection.cursor() as cursor:
        cursor.execute(_SQLITE.format(types=marks), params)
        while rows := cursor.fetchmany(_CHUNK):
            for event_id, version, type_, schema_version, payload, occurred_at in rows:
                payload = loads(payload)
                if type_ in LIFTED:
                    schema_version, payload = current_form(type_, schema_version, payload)
                yield {
                    "id": _id_text(event_id),
                    "version": version,
                    "type": type_,
                    "schema_version": schema_version,
                    "payload": payload,
                    "occurred_at": _sqlite_moment(occurred_at),
                }


def _id_text(stored: str) -> str:
    """``str(uuid.UUID(stored))`` (what the ORM reads), cut from the hex digits when
    they are the 32 lower-case ones Django writes."""
    if _HEX_ID.fullmatch(stored):
        return f"{stored[:8]}-{stored[8:12]}-{stored[12:16]}-{stored[16:20]}-{stored[20:]}"
    return str(uuid.UUID(stored))


def _sqlite_moment(stored: datetime | str) -> datetime:
    """What Django's SQLite backend reads for an aware DateTimeField (USE_TZ): the value
    its column converter parsed (``parse_datetime``; text, parsed here, where the column
    is not declared a datetime), a naive value taken as UTC."""
    value = stored if isinstance(stored, datetime) else parse_datetime(stored)
    if value is None:
        raise ValueError(f"not a moment: {stored!r}")
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value


def _json_value(stored: str) -> Any:
    """What Django's JSONField reads: the JSON's value, or the text as it is when it is
    not JSON."""
    try:
        return _decode_json(stored)
    except msgspec.DecodeError:
        return stored
