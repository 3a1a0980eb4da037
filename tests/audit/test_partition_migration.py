"""Migration 0017 converts an event table that holds events: every row moves to its
gaming day's partition with its position and hash, in the same order, and the next
append continues the positions (PostgreSQL)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.core.management import call_command
from django.db import connection

from audit.integrity.chains import verify_chains
from audit.models import Event
from audit.store import immutability, partitions
from audit.store.gaming_day import gaming_day
from audit.store.streams import events_append
from tests.samples import round_events, table_opened

pytestmark = pytest.mark.django_db(transaction=True)


def _rows() -> list[tuple]:
    return list(
        Event.objects.order_by("position").values_list(
            "position", "event_id", "stream", "version", "hash"
        )
    )


def test_the_migration_moves_stored_events_into_partitions(on_postgres, settings) -> None:
    settings.PROJECT_ON_APPEND = False
    call_command("migrate", "audit", "0016", verbosity=0)
    try:
        assert not partitions.is_partitioned(connection)
        now = datetime.now(UTC)
        days = [now - timedelta(days=40), now - timedelta(days=2), now]
        for n, at in enumerate(days):
            events_append(
                stream="T1",
                expected_version=26 * n,
                events=[table_opened("T1"), *round_events(n + 1)],
                now=at,
            )
            events_append(stream="T2", expected_version=n, events=[table_opened("T2")], now=at)
        before = _rows()
    finally:
        # every app: going back to audit 0016 also unapplied the other apps' migrations
        # that depend on a later audit one (casino's, whose tables the next tests need)
        call_command("migrate", verbosity=0)
    assert partitions.is_partitioned(connection)
    assert _rows() == before
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT tableoid::regclass::text, recorded_at FROM audit_event ORDER BY position"
        )
        placed = cursor.fetchall()
        cursor.execute(f"SELECT count(*) FROM {partitions.KEY_TABLE}")
        assert cursor.fetchone()[0] == len(before)
    assert {where for where, at in placed} == {
        partitions.partition_name(gaming_day(at)) for at in days
    }
    assert all(where == partitions.partition_name(gaming_day(at)) for where, at in placed)
    [after] = events_append(stream="T2", expected_version=3, events=[table_opened("T2")])
    assert after.position > before[-1][0]
    assert verify_chains().ok
    assert immutability.protection_problems(connection) == []
