"""Least privilege on PostgreSQL: the application's role cannot get past the protection
of the event table by any of the ways its owner or a superuser could."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.core.management import CommandError, call_command
from django.db import DatabaseError, connection, transaction

from audit.models import Event
from audit.store import immutability
from audit.store.roles import create_roles_sql, grant_sql, privilege_problems
from audit.store.streams import events_append
from tests.samples import round_events, table_opened

pytestmark = pytest.mark.django_db(transaction=True)

APP = f"test_app_{os.getpid()}"

ATTACKS = {
    "disable the triggers": "ALTER TABLE audit_event DISABLE TRIGGER ALL",
    "drop a trigger": "DROP TRIGGER audit_event_no_update_delete ON audit_event",
    "replace the trigger function": (
        "CREATE OR REPLACE FUNCTION audit_event_refuse() RETURNS trigger LANGUAGE plpgsql "
        "AS $$ BEGIN RETURN NEW; END $$"
    ),
    "rename the table away": "ALTER TABLE audit_event RENAME TO audit_event_old",
    "create a look-alike table": "CREATE TABLE audit_event_new (LIKE audit_event)",
    "update an event": "UPDATE audit_event SET actor = 'forger'",
    "delete an event": "DELETE FROM audit_event",
    "truncate the table": "TRUNCATE audit_event",
    "switch to replica mode": "SET session_replication_role = replica",
    "take the table over": f"ALTER TABLE audit_event OWNER TO {APP}",
}


@contextmanager
def granted_role(name: str) -> Iterator[str]:
    """An application role ``name`` as the owner grants it after a migration (audit.store.roles),
    dropped afterwards."""
    with connection.cursor() as cursor:
        cursor.execute(f"DROP ROLE IF EXISTS {name}")
        cursor.execute(f"CREATE ROLE {name} LOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE")
        cursor.execute(f"GRANT USAGE ON SCHEMA public TO {name}")
        for sql in grant_sql(app=name):
            cursor.execute(sql)
    try:
        yield name
    finally:
        with connection.cursor() as cursor:
            cursor.execute(f"DROP OWNED BY {name}")
            cursor.execute(f"DROP ROLE {name}")


@pytest.fixture
def app_role(on_postgres):
    with granted_role(APP) as role:
        events_append(
            stream="T1", expected_version=0, events=[table_opened("T1"), *round_events(1)]
        )
        yield role


@pytest.mark.parametrize("attack", sorted(ATTACKS))
def test_the_application_role_cannot(app_role, attack: str) -> None:
    """Each way past the append-only protection fails for the application's role, and
    the events stay as they were."""
    before = list(Event.objects.order_by("position").values_list("position", "actor", "hash"))
    with (
        pytest.raises(DatabaseError) as caught,
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(f"SET LOCAL ROLE {app_role}")
        cursor.execute(ATTACKS[attack])
    assert any(
        word in str(caught.value) for word in ("must be owner", "permission denied", "append-only")
    ), caught.value
    assert (
        list(Event.objects.order_by("position").values_list("position", "actor", "hash")) == before
    )
    assert immutability.protection_problems(connection) == []


def test_the_application_role_appends_and_reads(app_role) -> None:
    """What the application does - append a round, read it back - works as its role."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute(f"SET LOCAL ROLE {app_role}")
        stored = events_append(stream="T1", expected_version=26, events=round_events(2))
        assert Event.objects.filter(stream="T1").count() == 51
    assert [e.version for e in stored] == list(range(27, 52))


def test_the_privilege_check_passes_for_the_app_role_and_names_what_is_wrong(app_role) -> None:
    """db_roles --check: nothing wrong with the role as granted; an UPDATE grant is named."""
    with connection.cursor() as cursor:
        assert privilege_problems(cursor, app=app_role) == []
        cursor.execute(f"GRANT UPDATE ON audit_event TO {app_role}")
        assert privilege_problems(cursor, app=app_role) == [
            f"role {app_role} may UPDATE audit_event"
        ]
    with pytest.raises(CommandError) as caught:
        call_command(
            "db_roles", "--check", "--app", app_role, stdout=io.StringIO(), stderr=io.StringIO()
        )
    assert caught.value.returncode == 1


def test_the_protection_check_names_a_disabled_or_replaced_trigger(on_postgres) -> None:
    """verify's protection check: as shipped, nothing; a trigger disabled (as an owner
    or superuser can) or a function replaced is named."""
    assert immutability.protection_problems(connection) == []
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("ALTER TABLE audit_event DISABLE TRIGGER audit_event_no_truncate")
        cursor.execute(
            "CREATE OR REPLACE FUNCTION audit_event_refuse() RETURNS trigger LANGUAGE plpgsql "
            "AS $$ BEGIN RETURN NEW; END $$"
        )
        problems = immutability.protection_problems(connection)
        transaction.set_rollback(True)
    assert (
        "trigger audit_event_no_truncate on audit_event is disabled, not enabled always" in problems
    )
    assert any(
        p.startswith("function audit_event_refuse() is not the shipped one") for p in problems
    )
    assert immutability.protection_problems(connection) == []


def test_replica_mode_no_longer_switches_the_triggers_off(on_postgres) -> None:
    """Even a superuser's replica mode meets the triggers (they fire always)."""
    events_append(stream="T1", expected_version=0, events=[table_opened("T1")])
    with (
        pytest.raises(DatabaseError, match="append-only"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute("UPDATE audit_event SET actor = 'forger'")


def test_the_protection_check_on_sqlite_names_a_dropped_trigger(db) -> None:
    """On SQLite the check compares the triggers with the shipped SQL."""
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's own check; PostgreSQL's is tested above")
    assert immutability.protection_problems(connection) == []
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("DROP TRIGGER audit_event_no_delete")
        assert immutability.protection_problems(connection) == [
            "trigger audit_event_no_delete on audit_event is missing"
        ]
        transaction.set_rollback(True)


def test_role_names_that_are_not_plain_are_refused() -> None:
    with pytest.raises(ValueError, match="plain role name"):
        create_roles_sql(owner="owner; DROP TABLE x", app="app", database="db")


def test_verify_fails_when_the_protection_is_not_as_shipped(db) -> None:
    """manage.py verify: exit 1 naming a dropped or disabled trigger, even when every
    chain is intact."""
    call_command("verify", stdout=io.StringIO(), stderr=io.StringIO())
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute("ALTER TABLE audit_event DISABLE TRIGGER audit_event_no_update_delete")
        else:
            cursor.execute("DROP TRIGGER audit_event_no_update")
        err = io.StringIO()
        with pytest.raises(CommandError) as caught:
            call_command("verify", stdout=io.StringIO(), stderr=err)
        transaction.set_rollback(True)
    assert caught.value.returncode == 1
    assert "protection: trigger audit_event_no_update" in err.getvalue()


@pytest.mark.parametrize("table", ["audit_access", "audit_ingestrun", "audit_ingeststep"])
def test_verify_names_a_dropped_trigger_of_the_access_log_or_the_ingest_runs(
    db, table: str
) -> None:
    """The access log and the ingest runs and steps refuse UPDATE by a trigger of their
    own: one dropped (as the owner or a superuser can) is named by verify, exit 1, as the
    event table's are."""
    call_command("verify", stdout=io.StringIO(), stderr=io.StringIO())
    with transaction.atomic(), connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            cursor.execute(f"DROP TRIGGER {table}_no_update ON {table}")
        else:
            cursor.execute(f"DROP TRIGGER {table}_no_update")
        problems = immutability.protection_problems(connection)
        err = io.StringIO()
        with pytest.raises(CommandError) as caught:
            call_command("verify", stdout=io.StringIO(), stderr=err)
        transaction.set_rollback(True)
    assert problems == [f"trigger {table}_no_update on {table} is missing"]
    assert caught.value.returncode == 1
    assert f"protection: trigger {table}_no_update on {table} is missing" in err.getvalue()
    assert immutability.protection_problems(connection) == []


def test_the_protection_check_names_a_disabled_access_log_trigger(on_postgres) -> None:
    """PostgreSQL: the access log's trigger disabled, or the ingest runs' replaced by one
    that runs another function, is named."""
    with transaction.atomic(), connection.cursor() as cursor:
        cursor.execute("ALTER TABLE audit_access DISABLE TRIGGER audit_access_no_update")
        cursor.execute(
            "CREATE FUNCTION let_it_be() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RETURN NEW; END $$"
        )
        cursor.execute("DROP TRIGGER audit_ingeststep_no_update ON audit_ingeststep")
        cursor.execute(
            "CREATE TRIGGER audit_ingeststep_no_update BEFORE UPDATE ON audit_ingeststep "
            "FOR EACH ROW EXECUTE FUNCTION let_it_be()"
        )
        problems = immutability.protection_problems(connection)
        transaction.set_rollback(True)
    assert problems == [
        "trigger audit_access_no_update on audit_access is disabled, not enabled always",
        # made again as an ordinary trigger: it neither fires always nor refuses anything
        (
            "trigger audit_ingeststep_no_update on audit_ingeststep is enabled only outside replica "
            "mode, not enabled always"
        ),
        "trigger audit_ingeststep_no_update on audit_ingeststep runs let_it_be(), not audit_event_refuse()",
    ]
