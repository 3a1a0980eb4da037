"""The analytics can be found: the admin's index of every screen (/admin/apps/) lists
each analytics screen in a module of its own and names "Tables" once; /admin/analytics/
(the README's address) is their index, a line each on what it shows. Every link from
either answers 200 and leads to a page with a way back (the analytics' index and the
floor in its breadcrumbs). A pit boss, not a superuser, in headless Chromium at 1400 px;
screenshots in artifacts/."""

from __future__ import annotations

import pytest

from tests.analytics.store import DAY, simulated_into_store
from tests.browser.conftest import ARTIFACTS

pytestmark = pytest.mark.django_db(transaction=True)

SCREENS = ("counters", "accuracy", "dealers", "what-if")


def _way_back(page, live_server) -> None:
    """The page's breadcrumbs lead to the analytics' index and the floor, and both answer."""
    crumbs = page.locator("div.breadcrumbs a")
    targets = {crumbs.nth(i).get_attribute("href") for i in range(crumbs.count())}
    assert {"/admin/", "/admin/analytics/"} <= targets, targets


def test_the_analytics_are_in_the_admin_index_and_their_own(
    pit_boss, live_server, settings
) -> None:
    simulated_into_store(settings, "index", rounds=60)
    page = pit_boss
    ARTIFACTS.mkdir(exist_ok=True)

    answer = page.goto(f"{live_server.url}/admin/apps/")
    assert answer.status == 200
    module = page.locator("#analytics-module")
    assert module.is_visible()
    links = {
        module.locator(f"#analytics-{name}").get_attribute("href").split("?")[0] for name in SCREENS
    }
    assert links == {f"/admin/analytics/{name}/" for name in SCREENS}
    assert module.locator("caption a").get_attribute("href") == "/admin/analytics/"
    # the app list names each model once: "Tables" is the game's, the ledger's is another
    names = [n.strip() for n in page.locator("#content-main th[scope=row] a").all_inner_texts()]
    assert names.count("Tables") == 1, names
    assert page.locator("#back-to-floor").get_attribute("href") == "/admin/"
    page.screenshot(path=str(ARTIFACTS / "admin_index_with_analytics.png"), full_page=True)

    answer = page.goto(f"{live_server.url}/admin/analytics/")
    assert answer.status == 200
    assert page.locator("#which-day").inner_text().count(DAY.isoformat()) == 1
    page.screenshot(path=str(ARTIFACTS / "analytics_index.png"), full_page=True)
    for name in SCREENS:
        link = page.locator(f"#screen-{name}")
        assert link.is_visible()
        assert page.locator(f"#screen-{name} >> xpath=../following-sibling::dd[1]").inner_text()
        assert link.get_attribute("href") == f"/admin/analytics/{name}/?day={DAY}"

    for name in SCREENS:
        page.goto(f"{live_server.url}/admin/analytics/")
        with page.expect_navigation() as navigation:
            page.click(f"#screen-{name}")
        assert navigation.value.status == 200, name
        assert page.locator(f"#tab-{name}.current").is_visible()
        assert page.locator('input[name="day"]').input_value() == DAY.isoformat()
        _way_back(page, live_server)
        # and back again, by the breadcrumb
        with page.expect_navigation() as navigation:
            page.click("#analytics-index")
        assert navigation.value.status == 200
        assert page.url.endswith("/admin/analytics/")
