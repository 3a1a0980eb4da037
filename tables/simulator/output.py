"""Events in the store's envelope, as JSON Lines.

A line is the envelope ``manage.py export_events`` writes and ``ingest`` reads, byte for
byte in the same encoding (the record core's: ``audit.record.jsonl``), and hash-chained
by the record core's builder (``audit.record.envelope.StreamChain``). ``recorded_at`` is
the table's clock: the file is a restore, and ingest keeps that time and checks every
hash.

Ids are version-4 UUIDs drawn from a ``random.Random`` seeded from the run's seed and the
table, so one seed gives the same bytes every time.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from datetime import datetime, timedelta
from typing import IO, Any

from audit.record.chain import canonical_json, format_timestamp
from audit.record.envelope import StreamChain
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
            f"{raw[i : i + 8]}-{raw[i + 8 : i + 12]}-4{raw[i + 13 : i + 16]}-"
            f"{variant[raw[i + 16]]}{raw[i + 17 : i + 20]}-{raw[i + 20 : i + 32]}"
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
        self.skew = start.second * 1_000_000 + start.microsecond

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
    """Writes streams as JSON Lines; ``position`` counts lines across the file. The
    envelopes are built by the record core's one builder, through its fast path for a
    run of new events (``StreamChain.lines``)."""

    def __init__(self, out: IO[bytes], start: datetime, root: str) -> None:
        self.out = out
        self.clock = Clock(start)
        self.root = root
        self.position = 0
        self.lines = 0
        self.streams: dict[str, tuple[Ids, StreamChain]] = {}

    def write(
        self,
        stream: str,
        first_version: int,
        events: Iterable[tuple[str, dict[str, Any], int, str]],
        marks: dict[int, dict[str, Any]],
    ) -> None:
        ids, chain = self.streams.get(stream) or (Ids(self.root, stream), StreamChain(stream))
        assert chain.version == first_version - 1, "a stream's chunks come in version order"
        text = self.clock.text
        events = events if isinstance(events, list) else list(events)
        id_texts = ids.take(len(events))
        rows = []
        for event_id, (type, payload, us, actor) in zip(id_texts, events):
            stamp = text(us)  # the table's clock is the server's too: the file is a restore
            rows.append((event_id, type, payload, stamp, stamp, actor))
        lines = chain.lines(rows, source=SOURCE, position=self.position)
        if marks:
            for version, mark in marks.items():
                index = version - first_version
                if not 0 <= index < len(lines):
                    continue
                mark["event"]["id"] = id_texts[index]
                altered = mark.get("altered_payload")
                if altered is not None:  # tampering: the line changes, its hash stays
                    lines[index] = lines[index].replace(
                        canonical_json(events[index][1]), canonical_json(altered), 1
                    )
                    mark["line"] = self.position + index + 1
        self.out.write(b"".join(lines))
        self.streams[stream] = (ids, chain)
        self.lines += len(lines)
        self.position += len(lines)
