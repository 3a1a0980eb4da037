"""Ingest's rows, built from canonical text (the fast path), are the store's rows: the one
verifier re-hashes them clean, their seals hold, and text that COPY treats specially
(backslashes, tabs, newlines, quotes, non-ASCII) comes back as it went in."""

from __future__ import annotations

import hashlib
import hmac
import json
import uuid

import pytest

from audit.integrity.chains import verify_chains
from audit.models import Event
from audit.store.ingest import ingest_file
from audit.store.seals import _key, seal_holds, seal_of, sealer
from audit.store.streams import events_append
from tests.samples import round_events, table_opened

pytestmark = pytest.mark.django_db

AWKWARD = 'tab\there\nnew line, "quoted", back\\slash \\n not a newline, é ☃ \\\\ twice'


def _line(stream: str, event_id: uuid.UUID, note: str, **extra: object) -> str:
    return (
        json.dumps(
            {
                "id": str(event_id),
                "stream": stream,
                "type": "alert.acknowledged",
                "occurred_at": "2026-11-29T13:00:00.5+01:00",
                "actor": "user:alice",
                "source": "ingest-test",
                "payload": {
                    "alert": "verify:x",
                    "kind": "verify_failed",
                    "table": None,
                    "finding": None,
                    "by": "alice",
                    "note": note,
                },
                **extra,
            },
            ensure_ascii=False,
        )
        + "\n"
    )


def test_awkward_text_is_stored_as_given_hashed_as_the_store_hashes_and_sealed(tmp_path):
    events_append(stream="T1", expected_version=0, events=[table_opened("T1")])
    ids = [uuid.uuid4() for _ in range(3)]
    path = tmp_path / "awkward.jsonl"
    path.write_text(
        "".join(_line("audit.alerts", i, AWKWARD + str(n)) for n, i in enumerate(ids))
        + "".join(
            json.dumps(
                {
                    "id": str(e.id),
                    "stream": "T1",
                    "type": e.type,
                    "occurred_at": e.occurred_at.isoformat(),
                    "actor": e.actor,
                    "source": "device",
                    "payload": e.payload,
                }
            )
            + "\n"
            for e in round_events(1)
        ),
        encoding="utf-8",
    )
    report = ingest_file(str(path), chunk=2)
    assert report.ok and report.stored == 28, report.bad_lines
    rows = list(Event.objects.filter(stream="audit.alerts").order_by("version"))
    assert [r.payload["note"] for r in rows] == [AWKWARD + str(n) for n in range(3)]
    assert [r.event_id for r in rows] == ids
    assert rows[0].occurred_at.isoformat() == "2026-11-29T12:00:00.500000+00:00"
    assert all(seal_holds(r.hash, r.principal, r.seal) for r in Event.objects.all())
    verified = verify_chains()
    assert verified.ok and verified.events == 29, verified.problems


def test_a_restore_of_the_awkward_lines_is_checked_against_their_stored_hashes(tmp_path):
    """The export of what the store wrote through events_append (the slow path) ingests
    back with the same hashes - and a claimed hash one character off is refused."""
    from audit.store.export import export_events
    from audit.store.streams import NewEvent

    from .tampering import empty_store

    events_append(
        stream="audit.alerts",
        expected_version=0,
        events=[
            NewEvent(
                id=uuid.uuid4(),
                type="alert.acknowledged",
                occurred_at=__import__("datetime").datetime.fromisoformat(
                    "2026-11-29T13:00:00+01:00"
                ),
                actor="user:alice",
                source="api",
                payload={
                    "alert": "verify:x",
                    "kind": "verify_failed",
                    "table": None,
                    "finding": None,
                    "by": "alice",
                    "note": AWKWARD,
                },
            )
        ],
    )
    stored = Event.objects.get()
    out = tmp_path / "export.jsonl"
    with out.open("w") as handle:
        export_events(handle)
    empty_store()
    report = ingest_file(str(out))
    assert report.ok and report.stored == 1
    assert Event.objects.get().hash == stored.hash
    empty_store()
    line = json.loads(out.read_text())
    line["hash"] = line["hash"][:-1] + ("0" if line["hash"][-1] != "0" else "1")
    out.write_text(json.dumps(line) + "\n")
    refused = ingest_file(str(out))
    assert [b.number for b in refused.bad_lines] == [1]
    assert refused.bad_lines[0].reason.startswith(
        f"hash: does not match the event's content (computed {stored.hash})"
    )
    assert Event.objects.count() == 0


def test_the_seal_is_the_standard_hmac_of_hash_and_principal(settings):
    expected = hmac.new(
        _key(settings.SEAL_KEY), b"ab" * 32 + b"|ingest:alice", hashlib.sha256
    ).hexdigest()
    assert seal_of("ab" * 32, "ingest:alice") == expected
    assert seal_of("ab" * 32, "ingest:alice", secret="another") != expected
    # ingest's sealer: the same seal, as bytes, from the hash's bytes; the key it was made with
    seal = sealer("ingest:alice")
    assert (
        seal(b"ab" * 32) == expected.encode() and seal(b"ab" * 32) == expected.encode()
    )  # made again each time
    assert seal(b"cd" * 32) == seal_of("cd" * 32, "ingest:alice").encode()
    assert (
        sealer("ingest:alice", secret="another")(b"ab" * 32)
        == seal_of("ab" * 32, "ingest:alice", secret="another").encode()
    )
    # hashlib's inner and outer hashes, keyed once (audit.store.seals._keyed): HMAC-SHA256 itself,
    # for any secret, hash and principal
    for secret in ("", "s", "x" * 200, "é☃ key"):
        for event_hash in ("", "0" * 64, hashlib.sha256(secret.encode()).hexdigest()):
            for principal in ("ingest:alice", "device:T1", "user:é"):
                message = f"{event_hash}|{principal}".encode()
                expected = hmac.new(_key(secret), message, hashlib.sha256).hexdigest()
                assert seal_of(event_hash, principal, secret=secret) == expected
                assert sealer(principal, secret=secret)(event_hash.encode()) == expected.encode()


@pytest.mark.parametrize(
    "rewrite",
    ["as exported", "id in capitals", "moments with an offset", "one moment with an offset"],
)
def test_a_restore_hashes_the_same_whether_its_text_is_kept_or_made_again(tmp_path, rewrite):
    """Ingest takes the id and moments' text from a line written in the export form, and
    makes it from the values otherwise: a restore of the same events written either way
    is stored with the hashes the store gave them, and the same moments."""
    from audit.store.export import export_events

    from .tampering import empty_store

    events_append(stream="T1", expected_version=0, events=[table_opened("T1"), *round_events(1)])
    stored = {
        (e.stream, e.version): (e.hash, e.occurred_at, e.recorded_at) for e in Event.objects.all()
    }
    out = tmp_path / "export.jsonl"
    with out.open("w") as handle:
        export_events(handle)
    exported = out.read_text()
    lines = [json.loads(text) for text in exported.splitlines()]
    for n, line in enumerate(lines):
        if rewrite == "id in capitals":
            line["id"] = line["id"].upper()
        elif rewrite == "moments with an offset" or (
            rewrite == "one moment with an offset" and n % 2
        ):
            name = (
                "recorded_at"
                if rewrite == "moments with an offset" or n % 4 == 1
                else "occurred_at"
            )
            line[name] = line[name].replace("Z", "+00:00")
            if rewrite == "moments with an offset":
                line["occurred_at"] = line["occurred_at"].replace("Z", "+00:00")
    out.write_text(
        "".join(
            json.dumps(line, separators=(",", ":"), sort_keys=True, ensure_ascii=False) + "\n"
            for line in lines
        )
    )
    assert (out.read_text() == exported) == (rewrite == "as exported")
    empty_store()
    report = ingest_file(str(out))
    assert report.ok and report.stored == len(stored), report.bad_lines
    assert {
        (e.stream, e.version): (e.hash, e.occurred_at, e.recorded_at) for e in Event.objects.all()
    } == stored
    assert verify_chains().ok


def test_sqlite_values_are_db_values():
    """Ingest's SQLite row (from the chain's texts, the seal made once) is the row
    ``db_values`` makes from the envelope."""
    from datetime import UTC, datetime

    from audit.record.chain import format_timestamp
    from audit.record.envelope import Envelope
    from audit.store.inserts import db_values, sqlite_values

    for occurred, recorded in (
        (
            datetime(2026, 11, 29, 12, 0, tzinfo=UTC),
            datetime(2026, 11, 29, 12, 0, 0, 1, tzinfo=UTC),
        ),
        (datetime(1900, 1, 1, tzinfo=UTC), datetime(9998, 12, 31, 23, 59, 59, 999999, tzinfo=UTC)),
    ):
        envelope = Envelope(
            id=uuid.uuid4(),
            stream="T1",
            version=7,
            type="alert.acknowledged",
            schema_version=1,
            occurred_at=occurred,
            recorded_at=recorded,
            actor="user:alice",
            source="ingest-test",
            payload={"note": AWKWARD, "b": [1, None]},
            prev_hash="a" * 64,
            hash="b" * 64,
        )
        principal = "ingest:test"
        mine = sqlite_values(
            envelope.id.hex,
            "T1",
            7,
            envelope.type,
            1,
            format_timestamp(occurred).encode(),
            format_timestamp(recorded).encode(),
            envelope.actor,
            envelope.source,
            envelope.payload,
            envelope.prev_hash,
            envelope.hash,
            principal,
            seal_of(envelope.hash, principal),
        )
        assert mine == db_values(envelope, "sqlite", principal)
