"""Celery tasks: thin, they call a service and can run twice safely."""
from __future__ import annotations

import logging
from datetime import date

from celery import shared_task

from . import replay_service
from .verify import verify_chains

log = logging.getLogger(__name__)


@shared_task(name="audit.tasks.verify_chains")
def verify_chains_task(stream: str | None = None) -> dict:
    """Re-hash the chains (periodic, see CELERY_BEAT_SCHEDULE); return the summary."""
    report = verify_chains(stream=stream)
    for problem in report.problems:
        log.error("event chain problem: %s", problem)
    return {
        "streams": report.streams,
        "events": report.events,
        "problems": [str(p) for p in report.problems],
    }


@shared_task(name="audit.tasks.replay_table_day")
def replay_table_day_task(stream: str, day: str | None = None, full: bool = False,
                          parent_id: int | None = None, trigger: str = "task") -> dict:
    """Replay one table's gaming day (every day when ``day`` is None): projections and
    findings. Incremental unless ``full``; running it twice changes nothing."""
    return replay_service.replay_table(
        stream=stream, day=date.fromisoformat(day) if day else None, full=full, trigger=trigger,
        parent_id=parent_id,
    )


@shared_task(name="audit.tasks.replay_day_summary")
def replay_day_summary_task(results: list[dict], parent_id: int) -> dict:
    """The chord's body: the day's summary from every table's."""
    return replay_service.replay_day_finish(parent_id=parent_id, results=results)


@shared_task(bind=True, name="audit.tasks.replay_day")
def replay_day_task(self, day: str, full: bool = False, trigger: str = "task") -> int:
    """Replay every table of gaming day ``day``: one task per table, gathered by a chord.
    Returns the parent run's id (its status becomes ``done`` when the chord ends)."""
    # the sub-tasks go to the queue this task came from (a worker may serve only that one)
    queue = None if self.request.is_eager else (self.request.delivery_info or {}).get("routing_key")
    parent = replay_service.replay_day_launch(day=date.fromisoformat(day), full=full, trigger=trigger, queue=queue)
    return parent.pk


@shared_task(name="audit.tasks.replay_stream")
def replay_stream_task(stream: str) -> dict:
    """Bring a table's projections and findings up to date after an append (enqueued
    on commit by :mod:`audit.subscribers`)."""
    return replay_service.replay_table(stream=stream, trigger="append")


@shared_task(name="audit.tasks.seal_access_log")
def seal_access_log_task() -> dict:
    """Seal the access log's new rows into the record (periodic, see CELERY_BEAT_SCHEDULE)."""
    from .access import access_seal

    sealed = access_seal()
    return {"sealed": None if sealed is None else sealed.payload}
