"""PostgreSQL: the event table partitioned by gaming day (SQLite keeps one plain table).

``audit_event`` is ``PARTITION BY RANGE (recorded_at)`` - the server's clock at append,
which every event has - with one partition a gaming day (``audit_event_d20261201``: from
the cut-off hour of that day in ``TIME_ZONE`` to the same hour the next day) and a
DEFAULT partition (``audit_event_default``) for any event no day's partition takes, so
an append never fails because the partitions were not made in time.

What a partitioned table cannot do, and what stands in for it:

- a unique constraint must include the partition key, so the uniqueness of ``event_id``
  and of ``(stream, version)`` across all partitions lives in the key table
  ``audit_event_key``, which the database fills itself: an AFTER INSERT statement trigger
  with a transition table (every writer - the ORM, COPY, psql - passes through it; it
  runs as the owner, so the application role needs no right on the key table but SELECT).
  A duplicate raises the unique violation an ordinary constraint would, which the store
  answers as before (``IdConflict``, ``VersionConflict``). With each key it keeps the
  event's hash, so the write path's own lookups - a stream's head, which ids are stored,
  whether a stream moved - read one index instead of every partition's (:func:`keyed`),
  and a stream's head survives the archival of the day it was written on. Its primary
  key is the record's only index of ids (the partitions keep none: a read by id goes
  through it, :mod:`audit.store.event_ids`);
- the primary key is ``(position, recorded_at)``; ``position`` stays globally unique
  because one sequence hands it out and nothing else writes it;
- statement triggers are not cloned to partitions (row triggers are, enabled ALWAYS as on
  the parent), so each partition gets its own TRUNCATE trigger when it is made.

Partitions are made ahead by :func:`make_ahead` (the beat task and ``manage.py
event_partitions``) through the SECURITY DEFINER function ``audit_event_make_partitions``:
the application role does not own the table and may not create one, but may call that
function, which only makes the missing partitions of today and the next days.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from typing import Any

from django.conf import settings

from audit.store import immutability

from .gaming_day import gaming_day, gaming_day_bounds

TABLE = immutability.TABLE
KEY_TABLE = f"{TABLE}_key"
DEFAULT = f"{TABLE}_default"
PREFIX = f"{TABLE}_d"
MAKE = f"{TABLE}_make_partitions"  # (days, tz, cutoff): today's and the next days', the app may call it
MAKE_ONE = f"{TABLE}_partition_create"  # (day, tz, cutoff): the owner's own
KEEP_KEYS = f"{TABLE}_keep_keys"
KEYS_TRIGGER = f"{TABLE}_keys"
KEY_TRIGGERS = (f"{KEY_TABLE}_no_update_delete", f"{KEY_TABLE}_no_truncate")
# the Merkle leaves of detached days' events (position, stream, version, hash, seal), kept so
# that the signed heads still check over them (regulator.archive writes it as the owner)
LEAVES = f"{TABLE}_detached"
LEAVES_TRIGGERS = (f"{LEAVES}_no_update_delete", f"{LEAVES}_no_truncate")
# an arbitrary constant (not the append lock's): two makers of partitions take turns
MAKE_LOCK_KEY = 0x70617274  # "part"
_NAME = re.compile(rf"^{PREFIX}(\d{{8}})\Z")
_BOUND = re.compile(r"FOR VALUES FROM \('([^']+)'\) TO \('([^']+)'\)")
# the archival's record of each detach (regulator.archive), which verify reads
DETACH_STREAM = "audit.store"
DETACHED = "store.partition_detached"

# the key trigger's function body as shipped; verify compares the stored one with it
KEEP_KEYS_BODY = f"""
        BEGIN
            INSERT INTO {KEY_TABLE} (event_id, stream, version, hash)
                SELECT event_id, stream, version, hash FROM new_rows;
            RETURN NULL;
        END """

# one day's partition: made apart and ATTACHed (which takes only a SHARE UPDATE EXCLUSIVE
# lock on the parent, so appends and reads go on; CREATE ... PARTITION OF would lock it
# out), with its own TRUNCATE trigger. NULL when it exists, or when the default partition
# already holds events of that day (the partition could not be attached over them: they
# stay in the default, which is correct, only not pruned by day)
_MAKE_ONE = f"""
CREATE OR REPLACE FUNCTION {MAKE_ONE}(day date, tz text, cutoff integer) RETURNS text
LANGUAGE plpgsql SET search_path = public, pg_temp AS $$
DECLARE
    name text := '{PREFIX}' || to_char(day, 'YYYYMMDD');
    low timestamptz := (day + make_interval(hours => cutoff)) AT TIME ZONE tz;
    high timestamptz := (day + 1 + make_interval(hours => cutoff)) AT TIME ZONE tz;
BEGIN
    IF to_regclass(name) IS NOT NULL THEN
        RETURN NULL;
    END IF;
    IF EXISTS (SELECT FROM {DEFAULT} WHERE recorded_at >= low AND recorded_at < high) THEN
        RAISE NOTICE '%: the default partition holds events of that day; not made', name;
        RETURN NULL;
    END IF;
    EXECUTE format('CREATE TABLE %I (LIKE {TABLE} INCLUDING DEFAULTS INCLUDING CONSTRAINTS)', name);
    EXECUTE format('CREATE TRIGGER {TABLE}_no_truncate BEFORE TRUNCATE ON %I '
                   'FOR EACH STATEMENT EXECUTE FUNCTION {immutability.FUNCTION}()', name);
    EXECUTE format('ALTER TABLE %I ENABLE ALWAYS TRIGGER {TABLE}_no_truncate', name);
    EXECUTE format('ALTER TABLE {TABLE} ATTACH PARTITION %I FOR VALUES FROM (%L) TO (%L)', name, low, high);
    RETURN name;
END $$"""

# today's partition and the next ``days``: the one thing the application role may do to
# the table's structure. Bounded arguments; the lock timeout lets it fail (and the next
# run retry) rather than queue appends behind it while a long read holds the default
_MAKE = f"""
CREATE OR REPLACE FUNCTION {MAKE}(days integer, tz text, cutoff integer) RETURNS SETOF text
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp SET lock_timeout = '5s' AS $$
DECLARE
    today date;
    made text;
BEGIN
    IF days IS NULL OR days < 0 OR days > 366 OR cutoff IS NULL OR cutoff < 0 OR cutoff > 23 THEN
        RAISE EXCEPTION '{MAKE}: days must be 0..366 and cutoff 0..23' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    PERFORM pg_advisory_xact_lock({MAKE_LOCK_KEY});
    today := ((now() AT TIME ZONE tz) - make_interval(hours => cutoff))::date;
    FOR i IN 0..days LOOP
        made := {MAKE_ONE}(today + i, tz, cutoff);
        IF made IS NOT NULL THEN
            RETURN NEXT made;
        END IF;
    END LOOP;
END $$"""

_KEEP_KEYS = f"""
CREATE OR REPLACE FUNCTION {KEEP_KEYS}() RETURNS trigger
LANGUAGE plpgsql SECURITY DEFINER SET search_path = public, pg_temp AS $${KEEP_KEYS_BODY}$$"""


def _protect(table: str, prefix: str) -> list[str]:
    """The append-only triggers (row: UPDATE, DELETE; statement: TRUNCATE), fired ALWAYS."""
    return [
        (
            f"CREATE TRIGGER {prefix}_no_update_delete BEFORE UPDATE OR DELETE ON {table} "
            f"FOR EACH ROW EXECUTE FUNCTION {immutability.FUNCTION}()"
        ),
        (
            f"CREATE TRIGGER {prefix}_no_truncate BEFORE TRUNCATE ON {table} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {immutability.FUNCTION}()"
        ),
        f"ALTER TABLE {table} ENABLE ALWAYS TRIGGER {prefix}_no_update_delete",
        f"ALTER TABLE {table} ENABLE ALWAYS TRIGGER {prefix}_no_truncate",
    ]


class PartitionOverlap(Exception):
    """A partition to make would overlap one made before (``GAMING_DAY_CUTOFF_HOUR`` or
    ``TIME_ZONE`` changed since): the message names both and their bounds."""


@dataclass(frozen=True, slots=True)
class Partition:
    name: str
    day: date | None  # None: the default partition
    low: datetime | None  # its bounds as attached (not as the settings would make them now)
    high: datetime | None
    rows: int  # the planner's estimate (pg_class.reltuples), -1 never analysed
    bytes: int


def is_partitioned(connection: Any) -> bool:
    if connection.vendor != "postgresql":
        return False
    with connection.cursor() as cursor:
        cursor.execute("SELECT relkind FROM pg_class WHERE oid = to_regclass(%s)", [TABLE])
        row = cursor.fetchone()
    return bool(row and row[0] == "p")


def _index_definitions(cursor: Any, table: str) -> list[str]:
    """The CREATE INDEX statements of ``table``'s indexes that no constraint owns."""
    cursor.execute(
        """SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
           WHERE i.indrelid = to_regclass(%s)
             AND NOT EXISTS (SELECT FROM pg_constraint c WHERE c.conindid = i.indexrelid)
           ORDER BY i.indexrelid""",
        [table],
    )
    return [row[0] for row in cursor.fetchall()]


def _sequence_state(cursor: Any) -> tuple[str, int, bool]:
    cursor.execute("SELECT pg_get_serial_sequence(%s, 'position')", [TABLE])
    sequence = cursor.fetchone()[0]
    cursor.execute(f"SELECT last_value, is_called FROM {sequence}")
    last, called = cursor.fetchone()
    return sequence, last, called


def convert(cursor: Any, *, tz: str, cutoff: int, ahead: int) -> None:
    """Migration 0017: the plain event table into a partitioned one, rows moved in
    position order with their positions, the position sequence continuing where it was.
    Run by the owner, in the migration's transaction (the table is locked throughout)."""
    cursor.execute(f"LOCK TABLE {TABLE} IN ACCESS EXCLUSIVE MODE")
    _, last, called = _sequence_state(cursor)
    indexes = _index_definitions(cursor, TABLE)
    old = f"{TABLE}_unpartitioned"
    cursor.execute(f"ALTER TABLE {TABLE} RENAME TO {old}")
    cursor.execute(
        f"CREATE TABLE {TABLE} (LIKE {old} INCLUDING CONSTRAINTS) PARTITION BY RANGE (recorded_at)"
    )
    cursor.execute(
        f"CREATE TABLE {KEY_TABLE} (event_id uuid NOT NULL, stream varchar(64) NOT NULL, "
        f"version bigint NOT NULL, hash varchar(64) NOT NULL, "
        f"CONSTRAINT {KEY_TABLE}_pkey PRIMARY KEY (event_id), "
        f"CONSTRAINT {KEY_TABLE}_stream_version UNIQUE (stream, version))"
    )
    # the default first: the partition functions read it
    cursor.execute(f"CREATE TABLE {DEFAULT} PARTITION OF {TABLE} DEFAULT")
    cursor.execute(
        f"CREATE TRIGGER {TABLE}_no_truncate BEFORE TRUNCATE ON {DEFAULT} "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {immutability.FUNCTION}()"
    )
    cursor.execute(f"ALTER TABLE {DEFAULT} ENABLE ALWAYS TRIGGER {TABLE}_no_truncate")
    cursor.execute(_MAKE_ONE)
    cursor.execute(_MAKE)
    cursor.execute(f"REVOKE ALL ON FUNCTION {MAKE_ONE}(date, text, integer) FROM PUBLIC")
    cursor.execute(f"REVOKE ALL ON FUNCTION {MAKE}(integer, text, integer) FROM PUBLIC")
    # a partition for each gaming day that has events, then today's and the next days'
    cursor.execute(
        f"""SELECT DISTINCT ((recorded_at AT TIME ZONE %s) - make_interval(hours => %s))::date
            FROM {old} ORDER BY 1""",
        [tz, cutoff],
    )
    for (day,) in cursor.fetchall():
        cursor.execute(f"SELECT {MAKE_ONE}(%s, %s, %s)", [day, tz, cutoff])
    cursor.execute(f"SELECT * FROM {MAKE}(%s, %s, %s)", [ahead, tz, cutoff])
    # the rows, before any index exists (built once, after), then their keys
    cursor.execute(f"INSERT INTO {TABLE} SELECT * FROM {old} ORDER BY position")
    cursor.execute(
        f"INSERT INTO {KEY_TABLE} (event_id, stream, version, hash) "
        f"SELECT event_id, stream, version, hash FROM {old}"
    )
    # its triggers, indexes, constraints and sequence go with it, freeing their names
    cursor.execute(f"DROP TABLE {old}")
    cursor.execute(f"CREATE SEQUENCE {TABLE}_position_seq AS bigint OWNED BY {TABLE}.position")
    cursor.execute(f"SELECT setval('{TABLE}_position_seq', %s, %s)", [last, called])
    cursor.execute(
        f"ALTER TABLE {TABLE} ALTER COLUMN position SET DEFAULT nextval('{TABLE}_position_seq')"
    )
    cursor.execute(
        f"ALTER TABLE {TABLE} ADD CONSTRAINT {TABLE}_pkey PRIMARY KEY (position, recorded_at)"
    )
    # the stream read's index, as a plain one (the key table holds the unique constraint);
    # no index of ids: the key table's is the record's one (audit.store.event_ids, migration 0019)
    cursor.execute(f"CREATE INDEX {TABLE}_stream_version ON {TABLE} (stream, version)")
    for definition in indexes:  # recorded_at, the openings' partial index: as they were
        cursor.execute(definition)
    for sql in immutability.INSTALL["postgresql"][1:] + immutability.ALWAYS["postgresql"]:
        cursor.execute(sql)  # (the function is there already: it is not the table's)
    cursor.execute(_KEEP_KEYS)
    cursor.execute(
        f"CREATE TRIGGER {KEYS_TRIGGER} AFTER INSERT ON {TABLE} REFERENCING NEW TABLE AS new_rows "
        f"FOR EACH STATEMENT EXECUTE FUNCTION {KEEP_KEYS}()"
    )
    cursor.execute(f"ALTER TABLE {TABLE} ENABLE ALWAYS TRIGGER {KEYS_TRIGGER}")
    for sql in _protect(KEY_TABLE, KEY_TABLE):
        cursor.execute(sql)


def unconvert(cursor: Any) -> None:
    """0017's reverse: one plain table again, rows in position order, the sequence
    continuing (detached partitions are not brought back)."""
    cursor.execute(f"LOCK TABLE {TABLE} IN ACCESS EXCLUSIVE MODE")
    _, last, called = _sequence_state(cursor)
    indexes = [
        d
        for d in _index_definitions(cursor, TABLE)
        if not re.search(rf"INDEX ({TABLE}_stream_version|{TABLE}_event_id) ", d)
    ]
    old = f"{TABLE}_partitioned"
    cursor.execute(f"ALTER TABLE {TABLE} RENAME TO {old}")
    cursor.execute(f"CREATE TABLE {TABLE} (LIKE {old} INCLUDING CONSTRAINTS)")
    cursor.execute(f"INSERT INTO {TABLE} SELECT * FROM {old} ORDER BY position")
    cursor.execute(f"DROP TABLE {old}, {KEY_TABLE}")
    cursor.execute(
        f"DROP FUNCTION {MAKE}(integer, text, integer), {MAKE_ONE}(date, text, integer), {KEEP_KEYS}()"
    )
    cursor.execute(
        f"ALTER TABLE {TABLE} ALTER COLUMN position ADD GENERATED BY DEFAULT AS IDENTITY"
    )
    cursor.execute(
        f"SELECT setval(pg_get_serial_sequence('{TABLE}', 'position'), %s, %s)", [last, called]
    )
    cursor.execute(f"ALTER TABLE {TABLE} ADD CONSTRAINT {TABLE}_pkey PRIMARY KEY (position)")
    cursor.execute(f"ALTER TABLE {TABLE} ADD CONSTRAINT {TABLE}_event_id_key UNIQUE (event_id)")
    cursor.execute(
        f"ALTER TABLE {TABLE} ADD CONSTRAINT {TABLE}_stream_version UNIQUE (stream, version)"
    )
    for definition in indexes:
        cursor.execute(definition)
    for sql in immutability.INSTALL["postgresql"][1:] + immutability.ALWAYS["postgresql"]:
        cursor.execute(sql)


def make_leaves(cursor: Any) -> None:
    """Migration 0018: the table of detached events' Merkle leaves, append-only like the
    key table (the owner writes it when it detaches a day; the application reads it)."""
    cursor.execute(
        f"CREATE TABLE {LEAVES} (position bigint NOT NULL PRIMARY KEY, stream varchar(64) NOT NULL, "
        f"version bigint NOT NULL, hash varchar(64) NOT NULL, day date NOT NULL)"
    )
    for sql in _protect(LEAVES, LEAVES):
        cursor.execute(sql)


def has_leaves(connection: Any) -> bool:
    """Whether this database keeps detached leaves (partitioned, migrated past 0018)."""
    if not keyed(connection):
        return False
    found = getattr(connection, "_audit_leaves", None)
    if found is None:
        with connection.cursor() as cursor:
            cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [LEAVES])
            found = connection._audit_leaves = bool(cursor.fetchone()[0])
    return bool(found)


def keyed(connection: Any) -> bool:
    """Whether the store's write path reads the key table (the table is partitioned):
    asked of the database once per connection object, forgotten by the migration."""
    found = getattr(connection, "_audit_keyed", None)
    if found is None:
        found = is_partitioned(connection)
        connection._audit_keyed = found
    return bool(found)


def forget(connection: Any) -> None:
    """After 0017, 0018 or their reverses: :func:`keyed` and :func:`has_leaves` ask again."""
    connection.__dict__.pop("_audit_keyed", None)
    connection.__dict__.pop("_audit_leaves", None)


def _utc(moment: datetime) -> str:
    return f"{moment.astimezone(UTC):%Y-%m-%d %H:%M} UTC"


def check_overlap(connection: Any, days: list[date]) -> None:
    """Raise :class:`PartitionOverlap` if the partition of any of ``days`` not made yet,
    bounded as the settings say now, would overlap a partition attached already - what
    happens when ``GAMING_DAY_CUTOFF_HOUR`` or ``TIME_ZONE`` changed after partitions were
    made. Checked before the database is asked, so the owner reads which partitions and
    which bounds rather than PostgreSQL's refusal of the ATTACH."""
    attached = [p for p in partitions(connection) if p.low is not None and p.high is not None]
    names = {p.name for p in attached}
    for day in days:
        name = partition_name(day)
        if name in names:
            continue
        low, high = gaming_day_bounds(day)
        for other in attached:
            assert other.low is not None and other.high is not None
            if low < other.high and other.low < high:
                raise PartitionOverlap(
                    f"partition {name} would span {_utc(low)} to {_utc(high)} (gaming day {day} with TIME_ZONE "
                    f"{settings.TIME_ZONE} and GAMING_DAY_CUTOFF_HOUR {settings.GAMING_DAY_CUTOFF_HOUR}), which "
                    f"overlaps partition {other.name}, attached from {_utc(other.low)} to {_utc(other.high)}: the "
                    "gaming day's settings changed after partitions were made. Set them back; until then new "
                    "events go to the default partition"
                )


def make_ahead(
    connection: Any, days: int | None = None, *, now: datetime | None = None
) -> list[str]:
    """Make today's partition and the next ``days``' (``EVENT_PARTITIONS_AHEAD``) where
    missing; the names made. Idempotent; nothing to do on SQLite or an unpartitioned table.
    :class:`PartitionOverlap` when the settings would make one overlap an older one."""
    if not is_partitioned(connection):
        return []
    days = settings.EVENT_PARTITIONS_AHEAD if days is None else days
    today = gaming_day(now or datetime.now(UTC))
    check_overlap(connection, [today + timedelta(days=n) for n in range(days + 1)])
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT * FROM {MAKE}(%s, %s, %s)",
            [days, settings.TIME_ZONE, settings.GAMING_DAY_CUTOFF_HOUR],
        )
        return [row[0] for row in cursor.fetchall()]


def make_day(connection: Any, day: date) -> str | None:
    """Make gaming day ``day``'s partition - a past one too, for a restore - as the
    owner only (the function is not the application's); its name, None if it exists or
    the default partition holds events of that day. :class:`PartitionOverlap` as
    :func:`make_ahead`."""
    check_overlap(connection, [day])
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT {MAKE_ONE}(%s, %s, %s)",
            [day, settings.TIME_ZONE, settings.GAMING_DAY_CUTOFF_HOUR],
        )
        return cursor.fetchone()[0]


def partition_day(name: str) -> date | None:
    found = _NAME.match(name)
    return None if found is None else datetime.strptime(found.group(1), "%Y%m%d").date()


def partition_name(day: date) -> str:
    return f"{PREFIX}{day:%Y%m%d}"


def partitions(connection: Any) -> list[Partition]:
    """The attached partitions, days in order and the default last."""
    if not is_partitioned(connection):
        return []
    with connection.cursor() as cursor:
        cursor.execute(
            """SELECT c.relname, c.reltuples::bigint, pg_total_relation_size(c.oid),
                      pg_get_expr(c.relpartbound, c.oid)
               FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
               WHERE i.inhparent = to_regclass(%s)""",
            [TABLE],
        )
        found = cursor.fetchall()
    result = []
    for name, rows, size, bound in found:
        # the bounds as attached, in the session's time zone (Django's: UTC) as PostgreSQL
        # prints a timestamptz ('2026-12-01 05:00:00+00')
        given = _BOUND.search(bound or "")
        low, high = (
            (datetime.fromisoformat(given.group(1)), datetime.fromisoformat(given.group(2)))
            if given
            else (None, None)
        )
        result.append(Partition(name, partition_day(name), low, high, rows, size))
    return sorted(result, key=lambda p: (p.day is None, p.day or date.min))


def flush_sql() -> list[str]:
    """For the tests' flush (tests/backends): every trigger of the table, its partitions
    and the key table off, the key table emptied. :func:`protections_always_sql` after."""
    return [
        every_trigger_sql("DISABLE"),
        (
            f"DO $$ BEGIN IF to_regclass('{KEY_TABLE}') IS NOT NULL THEN TRUNCATE {KEY_TABLE}; END IF; "
            f"IF to_regclass('{LEAVES}') IS NOT NULL THEN TRUNCATE {LEAVES}; END IF; END $$"
        ),
    ]


def protections_always_sql() -> list[str]:
    return [every_trigger_sql("ENABLE ALWAYS")]


def every_trigger_sql(mode: str) -> str:
    """``mode`` (DISABLE, ENABLE ALWAYS) for every trigger of the event table, its
    partitions and the key table: an ALTER TABLE of the table alone reaches the partitions'
    clones of its row triggers, not their own TRUNCATE triggers (the owner's or a
    superuser's statement: the tests' flush and tampering)."""
    return (
        "DO $$ DECLARE r record; BEGIN FOR r IN SELECT t.tgrelid::regclass AS rel, t.tgname FROM pg_trigger t "
        f"WHERE NOT t.tgisinternal AND (t.tgrelid IN (to_regclass('{TABLE}'), to_regclass('{KEY_TABLE}'), "
        f"to_regclass('{LEAVES}')) "
        f"OR t.tgrelid IN (SELECT inhrelid FROM pg_inherits WHERE inhparent = to_regclass('{TABLE}'))) "
        f"LOOP EXECUTE format('ALTER TABLE %s {mode} TRIGGER %I', r.rel, r.tgname); END LOOP; END $$"
    )
