"""Ingest's first pass: the planner, checking each line and making its row.

A planning process reads every line of the file and plans its own (:class:`_Router`
gives each stream, whole, to one process): it parses and validates the line, skips one
stored already with the same content, chains and hashes the rest onto their streams
(:class:`_Planner`) and spools the finished rows, each a frame (:func:`_spooled`,
:func:`_followed` read them back). What a process found - its report, its bad streams,
the ids it planned - comes back as a :class:`_Part`, and the parts are merged
(:func:`_merge`) before anything is written. Writing is :mod:`.write`'s; which
processes plan, :mod:`.strategy`'s.

Memory grows only with the number of streams: to refuse an id that appears twice in the
file, a planning process keeps the ids it has seen in memory (about 120 bytes a line) up
to ``_SEEN_WINDOW`` of them, then writes them sorted to a file of their own and starts
afresh; the parent merges every such file, of every process, as it reads them (it holds
no ids). An id met again within the window is refused as it is planned; one met again
further on is found by the merge, which fails its stream as a duplicate planned by two
processes is failed.
"""

from __future__ import annotations

import contextlib
import heapq
import itertools
import multiprocessing
import struct
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from typing import IO, Any

import msgspec
from django.conf import settings
from django.db import connection

from audit.access.authority import ingest_authority
from audit.models import Event
from audit.record.chain import canonical_json, document_digest, document_tail, format_timestamp
from audit.record.envelope import check_claimed
from audit.record.events import AUTHORITY, SERVER_ONLY, PayloadError
from audit.record.jsonl import numbered, stream_of
from audit.store.streams import (
    SERVER_STREAM_PREFIX,
    same_content,
    server_only_problem,
    stored_rows,
    stream_head,
)

from ..inserts import binary_moment, binary_row, binary_text, sqlite_values
from ..seals import sealer
from .lines import BadLine, Line, parse_line

_FRAME = struct.Struct("<I")
# the frame size that ends a planning process's spool: it planned every line (a spool
# without it was cut short - its process failed)
_END = 0xFFFFFFFF
_ID = struct.Struct("<16sQ")  # an id, and its line << 32 | its stream's index
# the ids a planning process holds in memory before it writes them out (~6 MiB)
_SEEN_WINDOW = 50_000


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
    hash: bytes  # of the stream's last event, planned or stored
    bad: bool = False
    # no event of it was stored when planning met it: none of its lines can be stored
    # already, so a plan that skips the lookup of stored ids skips its lines'
    fresh: bool = False
    # by (type, schema version, source): the hashed document's members after recorded_at
    # (document_tail), and the stream, type and source as binary COPY's fields
    texts: dict[tuple[str, int, str], tuple[bytes, bytes, bytes, bytes]] = field(
        default_factory=dict
    )


class _Planner:
    """Pass 1: validate, chain and hash every line; spool the rows.

    The row is built from the line's members in their canonical text, each made once:
    the payload's canonical JSON is both hashed and stored, and the hashed document is
    written as bytes (the record core's ``document_digest``, the simulator's writer's
    too) - the same hash ``chain_row`` gives, at a fraction of its cost."""

    def __init__(
        self,
        spool: IO[bytes] | None,
        report: IngestReport,
        now: datetime,
        principal: str,
        runs: str,
        handoff: Callable[[list], None] | None = None,
        *,
        lookups: bool = True,
        sort_ids: bool = True,
    ) -> None:
        self.spool, self.report, self.now, self.principal = spool, report, now, principal
        # a writer beside the planner (:func:`.strategy._plan_beside_writer`): it is handed the
        # records the spool gets, each chunk's as it is planned (without a spool: every
        # chunk handed over is kept, in ``kept``, for a write after a rollback)
        self.handoff = handoff
        self.planned: list[tuple[int, str, int, object]] = []
        self.kept: list[list[tuple[int, str, int, object]]] = []
        # False: the stored ids are not looked up for the lines of a fresh stream (one
        # without a stored event when planning met it). None of them can be stored
        # already; an id stored in another stream is then refused by the database's
        # unique key in the transaction written as planned, and the ingest plans again
        # with every lookup (:func:`.strategy._ingest`)
        self.lookups = lookups
        # where the windows of ids go (``runs`` + ".0", ".1", ...)
        self.runs = runs
        self.run_files: list[str] = []
        # whether each window is sorted as it is written: where it is always merged (the
        # two-pass plan). A plan written as it is made sorts them only if its transaction is
        # rolled back: when it commits, the database's unique key of ids has found no id
        # twice, and the windows are not read (:func:`_repeats`)
        self.sort_ids = sort_ids
        self.streams: dict[str, _Stream] = {}
        # id (16 bytes) -> its line << 32 | its stream's index in ``names``: two small
        # objects a line, the least an exact check of every id of the file can hold
        self.seen: dict[bytes, int] = {}
        self.names: list[str] = []
        self.indexes: dict[str, int] = {}
        self.encode = msgspec.msgpack.Encoder().encode
        self.vendor = connection.vendor
        self.now_text = format_timestamp(now).encode()
        self.now_moment = binary_moment(now)
        self.recorded: tuple[datetime | None, int] = (
            None,
            0,
        )  # the last recorded_at, as binary_moment
        self.binary_principal = binary_text(principal.encode())
        self.actors: dict[str, tuple[bytes, bytes]] = {}  # actor -> (quoted, binary_text)
        self.seal = sealer(principal, secret=settings.SEAL_KEY)
        # type -> why a line of it is refused under this principal (audit.access.authority): the
        # money-changing types its person may not record, the server's own types
        self.refusals = line_refusals(principal)

    def bad(self, number: int, reason: str, stream: str | None) -> None:
        self.report.bad_lines.append(BadLine(number, reason))
        if stream is not None:
            self.state(stream).bad = True

    def state(self, stream: str) -> _Stream:
        state = self.streams.get(stream)
        if state is None:
            version, head = stream_head(stream)
            state = self.streams[stream] = _Stream(version, head.encode(), fresh=version == 0)
        return state

    def write_ids(self) -> None:
        """The window of ids seen to a file of its own (sorted with ``sort_ids``); the
        window emptied."""
        path = f"{self.runs}.{len(self.run_files)}"
        seen = self.seen
        with open(path, "wb") as out:
            # (the ids are unique: the pairs sort by them alone)
            out.writelines(
                itertools.starmap(_ID.pack, sorted(seen.items()) if self.sort_ids else seen.items())
            )
        self.run_files.append(path)
        seen.clear()

    def plan(self, lines: list[Line]) -> None:
        if len(self.seen) >= _SEEN_WINDOW:
            self.write_ids()
        asked = (
            lines if self.lookups else [line for line in lines if not self.state(line.stream).fresh]
        )
        texts = (
            [line.texts[0] or str(line.event.id).encode() for line in asked]
            if self.vendor == "postgresql"
            else None
        )  # PostgreSQL's lookup takes the ids' text
        stored = stored_rows([line.event.id for line in asked], texts)
        for line in lines:
            state = self.state(line.stream)
            event_id = line.event.id
            key = event_id.bytes
            if key in self.seen:
                self.bad(line.number, f"id: {event_id} appears twice in the file", line.stream)
                continue
            index = self.indexes.get(line.stream)
            if index is None:
                index = self.indexes[line.stream] = len(self.names)
                self.names.append(line.stream)
            self.seen[key] = line.number << 32 | index
            if (
                stored and event_id in stored
            ):  # (a UUID's hash is Python's: not asked of an empty dict)
                self.already_stored(line, stored[event_id], state)
                continue
            refusal = self.refusals.get(line.event.type)
            if refusal is not None and (
                line.event.type not in SERVER_ONLY
                or not line.stream.startswith(SERVER_STREAM_PREFIX)
            ):
                self.bad(
                    line.number, refusal, line.stream
                )  # each such line named, its stream not stored
            elif not state.bad:
                self.chain(line, state, key)  # (the id's 16 bytes)

    def already_stored(self, line: Line, row: Event, state: _Stream) -> None:
        differs = same_content(row, line.event, line.stream)
        if differs is None and line.version not in (None, row.version):
            differs = "version"
        if differs is not None:
            self.bad(
                line.number,
                f"id: {line.event.id} is already stored with different {differs}",
                line.stream,
            )
            return
        self.report.already_stored += 1
        if row.version > state.version:
            state.version, state.hash = row.version, row.hash.encode()

    def chain(self, line: Line, state: _Stream, id_bytes: bytes) -> None:
        """Plan ``line`` onto its stream (``id_bytes``: its id's 16 bytes)."""
        version = state.version + 1
        if line.version is not None and line.version != version:
            self.bad(
                line.number,
                f"version: {line.version} does not follow the stream's version {state.version}",
                line.stream,
            )
            return
        event = line.event
        key = (event.type, event.schema_version, event.source)
        texts = state.texts.get(key)
        if texts is None:
            texts = state.texts[key] = (
                document_tail(event.schema_version, event.source, line.stream, event.type),
                binary_text(line.stream.encode()),
                binary_text(event.type.encode()),
                binary_text(event.source.encode()),
            )
        tail, stream_field, type_field, source_field = texts
        actors = self.actors.get(event.actor)
        if actors is None:
            actors = self.actors[event.actor] = (
                canonical_json(event.actor),
                binary_text(event.actor.encode()),
            )
        actor, actor_field = actors
        id_text, occurred, recorded = line.texts
        ident = id_text or str(event.id).encode()
        occurred = occurred or format_timestamp(event.occurred_at).encode()
        if event.recorded_at is None:
            recorded = self.now_text
        elif recorded is None:
            recorded = format_timestamp(event.recorded_at).encode()
        payload = line.payload_text
        prev = state.hash
        digest_text = document_digest(
            actor, ident, occurred, payload, prev, recorded, tail, version
        )
        digest = digest_text.decode()
        try:
            check_claimed(event.hash, digest)
        except PayloadError as error:
            self.bad(line.number, str(error), line.stream)
            return
        state.version, state.hash = version, digest_text
        seal = self.seal(digest_text)
        if self.vendor == "postgresql":
            occurred_at, recorded_at = event.occurred_at, event.recorded_at
            occurred_moment = binary_moment(occurred_at)
            if recorded_at is None:
                moment = self.now_moment
            elif recorded_at is occurred_at:  # (a simulator's lines: parse_line's one datetime)
                moment = occurred_moment
            elif recorded_at == self.recorded[0]:  # a batch's events share their recorded_at
                moment = self.recorded[1]
            else:
                moment = binary_moment(recorded_at)
                self.recorded = (recorded_at, moment)
            row: object = binary_row(
                id_bytes,
                stream_field,
                version,
                type_field,
                event.schema_version,
                occurred_moment,
                moment,
                actor_field,
                source_field,
                payload,
                prev,
                digest_text,
                self.binary_principal,
                seal,
            )
        else:
            # SQLite: db_values' row, from the texts made above (the seal not made again)
            row = sqlite_values(
                event.id.hex,
                line.stream,
                version,
                event.type,
                event.schema_version,
                occurred,
                recorded,
                event.actor,
                event.source,
                event.payload,
                prev.decode(),
                digest,
                self.principal,
                seal.decode(),
            )
        record = (line.number, line.stream, version, row)
        if self.spool is not None:
            frame = self.encode(record)
            self.spool.write(_FRAME.pack(len(frame)))
            self.spool.write(frame)
        if self.handoff is not None:
            self.planned.append(record)

    def hand_off(self) -> None:
        """What is planned and not handed to the writer yet (at the end of a chunk)."""
        if self.handoff is not None and self.planned:
            self.handoff(self.planned)
            if self.spool is None:
                self.kept.append(self.planned)
            self.planned = []


def line_refusals(principal: str) -> dict[str, str]:
    """Why a line of each refused type is refused under ``principal`` (``type: ...``): a
    money-changing type whose permission the person the ingest runs for does not hold (or
    every one, for an ingest for no one), and the server's own types (refused on a
    table's stream only)."""
    allowed = ingest_authority(principal)
    refusals = {
        name: (
            f"type: {name} changes money after the fact: ingest stores it only when run for a person "
            f"holding the permission {permission} (ingest --as USERNAME)"
        )
        for name, permission in AUTHORITY.items()
        if name not in allowed
    }
    for name in SERVER_ONLY:
        refusals[name] = f"type: {server_only_problem('a-table', name)}"
    return refusals


def _spooled(spool: IO[bytes]):
    decode = msgspec.msgpack.Decoder().decode
    while header := spool.read(_FRAME.size):
        (size,) = _FRAME.unpack(header)
        if size == _END:
            return
        yield decode(spool.read(size))


class _Unfinished(Exception):
    """A planning process stopped before the end of its spool (it failed)."""


def _followed(path: str, finished: Callable[[], bool]) -> Iterator[list]:
    """:func:`_spooled` of a spool that a planning process is still writing: its frames
    as they land, waiting for more until its end (``finished()``: the planning processes
    have stopped, so what is not in the file now never will be)."""
    decode = msgspec.msgpack.Decoder().decode
    unpack = _FRAME.unpack_from
    with open(path, "rb", buffering=0) as handle:
        data, at, stopped = b"", 0, False
        while True:
            block = handle.read(1 << 20)
            if not block:
                if stopped:
                    raise _Unfinished(path)
                stopped = finished()  # and read once more: the last frames may have landed since
                if not stopped:
                    time.sleep(0.005)
                continue
            data = data[at:] + block if at < len(data) else block
            at, end = 0, len(data)
            view = memoryview(data)
            while at + 4 <= end:
                (size,) = unpack(data, at)
                if size == _END:
                    return
                if at + 4 + size > end:
                    break
                yield decode(view[at + 4 : at + 4 + size])
                at += 4 + size
            view.release()


class _Router:
    """Which planning process takes each line: by its stream, so each chain stays whole in
    one process - the process with the fewest lines so far when the stream first appears
    (a hash of the name split a 12-table file 58% / 42%, and planning ends when the busier
    process does). Every process reads every line, in the file's order, so each makes the
    same choices without asking the others. Lines without a readable stream go to the
    first."""

    __slots__ = ("lines", "streams")

    def __init__(self, parts: int) -> None:
        self.streams: dict[str, int] = {}
        self.lines = [0] * parts

    def part_of(self, text: bytes) -> int:
        stream = stream_of(text)
        if stream is None:
            return 0
        part = self.streams.get(stream)
        if part is None:
            part = self.streams[stream] = self.lines.index(min(self.lines))
        self.lines[part] += 1
        return part


@dataclass
class _Part:
    """What one planning process found."""

    report: IngestReport
    bad_streams: set[str]
    names: list[str]  # the streams, by the index ``_ID`` records name
    # files of its ids (none when it planned alone and its ids fitted the window), each
    # sorted unless ``ids_sorted`` is False (:func:`_repeats` sorts them then)
    ids: list[str]
    # its records, a chunk a list, in file order, where it handed them to a writer beside
    # it instead of spooling them (:func:`.strategy._plan_beside_writer`)
    kept: list[list] = field(default_factory=list)
    ids_sorted: bool = True


# while several processes plan: the line the first of them has reached, in shared memory
# that the processes inherit (fork), for the parent's progress bar
_REACHED: Any = None
_REACH_EVERY = 2000


def _reached(number: int) -> None:
    if _REACHED is not None:
        _REACHED.value = number


@contextlib.contextmanager
def _reach_shared() -> Iterator[Any]:
    """While the block forks planning processes: the shared number they report their
    line in (:data:`_REACHED`), yielded for the parent to read; none after."""
    global _REACHED
    _REACHED = multiprocessing.get_context("fork").Value("q", 0, lock=False)
    try:
        yield _REACHED
    finally:
        _REACHED = None


def _plan_part(
    path: str,
    part: int,
    parts: int,
    spool_path: str,
    now: datetime,
    chunk: int,
    principal: str,
    checked: Callable[[int], None] | None = None,
    handoff: Callable[[list], None] | None = None,
    lookups: bool = True,
    sort_ids: bool = True,
) -> _Part:
    """One planning process's plan of its streams (``part`` of ``parts``), spooled to
    ``spool_path``; with a ``handoff``, handed to it a chunk at a time and kept in the
    part (``_Part.kept``) instead. ``lookups``: :class:`_Planner`'s."""
    report = IngestReport()
    # every process reads every line (and plans its own), so the first one's place is
    # the whole planning's
    reached = checked if checked is not None else (_reached if part == 0 else None)
    # a large buffer, flushed after each chunk planned: a parent that writes while the
    # processes plan (:func:`.strategy._plan_while_writing`) reads the spool as it grows
    with (
        open(spool_path, "wb", buffering=1 << 20) if handoff is None else contextlib.nullcontext()
    ) as spool:
        planner = _Planner(
            spool,
            report,
            now,
            principal,
            spool_path + ".ids",
            handoff,
            lookups=lookups,
            sort_ids=sort_ids,
        )
        with open(
            path, "rb", buffering=1 << 20
        ) as source:  # (the default's 8 KB: a read a few lines)
            buffer: list[Line] = []
            router = _Router(parts)
            for number, text in numbered(source):
                if reached is not None and number % _REACH_EVERY == 0:
                    reached(number)
                if parts > 1 and router.part_of(text) != part:
                    continue
                report.lines += 1
                try:
                    buffer.append(parse_line(number, text))
                except PayloadError as error:
                    planner.bad(number, str(error), stream_of(text))
                if len(buffer) >= chunk:
                    planner.plan(buffer)
                    planner.hand_off()
                    if spool is not None:
                        spool.flush()
                    buffer = []
            planner.plan(buffer)
            planner.hand_off()
        if spool is not None:
            spool.write(_FRAME.pack(_END))
    if parts > 1 or planner.run_files:
        # the ids (sorted, or as held: ``sort_ids``) for the parent to find one planned by two
        # processes or in two windows
        planner.write_ids()
    return _Part(
        report,
        {name for name, state in planner.streams.items() if state.bad},
        planner.names,
        planner.run_files,
        planner.kept,
        sort_ids,
    )


def _ids(handle: IO[bytes], part: int) -> Iterator[tuple[bytes, int, int]]:
    while block := handle.read(_ID.size * 8192):
        for key, place in _ID.iter_unpack(block):
            yield key, place, part


def _merge(parts: list[_Part], report: IngestReport) -> set[str]:
    """The parts' findings into ``report``, an id planned twice among them; the streams
    with a bad line."""
    return _repeats(parts, report, _gather(parts, report))


def _gather(parts: list[_Part], report: IngestReport) -> set[str]:
    """The parts' findings into ``report`` (an id planned by two of them, or in two
    windows of one, left to :func:`_repeats`); the streams with a bad line."""
    bad = set().union(*(part.bad_streams for part in parts))
    for part in parts:
        report.lines += part.report.lines
        report.already_stored += part.report.already_stored
        report.bad_lines.extend(part.report.bad_lines)
    report.bad_lines.sort(key=lambda bad_line: bad_line.number)
    return bad


def _repeats(parts: list[_Part], report: IngestReport, bad: set[str]) -> set[str]:
    """``bad`` and the streams of every id the parts planned twice - in different
    processes, or in two windows of one: a merge of their sorted id files, read as it
    goes (the parent holds none of them) - each later line named in ``report``."""
    reported = {bad_line.number for part in parts for bad_line in part.report.bad_lines}
    for part in parts:
        if not part.ids_sorted:
            for path in part.ids:
                _sort_ids(path)
    owners = [k for k, part in enumerate(parts) for _ in part.ids]  # each file's process
    files = [open(path, "rb") for part in parts for path in part.ids]  # noqa: SIM115 - closed below
    try:
        merged = heapq.merge(*(_ids(handle, k) for k, handle in enumerate(files)))
        previous: tuple[bytes, int, int] | None = None
        for key, place, k in merged:
            if previous is not None and previous[0] == key:
                later, which = max((previous[1], previous[2]), (place, k))
                number, stream = later >> 32, parts[owners[which]].names[later & 0xFFFFFFFF]
                if number not in reported:
                    report.bad_lines.append(
                        BadLine(number, f"id: {uuid.UUID(bytes=key)} appears twice in the file")
                    )
                    reported.add(number)
                bad.add(stream)
            previous = (key, place, k)
    finally:
        for handle in files:
            handle.close()
    report.bad_lines.sort(key=lambda bad_line: bad_line.number)
    return bad


def _sort_ids(path: str) -> None:
    """A window's id file, written as it was held (``sort_ids=False``), sorted in place:
    one window in memory at a time."""
    with open(path, "rb") as handle:
        records = sorted(_ID.iter_unpack(handle.read()))
    with open(path, "wb") as out:
        out.writelines(itertools.starmap(_ID.pack, records))
