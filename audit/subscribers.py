"""The global feed's subscribers: read models, replays and reconciliations follow the
store; the store knows nothing of them.

- **Registering.** An app registers its subscribers from its ``AppConfig.ready()``:
  ``register(Subscriber("tables.projections", handle))``. Audit imports no app above it.
- **Publishing.** After an append commits (the API, :func:`audit.store.events_append`,
  the findings' actions) and after a bulk ingest, the store calls :func:`publish`
  (``transaction.on_commit``: nothing is published for an append that rolls back). It
  enqueues, per subscriber, the Celery task ``audit.tasks.catch_up`` with the feed's
  head, "appended up to position N" (eagerly in-process without a broker; on a worker
  with one). ``PROJECT_ON_APPEND=false`` publishes nothing: the periodic task
  (``CATCH_UP_EVERY_SECONDS``) or ``manage.py catch_up`` brings the subscribers up.
- **Following.** :func:`catch_up` reads the feed after the subscriber's position
  (``position > N``, in order: the store hands positions out in commit order under its
  append lock, so nothing can commit behind a position already seen), hands it to the
  subscriber a batch at a time, and after each batch moves the position by
  compare-and-set. A subscriber that fails keeps its position: the next publish, run or
  periodic task retries it. So a subscriber catches up after a crash, a restart or a
  bulk ingest, and a handler must be idempotent (it may see a batch twice).
"""
from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime

from django.conf import settings
from django.db.models import Max

from .fanout import fan_out
from .models import Event, SubscriberPosition

log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class Batch:
    """The events with a position in ``after`` < position <= ``upto``; ``jobs``: how many
    processes may take its tables (:func:`each_table`)."""

    after: int
    upto: int
    jobs: int = 1

    def streams(self) -> list[str]:
        """The streams the batch touches, sorted."""
        rows = Event.objects.filter(position__gt=self.after, position__lte=self.upto)
        return sorted(set(rows.order_by().values_list("stream", flat=True).distinct()))

    def events(self, *, chunk_size: int = 2000) -> Iterator[Event]:
        """The batch's events in position order, in constant memory."""
        rows = Event.objects.filter(position__gt=self.after, position__lte=self.upto).order_by("position")
        return rows.iterator(chunk_size=chunk_size)


class TablesFailed(Exception):
    """Some tables of a batch failed (each named with its error); the others were done."""


def each_table(batch: Batch, handle: Callable[[str], object], *, what: str) -> None:
    """Run ``handle(stream)`` for every table whose stream the batch touches (streams
    under ``audit.``, the back-office's own, are not tables). A table that fails does not
    stop the others; then the batch fails as a whole, naming them, so that the subscriber
    keeps its position and the next run retries - the tables already done find nothing
    new. With ``batch.jobs`` above 1 the tables are taken by that many processes
    (:func:`audit.fanout.fan_out`)."""

    def one(stream: str) -> str | None:
        try:
            handle(stream)
        except Exception as error:
            log.exception("%s of %s failed", what, stream)
            return f"{stream}: {error!r}"
        return None

    tables = [stream for stream in batch.streams() if not stream.startswith("audit.")]
    failed = [error for error in fan_out(one, tables, jobs=batch.jobs) if error is not None]
    if failed:
        raise TablesFailed(f"{what}: " + "; ".join(failed))


@dataclass(frozen=True, slots=True)
class Subscriber:
    """``handle(batch)`` processes a batch or raises (the position then stays).
    ``batch_size``: the most positions a batch spans; None: up to the head in one (a
    subscriber that reads only which streams moved)."""

    name: str
    handle: Callable[[Batch], None]
    batch_size: int | None = None


_REGISTRY: dict[str, Subscriber] = {}


def register(subscriber: Subscriber) -> None:
    """Add (or replace, by name) a subscriber; call from ``AppConfig.ready()``."""
    _REGISTRY[subscriber.name] = subscriber


def registered() -> list[Subscriber]:
    """In the order they were registered: the order of their apps in ``INSTALLED_APPS``,
    so that where they run one after another (eagerly, or one catch-up of them all) an
    app's read models follow those of the apps it builds on (the ledger's replayed win is
    the tables' replay)."""
    return list(_REGISTRY.values())


def subscriber(name: str) -> Subscriber:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise LookupError(f"no subscriber {name!r}; registered: {', '.join(sorted(_REGISTRY)) or 'none'}") from None


def feed_head() -> int:
    """The position of the last event stored (0 for an empty store)."""
    return Event.objects.aggregate(head=Max("position"))["head"] or 0


def position_of(name: str) -> int:
    row, _ = SubscriberPosition.objects.get_or_create(name=name)
    return row.position


@dataclass(frozen=True, slots=True)
class CaughtUp:
    name: str
    start: int  # the position it started from
    position: int  # the position it reached
    batches: int


def catch_up(name: str, *, upto: int | None = None, progress: Callable[[int, int], None] | None = None,
             most: int | None = None, jobs: int = 1) -> CaughtUp:
    """Bring subscriber ``name`` up to the feed's head. ``upto``: the head a publisher
    saw; a subscriber already there has nothing to do (with a broker, the tasks of a
    burst of appends find their work done by the first). Raises what the subscriber
    raised, its position kept at the last batch it finished; the failure is recorded on
    its row until a later success. ``progress(position, head)`` after each batch;
    ``most``: the most positions a batch spans when the subscriber sets no limit (a
    command's progress bar moves per batch). ``jobs``: processes that may take a batch's
    tables (a bulk catch-up of a whole day, in one batch: a process keeps no folds of what
    it did for the next batch, so many small batches are better taken here)."""
    follower = subscriber(name)
    start = position = position_of(name)
    if upto is not None and position >= upto:
        return CaughtUp(name, start, position, 0)
    head = feed_head()
    batches = 0
    size = follower.batch_size or most
    while position < head:
        end = head if size is None else min(head, position + size)
        try:
            follower.handle(Batch(position, end, jobs))
        except Exception as error:
            SubscriberPosition.objects.filter(name=name).update(error=repr(error)[:2000], failed_at=datetime.now(UTC))
            raise
        batches += 1
        moved = SubscriberPosition.objects.filter(name=name, position=position).update(
            position=end, updated_at=datetime.now(UTC), error="", failed_at=None,
        )
        if not moved:
            # another run of the same subscriber got further first: go on from where it is
            # (what this one did twice was idempotent)
            position = max(position_of(name), position)
        else:
            position = end
        if progress is not None:
            progress(position, head)
    return CaughtUp(name, start, position, batches)


def catch_up_all() -> list[CaughtUp]:
    """Every registered subscriber; one that fails is logged and the others go on.
    Raises nothing (the periodic task and the after-append path call it)."""
    done = []
    for follower in registered():
        try:
            done.append(catch_up(follower.name))
        except Exception:
            log.exception("subscriber %s failed; it keeps its position and is retried", follower.name)
    return done


def publish() -> None:
    """The store's "appended up to position N" (on commit). Enqueues one catch-up per
    subscriber; without ``PROJECT_ON_APPEND`` nothing. A subscriber's failure is logged,
    never raised: the events are committed and the caller's append succeeded."""
    if not settings.PROJECT_ON_APPEND or not _REGISTRY:
        return
    from celery import current_app

    # the project's app (casino.celery makes it every thread's default) and the task by
    # name, so that this module needs neither the app's module nor the tasks'
    app = current_app._get_current_object()
    task = app.tasks["audit.tasks.catch_up"]
    head = feed_head()
    for follower in registered():
        try:
            if app.conf.task_always_eager:
                # apply(), not delay(): the eager path of apply_async flips a process-wide
                # flag ("a join would block") and restores it racily across threads
                task.apply(args=[follower.name, head], throw=True)
            else:
                task.delay(follower.name, head)
        except Exception:
            log.exception("subscriber %s failed after an append; it keeps its position and is retried", follower.name)
