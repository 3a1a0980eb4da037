"""The plans of the event store's hot queries on PostgreSQL (a script, not a test).

    python bench/day.py --tables 20 --rounds 300          # fills the database bench_day
    python bench/explain.py                               # its plans
    python bench/explain.py --db postgresql://.../other   # another filled database

For each query the application runs on the record as it grows - a stream read (the API,
replay), the global feed (subscribers, the Merkle tree), a gaming day's tables (replay of
a day), an event's leaf index (recall, the regulator's package), a finding's trail, a
table-day's mismatched bets (reconciliation, once a table-day), and on every append a
stream's head and which ids are stored - it
prints the SQL Django sends and PostgreSQL's ``EXPLAIN (ANALYZE, BUFFERS)``. What to look
for: an index scan, never a sequential scan of ``audit_event``, and a time that does not
grow with the record. On the table partitioned by gaming day (PostgreSQL, audit.store.partitions)
a query that does not name the day reads each attached partition's index (an Append, or
a Merge Append where it is ordered). ``docs/event-store.md`` keeps the plans and what
they showed.
"""

from __future__ import annotations

import argparse
import os
import sys
import uuid
from pathlib import Path

from throwaway import throwaway

ROOT = Path(__file__).resolve().parents[1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--db", default="postgresql://postgres@127.0.0.1:5432/bench_day")
    args = parser.parse_args()
    os.environ["DATABASE_URL"] = args.db
    throwaway(os.environ)
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings")
    sys.path.insert(0, str(ROOT))
    import django

    django.setup()
    from django.db import connection
    from django.db.models import Max

    from audit.integrity import digests
    from audit.models import Event, Finding, openings_on
    from audit.store.event_ids import with_ids
    from audit.store.partitions import KEY_TABLE, keyed, partitions
    from audit.store.streams import stream_rows
    from tables import models as tm

    if connection.vendor != "postgresql":
        sys.exit("explain.py: --db must be a PostgreSQL database")
    if not Event.objects.exists():
        sys.exit(f"explain.py: {args.db} holds no events (fill it with bench/day.py first)")
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE audit_event")
    count = Event.objects.count()
    stream = (
        Event.objects.exclude(stream__startswith="audit.").values_list("stream", flat=True).first()
    )
    last = Event.objects.aggregate(m=Max("position"))["m"]
    middle = Event.objects.filter(position__gte=last // 2).order_by("position").first()
    opened = Event.objects.filter(type="table.opened").first()
    day = opened.payload["gaming_day"] if opened else "2026-11-29"
    finding = Finding.objects.values_list("fingerprint", flat=True).first() or "0" * 64
    attached = sum(1 for _ in partitions(connection))
    print(
        f"{count:,} events in {args.db}"
        + (f", {attached} partitions attached" if attached else ", not partitioned")
    )

    queries = {
        f"stream read ({stream}, 500 events from version 100)": stream_rows(
            stream, from_version=100, limit=500
        ),
        f"feed (1,000 events after position {last // 2:,}: audit.store.streams.feed_after)": Event.objects.filter(
            position__gt=last // 2
        ).order_by("position")[:1000],
        f"a gaming day's tables ({day})": openings_on(day).values_list("stream", flat=True),
        "an event's leaf index (the count after its block)": Event.objects.filter(
            position__gt=max(0, middle.position - digests.BLOCK), position__lt=middle.position
        ),
        "a finding's trail": Event.objects.filter(
            stream="audit.findings", payload__finding=finding
        ).order_by("version"),
        # on PostgreSQL its stream and version read from the key table first (audit.store.event_ids)
        "an event by its id (audit.store.event_ids.with_ids)": Event.objects.filter(
            with_ids([middle.event_id])
        ),
    }
    table_row = tm.Table.objects.filter(stream=stream).first()
    if table_row is not None:
        # what reconciliation asks of every table-day (casino.game): the few bets that differ
        queries[
            f"a table-day's mismatched bets ({stream}, {day}: reconciliation's replayed win)"
        ] = tm.mismatched_bets(table_row, day).values_list(
            "round__number", "bet", "recorded_net", "expected_net"
        )
    # on every append (audit.store.streams): the stream's head, and which of the batch's ids are
    # stored - from the key table where the table is partitioned, as the store asks them
    ids = [uuid.uuid4() for _ in range(24)] + [middle.event_id]
    table = KEY_TABLE if keyed(connection) else "audit_event"
    raw = {
        f"a stream's head ({stream}: audit.store.streams.stream_head, from {table})": (
            f"SELECT version, hash FROM {table} WHERE stream = %s ORDER BY version DESC LIMIT 1",
            [stream],
        ),
        f"which of 25 ids are stored (audit.store.streams.stored_rows, from {table})": (
            f"SELECT event_id FROM {table} WHERE event_id = ANY(%s)",
            [ids],
        ),
    }
    for name, query in queries.items():
        print(f"\n== {name}\n{query.query}")
        print(query.explain(analyze=True, buffers=True))
    with connection.cursor() as cursor:
        for name, (sql, params) in raw.items():
            print(f"\n== {name}\n{sql}")
            cursor.execute("EXPLAIN (ANALYZE, BUFFERS) " + sql, params)
            print("\n".join(row[0] for row in cursor.fetchall()))
    index = digests.leaf_index(middle)
    print(f"\n== leaf index of position {middle.position:,}: {index:,}")


if __name__ == "__main__":
    main()
