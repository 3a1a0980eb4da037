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

Each write pass keeps a checkpoint (an ``IngestRun`` and its ``IngestStep`` rows, both
append-only) in the transactions of its chunks, so an ingest that stops while writing
(killed, or the database gone: ``DatabaseLost``) leaves a record that ``verify`` names
until the same file is ingested again.

On PostgreSQL a file over 4 MB is written as it is planned (:func:`_plan_while_writing`):
the parent writes the rows as the processes plan them, in file order, in one transaction
under the append lock, and commits it - rows and finished run together - only once
every line is checked and every stream found good. A file of 16 MB or less is planned in
this process instead, and a thread of it writes (:func:`_plan_beside_writer`): the same
transaction, without a process to start. A bad line, a stream moved meanwhile
or a row the database refuses rolls it back, and the good streams are written from the
spools as above; an ingest killed before the commit has stored nothing.

Planning is CPU work in Python, and each stream's chain must be planned in order; so on
a large file it runs in child processes, each taking whole streams (:class:`_Router`), and
the write pass merges their spools back into file order: two processes on a two-core
machine when the write pass follows planning; one beside the writing parent when they
overlap (its COPY and the server's work on it are about half the CPU).

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
import functools
import getpass
import heapq
import itertools
import multiprocessing
import os
import queue
import struct
import sys
import tempfile
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import IO, Any, NamedTuple

import msgspec
from django.conf import settings
from django.db import (
    IntegrityError,
    InterfaceError,
    OperationalError,
    connection,
    connections,
    transaction,
)
from django.db.models import OuterRef, Subquery

from .authority import ingest_authority
from .inserts import binary_moment, binary_row, binary_text, copy_rows, insert_values, sqlite_values
from .jsonl import BadLine, Line, parse_line
from .models import Event, IngestRun, IngestStep
from .record.authority import ingest_principal
from .record.chain import canonical_json, document_digest, document_tail, format_timestamp
from .record.collector import acyclic_work
from .record.envelope import check_claimed
from .record.events import AUTHORITY, SERVER_ONLY, PayloadError
from .record.jsonl import numbered, stream_of
from .record.processes import can_fork, cpus
from .seals import sealer
from .store import (
    SERVER_STREAM_PREFIX,
    same_content,
    server_only_problem,
    stored_rows,
    stream_head,
    take_append_lock,
    versions_taken,
)
from .subscribers import publish

_FRAME = struct.Struct("<I")
# the frame size that ends a planning process's spool: it planned every line (a spool
# without it was cut short - its process failed)
_END = 0xFFFFFFFF
_ID = struct.Struct("<16sQ")  # an id, and its line << 32 | its stream's index
# the ids a planning process holds in memory before it writes them out (~6 MiB)
_SEEN_WINDOW = 50_000
# lines a chunk (planned, then a COPY) when a thread writes beside the planner
# (:func:`_plan_beside_writer`): the server writes each piece while the next is planned,
# and what it has left when planning ends - its tail - is one piece: a small piece keeps
# the tail short, a large one asks the server less often (the lookup of stored ids is one
# query a piece); bench/live_round.py shows the trade
_PIECE = 1000
# the largest file planned in this process beside a writing thread when ``processes`` is
# not given; a larger one is planned in a child process beside this one's writing. The
# thread's start costs nothing and a process's does (the fork, its connection, its cold
# caches), which a small file such as a live round's 7.9 MB feels; but the planner and
# the writer's Python share one interpreter, which a whole day's file feels more. 16 MB
# is about twice the live round's file (bench/live_round.py and bench/peer.py show each
# side)
_HERE_MAX = 16 * 2**20


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
    texts: dict[tuple[str, int, str], tuple[bytes, bytes, bytes, bytes]] = field(default_factory=dict)


class _Planner:
    """Pass 1: validate, chain and hash every line; spool the rows.

    The row is built from the line's members in their canonical text, each made once:
    the payload's canonical JSON is both hashed and stored, and the hashed document is
    written as bytes (the record core's ``document_digest``, the simulator's writer's
    too) - the same hash ``chain_row`` gives, at a fraction of its cost."""

    def __init__(self, spool: IO[bytes] | None, report: IngestReport, now: datetime, principal: str, runs: str,
                 handoff: Callable[[list], None] | None = None, *, lookups: bool = True,
                 sort_ids: bool = True) -> None:
        self.spool, self.report, self.now, self.principal = spool, report, now, principal
        # a writer beside the planner (:func:`_plan_beside_writer`): it is handed the
        # records the spool gets, each chunk's as it is planned (without a spool: every
        # chunk handed over is kept, in ``kept``, for a write after a rollback)
        self.handoff = handoff
        self.planned: list[tuple[int, str, int, object]] = []
        self.kept: list[list[tuple[int, str, int, object]]] = []
        # False: the stored ids are not looked up for the lines of a fresh stream (one
        # without a stored event when planning met it). None of them can be stored
        # already; an id stored in another stream is then refused by the database's
        # unique key in the transaction written as planned, and the ingest plans again
        # with every lookup (:func:`_ingest`)
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
        self.recorded: tuple[datetime | None, int] = (None, 0)  # the last recorded_at, as binary_moment
        self.binary_principal = binary_text(principal.encode())
        self.actors: dict[str, tuple[bytes, bytes]] = {}  # actor -> (quoted, binary_text)
        self.seal = sealer(principal, secret=settings.SEAL_KEY)
        # type -> why a line of it is refused under this principal (audit.authority): the
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
            out.writelines(itertools.starmap(_ID.pack, sorted(seen.items()) if self.sort_ids else seen.items()))
        self.run_files.append(path)
        seen.clear()

    def plan(self, lines: list[Line]) -> None:
        if len(self.seen) >= _SEEN_WINDOW:
            self.write_ids()
        asked = lines if self.lookups else [line for line in lines if not self.state(line.stream).fresh]
        texts = [line.texts[0] or str(line.event.id).encode() for line in asked] \
            if self.vendor == "postgresql" else None  # PostgreSQL's lookup takes the ids' text
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
            if stored and event_id in stored:  # (a UUID's hash is Python's: not asked of an empty dict)
                self.already_stored(line, stored[event_id], state)
                continue
            refusal = self.refusals.get(line.event.type)
            if refusal is not None and (line.event.type not in SERVER_ONLY
                                        or not line.stream.startswith(SERVER_STREAM_PREFIX)):
                self.bad(line.number, refusal, line.stream)  # each such line named, its stream not stored
            elif not state.bad:
                self.chain(line, state, key)  # (the id's 16 bytes)

    def already_stored(self, line: Line, row: Event, state: _Stream) -> None:
        differs = same_content(row, line.event, line.stream)
        if differs is None and line.version not in (None, row.version):
            differs = "version"
        if differs is not None:
            self.bad(line.number, f"id: {line.event.id} is already stored with different {differs}", line.stream)
            return
        self.report.already_stored += 1
        if row.version > state.version:
            state.version, state.hash = row.version, row.hash.encode()

    def chain(self, line: Line, state: _Stream, id_bytes: bytes) -> None:
        """Plan ``line`` onto its stream (``id_bytes``: its id's 16 bytes)."""
        version = state.version + 1
        if line.version is not None and line.version != version:
            self.bad(line.number, f"version: {line.version} does not follow the stream's version {state.version}", line.stream)
            return
        event = line.event
        key = (event.type, event.schema_version, event.source)
        texts = state.texts.get(key)
        if texts is None:
            texts = state.texts[key] = (document_tail(event.schema_version, event.source, line.stream, event.type),
                                        binary_text(line.stream.encode()), binary_text(event.type.encode()),
                                        binary_text(event.source.encode()))
        tail, stream_field, type_field, source_field = texts
        actors = self.actors.get(event.actor)
        if actors is None:
            actors = self.actors[event.actor] = (canonical_json(event.actor), binary_text(event.actor.encode()))
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
        digest_text = document_digest(actor, ident, occurred, payload, prev, recorded, tail, version)
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
                id_bytes, stream_field, version, type_field, event.schema_version, occurred_moment, moment,
                actor_field, source_field, payload, prev, digest_text, self.binary_principal, seal)
        else:
            # SQLite: db_values' row, from the texts made above (the seal not made again)
            row = sqlite_values(
                event.id.hex, line.stream, version, event.type, event.schema_version, occurred, recorded,
                event.actor, event.source, event.payload, prev.decode(), digest, self.principal, seal.decode())
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
    refusals = {name: (f"type: {name} changes money after the fact: ingest stores it only when run for a person "
                       f"holding the permission {permission} (ingest --as USERNAME)")
                for name, permission in AUTHORITY.items() if name not in allowed}
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
                yield decode(view[at + 4:at + 4 + size])
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
    # it instead of spooling them (:func:`_plan_beside_writer`)
    kept: list[list] = field(default_factory=list)
    ids_sorted: bool = True


# while several processes plan: the line the first of them has reached, in shared memory
# that the processes inherit (fork), for the parent's progress bar
_REACHED: Any = None
_REACH_EVERY = 2000


def _reached(number: int) -> None:
    if _REACHED is not None:
        _REACHED.value = number


def _plan_part(path: str, part: int, parts: int, spool_path: str, now: datetime, chunk: int,
               principal: str, checked: Callable[[int], None] | None = None,
               handoff: Callable[[list], None] | None = None, lookups: bool = True, sort_ids: bool = True) -> _Part:
    """One planning process's plan of its streams (``part`` of ``parts``), spooled to
    ``spool_path``; with a ``handoff``, handed to it a chunk at a time and kept in the
    part (``_Part.kept``) instead. ``lookups``: :class:`_Planner`'s."""
    report = IngestReport()
    # every process reads every line (and plans its own), so the first one's place is
    # the whole planning's
    reached = checked if checked is not None else (_reached if part == 0 else None)
    # a large buffer, flushed after each chunk planned: a parent that writes while the
    # processes plan (:func:`_plan_while_writing`) reads the spool as it grows
    with (open(spool_path, "wb", buffering=1 << 20) if handoff is None else contextlib.nullcontext()) as spool:
        planner = _Planner(spool, report, now, principal, spool_path + ".ids", handoff, lookups=lookups,
                           sort_ids=sort_ids)
        with open(path, "rb", buffering=1 << 20) as source:  # (the default's 8 KB: a read a few lines)
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
    return _Part(report, {name for name, state in planner.streams.items() if state.bad}, planner.names,
                 planner.run_files, planner.kept, sort_ids)


def _plan_parts(path: str, parts: int, spools: list[str], now: datetime, chunk: int, principal: str,
                checked: Callable[[int], None] | None) -> list[_Part]:
    """The two-pass ingest's plan: every id looked up, spooled, in this process or in ``parts``."""
    return ([_plan_part(path, 0, 1, spools[0], now, chunk, principal, checked)] if parts == 1
            else _plan_in_processes(path, parts, spools, now, chunk, principal, checked))


def _plan_in_processes(path: str, parts: int, spools: list[str], now: datetime, chunk: int,
                       principal: str, checked: Callable[[int], None] | None = None) -> list[_Part]:
    global _REACHED
    # each process opens its own database connection; none may be inherited open
    connections.close_all()
    context = multiprocessing.get_context("fork")
    _REACHED = context.Value("q", 0, lock=False)
    try:
        with context.Pool(parts) as pool:
            pending = pool.starmap_async(_plan_part, [(path, k, parts, spools[k], now, chunk, principal) for k in range(parts)])
            while not pending.ready():
                pending.wait(0.2)
                if checked is not None:
                    checked(_REACHED.value)
            return pending.get()
    finally:
        _REACHED = None


class _Undo(Exception):
    """The rows written while planning are not to be committed."""


class _Overlapped(NamedTuple):
    """How a write as planned ended (:func:`_plan_while_writing`, :func:`_plan_beside_writer`)."""

    bad: set[str]  # the streams with a bad line
    stored: int | None  # the events committed; None: rolled back, nothing committed
    refused: bool  # rolled back because the database refused a row (a stored id)
    # the planned records, a chunk a list, where no spool has them (beside the writer);
    # None: the spools have them
    kept: list[list] | None


def _plan_while_writing(path: str, parts: int, spools: list[str], now: datetime, chunk: int, principal: str,
                        checked: Callable[[int], None] | None, report: IngestReport) -> _Overlapped:
    """Plan in ``parts`` processes and, as they plan, write their rows in file order in
    one transaction (PostgreSQL), so that the server's share of the work (COPY, the
    indexes, the key table) is done while Python plans rather than after it. Only when
    planning is over is it known whether every stream is good: then the transaction
    commits (the rows and the finished run together: the file's every stream whole, or -
    killed, the database gone - nothing). When any stream has a bad line, a stream has
    moved meanwhile or the database refuses a row, it is rolled back, and the caller
    writes the good streams from the spools as the two-pass ingest does.

    The stored ids of fresh streams are not looked up (:class:`_Planner`'s ``lookups``):
    one stored already is refused by the database, and the caller plans again.

    Returns the streams with a bad line (the parts' findings merged into ``report``)
    and the events stored, or None when nothing was committed."""
    global _REACHED
    connections.close_all()  # each process opens its own database connection
    for spool in spools:
        open(spool, "wb").close()  # there to be followed before its process starts
    context = multiprocessing.get_context("fork")
    _REACHED = context.Value("q", 0, lock=False)
    done: list[list[_Part]] = []
    gathered: list[set[str]] = []

    def planned() -> set[str]:
        """The streams with a bad line as the planners found them, once they are done. An
        id they planned twice (two processes, or two windows of one) is the database's
        unique key's to refuse while the transaction is open (it rolls back as refused);
        once it is rolled back for a bad line, :func:`_repeats` names them too."""
        if not gathered:
            done.append(pending.get())
            gathered.append(_gather(done[0], report))
        return gathered[0]

    def rolled_back() -> set[str]:
        bad = planned()  # (also where the transaction ended before it asked)
        return _repeats(done[0], report, bad)

    try:
        with context.Pool(parts) as pool:
            pending = pool.starmap_async(functools.partial(_plan_part, lookups=False, sort_ids=False),
                                         [(path, k, parts, spools[k], now, chunk, principal) for k in range(parts)])
            records = heapq.merge(*(_followed(spool, pending.ready) for spool in spools), key=lambda r: r[0])
            try:
                stored = _write_whole(path, principal, records, chunk, planned,
                                      lambda: checked(_REACHED.value) if checked else None)
            except IntegrityError:
                return _Overlapped(planned(), None, True, None)
            except (_Undo, _Moved, _Unfinished):
                # _Unfinished: a planning process failed; pending.get() raises its error
                return _Overlapped(rolled_back(), None, False, None)
            return _Overlapped(planned(), stored, False, None)
    finally:
        _REACHED = None


def _write_whole(path: str, principal: str, records: Iterable[list], chunk: int, planned: Callable[[], set[str]],
                 reached: Callable[[], None]) -> int:
    """The transaction written as planned: every planned row (:func:`_write_planned`),
    then - ``planned()``: the streams with a bad line, once planning is over - the
    finished run, committed with them; ``_Undo`` (rolled back) when a stream is bad.
    Returns the rows stored."""
    with transaction.atomic():
        started = datetime.now(UTC)
        stored, line = _write_planned(records, chunk, reached)
        if planned():
            raise _Undo
        run = IngestRun.objects.create(file=os.path.abspath(path), size=os.path.getsize(path),
                                       principal=principal, started_at=started)
        _finished(run, stored=stored, line=line)
    return stored


class _Handoff:
    """The planned records from the planning thread to the writing one, a piece at a
    time, then how planning ended. Bounded: a writer that falls behind holds the planner
    back, so memory stays flat; a writer that fails reads on to the end (:meth:`drain`),
    so the planner is never left waiting."""

    _END = object()

    def __init__(self) -> None:
        self.queue: queue.Queue[Any] = queue.Queue(maxsize=16)
        self.bad: set[str] | None = None  # the streams with a bad line; None: planning failed
        self.read = False  # (the writer's own) every record read

    def put(self, records: list) -> None:
        self.queue.put(records)
        # the planner lets go of the interpreter here, for the writer to take the piece to
        # the server at once: a planner that asks the server nothing else (no lookups of
        # fresh streams' ids) would otherwise hold it for the switch interval (5 ms) and
        # the server would wait
        time.sleep(0)

    def end(self, bad: set[str] | None) -> None:
        self.bad = bad  # before the end is queued: the writer reads it after the end
        self.queue.put(self._END)

    def records(self) -> Iterator[list]:
        while (records := self.queue.get()) is not self._END:
            yield from records
        self.read = True

    def outcome(self) -> set[str]:
        """Once every record is read: the streams with a bad line (``_Undo`` when
        planning failed: nothing is to be committed)."""
        if self.bad is None:
            raise _Undo
        return self.bad

    def drain(self) -> None:
        if not self.read:
            for _ in self.records():
                pass


def _plan_beside_writer(path: str, spool: str, now: datetime, chunk: int, principal: str,
                        checked: Callable[[int], None] | None, report: IngestReport) -> _Overlapped:
    """:func:`_plan_while_writing` with one planner: this process plans (no process to
    start, the caches warm, its connection for the lookups) and a thread writes, on a
    connection of its own, the records handed to it as they are planned, ``_PIECE``
    lines a chunk. The writer's Python is small - it waits on the server, without the GIL - so
    the planner and the server's COPY run side by side on two cores (the interpreter's
    switch interval short meanwhile: :func:`_writer_turns`). The same
    transaction, committed or rolled back as there, and without the lookups of fresh
    streams' ids. Nothing is spooled: the records handed over are kept for the chunked
    write that follows a rollback (a file of at most ``_HERE_MAX`` bytes)."""
    handoff = _Handoff()
    written: dict[str, Any] = {}
    piece = min(chunk, _PIECE)

    def write() -> None:
        try:
            written["stored"] = _write_whole(path, principal, handoff.records(), piece, handoff.outcome,
                                             lambda: None)
        except IntegrityError:
            written["stored"], written["refused"] = None, True
        except (_Undo, _Moved):
            written["stored"] = None
        except BaseException as error:  # noqa: BLE001 - raised again in the planning thread
            written["error"] = error
        finally:
            handoff.drain()
            connection.close()  # this thread's own

    writer = threading.Thread(target=write, name="ingest-writer")
    with _writer_turns():
        writer.start()
        try:
            part = _plan_part(path, 0, 1, spool, now, piece, principal, checked, handoff.put, lookups=False,
                              sort_ids=False)
            bad = _gather([part], report)  # an id planned twice: as in _plan_while_writing
        except BaseException:
            handoff.end(None)
            writer.join()
            raise
        handoff.end(bad)
        writer.join()
    if "error" in written:
        raise written["error"]
    refused = written.get("refused", False)
    if written["stored"] is None and not refused:  # rolled back for a bad line
        bad = _repeats([part], report, bad)
    return _Overlapped(bad, written["stored"], refused, part.kept)


# the interpreter's switch interval while a writing thread works beside the planner: a
# thread that waits for the GIL gets it once the holder has run this long (5 ms by
# default), and the writer takes it a few times a piece (the COPY's start, its rows, the
# server's answer). At the default it waits that long each time, falls behind the planner
# and ends well after planning; at a tenth of it it keeps up (docs/performance.md, "The
# writer's turns")
_WRITER_SWITCH = 0.0005


@contextlib.contextmanager
def _writer_turns() -> Iterator[None]:
    """The switch interval at most :data:`_WRITER_SWITCH` while the block runs; the one
    before it put back after (the setting is the process's)."""
    before = sys.getswitchinterval()
    sys.setswitchinterval(min(before, _WRITER_SWITCH))
    try:
        yield
    finally:
        sys.setswitchinterval(before)


def _write_planned(records: Iterable[list], chunk: int, reached: Callable[[], None]) -> tuple[int, int]:
    """The rows of every stream, in file order, ``chunk`` a COPY, under the append lock
    (held to the commit). Each stream's first version is confirmed free when it first
    comes: under the lock no one else can take one after it. Returns the rows written and
    the last line."""
    take_append_lock()
    seen: set[str] = set()
    rows: list[bytes] = []
    firsts: dict[str, int] = {}
    count = line = 0

    def flush() -> None:
        nonlocal count
        if firsts:
            taken = versions_taken(firsts)
            if taken:
                raise _Moved(taken)
            firsts.clear()
        copy_rows(rows)
        count += len(rows)
        rows.clear()
        reached()

    for number, stream, version, values in records:
        if stream not in seen:
            seen.add(stream)
            firsts[stream] = version
        rows.append(values)
        line = number
        if len(rows) >= chunk:
            flush()
    flush()
    return count, line


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
                    report.bad_lines.append(BadLine(number, f"id: {uuid.UUID(bytes=key)} appears twice in the file"))
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


def ingest_file(
    path: str, *, chunk: int = 5000, progress: Callable[[int], None] | None = None,
    now: datetime | None = None, processes: int | None = None, checked: Callable[[int], None] | None = None,
    principal: str | None = None, overlap: bool | None = None,
) -> IngestReport:
    """Ingest ``path``. On PostgreSQL a file over 4 MB is written while it is planned
    (``overlap``): up to 16 MB, or with ``processes=1``, planned in this process while a
    thread of it writes (:func:`_plan_beside_writer`); larger, planned in child processes
    while this one writes (:func:`_plan_while_writing`): one planning process on a
    two-core machine, two on more, or ``processes``. Otherwise planning runs in
    ``processes`` processes (default: two on a file over 4 MB when the machine has two
    cores, else one, in this process), and the write pass follows it. Always one, in this
    process, inside a transaction (whose uncommitted rows other processes could not see)
    and in a daemon process. ``overlap=True`` writes while planning on any file, in
    ``processes`` or one child process (``processes=1``: this one, a thread writing);
    ``processes=1`` alone plans in this process, then writes.
    ``checked(n)``: the first n lines are checked (called as planning goes, and once at
    its end with every line); ``progress(n)``: n more events were written. ``principal``:
    who ingests (stored and sealed with each row; default ``ingest:<the operating-system
    user>``, an ingest for no one: its money-changing lines are refused, audit.authority)."""
    principal = principal or ingest_principal(getpass.getuser(), None)
    now = (now or datetime.now(UTC)).astimezone(UTC)
    report = IngestReport()
    try:
        # bulk work that makes no cyclic garbage (tested): the collector paused
        # (audit.record.collector); the planning processes forked in it inherit that
        with acyclic_work():
            return _ingest(path, report, chunk, progress, now, processes, checked, principal, overlap)
    except (OperationalError, InterfaceError) as error:
        # a restart, a dropped connection: committed chunks stay, the run's checkpoint
        # says how far it got, and a rerun skips what is stored. (SQLite has no server
        # to lose: its OperationalError is a missing table or a locked file, answered
        # as before.)
        if connection.vendor == "sqlite" and isinstance(error, OperationalError):
            raise
        raise DatabaseLost(report.stored, str(error).strip().splitlines()[0] if str(error).strip() else
                           type(error).__name__) from error


class DatabaseLost(Exception):
    """The database went away during an ingest (a restart, a dropped connection)."""

    def __init__(self, stored: int, detail: str) -> None:
        super().__init__(detail)
        self.stored, self.detail = stored, detail


def _ingest(path: str, report: IngestReport, chunk: int, progress: Callable[[int], None] | None, now: datetime,
            processes: int | None, checked: Callable[[int], None] | None, principal: str,
            overlap: bool | None) -> IngestReport:
    size = os.path.getsize(path)
    large = size > 4 * 2**20
    # (a daemon process, such as a Celery worker's, may not fork children; a caller's open
    # transaction holds rows other processes could not see)
    forks = can_fork() and not connection.in_atomic_block
    if overlap is None:
        overlap = large if processes is None else processes > 1
    overlap = overlap and forks and connection.vendor == "postgresql"
    # one planner in this process, a thread writing beside it (no process started: the
    # fixed cost that matters on a small file) or planners in child processes
    here = overlap and (processes == 1 or (processes is None and size <= _HERE_MAX))
    if here:
        parts = 1
    elif overlap:
        # the parent and its database backend take about half the work: on two cores one
        # planning process beside them keeps both busy, where two would share a core
        parts = processes or max(1, min(2, cpus() - 1))
    else:
        parts = (processes or (min(2, cpus()) if large else 1)) if forks else 1
    with tempfile.TemporaryDirectory(prefix="ingest-") as folder:
        spools = [os.path.join(folder, f"plan-{k}") for k in range(parts)]
        kept: list[list] | None = None  # the records to write, where no spool has them
        if overlap:
            written = (_plan_beside_writer(path, spools[0], now, chunk, principal, checked, report) if here
                       else _plan_while_writing(path, parts, spools, now, chunk, principal, checked, report))
            bad, stored = written.bad, written.stored
            if stored is not None:  # committed: every planned row, the file's whole
                if checked is not None:
                    checked(report.lines)
                report.stored = stored
                if progress is not None and stored:
                    progress(stored)
                if stored:
                    transaction.on_commit(publish)
                return report
            kept = written.kept
            if written.refused:
                # a stored id, which the plan of a fresh stream did not look up: planned
                # again, every id looked up, so that each such line is named as the
                # two-pass ingest names it
                report.lines = report.already_stored = 0
                report.bad_lines.clear()
                bad = _merge(_plan_parts(path, 1 if here else parts, spools, now, chunk, principal, checked), report)
                kept = None
        else:
            bad = _merge(_plan_parts(path, parts, spools, now, chunk, principal, checked), report)
        if checked is not None:
            checked(report.lines)
        for stream in sorted(bad):
            report.failed_streams[stream] = "has bad lines: nothing of it was stored"
        handles = [] if kept is not None else [open(spool, "rb") for spool in spools]  # noqa: SIM115 - closed below
        try:
            records = (itertools.chain.from_iterable(kept) if kept is not None
                       else heapq.merge(*(_spooled(handle) for handle in handles), key=lambda r: r[0]))
            run = _started(path, principal)
            _write(records, report, chunk, progress, run)
            _finished(run, stored=report.stored, line=run.line)
        finally:
            for handle in handles:
                handle.close()
    if report.stored:
        # the feed's subscribers follow (once committed, if a caller's transaction is open)
        transaction.on_commit(publish)
    return report


def _started(path: str, principal: str) -> IngestRun:
    return IngestRun.objects.create(file=os.path.abspath(path), size=os.path.getsize(path), principal=principal,
                                    started_at=datetime.now(UTC))


def _unfinished(file: str | None = None) -> list[tuple[IngestRun, IngestStep | None]]:
    """The runs (of ``file``) whose last step is not a finishing one, each with that step."""
    runs = IngestRun.objects.order_by("started_at", "pk")
    if file is not None:
        runs = runs.filter(file=file)
    last = IngestStep.objects.filter(run=OuterRef("pk")).order_by("-pk")
    runs = runs.annotate(done=Subquery(last.values("finished")[:1])).exclude(done=True)
    return [(run, run.steps.order_by("-pk").first()) for run in runs]


def _finished(run: IngestRun, *, stored: int, line: int) -> None:
    """This run, and any earlier one of the same file left unfinished, is complete: every
    line of the file is stored now, or was refused and reported. A finishing step each,
    in the transaction of the last rows where there is one (the runs are append-only)."""
    now = datetime.now(UTC)
    IngestStep.objects.bulk_create(
        [IngestStep(run=run, stored=stored, line=line, finished=True, at=now)]
        + [IngestStep(run=earlier, stored=step.stored if step else 0, line=step.line if step else 0, finished=True,
                      at=now) for earlier, step in _unfinished(run.file) if earlier.pk != run.pk])


def unfinished_ingests() -> list[str]:
    """One line for each ingest that stopped while writing and was not run again."""
    return [
        f"ingest: {run.file} (started {run.started_at:%Y-%m-%d %H:%M:%S} UTC by {run.principal}) did not finish: "
        f"{step.stored if step else 0:,} events stored, to line {step.line if step else 0}; a stream of it may be "
        f"cut short - run manage.py ingest {run.file} again (what is stored is skipped)"
        for run, step in _unfinished()
    ]


def _write(spooled: Iterable[list], report: IngestReport, chunk: int, progress: Callable[[int], None] | None,
           run: IngestRun) -> None:
    """Pass 2: the planned rows, in file order, ``chunk`` per transaction."""
    records: list[tuple[int, str, int, list[object]]] = []
    for record in spooled:
        if record[1] in report.failed_streams:
            continue
        records.append(record)
        if len(records) >= chunk:
            _write_chunk(records, report, run)
            if progress is not None:
                progress(len(records))
            records = []
    if records:
        _write_chunk(records, report, run)
        if progress is not None:
            progress(len(records))


class _Moved(Exception):
    def __init__(self, streams: set[str]) -> None:
        self.streams = streams


def _write_chunk(records: list, report: IngestReport, run: IngestRun) -> None:
    while records:
        first: dict[str, tuple[int, int]] = {}  # stream -> (its first version here, line)
        for number, stream, version, _ in records:
            first.setdefault(stream, (version, number))
        try:
            with transaction.atomic():
                take_append_lock()
                taken = versions_taken({stream: version for stream, (version, _) in first.items()})
                if taken:
                    raise _Moved(taken)
                rows = [values for *_, values in records]
                if connection.vendor == "postgresql":
                    copy_rows(rows)
                else:
                    insert_values(rows)
                # the checkpoint commits with the rows or not at all
                IngestStep.objects.create(run=run, stored=report.stored + len(rows), line=records[-1][0],
                                          at=datetime.now(UTC))
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
