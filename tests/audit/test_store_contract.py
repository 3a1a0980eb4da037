"""The event store's contract. The suite runs as it is on SQLite and on PostgreSQL
(CI runs it once with each DATABASE_URL)."""

from __future__ import annotations

import itertools
import uuid
from dataclasses import replace
from datetime import UTC, datetime

import pytest

from audit.models import Event
from audit.record.chain import GENESIS_HASH, event_hash
from audit.store.errors import IdConflict, InvalidEvent, VersionConflict
from audit.store.streams import envelope, events_append, feed_after, stream_head, stream_version
from tests.samples import round_events, table_opened

pytestmark = pytest.mark.django_db


def test_append_to_new_stream_numbers_versions_from_one_and_chains_hashes():
    """A new stream starts at version 1 with the genesis prev_hash; each later event links
    to the hash of the one before."""
    batch = [table_opened("T1"), *round_events(1)]
    stored = events_append(stream="T1", expected_version=0, events=batch)
    assert [e.version for e in stored] == list(range(1, 27))
    assert stored[0].prev_hash == GENESIS_HASH
    for before, after in itertools.pairwise(stored):
        assert after.prev_hash == before.hash
    assert stream_head("T1") == (26, stored[-1].hash)


def test_stored_hash_is_the_documented_encoding_of_the_envelope():
    """The stored hash is SHA-256 over the canonical document of the envelope fields."""
    [row] = events_append(stream="T1", expected_version=0, events=[table_opened("T1")])
    row.refresh_from_db()
    assert row.hash == event_hash(
        id=row.event_id,
        stream="T1",
        version=1,
        type="table.opened",
        schema_version=1,
        occurred_at=row.occurred_at,
        recorded_at=row.recorded_at,
        actor=row.actor,
        source=row.source,
        payload=row.payload,
        prev_hash=GENESIS_HASH,
    )


def test_stale_expected_version_is_refused_naming_the_current_version():
    """An append that expects an older version is refused, and the error names the
    stream's current version; nothing of it is stored."""
    events_append(stream="T1", expected_version=0, events=round_events(1))
    with pytest.raises(VersionConflict) as caught:
        events_append(stream="T1", expected_version=3, events=round_events(2))
    assert caught.value.current == 25
    assert "version 25" in str(caught.value)
    assert stream_version("T1") == 25


def test_expected_version_ahead_of_the_stream_is_refused():
    """Expecting a version the stream has not reached is a conflict too."""
    with pytest.raises(VersionConflict) as caught:
        events_append(stream="T9", expected_version=5, events=[table_opened("T9")])
    assert caught.value.current == 0


def test_batch_is_all_or_nothing_when_one_event_is_invalid():
    """One bad event refuses the whole batch: the good ones before it are not stored."""
    batch = round_events(1)
    batch[7] = replace(batch[7], payload={**batch[7].payload, "card": "1X"})
    with pytest.raises(InvalidEvent) as caught:
        events_append(stream="T1", expected_version=0, events=batch)
    assert caught.value.index == 7
    assert caught.value.field == "payload.card"
    assert Event.objects.count() == 0


def test_retry_with_same_ids_and_content_returns_the_stored_events():
    """An idempotent retry returns the stored events and stores nothing new."""
    batch = round_events(1)
    first = events_append(stream="T1", expected_version=0, events=batch)
    again = events_append(stream="T1", expected_version=0, events=batch)
    assert [e.position for e in again] == [e.position for e in first]
    assert Event.objects.count() == 25


def test_retry_is_recognised_after_the_stream_moved_on():
    """A late retry (the stream has grown since) still returns the stored events."""
    batch = round_events(1)
    events_append(stream="T1", expected_version=0, events=batch)
    events_append(stream="T1", expected_version=25, events=round_events(2))
    again = events_append(stream="T1", expected_version=0, events=batch)
    assert [e.version for e in again] == list(range(1, 26))
    assert Event.objects.count() == 50


@pytest.mark.parametrize("change", ["payload", "type", "occurred_at", "actor", "stream"])
def test_same_id_with_other_content_is_refused(change):
    """An id already stored with different content is refused, naming the id."""
    [event] = events_append(stream="T1", expected_version=0, events=[table_opened("T1")])
    offered = table_opened("T1")
    offered = replace(
        offered, id=event.event_id, occurred_at=event.occurred_at, payload=event.payload
    )
    stream = "T1"
    if change == "payload":
        offered = replace(offered, payload={**offered.payload, "max_bet": 1})
    elif change == "type":
        offered = replace(offered, type="table.closed", payload={"gaming_day": "2026-11-29"})
    elif change == "occurred_at":
        offered = replace(offered, occurred_at=datetime(2020, 1, 1, tzinfo=UTC))
    elif change == "actor":
        offered = replace(offered, actor="someone-else")
    else:
        stream = "T2"
    with pytest.raises(IdConflict) as caught:
        events_append(stream=stream, expected_version=1 if stream == "T1" else 0, events=[offered])
    assert str(event.event_id) in str(caught.value)
    assert Event.objects.count() == 1


def test_a_batch_mixing_stored_and_new_ids_is_refused():
    batch = round_events(1)
    events_append(stream="T1", expected_version=0, events=batch[:5])
    with pytest.raises(IdConflict):
        events_append(stream="T1", expected_version=5, events=batch)
    assert Event.objects.count() == 5


def test_the_same_id_twice_in_one_batch_is_refused():
    batch = round_events(1)
    batch[3] = replace(batch[3], id=batch[1].id)
    with pytest.raises(InvalidEvent) as caught:
        events_append(stream="T1", expected_version=0, events=batch)
    assert caught.value.index == 3 and caught.value.field == "id"


def test_streams_are_independent_and_positions_global():
    """Each stream has its own versions; positions order all events across streams."""
    a = events_append(stream="A", expected_version=0, events=round_events(1)[:3])
    b = events_append(stream="B", expected_version=0, events=round_events(1)[:2])
    c = events_append(stream="A", expected_version=3, events=round_events(2)[:1])
    assert [e.version for e in b] == [1, 2]
    assert c[0].version == 4
    positions = [e.position for e in a + b + c]
    assert positions == sorted(positions)
    feed = feed_after(a[1].position, limit=100)
    assert [e.position for e in feed] == positions[2:]


def test_naive_timestamp_and_bad_stream_are_refused():
    event = replace(table_opened(), occurred_at=datetime(2026, 1, 1))
    with pytest.raises(InvalidEvent) as caught:
        events_append(stream="T1", expected_version=0, events=[event])
    assert caught.value.field == "occurred_at"
    with pytest.raises(InvalidEvent) as caught:
        events_append(stream="no spaces", expected_version=0, events=[table_opened()])
    assert caught.value.field == "stream"


def test_envelope_upcasts_old_payload_versions_on_read():
    """A stored v1 bet.placed is read as v2, while the stored payload stays as written."""
    old = replace(
        round_events(1)[1],
        schema_version=1,
        payload={k: v for k, v in round_events(1)[1].payload.items() if k != "parent"},
    )
    [row] = events_append(stream="T1", expected_version=0, events=[old])
    row.refresh_from_db()
    assert row.schema_version == 1 and "parent" not in row.payload
    shown = envelope(row)
    assert shown["schema_version"] == 2 and shown["payload"]["parent"] is None
    assert envelope(row, as_stored=True)["payload"] == row.payload


def test_event_ids_are_uuids_chosen_by_the_sender():
    event_id = uuid.uuid4()
    [row] = events_append(
        stream="T1", expected_version=0, events=[replace(table_opened(), id=event_id)]
    )
    assert row.event_id == event_id
