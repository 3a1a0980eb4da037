"""The demo on PostgreSQL runs as the least-privilege roles: it creates them for its
database, migrates as the owner and goes on as the application role, which - logged in
as itself, not a superuser borrowing it - cannot change, remove or unprotect an event."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction

from audit.models import Event
from audit.store import immutability
from audit.store.roles import privilege_problems
from audit.store.streams import events_append
from casino.demo import demo_database_ready
from tests.samples import round_events, table_opened

pytestmark = pytest.mark.django_db(transaction=True)

ATTACKS = (
    "UPDATE audit_event SET actor = 'forger'",
    "DELETE FROM audit_event",
    "TRUNCATE audit_event",
    "ALTER TABLE audit_event DISABLE TRIGGER ALL",
    "DROP TRIGGER audit_event_no_update_delete ON audit_event",
    "CREATE OR REPLACE FUNCTION audit_event_refuse() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$",
    "ALTER TABLE audit_event RENAME TO audit_event_old",
    "SET session_replication_role = replica",
)


def _current_user() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SELECT current_user")
        return str(cursor.fetchone()[0])


def test_the_demo_migrates_as_the_owner_and_runs_as_the_application_role(on_postgres) -> None:
    superuser = _current_user()
    database = str(connection.settings_dict["NAME"])
    said = demo_database_ready()
    owner, app = f"{database}_owner", f"{database}_app"
    assert (
        said
        == f"PostgreSQL: migrated as {owner}, running as {app} (reads and appends; cannot change or remove an event)"
    )
    assert _current_user() == app != superuser
    with connection.cursor() as cursor:
        cursor.execute("SELECT DISTINCT tableowner FROM pg_tables WHERE schemaname = 'public'")
        assert cursor.fetchall() == [(owner,)]
        assert privilege_problems(cursor, app=app) == []
    # what the application does, it can do as its role
    events_append(stream="T1", expected_version=0, events=[table_opened("T1"), *round_events(1)])
    before = list(Event.objects.order_by("position").values_list("position", "actor", "hash"))
    for attack in ATTACKS:
        with (
            pytest.raises(DatabaseError) as caught,
            transaction.atomic(),
            connection.cursor() as cursor,
        ):
            cursor.execute(attack)
        assert any(word in str(caught.value) for word in ("must be owner", "permission denied")), (
            attack,
            caught.value,
        )
    assert (
        list(Event.objects.order_by("position").values_list("position", "actor", "hash")) == before
    )
    assert immutability.protection_problems(connection) == []
    # a second run (the README's "running it again is harmless") starts from the superuser again
    assert demo_database_ready() == said and _current_user() == app


def test_the_demo_on_sqlite_only_migrates(db) -> None:
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's demo; PostgreSQL's is tested above")
    settings_before = dict(connection.settings_dict)
    assert demo_database_ready() is None
    assert dict(connection.settings_dict) == settings_before
