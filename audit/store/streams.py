"""Appending to and reading from the event store.

Writes go through :func:`events_append` (one stream) or :func:`streams_append` (several
streams in one transaction, for bulk ingest). Both validate every event against the
catalogue before touching the database, then append atomically: all of the batch or
none of it.

Global order. ``position`` comes from the table's identity sequence. A sequence hands
out numbers at INSERT time, not at COMMIT, so two concurrent transactions could commit
in the opposite order of their positions, and a subscriber reading ``position > N``
would skip the one that committed late. To rule that out every append first takes one
transaction-scoped lock (PostgreSQL: ``pg_advisory_xact_lock``; SQLite: ``BEGIN
IMMEDIATE``, the database's single writer lock) and keeps it until its COMMIT has
become visible. Appends therefore allocate positions and commit one after another, so a
position that a reader sees is never followed by a smaller one committing later. The
cost is that appends are serialised; each holds the lock only for its own INSERT.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

import msgspec
from django.db import IntegrityError, connection, transaction
from django.db.models import Q

from audit.access.authority import NotAuthorised
from audit.feed.subscribers import publish
from audit.models import Event
from audit.record.authority import authority_problem, place_problem
from audit.record.chain import GENESIS_HASH, utc
from audit.record.envelope import (  # noqa: F401 - STREAM_REGEX: the URLs' and admin keys' pattern, read from here
    STREAM_REGEX,
    Envelope,
    label_problem,
    seal,
    stream_problem,
)
from audit.record.events import (
    SERVER_ONLY,
    PayloadError,
    upcast,
    validate_payload,
    validate_payload_json,
)

from .errors import IdConflict, InvalidEvent, VersionConflict
from .event_ids import at_keys
from .inserts import insert_rows
from .partitions import KEY_TABLE, keyed

# an arbitrary constant: the key of the advisory lock every append takes
APPEND_LOCK_KEY = 0x6A61636B  # "jack"


@dataclass(frozen=True, slots=True)
class NewEvent:
    """An event as a sender offers it. ``recorded_at`` and ``hash`` are given only when
    restoring an export: the store then keeps that server time and checks the hash."""

    id: uuid.UUID
    type: str
    payload: Any
    occurred_at: datetime
    actor: str
    source: str
    schema_version: int | None = None
    recorded_at: datetime | None = None
    hash: str | None = None


class CheckedEvent(msgspec.Struct, frozen=True):
    """An event as checked, before it is chained: what the store appends. (A msgspec
    struct, immutable as a frozen dataclass is, and made in C: ingest makes one a line,
    and a frozen dataclass's __init__ sets each field through object.__setattr__.)"""

    id: uuid.UUID
    type: str
    schema_version: int
    payload: dict[str, Any]
    occurred_at: datetime
    actor: str
    source: str
    recorded_at: datetime | None
    hash: str | None


def check_stream(stream: object) -> str:
    problem = stream_problem(stream)
    if problem is not None:
        raise PayloadError("stream", problem)
    assert isinstance(stream, str)  # stream_problem checked it
    return stream


def _check_label(name: str, value: object) -> str:
    problem = label_problem(value)
    if problem is not None:
        raise PayloadError(name, problem)
    assert isinstance(value, str)  # label_problem checked it
    return value


def _check_time(name: str, value: object) -> datetime:
    if not isinstance(value, datetime) or value.tzinfo is None:
        raise PayloadError(name, "expected a timezone-aware timestamp")
    try:
        return utc(value)
    except ValueError as error:
        raise PayloadError(name, str(error)) from None


def check_event(event: NewEvent) -> CheckedEvent:
    """Validate one event; raise :class:`PayloadError` naming the field. The payload may
    be a dict or, straight from a file or request body, ``msgspec.Raw`` JSON."""
    if not isinstance(event.id, uuid.UUID):
        raise PayloadError("id", "expected a UUID")
    if isinstance(event.payload, msgspec.Raw):
        schema_version, payload = validate_payload_json(
            event.type, event.schema_version, event.payload
        )
    else:
        schema_version, payload = validate_payload(event.type, event.schema_version, event.payload)
    return CheckedEvent(
        id=event.id,
        type=event.type,
        schema_version=schema_version,
        payload=payload,
        occurred_at=_check_time("occurred_at", event.occurred_at),
        actor=_check_label("actor", event.actor),
        source=_check_label("source", event.source),
        recorded_at=None
        if event.recorded_at is None
        else _check_time("recorded_at", event.recorded_at),
        hash=event.hash,
    )


def check_batch(events: Sequence[NewEvent]) -> list[CheckedEvent]:
    checked = []
    ids: set[uuid.UUID] = set()
    for index, event in enumerate(events):
        try:
            item = check_event(event)
        except PayloadError as error:
            raise InvalidEvent(index, error.field, error.message) from None
        if item.id in ids:
            raise InvalidEvent(index, "id", f"{item.id} appears twice in the batch")
        ids.add(item.id)
        checked.append(item)
    return checked


@dataclass(frozen=True, slots=True)
class StreamBatch:
    stream: str
    expected_version: int
    events: Sequence[NewEvent]


@dataclass(frozen=True, slots=True)
class CheckedBatch:
    stream: str
    expected_version: int
    items: list[CheckedEvent]


# streams the server's own services write (findings' trail, digests, access log, alerts,
# sign-offs); every other stream is a table's
SERVER_STREAM_PREFIX = "audit."


def server_only_problem(stream: str, type_name: str) -> str | None:
    """Why an event of ``type_name`` may not go into ``stream``: a type only the server's
    services write (the catalogue's ``server_only``) on a table's stream."""
    if type_name in SERVER_ONLY and not stream.startswith(SERVER_STREAM_PREFIX):
        return (
            f"{type_name} is written only by the back-office's own services, into its audit.* streams, "
            "never into a table's stream"
        )
    return None


def check_stream_batch(batch: StreamBatch) -> CheckedBatch:
    try:
        check_stream(batch.stream)
    except PayloadError as error:
        raise InvalidEvent(0, error.field, error.message) from None
    expected = batch.expected_version
    if isinstance(expected, bool) or not isinstance(expected, int) or expected < 0:
        raise InvalidEvent(0, "expected_version", "expected a whole number >= 0")
    checked = check_batch(batch.events)
    for index, item in enumerate(checked):
        problem = server_only_problem(batch.stream, item.type)
        if problem is not None:
            raise InvalidEvent(index, "type", problem)
    return CheckedBatch(batch.stream, expected, checked)


SERVER = "server:back-office"


def events_append(
    *,
    stream: str,
    expected_version: int,
    events: Sequence[NewEvent],
    now: datetime | None = None,
    principal: str = SERVER,
) -> list[Event]:
    """Append ``events`` to ``stream`` after ``expected_version``, all or nothing.

    A retry of a batch that is stored already (same ids, same content) returns the stored
    events and writes nothing. Raises :class:`InvalidEvent`, :class:`VersionConflict` or
    :class:`IdConflict`.
    """
    return streams_append(
        [StreamBatch(stream, expected_version, events)], now=now, principal=principal
    )[0]


def streams_append(
    batches: Sequence[StreamBatch],
    *,
    now: datetime | None = None,
    returning: bool = True,
    principal: str = SERVER,
) -> list[list[Event]]:
    """Append several streams' batches in one transaction, inserting rows in the order
    given (so positions follow it). All of them, or none. With ``returning=False`` the
    stored events are not read back (bulk ingest) and empty lists are returned."""
    return append_checked(
        [check_stream_batch(b) for b in batches], now=now, returning=returning, principal=principal
    )


def append_checked(
    batches: Sequence[CheckedBatch],
    *,
    now: datetime | None = None,
    returning: bool = True,
    principal: str = SERVER,
) -> list[list[Event]]:
    """:func:`streams_append` for batches that :func:`check_stream_batch` has passed.
    ``principal``: who appends, as the server authenticated them (``device:<user>``,
    ``user:<user>``, ``server:<service>``); stored and sealed with each row (audit.store.seals).

    The rows are built (chained and hashed) before the append lock is taken, from the
    stream heads as they are then; under the lock one query confirms that no stream has
    moved on since, and the rows are written. So the lock is held for that query, the
    write and the commit only.
    """
    for batch in batches:
        for index, item in enumerate(batch.items):
            # the door's rule again, for every caller: a correction or void under a device's
            # principal, or an ingest's for no one, is never stored (audit.access.authority)
            why = authority_problem(item.type, principal)
            if why is not None:
                raise NotAuthorised(index, f"{item.type} changes money after the fact and {why}")
            # and what the count room, the cage or accounting records, under a table device's
            why = place_problem(item.type, principal)
            if why is not None:
                raise NotAuthorised(index, why)
    recorded_at = (now or datetime.now(UTC)).astimezone(UTC)
    stored = stored_rows([item.id for batch in batches for item in batch.items])
    results: list[list[Event] | None] = []
    heads: dict[str, tuple[int, str]] = {}
    first_seen: dict[str, tuple[int, int]] = {}  # stream -> (expected version, head version)
    rows: list[Envelope] = []
    spans: list[tuple[str, int, int, set[datetime]]] = []
    try:
        for batch in batches:
            if stored and any(item.id in stored for item in batch.items):
                results.append(_retry_result(batch.stream, batch.items, stored))
                continue
            if batch.stream not in heads:
                heads[batch.stream] = stream_head(batch.stream)
                first_seen[batch.stream] = (batch.expected_version, heads[batch.stream][0])
            new_rows = _build_rows(
                batch.stream, batch.expected_version, batch.items, recorded_at, heads[batch.stream]
            )
            if new_rows:
                heads[batch.stream] = (new_rows[-1].version, new_rows[-1].hash)
                spans.append(
                    (
                        batch.stream,
                        new_rows[0].version,
                        new_rows[-1].version,
                        {row.recorded_at for row in new_rows},
                    )
                )
            rows.extend(new_rows)
            results.append(None)
    except VersionConflict as conflict:
        # the stream moved since the check for stored ids: perhaps by this very batch
        return _after_conflict(batches, first_seen, conflict, returning)
    if rows:
        try:
            with transaction.atomic():
                take_append_lock()
                _confirm_heads({s: v for s, (_, v) in first_seen.items()}, first_seen)
                insert_rows(rows, principal)
                # the feed's subscribers (read models, replay) follow once it is committed
                transaction.on_commit(publish)
        except (IntegrityError, VersionConflict) as conflict:
            # Another writer got there first: the same batch sent twice at once (a retry
            # racing its original), the same id sent to two streams, or a writer past the
            # lock (the unique constraints decided). Answer as if this one came second.
            return _after_conflict(batches, first_seen, conflict, returning)
    if not returning:
        return [[] for _ in results]
    fetched = iter(_fetch(stream, low, high, times) for stream, low, high, times in spans)
    return [
        r if r is not None else (next(fetched) if batch.items else [])
        for r, batch in zip(results, batches)
    ]


def _after_conflict(
    batches: Sequence[CheckedBatch],
    first_seen: dict[str, tuple[int, int]],
    conflict: Exception,
    returning: bool,
) -> list[list[Event]]:
    """What a losing writer answers: its batches' stored events when they are all stored
    already with the same content (an idempotent retry); IdConflict when one of its ids is
    stored with other content or in another stream; otherwise the version conflict."""
    stored = stored_rows([item.id for batch in batches for item in batch.items])
    if stored:
        results = []
        for batch in batches:
            if batch.items and not any(item.id in stored for item in batch.items):
                raise VersionConflict(
                    batch.stream, batch.expected_version, stream_version(batch.stream)
                ) from None
            results.append(_retry_result(batch.stream, batch.items, stored) if batch.items else [])
        return results if returning else [[] for _ in results]
    if isinstance(conflict, VersionConflict):
        raise conflict
    for stream, (expected, _) in first_seen.items():
        current = stream_version(stream)
        if current != expected:
            raise VersionConflict(stream, expected, current) from None
    stream, (expected, head) = next(iter(first_seen.items()))
    raise VersionConflict(stream, expected, head) from None


def versions_taken(versions: dict[str, int]) -> set[str]:
    """The streams among ``versions`` ({stream: version}) that hold that version already."""
    if not versions:
        return set()
    if keyed(connection):
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT k.stream FROM {KEY_TABLE} k JOIN unnest(%s::text[], %s::bigint[]) AS v(stream, version) "
                "ON k.stream = v.stream AND k.version = v.version",
                [list(versions), list(versions.values())],
            )
            return {row[0] for row in cursor.fetchall()}
    taken = Q()
    for stream, version in versions.items():
        taken |= Q(stream=stream, version=version)
    return set(Event.objects.filter(taken).values_list("stream", flat=True))


def _confirm_heads(head_versions: dict[str, int], first_seen: dict[str, tuple[int, int]]) -> None:
    """Under the lock: no stream may have grown since its rows were built."""
    if versions_taken({stream: version + 1 for stream, version in head_versions.items()}):
        for stream, (expected, _) in first_seen.items():
            current = stream_version(stream)
            if current != head_versions[stream]:
                raise VersionConflict(stream, expected, current)


def _fetch(stream: str, low: int, high: int, times: set[datetime]) -> list[Event]:
    rows = Event.objects.filter(stream=stream, version__gte=low, version__lte=high)
    if keyed(connection):  # partitioned: only the partitions of the rows' days are read
        rows = rows.filter(recorded_at__in=times)
    return list(rows.order_by("version"))


def take_append_lock() -> None:
    if connection.vendor == "postgresql":
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s)", [APPEND_LOCK_KEY])
    # SQLite: the connection opens transactions with BEGIN IMMEDIATE (settings), which
    # takes the database's one write lock at once.


def same_content(row: Event, item: CheckedEvent, stream: str) -> str | None:
    """The name of the first field where a stored row differs from an offered event."""
    for name, stored, offered in (
        ("stream", row.stream, stream),
        ("type", row.type, item.type),
        ("schema_version", row.schema_version, item.schema_version),
        ("payload", row.payload, item.payload),
        ("occurred_at", row.occurred_at, item.occurred_at),
        ("actor", row.actor, item.actor),
        ("source", row.source, item.source),
    ):
        if stored != offered:
            return name
    return None


def stored_rows(ids: list[uuid.UUID], texts: list[bytes] | None = None) -> dict[uuid.UUID, Event]:
    """The stored events among ``ids``. Usually none are, so first ask only which ids
    exist - on PostgreSQL as one array parameter, which the driver does not have to
    splice into the query text one placeholder at a time. ``texts``: the same ids as
    UUID text (bulk ingest has them already), sent as one array literal, which costs the
    driver nothing an id (the ``ids`` it adapts one by one)."""
    if not ids:
        return {}
    if connection.vendor == "postgresql":
        # partitioned: the key table's one index, not each partition's (audit.store.partitions),
        # and with the ids the keys the rows are then read by (audit.store.event_ids.at_keys)
        keys = keyed(connection)
        source = (
            f"event_id, stream, version FROM {KEY_TABLE}"
            if keys
            else f"event_id FROM {Event._meta.db_table}"
        )
        with connection.cursor() as cursor:
            if texts is not None:
                cursor.execute(
                    f"SELECT {source} WHERE event_id = ANY(%s::uuid[])",
                    [(b"{%s}" % b",".join(texts)).decode()],
                )
            else:
                cursor.execute(f"SELECT {source} WHERE event_id = ANY(%s)", [ids])
            rows = cursor.fetchall()
        if keys:
            return (
                {row.event_id: row for row in Event.objects.filter(at_keys(rows))} if rows else {}
            )
        found = [row[0] for row in rows]
    else:
        # SQLite keeps a UUID as its 32 hex digits: the ids as one JSON array, read by
        # json_each, rather than a placeholder each prepared through the ORM's field
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT event_id FROM {Event._meta.db_table} WHERE event_id IN "
                "(SELECT value FROM json_each(%s))",
                [msgspec.json.encode([key.hex for key in ids]).decode()],
            )
            found = [uuid.UUID(row[0]) for row in cursor.fetchall()]
    if not found:
        return {}
    return {row.event_id: row for row in Event.objects.filter(event_id__in=found)}


def _retry_result(
    stream: str, items: list[CheckedEvent], stored: dict[uuid.UUID, Event]
) -> list[Event]:
    """The stored events of a batch that is a retry; refuse it if it is not one."""
    for item in items:
        row = stored.get(item.id)
        if row is None:
            raise IdConflict(
                str(next(i.id for i in items if i.id in stored)),
                "batch: the batch mixes stored and new events",
            )
        differs = same_content(row, item, stream)
        if differs:
            raise IdConflict(str(item.id), differs)
    return [stored[item.id] for item in items]


def stream_head(stream: str) -> tuple[int, str]:
    """(version, hash) of the stream's last event; (0, GENESIS_HASH) for a new stream.
    Partitioned (audit.store.partitions): from the key table - one index probe rather than one
    a partition, and the head of a stream whose last day was archived."""
    if keyed(connection):
        with connection.cursor() as cursor:
            cursor.execute(
                f"SELECT version, hash FROM {KEY_TABLE} WHERE stream = %s ORDER BY version DESC LIMIT 1",
                [stream],
            )
            found = cursor.fetchone()
        return (found[0], found[1]) if found else (0, GENESIS_HASH)
    last = (
        Event.objects.filter(stream=stream)
        .order_by("-version")
        .values_list("version", "hash")
        .first()
    )
    return last if last is not None else (0, GENESIS_HASH)


def stream_version(stream: str) -> int:
    return stream_head(stream)[0]


def chain_row(
    stream: str, version: int, item: CheckedEvent, recorded_at: datetime, prev_hash: str
) -> Envelope:
    """The stored row of ``item`` at ``version``, linked to ``prev_hash`` and hashed.
    A restore's claimed hash must match (``PayloadError`` on ``hash`` otherwise)."""
    return seal(
        Envelope(
            id=item.id,
            stream=stream,
            version=version,
            type=item.type,
            schema_version=item.schema_version,
            occurred_at=item.occurred_at,
            recorded_at=item.recorded_at or recorded_at,
            actor=item.actor,
            source=item.source,
            payload=item.payload,
            prev_hash=prev_hash,
            hash="",
        ),
        claimed=item.hash,
    )


def _build_rows(
    stream: str,
    expected: int,
    items: list[CheckedEvent],
    recorded_at: datetime,
    head: tuple[int, str],
) -> list[Envelope]:
    current, prev_hash = head
    if current != expected:
        raise VersionConflict(stream, expected, current)
    rows = []
    for offset, item in enumerate(items):
        try:
            row = chain_row(stream, expected + 1 + offset, item, recorded_at, prev_hash)
        except PayloadError as error:
            raise InvalidEvent(offset, error.field, error.message) from None
        rows.append(row)
        prev_hash = row.hash
    return rows


# --- reading ---------------------------------------------------------------------------------


def envelope_of(event: Event) -> Envelope:
    """A stored event as the record core's value (payload as stored)."""
    return Envelope(
        id=event.event_id,
        stream=event.stream,
        version=event.version,
        position=event.position,
        type=event.type,
        schema_version=event.schema_version,
        occurred_at=event.occurred_at,
        recorded_at=event.recorded_at,
        actor=event.actor,
        source=event.source,
        payload=event.payload,
        prev_hash=event.prev_hash,
        hash=event.hash,
    )


def envelope(event: Event, *, as_stored: bool = False) -> dict[str, Any]:
    """The event as the API and exports show it. Payloads are upcast to the current
    schema version unless ``as_stored`` (exports keep the stored form, which the hash
    covers)."""
    value = envelope_of(event)
    if not as_stored:
        schema_version, payload = upcast(event.type, event.schema_version, event.payload)
        value = msgspec.structs.replace(value, schema_version=schema_version, payload=payload)
    return value.as_dict()


def stream_rows(stream: str, *, from_version: int = 1, limit: int | None = None) -> Iterable[Event]:
    """A stream's stored rows from ``from_version`` on, in version order, at most ``limit``
    (the API's page of a stream; payloads as stored: :func:`envelope` upcasts them). A
    fold reads a stream with :func:`audit.store.reading.stream_events` instead."""
    rows = Event.objects.filter(stream=stream, version__gte=from_version).order_by("version")
    return rows[:limit] if limit is not None else rows


def feed_after(position: int, *, limit: int) -> list[Event]:
    """The global feed: events with a position above ``position``, in position order."""
    return list(Event.objects.filter(position__gt=position).order_by("position")[:limit])


def iter_events(*, stream: str | None = None, chunk_size: int = 2000) -> Iterator[Event]:
    """Every event (or one stream's) in position order, in constant memory."""
    rows = Event.objects.order_by("position")
    if stream is not None:
        rows = rows.filter(stream=stream)
    return rows.iterator(chunk_size=chunk_size)
