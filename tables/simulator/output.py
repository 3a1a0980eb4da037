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
import json
import random
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import IO, Any

from audit.record.chain import GENESIS_HASH, canonical_json, format_timestamp
from audit.record.events import REGISTRY

SCHEMA = {name: kind.version for name, kind in REGISTRY.items()}
SOURCE = "simulator"


class Ids:
    """The ids of one stream's events, reproducible from the seed: 16 random bytes each
    from the stream's generator, made a version-4 UUID (RFC 4122 variant)."""

    def __init__(self, root: str, stream: str) -> None:
        self.rng = random.Random(f"{root}/{stream}/ids")

    def take(self, n: int) -> list[str]:
        """The next ``n`` ids as text, drawn in one go."""
        raw = self.rng.randbytes(16 * n).hex()
        variant = _VARIANT
        return [
            f"{raw[i:i + 8]}-{raw[i + 8:i + 12]}-4{raw[i + 13:i + 16]}-{variant[raw[i + 16]]}{raw[i + 17:i + 20]}-{raw[i + 20:i + 32]}"
            for i in range(0, 32 * n, 32)
        ]


# the variant nibble of RFC 4122: 10xx
_VARIANT = {d: "89ab"[int(d, 16) & 3] for d in "0123456789abcdef"}


class Clock:
    """Microseconds after the start -> the chain's timestamp text. The text up to the
    minute is cached, so consecutive events cost a little string formatting only."""

    def __init__(self, start: datetime) -> None:
        self.start = start
        self.minute = -1
        self.prefix = ""
        # the start's offset into its minute, so the minute cache follows the wall clock
        self.skew = (start.second * 1_000_000 + start.microsecond)

    def datetime(self, us: int) -> datetime:
        return self.start + timedelta(microseconds=us)

    def text(self, us: int) -> str:
        minute, rest = divmod(us + self.skew, 60_000_000)
        if minute != self.minute:
            self.minute = minute
            moment = self.start.replace(second=0, microsecond=0) + timedelta(minutes=minute)
            self.prefix = format_timestamp(moment)[:17]  # YYYY-MM-DDTHH:MM:
        second, micro = divmod(rest, 1_000_000)
        return f"{self.prefix}{second:02d}.{micro:06d}Z"


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
        events = events if isinstance(events, list) else list(events)
        id_texts = iter(ids.take(len(events)))
        position = self.position
        version = first_version - 1
        # The hashed document's members in RFC 8785 (sorted) order. Every text but the
        # payload is the simulator's own ASCII (ids, labels, timestamps, the table code),
        # which JSON writes as it is; the payload goes through the canonical encoder.
        quoted = json.dumps(stream)
        kinds = {t: (f'"schema_version":{v},"source":"{SOURCE}","stream":{quoted},"type":"{t}","version":').encode()
                 for t, v in SCHEMA.items()}
        actors: dict[str, bytes] = {}
        prev_b = prev.encode()
        for type, payload, us, actor in events:
            version += 1
            position += 1
            event_id = next(id_texts)
            stamp = text(us).encode()
            who = actors.get(actor)
            if who is None:
                who = actors[actor] = actor.encode()
            body = encode(payload)
            document = b'{"actor":"%s","id":"%s","occurred_at":"%s","payload":%s,"prev_hash":"%s","recorded_at":"%s",%s%d}' % (
                who, event_id.encode(), stamp, body, prev_b, stamp, kinds[type], version)
            digest = sha(document).hexdigest().encode()
            if marks and version in marks:
                mark = marks[version]
                mark["event"]["id"] = event_id
                altered = mark.get("altered_payload")
                if altered is not None:  # tampering: the line changes, its hash stays
                    document = document.replace(body, encode(altered), 1)
                    mark["line"] = position
            write(b'%s,"hash":"%s","position":%d}\n' % (document[:-1], digest, position))
            prev_b = digest
        prev = prev_b.decode()
        self.streams[stream] = (ids, prev)
        self.lines += position - self.position
        self.position = position
