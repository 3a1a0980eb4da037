"""Changing stored events behind the triggers' back, as an attacker with database
superuser (or table owner) rights would: the triggers disabled on PostgreSQL (they fire
in replica mode too), dropped on SQLite - and put back afterwards."""
from __future__ import annotations

from typing import Any

import msgspec
from django.db import connection, transaction

from audit import immutability, partitions
from audit.models import Event


def _open() -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"ALTER TABLE {immutability.ACCESS_TABLE} DISABLE TRIGGER USER")
            cursor.execute(partitions.every_trigger_sql("DISABLE"))
        else:
            for sql in (*immutability.statements(immutability.REMOVE, "sqlite"),
                        *immutability.statements(immutability.ACCESS_REMOVE, "sqlite")):
                cursor.execute(sql)


def _close() -> None:
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            restore = [partitions.every_trigger_sql("ENABLE ALWAYS"),
                       f"ALTER TABLE {immutability.ACCESS_TABLE} ENABLE ALWAYS TRIGGER {immutability.ACCESS_TABLE}_no_update"]
        else:
            restore = [*immutability.statements(immutability.INSTALL, "sqlite"),
                       *immutability.statements(immutability.ACCESS_INSTALL, "sqlite")]
        for sql in restore:
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
    from audit.store import envelope_of

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
    too (audit.partitions): a store made empty again, which a restore can fill."""
    statements = ["DELETE FROM audit_event"]
    if partitions.is_partitioned(connection):
        statements.append(f"DELETE FROM {partitions.KEY_TABLE}")
    tamper(*statements)
