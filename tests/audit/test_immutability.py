"""The database itself refuses to change or remove stored events."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, connection, transaction

from audit.models import Event
from audit.store.streams import events_append
from tests.samples import round_events

pytestmark = pytest.mark.django_db


@pytest.fixture
def stored():
    return events_append(stream="T1", expected_version=0, events=round_events(1))


def _refused(sql: str) -> str:
    with (
        pytest.raises(DatabaseError) as caught,
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute(sql)
    return str(caught.value)


def test_raw_sql_update_is_refused(stored):
    """A raw UPDATE of a stored event fails in the database, whoever sends it."""
    message = _refused("UPDATE audit_event SET payload = '{}' WHERE version = 3")
    assert "append-only" in message
    assert Event.objects.get(stream="T1", version=3).payload == stored[2].payload


def test_raw_sql_delete_is_refused(stored):
    """A raw DELETE of a stored event fails in the database."""
    assert "append-only" in _refused("DELETE FROM audit_event WHERE version = 3")
    assert Event.objects.count() == 25


def test_orm_update_and_delete_are_refused(stored):
    """The ORM gets no further than raw SQL."""
    with pytest.raises(DatabaseError), transaction.atomic():
        Event.objects.filter(version=1).update(actor="x")
    with pytest.raises(DatabaseError), transaction.atomic():
        Event.objects.filter(version=1).delete()
    assert Event.objects.count() == 25


def test_truncate_is_refused_on_postgresql(on_postgres, stored):
    """Row triggers do not see TRUNCATE; a statement trigger refuses it on PostgreSQL."""
    assert "append-only" in _refused("TRUNCATE audit_event")
    assert Event.objects.count() == 25
