"""``verify`` re-hashes every chain and names the first bad event of each stream."""

from __future__ import annotations

import pytest
from django.db import connection

from audit.integrity.chains import verify_chains
from audit.integrity.digests import digest_sign
from audit.models import Event
from audit.store.streams import events_append
from tests.commands import run_command
from tests.samples import round_events

from .tampering import tamper

pytestmark = pytest.mark.django_db


@pytest.fixture
def two_tables():
    """Two tables of three rounds each, and a signed head over them (audit.digests)."""
    for stream in ("T1", "T2"):
        for r in range(3):
            events_append(stream=stream, expected_version=25 * r, events=round_events(r + 1))
    digest_sign()


def _run_verify(*args: str) -> tuple[int, str, str]:
    return run_command("verify", *args)


def test_intact_store_verifies_clean(two_tables):
    code, out, _ = _run_verify()
    assert code == 0
    assert "verified 151 events in 3 streams: all chains intact" in out  # and the head's own stream
    assert (
        "signed heads: the heads in the database (audit.digests): the latest of 150 events" in out
    )


def test_events_and_no_signed_head_anywhere_fail(db, settings):
    """Nothing to check a cut tail or a consistent re-hash against: exit 1, saying where
    it looked (the database's heads and each publisher)."""
    events_append(stream="T1", expected_version=0, events=round_events(1))
    code, _, err = _run_verify()
    assert code == 1
    folder = settings.DIGEST_PUBLISHERS[0]
    assert (
        "signed head: no trusted signed head found, so a cut tail or a consistent re-hash cannot be seen; "
        "looked in the heads in the database (audit.digests): none; "
        f"folder {folder}: could not be read (folder {folder}: the folder is not there)"
    ) in err


def test_payload_altered_behind_the_triggers_is_found(two_tables):
    """A payload edited with the triggers out of the way no longer matches its hash;
    verify names that event's stream, version and position, and exits non-zero."""
    row = Event.objects.get(stream="T1", version=27)  # round 2, box 1 bets 1000
    assert row.payload["amount"] == 1000
    text = "payload::text" if connection.vendor == "postgresql" else "payload"
    cast = "::jsonb" if connection.vendor == "postgresql" else ""
    tamper(
        f"UPDATE audit_event SET payload = replace({text}, '1000', '9000'){cast} "
        f"WHERE position = {row.position}"
    )
    assert Event.objects.get(position=row.position).payload["amount"] == 9000
    report = verify_chains()
    assert [(p.stream, p.version, p.kind) for p in report.problems] == [("T1", 27, "altered")]
    code, _, err = _run_verify()
    assert code == 1
    assert f"T1: first bad event is version 27 at position {row.position}" in err


def test_deleted_event_is_found_as_a_gap(two_tables):
    tamper("DELETE FROM audit_event WHERE stream = 'T2' AND version = 7")
    [problem] = verify_chains().problems
    assert (problem.stream, problem.version, problem.kind) == ("T2", 8, "gap")
    assert "7..7" in problem.detail


def test_reordered_events_are_found(two_tables):
    """Swapping two events' places (versions) breaks the chain at the first of them."""
    tamper(
        "UPDATE audit_event SET version = 1000000 WHERE stream = 'T1' AND version = 10",
        "UPDATE audit_event SET version = 10 WHERE stream = 'T1' AND version = 11",
        "UPDATE audit_event SET version = 11 WHERE stream = 'T1' AND version = 1000000",
    )
    [problem] = verify_chains().problems
    assert (problem.stream, problem.version) == ("T1", 10)
    assert problem.kind in {"reordered", "broken_link"}


def test_forged_event_with_a_recomputed_hash_breaks_the_link(two_tables):
    """A row re-hashed after editing still breaks the next event's prev_hash link."""
    from audit.record.chain import event_hash

    row = Event.objects.get(stream="T2", version=30)
    forged = {**row.payload, "round": 99}
    digest = event_hash(
        id=row.event_id,
        stream=row.stream,
        version=row.version,
        type=row.type,
        schema_version=row.schema_version,
        occurred_at=row.occurred_at,
        recorded_at=row.recorded_at,
        actor=row.actor,
        source=row.source,
        payload=forged,
        prev_hash=row.prev_hash,
    )
    import json

    payload_sql = json.dumps(forged).replace("'", "''")
    tamper(
        f"UPDATE audit_event SET payload = '{payload_sql}', hash = '{digest}' WHERE position = {row.position}"
    )
    problems = {(p.stream, p.version, p.kind) for p in verify_chains().problems}
    # the next event's link breaks, and the store's seal no longer holds for the new hash
    assert problems == {("T2", 31, "broken_link"), ("T2", 30, "unsealed")}


def test_one_stream_and_since_options(two_tables):
    tamper("DELETE FROM audit_event WHERE stream = 'T2' AND version = 7")
    code, out, _ = _run_verify("--stream", "T1")
    assert code == 0 and "75 events in 1 streams" in out
    code, out, _ = _run_verify("--since", "2000-01-01")
    assert code == 1
    code, _, err = _run_verify("--since", "yesterday-ish")
    assert code == 2 and "--since" in err
    code, _, err = _run_verify("--stream", "T7")
    assert code == 2 and "no events in that stream" in err


def test_since_anchors_on_the_event_before_the_window(two_tables):
    """Verifying only recent events still checks the first one's link to its predecessor."""
    from datetime import UTC, datetime

    later = datetime(2030, 1, 1, tzinfo=UTC)
    events_append(stream="T1", expected_version=75, events=round_events(4), now=later)
    report = verify_chains(since=later)
    assert report.ok and report.events == 25 and report.streams == 1


def test_verify_task_reports_problems(two_tables):
    """The periodic Celery task (eager here) runs verify and returns its findings."""
    from audit.tasks import verify_chains_task

    tamper("DELETE FROM audit_event WHERE stream = 'T2' AND version = 7")
    result = verify_chains_task.delay().get()
    assert result["events"] == 150  # and the signed head
    chain, head = result["problems"]
    assert "T2: first bad event is version 8" in chain and "no longer have its Merkle root" in head
