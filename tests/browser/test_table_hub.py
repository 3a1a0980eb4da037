"""The pit boss's hubs in a real browser (headless Chromium, 1400 px): a simulated day of
two tables in the store, followed by the tables' read models and the ledger. From the
floor every screen is one click away - rounds, findings, tables, reconciliation,
reports, sign-off, analytics, packages and recall - each answers 200 and leads back; a
table's page and a table-day's page show the day's rounds, findings, dealer and shoe,
figures and reconciliation, the figures checked against the rows they come from.
Screenshots in artifacts/ (floor_hub.png, table_hub.png, table_day_hub.png)."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest
from django.utils import translation
from django.utils.formats import date_format
from playwright.sync_api import expect

from audit.feed.subscribers import catch_up
from audit.models import Event, Finding
from audit.record.money import format_money, format_signed, in_locale, percent
from ledger import models as lm
from tables import models as m
from tests.analytics.store import DAY, simulated_into_store
from tests.browser.conftest import ARTIFACTS, PASSWORD, log_in

pytestmark = pytest.mark.django_db(transaction=True)

TABLE = "BJ-02"

# the floor's links to every screen: (the link's id, where it must lead)
FLOOR_LINKS = {
    "link-rounds": "/admin/tables/round/",
    "link-findings": "/admin/audit/finding/",
    "link-tables": "/admin/tables/table/",
    "link-table-days": "/admin/tables/tableday/",
    "link-reconciliation": "/admin/ledger/reconciliation/",
    "link-reports": "/admin/ledger/reconciliation/reports/",
    "link-sign-off": "/admin/ledger/signoff/",
    "link-accounting": "/admin/ledger/reconciliation/accounting/",
    "link-analytics": "/admin/analytics/",
    "link-analytics-counters": "/admin/analytics/counters/",
    "link-analytics-accuracy": "/admin/analytics/accuracy/",
    "link-analytics-dealers": "/admin/analytics/dealers/",
    "link-analytics-what-if": "/admin/analytics/what-if/",
    "link-packages": "/admin/casino/packagerequest/",
    "link-recall": "/admin/recall/",
}


@pytest.fixture
def day(settings):
    """Two tables' simulated day, projected and folded by the ledger."""
    manifest = simulated_into_store(
        settings, "hub", tables=2, rounds=60, rates={"short_pay": 0.04, "dealer_stands_16": 0.04}
    )
    catch_up("ledger.books")
    return manifest


def _shot(page, name: str) -> None:
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def _leads_back(page) -> bool:
    """The page has a way back: breadcrumbs to the floor (the admin's home page), or -
    the printable recall, a page of its own - a link to the round's review, whose
    breadcrumbs lead to the floor."""
    return (
        page.locator('.breadcrumbs a[href="/admin/"]').count() > 0
        or page.locator('a[href^="/admin/tables/round/"]').count() > 0
    )


def test_the_floor_links_every_screen_and_each_leads_back(logged_in, live_server, day):
    page = logged_in
    page.goto(f"{live_server.url}/admin/")
    assert page.locator("h1").inner_text().startswith("The floor")
    _shot(page, "floor_hub")
    targets = {}
    for link, path in FLOOR_LINKS.items():
        anchor = page.locator(f"#floor-links #{link}")
        assert anchor.count() == 1, f"the floor has no link {link}"
        href = anchor.get_attribute("href")
        assert href.startswith(path), f"{link} leads to {href}, not {path}"
        targets[link] = href
    # the tables' own list: each table's code opens its page, "day" its table-day
    row = page.locator(f"#table-{TABLE}")
    assert row.locator("a.table-page").get_attribute("href") == f"/admin/tables/table/{TABLE}/"
    targets["table"] = row.locator("a.table-page").get_attribute("href")
    targets["table-day"] = row.locator("a.table-day").get_attribute("href")
    for link, href in targets.items():
        response = page.goto(f"{live_server.url}{href}")
        assert response.status == 200, f"{link}: {href} answers {response.status}"
        assert _leads_back(page), f"{link}: {href} has no way back to the floor"


def test_the_floor_refreshes_on_a_24_hour_clock(logged_in, live_server, day):
    page = logged_in
    page.goto(f"{live_server.url}/admin/")
    stamp = page.locator("#floor-stamp")
    # the first poll's answer (before it the stamp says "refreshed every second")
    expect(stamp).to_have_text(re.compile(r"^refreshed \d"), timeout=5000)
    clock = stamp.inner_text().removeprefix("refreshed ")
    hours, minutes, seconds = clock.split(":")
    assert len(hours) == 2 and 0 <= int(hours) <= 23 and len(minutes) == len(seconds) == 2
    assert "AM" not in clock and "PM" not in clock


def _text(page, selector: str) -> str:
    return page.locator(selector).inner_text().strip()


def test_a_table_shows_its_latest_day_with_the_ledgers_figures(logged_in, live_server, day):
    table = m.Table.objects.get(stream=TABLE)
    currency = table.currency
    rounds = m.Round.objects.filter(table=table, gaming_day=DAY)
    bets = m.Bet.objects.filter(round__table=table, round__gaming_day=DAY)
    reconciliation = lm.Reconciliation.objects.get(table__stream=TABLE, gaming_day=DAY, shift="")
    findings = Finding.objects.filter(stream=TABLE, gaming_day=DAY, superseded_by__isnull=True)
    dealers = [
        e.payload["dealer"]
        for e in Event.objects.filter(stream=TABLE, type="dealer.assigned").order_by("version")
    ]
    assert dealers and reconciliation.drop_cash is not None

    page = logged_in
    page.goto(f"{live_server.url}/admin/tables/table/{TABLE}/")
    assert _text(page, "h1") == f"Table {TABLE}"
    assert DAY.isoformat() in _text(page, "#hub-day")
    # the rounds and the bets, counted from the rows themselves
    assert _text(page, "#rounds-link") == f"{rounds.count():,}"
    assert _text(page, "#figure-bets") == f"{bets.count():,}"
    assert _text(page, "#figure-handle") == format_money(sum(b.amount for b in bets), currency)
    house = -sum(r.recorded_net or 0 for r in rounds)
    assert _text(page, "#figure-house-result") == format_signed(house, currency)
    # the ledger's drop, chip-count win and hold, from its row's own parts
    drop = (
        reconciliation.drop_cash
        + (reconciliation.drop_markers or 0)
        + (reconciliation.drop_chips or 0)
    )
    assert _text(page, "#figure-drop") == format_money(drop, currency)
    assert _text(page, "#figure-win") == format_signed(reconciliation.chip_win, currency)
    assert _text(page, "#figure-hold") == percent(Fraction(reconciliation.chip_win, drop))
    # findings, dealer, shoe
    assert _text(page, "#findings-link") == str(findings.count())
    assert _text(page, "#dealer") == dealers[-1]
    shoe = m.Shoe.objects.filter(table=table, gaming_day=DAY).order_by("shuffled_version").last()
    assert _text(page, "#shoe").startswith(f"shoe {shoe.shoe}:")
    # nothing internal in the main view: the versions only in the closed Details fold
    assert not page.locator("details#details").get_attribute("open")
    assert "version" not in page.locator("#content-main > :not(details)").all_inner_texts()
    _shot(page, "table_hub")

    # the reconciliation it links shows the same hold
    hold = _text(page, "#figure-hold")
    page.click("#reconciliation-link")
    assert f"/admin/ledger/reconciliation/{TABLE}/{DAY}/" in page.url
    assert hold in page.locator("#content").inner_text()

    # and the table-day's page: the same day, its neighbours, the versions folded away
    page.goto(f"{live_server.url}/admin/tables/table/{TABLE}/")
    page.click("#table-day-link")
    assert page.url.endswith(f"/admin/tables/tableday/{TABLE}/{DAY}/")
    assert _text(page, "#figure-drop") == format_money(drop, currency)
    assert _text(page, "#rounds-link") == f"{rounds.count():,}"
    main = page.locator("#content-main").inner_text()
    assert "First version" not in main and "Projected version" not in main
    assert not page.locator("details#details").get_attribute("open")
    assert page.locator('.breadcrumbs a[href="/admin/"]').count() == 1
    _shot(page, "table_day_hub")
    page.click("#rounds-link")
    page.wait_for_selector("#result_list")
    assert page.locator("#result_list tbody tr").count() == min(rounds.count(), 100)


@pytest.fixture
def speaking(browser, live_server, django_user_model):
    """``speaking("it-IT")``: a page in a browser that asks for that language, logged in
    as a superuser (no preference of its own: the browser's language is taken)."""
    django_user_model.objects.create_superuser("capo", "capo@example.com", PASSWORD)
    contexts = []

    def open_in(locale: str):
        context = browser.new_context(viewport={"width": 1400, "height": 900}, locale=locale)
        contexts.append(context)
        return log_in(context.new_page(), live_server, "capo")

    yield open_in
    for context in contexts:
        context.close()


@pytest.mark.parametrize(
    ("locale", "language", "table", "refreshed"),
    [("it-IT", "it", "Tavolo", "aggiornato"), ("cs-CZ", "cs", "Stůl", "obnoveno")],
)
def test_the_hubs_speak_italian_and_czech(
    speaking, live_server, day, locale, language, table, refreshed
):
    """The floor and a table's page in the browser's language: words from the tables'
    catalogue, money, counts and days by the locale, the clock 24-hour."""
    reconciliation = lm.Reconciliation.objects.get(table__stream=TABLE, gaming_day=DAY, shift="")
    bets = m.Bet.objects.filter(round__table__stream=TABLE, round__gaming_day=DAY)
    page = speaking(locale)
    page.goto(f"{live_server.url}/admin/")
    assert page.locator("html").get_attribute("lang") == language
    expect(page.locator("#floor-stamp")).to_have_text(
        re.compile(rf"^{refreshed} \d\d:\d\d:\d\d$"), timeout=5000
    )
    page.screenshot(path=str(ARTIFACTS / f"floor_hub_{language}.png"), full_page=True)

    page.goto(f"{live_server.url}/admin/tables/table/{TABLE}/")
    assert _text(page, "h1") == f"{table} {TABLE}"
    with in_locale(language), translation.override(language):
        drop = format_money(reconciliation.drop, reconciliation.currency)
        handle = format_money(sum(b.amount for b in bets), "EUR")
        day_text = date_format(DAY, "DATE_FORMAT")
    assert _text(page, "#figure-drop") == drop and "EUR" not in drop and "€" in drop
    assert _text(page, "#figure-handle") == handle
    assert day_text in _text(page, "#hub-day") and DAY.isoformat() not in _text(page, "#hub-day")
    page.screenshot(path=str(ARTIFACTS / f"table_hub_{language}.png"), full_page=True)
