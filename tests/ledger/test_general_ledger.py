"""The general ledger export of a gaming day: the journal, one line per journal line, in the
documented format, and the trial balance - worked by hand for the 13 Miss. Code R.
7-3.3 example, checked against the trial balance the ledger stored (a second reading of
the record), stable when a later event adds to the day, refused by name when asked
badly."""

from __future__ import annotations

import csv
import io
from datetime import date
from decimal import Decimal

import pytest

from audit.feed.subscribers import catch_up
from ledger import models as m
from ledger.general_ledger import agreement, journal, table_journal, trial_balance
from tests.back_office.helpers import append
from tests.commands import run_command

from .helpers import DAY, Table, worked_example

pytestmark = pytest.mark.django_db

THE_DAY = date.fromisoformat(DAY)
HEADER = "gaming_day,table,shift,entry,line,account,account_name,currency,debit,credit,memo,event,event_version"


@pytest.fixture(autouse=True)
def _no_projection_on_append(settings) -> None:
    settings.PROJECT_ON_APPEND = False


@pytest.fixture
def example(fake_game) -> Table:
    t = worked_example()
    t.open("2026-11-30")
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    return t


def lines(text: str) -> list[dict[str, str]]:
    return list(csv.DictReader(io.StringIO(text)))


def test_the_journal_of_the_worked_example_line_by_line(example) -> None:
    """The entries as the posting rules make them (docs/accounting.md), in the order
    posted: the opener is the imprest brought forward from the cage; a cash buy-in moves
    chips from the tray to the player and cash from the outside world into the drop box;
    the fill goes cage -> transit -> tray; three stakes; their settlements; the credit;
    the closer sorts the 5,000.00 of unsorted chips back into the 1,000.00 tray; the drop is
    posted to the cage. (Events with no value moving - a request, the box's removal, a count
    that finds what the books hold - post nothing.)"""
    made = journal(day=THE_DAY)
    got = [(r["memo"], r["account"], r["debit"], r["credit"]) for r in made.rows]
    assert got == [
        ("opening count (imprest brought forward)", "tray:BJ-01:100000", 2_000_000, None),
        ("opening count (imprest brought forward)", "cage", None, 2_000_000),
        ("cash buy-in box 1", "tray:BJ-01:unsorted", None, 900_000),
        ("cash buy-in box 1", "players", 900_000, None),
        ("cash buy-in box 1", "world", None, 900_000),
        ("cash buy-in box 1", "drop:BJ-01:cash", 900_000, None),
        ("fill F-1 issued", "cage", None, 500_000),
        ("fill F-1 issued", "transit:BJ-01", 500_000, None),
        ("fill F-1 received", "transit:BJ-01", None, 500_000),
        ("fill F-1 received", "tray:BJ-01:100000", 500_000, None),
        ("stake r1-b1", "players", None, 300_000),
        ("stake r1-b1", "layout:BJ-01", 300_000, None),
        ("stake r1-b2", "players", None, 100_000),
        ("stake r1-b2", "layout:BJ-01", 100_000, None),
        ("stake r1-b3", "players", None, 200_000),
        ("stake r1-b3", "layout:BJ-01", 200_000, None),
        ("settle r1-b1 (lose)", "layout:BJ-01", None, 300_000),
        ("settle r1-b1 (lose)", "tray:BJ-01:unsorted", 300_000, None),
        ("settle r1-b2 (win)", "layout:BJ-01", None, 100_000),
        ("settle r1-b2 (win)", "players", 200_000, None),
        ("settle r1-b2 (win)", "tray:BJ-01:unsorted", None, 100_000),
        ("settle r1-b3 (lose)", "layout:BJ-01", None, 200_000),
        ("settle r1-b3 (lose)", "tray:BJ-01:unsorted", 200_000, None),
        ("credit C-1 released", "tray:BJ-01:100000", None, 200_000),
        ("credit C-1 released", "transit:BJ-01", 200_000, None),
        ("credit C-1 received", "transit:BJ-01", None, 200_000),
        ("credit C-1 received", "cage", 200_000, None),
        ("closing count", "tray:BJ-01:100000", None, 500_000),
        ("closing count", "tray:BJ-01:unsorted", 500_000, None),
        ("drop posted", "drop:BJ-01:cash", None, 900_000),
        ("drop posted", "cage", 900_000, None),
    ]
    # every entry balances; the day's debits equal its credits
    for entry in {r["entry"] for r in made.rows}:
        mine = [r for r in made.rows if r["entry"] == entry]
        assert sum(r["debit"] or 0 for r in mine) == sum(r["credit"] or 0 for r in mine), entry
    [total] = made.totals
    assert total["debit"] == total["credit"] == 7_900_000
    # an entry is its event and its place among that event's entries
    settle = [r for r in made.rows if r["memo"].startswith("settle")]
    event = next(e for e in example.events if e["type"] == "round.settled")
    assert {r["entry"] for r in settle} == {
        f"{event['id']}.1",
        f"{event['id']}.2",
        f"{event['id']}.3",
    }
    assert {r["event_version"] for r in settle} == {example.events.index(event) + 1}


def test_the_csv_format(example) -> None:
    text = journal(day=THE_DAY).as_csv()
    assert text.splitlines()[0] == HEADER
    first, second = lines(text)[:2]
    assert {
        k: first[k]
        for k in ("gaming_day", "table", "shift", "line", "account", "currency", "debit", "credit")
    } == {
        "gaming_day": DAY,
        "table": "BJ-01",
        "shift": "06:00",
        "line": "1",
        "account": "tray:BJ-01:100000",
        "currency": "EUR",
        "debit": "20000.00",
        "credit": "",
    }
    assert (
        first["account_name"] == "tray BJ-01: EUR 1,000.00 chips"
        and first["entry"] == second["entry"]
    )
    assert (second["line"], second["account"], second["debit"], second["credit"]) == (
        "2",
        "cage",
        "",
        "20000.00",
    )
    *body, total = lines(text)
    assert (total["gaming_day"], total["currency"], total["debit"], total["credit"]) == (
        "total",
        "EUR",
        "79000.00",
        "79000.00",
    )
    assert (
        sum(Decimal(r["debit"] or 0) for r in body)
        == sum(Decimal(r["credit"] or 0) for r in body)
        == Decimal(79000)
    )
    assert journal(day=THE_DAY).as_csv() == text  # the same record, the same bytes


def test_the_trial_balance_by_hand_and_as_the_journal_sums(example) -> None:
    """At the day's end: the tray holds its 18,000.00 of chips, players 5,000.00 of chips
    (9,000 bought, 6,000 staked, 2,000 paid back), the cage is 14,000.00 down (an imprest of
    20,000 and a fill of 5,000 out, the credit's 2,000 and the drop's 9,000 in), the outside
    world 9,000.00 (the cash that came in); every account value passed through is at 0."""
    made = trial_balance(day=THE_DAY)
    balances = {r["account"]: (r["debit"], r["credit"]) for r in made.rows}
    assert balances == {
        "cage": (None, 1_400_000),
        "players": (500_000, None),
        "world": (None, 900_000),
        "tray:BJ-01:100000": (1_800_000, None),
        "tray:BJ-01:unsorted": (0, None),
        "layout:BJ-01": (0, None),
        "transit:BJ-01": (0, None),
        "drop:BJ-01:cash": (0, None),
    }
    [total] = made.totals
    assert total["debit"] == total["credit"] == 2_300_000
    assert agreement(day=THE_DAY).agrees


def test_a_stored_balance_that_the_journal_does_not_give_is_named(example) -> None:
    row = m.Reconciliation.objects.get(table__stream="BJ-01", gaming_day=THE_DAY, shift="")
    row.trial_balance = {**row.trial_balance, "cage": row.trial_balance["cage"] + 100}
    row.save()
    found = agreement(day=THE_DAY)
    assert not found.agrees and found.differences == {"BJ-01": {"cage": (-1_400_000, -1_399_900)}}
    # as the screen says it: money by the one formatter, never minor units
    assert found.said() == {"BJ-01": "cage: the journal -EUR 14,000.00, stored -EUR 13,999.00"}


def test_a_later_correction_joins_its_day_and_moves_no_other_entry(example, fake_game) -> None:
    """A short pay of the day corrected two days later: its entry (cage -> players) is in
    the day's journal, at the end; every entry before keeps its id and lines."""
    before = lines(journal(day=THE_DAY).as_csv())
    later = Table("BJ-01")
    later.writer = example.writer
    later.events = []
    later.correct(1, "r1-b2", 150_000)
    append("BJ-01", later.events)
    catch_up("ledger.books")
    after = lines(journal(day=THE_DAY).as_csv())
    assert after[: len(before) - 1] == before[:-1]  # the totals line moved
    added = after[len(before) - 1 : -1]
    assert [(r["memo"], r["account"], r["debit"], r["credit"]) for r in added] == [
        ("correct r1-b2 (win)", "cage", "", "500.00"),
        ("correct r1-b2 (win)", "players", "500.00", ""),
    ]
    assert agreement(day=THE_DAY).agrees


def test_a_strike_no_one_with_the_authority_recorded_strikes_nothing_in_the_journal(
    example,
) -> None:
    """A correction striking the day's drop posting, stored past the door under a table
    device's principal: the books apply it to nothing (audit.record.authority), and the
    journal, folded again from the record, by the same rule - its lines stay as they were
    and agree with the stored trial balance."""
    import uuid
    from datetime import UTC, datetime

    from audit.models import Event
    from audit.store.streams import NewEvent
    from tests.back_office.test_authority_paths import store_past_the_door

    before = lines(journal(day=THE_DAY).as_csv())
    posted = Event.objects.get(stream="BJ-01", type="drop.posted")
    store_past_the_door(
        "BJ-01",
        NewEvent(
            id=uuid.uuid4(),
            type="correction.recorded",
            occurred_at=datetime(2026, 11, 30, 9, tzinfo=UTC),
            actor="device:device-BJ-01",
            source="probe",
            payload={
                "round": None,
                "corrects": str(posted.event_id),
                "settlements": [],
                "reason": "no drop",
                "authorised_by": "PB-1",
            },
        ),
        principal="device:device-BJ-01",
    )
    catch_up("ledger.books")
    assert lines(journal(day=THE_DAY).as_csv()) == before
    assert agreement(day=THE_DAY).agrees


def test_a_foreign_amount_is_journalled_at_the_days_rate_as_the_books_book_it(
    fake_game, django_user_model
) -> None:
    """USD 1,000.00 bought in and dropped at a EUR table, the day's rate 0.9 set by
    accounting: the journal posts EUR 900.00 (by hand: 1,000.00 x 0.9) where the books do,
    and agrees with the stored trial balance."""
    from fractions import Fraction

    from django.contrib.auth.models import Group

    from ledger.fx import fx_rate_set
    from tests.ledger.test_currencies import usd_at_a_eur_table

    t = usd_at_a_eur_table()
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    carol = django_user_model.objects.create_user("carol", is_staff=True)
    carol.groups.add(Group.objects.get(name="accounting"))
    fx_rate_set(gaming_day=THE_DAY, currency="USD", rate=Fraction(9, 10), user=carol)
    catch_up("ledger.books")
    made = lines(journal(day=THE_DAY).as_csv())
    assert [
        (r["memo"], r["account"], r["debit"], r["credit"]) for r in made if r["account"] == "world"
    ] == [("cash buy-in box 1", "world", "", "900.00")]
    assert agreement(day=THE_DAY).agrees


def test_two_currencies_are_two_totals(example, fake_game) -> None:
    yen = Table("JP-01", currency="JPY")
    yen.open(DAY)
    yen.buyin(35_200)
    fake_game.record(yen.code, yen.events)
    append(yen.code, yen.events)
    catch_up("ledger.books")
    made = journal(day=THE_DAY)
    assert [(t["currency"], t["debit"]) for t in made.totals] == [
        ("EUR", 7_900_000),
        ("JPY", 70_400),
    ]
    text = lines(journal(day=THE_DAY, table="JP-01").as_csv())
    assert [(r["account"], r["debit"], r["credit"]) for r in text[:-1]] == [
        ("tray:JP-01:unsorted", "", "35200"),
        ("players", "35200", ""),
        ("world", "", "35200"),
        ("drop:JP-01:cash", "35200", ""),
    ]


def test_over_rest(example, client, django_user_model) -> None:
    client.force_login(
        django_user_model.objects.create_superuser("acc", password="a-long-test-password")
    )
    body = client.get("/api/ledger/general-ledger/journal", {"day": DAY}).json()
    assert body["agreement"] == {"agrees": True, "differences": {}}
    assert (
        body["rows"][0]["display"]["debit"] == "EUR 20,000.00"
        and body["rows"][0]["display"]["credit"] == ""
    )
    assert (body["count"], len(body["rows"]), body["totals"][0]["debit"]) == (31, 31, 7_900_000)
    page = client.get(
        "/api/ledger/general-ledger/journal", {"day": DAY, "page_size": 10, "page": 4}
    ).json()
    assert (page["count"], len(page["rows"]), page["next"]) == (31, 1, None)
    assert page["rows"][0]["memo"] == "drop posted" and page["totals"] == body["totals"]
    text = client.get(
        "/api/ledger/general-ledger/journal", {"day": DAY, "format": "csv"}
    ).content.decode()
    assert text == journal(day=THE_DAY).as_csv()
    balance = client.get(
        "/api/ledger/general-ledger/trial-balance", {"day": DAY, "table": "BJ-01"}
    ).json()
    assert balance["totals"][0]["display"]["debit"] == "EUR 23,000.00"
    for bad, field in (
        ({}, "day"),
        ({"day": "2026-13-01"}, "day"),
        ({"day": DAY, "table": "no such!"}, "table"),
        ({"day": DAY, "page": "x", "colour": "red"}, "colour"),
    ):
        answer = client.get("/api/ledger/general-ledger/journal", bad)
        assert answer.status_code == 400 and field in answer.json()["errors"], (bad, answer.content)


def test_the_command_writes_the_export(example) -> None:
    code, out, err = run_command("report", "journal", "--day", DAY, "--csv")
    assert code == 0, err
    assert out == journal(day=THE_DAY).as_csv()
    code, out, _ = run_command("report", "trial-balance", "--day", DAY)
    assert code == 0 and out.splitlines()[-1].split() == [
        "total",
        "EUR",
        "EUR",
        "23,000.00",
        "EUR",
        "23,000.00",
    ]
    for args, says in (
        (("journal",), "needs --day"),
        (("journal", "--day", "29/11"), "--day '29/11'"),
        (("slip-sequence", "--kind", "chips"), "--kind 'chips'"),
        (("ledgers",), "no such report"),
    ):
        code, _, err = run_command("report", *args)
        assert code == 2 and says in err and len(err.strip().splitlines()) == 1, (args, err)


def test_a_day_long_past_folds_to_the_same_lines_as_the_whole_stream(fake_game) -> None:
    """After the day, only what can still post into it is read: the worked example, a busy
    next day (buy-ins, rounds, a fill, a marker, its drop), a correction of the first day's
    round recorded on the third day, then more play. The first day's journal is the
    entries a fold of the whole stream gives for it (ledger.books.fold over every event),
    the correction's entry among them, and it agrees with the stored trial balance."""
    from audit.store.reading import stream_events
    from ledger.books import fold

    t = worked_example()
    t.open("2026-11-30")
    t.count("opening", {100_000: 18}, day="2026-11-30")
    t.buyin(300_000)
    t.play((100_000, 100_000), (50_000, -50_000))
    t.fill("F-2", {100_000: 1})
    t.marker("M-2", 200_000)
    t.count("closing", {100_000: 14, 50_000: 1}, day="2026-11-30")
    t.close("2026-11-30")
    t.drop(300_000, markers=200_000, day="2026-11-30")
    t.open("2026-12-01")
    t.correct(1, "r1-b2", 150_000)
    t.count("opening", {100_000: 14, 50_000: 1}, day="2026-12-01")
    t.buyin(100_000)
    t.play((100_000, -100_000))
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    whole = fold(list(stream_events("BJ-01", 1, len(t.events))), final=False)
    for day in ("2026-11-29", "2026-11-30"):
        reference = [
            (e.memo, e.shift, e.event, e.lines) for e in whole.entries if e.gaming_day == day
        ]
        folded = table_journal(table="BJ-01", day=date.fromisoformat(day))
        got = [(e.memo, e.shift, e.event, e.lines) for e in folded.entries]
        assert got == reference, day
        assert agreement(day=date.fromisoformat(day)).agrees, day
    first = [e.memo for e in table_journal(table="BJ-01", day=THE_DAY).entries]
    assert (
        first[-1] == "correct r1-b2 (win)" and len(first) == 15
    )  # the 14 entries of the day, then it
