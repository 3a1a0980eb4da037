"""Replay as a service: fold a table's gaming day through the rules engine, write the
read models (:mod:`tables.projections`) and store the findings (:mod:`audit.findings.workflow`)
in one short transaction per table (the fold itself runs outside it), and keep a
:class:`audit.models.ReplayRun` of it.
It lives in ``tables`` because it drives the rules engine and the projections; audit
keeps the findings table and its services, and knows nothing of replay.

- :func:`replay_table` - one table (stream), one gaming day or every day of it;
  incremental (only what is new since the last replay, refolded from the last shuffle
  checkpoint) or full. Idempotent: a second run finds nothing new and changes nothing.
  Each table-day it wrote is then announced (:data:`audit.feed.subscribers.table_day_replayed`),
  which is how the ledger learns that its replayed win is there.
- :func:`replay_day_start` / :func:`replay_day_finish` - a whole gaming day: a parent run,
  one task per table (``tables.tasks.replay_table_day``) gathered by a Celery chord into
  ``tables.tasks.replay_day_summary``; :func:`replay_day_here` - the same fan-out
  without a broker, in forked processes.

The Celery tasks in :mod:`tables.tasks` only call these.
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

from django.db import transaction
from django.db.models import Count, F

from audit.feed.fanout import default_jobs, fan_out
from audit.feed.readmodels import FoldCache
from audit.feed.subscribers import table_day_announce
from audit.findings.workflow import findings_record
from audit.models import Finding, ReplayRun, openings_on
from audit.record.collector import acyclic_work

from . import floor, projections
from .models import Table

WORKER_LOST = "its worker stopped before the end; the table was replayed again"


def run_start(
    *,
    mode: str,
    trigger: str,
    stream: str = "",
    gaming_day: date | None = None,
    parent: ReplayRun | None = None,
    tables_total: int = 1,
) -> ReplayRun:
    return ReplayRun.objects.create(
        mode=mode,
        trigger=trigger,
        stream=stream,
        gaming_day=gaming_day,
        parent=parent,
        tables_total=tables_total,
        started_at=datetime.now(UTC),
    )


def day_streams(day: date) -> list[str]:
    """The tables that opened on gaming day ``day``."""
    return sorted(set(openings_on(day.isoformat()).values_list("stream", flat=True)))


def replay_table(
    *,
    stream: str,
    day: date | None = None,
    full: bool = False,
    trigger: str = "task",
    parent_id: int | None = None,
    run: ReplayRun | None = None,
    cache: FoldCache | None = None,
) -> dict[str, Any]:
    """Replay one table: its gaming day ``day`` (every day when None). The fold runs
    outside any transaction; the read models and the findings it owns are written
    together in one short transaction (:func:`tables.projections.project_stream`).
    ``cache``: folds kept from earlier runs in this process (the feed's subscriber).
    Returns the run's summary; the run's counters are saved when it ends, and a parent
    day run's ``tables_done`` moves by one."""
    mode = ReplayRun.Mode.FULL if full else ReplayRun.Mode.INCREMENTAL
    parent = ReplayRun.objects.filter(pk=parent_id).first() if parent_id else None
    if parent is not None:
        # a day's table is replayed once per day run. Done already: the task came back
        # (acknowledged late) from a worker that died after the work and before its
        # acknowledgement - the day has counted it, so it is answered, not counted again
        done = ReplayRun.objects.filter(
            parent=parent, stream=stream, status=ReplayRun.Status.DONE
        ).first()
        if done is not None:
            return dict(done.summary)
        # a run of it still "running" is one whose worker died during the work
        ReplayRun.objects.filter(
            parent=parent, stream=stream, status=ReplayRun.Status.RUNNING
        ).update(status=ReplayRun.Status.FAILED, error=WORKER_LOST, finished_at=datetime.now(UTC))
    run = run or run_start(mode=mode, trigger=trigger, stream=stream, gaming_day=day, parent=parent)
    totals = Counter[str]()
    written: set[date] = set()

    def record(fold: projections.TableDayFold) -> None:
        if fold.segment.gaming_day is not None:
            written.add(fold.segment.gaming_day)
        owned = [n for n in fold.rounds if fold.owns_round(n)]
        produced, new, superseded = findings_record(
            stream=stream,
            gaming_day=fold.segment.gaming_day,
            owned_from=fold.owned_from,
            owned_rounds=owned,
            findings=fold.findings,
            run=run,
        )
        totals.update(
            findings=produced, new=new, superseded=superseded, events=fold.events, rounds=len(owned)
        )

    try:
        # a table's fold and its rows make no cyclic garbage (tested): the collector paused
        # until they are let go - the folds are, as this statement ends (audit.record.collector)
        with acyclic_work():
            projections.project_stream(stream, full=full, day=day, cache=cache, record=record)
    except Exception as error:
        ReplayRun.objects.filter(pk=run.pk).update(
            status=ReplayRun.Status.FAILED, error=repr(error)[:2000], finished_at=datetime.now(UTC)
        )
        raise
    events, rounds, produced = totals["events"], totals["rounds"], totals["findings"]
    new, superseded = totals["new"], totals["superseded"]
    if new:
        # a high finding reaches the floor now, from wherever the replay runs (the
        # feed's worker after an append, replay_day): its alert, after the commit
        floor.alerts_from_findings(streams=[stream])
    summary = {
        "run": run.pk,
        "stream": stream,
        "gaming_day": day.isoformat() if day else None,
        "mode": mode,
        "events": events,
        "rounds": rounds,
        "findings": produced,
        "new": new,
        "superseded": superseded,
        "open_by_kind": open_by_kind(stream=stream, day=day),
    }
    # the table's run done and the day's count moved together, or neither: a worker that
    # dies between them leaves the table to be replayed and counted once
    with transaction.atomic():
        ReplayRun.objects.filter(pk=run.pk).update(
            status=ReplayRun.Status.DONE,
            finished_at=datetime.now(UTC),
            tables_done=1,
            events=events,
            rounds=rounds,
            findings=produced,
            findings_new=new,
            findings_superseded=superseded,
            summary=summary,
        )
        if parent is not None:
            ReplayRun.objects.filter(pk=parent.pk).update(
                tables_done=F("tables_done") + 1,
                events=F("events") + events,
                rounds=F("rounds") + rounds,
                findings=F("findings") + produced,
                findings_new=F("findings_new") + new,
                findings_superseded=F("findings_superseded") + superseded,
            )
    _announce(stream, written)
    return summary


def _announce(stream: str, days: set[date]) -> None:
    """Each table-day whose read models this replay wrote, announced with the version
    they now cover (:data:`audit.feed.subscribers.table_day_replayed`: the ledger waits for it)."""
    if not days:
        return
    version = (
        Table.objects.filter(stream=stream).values_list("projected_version", flat=True).first()
    )
    if version is None:
        return
    for day in sorted(days):
        table_day_announce(sender=replay_table, stream=stream, gaming_day=day, version=version)


def open_by_kind(*, stream: str | None = None, day: date | None = None) -> dict[str, int]:
    """Current findings (not superseded) by kind."""
    query = Finding.objects.filter(superseded_by__isnull=True)
    if stream:
        query = query.filter(stream=stream)
    if day:
        query = query.filter(gaming_day=day)
    return dict(sorted(query.values_list("kind").annotate(n=Count("id")).values_list("kind", "n")))


def replay_day_start(
    *, day: date, full: bool = False, streams: list[str] | None = None, trigger: str = "task"
) -> tuple[ReplayRun, list[str]]:
    """The parent run of a whole day and the tables it will replay."""
    streams = day_streams(day) if streams is None else streams
    parent = run_start(
        mode=ReplayRun.Mode.FULL if full else ReplayRun.Mode.INCREMENTAL,
        trigger=trigger,
        gaming_day=day,
        tables_total=len(streams),
    )
    return parent, streams


def replay_day_finish(*, parent_id: int, results: list[dict[str, Any]]) -> dict[str, Any]:
    """The chord's end: gather the tables' summaries into the day's."""
    kinds: Counter[str] = Counter()
    for result in results:
        kinds.update(result["open_by_kind"])
    summary = {
        "run": parent_id,
        "tables": sorted(r["stream"] for r in results),
        "events": sum(r["events"] for r in results),
        "rounds": sum(r["rounds"] for r in results),
        "findings": sum(r["findings"] for r in results),
        "new": sum(r["new"] for r in results),
        "superseded": sum(r["superseded"] for r in results),
        "open_by_kind": dict(sorted(kinds.items())),
    }
    with transaction.atomic():
        ReplayRun.objects.filter(pk=parent_id).update(
            status=ReplayRun.Status.DONE,
            finished_at=datetime.now(UTC),
            summary=summary,
        )
    return summary


def replay_day_here(
    *,
    day: date,
    full: bool = False,
    trigger: str = "command",
    jobs: int = 1,
    progress: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """A whole day without a broker, fanned out as the chord fans it out on workers:
    one :func:`replay_table` per table, in ``jobs`` processes (forked here; each opens
    its own connection), gathered by :func:`replay_day_finish`. ``progress(summary)``
    after each table. Returns the day's summary with its tables' (``_tables``)."""
    parent, streams = replay_day_start(day=day, full=full, trigger=trigger)
    results = _fan_out(
        parent.pk, streams, day=day, full=full, trigger=trigger, jobs=jobs, progress=progress
    )
    return {**replay_day_finish(parent_id=parent.pk, results=results), "_tables": results}


def _fan_out(
    parent_id: int,
    streams: list[str],
    *,
    day: date,
    full: bool,
    trigger: str,
    jobs: int,
    progress: Callable[[dict[str, Any]], None] | None,
) -> list[dict[str, Any]]:
    """Each table of the day's run ``parent_id`` replayed here, in ``jobs`` processes."""
    results: list[dict[str, Any]] = []
    replay = functools.partial(
        _replay_one, day=day, full=full, trigger=trigger, parent_id=parent_id
    )
    for summary in fan_out(replay, streams, jobs=jobs):
        results.append(summary)
        if progress is not None:
            progress(summary)
    return results


def _replay_one(
    stream: str, *, day: date, full: bool, trigger: str, parent_id: int
) -> dict[str, Any]:
    return replay_table(stream=stream, day=day, full=full, trigger=trigger, parent_id=parent_id)


def replay_day_launch(
    *,
    day: date,
    full: bool = False,
    trigger: str = "task",
    queue: str | None = None,
    streams: list[str] | None = None,
    jobs: int | None = None,
) -> ReplayRun:
    """Start a whole day's replay: the parent run, then a chord of one
    ``replay_table_day`` task per table into ``replay_day_summary`` (on ``queue`` if
    given). Eagerly (no broker) it has run to the end when this returns: the tables
    fanned out in ``jobs`` processes here (default :func:`default_jobs`), as
    ``replay_day --jobs`` does, not one after another as an eager chord would run them."""
    from celery import chord, current_app

    # the project's app (casino.celery makes it the default of every thread), and its
    # tasks by name: a shared task's proxy follows the thread's current app, which
    # another Celery app made in this thread (a client) would have replaced
    app = current_app._get_current_object()
    table_task = app.tasks["tables.tasks.replay_table_day"]
    summary_task = app.tasks["tables.tasks.replay_day_summary"]
    parent, streams = replay_day_start(day=day, full=full, streams=streams, trigger=trigger)
    if app.conf.task_always_eager:
        results = _fan_out(
            parent.pk,
            streams,
            day=day,
            full=full,
            trigger=trigger,
            jobs=default_jobs() if jobs is None else jobs,
            progress=None,
        )
        replay_day_finish(parent_id=parent.pk, results=results)
        return parent
    options = {"queue": queue} if queue else {}
    header = [
        table_task.si(s, day.isoformat(), full, parent.pk, trigger).set(**options) for s in streams
    ]
    if header:
        chord(header, app=app)(summary_task.s(parent.pk).set(**options))
    else:
        replay_day_finish(parent_id=parent.pk, results=[])
    return parent
