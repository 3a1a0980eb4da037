"""The reports an accountant files, in a real browser at 1400 px: the master game report of
the worked day (tests/ledger/test_master_game.py) read as an accountant reads it - each
table's line, the drop by instrument, who counted, the totals line - and its CSV.
Screenshots in artifacts/."""

from __future__ import annotations

import pytest

from audit.feed.subscribers import catch_up
from tests.back_office.helpers import append
from tests.browser.conftest import ARTIFACTS, member_of
from tests.ledger.conftest import fake_game  # noqa: F401 - the fixture, shared
from tests.ledger.test_master_game import DAY, worked_day

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def accountant(page, live_server, django_user_model):
    return member_of(
        ("ledger.migrations.0002_accounting_group", "ledger.migrations.0006_slip_books"),
        "carol",
        page,
        live_server,
        django_user_model,
    )


@pytest.fixture
def day(settings, fake_game):  # noqa: F811 - the fixture imported above
    settings.PROJECT_ON_APPEND = False
    settings.LEDGER_SHIFTS = "8h"
    for t in worked_day():
        fake_game.record(t.code, t.events)
        append(t.code, t.events)
    catch_up("ledger.books")


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def test_the_master_game_report_of_the_worked_day(accountant, live_server, day) -> None:
    page = accountant
    page.goto(f"{live_server.url}/admin/ledger/reconciliation/")
    page.click("#hub-master-game")  # the accounting screens' links, over every list
    page.select_option("select[name=shift]", "")
    page.fill("input[name=day]", DAY)
    page.click("input[type=submit]")
    section = page.locator("#report-master_game")
    titles = section.locator("thead th").all_inner_texts()
    assert [t.lower() for t in titles] == [
        "table",
        "pit",
        "game",
        "opener",
        "fills",
        "credits",
        "closer",
        "drop",
        "chip-count win",
        "hold",
        "theoretical win",
        "variance not explained",
        "counted / witnessed",
    ]
    first = section.locator("tbody tr").first.locator("td").all_inner_texts()
    assert first[:2] == ["BJ-01\nreconciled", "-"] and first[3:7] == [
        "EUR 20,000.00",
        "EUR 7,000.00",
        "EUR 2,000.00",
        "EUR 15,000.00",
    ]
    assert first[7].splitlines() == [
        "EUR 13,000.00",
        "cash EUR 10,000.00",
        "markers EUR 3,000.00",
        "chips EUR 0.00",
    ]
    assert first[8:10] == ["+EUR 3,000.00", "23.1%"]
    assert first[12].splitlines() == [
        "opener D-1 / PB-1",
        "closer D-3 / PB-2",
        "drop CR-1, CR-2, CR-3",
    ]
    total = section.locator("tfoot tr.total td").all_inner_texts()
    assert total[0] == "total" and total[3:7] == [
        "EUR 32,000.00",
        "EUR 7,000.00",
        "EUR 3,000.00",
        "EUR 23,000.00",
    ]
    assert total[7].splitlines()[0] == "EUR 18,000.00" and total[8:10] == ["+EUR 5,000.00", "27.8%"]
    width = page.evaluate("document.querySelector('#report-master_game table').scrollWidth")
    assert width <= 1400 - 40, width  # one screen wide, no scrolling sideways
    _shot(page, "ledger_master_game.png")

    page.select_option("select[name=shift]", "all")
    page.click("input[type=submit]")
    assert page.locator("#report-master_game tbody tr").count() == 3
    _shot(page, "ledger_master_game_shifts.png")

    csv = page.request.get(
        live_server.url + page.locator("#report-master_game a.csv").get_attribute("href")
    )
    assert csv.ok and csv.text().splitlines()[-1].startswith("total,")


def test_marker_receivables_and_chips_outstanding(
    accountant,
    live_server,
    settings,
    fake_game,  # noqa: F811
) -> None:
    """The markers of tests/ledger/test_receivables.py aged as of 29 November, and the
    chips they put in players' hands."""
    from tests.ledger.helpers import Table
    from tests.ledger.test_receivables import marker_day

    settings.PROJECT_ON_APPEND = False
    t = Table()
    marker_day(t, "2026-08-01", issue=("M-1", 500_000))
    marker_day(t, "2026-10-15", issue=("M-2", 200_000), redeem=("M-1", 100_000))
    marker_day(t, "2026-11-29", issue=("M-3", 100_000), redeem=("M-2", 200_000))
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    page = accountant
    page.goto(
        f"{live_server.url}/admin/ledger/reconciliation/accounting/marker-aging/?day=2026-11-29"
    )
    aging = page.locator("#report-marker_aging")
    assert [r.split("\t") for r in aging.locator("tbody tr").all_inner_texts()] == [
        ["0-30", "EUR", "1", "EUR 1,000.00", "EUR 0.00", "EUR 1,000.00"],
        ["31-60", "EUR", "1", "EUR 2,000.00", "EUR 2,000.00", "EUR 0.00"],
        ["61-90", "EUR", "0", "EUR 0.00", "EUR 0.00", "EUR 0.00"],
        ["90+", "EUR", "1", "EUR 5,000.00", "EUR 1,000.00", "EUR 4,000.00"],
    ]
    assert aging.locator("tfoot td").all_inner_texts()[-1] == "EUR 5,000.00"
    assert page.locator("#report-markers tbody tr").count() == 2
    _shot(page, "ledger_marker_aging.png")

    page.goto(
        f"{live_server.url}/admin/ledger/reconciliation/accounting/chips-outstanding/?day=2026-11-29"
        "&from=2026-10-15"
    )
    chips = page.locator("#report-chips_outstanding tbody tr td").all_inner_texts()
    # markers in chips: 5,000 before the range, 2,000 + 1,000 in it
    assert chips[0] == "BJ-01" and chips[-3:] == ["EUR 5,000.00", "+EUR 3,000.00", "+EUR 8,000.00"]
    assert "not the casino's chip float" in page.locator("p.explain").inner_text()
    _shot(page, "ledger_chips_outstanding.png")


def test_the_general_ledger_of_a_day(accountant, live_server, settings, fake_game) -> None:  # noqa: F811
    from tests.ledger.helpers import worked_example

    settings.PROJECT_ON_APPEND = False
    t = worked_example()
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    page = accountant
    page.goto(f"{live_server.url}/admin/ledger/reconciliation/accounting/general-ledger/?day={DAY}")
    assert "sums account by account to the trial balance" in page.locator("p.note.ok").inner_text()
    balance = page.locator("#report-trial_balance")
    assert [
        r.split("\t")[:1] + r.split("\t")[3:] for r in balance.locator("tbody tr").all_inner_texts()
    ][:4] == [
        ["cage", "", "EUR 14,000.00"],
        ["players' chips", "EUR 5,000.00", ""],
        ["outside world (cash in)", "", "EUR 9,000.00"],
        ["drop box BJ-01: cash", "EUR 0.00", ""],
    ]
    assert balance.locator("tfoot td").all_inner_texts() == [
        "total",
        "",
        "EUR",
        "EUR 23,000.00",
        "EUR 23,000.00",
    ]
    assert page.locator("#report-journal tbody tr").count() == 31
    _shot(page, "ledger_general_ledger.png")


def test_an_accountant_records_a_slip_book_and_reads_the_sequence(
    accountant,
    live_server,
    settings,
    fake_game,  # noqa: F811
) -> None:
    """The slips of tests/ledger/test_slip_sequence.py at BJ-01 (without the books): the
    accountant records the fill book F-0001 to F-0010 from the page; the exceptions are
    then the book's, each number in its state."""
    from tests.ledger.helpers import Table

    settings.PROJECT_ON_APPEND = False
    t = Table()
    t.open()
    for number in ("F-0001", "F-0002", "F-0007"):
        t.fill(number, {500: 2})
    t.fill("F-0003", {500: 2}, steps=("requested",))
    t.void("fill", "F-0003", reason="tray had enough")
    t.fill("F-0005", {500: 2}, steps=("requested", "issued"))
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    page = accountant
    page.goto(f"{live_server.url}/admin/ledger/reconciliation/accounting/slips/")
    books = page.locator("#report-slip_books tbody tr td").all_inner_texts()
    assert books[:3] == ["fill", "F-0001 to F-0007", "no book recorded: the numbers used"]
    page.select_option("select[name=book_kind]", "fill")
    page.fill("input[name=first]", "F-0001")
    page.fill("input[name=last]", "F-0010")
    page.fill("input[name=note]", "book 1 to pit A")
    page.click("#record-book-button")
    assert "Recorded: fill slips F-0001 to F-0010." in page.locator("ul.messagelist").inner_text()
    rows = [r.split("\t") for r in page.locator("#report-slip_sequence tbody tr").all_inner_texts()]
    assert [(r[2], r[3], r[5]) for r in rows] == [
        ("F-0003", "F-0003", "voided"),
        ("F-0004", "F-0004", "gap"),
        ("F-0005", "F-0005", "under way"),
        ("F-0006", "F-0006", "gap"),
        ("F-0008", "F-0010", "not used yet"),
    ]
    assert page.locator("#report-slip_sequence tbody tr.exception").count() == 4
    _shot(page, "ledger_slip_sequence.png")
    page.fill("input[name=first]", "F-0009")
    page.fill("input[name=last]", "F-0012")
    page.click("#record-book-button")
    assert "overlap the book F-0001 to F-0010" in page.locator("ul.messagelist").inner_text()
