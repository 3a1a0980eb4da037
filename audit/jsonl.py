"""JSON Lines exchange: export the store, and ingest such a file back.

A line is one envelope (see ``audit.store.envelope``): ``id``, ``stream``, ``version``,
``position``, ``type``, ``schema_version``, ``occurred_at``, ``recorded_at``, ``actor``,
``source``, ``payload``, ``prev_hash``, ``hash``. Exports carry payloads as stored (not
upcast), so every line can be re-hashed by anyone.

Ingest accepts the same lines. ``id``, ``stream``, ``type``, ``occurred_at``, ``actor``,
``source`` and ``payload`` are required. ``version`` (when given) must follow on from the
stream's previous line or its stored head; without it events go to the end of the
stream. ``recorded_at`` and ``hash`` come together or not at all: given, the event is a
restore - the server time is kept and the hash must match; absent, the event is new and
is stamped now. ``position`` and ``prev_hash`` are the store's and are ignored on input
(the chain is recomputed and, for restores, checked through ``hash``).

Ingest reads the file twice so that memory stays flat: the first pass validates every
line and marks a stream bad if any of its lines is; the second appends the good streams
in file order, in transactions of ``chunk`` lines. Nothing of a bad stream is stored.
Lines whose id is stored already with the same content are skipped, so ingesting a file
twice stores it once.
"""
from __future__ import annotations

import json
import uuid
from datetime import datetime
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO

import msgspec

from .chain import parse_timestamp
from .errors import InvalidEvent, StoreError
from .events import PayloadError
from .events.registry import explain
from .models import Event
from .store import (
    CheckedBatch,
    CheckedEvent,
    NewEvent,
    append_checked,
    check_event,
    check_stream,
    envelope,
    iter_events,
    stream_version,
)



def export_events(out: IO[str], *, stream: str | None = None) -> int:
    """Write every event (or one stream's) in position order; return how many."""
    count = 0
    for event in iter_events(stream=stream):
        out.write(json.dumps(envelope(event, as_stored=True), ensure_ascii=False, sort_keys=True, separators=(",", ":")))
        out.write("\n")
        count += 1
    return count


@dataclass(frozen=True)
class Line:
    number: int
    stream: str
    version: int | None
    event: CheckedEvent


@dataclass(frozen=True)
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


@dataclass
class IngestReport:
    lines: int = 0
    stored: int = 0
    already_stored: int = 0
    bad_lines: list[BadLine] = field(default_factory=list)
    failed_streams: dict[str, str] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return not self.bad_lines and not self.failed_streams


def _lines(source: IO[str]) -> Iterator[tuple[int, str]]:
    for number, text in enumerate(source, start=1):
        if text.strip():
            yield number, text


@dataclass
class _StreamState:
    next_version: int | None = None  # the version the next line must carry, if known
    bad: bool = False


def _first_pass(source: IO[str], report: IngestReport) -> dict[str, _StreamState]:
    streams: dict[str, _StreamState] = {}
    seen_ids: set[uuid.UUID] = set()
    for number, text in _lines(source):
        report.lines += 1
        try:
            line = parse_line(number, text)
        except PayloadError as error:
            report.bad_lines.append(BadLine(number, str(error)))
            stream = _stream_of(text)
            if stream is not None:
                streams.setdefault(stream, _StreamState()).bad = True
            continue
        state = streams.setdefault(line.stream, _StreamState())
        if line.event.id in seen_ids:
            report.bad_lines.append(BadLine(number, f"id: {line.event.id} appears twice in the file"))
            state.bad = True
        seen_ids.add(line.event.id)
        if line.version is not None:
            if state.next_version is not None and line.version != state.next_version:
                report.bad_lines.append(BadLine(
                    number, f"version: {line.version} does not follow the stream's previous line (expected {state.next_version})"
                ))
                state.bad = True
            state.next_version = line.version + 1
        elif state.next_version is not None:
            state.next_version += 1
    return streams


def _stream_of(text: str) -> str | None:
    try:
        raw = json.loads(text)
    except json.JSONDecodeError:
        return None
    stream = raw.get("stream") if isinstance(raw, dict) else None
    return stream if isinstance(stream, str) else None


def ingest_file(
    path: str, *, chunk: int = 5000, progress: Callable[[int], None] | None = None
) -> IngestReport:
    report = IngestReport()
    with open(path, encoding="utf-8") as source:
        streams = _first_pass(source, report)
    bad = {name for name, state in streams.items() if state.bad}
    for name in sorted(bad):
        report.failed_streams[name] = "has bad lines: nothing of it was stored"
    heads: dict[str, int] = {}
    buffer: list[Line] = []
    with open(path, encoding="utf-8") as source:
        for number, text in _lines(source):
            try:
                # validated again: the file is read anew, and only what is read now is stored
                line = parse_line(number, text)
            except PayloadError:
                continue
            if line.stream in bad:
                continue
            buffer.append(line)
            if len(buffer) >= chunk:
                _flush(buffer, heads, report)
                if progress is not None:
                    progress(len(buffer))
                buffer = []
        if buffer:
            _flush(buffer, heads, report)
            if progress is not None:
                progress(len(buffer))
    return report


def _runs(lines: list[Line]) -> list[list[Line]]:
    """Split into runs of consecutive lines of one stream, keeping file order."""
    runs: list[list[Line]] = []
    for line in lines:
        if runs and runs[-1][0].stream == line.stream:
            runs[-1].append(line)
        else:
            runs.append([line])
    return runs


def _flush(buffer: list[Line], heads: dict[str, int], report: IngestReport) -> None:
    stored = set(
        Event.objects.filter(event_id__in=[line.event.id for line in buffer]).values_list("event_id", flat=True)
    )
    fresh = []
    for line in buffer:
        if line.stream in report.failed_streams:
            continue
        if line.event.id in stored:
            report.already_stored += 1
            heads.pop(line.stream, None)  # re-read the head after a stored stretch
            continue
        fresh.append(line)
    batches = []
    for run in _runs(fresh):
        stream = run[0].stream
        if stream not in heads:
            heads[stream] = stream_version(stream)
        first = run[0].version
        expected = heads[stream] if first is None else first - 1
        batches.append((CheckedBatch(stream, expected, [line.event for line in run]), run))
        heads[stream] = expected + len(run)
    try:
        append_checked([batch for batch, _ in batches], returning=False)
    except StoreError:
        # attribute the failure: append run by run, each on its own
        for stream in {batch.stream for batch, _ in batches}:
            heads.pop(stream, None)
        for batch, run in batches:
            if batch.stream not in report.failed_streams:
                _append_one(batch, run, heads, report)
        return
    report.stored += len(fresh)


def _append_one(batch: CheckedBatch, lines: list[Line], heads: dict[str, int], report: IngestReport) -> None:
    try:
        append_checked([batch], returning=False)
    except InvalidEvent as error:
        line = lines[error.index]
        report.bad_lines.append(BadLine(line.number, f"{error.field}: {error.message}"))
        report.failed_streams[batch.stream] = f"line {line.number} refused; the stream was not stored from there on"
    except StoreError as error:
        report.bad_lines.append(BadLine(lines[0].number, str(error)))
        report.failed_streams[batch.stream] = f"line {lines[0].number} refused; the stream was not stored from there on"
    else:
        heads[batch.stream] = batch.expected_version + len(lines)
        report.stored += len(lines)
