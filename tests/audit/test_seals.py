"""Every stored row carries the store's seal: the database refuses a row without one, and
verify names every row whose seal does not hold - in any stream, a new one too - and
what is wrong with the database's refusal itself."""

from __future__ import annotations

import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction

from audit.models import Event
from audit.store import seals
from audit.store.streams import events_append
from tests.commands import run_command
from tests.samples import round_events, table_opened

from .tampering import _close, _open, forged_stream, insert_forged

pytestmark = pytest.mark.django_db


@pytest.fixture
def table() -> list[Event]:
    return events_append(
        stream="T1", expected_version=0, events=[table_opened("T1"), *round_events(1)]
    )


def test_every_appended_row_holds_the_stores_seal(table) -> None:
    """The seal of each row is the HMAC of its hash and principal under SEAL_KEY."""
    assert all(seals.seal_holds(e.hash, e.principal, e.seal) for e in Event.objects.all())
    assert Event.objects.count() == 26


@pytest.mark.parametrize(
    ("principal", "seal"),
    [(None, None), ("device:device-T9", None), (None, "0" * 64), ("device:device-T9", "0" * 63)],
)
def test_the_database_refuses_a_row_without_a_seal_and_principal(table, principal, seal) -> None:
    """A row with a correct chain but no seal (or no principal, or a seal that is not 64
    characters) inserted past the store: refused, nothing stored."""
    forged = forged_stream("T9", [table_opened("T9")])
    with (
        pytest.raises((IntegrityError, DatabaseError)) as caught,
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        insert_forged(cursor, forged, principal=principal, seal=seal)
    assert "audit_event_sealed" in str(caught.value) or "seal" in str(caught.value)
    assert not Event.objects.filter(stream="T9").exists()


def test_verify_names_a_whole_new_stream_with_forged_seals(table) -> None:
    """A new stream, chained correctly, each row with a seal of the right form made with
    another key: the first row named unsealed, with how many more; the table that the store
    wrote verifies, so the message does not blame the key."""
    forged = forged_stream("T9", [table_opened("T9"), *round_events(1)])
    with transaction.atomic(), connection.cursor() as cursor:
        for e in forged:
            insert_forged(
                cursor,
                [e],
                principal="device:device-T9",
                seal=seals.seal_of(e.hash, "device:device-T9", secret="a-forgers-key-" + "f" * 40),
            )
    code, _, err = run_command("verify")
    assert code == 1
    first = Event.objects.get(stream="T9", version=1)
    assert (
        f"T9: first bad event is version 1 at position {first.position} (id {first.event_id}): unsealed: its "
        "server seal does not hold for its hash and principal 'device:device-T9'; 25 more of the stream's "
        "events have none that holds"
    ) in err
    assert "T1" not in err and "SEAL_KEY_FALLBACKS" not in err


def test_verify_names_rows_without_a_seal_in_a_stream_that_never_had_one(table) -> None:
    """Past the database's refusal (an owner drops it): a new stream without seals is
    named all the same, as is the refusal gone; no exemption for a stream without a
    sealed event."""
    forged = forged_stream("T9", [table_opened("T9"), *round_events(1)[:4]])
    with transaction.atomic():
        _open()
        with connection.cursor() as cursor:
            insert_forged(cursor, forged)
        _close()
    code, _, err = run_command("verify")
    assert code == 1
    assert "T9: first bad event is version 1" in err
    assert (
        "unsealed: it has no server seal (a row written past the store); 4 more of the stream's events"
        in err
    )


def test_the_refusal_of_unsealed_rows_is_checked_as_protection(table) -> None:
    """As shipped: nothing. Dropped (as an owner can): verify exits 1 naming it."""
    assert seals.guard_problems(connection) == []
    with transaction.atomic(), connection.cursor() as cursor:
        for sql in seals.GUARD_REMOVE[connection.vendor]:
            cursor.execute(sql)
        code, _, err = run_command("verify")
        transaction.set_rollback(True)
    assert code == 1
    kind = "trigger" if connection.vendor == "sqlite" else "constraint"
    assert f"protection: {kind} audit_event_sealed on audit_event is missing" in err
    assert seals.guard_problems(connection) == []


def test_a_weakened_refusal_is_named(table) -> None:
    """The guard replaced by one that lets a row without a seal through."""
    with transaction.atomic(), connection.cursor() as cursor:
        for sql in seals.GUARD_REMOVE[connection.vendor]:
            cursor.execute(sql)
        if connection.vendor == "sqlite":
            cursor.execute(
                "CREATE TRIGGER audit_event_sealed BEFORE INSERT ON audit_event WHEN NEW.principal IS NULL "
                "BEGIN SELECT RAISE(ABORT, 'x'); END"
            )
        else:
            cursor.execute(
                "ALTER TABLE audit_event ADD CONSTRAINT audit_event_sealed CHECK (principal IS NOT NULL)"
            )
        problems = seals.guard_problems(connection)
        transaction.set_rollback(True)
    assert (
        len(problems) == 1
        and "audit_event_sealed on audit_event is not the shipped one" in problems[0]
    )
