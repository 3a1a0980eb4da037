"""A line of a file to ingest, parsed and checked against the catalogue (the format:
:mod:`audit.store.export`; the codec: ``audit.record.jsonl``)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC

import msgspec

from audit.record.chain import utc
from audit.record.events import PayloadError
from audit.record.jsonl import (
    LineError,
    decode_fields,
    encoded_payload,
    exported_fields,
    member_texts,
)
from audit.store.streams import CheckedEvent


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
        id=fields.id,
        type=fields.type,
        schema_version=schema_version,
        payload=payload,
        occurred_at=occurred if occurred.tzinfo is UTC else utc(occurred),
        actor=fields.actor,
        source=fields.source,
        recorded_at=recorded if recorded is None or recorded.tzinfo is UTC else utc(recorded),
        hash=fields.hash,
    )
    id_text, occurred_text, recorded_text = (
        exported[1] if exported is not None else member_texts(text)
    )
    return Line(
        number,
        fields.stream,
        fields.version,
        event,
        payload_text,
        (
            None if id_text is None else id_text.encode(),
            None if occurred_text is None else occurred_text.encode(),
            None if recorded_text is None else recorded_text.encode(),
        ),
    )
