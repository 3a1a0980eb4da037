"""The ledger's reports end with a totals row per currency that foots the rows above it:
sums of the same periods, rates from the sums (never an average of rates), the year
before of the same groups; the list of reconciliations' CSV too."""

from __future__ import annotations

import csv
import io
from datetime import date

import pytest

from audit.feed.subscribers import catch_up
from ledger import reports
from tests.back_office.helpers import append

from .helpers import Table

pytestmark = pytest.mark.django_db

DAY = "2026-11-29"
YEAR_BEFORE = "2025-11-29"


@pytest.fixture(autouse=True)
def _no_projection_on_append(settings) -> None:
    settings.PROJECT_ON_APPEND = False


def a_day(t: Table, day: str, *, opener: int, buyin: int, house_wins: int) -> None:
    """Opener of 1,000.00 chips, a cash buy-in, one round the house wins, the closer the
    tray holds after it, the drop the buy-in: chip-count win = house_wins."""
    t.open(day)
    t.count("opening", {100_000: opener}, day=day)
    t.buyin(buyin)
    t.play((house_wins, -house_wins))
    t.count("closing", {100_000: opener - (buyin - house_wins) // 100_000}, day=day)
    t.close(day)
    t.drop(buyin, day=day)


@pytest.fixture
def casino(fake_game) -> None:
    one, two, gone = Table("BJ-01"), Table("BJ-02"), Table("BJ-03")
    a_day(
        one, YEAR_BEFORE, opener=20, buyin=900_000, house_wins=400_000
    )  # 9,000.00 drop, 4,000.00 win
    a_day(one, DAY, opener=20, buyin=900_000, house_wins=400_000)
    a_day(two, DAY, opener=10, buyin=500_000, house_wins=200_000)  # 5,000.00 drop, 2,000.00 win
    a_day(gone, YEAR_BEFORE, opener=10, buyin=300_000, house_wins=100_000)  # a year before only
    for t in (one, two, gone):
        fake_game.record(t.code, t.events)
        append(t.code, t.events)
    catch_up("ledger.books")


def test_the_statistics_total_foots_the_groups_listed(casino) -> None:
    """By table for the day: BJ-01 (9,000 / 4,000; a year before the same) and BJ-02
    (5,000 / 2,000; nothing a year before). The total: drop 14,000, win 6,000, hold
    6,000 / 14,000 = 42.857% (4,286 bp); a year before 9,000 / 4,000 (BJ-03, which did not
    play on the day, is not a group listed, so not in it), hold change 42.857% - 44.444%
    = -1.587 points (-159 bp)."""
    made = reports.statistics(group="table", period="day", day=date.fromisoformat(DAY))
    assert [r["group"] for r in made.rows] == ["BJ-01", "BJ-02"]
    [total] = made.totals
    assert (total["group"], total["currency"], total["drop"], total["win"]) == (
        "total",
        "EUR",
        1_400_000,
        600_000,
    )
    assert (
        total["before_drop"],
        total["before_win"],
        total["drop_change"],
        total["win_change"],
    ) == (900_000, 400_000, 500_000, 200_000)
    assert made.display(total, next(c for c in made.columns if c.key == "hold")) == "42.9%"
    assert total["hold_change_bp"] == -159
    for key in ("drop", "win", "before_drop", "before_win"):
        assert total[key] == sum(r[key] for r in made.rows if r[key] is not None), (
            key
        )  # BJ-02's year before: n/a
    # a change is of the sums; a group with nothing a year before has none (not "+EUR
    # 2,000.00" against a year of 0)
    assert (total["drop_change"], total["win_change"]) == (
        total["drop"] - total["before_drop"],
        total["win"] - total["before_win"],
    )
    bj02 = next(r for r in made.rows if r["group"] == "BJ-02")
    assert (bj02["before_win"], bj02["drop_change"], bj02["win_change"]) == (None, None, None)
    line = list(csv.DictReader(io.StringIO(made.as_csv())))[-1]
    assert (line["group"], line["drop_amount"], line["win_amount"], line["hold_bp"]) == (
        "total",
        "14000.00",
        "6000.00",
        "4286",
    )


def test_hold_daily_and_drop_totals(casino) -> None:
    day = date.fromisoformat(DAY)
    hold = reports.hold(day_from=day, day_to=day)
    [total] = hold.totals
    assert (total["table"], total["drop"], total["win"], total["periods"]) == (
        "total",
        1_400_000,
        600_000,
        2,
    )
    daily = reports.daily(day_from=date.fromisoformat(YEAR_BEFORE), day_to=day)
    assert [r["drop"] for r in daily.rows] == [1_200_000, 1_400_000]
    assert (daily.totals[0]["drop"], daily.totals[0]["win"]) == (2_600_000, 1_100_000)
    drop = reports.drop(day_from=day, day_to=day)
    assert (drop.totals[0]["drop_cash"], drop.totals[0]["drop"]) == (1_400_000, 1_400_000)


def test_the_reconciliations_csv_ends_with_its_totals(casino, client, django_user_model) -> None:
    user = django_user_model.objects.create_superuser("acc", password="a-long-test-password")
    client.force_login(user)
    text = client.get("/api/ledger/reconciliations", {"format": "csv", "day": DAY}).content.decode()
    *rows, total = csv.DictReader(io.StringIO(text))
    assert [r["table"] for r in rows] == ["BJ-01", "BJ-02"]
    assert (
        total["table"],
        total["currency"],
        total["drop_amount"],
        total["chip_count_win_amount"],
        total["chip_count_win"],
    ) == ("total", "EUR", "14000.00", "6000.00", "+EUR 6,000.00")
    assert total["opener"] == ""  # openers of several days do not add up
