"""JSON Lines exchange format: export the store, and parse a line for ingest.

A line is one envelope (see ``audit.store.envelope``): ``id``, ``stream``, ``version``,
``position``, ``type``, ``schema_version``, ``occurred_at``, ``recorded_at``, ``actor``,
``source``, ``payload``, ``prev_hash``, ``hash``. Exports carry payloads as stored (not
upcast), so every line can be re-hashed by anyone.

Ingest (``audit.ingest``) accepts the same lines. ``id``, ``stream``, ``type``,
``occurred_at``, ``actor``, ``source`` and ``payload`` are required. ``version`` (when
given) must follow on from the stream's previous line or its stored head; without it
events go to the end of the stream. ``recorded_at`` and ``hash`` come together or not
at all: given, the event is a restore - the server time is kept and the hash must match;
absent, the event is new and is stamped now. ``position`` and ``prev_hash`` are the
store's and are ignored on input (the chain is recomputed and, for restores, checked
through ``hash``).
"""
from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import IO

import msgspec

from .record.events import PayloadError
from .record.events.registry import explain
from .store import CheckedEvent, NewEvent, check_event, check_stream, envelope, iter_events


def export_events(out: IO[str], *, stream: str | None = None) -> int:
    """Write every event (or one stream's) in position order; return how many."""
    count = 0
    for event in iter_events(stream=stream):
        out.write(json.dumps(envelope(event, as_stored=True), ensure_ascii=False, sort_keys=True,
                             separators=(",", ":")))
        out.write("\n")
        count += 1
    return count


@dataclass(frozen=True, slots=True)
class Line:
    number: int
    stream: str
    version: int | None
    event: CheckedEvent


@dataclass(frozen=True, slots=True)
class BadLine:
    number: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.number}: {self.reason}"


class _Envelope(msgspec.Struct, forbid_unknown_fields=True):
    """One input line. The payload stays JSON text until its type's schema decodes it."""

    id: uuid.UUID
    stream: str
    type: str
    occurred_at: datetime
    actor: str
    source: str
    payload: msgspec.Raw
    version: int | None = None
    position: int | None = None
    schema_version: int | None = None
    recorded_at: datetime | None = None
    prev_hash: str | None = None
    hash: str | None = None


_decode_envelope = msgspec.json.Decoder(_Envelope).decode


def parse_line(number: int, text: str | bytes) -> Line:
    """Parse and validate one line; raise :class:`PayloadError` naming the field."""
    try:
        raw = _decode_envelope(text)
    except msgspec.ValidationError as error:
        explained = explain(error)  # it names paths from "payload"; here the root is the line
        field = explained.field.removeprefix("payload").removeprefix(".") or "line"
        raise PayloadError(field, explained.message) from None
    except msgspec.DecodeError as error:
        raise PayloadError("line", f"not JSON: {error}") from None
    stream = check_stream(raw.stream)
    if raw.version is not None and raw.version < 1:
        raise PayloadError("version", "expected a whole number >= 1")
    if (raw.recorded_at is None) != (raw.hash is None):
        raise PayloadError("hash" if raw.hash is None else "recorded_at", "recorded_at and hash come together")
    event = NewEvent(
        id=raw.id, type=raw.type, schema_version=raw.schema_version, payload=raw.payload,
        occurred_at=raw.occurred_at, actor=raw.actor, source=raw.source,
        recorded_at=raw.recorded_at, hash=raw.hash,
    )
    return Line(number, stream, raw.version, check_event(event))


def stream_of(text: str | bytes) -> str | None:
    """The ``stream`` of a line that failed to parse, if it has a readable one."""
    try:
        raw = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError):
        return None
    stream = raw.get("stream") if isinstance(raw, dict) else None
    return stream if isinstance(stream, str) else None


def read_lines(source: IO[bytes]) -> Iterator[tuple[int, bytes]]:
    """(line number, text) of every non-blank line, numbered from 1."""
    for number, text in enumerate(source, start=1):
        if text.strip():
            yield number, text
