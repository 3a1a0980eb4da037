"""SQL that makes the event table append-only (and the access log, the ingest runs and
steps and the authority seals: no UPDATE), per database vendor, and the check that the
protection is still in place.

Row triggers refuse UPDATE and DELETE; on PostgreSQL a statement trigger also refuses
TRUNCATE, which row triggers do not see. On PostgreSQL the triggers are enabled ALWAYS,
so they fire in ``session_replication_role = replica`` too (an ordinary trigger does
not). On PostgreSQL's partitioned table (:mod:`audit.store.partitions`) the row trigger is
cloned to each partition, each partition has a TRUNCATE trigger of its own, and the key
table has both; :func:`protection_problems` checks every one. Who can still get past them:

- the application's own database role cannot: it does not own the table or the trigger
  function (:mod:`audit.store.roles`), so it cannot drop, disable or replace them, and it holds
  no UPDATE, DELETE or TRUNCATE privilege on the table;
- the owner role (which runs migrations) and a superuser can - which is what the chain
  verifier, the signed tree heads and :func:`protection_problems` (run by ``manage.py
  verify``) are there to detect.
"""

from __future__ import annotations

import re
from typing import Any

TABLE = "audit_event"
FUNCTION = f"{TABLE}_refuse"
# the body of the trigger function, as shipped; verify compares the stored one with it
FUNCTION_BODY = f"""
        BEGIN
            RAISE EXCEPTION '{TABLE} is append-only: % refused', TG_OP
                USING ERRCODE = 'insufficient_privilege';
        END """
PG_TRIGGERS = (f"{TABLE}_no_update_delete", f"{TABLE}_no_truncate")
SQLITE_TRIGGERS = {
    f"{TABLE}_no_update": f"CREATE TRIGGER {TABLE}_no_update BEFORE UPDATE ON {TABLE} "
    f"BEGIN SELECT RAISE(ABORT, '{TABLE} is append-only: UPDATE refused'); END",
    f"{TABLE}_no_delete": f"CREATE TRIGGER {TABLE}_no_delete BEFORE DELETE ON {TABLE} "
    f"BEGIN SELECT RAISE(ABORT, '{TABLE} is append-only: DELETE refused'); END",
}

INSTALL = {
    "sqlite": list(SQLITE_TRIGGERS.values()),
    "postgresql": [
        f"CREATE OR REPLACE FUNCTION {FUNCTION}() RETURNS trigger LANGUAGE plpgsql AS $${FUNCTION_BODY}$$",
        (
            f"CREATE TRIGGER {TABLE}_no_update_delete BEFORE UPDATE OR DELETE ON {TABLE} "
            f"FOR EACH ROW EXECUTE FUNCTION {FUNCTION}()"
        ),
        (
            f"CREATE TRIGGER {TABLE}_no_truncate BEFORE TRUNCATE ON {TABLE} "
            f"FOR EACH STATEMENT EXECUTE FUNCTION {FUNCTION}()"
        ),
    ],
}

# fire in replica mode too (migration 0005; new installs get it from 0002 + 0005)
ALWAYS = {
    "sqlite": [],
    "postgresql": [f"ALTER TABLE {TABLE} ENABLE ALWAYS TRIGGER {name}" for name in PG_TRIGGERS],
}
# back to ordinary triggers (0005's reverse)
ORIGIN = {
    "sqlite": [],
    "postgresql": [f"ALTER TABLE {TABLE} ENABLE TRIGGER {name}" for name in PG_TRIGGERS],
}

# 0002's reverse: only the table's owner can run these
REMOVE = {
    "sqlite": [f"DROP TRIGGER IF EXISTS {name}" for name in SQLITE_TRIGGERS],
    "postgresql": [
        f"DROP TRIGGER IF EXISTS {TABLE}_no_update_delete ON {TABLE}",
        f"DROP TRIGGER IF EXISTS {TABLE}_no_truncate ON {TABLE}",
        f"DROP FUNCTION IF EXISTS {FUNCTION}()",
    ],
}


# the access log (audit.access.log): rows are never changed; removing old rows is the owner's
# retention purge, so only UPDATE is refused here (the application role may not DELETE)
ACCESS_TABLE = "audit_access"
ACCESS_INSTALL = {
    "sqlite": [
        (
            f"CREATE TRIGGER {ACCESS_TABLE}_no_update BEFORE UPDATE ON {ACCESS_TABLE} "
            f"BEGIN SELECT RAISE(ABORT, '{ACCESS_TABLE} is append-only: UPDATE refused'); END"
        ),
    ],
    "postgresql": [
        (
            f"CREATE TRIGGER {ACCESS_TABLE}_no_update BEFORE UPDATE ON {ACCESS_TABLE} "
            f"FOR EACH ROW EXECUTE FUNCTION {FUNCTION}()"
        ),
        f"ALTER TABLE {ACCESS_TABLE} ENABLE ALWAYS TRIGGER {ACCESS_TABLE}_no_update",
    ],
}
ACCESS_REMOVE = {
    "sqlite": [f"DROP TRIGGER IF EXISTS {ACCESS_TABLE}_no_update"],
    "postgresql": [f"DROP TRIGGER IF EXISTS {ACCESS_TABLE}_no_update ON {ACCESS_TABLE}"],
}


# an ingest's run and its steps (audit.store.ingest): never changed, whoever asks (the
# application's role holds no DELETE either: audit.store.roles); removing rows stays the owner's
INGEST_TABLES = ("audit_ingestrun", "audit_ingeststep")
INGEST_INSTALL = {
    "sqlite": [
        (
            f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} "
            f"BEGIN SELECT RAISE(ABORT, '{table} is append-only: UPDATE refused'); END"
        )
        for table in INGEST_TABLES
    ],
    "postgresql": [
        sql
        for table in INGEST_TABLES
        for sql in (
            f"CREATE TRIGGER {table}_no_update BEFORE UPDATE ON {table} FOR EACH ROW EXECUTE FUNCTION {FUNCTION}()",
            f"ALTER TABLE {table} ENABLE ALWAYS TRIGGER {table}_no_update",
        )
    ],
}
INGEST_REMOVE = {
    "sqlite": [f"DROP TRIGGER IF EXISTS {table}_no_update" for table in INGEST_TABLES],
    "postgresql": [
        f"DROP TRIGGER IF EXISTS {table}_no_update ON {table}" for table in INGEST_TABLES
    ],
}


# people's authority seals (audit.access.authority_seal): a row per change, never changed, so
# that an older seal cannot be put back; the application's role holds no UPDATE or DELETE
AUTHORITY_TABLE = "audit_authorityseal"
AUTHORITY_INSTALL = {
    "sqlite": [
        (
            f"CREATE TRIGGER {AUTHORITY_TABLE}_no_update BEFORE UPDATE ON {AUTHORITY_TABLE} "
            f"BEGIN SELECT RAISE(ABORT, '{AUTHORITY_TABLE} is append-only: UPDATE refused'); END"
        ),
    ],
    "postgresql": [
        (
            f"CREATE TRIGGER {AUTHORITY_TABLE}_no_update BEFORE UPDATE ON {AUTHORITY_TABLE} "
            f"FOR EACH ROW EXECUTE FUNCTION {FUNCTION}()"
        ),
        f"ALTER TABLE {AUTHORITY_TABLE} ENABLE ALWAYS TRIGGER {AUTHORITY_TABLE}_no_update",
    ],
}
AUTHORITY_REMOVE = {
    "sqlite": [f"DROP TRIGGER IF EXISTS {AUTHORITY_TABLE}_no_update"],
    "postgresql": [f"DROP TRIGGER IF EXISTS {AUTHORITY_TABLE}_no_update ON {AUTHORITY_TABLE}"],
}


def statements(kind: dict[str, list[str]], vendor: str) -> list[str]:
    try:
        return kind[vendor]
    except KeyError:
        raise NotImplementedError(
            f"no append-only triggers for database vendor {vendor!r}: "
            "only SQLite and PostgreSQL are supported"
        ) from None


def _squash(sql: str) -> str:
    return re.sub(r"\s+", " ", sql).strip()


def _sqlite_expected() -> dict[str, tuple[str, str]]:
    """Trigger name -> (table, its shipped SQL) on SQLite: the event table's, the access
    log's, the ingest runs' and steps' and the authority seals'."""
    expected = {name: (TABLE, sql) for name, sql in SQLITE_TRIGGERS.items()}
    for table, sql in (
        [(ACCESS_TABLE, sql) for sql in ACCESS_INSTALL["sqlite"]]
        + list(zip(INGEST_TABLES, INGEST_INSTALL["sqlite"], strict=True))
        + [(AUTHORITY_TABLE, sql) for sql in AUTHORITY_INSTALL["sqlite"]]
    ):
        expected[f"{table}_no_update"] = (table, sql)
    return expected


def protection_problems(connection: Any) -> list[str]:
    """What is wrong with the append-only protection on ``connection`` - of the event
    table, the access log (``audit_access``), the ingest runs and steps and the
    authority seals (``audit_authorityseal``): a trigger
    missing, disabled (or only firing in one replication mode), a trigger function whose
    body is not the shipped one. Empty when the protection is as shipped."""
    with connection.cursor() as cursor:
        if connection.vendor == "sqlite":
            expected = _sqlite_expected()
            cursor.execute(
                "SELECT name, tbl_name, sql FROM sqlite_master WHERE type = 'trigger' AND tbl_name IN "
                f"({', '.join(['%s'] * len({t for t, _ in expected.values()}))})",
                sorted({t for t, _ in expected.values()}),
            )
            found = {name: (table, sql) for name, table, sql in cursor.fetchall()}
            problems = []
            for name, (table, sql) in expected.items():
                if name not in found or found[name][0] != table:
                    problems.append(f"trigger {name} on {table} is missing")
                elif _squash(found[name][1]) != _squash(sql):
                    problems.append(
                        f"trigger {name} on {table} is not the shipped one: {_squash(found[name][1])}"
                    )
            return problems
        expected = _pg_expected(cursor)
        cursor.execute(
            """SELECT t.tgrelid::regclass::text, t.tgname, t.tgenabled, p.proname, p.prosrc
               FROM pg_trigger t JOIN pg_proc p ON p.oid = t.tgfoid
               WHERE t.tgrelid = ANY(%s::regclass[]) AND NOT t.tgisinternal""",
            [sorted({table for table, _, _, _ in expected})],
        )
        rows = {(table, name): rest for table, name, *rest in cursor.fetchall()}
    problems = []
    modes = {
        "O": "enabled only outside replica mode",
        "D": "disabled",
        "R": "enabled only in replica mode",
    }
    for table, name, function, shipped in expected:
        if (table, name) not in rows:
            problems.append(f"trigger {name} on {table} is missing")
            continue
        enabled, found, body = rows[table, name]
        if enabled != "A":
            problems.append(
                f"trigger {name} on {table} is {modes.get(enabled, enabled)}, not enabled always"
            )
        if found != function:
            problems.append(f"trigger {name} on {table} runs {found}(), not {function}()")
        elif _squash(body) != _squash(shipped):
            problems.append(f"function {function}() is not the shipped one: {_squash(body)[:200]}")
    return sorted(set(problems))


def _pg_expected(cursor: Any) -> list[tuple[str, str, str, str]]:
    """(table, trigger, function, its body) that must be there on PostgreSQL: the event
    table's, the access log's, the ingest runs' and steps' and the authority seals'
    (UPDATE refused);
    partitioned (audit.store.partitions), also the key trigger, the key table's, the
    detached leaves' and each partition's (the row trigger cloned from the table's, its own TRUNCATE trigger)."""
    from audit.store import partitions

    expected = [(TABLE, name, FUNCTION, FUNCTION_BODY) for name in PG_TRIGGERS]
    expected += [
        (table, f"{table}_no_update", FUNCTION, FUNCTION_BODY)
        for table in (ACCESS_TABLE, *INGEST_TABLES, AUTHORITY_TABLE)
    ]
    cursor.execute("SELECT relkind FROM pg_class WHERE oid = to_regclass(%s)", [TABLE])
    if cursor.fetchone() != ("p",):
        return expected
    expected.append(
        (TABLE, partitions.KEYS_TRIGGER, partitions.KEEP_KEYS, partitions.KEEP_KEYS_BODY)
    )
    expected += [
        (partitions.KEY_TABLE, name, FUNCTION, FUNCTION_BODY) for name in partitions.KEY_TRIGGERS
    ]
    cursor.execute("SELECT to_regclass(%s) IS NOT NULL", [partitions.LEAVES])
    if cursor.fetchone()[0]:
        expected += [
            (partitions.LEAVES, name, FUNCTION, FUNCTION_BODY)
            for name in partitions.LEAVES_TRIGGERS
        ]
    cursor.execute(
        "SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = to_regclass(%s)",
        [TABLE],
    )
    for (partition,) in cursor.fetchall():
        expected += [(partition, name, FUNCTION, FUNCTION_BODY) for name in PG_TRIGGERS]
    return expected
