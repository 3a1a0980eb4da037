"""A gaming day's tables are found through the partial index on the openings' gaming
day (audit 0015), on SQLite as on PostgreSQL: the record's other events are never read."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection

from audit.models import openings_on
from tables.replay_service import day_streams

from .helpers import DAY, append, dealt


@pytest.mark.django_db
def test_a_days_tables_come_from_the_openings_index():
    for table, preset in (("T2", "it-classic"), ("T1", "hoyle")):
        append(table, dealt(preset, rounds=3, table=table))

    assert day_streams(DAY) == ["T1", "T2"]
    assert day_streams(DAY + timedelta(days=1)) == []

    query = openings_on(DAY.isoformat()).values_list("stream", flat=True)
    if connection.vendor == "postgresql":
        # on a few rows a sequential scan is cheaper; what matters is that the index serves
        # the query at all, as it does once the record is large (docs/event-store.md)
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL enable_seqscan = off")
    plan = query.explain()
    assert any(name in plan for name in _opened_day_indexes()), plan
    assert "Seq Scan" not in plan, plan


def _opened_day_indexes() -> list[str]:
    """The index, and on PostgreSQL's table partitioned by gaming day (audit.store.partitions)
    each partition's index attached to it: a plan names those."""
    if connection.vendor != "postgresql":
        return ["audit_event_opened_day"]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = 'audit_event_opened_day'::regclass"
        )
        return ["audit_event_opened_day", *(row[0] for row in cursor.fetchall())]
