"""Changing stored events behind the triggers' back, as an attacker with database
superuser (or table owner) rights would: the triggers disabled on PostgreSQL (they fire
in replica mode too), dropped on SQLite, the refusal of unsealed rows dropped - and all put
back afterwards."""

from __future__ import annotations

from typing import Any

import msgspec
from django.db import connection, transaction

from audit.models import Event
from audit.store import immutability, partitions, seals


def _open() -> None:
    with connection.cursor() as cursor:
        for sql in seals.GUARD_REMOVE[connection.vendor]:  # rows without a seal let in too
            cursor.execute(sql)
        if connection.vendor == "postgresql":
            cursor.execute(f"ALTER TABLE {immutability.ACCESS_TABLE} DISABLE TRIGGER USER")
            cursor.execute(partitions.every_trigger_sql("DISABLE"))
        else:
            for sql in (
                *immutability.statements(immutability.REMOVE, "sqlite"),
                *immutability.statements(immutability.ACCESS_REMOVE, "sqlite"),
            ):
                cursor.execute(sql)


def _close() -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            restore = [
                partitions.every_trigger_sql("ENABLE ALWAYS"),
                f"ALTER TABLE {immutability.ACCESS_TABLE} ENABLE ALWAYS TRIGGER {immutability.ACCESS_TABLE}_no_update",
            ]
        else:
            restore = [
                *immutability.statements(immutability.INSTALL, "sqlite"),
                *immutability.statements(immutability.ACCESS_INSTALL, "sqlite"),
            ]
        for sql in [*restore, *seals.GUARD_INSTALL[connection.vendor]]:
            cursor.execute(sql)


def tamper(*statements: str) -> None:
    """Run SQL statements (UPDATE, DELETE ...) on the event table past its triggers."""
    with transaction.atomic():
        _open()
        with connection.cursor() as cursor:
            for sql in statements:
                cursor.execute(sql)
        _close()


def tamper_payload(event_id: str, payload: dict[str, Any]) -> None:
    """Change a stored event's payload past the triggers (the simulator's ``tamper``
    fault in the store)."""
    with transaction.atomic():
        _open()
        changed = Event.objects.filter(event_id=event_id).update(payload=payload)
        _close()
    if changed != 1:
        raise LookupError(f"no stored event {event_id} to tamper with")


def rehash(stream: str, from_version: int = 1) -> int:
    """Re-chain ``stream`` from ``from_version`` on with the project's own hash function,
    as an attacker who knows it would after changing an event: every link and hash made
    consistent again, so that the chain alone looks intact. Returns the events rewritten."""
    from audit.record.envelope import seal
    from audit.store.streams import envelope_of

    rows = list(Event.objects.filter(stream=stream).order_by("version"))
    prev = None
    changed = []
    for row in rows:
        if row.version >= from_version:
            link = prev.hash if prev is not None else "0" * 64
            sealed = seal(msgspec.structs.replace(envelope_of(row), prev_hash=link))
            row.prev_hash, row.hash = link, sealed.hash
            changed.append(row)
        prev = row
    with transaction.atomic():
        _open()
        for row in changed:
            Event.objects.filter(pk=row.pk).update(prev_hash=row.prev_hash, hash=row.hash)
        _close()
    return len(changed)


def empty_store() -> None:
    """Every event deleted past the triggers, and on partitioned PostgreSQL their keys
    too (audit.store.partitions): a store made empty again, which a restore can fill."""
    statements = ["DELETE FROM audit_event"]
    if partitions.is_partitioned(connection):
        statements.append(f"DELETE FROM {partitions.KEY_TABLE}")
    tamper(*statements)


def forged_stream(
    stream: str, events: list[Any], *, version: int = 0, head: str | None = None
) -> list[Any]:
    """``events`` (NewEvents) chained onto ``stream`` after ``version``/``head`` with the
    record's own hash function - a chain that is correct in every link, as anyone who
    reads the project's code can make - as envelopes, not stored."""
    from datetime import UTC, datetime

    from audit.record.chain import GENESIS_HASH
    from audit.record.envelope import StreamChain

    chain = StreamChain(stream, version=version, head=head or GENESIS_HASH)
    now = datetime.now(UTC)
    return [
        chain.seal(
            id=e.id,
            type=e.type,
            schema_version=1,
            occurred_at=e.occurred_at,
            recorded_at=now,
            actor=e.actor,
            source=e.source,
            payload=e.payload,
        )
        for e in events
    ]


INSERT = (
    "INSERT INTO audit_event (event_id, stream, version, type, schema_version, occurred_at, recorded_at, "
    "actor, source, payload, prev_hash, hash, principal, seal) "
    "VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
)


def insert_forged(
    cursor: Any, envelopes: list[Any], *, principal: str | None = None, seal: str | None = None
) -> None:
    """INSERT ``envelopes`` straight into the event table on ``cursor`` (as whoever the
    cursor's session is), with the given principal and seal (none: a row past the store)."""
    for e in envelopes:
        event_id = e.id.hex if connection.vendor == "sqlite" else str(e.id)
        cursor.execute(
            INSERT,
            [
                event_id,
                e.stream,
                e.version,
                e.type,
                e.schema_version,
                e.occurred_at,
                e.recorded_at,
                e.actor,
                e.source,
                msgspec.json.encode(e.payload).decode(),
                e.prev_hash,
                e.hash,
                principal,
                seal,
            ],
        )
