"""Events found by their ids.

On PostgreSQL the event table is partitioned (:mod:`audit.store.partitions`) and the record's
one index of event ids is the key table's primary key: the partitions keep none of their
own. A second index of random UUIDs on every event would cost the bulk write more than
any other index, and more as the day grows: a random id lands on any leaf page, and a
day's partition outgrows the server's shared buffers (docs/performance.md, "Partitions
and the key table").
So a read by id asks the key table for the events' streams and versions first, then
reads the rows through the partitions' ``(stream, version)`` index. SQLite's plain table
keeps its unique index of ids, read directly: ``Event.objects.filter(with_ids(ids))``
either way.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from functools import reduce
from operator import or_

from django.db import connection
from django.db.models import Q

from .partitions import KEY_TABLE, keyed

__all__ = ["at_keys", "with_ids"]


def _uuids(ids: Iterable[uuid.UUID | str]) -> list[uuid.UUID]:
    found = []
    for value in ids:
        if isinstance(value, uuid.UUID):
            found.append(value)
            continue
        try:
            found.append(uuid.UUID(str(value)))
        except ValueError:
            continue  # not an id: no event has it
    return found


def with_ids(ids: Iterable[uuid.UUID | str]) -> Q:
    """A filter of the events whose id is one of ``ids`` (UUIDs, or their text; text that
    is no UUID matches nothing). On the partitioned table the key table is read here, once:
    the filter names the events' streams and versions (and their ids, so it says exactly
    what it asks), which the partitions' index serves."""
    wanted = _uuids(ids)
    if not wanted or not (connection.vendor == "postgresql" and keyed(connection)):
        return Q(event_id__in=wanted)
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT event_id, stream, version FROM {KEY_TABLE} WHERE event_id = ANY(%s)", [wanted]
        )
        return at_keys(cursor.fetchall())


def at_keys(keys: Iterable[tuple[uuid.UUID, str, int]]) -> Q:
    """A filter of the events at these keys, as the key table holds them (id, stream,
    version): the partitions' ``(stream, version)`` index serves it; the ids are asked too,
    so that it says exactly which events. No key: no event."""
    versions: dict[str, list[int]] = {}
    ids = []
    for event_id, stream, version in keys:
        versions.setdefault(stream, []).append(version)
        ids.append(event_id)
    if not versions:
        return Q(event_id__in=[])
    where = reduce(
        or_,
        (Q(stream=stream, version__in=sorted(found)) for stream, found in sorted(versions.items())),
    )
    return where & Q(event_id__in=ids)
