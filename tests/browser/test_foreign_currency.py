"""A day on which a EUR table took US dollars, in a real browser: before the day's rate
the reconciliation page names each dollar amount as not booked; accounting sets the rate,
and the page shows each amount as recorded beside what was booked at it, in its currency
(screenshots in artifacts/)."""

from __future__ import annotations

from datetime import date
from fractions import Fraction

import pytest

from audit.feed.subscribers import catch_up
from audit.record.findings import KINDS
from ledger import fx
from tests.back_office.helpers import append
from tests.browser.conftest import ARTIFACTS, member_of
from tests.ledger.conftest import fake_game  # noqa: F401 - the fixture, shared
from tests.ledger.helpers import DAY
from tests.ledger.test_currencies import usd_at_a_eur_table

pytestmark = pytest.mark.django_db(transaction=True)


def test_dollars_at_a_euro_table_before_and_after_the_day_s_rate(
    page,
    live_server,
    settings,
    django_user_model,
    fake_game,  # noqa: F811 - the fixture imported above
):
    settings.PROJECT_ON_APPEND = False
    t = usd_at_a_eur_table()
    fake_game.record(t.code, t.events)
    append(t.code, t.events)
    catch_up("ledger.books")
    page = member_of(
        ("ledger.migrations.0002_accounting_group", "ledger.migrations.0008_fx_rates"),
        "carol",
        page,
        live_server,
        django_user_model,
    )
    url = f"{live_server.url}/admin/ledger/reconciliation/BJ-01/{DAY}/"
    page.goto(url)
    findings = page.locator("#findings").inner_text()
    assert (
        page.locator('#findings tr.finding[data-kind="currency_mismatch"]').count() == 3
        and findings.count(KINDS["currency_mismatch"].title) == 3  # the kind by its title
        and "currency_mismatch" not in findings
        and "USD 1,000.00" in findings
        and "not booked" in findings
    )
    assert page.locator("#conversions").count() == 0
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "ledger_foreign_currency_no_rate.png"), full_page=True)

    carol = django_user_model.objects.get(username="carol")
    fx.fx_rate_set(
        gaming_day=date(2026, 11, 29), currency="USD", rate=Fraction(9_215, 10_000), user=carol
    )
    page.goto(url)
    table = page.locator("#conversions + table").inner_text()
    assert "USD 1,000.00" in table and "1 USD = 0.9215 EUR" in table and "EUR 921.50" in table
    assert "A cash buy-in at box 1" in table and "drop count" in table
    assert "currency_mismatch" not in page.locator("#findings").inner_text()
    page.screenshot(path=str(ARTIFACTS / "ledger_foreign_currency_booked.png"), full_page=True)
