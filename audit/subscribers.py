"""What happens after an append commits: the read models and findings of the tables
appended to are brought up to date by a Celery task (eager in development, a worker
with a broker). :func:`audit.store.append_checked` registers :func:`after_append` with
``transaction.on_commit``, so nothing is enqueued for an append that rolls back.

``PROJECT_ON_APPEND`` (default on) turns it off, e.g. for a bulk ingest followed by one
``replay_day``. Streams under ``audit.`` (the back-office's own, such as
``audit.findings``) are not tables and are skipped.
"""
from __future__ import annotations

import logging
from collections.abc import Iterable

from django.conf import settings

log = logging.getLogger(__name__)


def after_append(streams: Iterable[str]) -> None:
    if not getattr(settings, "PROJECT_ON_APPEND", True):
        return
    from celery import current_app

    # the project's app (casino.celery makes it every thread's default) and the task by
    # name: audit does not import the app that defines it
    app = current_app._get_current_object()
    task = app.tasks["tables.tasks.replay_stream"]
    for stream in sorted(set(streams)):
        if stream.startswith("audit."):
            continue
        try:
            if app.conf.task_always_eager:
                # apply(), not delay(): the eager path of apply_async flips a process-wide
                # flag ("a join would block") and restores it racily across threads
                task.apply(args=[stream], throw=True)
            else:
                task.delay(stream)
        except Exception:  # the append has committed: a failed projection must not undo it for the caller
            log.exception("bringing the projections of %s up to date failed; replay_day will redo it", stream)
