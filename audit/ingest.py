"""Ingest of a JSON Lines file (format: ``audit.jsonl``) into the event store.

Two passes, so that nothing of a stream with a bad line is stored and memory stays flat:

1. *Plan.* Every line is parsed and validated; lines already stored with the same
   content are skipped (so a file ingested twice is stored once); every other line is
   given its version, linked to its stream's previous event (the stored head, or the
   previous line) and hashed; restores' claimed hashes are checked. The finished rows go
   to a temporary spool file, not to memory. A bad line marks its stream bad.
2. *Write.* The spool is read back and the rows of the good streams are written in file
   order, ``chunk`` rows per transaction, each under the store's append lock after one
   query confirms that no stream has moved on since the plan (a concurrent writer makes
   that stream fail from there on, reported with its line).

Memory grows only with the number of streams and with the set of ids seen (to refuse an
id that appears twice in the file), about 100 bytes per line.
"""
from __future__ import annotations

import struct
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO

import msgspec
from django.db import IntegrityError, connection, transaction
from django.db.models import Q

from .events import PayloadError
from .inserts import db_values, insert_values
from .jsonl import BadLine, Line, parse_line, read_lines, stream_of
from .models import Event
from .store import chain_row, same_content, stored_rows, stream_head, take_append_lock

_FRAME = struct.Struct("<I")


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


@dataclass
class _Stream:
    version: int
    hash: str
    bad: bool = False


class _Planner:
    """Pass 1: validate, chain and hash every line; spool the rows."""

    def __init__(self, spool: IO[bytes], report: IngestReport, now: datetime) -> None:
        self.spool, self.report, self.now = spool, report, now
        self.streams: dict[str, _Stream] = {}
        self.seen: set[uuid.UUID] = set()
        self.encode = msgspec.msgpack.Encoder().encode
        self.vendor = connection.vendor

    def bad(self, number: int, reason: str, stream: str | None) -> None:
        self.report.bad_lines.append(BadLine(number, reason))
        if stream is not None:
            self.state(stream).bad = True

    def state(self, stream: str) -> _Stream:
        state = self.streams.get(stream)
        if state is None:
            state = self.streams[stream] = _Stream(*stream_head(stream))
        return state

    def plan(self, lines: list[Line]) -> None:
        stored = stored_rows([line.event.id for line in lines])
        for line in lines:
            state = self.state(line.stream)
            event_id = line.event.id
            if event_id in self.seen:
                self.bad(line.number, f"id: {event_id} appears twice in the file", line.stream)
                continue
            self.seen.add(event_id)
            if event_id in stored:
                self.already_stored(line, stored[event_id], state)
            elif not state.bad:
                self.chain(line, state)

    def already_stored(self, line: Line, row: Event, state: _Stream) -> None:
        differs = same_content(row, line.event, line.stream)
        if differs is None and line.version not in (None, row.version):
            differs = "version"
        if differs is not None:
            self.bad(line.number, f"id: {line.event.id} is already stored with different {differs}", line.stream)
            return
        self.report.already_stored += 1
        if row.version > state.version:
            state.version, state.hash = row.version, row.hash

    def chain(self, line: Line, state: _Stream) -> None:
        version = state.version + 1
        if line.version is not None and line.version != version:
            self.bad(line.number, f"version: {line.version} does not follow the stream's version {state.version}", line.stream)
            return
        try:
            row = chain_row(line.stream, version, line.event, self.now, state.hash)
        except PayloadError as error:
            self.bad(line.number, str(error), line.stream)
            return
        state.version, state.hash = version, row.hash
        frame = self.encode((line.number, line.stream, version, db_values(row, self.vendor)))
        self.spool.write(_FRAME.pack(len(frame)))
        self.spool.write(frame)


def _spooled(spool: IO[bytes]):
    decode = msgspec.msgpack.Decoder().decode
    while header := spool.read(_FRAME.size):
        (size,) = _FRAME.unpack(header)
        yield decode(spool.read(size))


def ingest_file(
    path: str, *, chunk: int = 5000, progress: Callable[[int], None] | None = None,
    now: datetime | None = None,
) -> IngestReport:
    report = IngestReport()
    now = (now or datetime.now(UTC)).astimezone(UTC)
    with tempfile.TemporaryFile(prefix="ingest-") as spool:
        planner = _Planner(spool, report, now)
        with open(path, "rb") as source:
            buffer: list[Line] = []
            for number, text in read_lines(source):
                report.lines += 1
                try:
                    buffer.append(parse_line(number, text))
                except PayloadError as error:
                    planner.bad(number, str(error), stream_of(text))
                if len(buffer) >= chunk:
                    planner.plan(buffer)
                    buffer = []
            planner.plan(buffer)
        for stream, state in sorted(planner.streams.items()):
            if state.bad:
                report.failed_streams[stream] = "has bad lines: nothing of it was stored"
        spool.seek(0)
        _write(spool, report, chunk, progress)
    return report


def _write(spool: IO[bytes], report: IngestReport, chunk: int, progress: Callable[[int], None] | None) -> None:
    records: list[tuple[int, str, int, list[object]]] = []
    for record in _spooled(spool):
        if record[1] in report.failed_streams:
            continue
        records.append(record)
        if len(records) >= chunk:
            _write_chunk(records, report)
            if progress is not None:
                progress(len(records))
            records = []
    if records:
        _write_chunk(records, report)
        if progress is not None:
            progress(len(records))


class _Moved(Exception):
    def __init__(self, streams: set[str]) -> None:
        self.streams = streams


def _write_chunk(records: list, report: IngestReport) -> None:
    while records:
        first: dict[str, tuple[int, int]] = {}  # stream -> (its first version here, line)
        for number, stream, version, _ in records:
            first.setdefault(stream, (version, number))
        try:
            with transaction.atomic():
                take_append_lock()
                moved = Q()
                for stream, (version, _) in first.items():
                    moved |= Q(stream=stream, version=version)
                taken = set(Event.objects.filter(moved).values_list("stream", flat=True))
                if taken:
                    raise _Moved(taken)
                insert_values([values for *_, values in records])
        except _Moved as moved:
            failed = {s: f"version: stream {s} was appended to since this ingest began: "
                         f"version {first[s][0]} is taken" for s in moved.streams}
        except IntegrityError as error:  # an id stored meanwhile by another writer
            reason = str(error).splitlines()[0]
            failed = {s: f"refused by the database: {reason}" for s in first}
        else:
            report.stored += len(records)
            return
        for stream, reason in failed.items():
            number = first[stream][1]
            report.bad_lines.append(BadLine(number, reason))
            report.failed_streams[stream] = f"line {number} refused; the stream was not stored from there on"
        records = [r for r in records if r[1] not in failed]
