"""Events in the store's envelope, as JSON Lines.

A line is the envelope ``manage.py export_events`` writes and ``ingest`` reads: ``id``,
``stream``, ``version``, ``position``, ``type``, ``schema_version``, ``occurred_at``,
``recorded_at``, ``actor``, ``source``, ``payload``, ``prev_hash``, ``hash``. The hash is
``audit.chain``'s: SHA-256 of the RFC 8785 document of every member but ``position`` and
``hash`` (the line is that document with ``hash`` and ``position`` appended, so it is
encoded once). ``recorded_at`` is the table's clock: the file is a restore, and ingest
keeps that time and checks every hash.

Ids are version-4 UUIDs drawn from a ``random.Random`` seeded from the run's seed and the
table, so one seed gives the same bytes every time.
"""
from __future__ import annotations

import hashlib
import random
import uuid
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import IO, Any

from audit.chain import GENESIS_HASH, canonical_json, format_timestamp
from audit.events import REGISTRY

SCHEMA = {name: kind.version for name, kind in REGISTRY.items()}
SOURCE = "simulator"


class Ids:
    """The ids of one stream's events, reproducible from the seed."""

    def __init__(self, root: str, stream: str) -> None:
        self.rng = random.Random(f"{root}/{stream}/ids")

    def next(self) -> uuid.UUID:
        return uuid.UUID(int=self.rng.getrandbits(128), version=4)


class Clock:
    """Microseconds after the start -> the chain's timestamp text (cached per second)."""

    def __init__(self, start: datetime) -> None:
        self.start = start
        self.second = -1
        self.prefix = ""

    def datetime(self, us: int) -> datetime:
        return self.start + timedelta(microseconds=us)

    def text(self, us: int) -> str:
        second, micro = divmod(us, 1_000_000)
        if second != self.second:
            self.second = second
            self.prefix = format_timestamp(self.start + timedelta(seconds=second))[:-8]  # up to the seconds and "."
        return f"{self.prefix}.{micro:06d}Z"


class JsonlWriter:
    """Writes streams as JSON Lines; ``position`` counts lines across the file."""

    def __init__(self, out: IO[bytes], start: datetime, root: str) -> None:
        self.out = out
        self.clock = Clock(start)
        self.root = root
        self.position = 0
        self.lines = 0
        self.streams: dict[str, tuple[Ids, str]] = {}

    def write(self, stream: str, first_version: int, events: Iterable[tuple[str, dict[str, Any], int, str]],
              marks: dict[int, dict[str, Any]]) -> None:
        ids, prev = self.streams.get(stream) or (Ids(self.root, stream), GENESIS_HASH)
        text = self.clock.text
        encode = canonical_json
        sha = hashlib.sha256
        write = self.out.write
        position = self.position
        version = first_version - 1
        for type, payload, us, actor in events:
            version += 1
            position += 1
            event_id = str(uuid.UUID(int=ids.rng.getrandbits(128), version=4))
            stamp = text(us)
            document = {
                "actor": actor, "id": event_id, "occurred_at": stamp, "payload": payload, "prev_hash": prev,
                "recorded_at": stamp, "schema_version": SCHEMA[type], "source": SOURCE, "stream": stream,
                "type": type, "version": version,
            }
            raw = encode(document)
            digest = sha(raw).hexdigest()
            if marks and version in marks:
                mark = marks[version]
                mark["event"]["id"] = event_id
                altered = mark.get("altered_payload")
                if altered is not None:  # tampering: the line changes, its hash stays
                    raw = encode({**document, "payload": altered})
                    mark["line"] = position
            write(raw[:-1] + b',"hash":"' + digest.encode() + b'","position":' + str(position).encode() + b"}\n")
            prev = digest
        self.streams[stream] = (ids, prev)
        self.lines += position - self.position
        self.position = position
