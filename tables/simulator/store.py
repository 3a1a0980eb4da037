"""Straight into the event store, and tampering with it behind the application's back.

:class:`StoreSink` appends each table's events through ``audit.store.events_append``
(validated, hash-chained, the store's own clock as ``recorded_at``), in batches. The
``tamper`` fault is planted afterwards as an attacker with database superuser rights
would: an UPDATE of the stored payload with the append-only triggers out of the way
(PostgreSQL ``SET LOCAL session_replication_role = replica``; SQLite drops the triggers
and puts them back), which ``manage.py verify`` must then report as ``altered``.

The only module of the simulator that imports Django.
"""
from __future__ import annotations

import uuid
from typing import Any

from django.db import connection, transaction

from audit import immutability
from audit.models import Event
from audit.store import NewEvent, events_append, stream_version

from .config import SimConfig
from .day import Event as SimEvent
from .output import SCHEMA, SOURCE, Clock, Ids


class StreamExists(Exception):
    """The store holds one of the simulated tables' streams already."""


class StoreSink:
    def __init__(self, config: SimConfig, *, batch: int = 2000) -> None:
        self.config = config
        self.clock = Clock(config.clock_start)
        self.batch = batch
        self.ids: dict[str, Ids] = {}
        taken = [spec.code for spec in config.table_specs() if stream_version(spec.code)]
        if taken:
            raise StreamExists(
                f"the store already holds stream(s) {', '.join(taken)}: choose other table codes (--prefix)"
            )

    def write(self, stream: str, first_version: int, events: list[SimEvent], marks: dict[int, dict[str, Any]]) -> None:
        ids = self.ids.get(stream)
        if ids is None:
            ids = self.ids[stream] = Ids(self.config.root, stream)
        when = self.clock.datetime
        batch: list[NewEvent] = []
        expected = first_version - 1
        id_texts = ids.take(len(events))
        for offset, (type, payload, us, actor) in enumerate(events):
            event_id = uuid.UUID(id_texts[offset])
            version = first_version + offset
            if marks and version in marks:
                marks[version]["event"]["id"] = str(event_id)
            batch.append(NewEvent(id=event_id, type=type, payload=payload, occurred_at=when(us), actor=actor,
                                  source=SOURCE, schema_version=SCHEMA[type]))
            if len(batch) >= self.batch:
                events_append(stream=stream, expected_version=expected, events=batch)
                expected += len(batch)
                batch = []
        if batch:
            events_append(stream=stream, expected_version=expected, events=batch)

    def finish(self, faults: list[dict[str, Any]]) -> None:
        for fault in faults:
            altered = fault.get("altered_payload")
            if altered is not None:
                tamper(fault["event"]["id"], altered)


def tamper(event_id: str, payload: dict[str, Any]) -> None:
    """Change a stored event's payload past the database's append-only triggers."""
    vendor = connection.vendor
    with transaction.atomic(), connection.cursor() as cursor:
        if vendor == "postgresql":
            cursor.execute("SET LOCAL session_replication_role = replica")
        else:
            for sql in immutability.statements(immutability.REMOVE, vendor):
                cursor.execute(sql)
        changed = Event.objects.filter(event_id=event_id).update(payload=payload)
        if vendor != "postgresql":
            for sql in immutability.statements(immutability.INSTALL, vendor):
                cursor.execute(sql)
    if changed != 1:
        raise LookupError(f"no stored event {event_id} to tamper with")
