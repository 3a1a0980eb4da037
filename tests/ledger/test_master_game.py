"""The master game report (stiff sheet) of a worked gaming day, against figures computed by
hand: two tables, one of them over two shifts each with its own drop compartment, fills,
credits, a marker, counts by different people; per day, per shift and one shift, with the
totals line; on the screen, as CSV and over REST."""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal
from fractions import Fraction

import pytest
from django.contrib.auth import get_user_model

from audit.feed.subscribers import catch_up
from ledger.master_game import master_game
from tests.back_office.helpers import append
from tests.commands import run_command

from .helpers import Table, chip_list

pytestmark = pytest.mark.django_db

DAY = "2026-11-29"
K = 100_000  # a chip of EUR 1,000.00
H = 10_000  # a chip of EUR 100.00


@pytest.fixture(autouse=True)
def _settings(settings) -> None:
    settings.PROJECT_ON_APPEND = False
    settings.LEDGER_SHIFTS = "8h"  # 06:00, 14:00, 22:00


def count(t: Table, kind: str, chips: dict[int, int], shift: str, by: str, witness: str) -> None:
    t.add(
        "inventory.counted",
        {
            "kind": kind,
            "chips": chip_list(chips),
            "counted_by": by,
            "witnessed_by": witness,
            "gaming_day": DAY,
            "shift": shift,
            "slip": None,
        },
    )


def drop(t: Table, shift: str, cash: int, markers: int, team: list[str]) -> None:
    t.add(
        "drop.removed",
        {
            "gaming_day": DAY,
            "shift": shift,
            "box": f"DB-{t.code}",
            "removed_by": "SEC-1",
            "witnessed_by": "PB-1",
        },
    )
    t.add(
        "drop.counted",
        {
            "gaming_day": DAY,
            "shift": shift,
            "cash": cash,
            "markers": markers,
            "chips": 0,
            "currency": "EUR",
            "counted_by": team[0],
            "team": team[1:] or None,
        },
    )
    t.add(
        "drop.posted",
        {
            "gaming_day": DAY,
            "shift": shift,
            "cash": cash,
            "markers": markers,
            "chips": 0,
            "currency": "EUR",
            "posted_by": "ACC-1",
        },
    )


def worked_day() -> tuple[Table, Table]:
    """BJ-01, two shifts:
      06:00 opener 20,000 (D-1/PB-1); cash buy-in 9,000; fill F-0001 5,000; the house wins
            4,000 (stakes 3,000 lost, 1,000 paid even money, 2,000 lost); credit C-0001
            2,000; closer 18,000 (D-1/PB-1); drop 9,000 cash (CR-1, CR-2).
            win = 18,000 - 20,000 + 2,000 - 5,000 + 9,000 = 4,000; hold 44.4%
      14:00 opener 18,000 (D-3/PB-2); cash buy-in 1,000; marker M-1 3,000; the house loses
            1,000 (2,000 paid even money, 1,000 lost); fill F-0002 2,000; closer 15,000
            (D-3/PB-2); drop 1,000 cash + 3,000 markers (CR-3).
            win = 15,000 - 18,000 + 0 - 2,000 + 4,000 = -1,000; hold -25.0%
      day   opener 20,000, fills 7,000, credits 2,000, closer 15,000, drop 10,000 cash +
            3,000 markers = 13,000; win 3,000; hold 23.1%
    BJ-02, one shift (06:00): opener 12,000 (10 x 1,000 + 20 x 100; D-2/PB-2); cash buy-in
      5,000; the house wins 2,000; credit C-0002 1,000 (10 x 100); closer 8,000 (D-2/PB-2);
      drop 5,000 cash (CR-1, CR-2). win = 8,000 - 12,000 + 1,000 - 0 + 5,000 = 2,000; hold 40.0%
    """
    one, two = Table("BJ-01"), Table("BJ-02")
    one.open(DAY)
    count(one, "opening", {K: 20}, "06:00", "D-1", "PB-1")
    one.buyin(900_000)
    one.fill("F-0001", {K: 5})
    one.play((300_000, -300_000), (100_000, 100_000), (200_000, -200_000))
    one.credit("C-0001", {K: 2})
    count(one, "closing", {K: 18}, "06:00", "D-1", "PB-1")
    count(one, "opening", {K: 18}, "14:00", "D-3", "PB-2")
    one.buyin(100_000)
    one.marker("M-1", 300_000)
    one.play((200_000, 200_000), (100_000, -100_000))
    one.fill("F-0002", {K: 2})
    count(one, "closing", {K: 15}, "14:00", "D-3", "PB-2")
    one.close(DAY)
    drop(one, "06:00", 900_000, 0, ["CR-1", "CR-2"])
    drop(one, "14:00", 100_000, 300_000, ["CR-3"])

    two.open(DAY)
    count(two, "opening", {K: 10, H: 20}, "06:00", "D-2", "PB-2")
    two.buyin(500_000)
    two.play((200_000, -200_000))
    two.credit("C-0002", {H: 10})
    count(two, "closing", {K: 7, H: 10}, "06:00", "D-2", "PB-2")
    two.close(DAY)
    drop(two, "06:00", 500_000, 0, ["CR-1", "CR-2"])
    return one, two


@pytest.fixture
def day(fake_game) -> None:
    for t in worked_day():
        fake_game.record(t.code, t.events)
        append(t.code, t.events)
    catch_up("ledger.books")


FIGURES = (
    "opener",
    "fills",
    "credits",
    "closer",
    "drop_cash",
    "drop_markers",
    "drop_chips",
    "drop",
    "win",
)


def figures(row: dict) -> tuple:
    return tuple(row[k] for k in FIGURES)


def test_the_day_per_table_and_its_totals_are_the_hand_computed_figures(day) -> None:
    made = master_game(day=date.fromisoformat(DAY))
    one, two = made.rows
    assert (one["table"], one["shift"], two["table"]) == ("BJ-01", None, "BJ-02")
    assert figures(one) == (
        2_000_000,
        700_000,
        200_000,
        1_500_000,
        1_000_000,
        300_000,
        0,
        1_300_000,
        300_000,
    )
    assert figures(two) == (1_200_000, 0, 100_000, 800_000, 500_000, 0, 0, 500_000, 200_000)
    hold = next(c for c in made.columns if c.key == "hold")
    assert (made.display(one, hold), made.display(two, hold)) == (
        "23.1%",
        "40.0%",
    )  # 3,000/13,000; 2,000/5,000
    assert (one["variance"], two["variance"]) == (0, 0)
    # the theoretical win as the reconciliation stored it: the fake game's edge, 1/200 of
    # the initial stakes (6,000 + 3,000 at BJ-01, 2,000 at BJ-02)
    assert (one["theoretical_win"], two["theoretical_win"]) == (4_500, 1_000)
    # who counted: the first opener's and the last closer's people, every drop's team
    assert (
        one["opener_counted_by"],
        one["opener_witnessed_by"],
        one["closer_counted_by"],
        one["closer_witnessed_by"],
        one["drop_counted_by"],
    ) == ("D-1", "PB-1", "D-3", "PB-2", "CR-1, CR-2, CR-3")
    assert (two["opener_counted_by"], two["closer_witnessed_by"], two["drop_counted_by"]) == (
        "D-2",
        "PB-2",
        "CR-1, CR-2",
    )
    [total] = made.totals
    # 20,000 + 12,000; 7,000; 2,000 + 1,000; 15,000 + 8,000; 10,000 + 5,000 cash, 3,000 markers
    assert figures(total) == (
        3_200_000,
        700_000,
        300_000,
        2_300_000,
        1_500_000,
        300_000,
        0,
        1_800_000,
        500_000,
    )
    assert (total["table"], total["currency"], made.display(total, hold)) == (
        "total",
        "EUR",
        "27.8%",
    )  # 5,000/18,000
    assert (total["theoretical_win"], total["in_hold"], total["left_out"]) == (5_500, 2, 0)


def test_per_shift_and_one_shift(day) -> None:
    made = master_game(day=date.fromisoformat(DAY), shift="all")
    rows = {(r["table"], r["shift"]): r for r in made.rows}
    assert sorted(rows) == [("BJ-01", "06:00"), ("BJ-01", "14:00"), ("BJ-02", "06:00")]
    assert figures(rows["BJ-01", "06:00"]) == (
        2_000_000,
        500_000,
        200_000,
        1_800_000,
        900_000,
        0,
        0,
        900_000,
        400_000,
    )
    assert figures(rows["BJ-01", "14:00"]) == (
        1_800_000,
        200_000,
        0,
        1_500_000,
        100_000,
        300_000,
        0,
        400_000,
        -100_000,
    )
    hold = next(c for c in made.columns if c.key == "hold")
    assert made.display(rows["BJ-01", "14:00"], hold) == "-25.0%"  # -1,000 / 4,000
    assert (
        rows["BJ-01", "14:00"]["opener_counted_by"],
        rows["BJ-01", "14:00"]["drop_counted_by"],
    ) == ("D-3", "CR-3")
    assert rows["BJ-01", "06:00"]["drop_counted_by"] == "CR-1, CR-2"
    # each shift's totals, then the day's: the shifts add up to it; the day's opener and
    # closer are blank (one shift's closer is the next one's opener: the same chips)
    morning, afternoon, whole = made.totals
    assert (
        morning["shift"],
        morning["opener"],
        morning["closer"],
        morning["drop"],
        morning["win"],
    ) == ("06:00", 3_200_000, 2_600_000, 1_400_000, 600_000)
    assert (
        afternoon["shift"],
        afternoon["opener"],
        afternoon["win"],
        made.display(afternoon, hold),
    ) == ("14:00", 1_800_000, -100_000, "-25.0%")
    assert (whole["drop"], whole["win"], whole["fills"], whole.get("shift")) == (
        1_800_000,
        500_000,
        700_000,
        None,
    )
    assert "opener" not in whole and "closer" not in whole

    morning = master_game(day=date.fromisoformat(DAY), shift="06:00")
    assert [(r["table"], r["shift"]) for r in morning.rows] == [
        ("BJ-01", "06:00"),
        ("BJ-02", "06:00"),
    ]
    [total] = morning.totals  # 9,000 + 5,000 drop; 4,000 + 2,000 win: 42.9%
    assert (total["drop"], total["win"], morning.display(total, hold)) == (
        1_400_000,
        600_000,
        "42.9%",
    )


def test_the_csv_and_the_api(day, client, django_user_model) -> None:
    """The CSV: each amount as text, in currency units and in minor units; the totals
    line last; who counted. The API gives the same rows; a bad shift or day is a 400."""
    text = master_game(day=date.fromisoformat(DAY)).as_csv()
    *rows, total = csv.DictReader(io.StringIO(text))
    assert [r["table"] for r in rows] == ["BJ-01", "BJ-02"]
    assert (rows[0]["drop"], rows[0]["drop_amount"], rows[0]["drop_minor"]) == (
        "EUR 13,000.00",
        "13000.00",
        "1300000",
    )
    assert (
        total["table"],
        total["drop_amount"],
        total["win_amount"],
        total["hold"],
        total["hold_bp"],
    ) == ("total", "18000.00", "5000.00", "27.8%", "2778")
    assert sum(Decimal(r["win_amount"]) for r in rows) == Decimal(total["win_amount"])
    assert rows[0]["closer_counted_by"] == "D-3" and total["closer_counted_by"] == ""

    user = django_user_model.objects.create_superuser("acc", password="a-long-test-password")
    client.force_login(user)
    body = client.get("/api/ledger/reports/master-game", {"day": DAY, "shift": "all"}).json()
    assert [(r["table"], r["shift"], r["win"]) for r in body["rows"]] == [
        ("BJ-01", "06:00", 400_000),
        ("BJ-01", "14:00", -100_000),
        ("BJ-02", "06:00", 200_000),
    ]
    assert [t["display"]["win"] for t in body["totals"]] == [
        "+EUR 6,000.00",
        "-EUR 1,000.00",
        "+EUR 5,000.00",
    ]
    answer = client.get("/api/ledger/reports/master-game", {"day": DAY, "format": "csv"})
    assert answer.status_code == 200 and answer.content.decode() == text
    for bad, field in (
        ({"day": "29/11/2026"}, "day"),
        ({}, "day"),
        ({"day": DAY, "shift": "x" * 40}, "shift"),
    ):
        answer = client.get("/api/ledger/reports/master-game", bad)
        assert answer.status_code == 400 and field in answer.json()["errors"], bad


def test_the_command_prints_it(day) -> None:
    code, out, err = run_command("report", "master-game", "--day", DAY)
    assert code == 0, err
    lines = out.splitlines()
    assert lines[0] == "Master game report, gaming day 2026-11-29, the whole gaming day"
    assert lines[-1].startswith("total") and "+EUR 5,000.00" in lines[-1] and "27.8%" in lines[-1]
    code, out, _ = run_command("report", "master-game", "--day", DAY, "--shift", "all", "--csv")
    assert code == 0 and out.splitlines()[-1].startswith("total,")
    code, _, err = run_command("report", "master-game")
    assert code == 2 and "needs --day" in err


def test_a_signed_day_and_the_adjustment_posted_into_the_next(fake_game) -> None:
    """tests/ledger/test_period_close.py's day signed before its drop was counted: the
    drop of 9,000.00 counted later completes its chip-count win (18,000 - 20,000 + 2,000 -
    5,000 + 9,000 = 4,000), and both are posted into the next open day as an adjustment.
    The signed day's line keeps what was signed (no drop: win and hold n/a) and says so; the
    next day's line has its own figures (opener = closer 18,000, an empty box: win 0) and
    the adjustment beside them, which its hold counts: (0 + 4,000) / (0 + 9,000) = 44.4%."""
    from django.contrib.auth.models import Group

    from .test_period_close import D, E, signed_without_its_drop

    carol = get_user_model().objects.create_user("carol", is_staff=True)
    carol.groups.add(Group.objects.get(name="accounting"))
    from .helpers import worked_example

    signed_without_its_drop(worked_example(), fake_game, carol)
    [signed] = master_game(day=D).rows
    assert (signed["state"], signed["drop"], signed["win"], signed["hold"]) == (
        "adjusted",
        None,
        None,
        None,
    )
    assert signed["state_text"] == (
        "signed off, adjusted: later events posted into 2026-11-30 (over what is missing: "
        "the drop not counted)"
    )
    [into] = master_game(day=E).rows
    assert (into["opener"], into["closer"], into["drop"], into["win"]) == (
        1_800_000,
        1_800_000,
        0,
        0,
    )
    assert (into["adjustment_win"], into["adjustment_drop"], into["hold"]) == (
        400_000,
        900_000,
        Fraction(4, 9),
    )
