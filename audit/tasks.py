"""Celery tasks: thin, they call a service and can run twice safely."""

from __future__ import annotations

import logging

from celery import shared_task

from audit.feed.subscribers import catch_up, catch_up_all

log = logging.getLogger(__name__)


@shared_task(name="audit.tasks.verify_chains")
def verify_chains_task() -> dict:
    """Verify the whole store as ``manage.py verify`` does (periodic, see
    CELERY_BEAT_SCHEDULE) - the chains, seals and heads, what protects them, the rows
    people act on against their events, an ingest that stopped - and record every problem
    as a finding (audit.integrity.verification); return the summary, whose problems the floor turns
    into an alert (tables.apps)."""
    from audit.integrity.verification import integrity_verify

    result, _ = integrity_verify()
    problems = [str(p) for p in result.report.problems] + result.problems
    for problem in problems:
        log.error("verification of the record: %s", problem)
    return {"streams": result.report.streams, "events": result.report.events, "problems": problems}


# acknowledged when done: a catch-up whose worker dies is run again (positions move by
# compare-and-set, so running twice does nothing the second time)
@shared_task(name="audit.tasks.catch_up", acks_late=True, reject_on_worker_lost=True)
def catch_up_task(name: str | None = None, upto: int | None = None) -> dict:
    """Bring one subscriber of the feed (every one when ``name`` is None: the periodic
    run, see CELERY_BEAT_SCHEDULE) up to the feed's head. Sent on commit after an
    append with the head then (``upto``). Idempotent: a subscriber already there does
    nothing."""
    if name is None:
        return {done.name: done.position for done in catch_up_all()}
    done = catch_up(name, upto=upto)
    return {done.name: done.position}


@shared_task(name="audit.tasks.seal_access_log")
def seal_access_log_task() -> dict:
    """Seal the access log's new rows into the record (periodic, see CELERY_BEAT_SCHEDULE)."""
    from audit.access.log import access_seal

    sealed = access_seal()
    return {"sealed": None if sealed is None else sealed.payload}


@shared_task(name="audit.tasks.sign_digest")
def sign_digest_task() -> dict:
    """Sign a tree head of the record when it grew since the latest (periodic, see
    CELERY_BEAT_SCHEDULE: the backstop of the signer process, ``manage.py digest --follow``)."""
    from audit.integrity.digests import digest_sign_if_needed

    done = digest_sign_if_needed()
    if done is None:
        return {"signed": False}
    sth, _ = done
    return {"signed": True, "size": sth.size, "root": sth.root.hex(), "key_id": sth.key_id}


@shared_task(name="audit.tasks.make_event_partitions")
def make_event_partitions_task() -> dict:
    """Make the event table's partitions of today and the next EVENT_PARTITIONS_AHEAD
    days where missing (PostgreSQL; periodic, see CELERY_BEAT_SCHEDULE). Idempotent.
    Fails with :class:`audit.store.partitions.PartitionOverlap`'s message (which partition, what
    bounds) when the gaming day's settings changed after partitions were made."""
    from django.db import connection

    from audit.store.partitions import make_ahead

    return {"made": make_ahead(connection)}
