"""Straight into the event store.

:class:`StoreSink` appends each table's events through ``audit.store.streams.streams_append``
(validated, hash-chained, the store's own clock as ``recorded_at``), in batches, without
reading them back (a live round's 10,000 bets would be read through the ORM for nothing).

The ``tamper`` fault changes a stored event as an attacker with database superuser
rights would. Nothing in the installed package can get past the append-only triggers,
so the sink plants it only through a ``tamper(event_id, payload)`` it is handed (the
test suite's, in ``tests/audit/tampering.py``); without one it refuses the fault.

The only module of the simulator that imports Django.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Any

from audit.store.streams import NewEvent, StreamBatch, stream_version, streams_append

from .config import SimConfig
from .day import Event as SimEvent
from .output import SCHEMA, SOURCE, Clock, Ids


class StreamExists(Exception):
    """The store holds one of the simulated tables' streams already."""


class TamperRefused(Exception):
    """A tamper fault was asked for, and the sink was given no way to plant it."""


class StoreSink:
    def __init__(
        self,
        config: SimConfig,
        *,
        batch: int = 2000,
        tamper: Callable[[str, dict[str, Any]], None] | None = None,
    ) -> None:
        if tamper is None and (
            "tamper" in config.rates or any(f.kind == "tamper" for f in config.at)
        ):
            raise TamperRefused(
                "the tamper fault changes a stored event behind the database's back, which this program "
                "cannot do: plant it in a file (--out FILE), where its line's hash no longer matches"
            )
        self.tamper = tamper
        self.config = config
        self.clock = Clock(config.clock_start)
        self.batch = batch
        self.ids: dict[str, Ids] = {}
        taken = [spec.code for spec in config.table_specs() if stream_version(spec.code)]
        if taken:
            raise StreamExists(
                f"the store already holds stream(s) {', '.join(taken)}: choose other table codes (--prefix)"
            )

    def write(
        self,
        stream: str,
        first_version: int,
        events: list[SimEvent],
        marks: dict[int, dict[str, Any]],
    ) -> None:
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
            batch.append(
                NewEvent(
                    id=event_id,
                    type=type,
                    payload=payload,
                    occurred_at=when(us),
                    actor=actor,
                    source=SOURCE,
                    schema_version=SCHEMA[type],
                )
            )
            if len(batch) >= self.batch:
                _append(stream, expected, batch)
                expected += len(batch)
                batch = []
        if batch:
            _append(stream, expected, batch)

    def finish(self, faults: list[dict[str, Any]]) -> None:
        for fault in faults:
            altered = fault.get("altered_payload")
            if altered is not None:
                assert self.tamper is not None  # refused in __init__ otherwise
                self.tamper(fault["event"]["id"], altered)


def _append(stream: str, expected: int, batch: list[NewEvent]) -> None:
    streams_append(
        [StreamBatch(stream, expected, batch)], returning=False, principal="server:simulator"
    )
