"""The global feed's subscribers: read models, replays and reconciliations follow the
store; the store knows nothing of them.

- **Registering.** An app registers its subscribers from its ``AppConfig.ready()``:
  ``register(Subscriber("tables.projections", handle))``. Audit imports no app above it.
- **Publishing.** After an append commits (the API, :func:`audit.store.streams.events_append`,
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
- **One table never stops the others.** A subscriber that follows tables
  (:func:`each_table`) does every table of a batch even when one fails. A table that
  fails ``SET_ASIDE_AFTER_FAILURES`` runs in a row (an event its read model cannot apply:
  one stored past the catalogue's checks, say) is *set aside* for that subscriber, with a
  critical finding (``stream_set_aside``): the batch is then done, the position moves, and
  later batches leave that table where its read model stopped. It is taken back when a
  batch brings it a ``correction.recorded`` (one that strikes the event the read model
  could not apply) and it then applies, or by ``manage.py catch_up --take-back TABLE``; the
  finding is then superseded. A database that does not answer is no table's fault: such
  a failure is never counted. Tested in ``tests/back_office/test_set_aside.py``.
- **Announcing.** One app's read model reaches another's as an announcement, never as a
  call across apps: :data:`table_day_replayed` (``stream``, ``gaming_day``, ``version``)
  is sent by the tables' replay once the read models of that table-day are written, up to
  stream version ``version`` (:func:`tables.replay_service.replay_table`), and the ledger
  reconciles again the days of that table still waiting for their replay
  (``ledger.apps``). So the order the subscribers run in matters for speed only: where
  the ledger runs first, its days wait (state ``replay_pending``) until the announcement.
  Receivers run in the sender's process and transaction; one that fails is logged, never
  raised into the replay. Tested in ``tests/ledger/test_replay_announced.py``.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime

from django.conf import settings
from django.db import InterfaceError, OperationalError
from django.db.models import Max, Min
from django.dispatch import Signal

from audit.models import Event, StreamFailure, SubscriberPosition

from .fanout import fan_out

log = logging.getLogger(__name__)

# tables -> whom it may concern: "the read models of ``stream``'s ``gaming_day`` (a date)
# are written up to stream version ``version``" (see the module's docstring)
table_day_replayed = Signal()


def table_day_announce(*, sender: object, stream: str, gaming_day: date, version: int) -> None:
    """Send :data:`table_day_replayed`; a receiver that fails is logged (the replay it
    announces is done and stays done)."""
    for receiver, result in table_day_replayed.send_robust(
        sender, stream=stream, gaming_day=gaming_day, version=version
    ):
        if isinstance(result, Exception):
            log.error(
                "%r failed on the replay of %s %s up to version %d",
                receiver,
                stream,
                gaming_day,
                version,
                exc_info=result,
            )


@dataclass(frozen=True, slots=True)
class Batch:
    """The events with a position in ``after`` < position <= ``upto``; ``jobs``: how many
    processes may take its tables (:func:`each_table`); ``subscriber``: whose batch it is
    (the tables it set aside are its own); ``tables``: these streams, whatever the
    positions touch (a take-back)."""

    after: int
    upto: int
    jobs: int = 1
    subscriber: str = ""
    tables: tuple[str, ...] | None = None

    def streams(self) -> list[str]:
        """The streams the batch touches, sorted."""
        if self.tables is not None:
            return sorted(self.tables)
        rows = Event.objects.filter(position__gt=self.after, position__lte=self.upto)
        return sorted(set(rows.order_by().values_list("stream", flat=True).distinct()))

    def corrected(self, streams: Collection[str]) -> set[str]:
        """Those of ``streams`` to which the batch brings a ``correction.recorded``."""
        rows = Event.objects.filter(
            position__gt=self.after,
            position__lte=self.upto,
            stream__in=list(streams),
            type="correction.recorded",
        )
        return set(rows.order_by().values_list("stream", flat=True).distinct())

    def first_versions(self, streams: Collection[str]) -> dict[str, int]:
        """Each of ``streams``' first version in the batch."""
        rows = Event.objects.filter(
            position__gt=self.after, position__lte=self.upto, stream__in=list(streams)
        )
        return dict(
            rows.order_by()
            .values("stream")
            .annotate(first=Min("version"))
            .values_list("stream", "first")
        )

    def events(self, *, chunk_size: int = 2000) -> Iterator[Event]:
        """The batch's events in position order, in constant memory."""
        rows = Event.objects.filter(position__gt=self.after, position__lte=self.upto).order_by(
            "position"
        )
        return rows.iterator(chunk_size=chunk_size)


class TablesFailed(Exception):
    """Some tables of a batch failed (each named with its error); the others were done."""


# a database that does not answer (a restart, a dropped connection): no table's fault
DATABASE_GONE = (OperationalError, InterfaceError)


def each_table(batch: Batch, handle: Callable[[str], object], *, what: str) -> None:
    """Run ``handle(stream)`` for every table whose stream the batch touches (streams
    under ``audit.``, the back-office's own, are not tables). A table that fails does not
    stop the others; then the batch fails as a whole, naming them, so that the subscriber
    keeps its position and the next run retries - the tables already done find nothing
    new - unless the failing tables are set aside: a table that failed
    ``SET_ASIDE_AFTER_FAILURES`` runs in a row is, and a set-aside table is left out of
    the batches of its subscriber (``batch.subscriber``) but for one that brings it a
    correction (see the module's docstring). With ``batch.jobs`` above 1 the tables are
    taken by that many processes (:func:`audit.feed.fanout.fan_out`)."""

    def one(stream: str) -> tuple[str, str, bool] | None:
        try:
            handle(stream)
        except Exception as error:
            log.exception("%s of %s failed", what, stream)
            return stream, repr(error), isinstance(error, DATABASE_GONE)
        return None

    tables = [stream for stream in batch.streams() if not stream.startswith("audit.")]
    known = failures_of(batch.subscriber) if batch.subscriber else {}
    aside = {stream for stream, row in known.items() if row.set_aside_at is not None}
    if aside and batch.tables is None:
        retried = batch.corrected(aside & set(tables))
        tables = [stream for stream in tables if stream not in aside or stream in retried]
    failed = {
        stream: (text, gone)
        for stream, text, gone in (
            result for result in fan_out(one, tables, jobs=batch.jobs) if result is not None
        )
    }
    failing = [stream for stream, (_, gone) in failed.items() if gone]
    if batch.subscriber:
        followed = [stream for stream in tables if stream in known and stream not in failed]
        if followed:
            _followed(batch.subscriber, followed)
        counted = {stream: text for stream, (text, gone) in failed.items() if not gone}
        if counted:
            failing += _failed(batch, counted, known)
    else:
        failing = list(failed)
    if failing:
        raise TablesFailed(
            f"{what}: " + "; ".join(f"{stream}: {failed[stream][0]}" for stream in sorted(failing))
        )


def failures_of(subscriber: str) -> dict[str, StreamFailure]:
    """The tables ``subscriber`` failed to follow lately, or set aside, by stream."""
    return {row.stream: row for row in StreamFailure.objects.filter(subscriber=subscriber)}


def _failed(batch: Batch, errors: dict[str, str], known: dict[str, StreamFailure]) -> list[str]:
    """Count one more failure of each of ``errors``' tables (stream -> the error); set
    aside those that reach ``SET_ASIDE_AFTER_FAILURES``, with their finding. Returns the
    tables that still fail the batch (not set aside)."""
    now = datetime.now(UTC)
    firsts = batch.first_versions([s for s in errors if s not in known])
    still = []
    for stream, error in sorted(errors.items()):
        row = known.get(stream) or StreamFailure(
            subscriber=batch.subscriber,
            stream=stream,
            first_failed_at=now,
            from_version=firsts.get(stream),
        )
        row.failures += 1
        row.error = error[:2000]
        if row.set_aside_at is None and row.failures >= settings.SET_ASIDE_AFTER_FAILURES:
            row.set_aside_at = now
            row.save()
            _finding(row, now)
            log.error(
                "%s: table %s set aside after %d failures: %s",
                batch.subscriber,
                stream,
                row.failures,
                error,
            )
        else:
            row.save()
        if row.set_aside_at is None:
            still.append(stream)
    return still


def _followed(subscriber: str, streams: list[str]) -> None:
    """The tables of ``streams`` that ``subscriber`` follows again: forgotten as failed,
    a set-aside one taken back (its finding superseded)."""
    rows = StreamFailure.objects.filter(subscriber=subscriber, stream__in=streams)
    aside = list(rows.filter(set_aside_at__isnull=False).values_list("stream", flat=True))
    rows.delete()
    now = datetime.now(UTC)
    for stream in aside:
        _finding(
            StreamFailure(subscriber=subscriber, stream=stream, first_failed_at=now), now, gone=True
        )
        log.warning("%s: table %s taken back", subscriber, stream)


def _finding(row: StreamFailure, now: datetime, *, gone: bool = False) -> None:
    """The critical finding of a table set aside (``gone``: superseded, it was taken back)."""
    # (here, not at the top: audit.findings.workflow appends through the store, which publishes here)
    from audit.findings.workflow import findings_record_feed
    from audit.record.findings import Finding

    if gone:
        findings_record_feed(
            stream=row.stream, subscriber=row.subscriber, finding=None, version=None, now=now
        )
        return
    event = None
    if row.from_version is not None:
        found = (
            Event.objects.filter(stream=row.stream, version=row.from_version)
            .values_list("event_id", flat=True)
            .first()
        )
        event = str(found) if found is not None else None
    where = f" from version {row.from_version}" if row.from_version is not None else ""
    message = (
        f"The read model {row.subscriber} could not apply table {row.stream}'s events{where} "
        f"({row.failures} runs in a row: {row.error[:300]}). The table is set aside: this read model of it "
        f"stays where it stopped while every other table goes on, until a correction recorded in its "
        f"stream (striking the event) or catch_up --take-back takes it back."
    )
    findings_record_feed(
        stream=row.stream,
        subscriber=row.subscriber,
        version=row.from_version,
        now=now,
        finding=Finding("stream_set_aside", message, expected=row.subscriber, event=event),
    )


def take_back(name: str, stream: str) -> bool:
    """Follow ``stream`` again in subscriber ``name`` at once (``manage.py catch_up
    --take-back``): True when its read model now applies it (the finding superseded);
    False when it still fails (set aside again) - or LookupError when it is not set aside."""
    follower = subscriber(name)
    row = StreamFailure.objects.filter(
        subscriber=name, stream=stream, set_aside_at__isnull=False
    ).first()
    if row is None:
        raise LookupError(f"{stream} is not set aside by {name}")
    at = Event.objects.filter(stream=stream).aggregate(head=Max("position"))["head"] or 0
    try:
        # a batch of this table alone: it fails as a set-aside table's does, counted and kept
        # aside (each_table raises only for a database that does not answer)
        follower.handle(Batch(max(at - 1, 0), at, subscriber=name, tables=(stream,)))
    except Exception:  # the database did not answer: still set aside
        log.exception("%s: taking %s back failed", name, stream)
    return not StreamFailure.objects.filter(subscriber=name, stream=stream).exists()


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
    app's read models follow those of the apps it builds on. Correctness does not hang on
    it: the ledger's days that find the tables' replay behind wait for its announcement
    (:data:`table_day_replayed`); run in this order they never have to."""
    return list(_REGISTRY.values())


def subscriber(name: str) -> Subscriber:
    try:
        return _REGISTRY[name]
    except KeyError:
        raise LookupError(
            f"no subscriber {name!r}; registered: {', '.join(sorted(_REGISTRY)) or 'none'}"
        ) from None


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


def catch_up(
    name: str,
    *,
    upto: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    most: int | None = None,
    jobs: int = 1,
) -> CaughtUp:
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
            follower.handle(Batch(position, end, jobs, subscriber=name))
        except Exception as error:
            SubscriberPosition.objects.filter(name=name).update(
                error=repr(error)[:2000], failed_at=datetime.now(UTC)
            )
            raise
        batches += 1
        moved = SubscriberPosition.objects.filter(name=name, position=position).update(
            position=end,
            updated_at=datetime.now(UTC),
            error="",
            failed_at=None,
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
            log.exception(
                "subscriber %s failed; it keeps its position and is retried", follower.name
            )
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
            log.exception(
                "subscriber %s failed after an append; it keeps its position and is retried",
                follower.name,
            )
