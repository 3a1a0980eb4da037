"""Every money fact carries its currency, checked against the table's: an amount in another
currency is a ``currency_mismatch`` finding and is not booked (never booked as if it were
the table's); the variance thresholds are set per currency, in its units."""

from __future__ import annotations

from datetime import date

import pytest

from audit.feed.subscribers import catch_up
from audit.models import Finding
from ledger import models as m
from ledger.books import Thresholds, fold, reconcile
from ledger.selectors import marker_aging
from tests.back_office.helpers import append

from .helpers import DAY, Table


def usd_at_a_eur_table() -> Table:
    """A EUR table: opener 20 x EUR 1,000.00; a player buys in with USD 1,000.00 cash and
    gets EUR 1,000.00 of chips; the closer is 19 x EUR 1,000.00; the count team counts
    USD 1,000.00 in the box. No rate of USD to EUR is recorded."""
    t = Table()
    t.open()
    t.count("opening", {100_000: 20})
    t.add(
        "buyin.recorded",
        {"box": 1, "player": "P-1", "method": "cash", "amount": 100_000, "currency": "USD"},
    )
    t.count("closing", {100_000: 19})
    t.close()
    t.add(
        "drop.removed",
        {
            "gaming_day": DAY,
            "shift": "06:00",
            "box": "DB-1",
            "removed_by": "SEC-1",
            "witnessed_by": "PB-1",
        },
    )
    t.add(
        "drop.counted",
        {
            "gaming_day": DAY,
            "shift": "06:00",
            "cash": 100_000,
            "markers": 0,
            "chips": 0,
            "currency": "USD",
            "counted_by": "CR-1",
            "team": ["CR-2"],
        },
    )
    t.add(
        "drop.posted",
        {
            "gaming_day": DAY,
            "shift": "06:00",
            "cash": 100_000,
            "markers": 0,
            "chips": 0,
            "currency": "USD",
            "posted_by": "ACC-1",
        },
    )
    return t


def test_a_foreign_currency_buy_in_and_drop_at_a_eur_table_are_findings_not_books() -> None:
    books = fold(usd_at_a_eur_table().events)
    kinds = [f.kind for f in books.findings]
    assert kinds == ["currency_mismatch"] * 3  # the buy-in, the count and the posting; nothing else
    buyin, count, posting = books.findings
    assert (buyin.expected, buyin.recorded) == ("EUR", "USD 1,000.00")
    assert "A cash buy-in at box 1: USD 1,000.00 recorded at a EUR table" in buyin.message
    assert (
        "not booked" in count.message
        and count.shift == "06:00"
        and posting.recorded == "USD 1,000.00"
    )
    figures = books.day(DAY)
    # nothing of the USD in the EUR books: no buy-in, no drop, no entry in any drop account
    assert figures.buyins_cash == 0 and figures.drop is None and figures.chip_win is None
    balances = books.trial_balance(DAY)
    assert not any(account.startswith("drop:") and amount for account, amount in balances.items())
    assert sum(balances.values()) == 0
    assert "EUR 1,000.00" not in " ".join(f.message for f in books.findings)


def test_a_marker_redeemed_in_another_currency_pays_nothing_of_it() -> None:
    t = Table()
    t.open()
    t.marker("M-1", 500_000)
    t.add(
        "marker.redeemed",
        {
            "marker": "M-1",
            "amount": 500_000,
            "currency": "USD",
            "method": "cash",
            "received_by": "CA-1",
        },
    )
    t.redeem("M-1", 200_000)
    books = fold(t.events)
    [found] = books.findings
    assert found.kind == "currency_mismatch" and found.slip == "M-1"
    assert "Marker M-1 (EUR 5,000.00) was redeemed with USD 5,000.00" in found.message
    assert books.markers["M-1"].redeemed == 200_000 and books.markers["M-1"].outstanding == 300_000
    assert (
        books.balances_of(DAY)["markers_receivable"] == -200_000
    )  # only the EUR payment reached the books


@pytest.mark.django_db
def test_a_foreign_currency_drop_at_a_eur_table_is_a_finding_in_the_store(
    settings, fake_game
) -> None:
    settings.PROJECT_ON_APPEND = False
    t = usd_at_a_eur_table()
    t.open("2026-11-30")  # the day is final: its end-of-day checks are made
    t.marker("M-9", 100_000)
    t.add(
        "marker.redeemed",
        {
            "marker": "M-9",
            "amount": 100_000,
            "currency": "USD",
            "method": "cash",
            "received_by": "CA-1",
        },
    )
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    found = Finding.objects.filter(stream="BJ-01", superseded_by__isnull=True).order_by(
        "gaming_day", "id"
    )
    assert [(f.kind, f.gaming_day.isoformat()) for f in found] == [
        ("currency_mismatch", DAY)
    ] * 3 + [("currency_mismatch", "2026-11-30")]
    assert found[0].severity == "high"
    day = m.Reconciliation.objects.get(
        table__stream="BJ-01", gaming_day=date(2026, 11, 29), shift=""
    )
    assert (day.buyins_cash, day.drop, day.chip_win) == (0, None, None)
    assert not m.DropBox.objects.filter(counted_cash__isnull=False).exists()
    # the EUR marker paid in USD is still owed in the aging, in EUR
    [aged] = marker_aging(date(2026, 11, 30)).markers
    assert (aged.number, aged.currency, aged.outstanding) == ("M-9", "EUR", 100_000)


def test_the_thresholds_are_in_each_currency_s_units() -> None:
    """A closer short by 30 of the minor unit: JPY 30 is above JPY 25 (a finding), EUR 0.30
    is not above EUR 25.00. One number of minor units (2,500) would have let JPY 2,500
    pass and reported KWD 2.501."""

    def short_day(currency: str) -> list:
        t = Table(currency=currency)
        t.open()
        t.count("opening", {100: 20})
        t.count("closing", {1: 1_970})  # 30 short of 2,000
        t.drop(0)
        return t.events

    jpy = reconcile(fold(short_day("JPY")).day(DAY))
    eur = reconcile(fold(short_day("EUR")).day(DAY))
    assert jpy.chip_variance == eur.chip_variance == -30
    assert [f.kind for f in jpy.findings] == ["chip_variance"] and "above JPY 25" in jpy.findings[
        0
    ].message
    assert eur.findings == ()
    kwd = reconcile(fold(short_day("KWD")).day(DAY), thresholds=Thresholds.default("KWD"))
    assert kwd.findings == ()  # KWD 0.030 is not above KWD 25.000


@pytest.mark.django_db
def test_a_small_amount_not_booked_keeps_the_day_from_reading_reconciled(
    settings, fake_game
) -> None:
    """The worked example (reconciled: chip-count win = recorded win = +EUR 4,000.00) plus
    a USD 20.00 cash buy-in for EUR 20.00 of chips, no rate of the day. The chips went, the
    dollars are not booked: the chip-count win is +EUR 3,980.00, a variance of -EUR 20.00
    - under the EUR 25.00 threshold, so no chip_variance - but the day is "counted", not
    "reconciled", and signing it off needs a note naming the amount not booked."""
    from django.contrib.auth import get_user_model
    from django.contrib.auth.models import Group

    from ledger.signoff import NoteRequired, day_sign_off

    from .helpers import worked_example

    settings.PROJECT_ON_APPEND = False
    t = worked_example()
    closer = next(
        i
        for i, e in enumerate(t.events)
        if e["type"] == "inventory.counted" and e["payload"]["kind"] == "closing"
    )
    t.add(
        "buyin.recorded",
        {"box": 2, "player": "P-2", "method": "cash", "amount": 2_000, "currency": "USD"},
    )
    t.events.insert(closer, t.events.pop())  # before the closer, which counts 20.00 fewer chips
    t.events[closer + 1]["payload"]["chips"] = [
        {"denomination": 100_000, "count": 17},
        {"denomination": 500, "count": 196},
    ]
    t.open("2026-11-30")
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    day = m.Reconciliation.objects.get(
        table__stream="BJ-01", gaming_day=date(2026, 11, 29), shift=""
    )
    assert (day.closer, day.chip_win, day.recorded_win, day.chip_variance) == (
        1_798_000,
        398_000,
        400_000,
        -2_000,
    )
    assert (day.state, day.missing, day.unexplained) == ("counted", [], True)
    kinds = Finding.objects.filter(
        stream="BJ-01", gaming_day=date(2026, 11, 29), superseded_by__isnull=True
    )
    assert sorted(kinds.values_list("kind", flat=True)) == ["currency_mismatch"]
    carol = get_user_model().objects.create_user("carol", is_staff=True)
    carol.groups.add(Group.objects.get(name="accounting"))
    with pytest.raises(NoteRequired, match="an amount in another currency not booked"):
        day_sign_off(table="BJ-01", gaming_day=date(2026, 11, 29), user=carol)
