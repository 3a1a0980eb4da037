"""Marker receivables aged across days and the chips outstanding, as the reports give them,
against figures worked by hand and against the books' own accounts (markers receivable,
players) - a second reading of the same record."""

from __future__ import annotations

import csv
import io
from datetime import date

import pytest

from audit.feed.subscribers import catch_up
from ledger import models as m
from ledger.receivables import chips_outstanding, marker_aging
from tests.back_office.helpers import append

from .helpers import Table, worked_example

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_projection_on_append(settings) -> None:
    settings.PROJECT_ON_APPEND = False


def stored(fake_game, *tables: Table) -> None:
    for t in tables:
        fake_game.record(t.code, t.events)
        append(t.code, t.events)
    catch_up("ledger.books")


def marker_day(
    t: Table,
    day: str,
    *,
    issue: tuple[str, int] | None = None,
    redeem: tuple[str, int] | None = None,
) -> None:
    t.open(day)
    if redeem:
        t.redeem(*redeem)
    if issue:
        t.marker(*issue)
    t.close(day)
    t.drop(0, markers=issue[1] if issue else 0, day=day, shift=None)


@pytest.fixture
def markers(fake_game) -> None:
    """BJ-01: M-1 5,000.00 on 1 August; M-2 2,000.00 on 15 October, when 1,000.00 of M-1
    is paid; M-3 1,000.00 on 29 November, when M-2 is paid in full."""
    t = Table()
    marker_day(t, "2026-08-01", issue=("M-1", 500_000))
    marker_day(t, "2026-10-15", issue=("M-2", 200_000), redeem=("M-1", 100_000))
    marker_day(t, "2026-11-29", issue=("M-3", 100_000), redeem=("M-2", 200_000))
    t.open("2026-11-30")
    stored(fake_game, t)


def buckets(report) -> dict[str, tuple[int, int, int, int]]:
    return {
        r["bucket"]: (r["markers"], r["issued"], r["redeemed"], r["outstanding"])
        for r in report.rows
    }


def test_markers_aged_on_the_last_day(markers) -> None:
    """As of 29 November: M-1 is 120 days old (90+: 5,000 issued, 1,000 paid, 4,000 owed),
    M-2 45 days (31-60: paid in full), M-3 0 days (0-30: 1,000 owed)."""
    aging, listed = marker_aging(day=date(2026, 11, 29))
    assert buckets(aging) == {
        "0-30": (1, 100_000, 0, 100_000),
        "31-60": (1, 200_000, 200_000, 0),
        "61-90": (0, 0, 0, 0),
        "90+": (1, 500_000, 100_000, 400_000),
    }
    [total] = aging.totals
    assert (total["markers"], total["issued"], total["redeemed"], total["outstanding"]) == (
        3,
        800_000,
        300_000,
        500_000,
    )
    assert [
        (r["number"], r["age_days"], r["outstanding"], r["last_redeemed_on"]) for r in listed.rows
    ] == [
        ("M-1", 120, 400_000, "2026-10-15"),
        ("M-3", 0, 100_000, None),
    ]  # M-2, paid, is not listed
    assert listed.totals[0]["outstanding"] == 500_000
    # the books say the same: markers receivable, posted by the drops less what the cage received
    books = sum(
        r.trial_balance.get("markers_receivable", 0)
        for r in m.Reconciliation.objects.filter(shift="", gaming_day__lte=date(2026, 11, 29))
    )
    assert books == total["outstanding"]
    line = list(csv.DictReader(io.StringIO(aging.as_csv())))[-1]
    assert (line["bucket"], line["outstanding_amount"], line["issued_amount"]) == (
        "total",
        "5000.00",
        "8000.00",
    )


def test_markers_aged_on_an_earlier_day(markers) -> None:
    """As of 15 October: M-1 75 days old (61-90), 1,000 of it paid that day; M-2 new. M-3
    does not exist yet, and M-2's payment of 29 November has not happened."""
    aging, listed = marker_aging(day=date(2026, 10, 15), outstanding_only=False)
    assert buckets(aging)["61-90"] == (1, 500_000, 100_000, 400_000)
    assert buckets(aging)["0-30"] == (1, 200_000, 0, 200_000)
    assert [r["number"] for r in listed.rows] == ["M-1", "M-2"]
    assert aging.totals[0]["outstanding"] == 600_000


def test_chips_outstanding_brought_forward_moved_and_carried(fake_game) -> None:
    """The worked example leaves players holding 5,000.00 of chips: 9,000 bought in, 6,000
    staked, 2,000 paid back (the 1,000 bet won even money). The next day: 1,000 bought in,
    a 2,000 marker in chips, 300 staked and lost, 100 of chips dropped into the box:
    +1,000 + 2,000 - 300 - 100 = +2,600; outstanding 7,600."""
    t = worked_example()
    t.open("2026-11-30")
    t.count("opening", {100_000: 18}, day="2026-11-30")
    t.buyin(100_000)
    t.marker("M-9", 200_000)
    t.play((30_000, -30_000))
    t.close("2026-11-30")
    t.drop(100_000, markers=200_000, chips=10_000, day="2026-11-30")
    two = Table("BJ-02", currency="JPY")  # another currency: never added to the euros
    two.open("2026-11-30")
    two.buyin(50_000)
    t.open("2026-12-01")
    stored(fake_game, t, two)

    first = chips_outstanding(day=date(2026, 11, 29))
    [line] = first.rows
    assert (line["brought_forward"], line["movement"], line["outstanding"], line["days"]) == (
        0,
        500_000,
        500_000,
        1,
    )

    made = chips_outstanding(day=date(2026, 11, 30))
    rows = {r["table"]: r for r in made.rows}
    assert (
        rows["BJ-01"]["brought_forward"],
        rows["BJ-01"]["movement"],
        rows["BJ-01"]["outstanding"],
    ) == (500_000, 260_000, 760_000)
    assert (rows["BJ-02"]["currency"], rows["BJ-02"]["outstanding"]) == ("JPY", 50_000)
    assert [(t["currency"], t["outstanding"]) for t in made.totals] == [
        ("EUR", 760_000),
        ("JPY", 50_000),
    ]
    whole = chips_outstanding(day=date(2026, 11, 30), day_from=date(2026, 11, 29))
    assert {r["table"]: (r["brought_forward"], r["movement"]) for r in whole.rows} == {
        "BJ-01": (0, 760_000),
        "BJ-02": (0, 50_000),
    }
    line = {r["table"]: r for r in csv.DictReader(io.StringIO(made.as_csv()))}
    assert (line["BJ-01"]["outstanding"], line["BJ-01"]["outstanding_amount"]) == (
        "+EUR 7,600.00",
        "7600.00",
    )
    assert line["BJ-02"]["outstanding_amount"] == "50000"


def test_over_rest(markers, client, django_user_model) -> None:
    client.force_login(
        django_user_model.objects.create_superuser("acc", password="a-long-test-password")
    )
    body = client.get("/api/ledger/reports/marker-aging", {"day": "2026-11-29"}).json()
    assert [(r["bucket"], r["outstanding"]) for r in body["rows"]] == [
        ("0-30", 100_000),
        ("31-60", 0),
        ("61-90", 0),
        ("90+", 400_000),
    ]
    assert body["totals"][0]["display"]["outstanding"] == "EUR 5,000.00"
    listed = client.get(
        "/api/ledger/reports/markers", {"day": "2026-11-29", "every": "true"}
    ).json()
    assert [r["number"] for r in listed["rows"]] == ["M-1", "M-2", "M-3"]
    text = client.get(
        "/api/ledger/reports/markers", {"day": "2026-11-29", "format": "csv"}
    ).content.decode()
    assert [line["number"] for line in csv.DictReader(io.StringIO(text))] == ["M-1", "M-3", "total"]
    chips = client.get("/api/ledger/reports/chips-outstanding", {"day": "2026-11-30"}).json()
    assert chips["rows"][0]["table"] == "BJ-01"
    for path, bad, field in (
        ("chips-outstanding", {"day": "2026-11-29", "from": "2026-11-30"}, "from"),
        ("marker-aging", {}, "day"),
        ("markers", {"day": "2026-11-29", "every": "x"}, "every"),
        ("marker-aging", {"day": "2026-11-29", "colour": "red"}, "colour"),
    ):
        answer = client.get(f"/api/ledger/reports/{path}", bad)
        assert answer.status_code == 400 and field in answer.json()["errors"], (
            path,
            answer.content,
        )


def test_a_marker_paid_in_chips_takes_the_chips_from_the_players(fake_game) -> None:
    """The worked example leaves players 5,000.00 of chips. The next day M-7 (3,000.00) is
    issued in chips and its drop posted; the day after, the player pays 1,000.00 of it
    with chips at the cage and 500.00 in cash (recorded in the table's stream, on a day
    the table is counted). By hand: chips in players' hands 5,000 +
    3,000 - 1,000 = 7,000.00 (the cash payment moves no chips); markers receivable 3,000 -
    1,000 - 500 = 1,500.00; the cage took 1,000.00 of chips and 500.00 of cash."""
    from ledger.books import fold

    t = worked_example()
    t.open("2026-11-30")
    t.marker("M-7", 300_000)
    t.close("2026-11-30")
    t.drop(0, markers=300_000, day="2026-11-30", shift=None)
    t.open("2026-12-01")
    t.count("opening", {100_000: 18}, day="2026-12-01")
    t.redeem("M-7", 100_000, method="chips")
    t.redeem("M-7", 50_000, method="cash")
    t.count("closing", {100_000: 18}, day="2026-12-01")
    t.close("2026-12-01")
    t.drop(0, day="2026-12-01")
    t.open("2026-12-02")

    books = fold(t.events)
    whole = books.trial_balance()
    assert (whole["players"], whole["markers_receivable"]) == (700_000, 150_000)
    assert sum(whole.values()) == 0
    paid = books.trial_balance("2026-12-01")
    assert (paid["players"], paid["cage"], paid["markers_receivable"], paid["world"]) == (
        -100_000,
        150_000,
        -150_000,
        100_000,
    )

    stored(fake_game, t)
    [line] = chips_outstanding(day=date(2026, 12, 1), day_from=date(2026, 12, 1)).rows
    assert (line["brought_forward"], line["movement"], line["outstanding"]) == (
        800_000,
        -100_000,
        700_000,
    )
    aging, _ = marker_aging(day=date(2026, 12, 1))
    assert aging.totals[0]["outstanding"] == 150_000
