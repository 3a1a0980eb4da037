"""One findings table for every check: the ledger records the findings of a scope (a
table's gaming day, or a shift of it) and supersedes its own it no longer produces;
replay's recording and the ledger's never touch each other's findings."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest

from audit.findings.workflow import findings_record, findings_record_scope
from audit.models import Finding, ReplayRun
from audit.record.findings import Finding as EngineFinding
from ledger.books.ledger_findings import LedgerFinding

pytestmark = pytest.mark.django_db
DAY = date(2026, 11, 29)


def run(trigger: str = "ledger") -> ReplayRun:
    return ReplayRun.objects.create(
        mode="incremental",
        trigger=trigger,
        stream="T1",
        gaming_day=DAY,
        started_at=datetime.now(UTC),
    )


def variance(amount: str, shift: str | None = "06:00") -> LedgerFinding:
    return LedgerFinding(
        "chip_variance",
        f"T1: a variance of {amount}.",
        expected="+EUR 0.00",
        recorded=amount,
        table="T1",
        gaming_day=DAY.isoformat(),
        shift=shift,
    )


def test_a_ledger_finding_is_stored_once_with_its_shift_and_slip_and_superseded_when_no_longer_produced() -> (
    None
):
    first = run()
    slip = LedgerFinding(
        "duplicate_slip",
        "Fill slip F-1 is recorded received twice.",
        slip="F-1",
        table="T1",
        gaming_day=DAY.isoformat(),
        shift="06:00",
    )
    assert findings_record_scope(
        owner="ledger",
        stream="T1",
        gaming_day=DAY,
        findings=[(variance("-EUR 50.00"), None), (slip, 7)],
        run=first,
    ) == (2, 2, 0)
    row = Finding.objects.get(kind="duplicate_slip")
    assert (row.shift, row.slip, row.event_version, row.severity, row.round) == (
        "06:00",
        "F-1",
        7,
        "high",
        None,
    )
    again = run()
    assert findings_record_scope(
        owner="ledger", stream="T1", gaming_day=DAY, findings=[(slip, 7)], run=again
    ) == (1, 0, 1)
    assert Finding.objects.get(kind="chip_variance").superseded_by == again
    assert Finding.objects.filter(superseded_by__isnull=True).count() == 1


def test_a_shift_s_scope_leaves_the_other_shifts_alone() -> None:
    findings_record_scope(
        owner="ledger",
        stream="T1",
        gaming_day=DAY,
        findings=[(variance("-EUR 50.00"), None), (variance("-EUR 60.00", "14:00"), None)],
        run=run(),
    )
    findings_record_scope(
        owner="ledger", stream="T1", gaming_day=DAY, shift="14:00", findings=[], run=run()
    )
    current = Finding.objects.filter(superseded_by__isnull=True)
    assert [f.shift for f in current] == ["06:00"]


def test_replay_and_the_ledger_keep_to_their_own_findings() -> None:
    """A replay that owns the whole day does not supersede the ledger's chip variance
    (it has no round and no event, as replay's own day-level findings); the ledger's
    recording does not supersede replay's wrong payout."""
    payout = EngineFinding(
        "wrong_payout",
        "Bet b1 short paid.",
        round=3,
        bet="b1",
        expected="win +10",
        recorded="win +9",
    )
    findings_record(
        stream="T1",
        gaming_day=DAY,
        owned_from=1,
        owned_rounds=[3],
        findings=[(payout, 12)],
        run=run("feed"),
    )
    findings_record_scope(
        owner="ledger",
        stream="T1",
        gaming_day=DAY,
        findings=[(variance("-EUR 50.00"), None)],
        run=run(),
    )
    findings_record(
        stream="T1",
        gaming_day=DAY,
        owned_from=1,
        owned_rounds=[3],
        findings=[(payout, 12)],
        run=run("feed"),
    )
    findings_record_scope(
        owner="ledger",
        stream="T1",
        gaming_day=DAY,
        findings=[(variance("-EUR 50.00"), None)],
        run=run(),
    )
    assert sorted(
        Finding.objects.filter(superseded_by__isnull=True).values_list("kind", flat=True)
    ) == ["chip_variance", "wrong_payout"]


def test_a_check_may_not_record_another_owner_s_kinds() -> None:
    payout = EngineFinding("wrong_payout", "Bet b1 short paid.", round=3, bet="b1")
    with pytest.raises(ValueError, match="ledger does not report wrong_payout"):
        findings_record_scope(
            owner="ledger", stream="T1", gaming_day=DAY, findings=[(payout, None)], run=run()
        )
