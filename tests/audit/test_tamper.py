"""The tamper suite (PostgreSQL): every attack on the record that the database's own
protection cannot refuse is found by ``verify`` (exit 1) against the heads at the
publisher - as the application's role, as the schema's owner, as a superuser. The roles
are made as deploy/ makes them (an owner that owns the schema, an application role granted
as a migration leaves it); the heads go to a folder, the publisher the owner cannot reach.
Everything a test does, roles and ownership included, is rolled back after it."""

from __future__ import annotations

import json
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import msgspec
import pytest
from django.db import DatabaseError, connection, transaction

from audit.integrity import digests
from audit.models import Event
from audit.record.envelope import seal
from audit.store import partitions, seals
from audit.store.roles import adopt_sql, grant_sql
from audit.store.streams import envelope_of, events_append, stream_head
from tests.commands import run_command
from tests.samples import round_events, sample_event, table_opened

from .tampering import forged_stream, insert_forged

pytestmark = [pytest.mark.postgres, pytest.mark.django_db]

OWNER = f"tamper_owner_{os.getpid()}"
APP = f"tamper_app_{os.getpid()}"


@contextmanager
def as_role(role: str) -> Iterator[None]:
    """Statements as ``role`` (SET ROLE), back to the test's login after."""
    with connection.cursor() as cursor:
        cursor.execute(f"SET ROLE {role}")
    try:
        yield
    finally:
        with connection.cursor() as cursor:
            cursor.execute("RESET ROLE")


def sql(*statements: str) -> None:
    with connection.cursor() as cursor:
        for statement in statements:
            cursor.execute(statement)


@pytest.fixture
def casino(on_postgres, settings, tmp_path) -> Path:
    """Two tables of two rounds each, appended by the application role, and a head signed
    by it and published to the folder returned; then a round of T1 after that head (the
    window). The schema handed to an owner role, the application role granted."""
    publisher = tmp_path / "publisher"
    settings.DIGEST_PUBLISHERS = [str(publisher)]
    sql(
        f"CREATE ROLE {OWNER} NOLOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE",
        *adopt_sql(owner=OWNER),
        f"CREATE ROLE {APP} LOGIN NOINHERIT NOSUPERUSER NOCREATEDB NOCREATEROLE",
        f"GRANT USAGE ON SCHEMA public TO {APP}",
        *grant_sql(app=APP),
    )
    with as_role(APP):
        for table in ("T1", "T2"):
            events_append(
                stream=table,
                expected_version=0,
                events=[table_opened(table), *round_events(1), *round_events(2)],
            )
        digests.digest_sign()
        events_append(stream="T1", expected_version=51, events=round_events(3))
    assert verify()[0] == 0
    return publisher


def verify(*args: str) -> tuple[int, str]:
    code, out, err = run_command("verify", *args)
    return code, out + err


def _forged_seal(envelope) -> str:
    return seals.seal_of(envelope.hash, "device:device-T9", secret="a-guessed-key-" + "g" * 40)


# --- the application's role -------------------------------------------------------------------


@pytest.mark.parametrize("principal", [None, "device:device-T9", "server:digest"])
def test_the_app_role_cannot_store_a_row_without_a_seal(casino, principal) -> None:
    """A whole new stream, chained correctly, with no seal (a principal claimed or not):
    the database refuses it; nothing is stored."""
    forged = forged_stream("T9", [table_opened("T9"), *round_events(1)])
    with (
        as_role(APP),
        pytest.raises(DatabaseError, match="audit_event_sealed"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        insert_forged(cursor, forged, principal=principal)
    assert not Event.objects.filter(stream="T9").exists()


def test_the_app_role_forging_a_sealed_stream_is_found(casino) -> None:
    """The same stream with a seal of the right form, made with a guessed key and a
    claimed principal: stored (the database cannot check a seal), named by verify."""
    forged = forged_stream("T9", [table_opened("T9"), *round_events(1)])
    with as_role(APP), connection.cursor() as cursor:
        for envelope in forged:
            insert_forged(
                cursor, [envelope], principal="device:device-T9", seal=_forged_seal(envelope)
            )
    code, said = verify()
    assert code == 1
    assert "T9: first bad event is version 1" in said
    assert (
        "unsealed: its server seal does not hold for its hash and principal 'device:device-T9'; 25 more"
        in said
    )


def test_the_app_role_forging_an_event_after_the_last_head_is_found(casino) -> None:
    """A buy-in forged at T1's head, past the last signed head, chained onto it."""
    version, head = stream_head("T1")
    buyin = {"box": 1, "player": "P-forged", "method": "cash", "amount": 500000, "currency": "EUR"}
    [forged] = forged_stream(
        "T1", [sample_event("buyin.recorded", buyin)], version=version, head=head
    )
    with as_role(APP), connection.cursor() as cursor:
        insert_forged(cursor, [forged], principal="device:device-T1", seal=_forged_seal(forged))
    code, said = verify()
    assert (
        code == 1 and f"T1: first bad event is version {version + 1}" in said and "unsealed" in said
    )


# --- the schema's owner ----------------------------------------------------------------------


def _owner_opens() -> None:
    """What the owner can do and the application cannot: the triggers off, the refusal of
    unsealed rows dropped."""
    sql(partitions.every_trigger_sql("DISABLE"), *seals.GUARD_REMOVE["postgresql"])


def _owner_tidies() -> None:
    """...and back as shipped, so that verify's protection check has nothing to say."""
    sql(partitions.every_trigger_sql("ENABLE ALWAYS"), *seals.GUARD_INSTALL["postgresql"])


def test_the_owner_stripping_seals_is_found_even_with_the_protection_put_back(casino) -> None:
    """Seals set to NULL on every row of T1 (covered by the head and after it): each row
    unsealed, and the head's root no longer holds - its leaves committed to the seals."""
    with as_role(OWNER):
        _owner_opens()
        sql("UPDATE audit_event SET seal = NULL WHERE stream = 'T1'")
        code, said = verify()
        assert (
            code == 1
            and "protection: constraint audit_event_sealed on audit_event is missing" in said
        )
        _owner_tidies()
    code, said = verify()
    assert code == 1
    assert "T1: first bad event is version 1" in said and "unsealed: it has no server seal" in said
    assert "no longer have its Merkle root" in said and "or a seal stripped or replaced" in said
    assert "protection:" not in said


def test_the_owner_rewriting_rehashing_and_unsealing_after_the_last_head_is_found(casino) -> None:
    """The probe's attack: the events after the last signed head rewritten (a settlement's
    net changed), re-hashed with the project's own function and their seals set to NULL;
    the protection put back. Under the head nothing changed - the seal names them."""
    head = digests.latest_signed()
    after = list(
        Event.objects.filter(stream="T1", version__gt=head.streams["T1"][0]).order_by("version")
    )
    assert len(after) == 25
    settled = next(e for e in after if e.type == "round.settled")
    payload = {
        **settled.payload,
        "settlements": [
            {**settled.payload["settlements"][0], "net": 77_700},
            *settled.payload["settlements"][1:],
        ],
    }
    prev = Event.objects.get(stream="T1", version=after[0].version - 1).hash
    rows = []
    for event in after:
        envelope = envelope_of(event)
        if event.pk == settled.pk:
            envelope = msgspec.structs.replace(envelope, payload=payload)
        envelope = seal(msgspec.structs.replace(envelope, prev_hash=prev, hash=""))
        rows.append((event.position, envelope))
        prev = envelope.hash
    with as_role(OWNER):
        _owner_opens()
        with connection.cursor() as cursor:
            for position, envelope in rows:
                cursor.execute(
                    "UPDATE audit_event SET payload = %s::jsonb, prev_hash = %s, hash = %s, seal = NULL "
                    "WHERE position = %s",
                    [json.dumps(envelope.payload), envelope.prev_hash, envelope.hash, position],
                )
        _owner_tidies()
    code, said = verify()
    assert code == 1
    assert f"T1: first bad event is version {after[0].version}" in said and "unsealed" in said
    assert "24 more of the stream's events" in said


# --- a superuser ----------------------------------------------------------------------------


def _superuser(*statements: str) -> None:
    """As the test's login, a superuser: the triggers dropped - not just disabled - and the
    refusal of unsealed rows, the statements run, all put back as shipped."""
    from audit.store import immutability

    sql(
        f"DROP TRIGGER {immutability.PG_TRIGGERS[0]} ON audit_event",
        partitions.every_trigger_sql("DISABLE"),
        *statements,
        immutability.INSTALL["postgresql"][1],
        partitions.every_trigger_sql("ENABLE ALWAYS"),
    )


def _signer_covers_the_window() -> digests.signing.SignedTreeHead:
    """The signer's next head, within its interval of the last commit: it covers T1's
    round after the first head."""
    with as_role(APP):
        sth, _ = digests.digest_sign()
    return sth


def test_a_superuser_cutting_a_tail_and_its_head_is_found_against_the_publisher(casino) -> None:
    """The round after the first head is covered by the signer's next head, published.
    The superuser deletes that round and the head's event from the database (whose latest
    head is then the first, which never covered the round): the publisher's head names the
    cut; the signer will not sign over it."""
    second = _signer_covers_the_window()
    assert json.loads((casino / "latest.json").read_text())["size"] == second.size
    _superuser(
        "DELETE FROM audit_event WHERE stream = 'T1' AND version > 51",
        f"DELETE FROM audit_event WHERE stream = '{digests.DIGEST_STREAM}' AND version = 2",
        f"DELETE FROM {partitions.KEY_TABLE} WHERE (stream = 'T1' AND version > 51) "
        f"OR (stream = '{digests.DIGEST_STREAM}' AND version = 2)",
    )
    assert digests.latest_signed().size < second.size
    code, said = verify()
    assert code == 1
    assert f"({casino}, {second.size:,} events): the record now holds only" in said.replace(
        "folder ", ""
    )
    assert "T1: ends at version 51" in said and "truncated: the known head is version 76" in said
    with (
        as_role(APP),
        pytest.raises(digests.DigestError, match="does not extend the signed head of"),
    ):
        digests.digest_sign()


def test_the_database_heads_deleted_are_found_while_the_publisher_has_them(casino) -> None:
    """The signer's next head covers the first head's event; the superuser deletes every
    head in the database: the publisher's names the stream of heads cut."""
    second = _signer_covers_the_window()
    _superuser(
        f"DELETE FROM audit_event WHERE stream = '{digests.DIGEST_STREAM}'",
        f"DELETE FROM {partitions.KEY_TABLE} WHERE stream = '{digests.DIGEST_STREAM}'",
    )
    assert digests.latest_signed() is None
    code, said = verify()
    assert code == 1
    assert "the heads in the database (audit.digests): none" in said
    assert f"folder {casino}: the latest of {second.size:,} events" in said
    assert "audit.digests: ends at version 0" in said and "truncated" in said
    assert "no longer have its Merkle root" in said or "now holds only" in said


def test_no_head_anywhere_is_found(casino) -> None:
    """The database's heads deleted and the publisher's gone too: exit 1, saying where it
    looked and that it found nothing to trust."""
    _superuser(
        f"DELETE FROM audit_event WHERE stream = '{digests.DIGEST_STREAM}'",
        f"DELETE FROM {partitions.KEY_TABLE} WHERE stream = '{digests.DIGEST_STREAM}'",
    )
    for path in sorted(casino.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    code, said = verify()
    assert code == 1
    assert (
        "no trusted signed head found, so a cut tail or a consistent re-hash cannot be seen; looked in the heads "
        f"in the database (audit.digests): none; folder {casino}: none"
    ) in said


def test_only_the_regulators_own_head_finds_a_record_cut_and_signed_anew(casino, tmp_path) -> None:
    """What no check at the casino can see: a superuser cuts a tail, deletes every head in
    the database and at the publisher (out of the model: the publisher is theirs too),
    drops the tree kept for signing, and a signer that remembers nothing signs the cut
    record anew. The head the regulator kept (verify --head FILE) still finds it."""
    kept = tmp_path / "regulator-head.json"
    kept.write_text((casino / "latest.json").read_text())
    _superuser(
        "DELETE FROM audit_event WHERE stream = 'T2' AND version > 26",
        f"DELETE FROM audit_event WHERE stream = '{digests.DIGEST_STREAM}'",
        f"DELETE FROM {partitions.KEY_TABLE} WHERE (stream = 'T2' AND version > 26) "
        f"OR stream = '{digests.DIGEST_STREAM}'",
        "DELETE FROM audit_merkleblock",
        "DELETE FROM audit_merklestate",
        f"UPDATE audit_subscriberposition SET position = 0 WHERE name = '{digests.SUBSCRIBER_NAME}'",
    )
    for path in sorted(casino.rglob("*"), reverse=True):
        path.rmdir() if path.is_dir() else path.unlink()
    with as_role(APP):
        digests.digest_sign()
    assert verify()[0] == 0  # the casino's own heads all agree with the cut record
    code, said = verify("--head", str(kept))
    assert code == 1
    assert f"({kept}, 102 events): the first 102 events no longer have its Merkle root" in said
