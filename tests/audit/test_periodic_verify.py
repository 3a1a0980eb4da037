"""A failed periodic verification is a critical finding and an alert on the floor, not a
log line (audit.integrity.verification, the task ``audit.tasks.verify_chains``): tried on a store
tampered with past its triggers, as a database superuser would."""

from __future__ import annotations

import pytest
from django.db import connection

from audit.integrity import digests
from audit.models import Finding, ReplayRun
from audit.store import immutability
from audit.store.streams import events_append
from audit.tasks import verify_chains_task
from tables import floor
from tables.models import Alert
from tests.audit.tampering import tamper
from tests.samples import round_events, table_opened

pytestmark = pytest.mark.django_db


@pytest.fixture
def signed_record() -> None:
    """Two tables, two rounds each, and a signed tree head over them."""
    for table in ("T1", "T2"):
        events = [table_opened(table)] + [e for n in (1, 2) for e in round_events(n)]
        events_append(stream=table, expected_version=0, events=events)
    digests.digest_sign()


def test_a_clean_store_records_nothing(signed_record) -> None:
    """Nothing found, nothing written: no run, no finding, no alert."""
    result = verify_chains_task.apply().get()

    assert result["problems"] == [] and result["events"] > 0
    assert not ReplayRun.objects.filter(trigger="verify").exists()
    assert not Finding.objects.exists() and not Alert.objects.exists()


def test_a_cut_tail_is_a_critical_finding_and_an_alert(signed_record) -> None:
    """The last events of T1 deleted behind the triggers: the periodic task checks the
    store against the signed head (as manage.py verify does), records a critical
    ``truncated`` finding naming T1 and where it ends, and the floor raises its alerts."""
    tamper("DELETE FROM audit_event WHERE stream = 'T1' AND version > 40")

    result = verify_chains_task.apply().get()

    finding = Finding.objects.get(kind="truncated")
    assert finding.severity == "critical" and finding.stream == "T1"
    assert finding.event_version == 40 and "ends at version 40" in finding.message
    assert finding.run.trigger == "verify" and finding.status == "open"
    # the signed head no longer matches the record either: the whole store's finding
    head = Finding.objects.get(kind="protection_broken")
    assert (
        head.severity == "critical"
        and head.stream == ""
        and "holds only 92 of the events" in head.message
    )
    assert any("T1" in p for p in result["problems"])
    # the floor: the task's alert at once, and the finding's own alert at the next check
    assert Alert.objects.get(kind="verify_failed").severity == "critical"
    floor.floor_check()
    assert set(Alert.objects.filter(kind="finding").values_list("finding__kind", flat=True)) == {
        "truncated",
        "protection_broken",
    }


def test_running_again_finds_the_same_finding(signed_record) -> None:
    """The task may run twice (Celery's promise): the same problem is the same row."""
    tamper("DELETE FROM audit_event WHERE stream = 'T2' AND version = 7")
    verify_chains_task.apply()
    first = list(Finding.objects.values_list("id", "fingerprint"))
    verify_chains_task.apply()

    assert list(Finding.objects.values_list("id", "fingerprint")) == first
    latest = ReplayRun.objects.filter(trigger="verify").latest("id")
    assert set(Finding.objects.values_list("kind", flat=True)) == {"gap", "protection_broken"}
    assert all(f.last_seen_run == latest and f.superseded_by is None for f in Finding.objects.all())
    assert Alert.objects.filter(kind="verify_failed").count() == 1


def _protection(on: bool) -> None:
    """Switch the event table's DELETE trigger off (PostgreSQL: disabled; SQLite, which
    cannot disable one: the triggers dropped) or back on, as an owner could."""
    with connection.cursor() as cursor:
        if connection.vendor == "postgresql":
            mode = "ENABLE ALWAYS" if on else "DISABLE"
            cursor.execute(
                f"ALTER TABLE {immutability.TABLE} {mode} TRIGGER {immutability.TABLE}_no_update_delete"
            )
        else:
            kind = immutability.INSTALL if on else immutability.REMOVE
            for sql in immutability.statements(kind, "sqlite"):
                cursor.execute(sql)


def test_a_broken_trigger_is_protection_broken_and_is_superseded_once_restored(
    signed_record,
) -> None:
    """The append-only DELETE trigger switched off (the record unchanged):
    ``protection_broken``, critical, naming the trigger; once it is back, the next run
    supersedes it."""
    _protection(False)

    verify_chains_task.apply()

    found = list(Finding.objects.order_by("id"))
    assert {f.kind for f in found} == {"protection_broken"} and {f.severity for f in found} == {
        "critical"
    }
    trigger = (
        "audit_event_no_update_delete"
        if connection.vendor == "postgresql"
        else "audit_event_no_delete"
    )
    assert any(f.message.startswith(f"protection: trigger {trigger}") for f in found), [
        f.message for f in found
    ]

    _protection(True)
    verify_chains_task.apply()

    for finding in found:
        finding.refresh_from_db()
        assert finding.superseded_by is not None and finding.superseded_by.trigger == "verify"
