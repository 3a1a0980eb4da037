"""Events in the store's envelope format, for what the engine deals.

An :class:`EnvelopeWriter` stamps one stream's events from a clock it is given (time
comes from outside) and derives each id from a name it is given (so a dealt table is
reproducible to the byte); numbering, linking and hashing are the record core's
(``audit.record.envelope.StreamChain``), the very builder the store uses. ``position``
is the version: a dealt table is one stream on its own.
"""

from __future__ import annotations

import uuid
from datetime import datetime, timedelta
from typing import Any

from audit.record.envelope import StreamChain
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
        self.chain = StreamChain(stream, hashed=hashed)
        self.clock = start
        self.step = step
        self.name = name or stream
        self.actor = actor
        self.source = source

    def write(self, type: str, payload: dict[str, Any]) -> dict[str, Any]:
        """The next event, as the envelope dict replay and the export take."""
        version = self.chain.version + 1
        moment = self.clock
        self.clock = moment + self.step
        return self.chain.seal(
            id=uuid.uuid5(_NAMESPACE, f"{self.name}:{version}"),
            type=type,
            schema_version=current_version(type),
            occurred_at=moment,
            recorded_at=moment,
            actor=self.actor,
            source=self.source,
            payload=payload,
            position=version,
        ).as_dict()
