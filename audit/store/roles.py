"""Least privilege on PostgreSQL: an owner role that migrates, an application role that
reads and appends.

- The **owner** role (``DATABASE_OWNER_ROLE``, e.g. ``blackjack_owner``) owns the schema,
  every table and the trigger function: it runs ``manage.py migrate`` (the release step,
  with ``DATABASE_URL`` naming it) and nothing else.
- The **application** role (``DATABASE_APP_ROLE``, e.g. ``blackjack_app``) is what the
  web, worker and beat processes connect as. It owns nothing, so it cannot ALTER, DISABLE
  or DROP the append-only triggers, replace their function or rename the table; on the
  event table it holds SELECT and INSERT only (no UPDATE, DELETE, TRUNCATE, TRIGGER or
  REFERENCES); on the read models, everything their projections need. It is not a
  superuser, so it cannot set ``session_replication_role`` either. On PostgreSQL's
  partitioned event table (:mod:`audit.store.partitions`) it holds nothing on the partitions
  themselves (it reads and appends through the table), SELECT only on the key table, and
  EXECUTE on the one function that makes partitions ahead; it cannot detach or drop one.

:func:`create_roles_sql` is what a database superuser runs once (``manage.py db_roles``
prints it, or runs it with ``--execute``; ``deploy/db-roles.sql`` is its output for the
default names). :func:`grant_sql` is what the owner runs after every migration: the
``post_migrate`` hook of :mod:`audit.apps` runs it when ``DATABASE_APP_ROLE`` is set, so
new tables are granted as they come.
"""

from __future__ import annotations

import re

from .immutability import ACCESS_TABLE, AUTHORITY_TABLE, INGEST_TABLES
from .immutability import TABLE as EVENT_TABLE
from .partitions import KEY_TABLE, LEAVES, MAKE

# tables the application may only read and append to
APPEND_ONLY = (EVENT_TABLE, ACCESS_TABLE, *INGEST_TABLES, AUTHORITY_TABLE)
_ROLE = re.compile(r"^[a-z_][a-z0-9_]{0,62}\Z")


def check_role_name(name: str) -> str:
    """A role name we can write into SQL unquoted (lower case, letters, digits, _)."""
    if not _ROLE.match(name):
        raise ValueError(
            f"{name!r} is not a plain role name (lower-case letters, digits and _, at most 63)"
        )
    return name


def create_roles_sql(*, owner: str, app: str, database: str) -> list[str]:
    """The statements a superuser runs once to set the two roles up on ``database``
    (run them connected to that database: the schema's ownership is per database)."""
    owner, app, database = check_role_name(owner), check_role_name(app), check_role_name(database)
    limits = "NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS"
    return [
        (
            f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{owner}') THEN "
            f"CREATE ROLE {owner} LOGIN {limits}; END IF; END $$"
        ),
        (
            f"DO $$ BEGIN IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '{app}') THEN "
            f"CREATE ROLE {app} LOGIN NOINHERIT {limits}; END IF; END $$"
        ),
        # the app must not hold the owner's rights through a membership
        f"REVOKE {owner} FROM {app}",
        f"REVOKE ALL ON DATABASE {database} FROM PUBLIC",
        f"GRANT CONNECT, TEMPORARY ON DATABASE {database} TO {owner}, {app}",
        f"ALTER SCHEMA public OWNER TO {owner}",
        "REVOKE CREATE ON SCHEMA public FROM PUBLIC",
        f"GRANT USAGE ON SCHEMA public TO {app}",
    ]


def adopt_sql(*, owner: str) -> list[str]:
    """What a superuser runs to hand a schema migrated before the roles existed (by the
    superuser itself, say) to the owner role: its tables and views (with the indexes,
    triggers and sequences they own), free sequences, and functions - so the owner can
    migrate it from then on."""
    owner = check_role_name(owner)
    return [
        (
            "DO $$ DECLARE r record; BEGIN "
            "FOR r IN SELECT c.oid::regclass::text AS name FROM pg_class c JOIN pg_namespace n ON "
            "n.oid = c.relnamespace "
            "WHERE n.nspname = 'public' AND c.relkind IN ('r', 'p', 'v', 'm', 'S') AND "
            f"pg_get_userbyid(c.relowner) <> '{owner}' "
            # a sequence a column owns moves with its table (and cannot be moved alone)
            "AND NOT (c.relkind = 'S' AND EXISTS (SELECT FROM pg_depend d WHERE d.classid = 'pg_class'::regclass "
            "AND d.objid = c.oid AND d.deptype IN ('a', 'i'))) "
            f"LOOP EXECUTE format('ALTER TABLE %s OWNER TO {owner}', r.name); END LOOP; "
            "FOR r IN SELECT p.oid::regprocedure::text AS name FROM pg_proc p JOIN pg_namespace n "
            "ON n.oid = p.pronamespace "
            f"WHERE n.nspname = 'public' AND pg_get_userbyid(p.proowner) <> '{owner}' "
            f"LOOP EXECUTE format('ALTER FUNCTION %s OWNER TO {owner}', r.name); END LOOP; END $$"
        )
    ]


def grant_sql(*, app: str) -> list[str]:
    """What the owner grants the application after a migration: everything on the read
    models, SELECT and INSERT on the append-only tables, the sequences it inserts with."""
    app = check_role_name(app)
    statements = [
        f"GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA public TO {app}",
        f"GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA public TO {app}",
    ]
    for table in APPEND_ONLY:
        statements.append(
            f"REVOKE UPDATE, DELETE, TRUNCATE, TRIGGER, REFERENCES ON {table} FROM {app}"
        )
    # partitioned (audit.store.partitions): nothing on a partition itself - the application
    # reads and appends through the table, and an INSERT straight into a partition would
    # pass by the key trigger; the key table read only (the store's write path reads it;
    # the key trigger writes it as the owner); the one function that makes partitions
    # ahead, which runs as the owner; the detached days' leaves read only (the owner's
    # archival writes them)
    statements.append(
        "DO $$ DECLARE r record; BEGIN "
        f"FOR r IN SELECT inhrelid::regclass AS name FROM pg_inherits WHERE inhparent = to_regclass('{EVENT_TABLE}') "
        f"LOOP EXECUTE format('REVOKE ALL ON %s FROM {app}', r.name); END LOOP; "
        f"IF to_regclass('{KEY_TABLE}') IS NOT NULL THEN "
        f"REVOKE ALL ON {KEY_TABLE} FROM {app}; GRANT SELECT ON {KEY_TABLE} TO {app}; END IF; "
        f"IF to_regclass('{LEAVES}') IS NOT NULL THEN "
        f"REVOKE ALL ON {LEAVES} FROM {app}; GRANT SELECT ON {LEAVES} TO {app}; END IF; "
        f"IF to_regprocedure('{MAKE}(integer, text, integer)') IS NOT NULL THEN "
        f"GRANT EXECUTE ON FUNCTION {MAKE}(integer, text, integer) TO {app}; END IF; END $$"
    )
    return statements


def privilege_problems(cursor: object, *, app: str) -> list[str]:
    """What the application role holds that it must not (PostgreSQL): ownership of a
    protected object, superuser, replication, or a write privilege on an append-only
    table. Empty when it is as :func:`grant_sql` leaves it."""
    app = check_role_name(app)
    execute = cursor.execute  # type: ignore[attr-defined]
    fetch = cursor.fetchall  # type: ignore[attr-defined]
    execute("SELECT rolsuper, rolreplication, rolbypassrls FROM pg_roles WHERE rolname = %s", [app])
    found = fetch()
    if not found:
        return [f"role {app} does not exist"]
    problems = []
    superuser, replication, bypass = found[0]
    for flag, what in (
        (superuser, "is a superuser"),
        (replication, "may replicate"),
        (bypass, "bypasses row security"),
    ):
        if flag:
            problems.append(f"role {app} {what}")
    execute(
        "SELECT inhrelid::regclass::text FROM pg_inherits WHERE inhparent = to_regclass(%s) ORDER BY 1",
        [EVENT_TABLE],
    )
    parts = [row[0] for row in fetch()]
    keys = []
    for table in (KEY_TABLE, LEAVES):
        execute("SELECT to_regclass(%s) IS NOT NULL", [table])
        keys += [table] if fetch()[0][0] else []
    refused = {"UPDATE", "DELETE", "TRUNCATE", "TRIGGER"}
    for table, privileges in (
        [(t, refused) for t in APPEND_ONLY]
        + [(t, refused | {"INSERT"}) for t in keys]
        + [(t, refused | {"INSERT", "SELECT"}) for t in parts]
    ):
        execute(
            "SELECT pg_get_userbyid(relowner) FROM pg_class WHERE oid = to_regclass(%s)", [table]
        )
        owner = fetch()
        if owner and owner[0][0] == app:
            problems.append(f"role {app} owns {table}")
        for privilege in sorted(
            privileges, key=["SELECT", "INSERT", "UPDATE", "DELETE", "TRUNCATE", "TRIGGER"].index
        ):
            execute("SELECT has_table_privilege(%s, %s, %s)", [app, table, privilege])
            if fetch()[0][0]:
                problems.append(
                    f"role {app} may {privilege} {table}" + (" directly" if table in parts else "")
                )
    return problems
