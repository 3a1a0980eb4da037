"""Ingest's writing: the planned records into the store, and the run's checkpoints.

Two ways, both in file order and both under the store's append lock:

- :func:`_write` - the second pass: the good streams' rows, ``chunk`` per transaction,
  each after one query confirms that no stream has moved on since the plan (a stream
  that has fails from there on, reported with its line), each with a checkpoint step of
  the run (:class:`~audit.models.IngestRun`, :class:`~audit.models.IngestStep`, both
  append-only) in its transaction;
- :func:`_write_whole` - every planned row in one transaction, ``chunk`` a COPY
  (:func:`_write_planned`), committed with its finished run only once planning says
  every stream is good (:mod:`.strategy` writes so while it plans).

:func:`unfinished_ingests` names the runs that stopped while writing (for ``verify``).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable
from datetime import UTC, datetime

from django.db import IntegrityError, connection, transaction
from django.db.models import OuterRef, Subquery

from audit.models import IngestRun, IngestStep
from audit.store.streams import take_append_lock, versions_taken

from ..inserts import copy_rows, insert_values
from .lines import BadLine
from .plan import IngestReport


class _Undo(Exception):
    """The rows written while planning are not to be committed."""


def _write_whole(
    path: str,
    principal: str,
    records: Iterable[list],
    chunk: int,
    planned: Callable[[], set[str]],
    reached: Callable[[], None],
) -> int:
    """The transaction written as planned: every planned row (:func:`_write_planned`),
    then - ``planned()``: the streams with a bad line, once planning is over - the
    finished run, committed with them; ``_Undo`` (rolled back) when a stream is bad.
    Returns the rows stored."""
    with transaction.atomic():
        started = datetime.now(UTC)
        stored, line = _write_planned(records, chunk, reached)
        if planned():
            raise _Undo
        run = IngestRun.objects.create(
            file=os.path.abspath(path),
            size=os.path.getsize(path),
            principal=principal,
            started_at=started,
        )
        _finished(run, stored=stored, line=line)
    return stored


def _write_planned(
    records: Iterable[list], chunk: int, reached: Callable[[], None]
) -> tuple[int, int]:
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


def _started(path: str, principal: str) -> IngestRun:
    return IngestRun.objects.create(
        file=os.path.abspath(path),
        size=os.path.getsize(path),
        principal=principal,
        started_at=datetime.now(UTC),
    )


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
        + [
            IngestStep(
                run=earlier,
                stored=step.stored if step else 0,
                line=step.line if step else 0,
                finished=True,
                at=now,
            )
            for earlier, step in _unfinished(run.file)
            if earlier.pk != run.pk
        ]
    )


def unfinished_ingests() -> list[str]:
    """One line for each ingest that stopped while writing and was not run again."""
    return [
        f"ingest: {run.file} (started {run.started_at:%Y-%m-%d %H:%M:%S} UTC by {run.principal}) did not finish: "
        f"{step.stored if step else 0:,} events stored, to line {step.line if step else 0}; a stream of it may be "
        f"cut short - run manage.py ingest {run.file} again (what is stored is skipped)"
        for run, step in _unfinished()
    ]


def _write(
    spooled: Iterable[list],
    report: IngestReport,
    chunk: int,
    progress: Callable[[int], None] | None,
    run: IngestRun,
) -> None:
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
                IngestStep.objects.create(
                    run=run,
                    stored=report.stored + len(rows),
                    line=records[-1][0],
                    at=datetime.now(UTC),
                )
        except _Moved as moved:
            failed = {
                s: f"version: stream {s} was appended to since this ingest began: "
                f"version {first[s][0]} is taken"
                for s in moved.streams
            }
        except IntegrityError as error:  # an id stored meanwhile by another writer
            reason = str(error).splitlines()[0]
            failed = {s: f"refused by the database: {reason}" for s in first}
        else:
            report.stored += len(records)
            return
        for stream, reason in failed.items():
            number = first[stream][1]
            report.bad_lines.append(BadLine(number, reason))
            report.failed_streams[stream] = (
                f"line {number} refused; the stream was not stored from there on"
            )
        records = [r for r in records if r[1] not in failed]
