"""The analytics' screens in a real browser (headless Chromium at 1400 px): a simulated
day in the store, the pit boss opens counter detection from the floor's address and
moves to strategy accuracy, dealer performance and a what-if under 6:5; each chart is
drawn, each table fits, each has its CSV.
Screenshots in artifacts/."""

from __future__ import annotations

import pytest

from tests.analytics.helpers import kinds
from tests.analytics.store import DAY, simulated_into_store
from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)


def _fits(page, selector: str) -> None:
    width = page.evaluate(f"document.querySelector('{selector}').getBoundingClientRect().right")
    assert width <= 1400, f"{selector} ends at {width}px"


def test_counter_detection_strategy_accuracy_and_dealers_on_screen(
    pit_boss, live_server, settings
) -> None:
    manifest = simulated_into_store(settings, "browser-1", rounds=200, rates={"short_pay": 0.02})
    kind = kinds(manifest)
    page = pit_boss
    ARTIFACTS.mkdir(exist_ok=True)

    page.goto(f"{live_server.url}/admin/analytics/counters/?day={DAY}")
    assert page.locator("svg.bet-against-count").is_visible()
    flagged = page.locator("#report-counters tbody tr.flagged")
    assert flagged.count() >= 1  # this seed's day has counters with a count to bet on
    assert page.locator("svg.bet-against-count polyline.flagged").count() == flagged.count()
    for i in range(flagged.count()):
        assert kind[flagged.nth(i).locator("td").first.inner_text()] == "counter"
    headers = [h.lower() for h in page.locator("#report-counters thead th").all_inner_texts()]
    assert "spearman ρ" in headers and "spread" in headers
    _fits(page, "#report-counters table")
    page.screenshot(path=str(ARTIFACTS / "analytics_counters.png"), full_page=True)
    href = page.locator("#report-counters a.csv").get_attribute("href")
    assert href.startswith("/admin/analytics/counters.csv?") and f"day={DAY}" in href

    page.click("#tab-accuracy")
    page.wait_for_selector("svg.cost-by-player")
    rows = page.locator("#report-accuracy tbody tr")
    assert rows.count() >= 4
    first = rows.first.locator("td").all_inner_texts()
    assert kind[first[0]] == "casual" and first[-2].startswith(
        "EUR "
    )  # the costliest player made the errors
    errors = page.locator("#report-strategy_errors tbody tr")
    assert errors.count() == len(manifest["strategy_errors"])
    _fits(page, "#report-strategy_errors table")
    page.screenshot(path=str(ARTIFACTS / "analytics_accuracy.png"), full_page=True)

    page.select_option("select[name=table]", "BJ-02")
    page.click("form.parameters input[type=submit]")
    page.wait_for_selector("svg.cost-by-player")
    tables = set(page.locator("#report-accuracy tbody tr td:nth-child(2)").all_inner_texts())
    assert tables == {"BJ-02"}

    page.click("#tab-dealers")  # the day and the table (BJ-02) go along
    page.wait_for_selector("svg.errors-by-dealer")
    rows = page.locator("#report-dealers tbody tr")
    errors = sum(int(rows.nth(i).locator("td").nth(6).inner_text()) for i in range(rows.count()))
    assert errors == len([f for f in manifest["faults"] if f["table"] == "BJ-02"]) >= 1
    _fits(page, "#report-dealers table")
    page.screenshot(path=str(ARTIFACTS / "analytics_dealers.png"), full_page=True)

    page.goto(f"{live_server.url}/admin/analytics/what-if/?day={DAY}")
    assert (
        page.locator("#choice-natural_pays").input_value() == "6:5"
    )  # the screen's default question
    page.wait_for_selector("svg.what-if-by-table")
    tables = page.locator("#report-what_if_tables tbody tr")
    assert tables.count() == 2
    difference = tables.first.locator("td").last.inner_text()
    assert difference.startswith("+EUR ")  # 6:5 naturals: the house gains on every table
    assert page.locator("#report-what_if_players tbody tr").count() >= 10
    _fits(page, "#report-what_if_players table")
    page.screenshot(path=str(ARTIFACTS / "analytics_what_if.png"), full_page=True)
    page.select_option(
        "#choice-natural_pays", "3:2"
    )  # hoyle's own payout; it-classic pays naturals 3:1
    page.click("form.parameters input[type=submit]")
    page.wait_for_selector("svg.what-if-by-table")
    by_table = {}
    for i in range(page.locator("#report-what_if_tables tbody tr").count()):
        cells = (
            page.locator("#report-what_if_tables tbody tr").nth(i).locator("td").all_inner_texts()
        )
        by_table[cells[0]] = cells[-1]
    assert by_table["BJ-01"] == "EUR 0.00" and by_table["BJ-02"].startswith("+EUR ")
