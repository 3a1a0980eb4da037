"""Events in the store's envelope format, for what the engine deals.

An :class:`EnvelopeWriter` numbers one stream's events (``version``, ``position``),
stamps them from a clock it is given (time comes from outside), derives each id from a
name it is given (so a dealt table is reproducible to the byte) and links the hash
chain with ``audit.chain`` - the same canonical encoding the store uses.
"""
from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from audit.record.chain import GENESIS_HASH, event_hash, format_timestamp
from audit.record.events import current_version

_NAMESPACE = uuid.UUID("6b1f0c2e-5a39-4c1e-9d43-7a1e0b3c2d10")


class EnvelopeWriter:
    def __init__(
        self,
        stream: str,
        *,
        start: datetime,
        step: timedelta = timedelta(seconds=1),
        name: str = "",
        actor: str = "dealer",
        source: str = "engine",
        hashed: bool = True,
    ) -> None:
        self.stream = stream
        self.clock = start
        self.step = step
        self.name = name or stream
        self.actor = actor
        self.source = source
        self.hashed = hashed
        self.version = 0
        self.prev_hash = GENESIS_HASH

    def write(self, type: str, payload: dict[str, Any]) -> dict[str, Any]:
        self.version += 1
        event_id = uuid.uuid5(_NAMESPACE, f"{self.name}:{self.version}")
        moment = self.clock
        self.clock = moment + self.step
        schema_version = current_version(type)
        digest = ""
        if self.hashed:
            digest = event_hash(
                id=event_id, stream=self.stream, version=self.version, type=type,
                schema_version=schema_version, occurred_at=moment, recorded_at=moment,
                actor=self.actor, source=self.source, payload=payload, prev_hash=self.prev_hash,
            )
        stamp = format_timestamp(moment)
        envelope = {
            "id": str(event_id),
            "stream": self.stream,
            "version": self.version,
            "position": self.version,
            "type": type,
            "schema_version": schema_version,
            "occurred_at": stamp,
            "recorded_at": stamp,
            "actor": self.actor,
            "source": self.source,
            "payload": payload,
            "prev_hash": self.prev_hash,
            "hash": digest,
        }
        self.prev_hash = digest
        return envelope
