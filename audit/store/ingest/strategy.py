"""Ingest's strategy: who plans, and whether the rows are written as they are planned.

:func:`ingest_file` chooses (see its docstring for the rule) among:

- *plan, then write* - the two-pass ingest: planning in this process or, on a large
  file, in child processes (:func:`_plan_parts`), then :mod:`.write`'s chunked pass over
  the spools merged back into file order;
- *plan while writing* (PostgreSQL, a file over 16 MB): child processes plan while this
  one writes their rows in one transaction (:func:`_plan_while_writing`);
- *plan beside a writer* (PostgreSQL, a file over 4 MB and up to 16 MB): this process
  plans and a thread of it writes, in the same single transaction, without a process to
  start (:func:`_plan_beside_writer`).

A transaction written as planned commits - rows and finished run together - only once
every line is checked and every stream found good; a bad line, a stream moved meanwhile
or a row the database refuses rolls it back, and the good streams are written from the
spools (or the kept records) as the two-pass ingest writes them; an ingest killed
before the commit has stored nothing.

Planning is CPU work in Python, and each stream's chain must be planned in order; so on
a large file it runs in child processes, each taking whole streams, and the write merges
their spools back into file order: two processes on a two-core machine when the write
pass follows planning; one beside the writing parent when they overlap (its COPY and the
server's work on it are about half the CPU).
"""

from __future__ import annotations

import contextlib
import functools
import getpass
import heapq
import itertools
import os
import queue
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from concurrent import futures
from concurrent.futures import Future, ProcessPoolExecutor
from datetime import UTC, datetime
from typing import Any, NamedTuple

from django.db import (
    IntegrityError,
    InterfaceError,
    OperationalError,
    connection,
    connections,
    transaction,
)

from audit.feed.subscribers import publish
from audit.record.authority import ingest_principal
from audit.record.collector import acyclic_work
from audit.record.processes import can_fork, cpus, process_pool

from .plan import (
    IngestReport,
    _followed,
    _gather,
    _merge,
    _Part,
    _plan_part,
    _reach_shared,
    _repeats,
    _spooled,
    _Unfinished,
)
from .write import _finished, _Moved, _started, _Undo, _write, _write_whole

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


def ingest_file(
    path: str,
    *,
    chunk: int = 5000,
    progress: Callable[[int], None] | None = None,
    now: datetime | None = None,
    processes: int | None = None,
    checked: Callable[[int], None] | None = None,
    principal: str | None = None,
    overlap: bool | None = None,
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
    user>``, an ingest for no one: its money-changing lines are refused, audit.access.authority)."""
    principal = principal or ingest_principal(getpass.getuser(), None)
    now = (now or datetime.now(UTC)).astimezone(UTC)
    report = IngestReport()
    try:
        # bulk work that makes no cyclic garbage (tested): the collector paused
        # (audit.record.collector); the planning processes forked in it inherit that
        with acyclic_work():
            return _ingest(
                path, report, chunk, progress, now, processes, checked, principal, overlap
            )
    except (OperationalError, InterfaceError) as error:
        # a restart, a dropped connection: committed chunks stay, the run's checkpoint
        # says how far it got, and a rerun skips what is stored. (SQLite has no server
        # to lose: its OperationalError is a missing table or a locked file, answered
        # as before.)
        if connection.vendor == "sqlite" and isinstance(error, OperationalError):
            raise
        raise DatabaseLost(
            report.stored,
            str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__,
        ) from error


class DatabaseLost(Exception):
    """The database went away during an ingest (a restart, a dropped connection)."""

    def __init__(self, stored: int, detail: str) -> None:
        super().__init__(detail)
        self.stored, self.detail = stored, detail


def _ingest(
    path: str,
    report: IngestReport,
    chunk: int,
    progress: Callable[[int], None] | None,
    now: datetime,
    processes: int | None,
    checked: Callable[[int], None] | None,
    principal: str,
    overlap: bool | None,
) -> IngestReport:
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
            written = (
                _plan_beside_writer(path, spools[0], now, chunk, principal, checked, report)
                if here
                else _plan_while_writing(
                    path, parts, spools, now, chunk, principal, checked, report
                )
            )
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
                bad = _merge(
                    _plan_parts(path, 1 if here else parts, spools, now, chunk, principal, checked),
                    report,
                )
                kept = None
        else:
            bad = _merge(_plan_parts(path, parts, spools, now, chunk, principal, checked), report)
        if checked is not None:
            checked(report.lines)
        for stream in sorted(bad):
            report.failed_streams[stream] = "has bad lines: nothing of it was stored"
        handles = [] if kept is not None else [open(spool, "rb") for spool in spools]  # noqa: SIM115 - closed below
        try:
            records = (
                itertools.chain.from_iterable(kept)
                if kept is not None
                else heapq.merge(*(_spooled(handle) for handle in handles), key=lambda r: r[0])
            )
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


def _plan_parts(
    path: str,
    parts: int,
    spools: list[str],
    now: datetime,
    chunk: int,
    principal: str,
    checked: Callable[[int], None] | None,
) -> list[_Part]:
    """The two-pass ingest's plan: every id looked up, spooled, in this process or in ``parts``."""
    return (
        [_plan_part(path, 0, 1, spools[0], now, chunk, principal, checked)]
        if parts == 1
        else _plan_in_processes(path, parts, spools, now, chunk, principal, checked)
    )


def _plan_in_processes(
    path: str,
    parts: int,
    spools: list[str],
    now: datetime,
    chunk: int,
    principal: str,
    checked: Callable[[int], None] | None = None,
) -> list[_Part]:
    # each process opens its own database connection; none may be inherited open
    connections.close_all()
    with _reach_shared() as reached, _planners(parts) as pool:
        pending = [
            pool.submit(_plan_part, path, k, parts, spools[k], now, chunk, principal)
            for k in range(parts)
        ]
        while not _all_planned(pending):
            futures.wait(pending, 0.2)
            if checked is not None:
                checked(reached.value)
        return [part.result() for part in pending]


def _planners(parts: int) -> ProcessPoolExecutor:
    """The pool of ``parts`` planning processes: forked (they inherit the shared
    progress, :func:`.plan._reach_shared`, and Django's set-up)."""
    pool = process_pool(parts)
    assert pool is not None, "_ingest plans in processes only where this one may fork"
    return pool


def _all_planned(pending: list[Future[_Part]]) -> bool:
    return all(part.done() for part in pending)


class _Overlapped(NamedTuple):
    """How a write as planned ended (:func:`_plan_while_writing`, :func:`_plan_beside_writer`)."""

    bad: set[str]  # the streams with a bad line
    stored: int | None  # the events committed; None: rolled back, nothing committed
    refused: bool  # rolled back because the database refused a row (a stored id)
    # the planned records, a chunk a list, where no spool has them (beside the writer);
    # None: the spools have them
    kept: list[list] | None


def _plan_while_writing(
    path: str,
    parts: int,
    spools: list[str],
    now: datetime,
    chunk: int,
    principal: str,
    checked: Callable[[int], None] | None,
    report: IngestReport,
) -> _Overlapped:
    """Plan in ``parts`` processes and, as they plan, write their rows in file order in
    one transaction (PostgreSQL), so that the server's share of the work (COPY, the
    indexes, the key table) is done while Python plans rather than after it. Only when
    planning is over is it known whether every stream is good: then the transaction
    commits (the rows and the finished run together: the file's every stream whole, or -
    killed, the database gone - nothing). When any stream has a bad line, a stream has
    moved meanwhile or the database refuses a row, it is rolled back, and the caller
    writes the good streams from the spools as the two-pass ingest does.

    The stored ids of fresh streams are not looked up (:class:`.plan._Planner`'s ``lookups``):
    one stored already is refused by the database, and the caller plans again.

    Returns the streams with a bad line (the parts' findings merged into ``report``)
    and the events stored, or None when nothing was committed."""
    connections.close_all()  # each process opens its own database connection
    for spool in spools:
        open(spool, "wb").close()  # there to be followed before its process starts
    done: list[list[_Part]] = []
    gathered: list[set[str]] = []

    def planned() -> set[str]:
        """The streams with a bad line as the planners found them, once they are done. An
        id they planned twice (two processes, or two windows of one) is the database's
        unique key's to refuse while the transaction is open (it rolls back as refused);
        once it is rolled back for a bad line, :func:`.plan._repeats` names them too."""
        if not gathered:
            done.append([part.result() for part in pending])
            gathered.append(_gather(done[0], report))
        return gathered[0]

    def rolled_back() -> set[str]:
        bad = planned()  # (also where the transaction ended before it asked)
        return _repeats(done[0], report, bad)

    with _reach_shared() as reached, _planners(parts) as pool:
        pending = [
            pool.submit(
                _plan_part,
                path,
                k,
                parts,
                spools[k],
                now,
                chunk,
                principal,
                lookups=False,
                sort_ids=False,
            )
            for k in range(parts)
        ]
        finished = functools.partial(_all_planned, pending)
        records = heapq.merge(*(_followed(spool, finished) for spool in spools), key=lambda r: r[0])
        try:
            stored = _write_whole(
                path,
                principal,
                records,
                chunk,
                planned,
                lambda: checked(reached.value) if checked else None,
            )
        except IntegrityError:
            return _Overlapped(planned(), None, True, None)
        except (_Undo, _Moved, _Unfinished):
            # _Unfinished: a planning process failed; its result() raises its error
            return _Overlapped(rolled_back(), None, False, None)
        return _Overlapped(planned(), stored, False, None)


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


def _plan_beside_writer(
    path: str,
    spool: str,
    now: datetime,
    chunk: int,
    principal: str,
    checked: Callable[[int], None] | None,
    report: IngestReport,
) -> _Overlapped:
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
            written["stored"] = _write_whole(
                path, principal, handoff.records(), piece, handoff.outcome, lambda: None
            )
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
            part = _plan_part(
                path,
                0,
                1,
                spool,
                now,
                piece,
                principal,
                checked,
                handoff.put,
                lookups=False,
                sort_ids=False,
            )
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
