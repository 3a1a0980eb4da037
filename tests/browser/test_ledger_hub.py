"""The accountant's screens as hubs, in a real browser at 1400 px: nothing raw on the
reports (no True/False, n/a where a year before has no data), long reports paged with
their CSV whole, and every link of each accounting screen answering and leading back to
the floor. Screenshots in artifacts/."""

from __future__ import annotations

import csv
import io
from datetime import date
from urllib.parse import urljoin

import pytest
from django.contrib.auth.models import Permission

from audit.feed.subscribers import catch_up
from ledger import accounting_admin, reports
from ledger import models as m
from tests.back_office.helpers import append
from tests.browser.conftest import ARTIFACTS, member_of
from tests.ledger.conftest import fake_game  # noqa: F401 - the fixture, shared
from tests.ledger.helpers import Table
from tests.ledger.test_report_totals import a_day

pytestmark = pytest.mark.django_db(transaction=True)

DAY = "2026-11-29"
REPORTS = "/admin/ledger/reconciliation/reports/"


@pytest.fixture
def accountant(page, live_server, django_user_model):
    return member_of(
        ("ledger.migrations.0002_accounting_group", "ledger.migrations.0006_slip_books"),
        "carol",
        page,
        live_server,
        django_user_model,
    )


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / name), full_page=True)


def _record(fake_game, *tables: Table) -> None:  # noqa: F811 - the fixture, passed on
    for t in tables:
        fake_game.record(t.code, t.events)
        append(t.code, t.events)
    catch_up("ledger.books")


def _cells(page, section: str, first: str) -> dict[str, str]:
    """The cells of the row of ``section``'s table whose first cell is ``first``, by the
    column's title as the screen shows it."""
    titles = [t.strip().lower() for t in page.locator(f"{section} thead th").all_inner_texts()]
    for row in page.locator(f"{section} tbody tr").all():
        cells = [c.strip() for c in row.locator("td").all_inner_texts()]
        if cells and cells[0] == first:
            return dict(zip(titles, cells, strict=True))
    raise AssertionError(f"no row {first!r} in {section}")


def test_the_reports_say_words_and_n_a_never_true_or_a_zero_year(
    accountant,
    live_server,
    settings,
    fake_game,  # noqa: F811
) -> None:
    """BJ-01 played on the day and the same day a year before (9,000.00 drop, 4,000.00
    win both years); BJ-02 only on the day. BJ-02's year before is n/a - its drop, win,
    hold and the change of its win - never EUR 0.00 or a change against nothing; the
    daily report's "inside the 95% interval" is a word, never True/False."""
    settings.PROJECT_ON_APPEND = False
    one, two = Table("BJ-01"), Table("BJ-02")
    a_day(one, "2025-11-29", opener=20, buyin=900_000, house_wins=400_000)
    a_day(one, DAY, opener=20, buyin=900_000, house_wins=400_000)
    a_day(two, DAY, opener=10, buyin=500_000, house_wins=200_000)
    _record(fake_game, one, two)
    page = accountant

    page.goto(f"{live_server.url}{REPORTS}?from={DAY}&to={DAY}&period=day&group=table")
    body = page.locator("#content-main").inner_text()
    for raw in ("True", "False", "None"):
        assert raw not in body.split(), raw
    before = _cells(page, "#report-statistics", "BJ-02")
    for column in (
        "prior-year drop",
        "prior-year chip-count win",
        "prior-year hold",
        "win change",
        "hold change (bp)",
    ):
        assert before[column] == "n/a", (column, before)
    # BJ-01 had the same day a year before: figures, and no change
    known = _cells(page, "#report-statistics", "BJ-01")
    assert known["prior-year drop"] == "EUR 9,000.00"
    assert known["prior-year chip-count win"] == "+EUR 4,000.00"
    assert known["win change"] == "EUR 0.00"
    # the daily report's yes-or-no: a word where the report knows it (the column is left
    # out where no row has it)
    [row] = reports.daily(day_from=date(2026, 11, 29), day_to=date(2026, 11, 29)).rows
    daily = _cells(page, "#report-daily", DAY)
    if row["inside"] is not None:
        assert daily["inside the 95% interval"] == ("yes" if row["inside"] else "no")
    else:
        assert "inside the 95% interval" not in daily
    # the day and its amounts never break across two lines
    for selector in ("#report-daily tbody td", "#report-statistics tbody td"):
        for cell in page.locator(selector).all():
            assert cell.evaluate("e => getComputedStyle(e).whiteSpace") == "nowrap"
    _shot(page, "ledger_reports_words.png")


def test_a_long_report_pages_and_its_csv_is_whole(
    accountant,
    live_server,
    settings,
    monkeypatch,
    fake_game,  # noqa: F811
) -> None:
    """Five gaming days of BJ-01, two rows a page: the daily report's page 1 shows the
    first two days, page 3 the fifth alone, with "page x of y" and links both ways; the
    CSV has every day (counted from what was recorded), whatever page is shown."""
    settings.PROJECT_ON_APPEND = False
    monkeypatch.setattr(accounting_admin, "ROWS_PER_PAGE", 2)
    days = [f"2026-11-{d}" for d in (25, 26, 27, 28, 29)]
    t = Table("BJ-01")
    for day in days:
        a_day(t, day, opener=20, buyin=100_000, house_wins=50_000)
    _record(fake_game, t)
    recorded = sorted(
        d.isoformat()
        for d in m.Reconciliation.objects.filter(shift="").values_list("gaming_day", flat=True)
    )
    assert recorded == days
    page = accountant

    # the reports open on the latest gaming day with play, a month back
    page.goto(f"{live_server.url}{REPORTS}")
    assert page.locator("input[name=to]").input_value() == days[-1]
    daily = page.locator("#report-daily")
    assert daily.locator("tbody tr td:first-child").all_inner_texts() == days[:2]
    assert daily.locator(".page-of").inner_text() == "page 1 of 3"
    assert daily.locator("a.previous").count() == 0
    daily.locator("a.next").click()
    assert "page=2" in page.url
    daily = page.locator("#report-daily")
    assert daily.locator("tbody tr td:first-child").all_inner_texts() == days[2:4]
    daily.locator("a.next").click()
    daily = page.locator("#report-daily")
    assert daily.locator("tbody tr td:first-child").all_inner_texts() == [days[4]]
    assert daily.locator(".page-of").inner_text() == "page 3 of 3"
    assert daily.locator("a.next").count() == 0
    # the totals are of every day, on every page
    assert daily.locator("tfoot tr.total td").nth(1).inner_text().strip() == str(len(days))
    _shot(page, "ledger_reports_paged.png")

    href = page.locator("#report-daily h2 a.csv").get_attribute("href")
    answer = page.request.get(urljoin(page.url, href))
    assert answer.ok
    rows = list(csv.DictReader(io.StringIO(answer.text())))
    assert [r["gaming_day"] for r in rows if r["gaming_day"] != "total"] == recorded
    assert rows[-1]["gaming_day"] == "total"


def test_every_accounting_screen_links_answer_and_lead_back_to_the_floor(
    accountant,
    live_server,
    django_user_model,
    settings,
    fake_game,  # noqa: F811
) -> None:
    """From each accounting screen - the reconciliations, a table-day's reconciliation,
    the reports, the five accounting pages, the sign-offs - every link of its hub
    answers 200, and the page it opens has a way back to the floor (the admin's home);
    a table-day's screen links its rounds and its findings. The screens open on the
    latest day with play, not a later day only opened."""
    settings.PROJECT_ON_APPEND = False
    t = Table("BJ-01")
    a_day(t, DAY, opener=20, buyin=900_000, house_wins=400_000)
    t.open("2026-11-30")  # opened, counted, never played: not the day the screens open on
    t.count("opening", {100_000: 20}, day="2026-11-30")
    _record(fake_game, t)
    assert set(m.Reconciliation.objects.filter(shift="").values_list("gaming_day", "rounds")) == {
        (date(2026, 11, 29), 1),
        (date(2026, 11, 30), 0),
    }
    page = accountant
    base = live_server.url
    for name in ("master-game", "general-ledger"):
        page.goto(f"{base}/admin/ledger/reconciliation/accounting/{name}/")
        assert page.locator("input[name=day]").input_value() == DAY, name
    page.goto(f"{base}{REPORTS}")
    assert page.locator("input[name=to]").input_value() == DAY
    screens = [
        "/admin/ledger/reconciliation/",
        f"/admin/ledger/reconciliation/BJ-01/{DAY}/",
        REPORTS,
        *(f"/admin/ledger/reconciliation/accounting/{name}/" for name in accounting_admin.PAGES),
        "/admin/ledger/signoff/",
    ]
    checked: set[str] = set()
    for screen in screens:
        assert page.goto(base + screen).status == 200, screen
        hub = page.locator("#ledger-hub")
        assert hub.locator("#hub-floor").get_attribute("href") == "/admin/", screen
        links = [a.get_attribute("href") for a in hub.locator("a").all()]
        assert len(links) >= 9, (screen, links)
        for href in links:
            url = urljoin(page.url, href)
            if url in checked:
                continue
            answer = page.request.get(url)
            assert answer.status == 200, (screen, href)
            assert 'href="/admin/"' in answer.text(), (screen, href)  # a way back
            checked.add(url)
    # the table-day's page: its findings; its rounds for who may view them (the
    # accounting group may not: no link to a 403)
    page.goto(f"{base}/admin/ledger/reconciliation/BJ-01/{DAY}/")
    assert page.locator("#hub-rounds").count() == 0
    carol = django_user_model.objects.get(username="carol")
    carol.user_permissions.add(
        Permission.objects.get(content_type__app_label="tables", codename="view_round")
    )
    page.reload()
    rounds = page.locator("#hub-rounds").get_attribute("href")
    findings = page.locator("#hub-findings").get_attribute("href")
    assert "table__stream=BJ-01" in rounds and f"gaming_day={DAY}" in rounds
    assert "stream=BJ-01" in findings and f"gaming_day={DAY}" in findings
    page.click("#hub-rounds")
    page.wait_for_url("**/admin/tables/round/**")  # the click only starts the navigation
    assert page.locator("#changelist").count() == 1  # the rounds' list of that table-day
    page.go_back()
    # the master game report links each table to its table-day
    page.goto(f"{base}/admin/ledger/reconciliation/accounting/master-game/?day={DAY}")
    page.locator("#report-master_game tbody tr td a").first.click()
    assert page.url.endswith(f"/admin/ledger/reconciliation/BJ-01/{DAY}/")
    _shot(page, "ledger_hub_reconciliation.png")
    page.click("#hub-floor")
    assert page.url == f"{base}/admin/"


@pytest.mark.parametrize(
    ("language", "title", "state", "hold"),
    [
        ("it", "Riconciliazione di BJ-01, giornata di gioco 29/11/2026", "riconciliata", "44,4"),
        ("cs", "Odsouhlasení BJ-01, herní den 29. 11. 2026", "odsouhlaseno", "44,4"),
    ],
)
def test_an_accountant_reads_a_table_day_in_italian_and_czech(
    accountant,
    live_server,
    settings,
    fake_game,  # noqa: F811
    language,
    title,
    state,
    hold,
) -> None:
    """The worked example (13 Miss. Code R. 7-3.3: a chip-count win of 4,000.00 on a drop
    of 9,000.00) read in the browser's language: the page's words, its day in the
    locale's date, its money as the locale writes it (Babel's CLDR data, computed here
    apart), the state and the links in that language, never True/False or a code."""
    from decimal import Decimal

    from babel.numbers import format_currency

    from tests.ledger.helpers import worked_example

    settings.PROJECT_ON_APPEND = False
    t = worked_example()
    t.open("2026-11-30")
    t.count("opening", {100_000: 18}, day="2026-11-30")
    _record(fake_game, t)
    page = accountant
    page.context.set_extra_http_headers({"Accept-Language": language})
    page.goto(f"{live_server.url}/admin/ledger/reconciliation/BJ-01/{DAY}/")

    def plain(text: str) -> str:
        return text.replace("\u00a0", " ").replace("\u202f", " ").strip()

    assert plain(page.locator("#content h1").inner_text()) == title
    win = "+" + format_currency(Decimal("4000.00"), "EUR", locale=language)
    drop = format_currency(Decimal("9000.00"), "EUR", locale=language)
    amounts = [plain(a) for a in page.locator("#figures .figure .amount").all_inner_texts()]
    assert amounts[0] == plain(win) and amounts[-1] == plain(drop), amounts
    assert plain(page.locator("#hold").inner_text()).startswith(hold)  # 4,000 / 9,000
    assert page.locator("#state").inner_text() == state
    hub = page.locator("#ledger-hub").inner_text()
    assert "Reconciliations" not in hub and "the floor" not in hub
    body = page.locator("#content-main").inner_text()
    for raw in ("True", "False", "chip_variance", "EUR 4,000.00"):
        assert raw not in body, raw
    _shot(page, f"ledger_reconciliation_{language}.png")
