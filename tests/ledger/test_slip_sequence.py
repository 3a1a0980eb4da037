"""Fill and credit slip sequence control: books of slips recorded as issued (an event in
audit.ledger with its row), and every number of them against the slips the record used -
used, voided, under way, skipped, not used yet, at two tables, of the other kind, outside
every book, and a series with no book recorded - counted by hand."""

from __future__ import annotations

import csv
import io

import pytest
from django.contrib.auth.models import Permission

from audit.feed.subscribers import catch_up
from audit.models import Event
from ledger import models as m
from ledger.slip_books import SlipBookInvalid, SlipBookOverlap, slip_book_issue
from ledger.slip_sequence import slip_books, slip_sequence
from tests.back_office.helpers import append

from .helpers import DAY, Table

pytestmark = pytest.mark.django_db


@pytest.fixture(autouse=True)
def _no_projection_on_append(settings) -> None:
    settings.PROJECT_ON_APPEND = False


@pytest.fixture
def carol(django_user_model):
    return django_user_model.objects.create_superuser("carol", password="a-long-test-password")


@pytest.fixture
def record(carol, fake_game) -> None:
    """Books F-0001..F-0010 (fills) and C-0001..C-0005 (credits). At BJ-01: fills F-0001,
    F-0002, F-0007 complete, F-0003 voided, F-0005 requested and issued only; credits
    C-0001 and C-0002 complete; a fill numbered C-0004; a fill F-0011; fills X-01 and X-04
    (a series with no book). At BJ-02: a credit C-0002 too."""
    slip_book_issue(kind="fill", first="F-0001", last="F-0010", user=carol, note="to pit A")
    slip_book_issue(kind="credit", first="C-0001", last="C-0005", user=carol)
    one, two = Table("BJ-01"), Table("BJ-02")
    one.open()
    for number in ("F-0001", "F-0002", "F-0007", "F-0011", "X-01", "X-04", "C-0004"):
        one.fill(number, {500: 2})
    one.fill("F-0003", {500: 2}, steps=("requested",))
    one.void("fill", "F-0003", reason="tray had enough")
    one.fill("F-0005", {500: 2}, steps=("requested", "issued"))
    one.credit("C-0001", {500: 2})
    one.credit("C-0002", {500: 2})
    two.open()
    two.credit("C-0002", {500: 2})
    for t in (one, two):
        fake_game.record(t.code, t.events)
        append(t.code, t.events)
    catch_up("ledger.books")


def test_every_book_by_state(record) -> None:
    made = slip_books()
    got = {
        (r["kind"], r["book"]): (
            r["numbers"],
            r["used"],
            r["voided"],
            r["under_way"],
            r["gaps"],
            r["unused"],
            r["several"],
        )
        for r in made.rows
    }
    assert got == {
        ("credit", "C-0001 to C-0005"): (
            5,
            1,
            0,
            0,
            0,
            3,
            1,
        ),  # C-0002 at two tables; C-0003 on not used yet
        ("fill", "F-0001 to F-0010"): (
            10,
            3,
            1,
            1,
            2,
            3,
            0,
        ),  # gaps F-0004, F-0006; F-0008 on not used yet
        ("fill", "X-01 to X-04"): (4, 2, 0, 0, 2, 0, 0),  # no book: the range is the numbers used
    }
    assert [r["source"] for r in made.rows][-1] == "no book recorded: the numbers used"
    assert made.rows[0]["source"].startswith("by carol on ")
    [total] = made.totals
    assert (total["numbers"], total["used"], total["gaps"], total["unused"]) == (19, 6, 4, 6)
    assert (made.rows[1]["first_day"], made.rows[1]["last_day"]) == (DAY, DAY)


def test_the_exceptions_number_by_number(record) -> None:
    made = slip_sequence()
    got = [
        (r["book"], r["first"], r["last"], r["count"], r["state"], r["table"], r["detail"])
        for r in made.rows
    ]
    assert got == [
        (
            "C-0001 to C-0005",
            "C-0002",
            "C-0002",
            1,
            "used at several tables",
            "BJ-01, BJ-02",
            f"at BJ-01 on {DAY}, BJ-02 on {DAY}",
        ),
        ("C-0001 to C-0005", "C-0003", "C-0005", 3, "not used yet", None, None),
        ("F-0001 to F-0010", "F-0003", "F-0003", 1, "voided", "BJ-01", "tray had enough"),
        ("F-0001 to F-0010", "F-0004", "F-0004", 1, "gap", None, None),
        ("F-0001 to F-0010", "F-0005", "F-0005", 1, "under way", "BJ-01", "last step: issued"),
        ("F-0001 to F-0010", "F-0006", "F-0006", 1, "gap", None, None),
        ("F-0001 to F-0010", "F-0008", "F-0010", 3, "not used yet", None, None),
        ("X-01 to X-04", "X-02", "X-03", 2, "gap", None, "no book recorded"),
        (
            "C-0001 to C-0005",
            "C-0004",
            "C-0004",
            1,
            "in a book of the other kind",
            "BJ-01",
            "the credit slip book C-0001 to C-0005",
        ),
        ("-", "F-0011", "F-0011", 1, "outside every book", "BJ-01", None),
    ]
    assert [r["first"] for r in slip_sequence(kind="credit").rows] == ["C-0002", "C-0003"]
    *_, total = csv.DictReader(io.StringIO(made.as_csv()))
    assert (total["kind"], total["count"]) == (
        "total",
        "15",
    )  # 1 + 3 + 1 + 1 + 1 + 1 + 3 + 2 + 1 + 1


def test_a_book_is_an_event_and_a_row_and_refused_when_it_cannot_be(carol) -> None:
    book = slip_book_issue(
        kind="fill", first="F-0100001", last="F-0100050", user=carol, note="book 2001"
    )
    event = Event.objects.get(stream="audit.ledger", version=book.event_version)
    assert event.type == "ledger.slip_book_issued" and event.actor == "user:carol"
    assert event.payload == {
        "kind": "fill",
        "first": "F-0100001",
        "last": "F-0100050",
        "by": "carol",
        "note": "book 2001",
    }
    assert (book.prefix, book.first, book.last, book.width, book.size) == (
        "F-",
        100_001,
        100_050,
        7,
        50,
    )
    with pytest.raises(SlipBookOverlap, match="overlap the book F-0100001 to F-0100050"):
        slip_book_issue(kind="fill", first="F-0100050", last="F-0100060", user=carol)
    slip_book_issue(
        kind="credit", first="F-0100050", last="F-0100060", user=carol
    )  # another kind: its own numbers
    slip_book_issue(
        kind="fill", first="F-100050", last="F-100060", user=carol
    )  # another width: another series
    for first, last, field in (
        ("F-0100070", "F-0100060", "last"),
        ("F-0100070", "G-0100080", "last"),
        ("F-0100070", "F-100080", "last"),
        ("F-0100070", "F-0120070", "last"),
        ("no digits", "F-1", "first"),
        ("F-1", "", "last"),
    ):
        with pytest.raises(SlipBookInvalid) as refused:
            slip_book_issue(kind="fill", first=first, last=last, user=carol)
        assert refused.value.field == field, (first, last)
    assert m.SlipBook.objects.count() == 3
    assert Event.objects.filter(stream="audit.ledger").count() == 3


def test_over_rest(record, client, django_user_model) -> None:
    accountant = django_user_model.objects.create_user(
        "acc", password="a-long-test-password", is_staff=True
    )
    accountant.user_permissions.add(
        *Permission.objects.filter(codename__in=["view_reconciliation", "add_slipbook"])
    )
    client.force_login(accountant)
    answer = client.post(
        "/api/ledger/slip-books",
        {"kind": "credit", "first": "C-0006", "last": "C-0010"},
        content_type="application/json",
    )
    assert answer.status_code == 201, answer.content
    assert (answer.json()["numbers"], answer.json()["issued_by"]) == (5, "acc")
    for body, status, field in (
        ({"kind": "credit", "first": "C-0008", "last": "C-0012"}, 409, None),
        ({"kind": "chips", "first": "C-1", "last": "C-2"}, 400, "kind"),
        ({"kind": "fill", "first": "Z-9", "last": "Z-1"}, 400, "last"),
        ({"kind": "fill", "first": "Z-1", "last": "Z-2", "colour": "red"}, 400, "colour"),
    ):
        answer = client.post("/api/ledger/slip-books", body, content_type="application/json")
        assert answer.status_code == status, (body, answer.content)
        if field:
            assert field in answer.json()["errors"], body
        else:
            assert answer.json()["code"] == "slip_book_overlap"
    books = client.get("/api/ledger/reports/slip-books", {"kind": "credit"}).json()
    assert [r["book"] for r in books["rows"]] == ["C-0001 to C-0005", "C-0006 to C-0010"]
    text = client.get("/api/ledger/reports/slip-sequence", {"format": "csv"}).content.decode()
    assert "C-0006,C-0010,5,not used yet" in text
    reader = django_user_model.objects.create_user(
        "reader", password="a-long-test-password", is_staff=True
    )
    reader.user_permissions.add(Permission.objects.get(codename="view_reconciliation"))
    client.force_login(reader)
    answer = client.post(
        "/api/ledger/slip-books",
        {"kind": "fill", "first": "Q-1", "last": "Q-2"},
        content_type="application/json",
    )
    assert answer.status_code == 403 and not m.SlipBook.objects.filter(prefix="Q-").exists()
