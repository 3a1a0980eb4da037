"""Two writers racing on separate connections: the store lets exactly one win."""

from __future__ import annotations

import threading

import pytest
from django.db import connection, connections

from audit.models import Event
from audit.store.errors import VersionConflict
from audit.store.streams import events_append
from tests.samples import round_events, table_opened


@pytest.fixture
def postgres_only():
    if connection.vendor != "postgresql":
        pytest.skip(
            "real concurrent connections need PostgreSQL: run with DATABASE_URL=postgresql://..."
        )


def _race(writers):
    barrier = threading.Barrier(len(writers))
    outcomes: list[object] = [None] * len(writers)

    def run(index, work):
        try:
            barrier.wait()
            outcomes[index] = work()
        except Exception as error:  # noqa: BLE001 - whatever a writer raised is its outcome, asserted by the test
            outcomes[index] = error
        finally:
            connections.close_all()

    threads = [threading.Thread(target=run, args=(i, w)) for i, w in enumerate(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return outcomes


@pytest.mark.django_db(transaction=True)
def test_two_writers_at_the_same_expected_version_exactly_one_wins(postgres_only):
    """Both expect version 1; one appends its round, the other gets the conflict naming
    the version the winner left; no gap, no duplicate."""
    events_append(stream="T1", expected_version=0, events=[table_opened("T1")])
    for attempt in range(5):
        first, second = round_events(2 * attempt + 1), round_events(2 * attempt + 2)
        start = Event.objects.filter(stream="T1").count()
        outcomes = _race(
            [
                lambda v=start, e=first: events_append(stream="T1", expected_version=v, events=e),
                lambda v=start, e=second: events_append(stream="T1", expected_version=v, events=e),
            ]
        )
        winners = [o for o in outcomes if isinstance(o, list)]
        losers = [o for o in outcomes if isinstance(o, VersionConflict)]
        assert len(winners) == 1 and len(losers) == 1, outcomes
        assert losers[0].current == start + 25
        versions = list(
            Event.objects.filter(stream="T1").order_by("version").values_list("version", flat=True)
        )
        assert versions == list(range(1, start + 26))


@pytest.mark.django_db(transaction=True)
def test_a_feed_follower_never_skips_an_event_that_committed_late(postgres_only):
    """Four writers append to four tables while a follower polls ``position > last``.
    Had any event committed after one with a higher position, the follower would have
    stepped over it; so everything it collected must be everything stored."""
    from audit.store.streams import feed_after

    collected: list[int] = []
    stop = threading.Event()

    def poll_once() -> None:
        rows = feed_after(collected[-1] if collected else 0, limit=1000)
        collected.extend(row.position for row in rows)

    def follow():
        try:
            while not stop.is_set():
                poll_once()
            poll_once()
        finally:
            connections.close_all()

    reader = threading.Thread(target=follow)
    reader.start()
    try:
        outcomes = _race(
            [
                (
                    lambda s=s: [
                        events_append(stream=s, expected_version=25 * r, events=round_events(r + 1))
                        for r in range(20)
                    ]
                )
                for s in ("A", "B", "C", "D")
            ]
        )
    finally:
        stop.set()
        reader.join(timeout=30)
    assert all(isinstance(o, list) for o in outcomes), outcomes
    stored = list(Event.objects.order_by("position").values_list("position", flat=True))
    assert len(stored) == 4 * 20 * 25
    assert collected == stored


@pytest.mark.django_db(transaction=True)
def test_the_same_batch_sent_twice_at_once_answers_the_stored_events_both_times(postgres_only):
    """A retry racing its original: both get the stored events, stored once."""
    events_append(stream="T1", expected_version=0, events=[table_opened("T1")])
    for attempt in range(5):
        batch = round_events(attempt + 1)
        start = Event.objects.filter(stream="T1").count()
        outcomes = _race(
            [lambda v=start, e=batch: events_append(stream="T1", expected_version=v, events=e)] * 2
        )
        assert all(isinstance(o, list) and len(o) == 25 for o in outcomes), outcomes
        assert [e.event_id for e in outcomes[0]] == [e.event_id for e in outcomes[1]]
        assert Event.objects.filter(stream="T1").count() == start + 25


@pytest.mark.django_db(transaction=True)
def test_the_same_event_id_sent_to_two_streams_at_once_stores_it_once(postgres_only):
    """One stream gets it; the other writer gets an id conflict (409), never a raw
    database error."""
    from audit.store.errors import IdConflict

    for attempt in range(6):
        opened = [table_opened(f"A{attempt}")]
        same = opened[0]
        outcomes = _race(
            [
                lambda s=f"A{attempt}", same=same: events_append(
                    stream=s, expected_version=0, events=[same]
                ),
                lambda s=f"B{attempt}", same=same: events_append(
                    stream=s, expected_version=0, events=[same]
                ),
            ]
        )
        assert sum(isinstance(o, list) for o in outcomes) == 1, outcomes
        assert sum(isinstance(o, IdConflict) for o in outcomes) == 1, outcomes
        assert Event.objects.filter(event_id=same.id).count() == 1
