"""Celery tasks of the tables: replays. Thin: ids and dates in, a service call
(:mod:`tables.replay_service`), a JSON summary out; running one twice changes nothing."""

from __future__ import annotations

from datetime import date

from celery import shared_task

from . import replay_service


# acknowledged when done, not when received, and given back when the worker process
# dies under it: a table whose worker is killed mid-replay is replayed by another (the
# replay is idempotent: the same rows, the same findings)
@shared_task(name="tables.tasks.replay_table_day", acks_late=True, reject_on_worker_lost=True)
def replay_table_day_task(
    stream: str,
    day: str | None = None,
    full: bool = False,
    parent_id: int | None = None,
    trigger: str = "task",
) -> dict:
    """Replay one table's gaming day (every day when ``day`` is None): projections and
    findings. Incremental unless ``full``; running it twice changes nothing."""
    return replay_service.replay_table(
        stream=stream,
        day=date.fromisoformat(day) if day else None,
        full=full,
        trigger=trigger,
        parent_id=parent_id,
    )


@shared_task(name="tables.tasks.replay_day_summary", acks_late=True, reject_on_worker_lost=True)
def replay_day_summary_task(results: list[dict], parent_id: int) -> dict:
    """The chord's body: the day's summary from every table's."""
    return replay_service.replay_day_finish(parent_id=parent_id, results=results)


@shared_task(bind=True, name="tables.tasks.replay_day")
def replay_day_task(
    self, day: str, full: bool = False, trigger: str = "task", jobs: int | None = None
) -> int:
    """Replay every table of gaming day ``day``: one task per table, gathered by a chord.
    Returns the parent run's id (its status becomes ``done`` when the chord ends).
    Without a broker (eager) the tables are replayed in ``jobs`` processes here
    (default: one per core on PostgreSQL, one on SQLite)."""
    # the sub-tasks go to the queue this task came from (a worker may serve only that one)
    queue = None if self.request.is_eager else (self.request.delivery_info or {}).get("routing_key")
    parent = replay_service.replay_day_launch(
        day=date.fromisoformat(day), full=full, trigger=trigger, queue=queue, jobs=jobs
    )
    return parent.pk


@shared_task(name="tables.tasks.floor_check")
def floor_check_task() -> dict:
    """The floor's periodic check (see CELERY_BEAT_SCHEDULE): alerts for silent tables
    and for findings that have none yet. Idempotent."""
    from . import floor

    return floor.floor_check()
