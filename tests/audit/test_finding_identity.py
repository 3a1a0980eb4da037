"""A finding is matched across runs by its identity, not its message: the same finding in
other words (the engine's amounts in currency instead of minor units) stays the row people
are handling, its message brought up to date; a row stored before identities gets one from
migration 0016 that the next run matches."""

from __future__ import annotations

import hashlib
import importlib
import json
from datetime import UTC, date, datetime

import pytest
from django.apps import apps
from django.contrib.auth import get_user_model
from django.contrib.auth.models import Group

from audit.findings.workflow import finding_acknowledge, findings_record
from audit.models import Event, Finding, ReplayRun
from audit.record.findings import Finding as EngineFinding

pytestmark = pytest.mark.django_db
DAY = date(2026, 11, 29)
OLD = "Bet b1 (main, 1000 on box 2) should be win +1000 but was recorded win +900."
NEW = "Bet b1 (main, EUR 10.00 on box 2) should be win +EUR 10.00 but was recorded win +EUR 9.00."


def run() -> ReplayRun:
    return ReplayRun.objects.create(
        mode="incremental",
        trigger="feed",
        stream="T1",
        gaming_day=DAY,
        started_at=datetime.now(UTC),
    )


def payout(message: str, bet: str = "b1") -> EngineFinding:
    return EngineFinding(
        "wrong_payout",
        message,
        round=3,
        box=2,
        hand=0,
        bet=bet,
        expected="win +1000",
        recorded="win +900",
    )


def record(*findings: EngineFinding) -> tuple[int, int, int]:
    return findings_record(
        stream="T1",
        gaming_day=DAY,
        owned_from=1,
        owned_rounds=[3],
        findings=[(f, 12) for f in findings],
        run=run(),
    )


def pit_boss():
    """A person who may work findings (the pit boss's group)."""
    user = get_user_model().objects.create_user("pit")
    user.groups.add(Group.objects.get(name="pit_boss"))
    return user


def old_fingerprint(f: EngineFinding, rank: int = 1) -> str:
    """The fingerprint rows were given before identities: the message was part of it."""
    key = [
        "T1",
        DAY.isoformat(),
        f.kind,
        f.round,
        f.box,
        f.hand,
        f.bet,
        f.expected,
        f.recorded,
        f.event,
        f.message,
        rank,
    ]
    return hashlib.sha256(json.dumps(key, separators=(",", ":")).encode()).hexdigest()


def test_the_same_finding_in_other_words_is_the_same_row_with_its_handling_and_new_words() -> None:
    assert record(payout(OLD)) == (1, 1, 0)
    row = Finding.objects.get()
    finding_acknowledge(finding_id=row.pk, user=pit_boss(), note="looking")
    assert record(payout(NEW)) == (1, 0, 0)
    again = Finding.objects.get()
    assert (again.pk, again.fingerprint, again.status, again.message) == (
        row.pk,
        row.fingerprint,
        "acknowledged",
        NEW,
    )
    assert again.superseded_by is None
    # its trail still names it
    assert (
        Event.objects.filter(stream="audit.findings", payload__finding=again.fingerprint).count()
        == 1
    )


def test_another_bet_is_another_finding() -> None:
    assert record(payout(OLD)) == (1, 1, 0)
    assert record(payout(NEW, bet="b2")) == (1, 1, 1)


def test_a_row_stored_before_identities_is_matched_after_the_migration() -> None:
    """Rows written by the earlier code (fingerprint with the message, no identity): the
    migration gives each its identity, current rows first among alike ones, so that the
    next run, in new words, finds the acknowledged row rather than the superseded one."""
    first, gone = run(), run()
    superseded = Finding.objects.create(
        fingerprint=old_fingerprint(payout("older words")),
        identity="placeholder-1",
        kind="wrong_payout",
        severity="high",
        stream="T1",
        gaming_day=DAY,
        round=3,
        box=2,
        hand=0,
        bet="b1",
        expected="win +1000",
        recorded="win +900",
        message="older words",
        event_version=12,
        run=first,
        last_seen_run=first,
        superseded_by=gone,
        created_at=datetime.now(UTC),
    )
    current = Finding.objects.create(
        fingerprint=old_fingerprint(payout(OLD)),
        identity="placeholder-2",
        kind="wrong_payout",
        severity="high",
        stream="T1",
        gaming_day=DAY,
        round=3,
        box=2,
        hand=0,
        bet="b1",
        expected="win +1000",
        recorded="win +900",
        message=OLD,
        event_version=12,
        run=first,
        last_seen_run=gone,
        created_at=datetime.now(UTC),
    )
    finding_acknowledge(finding_id=current.pk, user=pit_boss())
    migration = importlib.import_module("audit.migrations.0016_finding_identity")
    migration.fill(apps, None)

    assert record(payout(NEW)) == (1, 0, 0)
    current.refresh_from_db()
    superseded.refresh_from_db()
    assert (current.status, current.message, current.superseded_by) == ("acknowledged", NEW, None)
    assert current.fingerprint == old_fingerprint(payout(OLD))  # its name for good
    assert superseded.superseded_by == gone and superseded.message == "older words"
    assert Finding.objects.count() == 2


def test_alike_findings_are_told_apart_by_rank() -> None:
    """Two findings alike in all but words (two shoe faults at one event) are two rows."""
    one = EngineFinding(
        "shoe_procedure", "Shoe S1's recorded order does not match its commitment.", event=None
    )
    two = EngineFinding(
        "shoe_procedure", "Shoe S1's recorded order is not 6 whole decks.", event=None
    )
    assert record(one, two) == (2, 2, 0)
    assert record(one, two) == (2, 0, 0)
    assert sorted(Finding.objects.values_list("message", flat=True)) == sorted(
        [one.message, two.message]
    )
