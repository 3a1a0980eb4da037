"""Marker receivables across days: issued, redeemed (on any later day), outstanding, and
aged in buckets of 0-30, 31-60, 61-90 and 90+ days (``ledger.selectors.marker_aging``)."""

from __future__ import annotations

from datetime import date

import pytest

from audit.feed.subscribers import catch_up
from ledger import models as m
from ledger.selectors import age_bucket, marker_aging
from tests.back_office.helpers import append

from .helpers import Table

pytestmark = pytest.mark.django_db


def stored(t: Table, start: int) -> int:
    append(t.code, t.events[start:])
    catch_up("ledger.books")
    return len(t.events)


def test_markers_age_across_days(settings, fake_game) -> None:
    """By hand, as of 2026-11-29: M-1 (5,000.00, issued 2026-09-01, 2,000.00 paid on
    2026-10-15) is 89 days old with 3,000.00 outstanding (61-90); M-3 (3,000.00, issued
    2026-10-31) is 29 days old, all outstanding (0-30); M-2 (1,000.00, issued and paid in
    full on 2026-11-29) is 0 days old, nothing outstanding. Outstanding 6,000.00 of
    9,000.00 issued. Each day is stored and folded on its own, so the redemption of M-1
    is folded without the day M-1 was issued."""
    settings.PROJECT_ON_APPEND = False
    t = Table()
    done = 0
    t.open("2026-09-01")
    t.marker("M-1", 500_000)
    done = stored(t, done)
    t.open("2026-09-02")
    done = stored(t, done)
    t.open("2026-10-15")
    t.redeem("M-1", 200_000)
    done = stored(t, done)
    t.open("2026-10-31")
    t.marker("M-3", 300_000, box=2)
    done = stored(t, done)
    t.open("2026-11-29")
    t.marker("M-2", 100_000, box=3)
    t.redeem("M-2", 100_000)
    stored(t, done)

    assert m.MarkerRedemption.objects.count() == 2
    aging = marker_aging(date(2026, 11, 29))
    rows = {r.number: r for r in aging.markers}
    assert [
        (r.number, r.issued_on, r.amount, r.redeemed, r.outstanding, r.age_days, r.bucket)
        for r in aging.markers
    ] == [
        ("M-1", date(2026, 9, 1), 500_000, 200_000, 300_000, 89, "61-90"),
        ("M-3", date(2026, 10, 31), 300_000, 0, 300_000, 29, "0-30"),
        ("M-2", date(2026, 11, 29), 100_000, 100_000, 0, 0, "0-30"),
    ]
    assert (
        rows["M-1"].last_redeemed_on == date(2026, 10, 15) and rows["M-3"].last_redeemed_on is None
    )
    assert (aging.issued, aging.redeemed, aging.outstanding) == (
        {"EUR": 900_000},
        {"EUR": 300_000},
        {"EUR": 600_000},
    )
    assert aging.by_bucket == {"EUR": {"0-30": 300_000, "31-60": 0, "61-90": 300_000, "90+": 0}}

    # as of a day before the redemption, M-1 is all outstanding; M-2 and M-3 not issued yet
    earlier = marker_aging(date(2026, 10, 14))
    assert [(r.number, r.outstanding, r.age_days, r.bucket) for r in earlier.markers] == [
        ("M-1", 500_000, 43, "31-60")
    ]
    # two days later M-1 is 91 days old; only what is outstanding, when asked
    later = marker_aging(date(2026, 12, 1), outstanding_only=True)
    assert [(r.number, r.bucket) for r in later.markers] == [("M-1", "90+"), ("M-3", "31-60")]
    assert later.by_bucket["EUR"] == {"0-30": 0, "31-60": 300_000, "61-90": 0, "90+": 300_000}
    assert marker_aging(date(2026, 11, 29), table="BJ-02").markers == []


def test_age_buckets_have_their_edges() -> None:
    assert [age_bucket(d) for d in (0, 30, 31, 60, 61, 90, 91, 400)] == [
        "0-30",
        "0-30",
        "31-60",
        "31-60",
        "61-90",
        "61-90",
        "90+",
        "90+",
    ]
    with pytest.raises(ValueError):
        age_bucket(-1)
