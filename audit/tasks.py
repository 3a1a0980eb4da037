"""Celery tasks: thin, they call a service and can run twice safely."""
from __future__ import annotations

import logging

from celery import shared_task

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
