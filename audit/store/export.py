"""JSON Lines exchange format: export the store, and parse a line for ingest.

The format and its codec are the record core's (``audit.record.jsonl``): one envelope
per line, ``id``, ``stream``, ``version``, ``position``, ``type``, ``schema_version``,
``occurred_at``, ``recorded_at``, ``actor``, ``source``, ``payload``, ``prev_hash``,
``hash``, encoded as RFC 8785 JSON. Exports carry payloads as stored (not upcast), so
every line can be re-hashed by anyone.

Ingest (``audit.store.ingest``) accepts the same lines. ``id``, ``stream``, ``type``,
``occurred_at``, ``actor``, ``source`` and ``payload`` are required. ``version`` (when
given) must follow on from the stream's previous line or its stored head; without it
events go to the end of the stream. ``recorded_at`` and ``hash`` come together or not
at all: given, the event is a restore - the server time is kept and the hash must match;
absent, the event is new and is stamped now. ``position`` and ``prev_hash`` are the
store's and are ignored on input (the chain is recomputed and, for restores, checked
through ``hash``).
"""
from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC
from typing import IO

import msgspec

from audit.record.chain import utc
from audit.record.events import PayloadError
from audit.record.jsonl import (
    LineError,
    decode_fields,
    encode_line,
    encoded_payload,
    exported_fields,
    member_texts,
)
from audit.store.streams import CheckedEvent, envelope_of, iter_events


def export_events(out: IO[str], *, stream: str | None = None, progress: Callable[[int], None] | None = None) -> int:
    """Write every event (or one stream's) in position order; return how many.
    ``progress(n)``: n more events written (every thousand, and at the end)."""
    count = 0
    for event in iter_events(stream=stream):
        out.write(encode_line(envelope_of(event)).decode())
        count += 1
        if progress is not None and not count % 1000:
            progress(1000)
    if progress is not None and count % 1000:
        progress(count % 1000)
    return count


class Line(msgspec.Struct, frozen=True):
    """One line of a file to ingest, parsed and checked (a msgspec struct: one a line, made
    in C)."""

    number: int
    stream: str
    version: int | None
    event: CheckedEvent
    payload_text: bytes  # the payload's canonical bytes, which the event's hash covers
    # the id, occurred_at and recorded_at as the chain writes them, where the line holds
    # them so already (None where it does not: they are made from the values)
    texts: tuple[bytes | None, bytes | None, bytes | None]


@dataclass(frozen=True, slots=True)
class BadLine:
    number: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.number}: {self.reason}"


def parse_line(number: int, text: str | bytes) -> Line:
    """Parse and validate one line; raise :class:`PayloadError` naming the field.
    ``decode_fields`` checks the stream, labels and timestamps as ``check_event`` does
    (the store's one check of each), so here only the payload is left to validate. A line
    in the export form is parsed once (``exported_fields``), its id and moments' text
    kept for the chain."""
    exported = exported_fields(text)
    try:
        fields = exported[0] if exported is not None else decode_fields(text, number)
        schema_version, payload, payload_text = encoded_payload(fields, number)
    except LineError as error:
        raise PayloadError(error.field, error.message) from None
    # decode_fields checked the range of a moment read in UTC: only another offset is moved
    occurred, recorded = fields.occurred_at, fields.recorded_at
    event = CheckedEvent(
        id=fields.id, type=fields.type, schema_version=schema_version, payload=payload,
        occurred_at=occurred if occurred.tzinfo is UTC else utc(occurred), actor=fields.actor, source=fields.source,
        recorded_at=recorded if recorded is None or recorded.tzinfo is UTC else utc(recorded), hash=fields.hash,
    )
    id_text, occurred_text, recorded_text = exported[1] if exported is not None else member_texts(text)
    return Line(number, fields.stream, fields.version, event, payload_text, (
        None if id_text is None else id_text.encode(), None if occurred_text is None else occurred_text.encode(),
        None if recorded_text is None else recorded_text.encode()))
